// SPDX-License-Identifier: MIT
// format_names.hpp: every built-in format and every alias resolves to the right type (its
// finfo<T>::name and layout, checked against a table written here by hand), no alias is ambiguous
// or a canonical name, and unknown names are refused. The tools' coverage of the same list is
// checked by example_format_names (examples/check_format_names.cmake).
#include <doctest/doctest.h>

#include <cstddef>
#include <iterator>
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include <mixprec/format_names.hpp>
#include <mixprec/mixprec.hpp>

namespace {

struct expected {
  const char* name;  // finfo<T>::name
  int bits, exponent_bits, mantissa_bits;
  bool is_signed;
  double max;        // the largest finite value (OCP / ml_dtypes tables)
};

// The 17 built-in formats, in the order of the Formats table (independent of format_names.hpp).
const expected formats[] = {
    {"float16", 16, 5, 10, true, 65504.0},
    {"bfloat16", 16, 8, 7, true, 0x1.fep127},
    {"tf32", 19, 8, 10, true, 0x1.ffcp127},
    {"float8_e4m3fn", 8, 4, 3, true, 448.0},
    {"float8_e5m2", 8, 5, 2, true, 57344.0},
    {"float8_e4m3fnuz", 8, 4, 3, true, 240.0},
    {"float8_e5m2fnuz", 8, 5, 2, true, 57344.0},
    {"float8_e8m0fnu", 8, 8, 0, false, 0x1p127},
    {"float6_e2m3fn", 6, 2, 3, true, 7.5},
    {"float6_e3m2fn", 6, 3, 2, true, 28.0},
    {"float4_e2m1fn", 4, 2, 1, true, 6.0},
    {"float8_e3m4", 8, 3, 4, true, 15.5},
    {"float8_e4m3", 8, 4, 3, true, 240.0},
    {"float8_e4m3b11fnuz", 8, 4, 3, true, 30.0},
    {"float4_e1m2", 4, 1, 2, true, 3.5},
    {"float8_ue4m3", 7, 4, 3, false, 448.0},
    {"float8_ue5m3", 8, 5, 3, false, 114688.0},
};

// Every alias and the format it names (the documented table at the top of format_names.hpp).
const std::pair<const char*, const char*> aliases[] = {
    {"half", "float16"},          {"binary16", "float16"},        {"fp16", "float16"},
    {"bf16", "bfloat16"},         {"tensorfloat32", "tf32"},      {"e4m3", "float8_e4m3fn"},
    {"e4m3fn", "float8_e4m3fn"},  {"fp8_e4m3", "float8_e4m3fn"},  {"e5m2", "float8_e5m2"},
    {"fp8_e5m2", "float8_e5m2"},  {"e4m3fnuz", "float8_e4m3fnuz"}, {"e5m2fnuz", "float8_e5m2fnuz"},
    {"e8m0", "float8_e8m0fnu"},   {"e8m0fnu", "float8_e8m0fnu"},  {"fp8_e8m0", "float8_e8m0fnu"},
    {"e2m3", "float6_e2m3fn"},    {"e2m3fn", "float6_e2m3fn"},    {"fp6_e2m3", "float6_e2m3fn"},
    {"e3m2", "float6_e3m2fn"},    {"e3m2fn", "float6_e3m2fn"},    {"fp6_e3m2", "float6_e3m2fn"},
    {"e2m1", "float4_e2m1fn"},    {"e2m1fn", "float4_e2m1fn"},    {"fp4_e2m1", "float4_e2m1fn"},
    {"e3m4", "float8_e3m4"},      {"ieee_e4m3", "float8_e4m3"},   {"e4m3b11fnuz", "float8_e4m3b11fnuz"},
    {"e1m2", "float4_e1m2"},      {"ue4m3", "float8_ue4m3"},      {"ue5m3", "float8_ue5m3"},
    {"float8_e5m3fnu", "float8_ue5m3"},
};

const expected* find(std::string_view name) {
  for (const expected& e : formats) {
    if (name == e.name) return &e;
  }
  return nullptr;
}

/// What visit_format(name) calls f with: finfo's name and the layout, or nothing.
struct seen {
  std::string name;
  int bits = 0, exponent_bits = 0, mantissa_bits = 0;
  bool is_signed = false;
  double max = 0;
  int calls = 0;
};

seen visit(std::string_view name) {
  seen s;
  const bool ok = mixprec::visit_format(name, [&](auto t) {
    using T = decltype(t);
    using F = typename T::format_type;
    s.name = mixprec::finfo<T>::name;
    s.bits = F::bits;
    s.exponent_bits = F::exponent_bits;
    s.mantissa_bits = F::mantissa_bits;
    s.is_signed = F::is_signed;
    s.max = static_cast<double>(std::numeric_limits<T>::max());
    ++s.calls;
  });
  CHECK(ok == (s.calls == 1));
  return s;
}

void check_resolves(std::string_view name, const expected& want) {
  CAPTURE(name);
  const seen s = visit(name);
  CHECK(s.calls == 1);
  CHECK(s.name == want.name);
  CHECK(s.bits == want.bits);
  CHECK(s.exponent_bits == want.exponent_bits);
  CHECK(s.mantissa_bits == want.mantissa_bits);
  CHECK(s.is_signed == want.is_signed);
  CHECK(s.max == want.max);
  CHECK(mixprec::canonical_format_name(name) == want.name);
}

}  // namespace

TEST_CASE("builtin_format_names: the 17 built-in formats, each visiting its own type") {
  CHECK(std::size(mixprec::builtin_format_names) == std::size(formats));
  for (std::size_t i = 0; i < std::size(formats) && i < std::size(mixprec::builtin_format_names); ++i) {
    CHECK(mixprec::builtin_format_names[i] == formats[i].name);  // the same order as the Formats table
  }
  for (const expected& e : formats) check_resolves(e.name, e);
}

TEST_CASE("builtin_format_aliases: each names one format, none is a canonical name or repeated") {
  CHECK(std::size(mixprec::builtin_format_aliases) == std::size(aliases));
  std::set<std::string_view> all;
  for (std::string_view n : mixprec::builtin_format_names) CHECK(all.insert(n).second);
  for (const mixprec::format_alias& a : mixprec::builtin_format_aliases) {
    CAPTURE(a.alias);
    CHECK(all.insert(a.alias).second);  // not a canonical name, not an alias twice
    CHECK(find(a.canonical) != nullptr);
  }
  for (const auto& a : aliases) {
    const expected* want = find(a.second);
    REQUIRE(want != nullptr);
    check_resolves(a.first, *want);
  }
}

TEST_CASE("unknown names: not visited, no canonical name") {
  for (const char* bad : {"", "float", "float8", "HALF", "Float16", "half ", " half", "float32", "float64", "fp8",
                          "e4m3fnx", "float8_e4m3fn_"}) {
    CAPTURE(bad);
    CHECK(visit(bad).calls == 0);
    CHECK(mixprec::canonical_format_name(bad).empty());
  }
  // A name with an embedded NUL is not the name before it.
  CHECK(mixprec::canonical_format_name(std::string_view("half\0x", 6)).empty());
}

TEST_CASE("canonical_format_name is a constant expression") {
  static_assert(mixprec::canonical_format_name("bf16") == "bfloat16");
  static_assert(mixprec::canonical_format_name("float8_e4m3fn") == "float8_e4m3fn");
  static_assert(mixprec::canonical_format_name("nope").empty());
  CHECK(mixprec::canonical_format_name("e4m3") == "float8_e4m3fn");  // OCP FP8 E4M3, not float8_e4m3
}
