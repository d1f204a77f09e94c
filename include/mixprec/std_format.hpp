// SPDX-License-Identifier: MIT
// mixprec/std_format.hpp — std::formatter for every mixprec type (C++20 <format>).
//
// Optional: not included by mixprec.hpp. It needs C++20 and a standard library that defines
// __cpp_lib_format: libstdc++ 13 or later (g++ 13+), libc++ 19 (clang++ -stdlib=libc++; tested
// with clang 19, Debian packages clang-19 libc++-19-dev libc++abi-19-dev), MSVC 2019 16.10+.
// ELSEWHERE IT DECLARES NOTHING, SILENTLY: with g++ 12 or clang 14 on libstdc++ 12 (Debian 12's
// default toolchain), and with libc++ 14-16 (no __cpp_lib_format), std::format of a mixprec
// value does not compile; use mixprec/fmt.hpp ({fmt}), operator<< or to_chars there.
//   std::format("{}", mixprec::bfloat16(3.140625f))      // "3.14": shortest round trip
//   std::format("{:.5f}", mixprec::bfloat16(3.140625f))  // "3.14062"
//
// The format spec is that of float and double ([format.string.std]): [[fill]align][sign][#][0]
// [width][.precision][L][type], type one of a A e E f F g G. With no type and no precision the
// text is the shortest that reads back as the value (mixprec::to_chars(first, last, x)), never
// the shortest text of some wider type holding the same value; with a precision and no type it
// is %g. 'a' without a precision is the shortest hex text. 'L' is accepted but the text is not
// localized.
#ifndef MIXPREC_STD_FORMAT_HPP
#define MIXPREC_STD_FORMAT_HPP

#if defined(__has_include) && __cplusplus >= 202002L
#if __has_include(<format>)
#include <format>
#endif
#endif

#if defined(__cpp_lib_format) && __cpp_lib_format >= 201907L

#include <cstddef>
#include <type_traits>

#include "basic_float.hpp"
#include "charconv.hpp"

namespace std {

/// std::formatter of a mixprec type: float's format spec; no type and no precision gives the
/// shortest round-trip text.
template <class F, class CharT>
struct formatter<mixprec::basic_float<F>, CharT> {
  /// Parses [[fill]align][sign][#][0][width][.precision][L][type]; std::format_error if invalid.
  template <class ParseContext>
  constexpr typename ParseContext::iterator parse(ParseContext& ctx) {
    return mixprec::detail::parse_float_format_spec(
        ctx.begin(), ctx.end(), spec_,
        [&ctx]() { return static_cast<long long>(ctx.next_arg_id()); },
        [&ctx](long long id) { ctx.check_arg_id(static_cast<std::size_t>(id)); },
        [](const char* message) { throw std::format_error(message); });
  }

  /// Writes x under the parsed spec (dynamic width/precision read from the arguments).
  template <class FormatContext>
  typename FormatContext::iterator format(mixprec::basic_float<F> x, FormatContext& ctx) const {
    const int width = spec_.width_arg >= 0 ? dynamic_value(ctx, spec_.width_arg) : spec_.width;
    const int precision = spec_.precision_arg >= 0 ? dynamic_value(ctx, spec_.precision_arg) : spec_.precision;
    return mixprec::detail::write_float_formatted(ctx.out(), x, spec_, width, precision);
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

  mixprec::detail::float_format_spec<CharT> spec_;
};

}  // namespace std

#endif  // __cpp_lib_format
#endif  // MIXPREC_STD_FORMAT_HPP
