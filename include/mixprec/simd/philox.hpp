// SPDX-License-Identifier: MIT
// mixprec/simd/philox.hpp — philox_rng's stream (Philox4x32-10, cuRAND's layout) in vectors, host only.
// simd::philox_stream<V>(seed, counter): next() returns V::N lanes of 32 bits, lane j of the k-th
// call being philox_rng(seed)(counter + k N + j) (core/random.hpp), for simd/encode.hpp's
// stochastic rounding; the same interface as the traits' rng, plus next_batch (`batch` vectors).
// Contract: the bits of the scalar philox_rng for every counter (tests/test_convert.cpp, offsets 0
// to 7, at both widths). Method: docs/pages/kernels-reference.md ("Bulk conversion: the SIMD layer").
//   simd::philox_stream<simd::vec512> g(seed, offset);  __m512i bits = g.next();
#ifndef MIXPREC_SIMD_PHILOX_HPP
#define MIXPREC_SIMD_PHILOX_HPP

#include <cstddef>
#include <cstdint>

#include "vec_avx2.hpp"
#include "vec_avx512.hpp"

namespace mixprec {
namespace simd {

/// The width-specific steps of philox_stream, on 64-bit lanes whose low 32 bits hold a word (the
/// high 32 bits are don't-care): add64, and64, mul (the full 32 x 32 -> 64-bit product of the low
/// words, lo in the low half, hi in the high half), hi (the high half moved down), xor2, xor3, the
/// lanes' block offsets, last (round 10 from x, y, z, w of N / 2 blocks, as two vectors of N
/// outputs in counter order: unpacklo/hi_epi64 of (x | y << 32) and (z | w << 32) work within
/// 128-bit lanes, so 64-bit lane j holds block j / 2 (j even) or N / 8 + j / 2 (j odd) of the
/// N / 2), and skew (outputs s .. s + N - 1 of the 2 N in (a, b), for index(s) = {s, s + 1, ..}).
template <class V>
struct philox_ops;

#if defined(MIXPREC_SIMD_AVX512)
template <>
struct philox_ops<vec512> {
  using vi = __m512i;
  static vi set64(std::uint64_t x) noexcept { return _mm512_set1_epi64(static_cast<long long>(x)); }
  static vi add64(vi a, vi b) noexcept { return _mm512_add_epi64(a, b); }
  static vi and64(vi a, vi b) noexcept { return _mm512_and_si512(a, b); }
  static vi mul(vi a, vi c) noexcept { return _mm512_mul_epu32(a, c); }
  static vi hi(vi a) noexcept { return _mm512_srli_epi64(a, 32); }
  static vi xor2(vi a, vi b) noexcept { return _mm512_xor_si512(a, b); }
  static vi xor3(vi a, vi b, vi c) noexcept { return _mm512_ternarylogic_epi64(a, b, c, 0x96); }
  static vi offsets() noexcept { return _mm512_set_epi64(7, 3, 6, 2, 5, 1, 4, 0); }
  static void last(vi x, vi y, vi z, vi w, vi m0, vi m1, vi kx, vi kz, vi& lo, vi& hi) noexcept {
    // the 32-bit lanes of p1 swapped are (hi, lo): round 10's x ^ y ^ k in the low ones, its y above
    const vi xy = _mm512_mask_ternarylogic_epi32(_mm512_ror_epi64(_mm512_mul_epu32(z, m1), 32), 0x5555, y, kx, 0x96);
    const vi zw = _mm512_mask_ternarylogic_epi32(_mm512_ror_epi64(_mm512_mul_epu32(x, m0), 32), 0x5555, w, kz, 0x96);
    lo = _mm512_unpacklo_epi64(xy, zw);
    hi = _mm512_unpackhi_epi64(xy, zw);
  }
  static vi index(std::uint32_t s) noexcept {
    return _mm512_add_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                            _mm512_set1_epi32(static_cast<int>(s)));
  }
  static vi skew(vi a, vi b, vi idx) noexcept { return _mm512_permutex2var_epi32(a, idx, b); }
};
#endif

#if defined(MIXPREC_SIMD_AVX2)
template <>
struct philox_ops<vec256> {
  using vi = __m256i;
  static vi set64(std::uint64_t x) noexcept { return _mm256_set1_epi64x(static_cast<long long>(x)); }
  static vi add64(vi a, vi b) noexcept { return _mm256_add_epi64(a, b); }
  static vi and64(vi a, vi b) noexcept { return _mm256_and_si256(a, b); }
  static vi mul(vi a, vi c) noexcept { return _mm256_mul_epu32(a, c); }
  static vi hi(vi a) noexcept { return _mm256_srli_epi64(a, 32); }
  static vi xor2(vi a, vi b) noexcept { return _mm256_xor_si256(a, b); }
  static vi xor3(vi a, vi b, vi c) noexcept {  // b ^ c first: a is the one on the multiplier's path
    return _mm256_xor_si256(a, _mm256_xor_si256(b, c));
  }
  static vi offsets() noexcept { return _mm256_set_epi64x(3, 1, 2, 0); }
  static void last(vi x, vi y, vi z, vi w, vi m0, vi m1, vi kx, vi kz, vi& lo, vi& hi) noexcept {
    const vi p1 = _mm256_shuffle_epi32(_mm256_mul_epu32(z, m1), 0xb1), p0 = _mm256_shuffle_epi32(_mm256_mul_epu32(x, m0), 0xb1);
    const vi xy = _mm256_blend_epi32(xor3(p1, y, kx), p1, 0xaa);
    const vi zw = _mm256_blend_epi32(xor3(p0, w, kz), p0, 0xaa);
    lo = _mm256_unpacklo_epi64(xy, zw);
    hi = _mm256_unpackhi_epi64(xy, zw);
  }
  static vi index(std::uint32_t s) noexcept {
    return _mm256_add_epi32(_mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0), _mm256_set1_epi32(static_cast<int>(s)));
  }
  static vi skew(vi a, vi b, vi idx) noexcept {  // vpermd reads the index's low 3 bits
    return _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(a, idx), _mm256_permutevar8x32_epi32(b, idx),
                              _mm256_cmpgt_epi32(idx, _mm256_set1_epi32(7)));
  }
};
#endif

#if defined(MIXPREC_SIMD_AVX2) || defined(MIXPREC_SIMD_AVX512)
/// philox_rng(seed)'s outputs for consecutive counters, V::N at a time.
template <class V>
class philox_stream {
 public:
  using vi = typename V::vi;

 private:
  static constexpr std::size_t N = V::N;
  /// Independent groups per batch, for the multiplier's latency.
  static constexpr std::size_t H = N == 8 ? 6 : 4;

 public:
  /// Vectors per next_batch: H independent groups of N / 2 blocks, two vectors each.
  static constexpr std::size_t batch = 2 * H;
  /// The stream of philox_rng(seed) from counter on.
  philox_stream(std::uint64_t seed, std::uint64_t counter) noexcept
      : block_(counter >> 2), skew_(static_cast<std::uint32_t>(counter & 3u)) {
    std::uint32_t k0 = static_cast<std::uint32_t>(seed), k1 = static_cast<std::uint32_t>(seed >> 32);
    for (int r = 0; r < 10; ++r, k0 += 0x9E3779B9u, k1 += 0xBB67AE85u) {
      kx_[r] = k0, kz_[r] = k1;
      if constexpr (N == 8) kxv_[r] = philox_ops<V>::set64(k0), kzv_[r] = philox_ops<V>::set64(k1);
    }
#if defined(__GNUC__)
#pragma GCC unroll 16
#endif
    for (std::size_t h = 0; h < H; ++h)
      offm0_[h] = philox_ops<V>::mul(philox_ops<V>::add64(philox_ops<V>::offsets(), philox_ops<V>::set64(h * (N / 2))),
                                     philox_ops<V>::set64(M0));
    if (skew_ != 0) {  // outputs from word skew_ of block_ on: carry_ = the first N words
      vi g[2];
      generate<1>(g);
      carry_ = g[0];
      block_ = ((counter >> 2) + N / 4) & block_mask;
    }
  }
  /// The next batch N outputs, in out[0] .. out[batch - 1].
  [[gnu::always_inline]] void next_batch(vi* out) noexcept { fill<H>(out); }
  /// The next N outputs (refilled a batch at a time).
  vi next() noexcept {
    if (used_ == filled_) {
      fill<H>(buf_);
      used_ = 0, filled_ = batch;
    }
    return buf_[used_++];
  }
  /// The next N outputs, refilled four vectors at a time: for the few vectors after the batches
  /// (or of a short array), where a whole batch would be mostly unused.
  vi next_few() noexcept {
    if (used_ == filled_) {
      fill<2>(buf_);
      used_ = 0, filled_ = 4;
    }
    return buf_[used_++];
  }

 private:
  static constexpr std::uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u;
  /// Block counters wrap as philox_rng's (counter + i) / 4 does, at 2^62 (a batch across it takes
  /// the general rounds: its high words differ).
  static constexpr std::uint64_t block_mask = (std::uint64_t{1} << 62) - 1;

  /// The next 2 G vectors of outputs in out (G groups), from word skew_ of the block on.
  template <std::size_t G>
  [[gnu::always_inline]] void fill(vi* out) noexcept {
    generate<G>(out);
    if (skew_ != 0) {
      const vi idx = philox_ops<V>::index(skew_);
      const vi last = out[2 * G - 1];
      for (std::size_t k = 2 * G - 1; k > 0; --k) out[k] = philox_ops<V>::skew(out[k - 1], out[k], idx);
      out[0] = philox_ops<V>::skew(carry_, out[0], idx);
      carry_ = last;
    }
  }

  /// Blocks block_ .. block_ + G N / 2 - 1 (counter words 0 to 2 G N - 1 from block_) in out, in
  /// counter order. The counter is {block, 0}: round 1 multiplies z = 0, so it leaves x = y ^ k0,
  /// y = 0, z = hi(x M0) ^ k1, w = lo(x M0). Where the blocks share their high word (all but one
  /// batch in 2^32 / (G N / 2)), round 1's x M0 is (the first block's low word) M0 plus the lane's
  /// offset times M0, and round 2's x (y ^ k0) is one scalar: its product too.
  template <std::size_t G>
  [[gnu::always_inline]] void generate(vi* out) noexcept {
    using ops = philox_ops<V>;
    const vi m0 = ops::set64(M0), m1 = ops::set64(M1);
    vi x[G], y[G], z[G], w[G];
    if (((block_ + (G * (N / 2) - 1)) >> 32) == (block_ >> 32)) {
      const std::uint64_t q = std::uint64_t{static_cast<std::uint32_t>(block_ >> 32) ^ kx_[0]} * M0;  // round 2's x M0
      const vi base = ops::set64(static_cast<std::uint32_t>(block_) * std::uint64_t{M0});
      const vi c2 = ops::set64((q >> 32) ^ kz_[1]), c3 = ops::set64(static_cast<std::uint32_t>(q) ^ kz_[2]);
      const vi kz0 = key_z(0), kx1 = key_x(1), kx2 = key_x(2);
#if defined(__GNUC__)
#pragma GCC unroll 16
#endif
      for (std::size_t h = 0; h < G; ++h) {
        const vi w1 = ops::add64(base, offm0_[h]);
        const vi p1 = ops::mul(ops::xor2(ops::hi(w1), kz0), m1);  // round 2
        const vi z2 = ops::xor2(w1, c2);
        const vi p0 = ops::mul(ops::xor2(ops::hi(p1), kx1), m0), q1 = ops::mul(z2, m1);  // round 3
        x[h] = ops::xor3(ops::hi(q1), p1, kx2);
        y[h] = q1;
        z[h] = ops::xor2(ops::hi(p0), c3);
        w[h] = p0;
      }
    } else {
      const vi off = ops::offsets(), kx0 = key_x(0), kz0 = key_z(0);
#if defined(__GNUC__)
#pragma GCC unroll 16
#endif
      for (std::size_t h = 0; h < G; ++h) {
        const vi c = ops::and64(ops::add64(ops::set64(block_ + h * (N / 2)), off), ops::set64(block_mask));
        const vi p0 = ops::mul(c, m0);
        x[h] = ops::xor2(ops::hi(c), kx0);
        y[h] = ops::set64(0);
        z[h] = ops::xor2(ops::hi(p0), kz0);
        w[h] = p0;
      }
      for (int r = 1; r < 3; ++r) round<G>(x, y, z, w, m0, m1, r);
    }
#if defined(__GNUC__)
#pragma GCC unroll 6
#endif
    for (int r = 3; r < 9; ++r) round<G>(x, y, z, w, m0, m1, r);
    const vi kx = key_x(9), kz = key_z(9);
#if defined(__GNUC__)
#pragma GCC unroll 16
#endif
    for (std::size_t h = 0; h < G; ++h) ops::last(x[h], y[h], z[h], w[h], m0, m1, kx, kz, out[2 * h], out[2 * h + 1]);
    block_ = (block_ + G * (N / 2)) & block_mask;
  }
  /// Round r's k0 key in every lane: kept broadcast at 256 bits, broadcast from kx_ at 512.
  vi key_x(int r) const noexcept {
    if constexpr (N == 8) return kxv_[r];
    else return philox_ops<V>::set64(kx_[r]);
  }
  /// Round r's k1 key in every lane (as key_x).
  vi key_z(int r) const noexcept {
    if constexpr (N == 8) return kzv_[r];
    else return philox_ops<V>::set64(kz_[r]);
  }
  /// Round r + 1 (keys kx_[r], kz_[r]) of the G groups.
  template <std::size_t G>
  [[gnu::always_inline]] void round(vi* x, vi* y, vi* z, vi* w, vi m0, vi m1, int r) const noexcept {
    using ops = philox_ops<V>;
    const vi kx = key_x(r), kz = key_z(r);
#if defined(__GNUC__)
#pragma GCC unroll 16
#endif
    for (std::size_t h = 0; h < G; ++h) {
      const vi p0 = ops::mul(x[h], m0), p1 = ops::mul(z[h], m1);
      x[h] = ops::xor3(ops::hi(p1), y[h], kx);
      y[h] = p1;
      z[h] = ops::xor3(ops::hi(p0), w[h], kz);
      w[h] = p0;
    }
  }

  std::uint64_t block_;
  std::uint32_t skew_;
  std::size_t used_ = 0, filled_ = 0;  ///< buf_[used_] .. buf_[filled_ - 1]: not yet returned
  std::uint64_t kx_[10] = {}, kz_[10] = {};  ///< the round keys, k0 and k1 plus r times Weyl's constants
  vi kxv_[N == 8 ? 10 : 1] = {}, kzv_[N == 8 ? 10 : 1] = {};  ///< the same in every lane (256 bits only)
  vi offm0_[H];                               ///< the lanes' block offsets (group h) times M0
  vi carry_{};
  vi buf_[batch]{};
};
#endif

}  // namespace simd
}  // namespace mixprec

#endif  // MIXPREC_SIMD_PHILOX_HPP
