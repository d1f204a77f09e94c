// SPDX-License-Identifier: MIT
// mixprec/simd/philox.hpp — philox_rng's stream (Philox4x32-10, cuRAND's layout) in vectors, host only.
//
// What: simd::philox_stream<V>(seed, counter): next() returns V::N lanes of 32 bits, lane j of the
// k-th call being philox_rng(seed)(counter + k N + j) (core/random.hpp: word n % 4 of the block at
// counter {n / 4, subsequence 0} under the key seed), for the stochastic rounding of
// simd/encode.hpp. The same interface as the traits' rng (counter_rng's stream).
// Method: N blocks at a time in four vectors of words (x, y, z, w), ten rounds of 32 x 32 -> 64-bit
// products (philox_ops<V>::mulhilo), then a 4 x 4 transpose by unpacks into 4 N outputs in counter
// order; the unpacks work within 128-bit lanes, so lane j computes block (N / 4)(j % 4) + j / 4.
// A call whose counter is not a multiple of 4 starts inside the first block.
// Contract: the bits of the scalar philox_rng for every counter (tests/test_convert.cpp checks
// stochastic rounding against it, offsets 0 to 7, at both widths).
//   simd::philox_stream<simd::vec512> g(seed, offset);  __m512i bits = g.next();
#ifndef MIXPREC_SIMD_PHILOX_HPP
#define MIXPREC_SIMD_PHILOX_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "vec_avx2.hpp"
#include "vec_avx512.hpp"

namespace mixprec {
namespace simd {

/// The width-specific steps of philox_stream: hi and lo words of the lanes' products a * c, and
/// the transpose of four word vectors into counter order at out (4 N words).
template <class V>
struct philox_ops;

#if defined(MIXPREC_SIMD_AVX512)
template <>
struct philox_ops<vec512> {
  static void mulhilo(__m512i a, std::uint32_t c, __m512i& hi, __m512i& lo) noexcept {
    const __m512i m = _mm512_set1_epi32(static_cast<int>(c));
    const __m512i even = _mm512_mul_epu32(a, m);
    const __m512i odd = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), m);
    hi = _mm512_mask_blend_epi32(static_cast<__mmask16>(0xaaaa), _mm512_srli_epi64(even, 32), odd);
    lo = _mm512_mullo_epi32(a, m);
  }
  static void store4(std::uint32_t* out, __m512i x, __m512i y, __m512i z, __m512i w) noexcept {
    const __m512i t0 = _mm512_unpacklo_epi32(x, y), t1 = _mm512_unpackhi_epi32(x, y);
    const __m512i t2 = _mm512_unpacklo_epi32(z, w), t3 = _mm512_unpackhi_epi32(z, w);
    _mm512_storeu_si512(out, _mm512_unpacklo_epi64(t0, t2));
    _mm512_storeu_si512(out + 16, _mm512_unpackhi_epi64(t0, t2));
    _mm512_storeu_si512(out + 32, _mm512_unpacklo_epi64(t1, t3));
    _mm512_storeu_si512(out + 48, _mm512_unpackhi_epi64(t1, t3));
  }
  static __m512i lanes() noexcept {  ///< (N / 4)(j % 4) + j / 4
    return _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
  }
};
#endif

#if defined(MIXPREC_SIMD_AVX2)
template <>
struct philox_ops<vec256> {
  static void mulhilo(__m256i a, std::uint32_t c, __m256i& hi, __m256i& lo) noexcept {
    const __m256i m = _mm256_set1_epi32(static_cast<int>(c));
    const __m256i even = _mm256_mul_epu32(a, m);
    const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), m);
    hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xaa);
    lo = _mm256_mullo_epi32(a, m);
  }
  static void store4(std::uint32_t* out, __m256i x, __m256i y, __m256i z, __m256i w) noexcept {
    const __m256i t0 = _mm256_unpacklo_epi32(x, y), t1 = _mm256_unpackhi_epi32(x, y);
    const __m256i t2 = _mm256_unpacklo_epi32(z, w), t3 = _mm256_unpackhi_epi32(z, w);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_unpacklo_epi64(t0, t2));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8), _mm256_unpackhi_epi64(t0, t2));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 16), _mm256_unpacklo_epi64(t1, t3));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 24), _mm256_unpackhi_epi64(t1, t3));
  }
  static __m256i lanes() noexcept { return _mm256_set_epi32(7, 5, 3, 1, 6, 4, 2, 0); }  ///< (N / 4)(j % 4) + j / 4
};
#endif

#if defined(MIXPREC_SIMD_AVX2) || defined(MIXPREC_SIMD_AVX512)
/// philox_rng(seed)'s outputs for consecutive counters, V::N at a time (see the top of the header).
template <class V>
class philox_stream {
 public:
  using vi = typename V::vi;
  /// The stream of philox_rng(seed) from counter on.
  philox_stream(std::uint64_t seed, std::uint64_t counter) noexcept
      : block_(counter >> 2), k0_(static_cast<std::uint32_t>(seed)), k1_(static_cast<std::uint32_t>(seed >> 32)) {
    fill(buf_);
    pos_ = static_cast<std::size_t>(counter & 3u);
    end_ = B;
  }
  /// The next N outputs.
  vi next() noexcept {
    if (pos_ + N > end_) {
      const std::size_t r = end_ - pos_;
      std::memmove(buf_, buf_ + pos_, r * sizeof(std::uint32_t));
      fill(buf_ + r);
      pos_ = 0;
      end_ = r + B;
    }
    const vi v = V::load(buf_ + pos_);
    pos_ += N;
    return v;
  }

 private:
  static constexpr std::size_t N = V::N;
  static constexpr std::size_t B = 4 * N;  ///< outputs per fill (N blocks)

  /// Blocks block_ .. block_ + N - 1 at out, in counter order.
  void fill(std::uint32_t* out) noexcept {
    using ops = philox_ops<V>;
    const vi off = ops::lanes();
    vi x = V::add(V::set1(static_cast<std::uint32_t>(block_)), off);
    vi y = V::add_one_if(V::lt_u(x, off), V::set1(static_cast<std::uint32_t>(block_ >> 32)));  // the carry
    vi z = V::zero(), w = V::zero();
    std::uint32_t k0 = k0_, k1 = k1_;
    for (int r = 0; r < 10; ++r) {
      vi hi0, lo0, hi1, lo1;
      ops::mulhilo(x, 0xD2511F53u, hi0, lo0);
      ops::mulhilo(z, 0xCD9E8D57u, hi1, lo1);
      x = V::xor_(V::xor_(hi1, y), V::set1(k0));
      y = lo1;
      z = V::xor_(V::xor_(hi0, w), V::set1(k1));
      w = lo0;
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    ops::store4(out, x, y, z, w);
    block_ += N;
  }

  std::uint32_t buf_[B + N] = {};
  std::uint64_t block_;
  std::uint32_t k0_, k1_;
  std::size_t pos_ = 0, end_ = 0;
};
#endif

}  // namespace simd
}  // namespace mixprec

#endif  // MIXPREC_SIMD_PHILOX_HPP
