// SPDX-License-Identifier: MIT
// mixprec/text/charconv.hpp — to_chars and from_chars for every mixprec type (and for float and
// double, through float_traits).
//
//   to_chars(first, last, x[, fmt[, precision]])                 as std::to_chars
//   from_chars(first, last, x[, fmt])                            as std::from_chars
//   from_chars(first, last, x, rounding[, overflow][, fmt])      in any mode but stochastic
//
// Contract: to_chars prints std::to_chars's spelling; without a precision, the shortest text that
// from_chars reads back (the nearest to x among those), with one, printf's text of the exact value;
// a short buffer gives {last, errc::value_too_large} and writes nothing. from_chars accepts
// std::from_chars's grammar and rounds text of any length ONCE from its exact value; malformed
// text is errc::invalid_argument, overflow, underflow to zero or a value the format lacks is
// errc::result_out_of_range (overflow::saturate clamps instead), the value unchanged on error.
// Every rule (shortest, hex layout, out of range): docs/pages/printing.md#to_chars-and-from_chars.
//
//   char buf[32];
//   auto r = mixprec::to_chars(buf, buf + 32, mixprec::bfloat16(0.1f));   // "0.1"
//   mixprec::half h;
//   mixprec::from_chars(buf, r.ptr, h);                                  // h = half(0.1), rounded once
#ifndef MIXPREC_CHARCONV_HPP
#define MIXPREC_CHARCONV_HPP

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>
#include <type_traits>

#include "../core/basic_float.hpp"
#include "../core/detail/codec.hpp"
#include "../core/detail/values.hpp"
#include "../core/format.hpp"
#include "../core/rounding.hpp"
#include "detail/decimal.hpp"
#include "detail/parse.hpp"
#include "detail/print.hpp"

namespace mixprec {
namespace detail {

template <class T>
inline std::to_chars_result to_chars_impl(char* first, char* last, T value, float_style style, int precision,
                                          bool alt = false) noexcept {
  using F = typename float_traits<T>::format_type;
  const number_info n = describe(F{}, code_of<F>(float_traits<T>::to_bits(value)));
  text_buffer t;
  emit_number(t, n, style, precision, alt);
  return commit(first, last, t);
}

inline float_style style_of(std::chars_format fmt) noexcept {
  if (fmt == std::chars_format::fixed) return float_style::fixed;
  if (fmt == std::chars_format::scientific) return float_style::scientific;
  if (fmt == std::chars_format::hex) return float_style::hex;
  return float_style::general;
}

/// Text options for the formatters (std::format, {fmt}, iostreams).
struct float_text_options {
  float_style style = float_style::plain;
  int precision = -1;  // < 0: none (shortest, or 6 where printf defaults to 6)
  bool alt = false;    // '#'
  bool upper = false;  // 'E', 'F', 'G', 'A': upper-case letters
  char plus = '\0';    // '+' or ' ' before non-negative values
};

/// The text of value under the formatter options (ASCII; no padding).
template <class T>
inline std::string float_text(T value, const float_text_options& o) {
  using F = typename float_traits<T>::format_type;
  const number_info n = describe(F{}, code_of<F>(float_traits<T>::to_bits(value)));
  text_buffer t;
  emit_number(t, n, o.style, o.precision, o.alt);
  std::string s;
  s.reserve(t.head_len + t.zeros + t.tail_len + 1);
  if (o.plus != '\0' && !n.negative) s.push_back(o.plus);
  s.append(t.head, t.head_len);
  s.append(t.zeros, '0');
  s.append(t.tail, t.tail_len);
  if (o.upper) {
    for (char& c : s) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    }
  }
  return s;
}

/// Enables the charconv functions for float, double and every mixprec type.
template <class T>
using enable_if_charconv_t = std::enable_if_t<is_binary_float<T>::value, int>;

}  // namespace detail

/// The shortest text that from_chars reads back as value: fixed or scientific, whichever is
/// shorter (fixed on a tie), as std::to_chars(first, last, value).
template <class T, detail::enable_if_charconv_t<T> = 0>
std::to_chars_result to_chars(char* first, char* last, T value) noexcept {
  return detail::to_chars_impl(first, last, value, detail::float_style::plain, -1);
}

/// The shortest text in the style fmt that reads back as value, as std::to_chars(first, last,
/// value, fmt) (hex: the stored mantissa without trailing zero digits).
template <class T, detail::enable_if_charconv_t<T> = 0>
std::to_chars_result to_chars(char* first, char* last, T value, std::chars_format fmt) noexcept {
  return detail::to_chars_impl(first, last, value, detail::style_of(fmt), -1);
}

/// printf's %.Pf / e / g / a text, P = precision (hex without "0x"), of the exact value, ties to
/// even, as std::to_chars(first, last, value, fmt, precision). A negative precision means 6
/// (for hex: the shortest text).
template <class T, detail::enable_if_charconv_t<T> = 0>
std::to_chars_result to_chars(char* first, char* last, T value, std::chars_format fmt, int precision) noexcept {
  const detail::float_style style = detail::style_of(fmt);
  if (precision < 0 && style != detail::float_style::hex) precision = 6;
  return detail::to_chars_impl(first, last, value, style, precision);
}

/// Reads a number in the grammar of std::from_chars and rounds its exact value once, in mode,
/// to T. Out of range (errc::result_out_of_range, value unchanged): overflow under overflow::ieee
/// in every mode and format, and a non-zero value that rounds to zero; overflow::saturate gives
/// +-max instead. rounding::stochastic and invalid mode or policy values are
/// errc::invalid_argument. Every rule: docs/pages/printing.md ("Parsing").
template <class T, detail::enable_if_charconv_t<T> = 0>
std::from_chars_result from_chars(const char* first, const char* last, T& value, rounding mode,
                                  overflow policy = overflow::ieee,
                                  std::chars_format fmt = std::chars_format::general) noexcept {
  if (mode == rounding::stochastic || !is_valid(mode) || !is_valid(policy)) return {first, std::errc::invalid_argument};
  detail::exact_value u{};
  const char* end = first;
  if (!detail::scan_float(first, last, fmt, u, end)) return {first, std::errc::invalid_argument};
  using F = typename float_traits<T>::format_type;
  const detail::parse_rounding r = detail::round_parsed(F{}, u, mode, policy);
  if (!r.ok) return {end, std::errc::result_out_of_range};
  value = float_traits<T>::from_bits(detail::storage_of<F>(r.code));
  return {end, std::errc{}};
}

/// from_chars(first, last, value, mode, overflow::ieee, fmt).
template <class T, detail::enable_if_charconv_t<T> = 0>
std::from_chars_result from_chars(const char* first, const char* last, T& value, rounding mode,
                                  std::chars_format fmt) noexcept {
  return from_chars(first, last, value, mode, overflow::ieee, fmt);
}

/// As std::from_chars: correctly rounded (nearest-even) from the exact value of the text.
template <class T, detail::enable_if_charconv_t<T> = 0>
std::from_chars_result from_chars(const char* first, const char* last, T& value,
                                  std::chars_format fmt = std::chars_format::general) noexcept {
  return from_chars(first, last, value, rounding::nearest_even, overflow::ieee, fmt);
}

}  // namespace mixprec

#endif  // MIXPREC_CHARCONV_HPP
