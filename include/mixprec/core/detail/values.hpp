// SPDX-License-Identifier: MIT
// mixprec/core/detail/values.hpp — named values of a format (powers of two, max, NaN, ...) as any
// float-like type T (float, double or a mixprec type).
#ifndef MIXPREC_DETAIL_VALUES_HPP
#define MIXPREC_DETAIL_VALUES_HPP

#include <cstdint>

#include "../basic_float.hpp"

namespace mixprec {
namespace detail {

template <class T>
using format_of = typename float_traits<T>::format_type;

/// The value of T whose code (bit pattern without padding) is code.
template <class T>
MIXPREC_HD constexpr T from_code(std::uint64_t code) noexcept {
  return float_traits<T>::from_bits(storage_of<format_of<T>>(code));
}

/// 2^k rounded to T (exact where representable).
template <class T>
MIXPREC_HD constexpr T pow2(int k) noexcept {
  return float_traits<T>::from_bits(encode_bits<format_of<T>>(
      exact_value{value_class::finite, false, false, k, std::uint64_t{1} << 63}, rounding::nearest_even,
      overflow::ieee));
}

template <class T>
MIXPREC_HD constexpr T max_value() noexcept {
  return from_code<T>(format_of<T>::max_code);
}
/// -max for signed formats; the smallest value for unsigned ones (0, or 2^-127 for e8m0fnu).
template <class T>
MIXPREC_HD constexpr T lowest_value() noexcept {
  using F = format_of<T>;
  return F::is_signed ? from_code<T>(F::sign_mask | F::max_code) : F::has_zero ? from_code<T>(0) : pow2<T>(F::emin);
}
template <class T>
MIXPREC_HD constexpr T smallest_subnormal() noexcept {
  return pow2<T>(format_of<T>::qmin);
}
/// The positive quiet NaN (+0 for formats without NaN).
template <class T>
MIXPREC_HD constexpr T quiet_nan() noexcept {
  using F = format_of<T>;
  if constexpr (!F::has_nan) {
    return from_code<T>(0);
  } else {
    return from_code<T>(nan_code(F{}, exact_value{value_class::nan, false, true, 0, 0}));
  }
}
/// The positive signaling NaN with the lowest payload 1 (+0 where the format has none).
template <class T>
MIXPREC_HD constexpr T signaling_nan() noexcept {
  using F = format_of<T>;
  if constexpr (F::enc == encoding::ieee && F::mantissa_bits >= 2) {
    return from_code<T>((F::exponent_field_max << F::mantissa_bits) | 1u);
  } else {
    return from_code<T>(0);
  }
}
template <class T>
MIXPREC_HD constexpr T infinity() noexcept {
  using F = format_of<T>;
  return F::has_infinity ? from_code<T>(F::exponent_field_max << F::mantissa_bits) : from_code<T>(0);
}
/// The code of 1.0.
template <class F>
MIXPREC_HD constexpr std::uint64_t one_code() noexcept {
  return encode_bits<F>(exact_value{value_class::finite, false, false, 0, std::uint64_t{1} << 63},
                 rounding::nearest_even, overflow::ieee) >>
         F::padding_bits;
}
/// The exponent of a power of two given by its code.
template <class F>
MIXPREC_HD constexpr int exponent_of_code(std::uint64_t code) noexcept {
  return decode_bits<F>(storage_of<F>(code)).exp;
}

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_VALUES_HPP
