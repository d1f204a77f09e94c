// SPDX-License-Identifier: MIT
// format_table: every built-in format, its layout and limits, computed from mixprec::finfo.
// Compare with numpy.finfo / ml_dtypes.finfo / torch.finfo.
//
//   format_table            markdown table (the one in the README)
//   format_table --csv      the same numbers as CSV (shortest round-trip text: for parsing back)
// Every built-in format (mixprec::builtin_format_names; example_format_names checks the list).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include <mixprec/explain.hpp>
#include <mixprec/mixprec.hpp>

namespace {

/// "65504", "2^-24 (5.96e-08)", "0x1.fep+127 (3.39e+38)": exact, and readable (the short form in
/// parentheses). Values are printed plainly only where %.6g is their exact decimal, every digit.
std::string show(double v) {
  char buf[96];
  int e = 0;
  const double m = std::frexp(std::fabs(v), &e);
  std::snprintf(buf, sizeof buf, "%.6g", v);
  if (mixprec::exact_decimal(v) == buf) {
    // short and exact as it stands (exact_decimal: every digit, no exponent, no trailing zeros)
  } else if (m == 0.5) {
    std::snprintf(buf, sizeof buf, "%s2^%d (%.3g)", v < 0 ? "-" : "", e - 1, v);
  } else {
    std::snprintf(buf, sizeof buf, "%a (%.5g)", v, v);
  }
  return buf;
}

const char* encoding_name(mixprec::encoding e, bool is_signed) {
  switch (e) {
    case mixprec::encoding::ieee: return is_signed ? "IEEE (Inf, NaN)" : "unsigned IEEE (Inf, NaN)";
    case mixprec::encoding::fn: return is_signed ? "fn (NaN, no Inf)" : "unsigned, NaN, no Inf";
    case mixprec::encoding::fnuz: return "fnuz (one NaN, no -0)";
    case mixprec::encoding::finite: return is_signed ? "finite (no Inf/NaN)" : "unsigned, no Inf/NaN";
    case mixprec::encoding::exponent_only: return "unsigned exponent (NaN)";
  }
  return "?";
}

bool csv = false;

template <class T>
void row(const char* cpp_name) {
  using fi = mixprec::finfo<T>;
  using F = typename fi::format_type;
  const std::string layout = std::to_string(F::is_signed ? 1 : 0) + "/" + std::to_string(F::exponent_bits) + "/" +
                             std::to_string(F::mantissa_bits);
  const double max = static_cast<double>(fi::max), tiny = static_cast<double>(fi::tiny);
  const double sub = static_cast<double>(fi::smallest_subnormal), eps = static_cast<double>(fi::eps);
  const int digits = std::numeric_limits<T>::digits;
  if (csv) {
    std::printf("%s,%s,%d,%s,%d,%s,%.17g,%.17g,%.17g,%.17g,%d\n", fi::name, cpp_name, fi::bits, layout.c_str(), F::bias,
                encoding_name(F::enc, F::is_signed), max, tiny, sub, eps, digits);
    return;
  }
  std::printf("| %-16s | %-24s | %2d | %-6s | %3d | %-23s | %-26s | %-18s | %-18s | %-17s | %2d |\n", fi::name,
              cpp_name, fi::bits, layout.c_str(), F::bias, encoding_name(F::enc, F::is_signed), show(max).c_str(),
              show(tiny).c_str(), show(sub).c_str(), show(eps).c_str(), digits);
}

template <class T>
void row_std(const char* cpp_name) {
  row<mixprec::basic_float<typename mixprec::float_traits<T>::format_type>>(cpp_name);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--csv") == 0) {
      csv = true;
    } else {
      std::fprintf(stderr, "usage: %s [--csv]\n", argv[0]);
      return 2;
    }
  }
  if (csv) {
    std::printf("name,type,bits,sign/exp/mant,bias,encoding,max,smallest_normal,smallest_subnormal,eps,digits\n");
  } else {
    std::printf("| format | mixprec type | bits | s/e/m | bias | specials | max | smallest normal | "
                "smallest subnormal | eps | digits |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  }
  row_std<double>("double");
  row_std<float>("float");
  row<mixprec::tf32>("mixprec::tf32");
  row<mixprec::half>("mixprec::half");
  row<mixprec::bfloat16>("mixprec::bfloat16");
  row<mixprec::float8_e4m3fn>("mixprec::float8_e4m3fn");
  row<mixprec::float8_e5m2>("mixprec::float8_e5m2");
  row<mixprec::float8_e4m3fnuz>("mixprec::float8_e4m3fnuz");
  row<mixprec::float8_e5m2fnuz>("mixprec::float8_e5m2fnuz");
  row<mixprec::float8_e8m0fnu>("mixprec::float8_e8m0fnu");
  row<mixprec::float6_e2m3fn>("mixprec::float6_e2m3fn");
  row<mixprec::float6_e3m2fn>("mixprec::float6_e3m2fn");
  row<mixprec::float4_e2m1fn>("mixprec::float4_e2m1fn");
  row<mixprec::float8_e3m4>("mixprec::float8_e3m4");
  row<mixprec::float8_e4m3>("mixprec::float8_e4m3");
  row<mixprec::float8_e4m3b11fnuz>("mixprec::float8_e4m3b11fnuz");
  row<mixprec::float4_e1m2>("mixprec::float4_e1m2");
  row<mixprec::float8_ue4m3>("mixprec::float8_ue4m3");
  row<mixprec::float8_ue5m3>("mixprec::float8_ue5m3");
  if (!csv) {
    std::printf("\nbits: width of the format (tf32 is stored in 32 bits with 13 zero bits; float8_ue4m3 in a byte "
                "whose top bit is unused). digits: significant bits, as std::numeric_limits<T>::digits.\n");
  }
  return 0;
}
