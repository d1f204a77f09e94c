// SPDX-License-Identifier: MIT
// inspect: how a number is stored in every format, or what a bit pattern means.
//
//   inspect 0.1                          0.1 in every built-in format: bits, stored value, error, ulp
//   inspect --format bfloat16 0.1        the full explanation for one format (bf16, half, e4m3, ...:
//                                        the aliases of mixprec/format_names.hpp work everywhere)
//   inspect --format bfloat16 --bits 0x3f80
//   inspect --rounding toward_zero 0.1   another rounding mode (nearest_even, nearest_away,
//                                        toward_zero, upward, downward, to_odd)
//   inspect --overflow saturate 1e400    overflow::saturate instead of ieee (--saturate: the same)
//   inspect --all-modes --format half 0.1   the number under every rounding mode, side by side
//   inspect --list float4_e2m1fn         every value of a format of 8 bits or fewer (table);
//   inspect --list float4_e2m1fn --svg line.svg   ... and a number line drawn as SVG
//   inspect --list-formats               the formats covered, one a line: the name, then its aliases
//
// The table of all formats (all built-in ones, mixprec::builtin_format_names) ends with a one-line
// "why" for NaN, infinity, clamping and underflow; a sentence that states a value states it
// exactly (mixprec::exact_value_text: "0.125", "5.9604644775390625e-08 (about 6e-08)").
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
// example-test-regex: float16 +0x7c00 .*overflow: .*rounds away from zero: inf
// example-test-args: --overflow saturate 1e400
// example-test-regex: float8_e4m3fn +0x7e .*clamped to 448 \(overflow::saturate\)
// example-test-args: 1e-9
// example-test-regex: float16 +0x0000 .*underflow: .x. is below the smallest non-zero value 5.9604644775390625e-08 \(about 6e-08\) and rounds to 0
// example-test-args: --format float6_e2m3fn 0.1
// example-test-regex: why +underflow: .x. is below the smallest non-zero value 0.125 and rounds up to it\nfloat6_e2m3fn value 0.125\n
// example-test-args: --format half 1e400
// example-test-regex: error +infinite absolute, infinite relative, infinite ulp\n
// example-test-args: --format e4m3 nan
// example-test-regex: float8_e4m3fn value nan\n(.|\n)*undefined \(NaN\) relative
// example-test-args: 1
// example-test-regex: float8_ue5m3 +0x78 
// example-test-args: --all-modes --format half 0.1
// example-test-regex: upward +0x2e67 .*\n.*downward +0x2e66 
// example-test-args: --list float4_e2m1fn
// example-test-regex: 0x7 +6 +normal\n
// example-test-args: --list float8_e4m3fn
// example-test-regex: 0x7f +nan +NaN\n
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <limits>
#include <string>
#include <vector>

#include <mixprec/explain.hpp>
#include <mixprec/format_names.hpp>
#include <mixprec/mixprec.hpp>

namespace {

int usage(const char* argv0, const char* problem) {
  if (problem != nullptr) std::fprintf(stderr, "inspect: %s\n\n", problem);
  std::fprintf(stderr,
               "usage: %s [--format NAME] [--rounding MODE] [--overflow ieee|saturate] [--all-modes] NUMBER\n"
               "       %s --format NAME --bits PATTERN\n"
               "       inspect --list NAME [--svg PATH]   (formats of 8 bits or fewer)\n"
               "       inspect --list-formats             (every NAME, with its aliases)\n"
               "NAME (without --format: all of them):\n",
               argv0, argv0);
  for (std::string_view name : mixprec::builtin_format_names) {
    std::string line = "      " + std::string(name);
    const char* sep = " (or ";
    for (const auto& a : mixprec::builtin_format_aliases) {
      if (a.canonical == name) line += sep + std::string(a.alias), sep = ", ";
    }
    if (*sep == ',') line += ")";
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fprintf(stderr,
               "MODE: nearest_even (default), nearest_away, toward_zero, upward, downward, to_odd\n"
               "NUMBER: as strtod reads it: decimal (1e-5), hex (0x1.8p1), inf, infinity, nan; signed\n"
               "PATTERN: hexadecimal (0x3f80) or binary (0b0011111110000000)\n");
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
  bool all_modes = false;
  std::string list;  // --list NAME
  std::string svg;   // --svg PATH (with --list)
};

const mixprec::rounding deterministic_modes[] = {
    mixprec::rounding::nearest_even, mixprec::rounding::nearest_away, mixprec::rounding::toward_zero,
    mixprec::rounding::upward,       mixprec::rounding::downward,     mixprec::rounding::to_odd};

/// Every value of T (8 bits or fewer) as a table; with svg, a number line of the finite values.
template <class T>
int list_values(const std::string& name, const std::string& svg) {
  using F = typename T::format_type;
  if (F::storage_bits > 8) return std::fprintf(stderr, "inspect: --list takes formats of 8 bits or fewer\n"), 2;
  const unsigned codes = 1u << (F::storage_bits > 8 ? 0 : F::storage_bits);
  std::printf("every value of %s (%u codes)\n%-6s %-24s %s\n", name.c_str(), codes, "bits", "value", "class");
  std::vector<double> finite;
  for (unsigned b = 0; b < codes; ++b) {
    const T x = T::from_bits(static_cast<typename T::storage_type>(b));  // formats of <= 8 bits have no padding
    const auto e = mixprec::explain(x);
    std::printf("0x%-4x %-24s %s\n", b, e.exact.c_str(), e.kind.c_str());
    if (e.kind != "NaN" && e.kind != "infinity") finite.push_back(static_cast<double>(x));
  }
  if (svg.empty()) return 0;
  std::sort(finite.begin(), finite.end());
  finite.erase(std::unique(finite.begin(), finite.end()), finite.end());
  const double lo = finite.front(), hi = finite.back();
  const double w = 1000, left = 40, right = 40;
  std::FILE* f = std::fopen(svg.c_str(), "w");
  if (f == nullptr) return std::fprintf(stderr, "inspect: cannot write %s\n", svg.c_str()), 1;
  std::fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%g' height='140' font-family='sans-serif' "
               "font-size='11'>\n<text x='%g' y='18'>%s: the %zu finite values on a linear axis</text>\n"
               "<line x1='%g' y1='70' x2='%g' y2='70' stroke='black'/>\n",
               w + left + right, left, name.c_str(), finite.size(), left, left + w);
  for (double v : finite) {
    const double x = hi > lo ? left + w * (v - lo) / (hi - lo) : left + w / 2;
    std::fprintf(f, "<line x1='%.2f' y1='60' x2='%.2f' y2='80' stroke='%s'/>\n", x, x, std::fpclassify(v) == FP_ZERO ? "red" : "steelblue");
  }
  const double labels[] = {lo, 0.0, hi};
  const char* const anchors[] = {"start", "middle", "end"};  // long exact labels stay inside
  for (int k = 0; k < 3; ++k) {
    const double v = labels[k];
    const double x = hi > lo ? left + w * (v - lo) / (hi - lo) : left + w / 2;
    // v is a value of T (or the axis' 0): its exact text, with T's shortest text beside it when long
    const std::string label = std::fpclassify(v) == FP_ZERO ? "0" : mixprec::exact_value_text(mixprec::round_to<T>(v));
    std::fprintf(f, "<text x='%.2f' y='%d' text-anchor='%s'>%s</text>\n", x, 100 + 14 * (k % 2), anchors[k],
                 label.c_str());
  }
  std::fprintf(f, "</svg>\n");
  const bool ok = std::fclose(f) == 0;
  std::fprintf(stderr, "number line: %s\n", svg.c_str());
  return ok ? 0 : 1;
}

/// Calls f(T{}) for the built-in format named name (or an alias); false when the name is unknown.
template <class Fn>
bool with_format(const std::string& name, Fn f) {
  return mixprec::visit_format(name, f);
}

/// The canonical name of a format named by name or an alias (for headings).
std::string canonical(const std::string& name) { return std::string(mixprec::canonical_format_name(name)); }

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
    } else if (a == "--overflow") {
      const char* v = value("overflow");
      const std::string p = v == nullptr ? "" : v;
      if (p == "ieee") {
        o.policy = mixprec::overflow::ieee;
      } else if (p == "saturate") {
        o.policy = mixprec::overflow::saturate;
      } else {
        return usage(argv[0], "--overflow takes ieee or saturate");
      }
    } else if (a == "--list-formats") {
      for (std::string_view name : mixprec::builtin_format_names) {
        std::printf("%.*s", static_cast<int>(name.size()), name.data());
        for (const auto& al : mixprec::builtin_format_aliases) {
          if (al.canonical == name) std::printf(" %.*s", static_cast<int>(al.alias.size()), al.alias.data());
        }
        std::printf("\n");
      }
      return 0;
    } else if (a == "--all-modes") {
      o.all_modes = true;
    } else if (a == "--list") {
      const char* v = value("list");
      if (v == nullptr) return usage(argv[0], "--list needs a format name");
      o.list = v;
    } else if (a == "--svg") {
      const char* v = value("svg");
      if (v == nullptr) return usage(argv[0], "--svg needs a path");
      o.svg = v;
    } else if (a.size() > 2 && a[0] == '-' && a[1] == '-') {  // "-1", "-inf", "-0x1p3" are numbers
      return usage(argv[0], ("unknown option " + a).c_str());
    } else if (o.number.empty()) {
      o.number = a;
    } else {
      return usage(argv[0], "give one number");
    }
  }
  if (!o.svg.empty() && o.list.empty()) return usage(argv[0], "--svg goes with --list");
  if (!o.list.empty()) {
    if (!o.number.empty() || !o.bits.empty()) return usage(argv[0], "--list takes no number or bits");
    int rc = 0;
    if (!with_format(o.list, [&](auto tag) { rc = list_values<decltype(tag)>(canonical(o.list), o.svg); })) {
      return usage(argv[0], ("unknown format " + o.list).c_str());
    }
    return rc;
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
      if (b >> F::storage_bits != 0 || (b & ((std::uint64_t{1} << F::padding_bits) - 1)) != 0) {
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
  if (o.all_modes) {
    if (o.format.empty()) return usage(argv[0], "--all-modes needs --format");
    const bool known = with_format(o.format, [&](auto tag) {
      using T = decltype(tag);
      std::printf("%s in %s under every rounding mode (overflow::%s):\n\n", o.number.c_str(), canonical(o.format).c_str(),
                  mixprec::to_string(o.policy));
      std::printf("%-13s %-12s %-28s %-12s %-10s %s\n", "mode", "bits", "stored (exact)", "abs error", "ulps", "why");
      for (const mixprec::rounding m : deterministic_modes) {
        const auto c = mixprec::explain<T>(o.number, m, o.policy);
        std::printf("%-13s 0x%-10llx %-28s %-12.4g %-10.4g %s\n", mixprec::to_string(m),
                    static_cast<unsigned long long>(c.stored.bits), c.stored.exact.substr(0, 28).c_str(), c.abs_error,
                    c.ulp_error, c.why.c_str());
      }
    });
    if (!known) return usage(argv[0], ("unknown format " + o.format).c_str());
    return 0;
  }
  if (!o.format.empty()) {
    const bool known = with_format(o.format, [&](auto tag) {
      std::cout << mixprec::explain<decltype(tag)>(o.number, o.mode, o.policy);
    });
    if (!known) return usage(argv[0], ("unknown format " + o.format).c_str());
    return 0;
  }
  std::printf("%s stored in every format (rounding %s):\n\n", o.number.c_str(), mixprec::to_string(o.mode));
  std::printf("%-18s %-12s %-28s %-12s %-12s %-24s %s\n", "format", "bits", "stored (exact)", "abs error", "ulps",
              "ulp", "range: why");
  for (std::string_view name_view : mixprec::builtin_format_names) {
    const std::string name(name_view);
    with_format(name, [&](auto tag) {
      using T = decltype(tag);
      const auto c = mixprec::explain<T>(o.number, o.mode, o.policy);
      char bits[24];
      std::snprintf(bits, sizeof bits, "0x%0*llx", (mixprec::float_traits<T>::format_type::storage_bits + 3) / 4,
                    static_cast<unsigned long long>(c.stored.bits));
      std::string exact = c.stored.exact;
      if (exact.size() > 28) exact = exact.substr(0, 25) + "...";
      const std::string range = c.why.empty() ? c.range.substr(0, c.range.find(':')) : c.why;
      std::printf("%-18s %-12s %-28s %-12.4g %-12.4g %-24s %s\n", name.c_str(), bits, exact.c_str(), c.abs_error, c.ulp_error,
                  c.stored.ulp.c_str(), range.c_str());
    });
  }
  return 0;
}
