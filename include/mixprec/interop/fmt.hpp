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
#include <type_traits>

#include "../core/basic_float.hpp"
#include "../text/charconv.hpp"
#include "../text/detail/format_spec.hpp"
#include "../core/dtype.hpp"
#include "../core/finfo.hpp"

namespace mixprec {
namespace detail {

/// The float format spec as {fmt} parses it, and the writing of one value under it: the work
/// of fmt::formatter<basic_float<F>> and fmt::formatter<finfo<T>>.
template <class Char>
class fmt_float_spec {
 public:
  /// Parses [[fill]align][sign][#][0][width][.precision][L][type]; fmt::format_error if invalid.
  template <class ParseContext>
  FMT_CONSTEXPR auto parse(ParseContext& ctx) -> decltype(ctx.begin()) {
    return parse_float_format_spec(
        ctx.begin(), ctx.end(), spec_,
        [&ctx]() { return static_cast<long long>(ctx.next_arg_id()); },
        [&ctx](long long id) { ctx.check_arg_id(static_cast<int>(id)); },
        [](const char* message) { FMT_THROW(fmt::format_error(message)); });
  }

  /// Writes x (float, double or a mixprec type) to out under the parsed spec (dynamic width and
  /// precision read from ctx's arguments); default_precision where the spec has no type and no
  /// precision (-1: the shortest round-trip text).
  template <class T, class Out, class FormatContext>
  Out write(Out out, T x, FormatContext& ctx, int default_precision = -1) const {
    const int width = spec_.width_arg >= 0 ? dynamic_value(ctx, spec_.width_arg) : spec_.width;
    int precision = spec_.precision_arg >= 0 ? dynamic_value(ctx, spec_.precision_arg) : spec_.precision;
    if (precision < 0 && spec_.precision_arg < 0 && spec_.type == '\0') precision = default_precision;
    return write_float_formatted(out, x, spec_, width, precision, /*hex_prefix=*/true);
  }

 private:
  template <class FormatContext>
  static int dynamic_value(FormatContext& ctx, long long id) {
    auto get = [](auto v) -> int {
      using A = decltype(v);
      if constexpr (std::is_integral<A>::value && !std::is_same<A, bool>::value && !std::is_same<A, Char>::value) {
        if constexpr (std::is_signed<A>::value) {
          if (v < 0) FMT_THROW(fmt::format_error("negative width or precision"));
        }
        if (static_cast<unsigned long long>(v) > 2147483647ULL) {
          FMT_THROW(fmt::format_error("width or precision too large"));
        }
        return static_cast<int>(v);
      } else {
        FMT_THROW(fmt::format_error("width or precision is not an integer"));
        return 0;
      }
    };
#if FMT_VERSION >= 110000
    return ctx.arg(static_cast<int>(id)).visit(get);  // visit_format_arg is deprecated in {fmt} 11
#else
    return fmt::visit_format_arg(get, ctx.arg(static_cast<int>(id)));
#endif
  }

  float_format_spec<Char> spec_;
};

}  // namespace detail
}  // namespace mixprec

namespace fmt {

/// {fmt}'s formatter of a mixprec type: float's format spec; no type and no precision gives the
/// shortest round-trip text.
template <class F, class Char>
struct formatter<mixprec::basic_float<F>, Char> : mixprec::detail::fmt_float_spec<Char> {
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
struct formatter<mixprec::finfo<T>, Char> : mixprec::detail::fmt_float_spec<Char> {
  /// Writes finfo(resolution=..., min=..., max=..., eps=..., smallest_normal=..., tiny=..., dtype=...).
  template <class FormatContext>
  auto format(const mixprec::finfo<T>&, FormatContext& ctx) const -> decltype(ctx.out()) {
    auto out = ctx.out();
    mixprec::detail::finfo_repr<T>(
        [&out](const char* s) {
          while (*s != '\0') *out++ = static_cast<Char>(*s++);
        },
        [&](T v) { out = this->write(out, v, ctx, 6); });
    return out;
  }
};

}  // namespace fmt

#endif  // MIXPREC_FMT_HPP
