// SPDX-License-Identifier: MIT
// mixprec/recipes/detail/simd_block_width.hpp — what the block-scaling and block-GEMM kernels use
// beyond the vector traits of simd/ (vec512, vec256), host only.
//
// What: block_width<V> is V (simd::vec512 or simd::vec256; their float max / min, compares,
// selects, reductions, byte loads and optimization barrier included) plus code stores, a 16-entry
// float table and the transposing maximum: the operations that detail/simd_block_scaling.hpp and
// detail/simd_block_gemm.hpp write their kernels over, once for both widths.
// Contract: as simd/'s traits, one instruction (or a short fixed sequence) per operation.
//   using W = detail::block_width<simd::vec256>;  float m = W::f_hmax(W::f_load(p));
#ifndef MIXPREC_DETAIL_SIMD_BLOCK_WIDTH_HPP
#define MIXPREC_DETAIL_SIMD_BLOCK_WIDTH_HPP

#include <cstddef>
#include <cstdint>

#include "../../simd/vec_avx2.hpp"
#include "../../simd/vec_avx512.hpp"

namespace mixprec {
namespace detail {

/// What the block kernels use beyond V's interface: code stores, a 16-entry float table and the
/// transposing maximum.
template <class V>
struct block_width;

#if defined(MIXPREC_SIMD_AVX512)
template <>
struct block_width<simd::vec512> : simd::vec512 {
  /// t[idx & 15] for a table whose second half is its first half negated (t[8 + i] = -t[i]).
  static vf f_lookup16_signed(const float* t, vi idx) noexcept {
    return _mm512_permutexvar_ps(idx, _mm512_loadu_ps(t));
  }
  /// 16 codes (< 256; c[0]) -> 16 bytes.
  static void store_codes16(std::uint8_t* o, const vi* c) noexcept { store8(o, c[0]); }
  /// 4 x 16 codes (< 256) -> 64 bytes in order: two packs and one permute.
  static void store_codes4(std::uint8_t* o, vi c0, vi c1, vi c2, vi c3) noexcept {
    const __m512i b = _mm512_packus_epi16(_mm512_packus_epi32(c0, c1), _mm512_packus_epi32(c2, c3));
    _mm512_storeu_si512(
        o, _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), b));
  }
  /// Lane i: the unsigned max over the lanes of v[i] (i < 16).
  static vi umax_transpose(const vi* v) noexcept {
    __m512i m[8], w[4];
    for (int k = 0; k < 8; ++k)
      m[k] = _mm512_max_epu32(_mm512_unpacklo_epi32(v[2 * k], v[2 * k + 1]),
                              _mm512_unpackhi_epi32(v[2 * k], v[2 * k + 1]));
    for (int k = 0; k < 4; ++k)
      w[k] = _mm512_max_epu32(_mm512_unpacklo_epi64(m[2 * k], m[2 * k + 1]),
                              _mm512_unpackhi_epi64(m[2 * k], m[2 * k + 1]));
    const __m512i u01 = _mm512_max_epu32(_mm512_shuffle_i32x4(w[0], w[1], _MM_SHUFFLE(1, 0, 1, 0)),
                                         _mm512_shuffle_i32x4(w[0], w[1], _MM_SHUFFLE(3, 2, 3, 2)));
    const __m512i u23 = _mm512_max_epu32(_mm512_shuffle_i32x4(w[2], w[3], _MM_SHUFFLE(1, 0, 1, 0)),
                                         _mm512_shuffle_i32x4(w[2], w[3], _MM_SHUFFLE(3, 2, 3, 2)));
    return _mm512_max_epu32(_mm512_shuffle_i32x4(u01, u23, _MM_SHUFFLE(2, 0, 2, 0)),
                            _mm512_shuffle_i32x4(u01, u23, _MM_SHUFFLE(3, 1, 3, 1)));
  }
};
#endif

#if defined(MIXPREC_SIMD_AVX2)
template <>
struct block_width<simd::vec256> : simd::vec256 {
  /// t[idx & 15] for a table whose second half is its first half negated (t[8 + i] = -t[i]).
  static vf f_lookup16_signed(const float* t, vi idx) noexcept {
    const __m256 v = _mm256_permutevar8x32_ps(_mm256_loadu_ps(t), idx);  // the low 3 bits
    return _mm256_or_ps(v, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_and_si256(idx, _mm256_set1_epi32(8)), 28)));
  }
  /// 2 x 8 codes (< 256; c[0], c[1]) -> 16 bytes in order.
  static void store_codes16(std::uint8_t* o, const vi* c) noexcept {
    const __m256i x = _mm256_packus_epi16(_mm256_packs_epi32(c[0], c[1]), _mm256_setzero_si256());
    const __m256i y = _mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(0, 4, 1, 5, 0, 0, 0, 0));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm256_castsi256_si128(y));
  }
  /// 4 x 8 codes (< 256) -> 32 bytes in order.
  static void store_codes4(std::uint8_t* o, vi a, vi b, vi c, vi d) noexcept {
    const __m256i x = _mm256_packus_epi16(_mm256_packs_epi32(a, b), _mm256_packs_epi32(c, d));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(o),
                        _mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
  }
  /// Lane i: the unsigned max over the lanes of v[i] (i < 8).
  static vi umax_transpose(const vi* v) noexcept {
    __m256i m[4], w[2];
    for (int k = 0; k < 4; ++k)
      m[k] = _mm256_max_epu32(_mm256_unpacklo_epi32(v[2 * k], v[2 * k + 1]),
                              _mm256_unpackhi_epi32(v[2 * k], v[2 * k + 1]));
    for (int k = 0; k < 2; ++k)
      w[k] = _mm256_max_epu32(_mm256_unpacklo_epi64(m[2 * k], m[2 * k + 1]),
                              _mm256_unpackhi_epi64(m[2 * k], m[2 * k + 1]));
    return _mm256_max_epu32(_mm256_permute2x128_si256(w[0], w[1], 0x20), _mm256_permute2x128_si256(w[0], w[1], 0x31));
  }
};
#endif

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_SIMD_BLOCK_WIDTH_HPP
