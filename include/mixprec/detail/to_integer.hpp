// SPDX-License-Identifier: MIT
// mixprec/detail/to_integer.hpp — exact values to integer types, without undefined behaviour.
#ifndef MIXPREC_DETAIL_TO_INTEGER_HPP
#define MIXPREC_DETAIL_TO_INTEGER_HPP

#include <cstdint>
#include <limits>
#include <type_traits>

#include "convert.hpp"

namespace mixprec {
namespace detail {

/// x truncated toward zero to the integer type I, saturating: values beyond I's range (and
/// infinities) give I's min or max, NaN gives 0. (CUDA's __float2int_rz and Rust's `as` use the
/// same rule; the built-in float -> int conversion is undefined there.)
template <class I>
MIXPREC_HD constexpr I truncate_to_integer(const unpacked& u) noexcept {
  static_assert(std::is_integral<I>::value && !std::is_same<I, bool>::value, "integer type expected");
  constexpr int digits = std::numeric_limits<I>::digits;  // value bits: 31 for int, 32 for unsigned
  if (u.cls == value_class::nan || u.cls == value_class::zero) return I(0);
  if (u.sign && !std::is_signed<I>::value) return I(0);
  if (u.cls == value_class::infinite || u.exp >= digits) {
    return u.sign ? std::numeric_limits<I>::min() : std::numeric_limits<I>::max();
  }
  if (u.exp < 0) return I(0);
  const std::uint64_t mag = u.sig >> (63 - u.exp);  // < 2^digits <= 2^63 when signed
  if (u.sign) return static_cast<I>(-static_cast<std::int64_t>(mag));
  return static_cast<I>(mag);
}

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_TO_INTEGER_HPP
