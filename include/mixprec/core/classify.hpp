// SPDX-License-Identifier: MIT
// mixprec/core/classify.hpp — isnan, isinf, isfinite, isnormal, issubnormal, signbit, fpclassify.
// Found by argument-dependent lookup for every mixprec type; constexpr, exact (bit tests).
//
//   mixprec::isnan(mixprec::float8_e4m3fn::from_bits(0x7f))  // true
#ifndef MIXPREC_CLASSIFY_HPP
#define MIXPREC_CLASSIFY_HPP

#include <cmath>
#include <cstdint>

#include "basic_float.hpp"

// glibc's <math.h> defines C23's issubnormal as a macro. As <cmath> does for isnan and the
// other classification macros, mixprec replaces it by functions (see the overloads for float
// and double below), so that mixprec::issubnormal(x) and issubnormal(x) both work.
#ifdef issubnormal
#undef issubnormal
#endif

namespace mixprec {

/// Whether x is a NaN (any sign or payload).
template <class F>
MIXPREC_HD constexpr bool isnan(basic_float<F> x) noexcept {
  return detail::decode_bits<F>(x.bits()).cls == detail::value_class::nan;
}
/// Whether x is +infinity or -infinity (never for formats without infinity).
template <class F>
MIXPREC_HD constexpr bool isinf(basic_float<F> x) noexcept {
  return detail::decode_bits<F>(x.bits()).cls == detail::value_class::infinite;
}
/// Whether x is zero, subnormal or normal (not infinite, not NaN).
template <class F>
MIXPREC_HD constexpr bool isfinite(basic_float<F> x) noexcept {
  const auto c = detail::decode_bits<F>(x.bits()).cls;
  return c == detail::value_class::zero || c == detail::value_class::finite;
}
/// Subnormal: non-zero with the exponent field 0 (never true for e8m0fnu).
template <class F>
MIXPREC_HD constexpr bool issubnormal(basic_float<F> x) noexcept {
  const auto u = detail::decode_bits<F>(x.bits());
  return u.cls == detail::value_class::finite && u.exp < F::emin;
}
/// Normal: finite and non-zero with a non-zero exponent field (every finite e8m0fnu value).
template <class F>
MIXPREC_HD constexpr bool isnormal(basic_float<F> x) noexcept {
  const auto u = detail::decode_bits<F>(x.bits());
  return u.cls == detail::value_class::finite && u.exp >= F::emin;
}
/// Whether the float x is subnormal (the C library has no issubnormal).
MIXPREC_HD MIXPREC_CONSTEXPR_BIT_CAST bool issubnormal(float x) noexcept {
  const std::uint32_t a = detail::bit_cast<std::uint32_t>(x) & 0x7fffffffu;
  return a != 0 && a < 0x00800000u;
}
/// Whether the double x is subnormal.
MIXPREC_HD MIXPREC_CONSTEXPR_BIT_CAST bool issubnormal(double x) noexcept {
  const std::uint64_t a = detail::bit_cast<std::uint64_t>(x) & 0x7fffffffffffffffull;
  return a != 0 && a < 0x0010000000000000ull;
}

/// The sign bit (false for every e8m0fnu value; true for the fnuz NaN, 0x80).
template <class F>
MIXPREC_HD constexpr bool signbit(basic_float<F> x) noexcept {
  return detail::decode_bits<F>(x.bits()).sign;
}
/// FP_NAN, FP_INFINITE, FP_ZERO, FP_SUBNORMAL or FP_NORMAL, as std::fpclassify.
template <class F>
MIXPREC_HD constexpr int fpclassify(basic_float<F> x) noexcept {
  const auto u = detail::decode_bits<F>(x.bits());
  switch (u.cls) {
    case detail::value_class::nan: return FP_NAN;
    case detail::value_class::infinite: return FP_INFINITE;
    case detail::value_class::zero: return FP_ZERO;
    case detail::value_class::finite: break;
  }
  return u.exp < F::emin ? FP_SUBNORMAL : FP_NORMAL;
}

}  // namespace mixprec

#endif  // MIXPREC_CLASSIFY_HPP
