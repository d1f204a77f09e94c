// SPDX-License-Identifier: MIT
// mixprec/core/format_names.hpp — the built-in formats by name, at run time: ONE list of names and
// aliases for every tool that takes a format name (inspect, finfo, the explorer, Python).
//
// Contract: builtin_format_names lists the canonical names (finfo<T>::name) in the order of the
// Formats table, builtin_format_aliases the other accepted names, each naming exactly one format
// (case-sensitive; "e4m3" is float8_e4m3fn). canonical_format_name(name) gives the canonical name
// ("" for other text); visit_format(name, f) calls f(T{}) for the type named and returns true, or
// false without calling f. The table: docs/pages/teaching.md ("Format names").
//
//   mixprec::canonical_format_name("half");   // "float16"
//   mixprec::visit_format("bf16", [](auto t) { std::cout << mixprec::finfo<decltype(t)>::max; });
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

/// One other accepted name of a built-in format: alias names the format canonical.
struct format_alias {
  std::string_view alias;      ///< the other name ("half")
  std::string_view canonical;  ///< the format's name, one of builtin_format_names ("float16")
};

/// Every alias of a built-in format (see the table at the top of this header); no alias is a
/// canonical name or appears twice.
inline constexpr format_alias builtin_format_aliases[] = {
    {"half", "float16"},           {"binary16", "float16"},          {"fp16", "float16"},
    {"bf16", "bfloat16"},          {"tensorfloat32", "tf32"},        {"e4m3", "float8_e4m3fn"},
    {"e4m3fn", "float8_e4m3fn"},   {"fp8_e4m3", "float8_e4m3fn"},    {"e5m2", "float8_e5m2"},
    {"fp8_e5m2", "float8_e5m2"},   {"e4m3fnuz", "float8_e4m3fnuz"},  {"e5m2fnuz", "float8_e5m2fnuz"},
    {"e8m0", "float8_e8m0fnu"},    {"e8m0fnu", "float8_e8m0fnu"},    {"fp8_e8m0", "float8_e8m0fnu"},
    {"e2m3", "float6_e2m3fn"},     {"e2m3fn", "float6_e2m3fn"},      {"fp6_e2m3", "float6_e2m3fn"},
    {"e3m2", "float6_e3m2fn"},     {"e3m2fn", "float6_e3m2fn"},      {"fp6_e3m2", "float6_e3m2fn"},
    {"e2m1", "float4_e2m1fn"},     {"e2m1fn", "float4_e2m1fn"},      {"fp4_e2m1", "float4_e2m1fn"},
    {"e3m4", "float8_e3m4"},       {"ieee_e4m3", "float8_e4m3"},     {"e4m3b11fnuz", "float8_e4m3b11fnuz"},
    {"e1m2", "float4_e1m2"},       {"ue4m3", "float8_ue4m3"},        {"ue5m3", "float8_ue5m3"},
    {"float8_e5m3fnu", "float8_ue5m3"}};

/// The canonical name of the built-in format that name names (a canonical name or an alias);
/// an empty view for any other text. canonical_format_name("bf16") == "bfloat16".
constexpr std::string_view canonical_format_name(std::string_view name) noexcept {
  for (std::string_view n : builtin_format_names) {
    if (n == name) return n;
  }
  for (const format_alias& a : builtin_format_aliases) {
    if (a.alias == name) return a.canonical;
  }
  return {};
}

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

/// Calls f(T{}) for the built-in format that name (canonical or alias) names; false (f not
/// called) when it names none.
template <class Fn>
bool visit_format(std::string_view name, Fn&& f) {
  const std::string_view canonical = canonical_format_name(name);
  if (canonical.empty()) return false;
  return detail::visit_format_in<Fn, half, bfloat16, tf32, float8_e4m3fn, float8_e5m2, float8_e4m3fnuz,
                                 float8_e5m2fnuz, float8_e8m0fnu, float6_e2m3fn, float6_e3m2fn, float4_e2m1fn,
                                 float8_e3m4, float8_e4m3, float8_e4m3b11fnuz, float4_e1m2, float8_ue4m3,
                                 float8_ue5m3>(canonical, f);
}

}  // namespace mixprec

#endif  // MIXPREC_FORMAT_NAMES_HPP
