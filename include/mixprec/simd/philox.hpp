// SPDX-License-Identifier: MIT
// mixprec/simd/philox.hpp — philox_rng's stream (Philox4x32-10, cuRAND's layout) in vectors, host only.
//
// What: simd::philox_stream<V>(seed, counter): next() returns V::N lanes of 32 bits, lane j of the
// k-th call being philox_rng(seed)(counter + k N + j) (core/random.hpp: word n % 4 of the block at
// counter {n / 4, subsequence 0} under the key seed), for the stochastic rounding of
// simd/encode.hpp. The same interface as the traits' rng (counter_rng's stream).
// Method: 2 N blocks at a time, each word (x, y, z, w) in the low half of a 64-bit lane (four
// independent vectors of N / 2 blocks): the ten rounds' 32 x 32 -> 64-bit products are one vpmuludq each, lo and hi
// in place; then (x | y << 32, z | w << 32) unpacked into 4 N outputs in counter order.
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

/// The width-specific steps of philox_stream, on 64-bit lanes whose low 32 bits hold a word (the
/// high 32 bits are don't-care): mul (the full 32 x 32 -> 64-bit product of the low words, lo in
/// the low half, hi in the high half), hi (the high half moved down), xor3, the lanes' block
/// offsets, and store (the words x, y, z, w of N / 2 blocks as N / 2 x 4 outputs in counter
/// order: unpacklo/hi_epi64 of (x | y << 32) and (z | w << 32) work within 128-bit lanes, so
/// 64-bit lane j holds block j / 2 (j even) or N / 8 + j / 2 (j odd) of the N / 2).
template <class V>
struct philox_ops;

#if defined(MIXPREC_SIMD_AVX512)
template <>
struct philox_ops<vec512> {
  using vi = __m512i;
  static vi set64(std::uint64_t x) noexcept { return _mm512_set1_epi64(static_cast<long long>(x)); }
  static vi add64(vi a, vi b) noexcept { return _mm512_add_epi64(a, b); }
  static vi mul(vi a, std::uint32_t c) noexcept { return _mm512_mul_epu32(a, _mm512_set1_epi64(static_cast<long long>(c))); }
  static vi hi(vi a) noexcept { return _mm512_srli_epi64(a, 32); }
  static vi xor3(vi a, vi b, vi c) noexcept { return _mm512_ternarylogic_epi64(a, b, c, 0x96); }
  static vi offsets() noexcept { return _mm512_set_epi64(7, 3, 6, 2, 5, 1, 4, 0); }
  static void store(std::uint32_t* out, vi x, vi y, vi z, vi w) noexcept {
    const __mmask16 odd = 0xaaaa;
    const vi xy = _mm512_mask_blend_epi32(odd, x, _mm512_slli_epi64(y, 32));
    const vi zw = _mm512_mask_blend_epi32(odd, z, _mm512_slli_epi64(w, 32));
    _mm512_storeu_si512(out, _mm512_unpacklo_epi64(xy, zw));
    _mm512_storeu_si512(out + 16, _mm512_unpackhi_epi64(xy, zw));
  }
};
#endif

#if defined(MIXPREC_SIMD_AVX2)
template <>
struct philox_ops<vec256> {
  using vi = __m256i;
  static vi set64(std::uint64_t x) noexcept { return _mm256_set1_epi64x(static_cast<long long>(x)); }
  static vi add64(vi a, vi b) noexcept { return _mm256_add_epi64(a, b); }
  static vi mul(vi a, std::uint32_t c) noexcept { return _mm256_mul_epu32(a, _mm256_set1_epi64x(static_cast<long long>(c))); }
  static vi hi(vi a) noexcept { return _mm256_srli_epi64(a, 32); }
  static vi xor3(vi a, vi b, vi c) noexcept { return _mm256_xor_si256(_mm256_xor_si256(a, b), c); }
  static vi offsets() noexcept { return _mm256_set_epi64x(3, 1, 2, 0); }
  static void store(std::uint32_t* out, vi x, vi y, vi z, vi w) noexcept {
    const vi xy = _mm256_blend_epi32(x, _mm256_slli_epi64(y, 32), 0xaa);
    const vi zw = _mm256_blend_epi32(z, _mm256_slli_epi64(w, 32), 0xaa);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_unpacklo_epi64(xy, zw));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8), _mm256_unpackhi_epi64(xy, zw));
  }
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
  static constexpr int H = 2;                        ///< independent halves per fill (for the multiplier's latency)
  static constexpr std::size_t B = 2 * N * H;        ///< outputs per fill (H N / 2 blocks)

  /// Blocks block_ .. block_ + H N / 2 - 1 at out, in counter order: H halves of N / 2 blocks.
  void fill(std::uint32_t* out) noexcept {
    using ops = philox_ops<V>;
    using v64 = typename ops::vi;
    const v64 off = ops::offsets();
    v64 x[H], y[H], z[H], w[H];
    for (int h = 0; h < H; ++h) {
      x[h] = ops::add64(ops::set64(block_ + static_cast<std::uint64_t>(h) * (N / 2)), off);
      y[h] = ops::hi(x[h]);
      z[h] = ops::set64(0);
      w[h] = z[h];
    }
    std::uint32_t k0 = k0_, k1 = k1_;
    for (int r = 0; r < 10; ++r) {
      const v64 kk0 = ops::set64(k0), kk1 = ops::set64(k1);
      for (int h = 0; h < H; ++h) {
        const v64 p0 = ops::mul(x[h], 0xD2511F53u), p1 = ops::mul(z[h], 0xCD9E8D57u);
        x[h] = ops::xor3(ops::hi(p1), y[h], kk0);
        y[h] = p1;
        z[h] = ops::xor3(ops::hi(p0), w[h], kk1);
        w[h] = p0;
      }
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    for (int h = 0; h < H; ++h) ops::store(out + static_cast<std::size_t>(h) * 2 * N, x[h], y[h], z[h], w[h]);
    block_ += H * (N / 2);
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
