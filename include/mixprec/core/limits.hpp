// SPDX-License-Identifier: MIT
// mixprec/core/limits.hpp — std::numeric_limits for every mixprec type.
// Contract: the standard's members for the format (digits counts the implicit bit; +0 stands for
// an infinity or NaN the format lacks).
//
//   std::numeric_limits<mixprec::half>::max()     // 65504
//   std::numeric_limits<mixprec::bfloat16>::digits  // 8
#ifndef MIXPREC_LIMITS_HPP
#define MIXPREC_LIMITS_HPP

#include <limits>

#include "detail/values.hpp"
#include "finfo.hpp"

namespace mixprec {
namespace detail {

/// floor(log10(x)) for x >= 1.
MIXPREC_HD constexpr int floor_log10(double x) noexcept {
  int n = 0;
  while (x >= 10.0) {
    x /= 10.0;
    ++n;
  }
  return n;
}
/// floor(log10(2^k)) for k >= 0, by exact repeated division (2^k is exact in double).
MIXPREC_HD constexpr int floor_log10_of_pow2_double(int k) noexcept {
  double x = 1.0;
  for (int i = 0; i < k; ++i) x *= 2.0;
  return floor_log10(x);
}

}  // namespace detail
}  // namespace mixprec

namespace std {

/// numeric_limits of a mixprec type. digits counts the implicit bit (half: 11, bfloat16: 8,
/// tf32: 11, e4m3fn: 4, e5m2: 3); min() is the smallest normal, denorm_min() the smallest
/// subnormal; infinity() and the NaNs are +0 where the format lacks them (as the standard asks).
template <class F>
class numeric_limits<mixprec::basic_float<F>> {
  using T = mixprec::basic_float<F>;

 public:
  /// true
  static constexpr bool is_specialized = true;
  /// false only for unsigned formats (e8m0fnu)
  static constexpr bool is_signed = F::is_signed;
  /// false
  static constexpr bool is_integer = false;
  /// false
  static constexpr bool is_exact = false;
  /// whether the format encodes infinity (not fn, fnuz, MX)
  static constexpr bool has_infinity = F::has_infinity;
  /// whether the format encodes NaN
  static constexpr bool has_quiet_NaN = F::has_nan;
  /// IEEE-encoded formats with >= 2 mantissa bits
  static constexpr bool has_signaling_NaN = F::enc == mixprec::encoding::ieee && F::mantissa_bits >= 2;
  /// denorm_present where the format has subnormals
  static constexpr float_denorm_style has_denorm = F::has_subnormals ? denorm_present : denorm_absent;
  /// false
  static constexpr bool has_denorm_loss = false;
  /// round_to_nearest, the default of every conversion
  static constexpr float_round_style round_style = round_to_nearest;
  /// IEEE-encoded formats (half, bfloat16, tf32, e5m2, ...)
  static constexpr bool is_iec559 = F::enc == mixprec::encoding::ieee;
  /// true
  static constexpr bool is_bounded = true;
  /// false
  static constexpr bool is_modulo = false;
  /// significand bits, implicit bit included (half 11, bfloat16 8)
  static constexpr int digits = F::mantissa_bits + 1;
  /// decimal digits that survive a round trip: floor((digits-1) log10 2)
  static constexpr int digits10 = mixprec::detail::floor_log10_pow2(digits - 1);
  /// decimal digits that identify every value
  static constexpr int max_digits10 = 2 + mixprec::detail::floor_log10_pow2(digits);
  /// 2
  static constexpr int radix = 2;
  /// emin + 1 (min() == 2^(min_exponent-1))
  static constexpr int min_exponent = F::emin + 1;
  /// smallest k with 10^k normal
  static constexpr int min_exponent10 = -mixprec::detail::floor_log10_of_pow2_double(-F::emin);
  /// emax + 1
  static constexpr int max_exponent = F::emax + 1;
  /// floor(log10(max()))
  static constexpr int max_exponent10 =
      mixprec::detail::floor_log10(static_cast<double>(mixprec::detail::max_value<T>()));
  /// false
  static constexpr bool traps = false;
  /// false
  static constexpr bool tinyness_before = false;

  /// Smallest positive normal value, 2^emin.
  MIXPREC_HD static constexpr T min() noexcept { return mixprec::detail::pow2<T>(F::emin); }
  /// Most negative finite value, -max(); 2^emin for unsigned formats (e8m0fnu).
  MIXPREC_HD static constexpr T lowest() noexcept { return mixprec::detail::lowest_value<T>(); }
  /// Largest finite value.
  MIXPREC_HD static constexpr T max() noexcept { return mixprec::detail::max_value<T>(); }
  /// Distance from 1 to the next larger value, 2^-mantissa_bits.
  MIXPREC_HD static constexpr T epsilon() noexcept { return mixprec::finfo<T>::eps; }
  /// Largest rounding error in ulps under round-to-nearest: 0.5.
  MIXPREC_HD static constexpr T round_error() noexcept { return mixprec::detail::pow2<T>(-1); }
  /// +infinity; +0 where the format has no infinity.
  MIXPREC_HD static constexpr T infinity() noexcept { return mixprec::detail::infinity<T>(); }
  /// A quiet NaN; +0 where the format has no NaN.
  MIXPREC_HD static constexpr T quiet_NaN() noexcept { return mixprec::detail::quiet_nan<T>(); }
  /// A signalling NaN (quiet bit clear, payload 1) where has_signaling_NaN, +0 otherwise.
  MIXPREC_HD static constexpr T signaling_NaN() noexcept { return mixprec::detail::signaling_nan<T>(); }
  /// 2^(emin - mantissa_bits): the smallest positive subnormal (min() for formats without mantissa bits).
  MIXPREC_HD static constexpr T denorm_min() noexcept { return mixprec::detail::smallest_subnormal<T>(); }
};

}  // namespace std

#endif  // MIXPREC_LIMITS_HPP
