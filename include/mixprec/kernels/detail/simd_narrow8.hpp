// SPDX-License-Identifier: MIT
// mixprec/kernels/detail/simd_narrow8.hpp — float or double -> byte-sized formats (FP8, FP6, FP4) in
// nearest-even, vectorised (host only): a thin layer over simd/encode.hpp's generic encoder.
//
// What: round_to<T>(x, nearest_even, policy) for float or double x and a signed format T stored in
// one byte without padding (float8_e4m3fn, float8_e5m2, the fnuz and IEEE-style FP8s, float6_*,
// float4_e2m1fn, ...), overflow::ieee or overflow::saturate, 16 (AVX-512) or 8 (AVX2) lanes at a
// time. Floats go through simd::encode_floats (every mode lives there; kernels/convert.hpp calls
// it directly). A double is first rounded to odd at float's precision (simd_convert.hpp's
// double -> half step): with T's at most 22 significant bits that is one correct rounding in all.
// narrow8::codes512 / codes512_fast / codes256 are the generic encoder's nearest-even codes for
// the block-scaling kernels (detail/simd_block_scaling.hpp).
// detail::encode_doubles: double -> half, bfloat16, tf32, every FP8/FP6/FP4 (signed or not) and
// E8M0 in every mode and policy (kernels/convert.hpp): the deterministic modes on floats rounded
// to odd, in registers, by encode_floats' lane function (simd::encode_stream); stochastic
// rounding's increment decided in 64-bit lanes on the double's own bits (narrow8::sr_floats),
// then simd::encode_floats through a buffer.
// Contract: the bits of the scalar round_to for every input; tests/test_simd_narrow8.cpp checks
// every level and supported built-in format on every sign, exponent and rounding case,
// tests/exhaustive/test_narrow8_all_floats.cpp all 2^32 floats for e4m3fn and e5m2, and
// tests/test_convert_doubles.cpp encode_doubles in every mode, policy and generator.
//   detail::simd_narrow8_at(detail::simd_level::avx2, src, dst, n, overflow::saturate);
#ifndef MIXPREC_DETAIL_SIMD_NARROW8_HPP
#define MIXPREC_DETAIL_SIMD_NARROW8_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../core/rounding.hpp"
#include "../../simd/encode.hpp"
#include "simd_convert.hpp"

namespace mixprec {
namespace detail {

/// Whether F takes simd_narrow8 (one byte, signed; see simd::encode_format).
template <class F>
struct narrow8_traits {
  static constexpr bool supported = F::storage_bits <= 8 && simd::encode_format<F>::supported;
};

#if defined(MIXPREC_SIMD_AVX2) || defined(MIXPREC_SIMD_AVX512)
namespace narrow8 {

#if defined(MIXPREC_SIMD_AVX512)
/// 16 floats (bits) -> 16 codes of F (32-bit lanes), nearest even.
template <class F>
inline __m512i codes512(__m512i u, overflow policy) noexcept {
  return simd::encode<simd::vec512, F, rounding::nearest_even>(u, _mm512_setzero_si512(),
                                                               simd::encode_format<F>::overflow_away(policy));
}
/// codes512, with a shortcut for vectors of zeros and normals of F.
template <class F>
inline __m512i codes512_fast(__m512i u, overflow policy) noexcept {
  return simd::encode_fast<simd::vec512, F, rounding::nearest_even>(u, _mm512_setzero_si512(),
                                                                    simd::encode_format<F>::overflow_away(policy));
}
#endif
#if defined(MIXPREC_SIMD_AVX2)
/// 8 floats (bits) -> 8 codes of F (32-bit lanes), nearest even.
template <class F>
inline __m256i codes256(__m256i u, overflow policy) noexcept {
  return simd::encode<simd::vec256, F, rounding::nearest_even>(u, _mm256_setzero_si256(),
                                                               simd::encode_format<F>::overflow_away(policy));
}
#endif

/// Doubles as simd::encode_run's source: each rounded to odd at float's precision, by one of
/// (Form) 0: comparing back (V::d_odd, right for every double while MXCSR's FTZ and DAZ are
/// clear); 1: the sticky bit from the double's low 29 bits (V::d_odd_half), right where the float
/// is normal; 2: form 1, and form 0 for a vector with a zero float (a double below float's least
/// subnormal may truncate to zero with its low bits clear). double_source chooses.
template <class V, int Form>
struct odd_doubles {
  const double* s;  ///< the doubles
  static typename V::vi odd(const double* p) noexcept {
    if constexpr (Form == 0) {
      return V::d_odd(p);
    } else {
      const typename V::vi u = V::d_odd_half(p);
      if (Form == 2 && !V::d_odd_half_exact && V::any(V::eq(V::and_(u, V::set1(0x7fffffffu)), V::zero()))) return V::d_odd(p);
      return u;
    }
  }
  /// The float bits of the doubles i .. i + V::N - 1.
  typename V::vi operator()(std::size_t i) const noexcept { return odd(s + i); }
  /// Those of the m < V::N doubles from i, then zeros.
  typename V::vi tail(std::size_t i, std::size_t m) const noexcept {
    double in[V::N] = {};
    std::memcpy(in, s + i, m * sizeof(double));
    return V::d_odd(in);
  }
};

/// simd::encode_modes' source of doubles to F: odd_doubles, with the cheaper sticky bit where it
/// gives the same result. A double 0 < |x| < 2^-126 truncates to a float of the same sign, below
/// float's normals, whose sticky bit form 1 may miss, or to a zero where x's low bits are clear.
/// Where F's least subnormal is at least 2^-124 (F::emin - M >= -124: half, FP8, FP6, FP4), F's
/// result for such an x or float depends only on its sign and on its being nonzero in every mode
/// (the nearest ones round both to zero, the directed ones to zero or F's least subnormal), so
/// form 2 is exact; form 1 too in nearest-even and nearest-away where F is signed (an unsigned F
/// tells -0 from a tiny negative x, its NaN). Other F (bfloat16, tf32, E8M0): form 0.
template <class V, class F>
struct double_source {
  static constexpr bool tiny_alike = F::emin - F::mantissa_bits >= -124 && !simd::e8m0_format<F>::supported;
  template <rounding Mode>
  using in_mode = odd_doubles<V, !tiny_alike ? 0
                                 : (Mode == rounding::nearest_even || Mode == rounding::nearest_away) && F::is_signed
                                     ? 1
                                     : 2>;
};

/// float or double -> codes of F, nearest even, at V's width.
template <class V, class F>
inline void narrow(const float* s, std::uint8_t* d, std::size_t n, overflow policy) noexcept {
  simd::encode_floats<V, F>(s, d, n, rounding::nearest_even, policy, 0, 0);
}
template <class V, class F>
inline void narrow(const double* s, std::uint8_t* d, std::size_t n, overflow policy) noexcept {
  using source = typename double_source<V, F>::template in_mode<rounding::nearest_even>;
  simd::encode_stream<V, F, rounding::nearest_even>(source{s}, d, n, policy);
}

}  // namespace narrow8

/// Whether doubles -> F take encode_doubles: F encoded by simd::encode_floats (E8M0 included),
/// with at most 22 significant bits and a least subnormal of at least 2^-147 (tf32: 11 bits,
/// 2^-136). Deterministic modes: x rounded to odd at float's precision, then F's rounding, is
/// one correct rounding of x wherever float keeps two bits more than F (24 >= p + 2 for normals;
/// float's quantum 2^-149 <= F's least quantum / 4 below them): the odd float lies strictly
/// between the same two neighbours of F as x, or equals x; it is on F's grid only when x is; it is
/// never a midpoint of F's grid unless x is (a midpoint needs just p + 1 bits, an inexact odd
/// float has its last bit set, 2 or more below F's last). So each of nearest-even and nearest-away
/// (side of the midpoint), toward zero, upward and downward (which neighbour, exact or not), and
/// to odd (the lower neighbour, ORed with inexactness) reads the same answer from it. Beyond
/// float's range (|x| >= 2^128) the odd float is +-FLT_MAX, which every such F rounds as x: past
/// F's largest finite value in the direction of x (F's emax < 127), or, for tf32, bfloat16 and
/// E8M0 (emax = 127), its fraction bits below F's last are all ones: down to F's largest value
/// toward zero, to the overflow code in the other modes, as round_to gives for x.
/// Stochastic rounding reads 32 bits of x's remainder below F's quantum, more than float keeps:
/// that mode goes through narrow8::sr_floats (below).
template <class F>
struct double_encode_traits {
  static constexpr bool supported = (simd::encode_format<F>::supported || simd::e8m0_format<F>::supported) &&
                                    F::mantissa_bits <= 21 && F::emin - F::mantissa_bits >= -147;
};

namespace narrow8 {

/// Stochastic rounding of doubles to F, round_to's rule (core/detail/codec.hpp): with s the
/// number of x's significand bits below F's quantum at x and rem the top 32 bits of those bits
/// left-aligned (floor(fraction of an ulp * 2^32)), x rounds away from zero iff rem + bits >= 2^32.
/// In 64-bit lanes: y = x truncated to F's quantum plus that increment (a carry into the
/// exponent bits is the next binade; s > 52 where |x| < F's least quantum: y is 0 or that
/// quantum; E8M0 clamps there to its least value 2^emin, as round_to does), with x's sign; y is
/// on F's grid (or +-infinity, or beyond F's range: an overflow, away from zero as stochastic
/// rounding's is), so F's nearest-even rounding of y is round_to's stochastic result. Infinities
/// and NaNs stay x; an unsigned F's negative inputs other than -0 become -1 (F's NaN, or 0: the
/// sign alone decides). y has at most 22 significant bits and a quantum of at least 2^-147, so
/// vcvtpd2ps is exact (MXCSR's rounding mode does not matter) except past float's range, where it
/// gives +-infinity or +-FLT_MAX: both overflow away from zero in F's nearest-even (see
/// double_encode_traits). FTZ would flush y's float subnormals: the caller declines under it.
template <class F>
struct sr_double_format {
  static constexpr long long min_shift = 52 - F::mantissa_bits;
  static constexpr long long shift_base = F::emin + 1023 + 52 - F::mantissa_bits;  ///< s = max(min_shift, this - e)
  static constexpr std::uint64_t least = static_cast<std::uint64_t>(F::emin - F::mantissa_bits + 1023) << 52;
  static constexpr bool clamp_to_least = F::enc == encoding::exponent_only;
  static constexpr std::uint64_t minus_one = 0xbff0000000000000ull;
  static constexpr std::uint64_t inf = 0x7ff0000000000000ull;
  // The common case, every lane zero or finite from 2^emin up (s = min_shift, the same in every
  // lane): y = (|x| + bits 2^(s - 32)) with the low s bits cleared, the carry of the remainder
  // plus the random bits' top s bits (s >= 31: of all 32, exactly) being the increment.
  static constexpr std::uint64_t lo = static_cast<std::uint64_t>(F::emin + 1023) << 52;  ///< 2^emin
  static constexpr std::uint64_t keep = ~((std::uint64_t{1} << min_shift) - 1);
};

/// sr_double_format's rounding over the traits' 64-bit lanes (V::vq: N / 2 doubles).
template <class V>
struct sr_floats {
  using vq = typename V::vq;
  using vqf = typename V::vqf;
  using qmask = typename V::qmask;
  static vq c(std::uint64_t x) noexcept { return V::q_set1(x); }
  /// N / 2 doubles (bits x) and their random bits r (64-bit lanes, < 2^32) -> N / 2 floats.
  template <class F>
  static vqf half(vq x, vq r) noexcept {
    using t = sr_double_format<F>;
    const vq one = c(1), zero = c(0), inf = c(t::inf), abs = c(0x7fffffffffffffffull);
    const vq a = V::q_and(x, abs);
    const vq ef = V::template q_srli<52>(a);
    const vq m53 = V::q_or(V::q_and(a, c(0x000fffffffffffffull)), V::template q_slli<52>(V::q_min_u(ef, one)));
    const vq s = V::q_max_i(V::q_sub(c(static_cast<std::uint64_t>(t::shift_base)), V::q_max_u(ef, one)),
                            c(static_cast<std::uint64_t>(t::min_shift)));
    const vq low_mask = V::q_sub(V::q_sllv(one, s), one);  // counts > 63 give 0: all ones
    const vq low = V::q_and(m53, low_mask);
    const vq c32 = c(32);
    const vq rem = V::q_or(V::q_sllv(low, V::q_sub(c32, s)), V::q_srlv(low, V::q_sub(s, c32)));
    const vq inc = V::template q_srli<32>(V::q_add(rem, r));  // 0 or 1
    vq y = V::q_add(V::q_andnot(low_mask, a), V::q_sllv(inc, s));
    const vq tiny_if = t::clamp_to_least ? a : inc;
    y = V::q_select(V::q_gt_i(s, c(52)), V::q_select(V::q_eq0(tiny_if), zero, c(t::least)), y);
    y = V::q_select(V::q_gt_i(a, inf), a, y);  // NaN: as it is
    y = V::q_or(y, V::q_andnot(abs, x));
    if constexpr (!F::is_signed) {  // x < 0 and 0 < |x| <= inf
      const qmask negative = V::q_m_and(V::q_gt_i(zero, x), V::q_m_andnot(V::q_gt_i(a, inf), V::q_gt_i(a, zero)));
      y = V::q_select(negative, c(t::minus_one), y);
    }
    return V::q_to_float(y);
  }
  /// The lanes in half's common case (see sr_double_format); signed compares: a negative x is
  /// out for an unsigned F.
  template <class F>
  static qmask common(vq x) noexcept {
    using t = sr_double_format<F>;
    const vq in = F::is_signed ? V::q_and(x, c(0x7fffffffffffffffull)) : x;
    return V::q_m_or(V::q_m_and(V::q_gt_i(in, c(t::lo - 1)), V::q_gt_i(c(t::inf), in)), V::q_eq0(in));
  }
  template <class F>
  static vqf half_common(vq x, vq r) noexcept {
    using t = sr_double_format<F>;
    const vq abs = c(0x7fffffffffffffffull);
    vq top;
    if constexpr (t::min_shift >= 32) {
      top = V::template q_slli<static_cast<int>(t::min_shift - 32)>(r);
    } else {
      top = V::template q_srli<static_cast<int>(32 - t::min_shift)>(r);
    }
    const vq y = V::q_and(V::q_add(V::q_and(x, abs), top), c(t::keep));
    return V::q_to_float(V::q_or(y, V::q_andnot(abs, x)));
  }
  /// N doubles -> N floats; rnd: their random bits.
  template <class F>
  static void store(float* d, const double* s, typename V::vi rnd) noexcept {
    constexpr std::size_t H = V::N / 2;
    const vq x0 = V::q_load(s), x1 = V::q_load(s + H);
    const vq r0 = V::q_lo32(rnd), r1 = V::q_hi32(rnd);
    if (V::q_all_of(V::q_m_and(common<F>(x0), common<F>(x1)))) {
      V::q_store_f(d, half_common<F>(x0, r0));
      V::q_store_f(d + H, half_common<F>(x1, r1));
    } else {
      V::q_store_f(d, half<F>(x0, r0));
      V::q_store_f(d + H, half<F>(x1, r1));
    }
  }
};

/// Stochastic doubles -> F with the random stream Rng (V::rng or simd::philox_stream<V>): 512
/// floats at a time from sr_floats into a buffer in L1 (the tail through zero-padded buffers),
/// then simd::encode_floats in nearest-even.
template <class V, class F, class Rng, class Out>
inline void stochastic_doubles(const double* s, Out* d, std::size_t n, overflow policy, std::uint64_t key,
                               std::uint64_t counter) noexcept {
  constexpr std::size_t N = V::N, chunk = 512;
  Rng rng(key, counter);
  alignas(64) float buf[chunk];
  for (std::size_t i = 0; i < n; i += chunk) {
    const std::size_t m = n - i < chunk ? n - i : chunk;
    std::size_t j = 0;
    for (; j + N <= m; j += N) sr_floats<V>::template store<F>(buf + j, s + i + j, rng.next());
    if (j < m) {
      double in[N] = {};
      float out[N] = {};
      std::memcpy(in, s + i + j, (m - j) * sizeof(double));
      sr_floats<V>::template store<F>(out, in, rng.next());
      std::memcpy(buf + j, out, (m - j) * sizeof(float));
    }
    simd::encode_floats<V, F>(buf, d + i, m, rounding::nearest_even, policy, 0, 0);
  }
}

}  // namespace narrow8

/// dst[i] = round_to(src[i], mode, policy, bits_i) for doubles, every mode and policy (F
/// double_encode_traits<F>::supported; Out: F's storage, tf32 uint32_t): deterministic modes by
/// the doubles rounded to odd at float's precision (narrow8::double_source), then the lane
/// function of encode_floats (simd::encode_vector) in registers; stochastic by narrow8::sr_floats then F's nearest-even, bits_i being
/// counter_rng's output at counter + i (key = counter_rng(seed).key()) or philox_rng(seed)'s
/// (generator philox4x32_10, key = seed), as encode_floats. False (nothing written) for F not
/// supported, an invalid mode, policy or generator, or while MXCSR's FTZ or DAZ is set (they
/// would flush the float step).
template <class V, class F, class Out>
inline bool encode_doubles(const double* s, Out* d, std::size_t n, rounding mode, overflow policy, std::uint64_t key = 0,
                           std::uint64_t counter = 0, rng_kind generator = rng_kind::splitmix64) noexcept {
  if constexpr (!double_encode_traits<F>::supported) {
    (void)s, (void)d, (void)n, (void)mode, (void)policy, (void)key, (void)counter, (void)generator;
    return false;
  } else {
    if (!is_valid(mode) || !is_valid(policy) || !is_valid(generator) || simd_x86::ftz_or_daz_on()) return false;
    if (mode == rounding::stochastic) {
      if (generator == rng_kind::philox4x32_10) {
        narrow8::stochastic_doubles<V, F, simd::philox_stream<V>>(s, d, n, policy, key, counter);
      } else {
        narrow8::stochastic_doubles<V, F, typename V::rng>(s, d, n, policy, key, counter);
      }
      return true;
    }
    return simd::encode_modes<V, F, narrow8::double_source<V, F>>(s, d, n, mode, policy);
  }
}
#endif

/// dst[i] = round_to<T>(src[i], nearest_even, policy) for i < n (float or double src) with the given
/// level's fast path;
/// false (nothing written) when the level is not compiled in, T is not supported
/// (narrow8_traits<format>::supported; doubles: signed formats only) or policy is neither ieee
/// nor saturate.
template <class F, class S, std::enable_if_t<std::is_same<S, float>::value || std::is_same<S, double>::value, int> = 0>
inline bool simd_narrow8_at(simd_level level, const S* s, basic_float<F>* d, std::size_t n,
                            overflow policy) noexcept {
  // doubles: signed F only (an unsigned F's NaN for a tiny negative double needs the exact sticky bit)
  if constexpr (!narrow8_traits<F>::supported ||
                (std::is_same<S, double>::value && (F::mantissa_bits > 21 || !F::is_signed))) {
    (void)level, (void)s, (void)d, (void)n, (void)policy;
    return false;
  } else {
    if (policy != overflow::ieee && policy != overflow::saturate) return false;
    static_assert(sizeof(basic_float<F>) == 1, "one byte per value");
    auto* out = reinterpret_cast<std::uint8_t*>(d);
    switch (level) {
#if defined(MIXPREC_SIMD_AVX512)
      case simd_level::avx512_bf16:
      case simd_level::avx512:
        if (!simd_level_compiled(level)) return false;
        narrow8::narrow<simd::vec512, F>(s, out, n, policy);
        return true;
#endif
#if defined(MIXPREC_SIMD_AVX2)
      case simd_level::avx2:
        narrow8::narrow<simd::vec256, F>(s, out, n, policy);
        return true;
#endif
      default:
        (void)s, (void)out, (void)n;
        return false;
    }
  }
}

/// simd_narrow8_at with the best level compiled in.
template <class F, class S>
inline bool simd_narrow8(const S* s, basic_float<F>* d, std::size_t n, overflow policy) noexcept {
  return simd_narrow8_at(simd_best_level, s, d, n, policy);
}

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_SIMD_NARROW8_HPP
