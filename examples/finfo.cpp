// SPDX-License-Identifier: MIT
// finfo: machine limits of every built-in format (and float32), laid out like numpy.finfo /
// torch.finfo but exact: each value as its exact decimal, with the shortest text that reads back
// beside it when the exact one is long ("eps = 0.0009765625", "tiny = 1.1754943508222875...e-38
// (about 1.1754944e-38)"), where numpy rounds to the type's precision; and an SVG drawing of
// their bit layouts (sign, exponent, mantissa), like the "bfloat16 structure" slide of a
// mixed-precision lecture.
//
//   finfo                      all formats (writes no file)
//   finfo --svg PATH           ... and draws the bit layouts of all of them into PATH
//   finfo --format bfloat16    one format only (no drawing); aliases too (bf16, half, e4m3, ...:
//                              mixprec/format_names.hpp), and float32
//   finfo --list-formats       the formats covered, one a line: the name, then its aliases
//
// Run by CTest and meson test (see examples/CMakeLists.txt):
// example-test-args: --format half
// example-test-regex: eps = +0.0009765625\n(.|\n)*smallest_subnormal = 5.9604644775390625e-08 \(about 6e-08\)
// example-test-args: --format float32
// example-test-regex: tiny = +1.1754943508222875079687365372222456778186655567720875215087517062784172594547271728515625e-38 \(about 1.1754944e-38\)
// example-test-args: --format e2m1
// example-test-regex: Machine parameters for float4_e2m1fn\n(.|\n)*max = +6\n
#include <algorithm>
#include <cstdio>
#include <limits>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <mixprec/explain.hpp>
#include <mixprec/format_names.hpp>
#include <mixprec/mixprec.hpp>

namespace {

/// The exact value, with the shortest text beside it when the exact one is long.
template <class T>
std::string text(T x) {
  return mixprec::exact_value_text(x);
}

template <class T>
void print_finfo() {
  using fi = mixprec::finfo<T>;
  std::printf("Machine parameters for %s\n", fi::name);
  std::printf("---------------------------------------------------------------\n");
  std::printf("precision = %3d   resolution = %s\n", fi::precision, text(fi::resolution).c_str());
  std::printf("machep = %6d   eps =        %s\n", fi::machep, text(fi::eps).c_str());
  std::printf("negep =  %6d   epsneg =     %s\n", fi::negep, text(fi::epsneg).c_str());
  std::printf("minexp = %6d   tiny =       %s\n", fi::minexp, text(fi::tiny).c_str());
  std::printf("maxexp = %6d   max =        %s\n", fi::maxexp, text(fi::max).c_str());
  std::printf("nexp =   %6d   min =        %s\n", fi::nexp, text(fi::min).c_str());
  std::printf("smallest_normal = %s   smallest_subnormal = %s\n", text(fi::smallest_normal).c_str(),
              text(fi::smallest_subnormal).c_str());
  std::printf("---------------------------------------------------------------\n\n");
}

struct layout {
  std::string name;
  int sign, exp, mant, pad;
  std::string note;
};

/// The row of T: its fields and "max M, N significant bits" (M exact, as text() prints it).
template <class T>
layout layout_of() {
  using F = typename mixprec::float_traits<T>::format_type;
  using fi = mixprec::finfo<T>;
  return {fi::name, F::is_signed ? 1 : 0, F::exponent_bits, F::mantissa_bits, F::padding_bits,
          "max " + text(fi::max) + ", " + std::to_string(std::numeric_limits<T>::digits) + " significant bits"};
}

std::string svg(const layout* rows, int n) {
  const int cell = 22, left = 150, top = 40, row_h = 46;
  std::size_t note = 0;
  for (int r = 0; r < n; ++r) note = std::max(note, rows[r].note.size());
  const int width = left + 32 * cell + 20 + 7 * static_cast<int>(note);
  const int height = top + n * row_h + 50;
  std::ostringstream s;
  s << "<svg xmlns='http://www.w3.org/2000/svg' width='" << width << "' height='" << height
    << "' font-family='sans-serif' font-size='13'>\n";
  s << "<rect width='100%' height='100%' fill='white'/>\n";
  s << "<text x='10' y='22' font-size='16' font-weight='bold'>Bit layouts of the mixprec formats</text>\n";
  const char* colours[] = {"#e15759", "#59a14f", "#4e79a7", "#d3d3d3"};
  for (int r = 0; r < n; ++r) {
    const layout& l = rows[r];
    const int y = top + r * row_h;
    s << "<text x='10' y='" << y + 16 << "'>" << l.name << "</text>\n";
    int x = left;
    const int counts[] = {l.sign, l.exp, l.mant, l.pad};
    for (int part = 0; part < 4; ++part) {
      for (int b = 0; b < counts[part]; ++b) {
        s << "<rect x='" << x << "' y='" << y << "' width='" << cell - 2 << "' height='" << cell
          << "' fill='" << colours[part] << "' stroke='#333' stroke-width='0.5'/>\n";
        x += cell;
      }
      if (counts[part] > 0) {  // the field's width, centred under it
        const int centre = x - counts[part] * cell / 2 - 1;
        s << "<text x='" << centre << "' y='" << y + cell + 13 << "' font-size='10' fill='#444' text-anchor='middle'>"
          << counts[part] << "</text>\n";
      }
    }
    s << "<text x='" << x + 10 << "' y='" << y + 16 << "' fill='#444'>" << l.note << "</text>\n";
  }
  const int ly = top + n * row_h + 25;
  const char* legend[] = {"sign", "exponent", "mantissa (fraction)", "always zero (tf32 in 32 bits)"};
  s << "<text x='10' y='" << ly - 4 << "' font-size='10' fill='#444'>numbers: field widths in bits</text>\n";
  for (int i = 0; i < 4; ++i) {
    s << "<rect x='" << 10 + i * 200 << "' y='" << ly << "' width='14' height='14' fill='" << colours[i] << "'/>\n";
    s << "<text x='" << 30 + i * 200 << "' y='" << ly + 12 << "'>" << legend[i] << "</text>\n";
  }
  s << "</svg>\n";
  return s.str();
}

/// Calls f(T{}) for float32 and every built-in format, in the order of builtin_format_names.
template <class Fn>
void for_each_format(Fn f) {
  f(float{});
  for (std::string_view name : mixprec::builtin_format_names) mixprec::visit_format(name, f);
}

int usage(const char* argv0, const std::string& problem) {
  if (!problem.empty()) std::fprintf(stderr, "finfo: %s\n", problem.c_str());
  std::fprintf(stderr, "usage: %s [--svg PATH] [--format NAME] [--list-formats]\n"
                       "NAME: float32 or a built-in format or alias (finfo --list-formats)\n", argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string svg_path;  // empty: no drawing
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--svg" || a == "--format") && i + 1 < argc) {
      (a == "--svg" ? svg_path : only) = argv[++i];
    } else if (a == "--list-formats") {
      std::printf("float32\n");
      for (std::string_view name : mixprec::builtin_format_names) {
        std::printf("%.*s", static_cast<int>(name.size()), name.data());
        for (const auto& al : mixprec::builtin_format_aliases) {
          if (al.canonical == name) std::printf(" %.*s", static_cast<int>(al.alias.size()), al.alias.data());
        }
        std::printf("\n");
      }
      return 0;
    } else if (a == "--help" || a == "-h") {
      usage(argv[0], "");
      return 0;
    } else {
      return usage(argv[0], "unknown argument " + a);
    }
  }
  using namespace mixprec;
  const std::string wanted = only == "float32" ? only : std::string(canonical_format_name(only));
  if (!only.empty() && wanted.empty()) return usage(argv[0], "unknown format " + only);
  std::vector<layout> rows;
  for_each_format([&](auto tag) {
    using T = decltype(tag);
    if (only.empty() || wanted == finfo<T>::name) print_finfo<T>();
    rows.push_back(layout_of<T>());
  });
  if (!only.empty() || svg_path.empty()) return 0;

  std::ofstream out(svg_path);
  out << svg(rows.data(), static_cast<int>(rows.size()));
  if (!out) {
    std::fprintf(stderr, "finfo: cannot write %s\n", svg_path.c_str());
    return 1;
  }
  std::printf("bit layouts of %zu formats drawn in %s\n", rows.size(), svg_path.c_str());
  return 0;
}
