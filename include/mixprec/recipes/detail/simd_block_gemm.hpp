// SPDX-License-Identifier: MIT
// mixprec/recipes/detail/simd_block_gemm.hpp — the register-tiled x86 kernel of block_scaled_gemm's FP32
// accumulator model (host only), written once over detail/simd_block_width.hpp: AVX-512 14 x 32
// tiles, AVX2 + FMA 6 x 16 tiles.
//
// Contract: bgemm_tile(k, chunk, kb, ap, bp, sa, sb, acc) adds into the tile acc (MR x NR floats,
// row-major) for each promotion chunk [k0, k0 + chunk) of k, in order:
//   partial = fma(a_p, b_p, partial) for p in the chunk, from +0 (a_p * b_p exact in float: then
//             the same bits as float(partial + a_p * b_p), the model's step);
//   acc     = acc + float(partial * float(sa * sb))   (two roundings: the product is kept out of
//             an FMA by an empty asm barrier; GCC contracts vector mul + add otherwise);
// ap: k x MR floats (row r of A at ap[p * MR + r]), bp: k x NR, sa: MR scales per K block of kb,
// sb: NR per K block; chunk divides kb. Needs MXCSR nearest, FTZ and DAZ clear (the caller
// checks). Also the truncated model's truncate-and-add over a row of C (bgemm_trunc_set/_add).
//   alignas(64) float acc[bgemm_mr * bgemm_nr] = {};
//   detail::bgemm_tile(k, 32, 32, ap, bp, sa, sb, acc);
#ifndef MIXPREC_DETAIL_SIMD_BLOCK_GEMM_HPP
#define MIXPREC_DETAIL_SIMD_BLOCK_GEMM_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "../../core/config.hpp"
#include "../../core/detail/bits.hpp"
#include "simd_block_width.hpp"

#if !defined(__CUDACC__) && (defined(MIXPREC_SIMD_AVX512) || (defined(MIXPREC_SIMD_AVX2) && defined(MIXPREC_SIMD_FMA)))
#define MIXPREC_BGEMM_SIMD 1
#endif

namespace mixprec {
namespace detail {

#if defined(MIXPREC_BGEMM_SIMD)
#if defined(MIXPREC_SIMD_AVX512)
using bgemm_width = block_width<simd::vec512>;
constexpr std::size_t bgemm_mr = 14;  // rows of a tile
#else
using bgemm_width = block_width<simd::vec256>;
constexpr std::size_t bgemm_mr = 6;
#endif
constexpr std::size_t bgemm_nr = 2 * bgemm_width::N;  // columns of a tile: two vectors

/// One MR x NR tile over the whole k (see the top of the header). ap, bp, acc 64-byte aligned.
inline void bgemm_tile(std::size_t k, std::size_t chunk, std::size_t kb, const float* ap, const float* bp,
                       const float* sa, const float* sb, float* acc) noexcept {
  using W = bgemm_width;
  using vf = W::vf;
  constexpr int MR = static_cast<int>(bgemm_mr);
  constexpr std::size_t N = W::N, NR = bgemm_nr;
  std::size_t blk = 0, in_blk = 0;  // k0 / kb and k0 % kb (chunk divides kb: no division per chunk)
  for (std::size_t k0 = 0; k0 < k; k0 += chunk) {
    const std::size_t len = k - k0 < chunk ? k - k0 : chunk;
    vf c0[MR], c1[MR];
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      c0[r] = W::f_set1(0.0f);
      c1[r] = W::f_set1(0.0f);
    }
    for (std::size_t p = 0; p < len; ++p) {
      const vf b0 = W::f_load_aligned(bp);
      const vf b1 = W::f_load_aligned(bp + N);
#pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) {
        const vf a = W::f_set1(ap[r]);
        c0[r] = W::f_fma(a, b0, c0[r]);
        c1[r] = W::f_fma(a, b1, c1[r]);
      }
      ap += MR;
      bp += NR;
    }
    // Epilogue: acc += float(partial * float(sa * sb)), row by row. The tile pointer goes through
    // an empty asm so that GCC reloads acc from the tile (else it keeps a second copy on the stack).
    const float* sap = sa + blk * bgemm_mr;
    const float* sbp = sb + blk * NR;
    in_blk += chunk;
    if (in_blk == kb) {
      in_blk = 0;
      ++blk;
    }
    float* tp = acc;
#if defined(__GNUC__) || defined(__clang__)
    __asm__("" : "+r"(tp));
#endif
    const vf s0 = W::f_load_aligned(sbp), s1 = W::f_load_aligned(sbp + N);
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      const vf a = W::f_set1(sap[r]);
      float* t = tp + static_cast<std::size_t>(r) * NR;
      const vf v0 = W::f_opaque(W::f_mul(c0[r], W::f_mul(a, s0)));
      const vf v1 = W::f_opaque(W::f_mul(c1[r], W::f_mul(a, s1)));
      W::f_store_aligned(t, W::f_add(W::f_load_aligned(t), v0));
      W::f_store_aligned(t + N, W::f_add(W::f_load_aligned(t + N), v1));
    }
  }
}

// The truncation of 4 (AVX2) or 8 (AVX-512) doubles' bits u (bgemm_trunc_add): d = exponent
// field - qb; d < 0: 0, else u with its low 52 - d bits cleared.
#if defined(MIXPREC_SIMD_AVX512)
struct bgemm_trunc_width {
  static constexpr std::size_t N = 8;
  using vi = __m512i;
  static vi load(const void* p) noexcept { return _mm512_loadu_si512(p); }
  static void store(void* p, vi x) noexcept { _mm512_storeu_si512(p, x); }
  static vi trunc(vi u, vi qb) noexcept {
    const __m512i one = _mm512_set1_epi64(1), zero = _mm512_setzero_si512();
    const __m512i d = _mm512_sub_epi64(_mm512_and_si512(_mm512_srli_epi64(u, 52), _mm512_set1_epi64(0x7FF)), qb);
    const __m512i sh =
        _mm512_min_epi64(_mm512_max_epi64(_mm512_sub_epi64(_mm512_set1_epi64(52), d), zero), _mm512_set1_epi64(63));
    const __m512i keep = _mm512_andnot_si512(_mm512_sub_epi64(_mm512_sllv_epi64(one, sh), one), _mm512_set1_epi64(-1));
    return _mm512_maskz_and_epi64(_mm512_cmpge_epi64_mask(d, zero), u, keep);
  }
  /// The bits of av * b[0..8) (exact double products).
  static vi product(const __m512d& va, const float* b) noexcept {
    return _mm512_castpd_si512(_mm512_mul_pd(va, _mm512_cvtps_pd(_mm256_loadu_ps(b))));
  }
  static __m512d set1(double x) noexcept { return _mm512_set1_pd(x); }
  static void add(double* s, vi t) noexcept {
    _mm512_storeu_pd(s, _mm512_add_pd(_mm512_loadu_pd(s), _mm512_castsi512_pd(t)));
  }
};
#else
struct bgemm_trunc_width {
  static constexpr std::size_t N = 4;
  using vi = __m256i;
  static vi load(const void* p) noexcept { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
  static void store(void* p, vi x) noexcept { _mm256_storeu_si256(static_cast<__m256i*>(p), x); }
  static vi trunc(vi u, vi qb) noexcept {
    const __m256i one = _mm256_set1_epi64x(1), zero = _mm256_setzero_si256();
    const __m256i d = _mm256_sub_epi64(_mm256_and_si256(_mm256_srli_epi64(u, 52), _mm256_set1_epi64x(0x7FF)), qb);
    __m256i sh = _mm256_sub_epi64(_mm256_set1_epi64x(52), d);
    sh = _mm256_blendv_epi8(sh, zero, _mm256_cmpgt_epi64(zero, sh));  // max(sh, 0); sllv gives 0 past 63
    const __m256i low = _mm256_sub_epi64(_mm256_sllv_epi64(one, sh), one);
    return _mm256_andnot_si256(_mm256_or_si256(low, _mm256_cmpgt_epi64(zero, d)), u);  // d < 0: 0
  }
  static vi product(const __m256d& va, const float* b) noexcept {
    return _mm256_castpd_si256(_mm256_mul_pd(va, _mm256_cvtps_pd(_mm_loadu_ps(b))));
  }
  static __m256d set1(double x) noexcept { return _mm256_set1_pd(x); }
  static void add(double* s, vi t) noexcept {
    _mm256_storeu_pd(s, _mm256_add_pd(_mm256_loadu_pd(s), _mm256_castsi256_pd(t)));
  }
};
#endif
#endif  // MIXPREC_BGEMM_SIMD

/// x (a normal double or zero) truncated as in bgemm_trunc_add.
inline double bgemm_trunc(double x, std::int64_t qb) noexcept {
  std::uint64_t u = bit_cast<std::uint64_t>(x);
  const std::int64_t d = static_cast<std::int64_t>((u >> 52) & 0x7FFu) - qb;
  const std::int64_t sh = std::min<std::int64_t>(std::max<std::int64_t>(52 - d, 0), 63);
  u &= d < 0 ? std::uint64_t{0} : ~((std::uint64_t{1} << sh) - 1u);
  return bit_cast<double>(u);
}

/// out[j] = x[j] truncated as in bgemm_trunc_add (x[j] a normal double or zero).
inline void bgemm_trunc_set(const double* x, const std::int64_t* qb, double* out, std::size_t n) noexcept {
  std::size_t j = 0;
#if defined(MIXPREC_BGEMM_SIMD)
  using T = bgemm_trunc_width;
  for (; j + T::N <= n; j += T::N) T::store(out + j, T::trunc(T::load(x + j), T::load(qb + j)));
#endif
  for (; j < n; ++j) out[j] = bgemm_trunc(x[j], qb[j]);
}

/// The truncated model's inner step (block_scaled_gemm.hpp, bgemm_truncated): for j < n,
/// sum[j] += (av * b[j]) truncated toward zero to keep expo - qb[j] bits below its leading bit
/// (0 when that is negative); av * b[j] an exact, normal or zero double (expo: its exponent field).
inline void bgemm_trunc_add(double av, const float* b, const std::int64_t* qb, double* sum, std::size_t n) noexcept {
  std::size_t j = 0;
#if defined(MIXPREC_BGEMM_SIMD)
  using T = bgemm_trunc_width;
  const auto va = T::set1(av);
  for (; j + T::N <= n; j += T::N) T::add(sum + j, T::trunc(T::product(va, b + j), T::load(qb + j)));
#endif
  for (; j < n; ++j) sum[j] += bgemm_trunc(av * static_cast<double>(b[j]), qb[j]);
}

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_SIMD_BLOCK_GEMM_HPP
