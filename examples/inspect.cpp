// SPDX-License-Identifier: MIT
// inspect: how a number is stored in every format, or what a bit pattern means.
//
//   inspect 0.1                          0.1 in every built-in format: bits, stored value, error, ulp
//   inspect --format bfloat16 0.1        the full explanation for one format
//   inspect --format bfloat16 --bits 0x3f80
//   inspect --rounding toward_zero 0.1   another rounding mode (nearest_even, nearest_away,
//                                        toward_zero, upward, downward, to_odd)
//   inspect --saturate 1e400             overflow::saturate instead of overflow::ieee
//
// NUMBER is read as strtod reads it — decimal (1e-5, any number of digits), hex after 0x
// (0x1.8p1), inf/infinity/nan in any case, with a sign — and rounded ONCE from its exact value
// into each format (mixprec::explain<T>(std::string_view); never through double). Numbers
// beyond a format's range are explained: "overflow" / "underflow" and what the conversion gives.
// A bit pattern is --bits (0x3c01 as NUMBER is the hex number 15361).
//
// Run by CTest and meson test (see examples/CMakeLists.txt; CTest also matches the output
// against the example-test-regex line after a run):
// example-test-args: 0.1
// example-test-args: --format bfloat16 --rounding toward_zero 0.1
// example-test-args: --format float8_e4m3fn --bits 0x7e
// example-test-args: --format half 1.00048828125000000000000001
// example-test-regex: bits +0x3c01 
// example-test-args: --format half 1e400
// example-test-regex: range +overflow: positive.*round_to gives inf\n.*bits +0x7c00 
// example-test-args: --format half --rounding toward_zero -1e400
// example-test-regex: range +overflow: negative.*round_to gives -65504\n.*bits +0xfbff 
// example-test-args: --format half 1e-400
// example-test-regex: range +underflow: positive.*round_to gives 0\n.*bits +0x0 
// example-test-args: --format half -1e-400
// example-test-regex: range +underflow: negative.*round_to gives -0\n.*bits +0x8000 
// example-test-args: --format half -Inf
// example-test-regex: bits +0xfc00 
// example-test-args: --format bfloat16 -infinity
// example-test-regex: bits +0xff80 
// example-test-args: --format half 0x1.8p1
// example-test-regex: float16 value 3\n.*bits +0x4200 
// example-test-args: --format half -0X1P-24
// example-test-regex: bits +0x8001 
// example-test-args: 1e400
// example-test-regex: float16 +0x7c00 .*overflow
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>

#include <mixprec/explain.hpp>
#include <mixprec/mixprec.hpp>

namespace {

int usage(const char* argv0, const char* problem) {
  if (problem != nullptr) std::fprintf(stderr, "inspect: %s\n\n", problem);
  std::fprintf(stderr,
               "usage: %s [--format NAME] [--rounding MODE] [--saturate] NUMBER\n"
               "       %s --format NAME --bits PATTERN\n"
               "NAME: float16 (or half), bfloat16, tf32, float8_e4m3fn, float8_e5m2, float8_e4m3fnuz,\n"
               "      float8_e5m2fnuz, float8_e8m0fnu, float6_e2m3fn, float6_e3m2fn, float4_e2m1fn,\n"
               "      float8_e3m4, float8_e4m3, float8_e4m3b11fnuz, float4_e1m2, float8_ue4m3, float8_ue5m3\n"
               "      (without --format: the first eleven)\n"
               "MODE: nearest_even (default), nearest_away, toward_zero, upward, downward, to_odd\n"
               "NUMBER: as strtod reads it: decimal (1e-5), hex (0x1.8p1), inf, infinity, nan; signed\n"
               "PATTERN: hexadecimal (0x3f80) or binary (0b0011111110000000)\n",
               argv0, argv0);
  return 2;
}

bool parse_rounding(const std::string& s, mixprec::rounding& r) {
  using mixprec::rounding;
  const std::pair<const char*, rounding> names[] = {
      {"nearest_even", rounding::nearest_even}, {"nearest_away", rounding::nearest_away},
      {"toward_zero", rounding::toward_zero},   {"upward", rounding::upward},
      {"downward", rounding::downward},         {"to_odd", rounding::to_odd}};
  for (const auto& n : names) {
    if (s == n.first) {
      r = n.second;
      return true;
    }
  }
  return false;
}

bool parse_bits(const std::string& s, std::uint64_t& v) {
  int base = 16;
  std::size_t start = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    start = 2;
  } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
    start = 2;
    base = 2;
  } else {
    return false;
  }
  const char* first = s.data() + start;
  const char* last = s.data() + s.size();
  const auto r = std::from_chars(first, last, v, base);
  return r.ec == std::errc{} && r.ptr == last;
}

struct options {
  std::string format;
  std::string number;
  std::string bits;
  mixprec::rounding mode = mixprec::rounding::nearest_even;
  mixprec::overflow policy = mixprec::overflow::ieee;
};

/// Calls f(type_tag) for the format named name; false when the name is unknown.
template <class Fn>
bool with_format(const std::string& name, Fn f) {
  using namespace mixprec;
  if (name == "float16" || name == "half") return f(half{}), true;
  if (name == "bfloat16") return f(bfloat16{}), true;
  if (name == "tf32") return f(tf32{}), true;
  if (name == "float8_e4m3fn") return f(float8_e4m3fn{}), true;
  if (name == "float8_e5m2") return f(float8_e5m2{}), true;
  if (name == "float8_e4m3fnuz") return f(float8_e4m3fnuz{}), true;
  if (name == "float8_e5m2fnuz") return f(float8_e5m2fnuz{}), true;
  if (name == "float8_e8m0fnu") return f(float8_e8m0fnu{}), true;
  if (name == "float6_e2m3fn") return f(float6_e2m3fn{}), true;
  if (name == "float6_e3m2fn") return f(float6_e3m2fn{}), true;
  if (name == "float4_e2m1fn") return f(float4_e2m1fn{}), true;
  if (name == "float8_e3m4") return f(float8_e3m4{}), true;
  if (name == "float8_e4m3") return f(float8_e4m3{}), true;
  if (name == "float8_e4m3b11fnuz") return f(float8_e4m3b11fnuz{}), true;
  if (name == "float4_e1m2") return f(float4_e1m2{}), true;
  if (name == "float8_ue4m3") return f(float8_ue4m3{}), true;
  if (name == "float8_ue5m3") return f(float8_ue5m3{}), true;
  return false;
}

const char* const all_formats[] = {"tf32",          "float16",         "bfloat16",        "float8_e4m3fn",
                                   "float8_e5m2",   "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu",
                                   "float6_e2m3fn", "float6_e3m2fn",   "float4_e2m1fn"};

}  // namespace

int main(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* what) -> const char* {
      if (i + 1 >= argc) return nullptr;
      (void)what;
      return argv[++i];
    };
    if (a == "--help" || a == "-h") return usage(argv[0], nullptr), 0;
    if (a == "--format") {
      const char* v = value("format");
      if (v == nullptr) return usage(argv[0], "--format needs a name");
      o.format = v;
    } else if (a == "--bits") {
      const char* v = value("bits");
      if (v == nullptr) return usage(argv[0], "--bits needs a pattern");
      o.bits = v;
    } else if (a == "--rounding") {
      const char* v = value("rounding");
      if (v == nullptr || !parse_rounding(v, o.mode)) return usage(argv[0], "unknown rounding mode");
    } else if (a == "--saturate") {
      o.policy = mixprec::overflow::saturate;
    } else if (a.size() > 2 && a[0] == '-' && a[1] == '-') {  // "-1", "-inf", "-0x1p3" are numbers
      return usage(argv[0], ("unknown option " + a).c_str());
    } else if (o.number.empty()) {
      o.number = a;
    } else {
      return usage(argv[0], "give one number");
    }
  }
  if (!o.bits.empty()) {
    if (o.format.empty()) return usage(argv[0], "--bits needs --format");
    if (!o.number.empty()) return usage(argv[0], "give either a number or --bits");
    std::uint64_t b = 0;
    if (!parse_bits(o.bits, b)) return usage(argv[0], "bad bit pattern (use 0x... or 0b...)");
    bool fits = true;
    const bool known = with_format(o.format, [&](auto tag) {
      using T = decltype(tag);
      using F = typename T::format_type;
      if (b >> F::storage_bits != 0 || (b & mixprec::detail::low_mask(F::padding_bits)) != 0) {
        fits = false;
        return;
      }
      std::cout << mixprec::explain(T::from_bits(static_cast<typename T::storage_type>(b)));
    });
    if (!known) return usage(argv[0], ("unknown format " + o.format).c_str());
    if (!fits) return usage(argv[0], "the bit pattern does not fit the format");
    return 0;
  }
  if (o.number.empty()) return usage(argv[0], "nothing to inspect");
  try {
    (void)mixprec::explain<mixprec::half>(o.number, o.mode, o.policy);  // checks the text once
  } catch (const std::invalid_argument& e) {
    return usage(argv[0], e.what());
  }
  if (!o.format.empty()) {
    const bool known = with_format(o.format, [&](auto tag) {
      std::cout << mixprec::explain<decltype(tag)>(o.number, o.mode, o.policy);
    });
    if (!known) return usage(argv[0], ("unknown format " + o.format).c_str());
    return 0;
  }
  std::printf("%s stored in every format (rounding %s):\n\n", o.number.c_str(), mixprec::detail::rounding_name(o.mode));
  std::printf("%-16s %-12s %-28s %-12s %-12s %-24s %s\n", "format", "bits", "stored (exact)", "abs error", "ulps",
              "ulp", "range");
  for (const char* name : all_formats) {
    with_format(name, [&](auto tag) {
      using T = decltype(tag);
      const auto c = mixprec::explain<T>(o.number, o.mode, o.policy);
      char bits[24];
      std::snprintf(bits, sizeof bits, "0x%0*llx", (mixprec::float_traits<T>::format_type::storage_bits + 3) / 4,
                    static_cast<unsigned long long>(c.stored.bits));
      std::string exact = c.stored.exact;
      if (exact.size() > 28) exact = exact.substr(0, 25) + "...";
      const std::string range = c.range.substr(0, c.range.find(':'));  // "overflow", "underflow", ...
      std::printf("%-16s %-12s %-28s %-12.4g %-12.4g %-24s %s\n", name, bits, exact.c_str(), c.abs_error, c.ulp_error,
                  c.stored.ulp.c_str(), range.c_str());
    });
  }
  return 0;
}
