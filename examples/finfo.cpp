// SPDX-License-Identifier: MIT
// finfo: machine limits of every built-in format, laid out like numpy.finfo / torch.finfo but with
// every value exact (every digit, where numpy rounds to the type's precision), and an
// SVG drawing of their bit layouts (sign, exponent, mantissa), like the "bfloat16 structure"
// slide of a mixed-precision lecture.
//
//   finfo                      all formats (writes no file)
//   finfo --svg PATH           ... and draws the bit layouts into PATH
//   finfo --format bfloat16    one format only (no drawing)
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include <mixprec/charconv.hpp>
#include <mixprec/mixprec.hpp>

namespace {

/// Every digit of the exact value: %.1100g keeps them all (no value of these formats has more
/// than 1100 significant digits; float's smallest subnormal has 105) and drops trailing zeros.
template <class T>
std::string text(T x) {
  char buf[1200];
  const auto r = mixprec::to_chars(buf, buf + sizeof buf, x, std::chars_format::general, 1100);
  return std::string(buf, r.ptr);
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

template <class T>
layout layout_of(const char* note) {
  using F = typename T::format_type;
  return {mixprec::finfo<T>::name, F::is_signed ? 1 : 0, F::exponent_bits, F::mantissa_bits, F::padding_bits, note};
}

std::string svg(const layout* rows, int n) {
  const int cell = 22, left = 150, top = 40, row_h = 46;
  const int width = left + 32 * cell + 380;
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

int usage(const char* argv0, const std::string& problem) {
  if (!problem.empty()) std::fprintf(stderr, "finfo: %s\n", problem.c_str());
  std::fprintf(stderr, "usage: %s [--svg PATH] [--format NAME]\n", argv0);
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
    } else if (a == "--help" || a == "-h") {
      usage(argv[0], "");
      return 0;
    } else {
      return usage(argv[0], "unknown argument " + a);
    }
  }
  using namespace mixprec;
  bool printed = false;
  auto show = [&](auto tag) {
    using T = decltype(tag);
    if (only.empty() || only == finfo<T>::name) {
      print_finfo<T>();
      printed = true;
    }
  };
  show(float{});
  show(tf32{});
  show(half{});
  show(bfloat16{});
  show(float8_e4m3fn{});
  show(float8_e5m2{});
  show(float8_e4m3fnuz{});
  show(float8_e5m2fnuz{});
  show(float8_e8m0fnu{});
  show(float6_e2m3fn{});
  show(float6_e3m2fn{});
  show(float4_e2m1fn{});
  if (!printed) return usage(argv[0], "unknown format " + only);
  if (!only.empty() || svg_path.empty()) return 0;

  const layout rows[] = {
      {"float32", 1, 8, 23, 0, "range 3.4e38, 24 significant bits"},
      layout_of<tf32>("float's range, half's precision (Tensor Cores)"),
      layout_of<half>("max 65504, 11 significant bits"),
      layout_of<bfloat16>("float's range, 8 significant bits"),
      layout_of<float8_e4m3fn>("max 448, no infinity"),
      layout_of<float8_e5m2>("max 57344, IEEE-style"),
      layout_of<float8_e8m0fnu>("MX block scale: powers of two"),
      layout_of<float6_e2m3fn>("MX element, max 7.5"),
      layout_of<float6_e3m2fn>("MX element, max 28"),
      layout_of<float4_e2m1fn>("MX element, max 6"),
  };
  std::ofstream out(svg_path);
  out << svg(rows, static_cast<int>(sizeof rows / sizeof rows[0]));
  if (!out) {
    std::fprintf(stderr, "finfo: cannot write %s\n", svg_path.c_str());
    return 1;
  }
  std::printf("bit layouts drawn in %s\n", svg_path.c_str());
  return 0;
}
