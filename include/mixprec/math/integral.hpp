// SPDX-License-Identifier: MIT
// mixprec/math/integral.hpp — rounding to integral values and conversion to integers, in every
// rounding mode, exact (integer arithmetic on the bits; no double, no floating-point environment).
//
//   round_to_integral(x, mode[, random_bits])   the integral value x rounds to (floor, ceil, ...)
//   to_integer<I>(x, mode = toward_zero[, random_bits]), lrint, llrint, lround, llround
//
// Contract: one rounding of the exact value; to_integer SATURATES out of range (NaN gives 0), never
// undefined behaviour. Zeros, NaN, overflow: docs/pages/math.md ("Rounding to integers").
//
//   mixprec::to_integer<int>(mixprec::half(-2.5f), mixprec::rounding::nearest_even)  // -2
//   mixprec::to_integer<std::uint8_t>(mixprec::half(300.0f))                          // 255
#ifndef MIXPREC_MATH_INTEGRAL_HPP
#define MIXPREC_MATH_INTEGRAL_HPP

#include <cstdint>
#include <type_traits>

#include "../core/basic_float.hpp"
#include "../core/round_to.hpp"

namespace mixprec {

/// x rounded to an integral value of its format in mode (roundToIntegral; docs/pages/math.md);
/// random_bits is used by rounding::stochastic only.
template <class F>
MIXPREC_HD constexpr basic_float<F> round_to_integral(basic_float<F> x, rounding mode,
                                                      std::uint32_t random_bits) noexcept {
  using T = basic_float<F>;
  detail::exact_value u = detail::decode_bits<F>(x.bits());
  if (u.cls == detail::value_class::nan) return T::from_bits(detail::encode_bits<F>(u, mode, overflow::ieee));  // quiet
  if (u.cls != detail::value_class::finite || u.exp >= F::mantissa_bits) return x;  // zero, inf, integral
  bool big = false;
  const std::uint64_t mag = detail::integral_magnitude(u, mode, random_bits, big);
  const bool neg = u.sign;
  u = mag == 0 ? detail::exact_value{detail::value_class::zero, neg, false, 0, 0} : detail::decode_integer(mag);
  u.sign = neg;
  return T::from_bits(detail::encode_bits<F>(u, rounding::nearest_even, overflow::ieee));  // exact but for overflow
}
/// round_to_integral in a deterministic mode (rounding::stochastic needs random bits: see
/// detail::require_random_bits).
template <class F>
MIXPREC_HD constexpr basic_float<F> round_to_integral(basic_float<F> x, rounding mode = rounding::nearest_even) {
  detail::require_random_bits(mode);
  return round_to_integral(x, mode, 0);
}

/// Largest integral value <= x (rounding::downward).
template <class F>
MIXPREC_HD constexpr basic_float<F> floor(basic_float<F> x) noexcept {
  return round_to_integral(x, rounding::downward, 0);
}
/// Smallest integral value >= x (rounding::upward).
template <class F>
MIXPREC_HD constexpr basic_float<F> ceil(basic_float<F> x) noexcept {
  return round_to_integral(x, rounding::upward, 0);
}
/// x with its fraction dropped (rounding::toward_zero).
template <class F>
MIXPREC_HD constexpr basic_float<F> trunc(basic_float<F> x) noexcept {
  return round_to_integral(x, rounding::toward_zero, 0);
}
/// Nearest integer, ties away from zero.
template <class F>
MIXPREC_HD constexpr basic_float<F> round(basic_float<F> x) noexcept {
  return round_to_integral(x, rounding::nearest_away, 0);
}
/// Nearest integer, ties to even (the default rounding mode; the environment is not read).
template <class F>
MIXPREC_HD constexpr basic_float<F> rint(basic_float<F> x) noexcept {
  return round_to_integral(x, rounding::nearest_even, 0);
}
/// rint: nearest integer, ties to even (no floating-point environment, no exception flags).
template <class F>
MIXPREC_HD constexpr basic_float<F> nearbyint(basic_float<F> x) noexcept {
  return round_to_integral(x, rounding::nearest_even, 0);
}

/// x rounded to an integer of type I in mode, saturating (NaN: 0; docs/pages/math.md).
template <class I, class F>
MIXPREC_HD constexpr I to_integer(basic_float<F> x, rounding mode, std::uint32_t random_bits) noexcept {
  static_assert(std::is_integral<I>::value && !std::is_same<I, bool>::value,
                "to_integer converts to an integer type other than bool");
  return detail::round_to_integer<I>(detail::decode_bits<F>(x.bits()), mode, random_bits);
}
/// to_integer in a deterministic mode; truncates by default, like static_cast from float.
template <class I, class F>
MIXPREC_HD constexpr I to_integer(basic_float<F> x, rounding mode = rounding::toward_zero) {
  detail::require_random_bits(mode);
  return to_integer<I>(x, mode, 0);
}

/// to_integer<long>, nearest, ties to even, saturating.
template <class F>
MIXPREC_HD constexpr long lrint(basic_float<F> x) noexcept {
  return to_integer<long>(x, rounding::nearest_even, 0);
}
/// to_integer<long long>, nearest, ties to even, saturating.
template <class F>
MIXPREC_HD constexpr long long llrint(basic_float<F> x) noexcept {
  return to_integer<long long>(x, rounding::nearest_even, 0);
}
/// to_integer<long>, nearest, ties away from zero, saturating.
template <class F>
MIXPREC_HD constexpr long lround(basic_float<F> x) noexcept {
  return to_integer<long>(x, rounding::nearest_away, 0);
}
/// to_integer<long long>, nearest, ties away from zero, saturating.
template <class F>
MIXPREC_HD constexpr long long llround(basic_float<F> x) noexcept {
  return to_integer<long long>(x, rounding::nearest_away, 0);
}

}  // namespace mixprec

#endif  // MIXPREC_MATH_INTEGRAL_HPP
