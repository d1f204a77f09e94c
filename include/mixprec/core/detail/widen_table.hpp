// SPDX-License-Identifier: MIT
// mixprec/core/detail/widen_table.hpp — a byte-sized format widened by table lookup (host only).
//
// What: widen_table<T, D>()[b] is static_cast<D>(the T whose storage byte is b), for every byte b:
// 256 values built once (thread-safe) by the scalar conversion, so a lookup gives its exact bits,
// NaN payloads included. Only where that conversion is exact (widen_table_exact<T, D>): T one byte,
// D float or double holding every value of T.
//   const float* t = detail::widen_table<float8_e4m3fn, float>();  // t[0x38] == 1.0f
#ifndef MIXPREC_DETAIL_WIDEN_TABLE_HPP
#define MIXPREC_DETAIL_WIDEN_TABLE_HPP

#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../basic_float.hpp"

namespace mixprec {
namespace detail {

template <class T, class D, class = void>
struct widen_table_exact_impl : std::false_type {};
template <class T, class D>
struct widen_table_exact_impl<T, D, std::enable_if_t<is_mixprec_float<T>::value>>
    : std::integral_constant<bool, sizeof(T) == 1 &&
                                       ((std::is_same<D, float>::value &&
                                         holds_all_values<typename T::format_type, float32_format>) ||
                                        (std::is_same<D, double>::value &&
                                         holds_all_values<typename T::format_type, float64_format>))> {};
/// Whether widen_table<T, D> exists: T is a one-byte mixprec type and D holds all its values.
template <class T, class D>
constexpr bool widen_table_exact = widen_table_exact_impl<T, D>::value;

/// The 256 values of T's storage bytes as D (see the top of this header).
template <class T, class D>
inline const D* widen_table() noexcept {
  static_assert(widen_table_exact<T, D>, "T must be one byte and D must hold its values");
  static const std::array<D, 256> table = [] {
    std::array<D, 256> t{};
    for (unsigned b = 0; b < 256; ++b) {
      const auto byte = static_cast<unsigned char>(b);
      T x;
      std::memcpy(&x, &byte, 1);
      t[b] = static_cast<D>(x);
    }
    return t;
  }();
  return table.data();
}

/// The storage byte of a one-byte T.
template <class T>
inline unsigned char byte_of(const T& x) noexcept {
  unsigned char b;
  std::memcpy(&b, &x, 1);
  return b;
}

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_WIDEN_TABLE_HPP
