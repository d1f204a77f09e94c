// SPDX-License-Identifier: MIT
// mixprec/interop/std_format.hpp — std::formatter for every mixprec type (C++20 <format>).
//
// Contract: optional (not included by mixprec.hpp); it declares nothing, silently, without
// __cpp_lib_format (libstdc++ 12 and older, libc++ 14-16: use fmt.hpp, operator<< or to_chars).
// The spec is float's; no type and no precision print the shortest text that reads back; dtype and
// finfo format too. Every rule: docs/pages/printing.md ("Formatting: std::format and fmt::format").
//
//   std::format("{}", mixprec::bfloat16(3.140625f))      // "3.14": shortest round trip
//   std::format("{:.5f}", mixprec::bfloat16(3.140625f))  // "3.14062"
#ifndef MIXPREC_STD_FORMAT_HPP
#define MIXPREC_STD_FORMAT_HPP

#if defined(__has_include) && __cplusplus >= 202002L
#if __has_include(<format>)
#include <format>
#endif
#endif

#if defined(__cpp_lib_format) && __cpp_lib_format >= 201907L

#include <cstddef>
#include <string_view>

#include "../core/basic_float.hpp"
#include "../text/charconv.hpp"
#include "../text/detail/format_spec.hpp"
#include "../core/dtype.hpp"
#include "../core/finfo.hpp"

namespace mixprec {
namespace detail {

/// What std::formatter's float_spec_formatter needs from <format>.
struct std_format_api {
  static constexpr bool hex_prefix = false;  ///< 'a' and 'A' print no "0x", as std::format for float
  static void fail(const char* message) { throw std::format_error(message); }
  template <class ParseContext>
  static constexpr void check_arg_id(ParseContext& ctx, long long id) {
    ctx.check_arg_id(static_cast<std::size_t>(id));
  }
  template <class FormatContext, class Get>
  static int visit(FormatContext& ctx, long long id, Get get) {
#if __cpp_lib_format >= 202306L
    return ctx.arg(static_cast<std::size_t>(id)).visit(get);
#else
    return std::visit_format_arg(get, ctx.arg(static_cast<std::size_t>(id)));
#endif
  }
};

}  // namespace detail
}  // namespace mixprec

namespace std {

/// std::formatter of a mixprec type: float's format spec; no type and no precision gives the
/// shortest round-trip text.
template <class F, class CharT>
struct formatter<mixprec::basic_float<F>, CharT>
    : mixprec::detail::float_spec_formatter<CharT, mixprec::detail::std_format_api> {
  /// Writes x under the parsed spec (dynamic width/precision read from the arguments).
  template <class FormatContext>
  typename FormatContext::iterator format(mixprec::basic_float<F> x, FormatContext& ctx) const {
    return this->write(ctx.out(), x, ctx);
  }
};

/// std::formatter of a dtype: its name(), with a string's format spec.
template <class CharT>
struct formatter<mixprec::dtype, CharT> : formatter<basic_string_view<CharT>, CharT> {
  /// Writes t.name() (ASCII, widened to CharT) under the parsed spec.
  template <class FormatContext>
  typename FormatContext::iterator format(mixprec::dtype t, FormatContext& ctx) const {
    CharT text[32] = {};  // names have at most 31 characters (detail::name_buffer)
    const string_view name = t.name();
    size_t n = 0;
    for (; n < name.size() && n < 32; ++n) text[n] = static_cast<CharT>(name[n]);
    return formatter<basic_string_view<CharT>, CharT>::format(basic_string_view<CharT>(text, n), ctx);
  }
};

/// std::formatter of finfo<T>: torch.finfo's repr, each value under the float spec (no type
/// and no precision: precision 6, the text of operator<<).
template <class T, class CharT>
struct formatter<mixprec::finfo<T>, CharT>
    : mixprec::detail::float_spec_formatter<CharT, mixprec::detail::std_format_api> {
  /// Writes finfo(resolution=..., min=..., max=..., eps=..., smallest_normal=..., tiny=..., dtype=...).
  template <class FormatContext>
  typename FormatContext::iterator format(const mixprec::finfo<T>&, FormatContext& ctx) const {
    return this->template write_finfo<T>(ctx);
  }
};

}  // namespace std

#endif  // __cpp_lib_format
#endif  // MIXPREC_STD_FORMAT_HPP
