// SPDX-License-Identifier: MIT
// mixprec/simd/encode.hpp — float -> any narrow format, every rounding mode and overflow
// policy, written once over the vector traits (simd/vec_avx512.hpp, simd/vec_avx2.hpp).
// encode_floats<V, F>(src, dst, n, mode, policy, key, counter[, generator]) stores dst[i] =
// round_to<basic_float<F>>(src[i], mode, policy, bits_i) for F of at most 16 bits (half, bfloat16,
// FP8, FP6, FP4, signed or not, E8M0) or tf32 (the code above its 13 padding bits); bits_i is
// counter_rng's output at counter + i (key = counter_rng(seed).key()) or, with
// rng_kind::philox4x32_10, philox_rng(seed)'s (key = seed).
// Contract: the bits of the scalar round_to for every float input, mode and policy, whatever MXCSR
// holds (tests/test_convert.cpp, tests/exhaustive/test_convert_fast_paths.cpp). Method:
// docs/pages/kernels-reference.md ("Bulk conversion: the SIMD layer").
//   simd::encode_floats<simd::vec512, format<4, 3, encoding::fn>>(x, out, n, rounding::upward,
//                                                                 overflow::saturate, 0, 0);
#ifndef MIXPREC_SIMD_ENCODE_HPP
#define MIXPREC_SIMD_ENCODE_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../core/format.hpp"
#include "../core/random.hpp"
#include "../core/rounding.hpp"
#include "philox.hpp"
#include "vec_avx2.hpp"
#include "vec_avx512.hpp"

namespace mixprec {
namespace simd {

/// The constants of float -> F (see the top of this header).
template <class F>
struct encode_format {
  static constexpr bool supported =
      ((F::storage_bits <= 16 && F::padding_bits == 0) || (F::storage_bits == 32 && F::storage_bits - F::padding_bits <= 24)) &&
      F::mantissa_bits >= 1 && F::mantissa_bits <= 22 &&
      F::emin >= -126 && F::emin - F::mantissa_bits >= -149 &&
      (F::enc == encoding::ieee || F::enc == encoding::fn || F::enc == encoding::finite ||
       (F::enc == encoding::fnuz && F::is_signed));
  static constexpr int M = F::mantissa_bits;
  static constexpr int min_shift = 23 - M;
  static constexpr int shift_base = F::emin + 150 - M;  ///< shift = shift_base - e below F's normals
  static constexpr std::uint32_t ebase = static_cast<std::uint32_t>(F::emin + 127);
  static constexpr std::uint32_t max_code = static_cast<std::uint32_t>(F::max_code);
  static constexpr std::uint32_t sign_mask = static_cast<std::uint32_t>(F::sign_mask);
  static constexpr int sign_shift = 31 - F::exponent_bits - M;  ///< float sign -> F's sign bit
  /// The magnitude code of a value overflowing away from zero (the sign is added after).
  static constexpr std::uint32_t overflow_away(overflow policy) noexcept {
    return F::enc == encoding::exponent_only
               ? (policy == overflow::saturate ? max_code : static_cast<std::uint32_t>(F::magnitude_mask))
           : (policy == overflow::saturate || F::enc == encoding::finite) ? max_code
           : F::enc == encoding::ieee ? static_cast<std::uint32_t>(F::exponent_field_max << M)
           : F::enc == encoding::fn   ? static_cast<std::uint32_t>(F::magnitude_mask)
                                      : sign_mask;  // fnuz: the NaN
  }
  /// The NaN code's magnitude bits (ieee: quiet, payload's leading bits kept; finite: max, no sign).
  static constexpr std::uint32_t nan_fixed =
      F::enc == encoding::ieee ? static_cast<std::uint32_t>((F::exponent_field_max << M) | (std::uint64_t{1} << (M - 1)))
      : F::enc == encoding::fn ? static_cast<std::uint32_t>(F::magnitude_mask)
      : F::enc == encoding::fnuz ? sign_mask
                                 : max_code;
  static constexpr std::uint32_t nan_payload_mask = F::enc == encoding::ieee && M > 1 ? (1u << (M - 1)) - 1u : 0u;
  static constexpr bool nan_signed = F::enc == encoding::ieee || F::enc == encoding::fn;
  /// An unsigned format's code for a negative input other than -0 (and not a NaN): its NaN, or 0.
  static constexpr std::uint32_t negative_code = F::has_nan ? nan_fixed : 0u;
  // The common case, every lane zero or a normal of F up to its largest value (no overflow in
  // any mode): b = a - rebias holds F's code above min_shift fraction bits.
  /// F's smallest normal, as float bits; 0 where F's quantum below it is float's (bfloat16):
  /// float subnormals then round as the normals do.
  static constexpr std::uint32_t lo = F::emin == -126 ? 0u : ebase << 23;
  static constexpr std::uint32_t rebias = static_cast<std::uint32_t>(127 - F::bias) << 23;
  static constexpr std::uint32_t hi = (max_code << min_shift) + rebias;  ///< F's largest value, as float bits
  static constexpr std::uint32_t ulp_minus_one = (1u << min_shift) - 1u;
  /// Whether F is IEEE binary16 (vcvtps2ph's format).
  static constexpr bool is_half = F::exponent_bits == 5 && F::mantissa_bits == 10 && F::enc == encoding::ieee &&
                                  F::bias == 15 && F::padding_bits == 0 && F::is_signed && F::storage_bits == 16;
};

#if defined(MIXPREC_SIMD_AVX2) || defined(MIXPREC_SIMD_AVX512)
/// The codes of F (32-bit lanes) for the float bits u; rnd: the stochastic lanes' random bits;
/// away: F's magnitude code for an overflow away from zero under the policy (the lane algorithm:
/// docs/pages/kernels-reference.md, "Bulk conversion: the SIMD layer"). Always inlined, as
/// encode_fast and encode_e8m0, so that no instantiation stays a call in the loops.
template <class V, class F, rounding Mode>
[[gnu::always_inline]] inline typename V::vi encode(typename V::vi u, typename V::vi rnd, std::uint32_t away_code) noexcept {
  using t = encode_format<F>;
  using vi = typename V::vi;
  using mask = typename V::mask;
  const vi one = V::set1(1);
  const vi a = V::and_(u, V::set1(0x7fffffffu));
  const vi ef = V::template srli<23>(a);
  const vi e = V::max_u(ef, one);
  const vi m24 = V::or_(V::and_(a, V::set1(0x7fffffu)), V::template slli<23>(V::min_u(ef, one)));
  const vi shift = V::max_i(V::sub(V::set1(static_cast<std::uint32_t>(t::shift_base)), e),
                            V::set1(static_cast<std::uint32_t>(t::min_shift)));
  vi integer = V::srlv(m24, shift);
  vi rem = V::sllv(m24, V::sub(V::set1(32), shift));
  mask inc = V::none();
  if constexpr (Mode == rounding::nearest_even) {
    const vi r = V::add(V::set1(0x7fffffffu), V::and_(integer, one));
    inc = V::lt_u(V::add(rem, r), rem);
  } else if constexpr (Mode == rounding::nearest_away) {
    inc = V::neg(rem);  // the half bit
  } else if constexpr (Mode == rounding::stochastic) {
    rem = V::or_(rem, V::srlv(m24, V::sub(shift, V::set1(32))));  // shift > 32: the top 32 bits
    inc = V::lt_u(V::add(rem, rnd), rem);
  } else if constexpr (Mode == rounding::upward || Mode == rounding::downward || Mode == rounding::to_odd) {
    const mask inexact = V::ne(V::sllv(integer, shift), m24);
    if constexpr (Mode == rounding::upward) inc = V::m_andnot(V::neg(u), inexact);
    if constexpr (Mode == rounding::downward) inc = V::m_and(V::neg(u), inexact);
    if constexpr (Mode == rounding::to_odd) integer = V::or_one_if(inexact, integer);
  }
  if constexpr (Mode != rounding::toward_zero && Mode != rounding::to_odd) integer = V::add_one_if(inc, integer);
  (void)rnd;
  const vi eb = V::set1(t::ebase);
  vi code = V::add(integer, V::template slli<t::M>(t::ebase == 1 ? V::sub(e, one) : V::sub(V::max_u(e, eb), eb)));
  vi sign = V::and_(V::template srli<t::sign_shift>(u), V::set1(t::sign_mask));
  const mask over = V::gt_i(code, V::set1(t::max_code));  // both below 2^31
  // overflow, infinities and NaNs (their code is past max_code too): rare in 16-bit formats (a
  // branch), common in the narrow ones (no branch to mispredict)
  if (F::storage_bits <= 8 || V::any(over)) {
    mask away = V::eq(a, V::set1(0x7f800000u));  // an infinite input overflows away from zero
    if constexpr (Mode == rounding::nearest_even || Mode == rounding::nearest_away || Mode == rounding::stochastic) {
      away = V::all();
    } else if constexpr (Mode == rounding::upward) {
      away = V::m_or(away, V::m_andnot(V::neg(u), V::all()));
    } else if constexpr (Mode == rounding::downward) {
      away = V::m_or(away, V::neg(u));
    }
    code = V::select(over, V::select(away, V::set1(away_code), V::set1(t::max_code)), code);
    const mask nan = V::gt_i(a, V::set1(0x7f800000u));
    if (V::any(nan)) {
      const vi payload = V::and_(V::template srli<t::min_shift>(a), V::set1(t::nan_payload_mask));
      code = V::select(nan, V::or_(V::set1(t::nan_fixed), payload), code);
      if constexpr (!t::nan_signed) sign = V::select(nan, V::zero(), sign);
    }
  }
  if constexpr (F::enc == encoding::fnuz) sign = V::zero_unless(V::nonzero(code), sign);  // no -0
  if constexpr (!F::is_signed) {  // no sign (sign_mask 0): a negative nonzero number is F's NaN, or 0
    const mask negative = V::m_and(V::neg(u), V::lt_u(V::sub(a, one), V::set1(0x7f800000u)));
    code = V::select(negative, V::set1(t::negative_code), code);
  }
  return V::or_(code, sign);
}

/// Whether F is E8M0 (float8_e8m0fnu: 2^(code - 127), code 255 the NaN; no sign, zero or subnormals).
template <class F>
struct e8m0_format {
  static constexpr bool supported = F::enc == encoding::exponent_only && F::exponent_bits == 8 &&
                                    F::mantissa_bits == 0 && F::bias == 127 && !F::is_signed &&
                                    F::storage_bits == 8 && F::padding_bits == 0;
};

/// E8M0 codes (32-bit lanes) of the float bits u, detail::encode's rules: the code is float's
/// biased exponent plus the mode's increment from the fraction bits below the leading one (float
/// subnormals from 2^-127 up: code 0 plus it; smaller ones clamp to code 0); past code 254 (and
/// +infinity): away_code (255 under overflow::ieee, else 254); NaNs, zeros and negative numbers: 255.
template <class V, rounding Mode>
[[gnu::always_inline]] inline typename V::vi encode_e8m0(typename V::vi u, typename V::vi rnd,
                                                         std::uint32_t away_code) noexcept {
  using vi = typename V::vi;
  using mask = typename V::mask;
  const vi a = V::and_(u, V::set1(0x7fffffffu));
  const vi f = V::template srli<23>(a);
  const vi mant = V::and_(u, V::set1(0x7fffffu));
  const mask normal = V::nonzero(f);
  // the fraction below the leading bit, left-aligned (normals: 9 places, subnormals: 10; a shift
  // by a vector of counts: GCC 12 -O2 with AVX-512VL miscompiles the select of two immediate shifts)
  const vi frac = V::sllv(mant, V::sub(V::set1(10), V::zero_unless(normal, V::set1(1))));
  mask inc = V::none();
  if constexpr (Mode == rounding::nearest_even || Mode == rounding::nearest_away) {
    inc = V::neg(frac);  // the half bit; the integer part is 1, odd: ties go up in both
  } else if constexpr (Mode == rounding::upward) {
    inc = V::nonzero(frac);
  } else if constexpr (Mode == rounding::stochastic) {
    inc = V::lt_u(V::add(frac, rnd), frac);
  }
  (void)rnd;
  const mask counted = V::m_or(normal, V::gt_u(mant, V::set1(0x3fffffu)));  // from 2^-127 up
  vi code = V::add_one_if(V::m_and(inc, counted), V::zero_unless(normal, f));
  code = V::select(V::gt_u(code, V::set1(0xfeu)), V::set1(away_code), code);
  const mask nan = V::m_or(V::gt_u(a, V::set1(0x7f800000u)), V::m_or(V::eq(a, V::zero()), V::neg(u)));
  return V::select(nan, V::set1(0xffu), code);
}

/// encode, with the common case (every lane zero or a normal of F, no overflow) in a few
/// operations: the code is (a - rebias + the mode's increment) >> (23 - M); stochastic adds the
/// random bits' top 23 - M bits (the carry of rem + bits out of 32 bits, exactly).
template <class V, class F, rounding Mode>
[[gnu::always_inline]] inline typename V::vi encode_fast(typename V::vi u, typename V::vi rnd,
                                                         std::uint32_t away_code) noexcept {
  using t = encode_format<F>;
  using vi = typename V::vi;
  using mask = typename V::mask;
  const vi a = V::and_(u, V::set1(0x7fffffffu));
  const vi in = F::is_signed ? a : u;  // unsigned F: a negative lane leaves the common case
  mask normal;
  if constexpr (t::lo == 0) {
    normal = V::lt_u(in, V::set1(t::hi + 1));
    if (!V::all_of(normal)) return encode<V, F, Mode>(u, rnd, away_code);
  } else {
    normal = V::lt_u(V::sub(in, V::set1(t::lo)), V::set1(t::hi - t::lo + 1));
    if (V::any(V::m_andnot(normal, V::nonzero(a)))) return encode<V, F, Mode>(u, rnd, away_code);
  }
  // bfloat16 (F's exponent is float's): round the bits with their sign, which no carry reaches
  constexpr bool same_exponent = t::rebias == 0 && t::lo == 0 && t::sign_shift == t::min_shift;
  const vi b = same_exponent ? u : V::sub(a, V::set1(t::rebias));
  vi r;
  if constexpr (Mode == rounding::nearest_even) {
    const vi lsb = V::and_(V::template srli<t::min_shift>(b), V::set1(1));
    r = V::template srli<t::min_shift>(V::add(V::add(b, V::set1(t::ulp_minus_one >> 1)), lsb));
  } else if constexpr (Mode == rounding::nearest_away) {
    r = V::template srli<t::min_shift>(V::add(b, V::set1((t::ulp_minus_one >> 1) + 1)));
  } else if constexpr (Mode == rounding::toward_zero) {
    r = V::template srli<t::min_shift>(b);
  } else if constexpr (Mode == rounding::upward) {
    r = V::template srli<t::min_shift>(V::add(b, V::zero_unless(V::m_andnot(V::neg(u), V::all()), V::set1(t::ulp_minus_one))));
  } else if constexpr (Mode == rounding::downward) {
    r = V::template srli<t::min_shift>(V::add(b, V::zero_unless(V::neg(u), V::set1(t::ulp_minus_one))));
  } else if constexpr (Mode == rounding::to_odd) {
    r = V::or_one_if(V::nonzero(V::and_(b, V::set1(t::ulp_minus_one))), V::template srli<t::min_shift>(b));
  } else {
    r = V::template srli<t::min_shift>(V::add(b, V::template srli<32 - t::min_shift>(rnd)));
  }
  if constexpr (same_exponent) {
    (void)normal;
    return r;
  } else {
    vi sign = V::and_(V::template srli<t::sign_shift>(u), V::set1(t::sign_mask));
    if constexpr (F::enc == encoding::fnuz) sign = V::zero_unless(normal, sign);  // no -0
    return V::or_(t::lo == 0 ? r : V::zero_unless(normal, r), sign);
  }
}

/// Whether float -> F in Mode to Out can be vcvtps2ph's (half_vector): F is half, stored as 16
/// bits, in a deterministic mode.
template <class F, rounding Mode, class Out>
constexpr bool half_by_hardware = encode_format<F>::is_half && sizeof(Out) == 2 && Mode != rounding::stochastic;

/// float bits u -> half bits by vcvtps2ph's own rounding, in every mode but stochastic: the IEEE
/// 754 conversion (round_to's bits, NaNs quieted with sign and leading payload kept) in
/// nearest-even, toward zero, upward and downward; nearest away as nearest-even of the bits with
/// their last bit set (a tie becomes just above it, and no other float crosses a midpoint, as a
/// midpoint of half's grid has a 0 there: 13 bits or more below half's last), except at +-infinity
/// (whose bits | 1 are a NaN); to odd as toward zero ORed with the last bit of |u| rounded upward
/// (one code above the truncation where u is inexact, so that bit makes an even truncation odd;
/// the truncation's magnitude where exact, whose bit changes nothing; likewise for NaNs,
/// infinities and overflow, which truncates to 65504, odd already); overflow::saturate (Sat) by
/// clamping the input to [-65504, 65504] first (every mode gives +-65504 beyond it, as an
/// overflow saturates; vminps and vmaxps return their operand exactly, so FTZ does not apply), to
/// odd by replacing +-infinity with +-FLT_MAX (no finite input truncates to infinity). MXCSR.DAZ
/// would read float subnormal inputs as zero (the directed modes can tell them apart): the callers
/// check it (encode_stream).
template <class V, rounding Mode, bool Sat>
[[gnu::always_inline]] inline typename V::vh half_vector(typename V::vi u) noexcept {
  constexpr int imm = Mode == rounding::nearest_even || Mode == rounding::nearest_away ? _MM_FROUND_TO_NEAREST_INT
                      : Mode == rounding::toward_zero || Mode == rounding::to_odd ? _MM_FROUND_TO_ZERO
                      : Mode == rounding::upward                                   ? _MM_FROUND_TO_POS_INF
                                                                                   : _MM_FROUND_TO_NEG_INF;
  const typename V::vi a = V::and_(u, V::set1(0x7fffffffu));
  (void)a;
  if constexpr (Sat && Mode == rounding::to_odd) {
    u = V::sub(u, V::zero_unless(V::eq(a, V::set1(0x7f800000u)), V::set1(1)));  // only +-inf: +-FLT_MAX
  } else if constexpr (Sat) {  // |u| clamped to 65504 (a NaN is min's and max's second operand: kept)
    u = V::f_bits(V::f_max(V::f_set1(-65504.0f), V::f_min(V::f_set1(65504.0f), V::f_from_bits(u))));
  }
  if constexpr (Mode == rounding::nearest_away && Sat) {  // no infinity left: u | 1 (NaNs stay NaNs)
    u = V::or_(u, V::set1(1));
  } else if constexpr (Mode == rounding::nearest_away) {  // u | 1 where |u| < infinity
    u = V::or_(u, V::template srli<31>(V::sub(a, V::set1(0x7f800000u))));
  }
  typename V::vh h = V::template to_half<imm>(u);
  if constexpr (Mode == rounding::to_odd) {  // truncated, then sticky: the last bit of |u| rounded up
    const typename V::vh up = V::template to_half<_MM_FROUND_TO_POS_INF>(a);  // (+inf's last bit: 0)
    h = V::h_or(h, V::h_and(up, V::h_set1(1)));
  }
  return h;
}

/// Stochastic rounding of the float bits u to half codes (32-bit lanes) with the random bits
/// rnd: where every lane is zero or a normal half up to 65504, vcvtps2ph truncating the float bits
/// plus the bits' top 13 (encode_fast's sum, the half's exponent and sign done by the
/// instruction); elsewhere encode. No MXCSR setting changes it: the rounding is the instruction's,
/// and the one float subnormal input (zero plus the bits) truncates to zero, as DAZ makes it.
template <class V, class F>
[[gnu::always_inline]] inline typename V::vh stochastic_half(typename V::vi u, typename V::vi rnd,
                                                             std::uint32_t away_code) noexcept {
  using t = encode_format<F>;
  const typename V::vi a = V::and_(u, V::set1(0x7fffffffu));
  if (V::any(V::m_andnot(V::lt_u(V::sub(a, V::set1(t::lo)), V::set1(t::hi - t::lo + 1)), V::nonzero(a)))) {
    return V::narrow16(encode<V, F, rounding::stochastic>(u, rnd, away_code));
  }
  return V::template to_half<_MM_FROUND_TO_ZERO>(V::add(u, V::template srli<32 - t::min_shift>(rnd)));
}

/// stochastic_half's common case for B vectors of floats at once, where masks are vectors (AVX2),
/// on the floats' high 16 bits, two vectors in one (16 words a step): every magnitude's high word is 0 (|x| < 2^-126: it rounds to +-0 in any
/// case, as vcvtps2ph truncating the float plus the bits gives it) or from lo's to one below hi's
/// (F's normals up to 65280; the rare values from there to 65504 take the general path).
/// Specialized for the 256-bit traits only (the 512-bit ones test each vector's mask); the
/// constants are made once, before the loop, and kept opaque so that they stay in registers.
template <class V, class F>
struct half_batch_test;

#if defined(MIXPREC_SIMD_AVX2)
template <class F>
struct half_batch_test<vec256, F> {
  using t = encode_format<F>;
  static_assert(t::is_half && (t::lo & 0xffffu) == 0, "half");
  static constexpr int lo = static_cast<int>(t::lo >> 16);                ///< the smallest normal's high word
  static constexpr int top = static_cast<int>(t::hi >> 16) - 1 - lo;      ///< the largest accepted, minus lo
  __m256i magnitude = vec256::rng::opaque(_mm256_set1_epi16(0x7fff));   ///< the high word's magnitude bits
  __m256i low = vec256::rng::opaque(_mm256_set1_epi16(static_cast<short>(lo)));    ///< lo in every word
  __m256i above = vec256::rng::opaque(_mm256_set1_epi16(static_cast<short>(top)));  ///< top in every word
  __m256i zero = vec256::rng::opaque(_mm256_set1_epi16(static_cast<short>(-lo)));   ///< 0 - lo in every word
  /// Whether all of the 8 B floats at s are in the common case.
  template <std::size_t B>
  [[gnu::always_inline]] bool common(const float* s) const noexcept {
    static_assert(B % 2 == 0, "pairs of vectors");
    // |w| - lo: at most top as a signed number (no lane at 65280 or above, infinite or NaN) and at
    // most -lo as an unsigned one (no nonzero lane below lo)
    __m256i top_i = _mm256_set1_epi16(-0x8000), top_u = _mm256_setzero_si256();
#if defined(__GNUC__)
#pragma GCC unroll 16
#endif
    for (std::size_t k = 0; k < B; k += 2) {
      const __m256i w = _mm256_blend_epi16(_mm256_srli_epi32(vec256::load(s + k * 8), 16), vec256::load(s + k * 8 + 8), 0xAA);
      const __m256i r = _mm256_sub_epi16(_mm256_and_si256(w, magnitude), low);
      top_i = _mm256_max_epi16(top_i, r);
      top_u = _mm256_max_epu16(top_u, r);
    }
    const __m256i ok = _mm256_andnot_si256(_mm256_cmpgt_epi16(top_i, above), _mm256_cmpeq_epi16(_mm256_max_epu16(top_u, zero), zero));
    return _mm256_testc_si256(ok, _mm256_cmpeq_epi16(zero, zero)) != 0;
  }
};
#endif

/// stochastic_half over the B vectors at s (random bits rnd[0] .. rnd[B - 1]) with one test for
/// all of them (test: a half_batch_test<V, F>). False, nothing written, where some lane fails.
template <class V, class F, std::size_t B, class Out>
[[gnu::always_inline]] inline bool stochastic_half_batch(const float* s, Out* d, const typename V::vi* rnd,
                                                         const half_batch_test<V, F>& test) noexcept {
  using t = encode_format<F>;
  constexpr std::size_t N = V::N;
  if (!test.template common<B>(s)) return false;
#if defined(__GNUC__)
#pragma GCC unroll 16
#endif
  for (std::size_t k = 0; k < B; ++k) {
    V::h_store(d + k * N, V::template to_half<_MM_FROUND_TO_ZERO>(
                              V::add(V::load(s + k * N), V::template srli<32 - t::min_shift>(rnd[k]))));
  }
  return true;
}

/// One vector of float bits -> F's codes in Mode, stored as V::N of Out (F's storage; tf32: the
/// code above its padding bits): the lane function of F and Mode, written once for every source
/// (encode_floats; kernels/detail/simd_narrow8.hpp's encode_doubles on floats rounded to odd).
/// HW: half_vector (half_by_hardware<F, Mode, Out>, MXCSR.DAZ clear; Sat: overflow::saturate);
/// otherwise encode_e8m0 for E8M0, stochastic_half for half's stochastic rounding, encode_fast for
/// 16-bit and wider formats and 5-bit exponents (whole vectors of normals are the rule, worth a
/// test), encode for the narrower ranges (e4m3fn from 2^-6 to 448, FP6, FP4: data leave them too
/// often for a branch).
///   simd::encode_vector<simd::vec512, F, rounding::upward, std::uint8_t> enc(overflow::ieee);
///   enc(dst, V::load(src), V::zero());
template <class V, class F, rounding Mode, class Out, bool HW = false, bool Sat = false>
struct encode_vector {
  using vi = typename V::vi;
  std::uint32_t away_code;  ///< F's magnitude code for an overflow away from zero
  /// The constants of policy.
  explicit encode_vector(overflow policy) noexcept
      : away_code(encode_format<F>::overflow_away(policy)) {}
  /// Codes of F (32-bit lanes) -> dst.
  static void store(Out* dst, vi c) noexcept {
    if constexpr (sizeof(Out) == 1) {
      V::store8(dst, c);
    } else if constexpr (sizeof(Out) == 4) {
      V::store(dst, V::template slli<F::padding_bits>(c));
    } else {
      V::store16(dst, c);
    }
  }
  /// The codes of the float bits u (bits: stochastic rounding's random bits) -> dst.
  [[gnu::always_inline]] void operator()(Out* dst, vi u, vi bits) const noexcept {
    if constexpr (HW) {
      static_assert(half_by_hardware<F, Mode, Out>, "vcvtps2ph: half, deterministic modes");
      (void)bits;
      V::h_store(dst, half_vector<V, Mode, Sat>(u));
    } else if constexpr (e8m0_format<F>::supported) {
      store(dst, encode_e8m0<V, Mode>(u, bits, away_code));
    } else if constexpr (Mode == rounding::stochastic && encode_format<F>::is_half && sizeof(Out) == 2) {
      V::h_store(dst, stochastic_half<V, F>(u, bits, away_code));
    } else if constexpr (F::storage_bits > 8 || F::exponent_bits >= 5) {
      store(dst, encode_fast<V, F, Mode>(u, bits, away_code));
    } else {
      store(dst, encode<V, F, Mode>(u, bits, away_code));
    }
  }
};

/// n values of a source -> d by enc (an encode_vector): src(i) gives the float bits of values i ..
/// i + V::N - 1, src.tail(i, m) those of the last m < V::N values and zeros; bits() the random bits
/// of the next vector.
template <class V, class Out, class Src, class Enc, class Bits>
[[gnu::always_inline]] inline void encode_run(Src src, Out* d, std::size_t n, std::size_t i, Enc enc,
                                              Bits&& bits) noexcept {
  constexpr std::size_t N = V::N;
  if (i + 4 * N <= n) {  // the next vectors' source read before this one's encoding (a long chain for doubles)
    typename V::vi u0 = src(i), u1 = src(i + N);
    for (; i + 4 * N <= n; i += 2 * N) {
      const typename V::vi a = u0, b = u1;
      u0 = src(i + 2 * N);
      u1 = src(i + 3 * N);
      enc(d + i, a, bits());
      enc(d + i + N, b, bits());
    }
    enc(d + i, u0, bits());
    enc(d + i + N, u1, bits());
    i += 2 * N;
  }
  for (; i + N <= n; i += N) enc(d + i, src(i), bits());
  if (i < n) {
    Out out[N] = {};
    enc(out, src.tail(i, n - i), bits());
    std::memcpy(d + i, out, (n - i) * sizeof(Out));
  }
}

/// The floats at s as encode_run's source.
template <class V>
struct float_source {
  template <rounding>
  using in_mode = float_source;  ///< the same in every mode (encode_modes)
  const float* s;                ///< the floats
  /// The bits of the floats i .. i + V::N - 1.
  typename V::vi operator()(std::size_t i) const noexcept { return V::load(s + i); }
  /// The bits of the m < V::N floats from i, then zeros.
  typename V::vi tail(std::size_t i, std::size_t m) const noexcept {
    float in[V::N] = {};
    std::memcpy(in, s + i, m * sizeof(float));
    return V::load(in);
  }
};

/// dst[i] = round_to(x_i, Mode, policy) for the n values of src (encode_run's source), a
/// deterministic Mode: each vector by encode_vector (vcvtps2ph for half while MXCSR.DAZ is clear).
template <class V, class F, rounding Mode, class Out, class Src>
inline void encode_stream(Src src, Out* d, std::size_t n, overflow policy) noexcept {
  static_assert(Mode != rounding::stochastic, "deterministic modes");
  const auto no_bits = []() noexcept { return V::zero(); };
  if constexpr (half_by_hardware<F, Mode, Out>) {
    if (!daz_on()) {
      if (policy == overflow::saturate) {
        encode_run<V>(src, d, n, 0, encode_vector<V, F, Mode, Out, true, true>(policy), no_bits);
      } else {
        encode_run<V>(src, d, n, 0, encode_vector<V, F, Mode, Out, true>(policy), no_bits);
      }
      return;
    }
  }
  encode_run<V>(src, d, n, 0, encode_vector<V, F, Mode, Out>(policy), no_bits);
}

/// Stochastic rounding of n floats: Rng (V::rng or philox_stream<V>), constructed from (key,
/// counter), gives each vector's random bits (a Philox stream a batch of vectors at a time; to
/// half with AVX2, 8 vectors of either generator at a time).
template <class V, class F, class Out, class Rng>
inline void encode_stochastic(const float* s, Out* d, std::size_t n, overflow policy, std::uint64_t key,
                              std::uint64_t counter) noexcept {
  using vi = typename V::vi;
  constexpr std::size_t N = V::N;
  const encode_vector<V, F, rounding::stochastic, Out> enc(policy);
  Rng rng(key, counter);
  std::size_t i = 0;
  if constexpr (std::is_same<Rng, philox_stream<V>>::value) {
    constexpr std::size_t B = Rng::batch;  // the generator's vectors, kept in registers
    constexpr bool batch_test = encode_format<F>::is_half && sizeof(Out) == 2 && !V::has_mask_registers;
    const std::conditional_t<batch_test, half_batch_test<V, F>, int> test{};
    for (; i + B * N <= n; i += B * N) {
      vi bits[B];
      rng.next_batch(bits);
      if constexpr (batch_test) {
        if (stochastic_half_batch<V, F, B>(s + i, d + i, bits, test)) continue;
      }
#if defined(__GNUC__)
#pragma GCC unroll 16
#endif
      for (std::size_t k = 0; k < B; ++k) enc(d + i + k * N, V::load(s + i + k * N), bits[k]);
    }
    // the vectors after the batches (all of a short array): a few at a time
    encode_run<V>(float_source<V>{s}, d, n, i, enc, [&rng]() noexcept { return rng.next_few(); });
  } else {
    if constexpr (encode_format<F>::is_half && sizeof(Out) == 2 && !V::has_mask_registers) {
      // AVX2's counter_rng: 8 vectors of raw bits (the top 31 of the outputs), one test for all;
      // the outputs' last step only where a vector leaves the common case
      constexpr std::size_t B = 8;
      const half_batch_test<V, F> test{};
      for (; i + B * N <= n; i += B * N) {
        vi bits[B];
#if defined(__GNUC__)
#pragma GCC unroll 16
#endif
        for (std::size_t k = 0; k < B; ++k) bits[k] = rng.raw();
        if (stochastic_half_batch<V, F, B>(s + i, d + i, bits, test)) continue;
        for (std::size_t k = 0; k < B; ++k) enc(d + i + k * N, V::load(s + i + k * N), Rng::finish(bits[k]));
      }
    }
    encode_run<V>(float_source<V>{s}, d, n, i, enc, [&rng]() noexcept { return rng.next(); });
  }
}

/// encode_stream in a mode chosen at run time: Src::in_mode<Mode> is the source of that mode,
/// constructed from p. False (nothing written) for stochastic rounding or an invalid mode.
template <class V, class F, class Src, class In, class Out>
inline bool encode_modes(const In* p, Out* d, std::size_t n, rounding mode, overflow policy) noexcept {
  const auto run = [&](auto m) noexcept {
    encode_stream<V, F, decltype(m)::value>(typename Src::template in_mode<decltype(m)::value>{p}, d, n, policy);
    return true;
  };
  using r = rounding;
  switch (mode) {
    case r::nearest_even: return run(std::integral_constant<r, r::nearest_even>{});
    case r::nearest_away: return run(std::integral_constant<r, r::nearest_away>{});
    case r::toward_zero: return run(std::integral_constant<r, r::toward_zero>{});
    case r::upward: return run(std::integral_constant<r, r::upward>{});
    case r::downward: return run(std::integral_constant<r, r::downward>{});
    case r::to_odd: return run(std::integral_constant<r, r::to_odd>{});
    default: return false;
  }
}

/// dst[i] = round_to(src[i], mode, policy) as F's storage (uint8_t or uint16_t), for i < n; false
/// (nothing written) for a format not encode_format<F>::supported, an Out other than F's storage
/// type (tf32: uint32_t, the code stored above its 13 padding bits), or an invalid mode, policy or
/// generator. Stochastic rounding: key = counter_rng(seed).key() (splitmix64) or the seed
/// (philox4x32_10: philox_rng(seed), subsequence 0).
template <class V, class F, class Out>
inline bool encode_floats(const float* s, Out* d, std::size_t n, rounding mode, overflow policy, std::uint64_t key,
                          std::uint64_t counter, rng_kind generator = rng_kind::splitmix64) noexcept {
  if constexpr (!(encode_format<F>::supported || e8m0_format<F>::supported) || sizeof(Out) * 8 < F::storage_bits ||
                sizeof(Out) > (F::storage_bits > 16 ? 4u : 2u)) {
    (void)s, (void)d, (void)n, (void)mode, (void)policy, (void)key, (void)counter, (void)generator;
    return false;
  } else {
    if (!is_valid(policy) || !is_valid(generator)) return false;
    if (mode != rounding::stochastic) return encode_modes<V, F, float_source<V>>(s, d, n, mode, policy);
    if (generator == rng_kind::philox4x32_10) {
      encode_stochastic<V, F, Out, philox_stream<V>>(s, d, n, policy, key, counter);
    } else {
      encode_stochastic<V, F, Out, typename V::rng>(s, d, n, policy, key, counter);
    }
    return true;
  }
}
#endif

}  // namespace simd
}  // namespace mixprec

#endif  // MIXPREC_SIMD_ENCODE_HPP
