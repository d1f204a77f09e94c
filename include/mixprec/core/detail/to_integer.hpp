// SPDX-License-Identifier: MIT
// mixprec/core/detail/to_integer.hpp — exact values to integer types, without undefined behaviour.
#ifndef MIXPREC_DETAIL_TO_INTEGER_HPP
#define MIXPREC_DETAIL_TO_INTEGER_HPP

#include <cstdint>
#include <type_traits>

#include "codec.hpp"

namespace mixprec {
namespace detail {

/// The magnitude of the integer a finite non-zero u rounds to in mode. big: the magnitude is
/// 2^64 or more (mag is then meaningless).
MIXPREC_HD constexpr std::uint64_t integral_magnitude(const exact_value& u, rounding mode, std::uint32_t random_bits,
                                                      bool& big) noexcept {
  big = u.exp >= 64;
  if (u.exp >= 63) return u.sig;  // no fractional bits
  std::uint64_t ip = 0;
  std::uint64_t frac = 0;  // the fractional part, left-aligned: frac / 2^64
  bool sticky = false;     // non-zero bits below frac
  if (u.exp >= 0) {
    ip = u.sig >> (63 - u.exp);
    frac = u.sig << (u.exp + 1);
  } else {
    const int s = -u.exp - 1;  // frac = sig >> s
    frac = s >= 64 ? 0 : u.sig >> s;
    sticky = s >= 64 || (s > 0 && (u.sig << (64 - s)) != 0);
  }
  const bool half = (frac >> 63) != 0;
  const bool rest = (frac << 1) != 0 || sticky;
  bool up = false;
  switch (mode) {
    case rounding::nearest_even: up = half && (rest || (ip & 1u) != 0); break;
    case rounding::nearest_away: up = half; break;
    case rounding::toward_zero: break;
    case rounding::upward: up = !u.sign && (half || rest); break;
    case rounding::downward: up = u.sign && (half || rest); break;
    case rounding::to_odd: up = (half || rest) && (ip & 1u) == 0; break;
    case rounding::stochastic: up = (frac >> 32) + random_bits >= (std::uint64_t{1} << 32); break;
  }
  return ip + (up ? 1u : 0u);  // ip < 2^63: no wrap
}

/// The value of I nearest to (-1)^neg * mag (mag >= 2^64 when big).
template <class I>
MIXPREC_HD constexpr I saturate_integer(bool neg, std::uint64_t mag, bool big) noexcept {
  using U = std::make_unsigned_t<I>;
  constexpr std::uint64_t umax = static_cast<std::uint64_t>(static_cast<U>(~static_cast<U>(0)));
  constexpr std::uint64_t imax = std::is_signed<I>::value ? umax >> 1 : umax;
  if (mag == 0 && !big) return I(0);
  if (!neg) return big || mag > imax ? static_cast<I>(imax) : static_cast<I>(mag);
  if constexpr (std::is_signed<I>::value) {
    // |min| = imax + 1; -(mag - 1) - 1 does not overflow long long for mag <= 2^63.
    if (big || mag > imax + 1) mag = imax + 1;
    return static_cast<I>(-static_cast<long long>(mag - 1) - 1);
  } else {
    return I(0);
  }
}

/// u rounded in mode to the integer type I, saturating: values beyond I's range (and
/// infinities) give I's min or max, NaN gives 0. (With toward_zero, as CUDA's __float2int_rz
/// and Rust's `as`; the built-in float -> int conversion is undefined there.)
template <class I>
MIXPREC_HD constexpr I round_to_integer(const exact_value& u, rounding mode, std::uint32_t random_bits) noexcept {
  static_assert(std::is_integral<I>::value && !std::is_same<I, bool>::value, "integer type expected");
  switch (u.cls) {
    case value_class::nan:
    case value_class::zero: return I(0);
    case value_class::infinite: return saturate_integer<I>(u.sign, 0, true);
    case value_class::finite: break;
  }
  bool big = false;
  const std::uint64_t mag = integral_magnitude(u, mode, random_bits, big);
  return saturate_integer<I>(u.sign, mag, big);
}

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_TO_INTEGER_HPP
