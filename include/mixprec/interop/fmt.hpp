// SPDX-License-Identifier: MIT
// mixprec/interop/fmt.hpp — fmt::formatter for every mixprec type ({fmt}, https://fmt.dev).
//
// Contract: optional (it includes <fmt/format.h>; mixprec itself never needs {fmt}). The spec is
// the one {fmt} takes for float; no type and no precision print the shortest text that reads
// back; '#', the alignment of inf and nan, dtype and finfo as std_format.hpp. Every rule:
// docs/pages/printing.md ("Formatting: std::format and fmt::format").
//
//   fmt::format("{}", mixprec::half(0.1));     // "0.1"
//   fmt::format("{:.3e}", mixprec::half(0.1)); // "9.998e-02"
#ifndef MIXPREC_FMT_HPP
#define MIXPREC_FMT_HPP

#include <fmt/format.h>

#include <cstddef>
#include <string_view>

#include "../core/basic_float.hpp"
#include "../text/charconv.hpp"
#include "../text/detail/format_spec.hpp"
#include "../core/dtype.hpp"
#include "../core/finfo.hpp"

namespace mixprec {
namespace detail {

/// What fmt::formatter's float_spec_formatter needs from {fmt}.
struct fmt_api {
  static constexpr bool hex_prefix = true;  ///< 'a' and 'A' print "0x" / "0X", as {fmt} does for float
  static void fail(const char* message) { FMT_THROW(fmt::format_error(message)); }
  template <class ParseContext>
  static constexpr void check_arg_id(ParseContext& ctx, long long id) {
    ctx.check_arg_id(static_cast<int>(id));
  }
  template <class FormatContext, class Get>
  static int visit(FormatContext& ctx, long long id, Get get) {
#if FMT_VERSION >= 110000
    return ctx.arg(static_cast<int>(id)).visit(get);  // visit_format_arg is deprecated in {fmt} 11
#else
    return fmt::visit_format_arg(get, ctx.arg(static_cast<int>(id)));
#endif
  }
};

}  // namespace detail
}  // namespace mixprec

namespace fmt {

/// {fmt}'s formatter of a mixprec type: float's format spec; no type and no precision gives the
/// shortest round-trip text.
template <class F, class Char>
struct formatter<mixprec::basic_float<F>, Char>
    : mixprec::detail::float_spec_formatter<Char, mixprec::detail::fmt_api> {
  /// Writes x under the parsed spec (dynamic width/precision read from the arguments).
  template <class FormatContext>
  auto format(mixprec::basic_float<F> x, FormatContext& ctx) const -> decltype(ctx.out()) {
    return this->write(ctx.out(), x, ctx);
  }
};

/// {fmt}'s formatter of a dtype: its name(), with a string's format spec.
template <class Char>
struct formatter<mixprec::dtype, Char> : formatter<basic_string_view<Char>, Char> {
  /// Writes t.name() (ASCII, widened to Char) under the parsed spec.
  template <class FormatContext>
  auto format(mixprec::dtype t, FormatContext& ctx) const -> decltype(ctx.out()) {
    Char text[32] = {};  // names have at most 31 characters (detail::name_buffer)
    const std::string_view name = t.name();
    std::size_t n = 0;
    for (; n < name.size() && n < 32; ++n) text[n] = static_cast<Char>(name[n]);
    return formatter<basic_string_view<Char>, Char>::format(basic_string_view<Char>(text, n), ctx);
  }
};

/// {fmt}'s formatter of finfo<T>: torch.finfo's repr, each value under the float spec (no type
/// and no precision: precision 6, the text of operator<<).
template <class T, class Char>
struct formatter<mixprec::finfo<T>, Char> : mixprec::detail::float_spec_formatter<Char, mixprec::detail::fmt_api> {
  /// Writes finfo(resolution=..., min=..., max=..., eps=..., smallest_normal=..., tiny=..., dtype=...).
  template <class FormatContext>
  auto format(const mixprec::finfo<T>&, FormatContext& ctx) const -> decltype(ctx.out()) {
    return this->template write_finfo<T>(ctx);
  }
};

}  // namespace fmt

#endif  // MIXPREC_FMT_HPP
