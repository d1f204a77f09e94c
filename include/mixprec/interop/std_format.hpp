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
#include <type_traits>

#include "../core/basic_float.hpp"
#include "../text/charconv.hpp"
#include "../text/detail/format_spec.hpp"
#include "../core/dtype.hpp"
#include "../core/finfo.hpp"

namespace mixprec {
namespace detail {

/// The float format spec as std::format parses it, and the writing of one value under it: the
/// work of std::formatter<basic_float<F>> and std::formatter<finfo<T>>.
template <class CharT>
class std_float_spec {
 public:
  /// Parses [[fill]align][sign][#][0][width][.precision][L][type]; std::format_error if invalid.
  template <class ParseContext>
  constexpr typename ParseContext::iterator parse(ParseContext& ctx) {
    return parse_float_format_spec(
        ctx.begin(), ctx.end(), spec_,
        [&ctx]() { return static_cast<long long>(ctx.next_arg_id()); },
        [&ctx](long long id) { ctx.check_arg_id(static_cast<std::size_t>(id)); },
        [](const char* message) { throw std::format_error(message); });
  }

  /// Writes x (float, double or a mixprec type) to out under the parsed spec (dynamic width and
  /// precision read from ctx's arguments); default_precision where the spec has no type and no
  /// precision (-1: the shortest round-trip text).
  template <class T, class Out, class FormatContext>
  Out write(Out out, T x, FormatContext& ctx, int default_precision = -1) const {
    const int width = spec_.width_arg >= 0 ? dynamic_value(ctx, spec_.width_arg) : spec_.width;
    int precision = spec_.precision_arg >= 0 ? dynamic_value(ctx, spec_.precision_arg) : spec_.precision;
    if (precision < 0 && spec_.precision_arg < 0 && spec_.type == '\0') precision = default_precision;
    return write_float_formatted(out, x, spec_, width, precision);
  }

 private:
  template <class FormatContext>
  static int dynamic_value(FormatContext& ctx, long long id) {
    auto get = [](auto v) -> int {
      using A = decltype(v);
      if constexpr (std::is_integral_v<A> && !std::is_same_v<A, bool> && !std::is_same_v<A, CharT>) {
        if constexpr (std::is_signed_v<A>) {
          if (v < 0) throw std::format_error("negative width or precision");
        }
        if (static_cast<unsigned long long>(v) > 2147483647ULL) throw std::format_error("width or precision too large");
        return static_cast<int>(v);
      } else {
        throw std::format_error("width or precision is not an integer");
      }
    };
#if __cpp_lib_format >= 202306L
    return ctx.arg(static_cast<std::size_t>(id)).visit(get);
#else
    return std::visit_format_arg(get, ctx.arg(static_cast<std::size_t>(id)));
#endif
  }

  float_format_spec<CharT> spec_;
};

}  // namespace detail
}  // namespace mixprec

namespace std {

/// std::formatter of a mixprec type: float's format spec; no type and no precision gives the
/// shortest round-trip text.
template <class F, class CharT>
struct formatter<mixprec::basic_float<F>, CharT> : mixprec::detail::std_float_spec<CharT> {
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
struct formatter<mixprec::finfo<T>, CharT> : mixprec::detail::std_float_spec<CharT> {
  /// Writes finfo(resolution=..., min=..., max=..., eps=..., smallest_normal=..., tiny=..., dtype=...).
  template <class FormatContext>
  typename FormatContext::iterator format(const mixprec::finfo<T>&, FormatContext& ctx) const {
    auto out = ctx.out();
    mixprec::detail::finfo_repr<T>(
        [&out](const char* s) {
          while (*s != '\0') *out++ = static_cast<CharT>(*s++);
        },
        [&](T v) { out = this->write(out, v, ctx, 6); });
    return out;
  }
};

}  // namespace std

#endif  // __cpp_lib_format
#endif  // MIXPREC_STD_FORMAT_HPP
