// SPDX-License-Identifier: MIT
// mixprec/format_names.hpp — the built-in formats by name, at run time: a visitor for tools that
// take a format name from the command line, a web page or Python.
//
// visit_format(name, f) calls f(T{}) for the built-in type T with finfo<T>::name == name ("float16",
// "bfloat16", "float8_e4m3fn", ...) and returns true; false (f not called) for any other name.
// builtin_format_names lists the names, in the order of the Formats table.
//   mixprec::visit_format("bfloat16", [](auto t) { std::cout << mixprec::finfo<decltype(t)>::max; });
#ifndef MIXPREC_FORMAT_NAMES_HPP
#define MIXPREC_FORMAT_NAMES_HPP

#include <string_view>

#include "finfo.hpp"
#include "types.hpp"

namespace mixprec {

/// The names of the built-in formats (finfo<T>::name), in the order of the Formats table.
inline constexpr std::string_view builtin_format_names[] = {
    "float16",       "bfloat16",      "tf32",          "float8_e4m3fn", "float8_e5m2",        "float8_e4m3fnuz",
    "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn",   "float8_e3m4",
    "float8_e4m3",   "float8_e4m3b11fnuz", "float4_e1m2", "float8_ue4m3", "float8_ue5m3"};

namespace detail {
template <class Fn, class T, class... Rest>
bool visit_format_in(std::string_view name, Fn& f) {
  if (name == finfo<T>::name) {
    f(T{});
    return true;
  }
  if constexpr (sizeof...(Rest) == 0) {
    return false;
  } else {
    return visit_format_in<Fn, Rest...>(name, f);
  }
}
}  // namespace detail

/// Calls f(T{}) for the built-in format named name; false when no built-in format has that name.
template <class Fn>
bool visit_format(std::string_view name, Fn&& f) {
  return detail::visit_format_in<Fn, half, bfloat16, tf32, float8_e4m3fn, float8_e5m2, float8_e4m3fnuz,
                                 float8_e5m2fnuz, float8_e8m0fnu, float6_e2m3fn, float6_e3m2fn, float4_e2m1fn,
                                 float8_e3m4, float8_e4m3, float8_e4m3b11fnuz, float4_e1m2, float8_ue4m3,
                                 float8_ue5m3>(name, f);
}

}  // namespace mixprec

#endif  // MIXPREC_FORMAT_NAMES_HPP
