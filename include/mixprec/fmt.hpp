// SPDX-License-Identifier: MIT
// mixprec/fmt.hpp — fmt::formatter for every mixprec type ({fmt}, https://fmt.dev).
//
// Optional: include it only where {fmt} is available (it includes <fmt/format.h>); mixprec
// itself never needs {fmt}. The format spec is the one {fmt} takes for float and double
// ([[fill]align][sign][#][0][width][.precision][L][type], type one of a A e E f F g G); with
// no type and no precision the text is the shortest that reads back as the value
// (mixprec::to_chars), with a precision and no type it is %g; 'a' prints "0x" as {fmt} does
// for double. '#' follows C (%#.4g of 1093 is "1093.", where {fmt} 9 prints "1093.0" for a
// double), and inf and nan are right-aligned by default like every number (as std::format;
// {fmt} 9 left-aligns them). 'L' is accepted but the text is not localized.
//
//   fmt::format("{}", mixprec::half(0.1));     // "0.1"
//   fmt::format("{:.3e}", mixprec::half(0.1)); // "9.998e-02"
#ifndef MIXPREC_FMT_HPP
#define MIXPREC_FMT_HPP

#include <fmt/format.h>

#include <type_traits>

#include "basic_float.hpp"
#include "charconv.hpp"

namespace fmt {

/// {fmt}'s formatter of a mixprec type: float's format spec; no type and no precision gives the
/// shortest round-trip text.
template <class F, class Char>
struct formatter<mixprec::basic_float<F>, Char> {
  /// Parses [[fill]align][sign][#][0][width][.precision][L][type]; fmt::format_error if invalid.
  template <class ParseContext>
  FMT_CONSTEXPR auto parse(ParseContext& ctx) -> decltype(ctx.begin()) {
    return mixprec::detail::parse_float_format_spec(
        ctx.begin(), ctx.end(), spec_,
        [&ctx]() { return static_cast<long long>(ctx.next_arg_id()); },
        [&ctx](long long id) { ctx.check_arg_id(static_cast<int>(id)); },
        [](const char* message) { FMT_THROW(fmt::format_error(message)); });
  }

  /// Writes x under the parsed spec (dynamic width/precision read from the arguments).
  template <class FormatContext>
  auto format(mixprec::basic_float<F> x, FormatContext& ctx) const -> decltype(ctx.out()) {
    const int width = spec_.width_arg >= 0 ? dynamic_value(ctx, spec_.width_arg) : spec_.width;
    const int precision = spec_.precision_arg >= 0 ? dynamic_value(ctx, spec_.precision_arg) : spec_.precision;
    return mixprec::detail::write_float_formatted(ctx.out(), x, spec_, width, precision, /*hex_prefix=*/true);
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

  mixprec::detail::float_format_spec<Char> spec_;
};

}  // namespace fmt

#endif  // MIXPREC_FMT_HPP
