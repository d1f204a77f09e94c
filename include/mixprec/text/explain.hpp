// SPDX-License-Identifier: MIT
// mixprec/text/explain.hpp — what a value really is: its fields, its class, its exact decimal value,
// its ulp and neighbours; and, for a conversion, the stored value and the rounding error.
//
//   std::cout << mixprec::explain(mixprec::half(0.1f));
//   std::cout << mixprec::explain<mixprec::bfloat16>(0.1);              // with the error of 0.1
//   std::cout << mixprec::explain<mixprec::bfloat16>(0.1, rounding::toward_zero);
//   std::cout << mixprec::explain<mixprec::half>("1.00048828125000000000000001");  // text: ONE rounding
//   mixprec::exact_value_text(std::numeric_limits<mixprec::half>::denorm_min());
//                                                   // "5.9604644775390625e-08 (about 6e-08)"
// Contract: printing never rounds a value (values, ulps, neighbours and absolute errors are exact
// decimals); relative and ulp errors print as the shortest text that reads back. The texts:
// docs/pages/printing.md ("Exact texts of an explanation").
#ifndef MIXPREC_EXPLAIN_HPP
#define MIXPREC_EXPLAIN_HPP

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "charconv.hpp"
#include "../core/classify.hpp"
#include "../core/detail/quote_input.hpp"
#include "../core/finfo.hpp"
#include "../math/cmath.hpp"
#include "../core/round_to.hpp"

namespace mixprec {

/// A printable account of one value of a format.
struct value_explanation {
  std::string format;        ///< "bfloat16", "float8_e4m3fn", ...
  std::uint64_t bits = 0;    ///< the stored bits (tf32: the 32-bit container)
  int storage_bits = 0;      ///< width of bits
  std::string sign;          ///< the sign field as '0'/'1' ("" for unsigned formats)
  std::string exponent;      ///< the exponent field, most significant bit first
  std::string mantissa;      ///< the mantissa field ("" when there is none)
  std::string kind;          ///< "normal", "subnormal", "zero", "infinity" or "NaN"
  int unbiased_exponent = 0; ///< for finite non-zero values: floor(log2|x|)
  std::string exact;         ///< the exact value in decimal, every digit
  std::string shortest;      ///< the shortest decimal that reads back as the value
  std::string ulp;           ///< exact decimal of ulp(x) ("" for Inf/NaN)
  std::string below;         ///< exact decimal of the neighbour below ("" where there is none)
  std::string above;         ///< exact decimal of the neighbour above ("" where there is none)
};

/// A value_explanation plus what converting a double to the format did to it.
struct conversion_explanation {
  value_explanation stored;  ///< the value that was stored
  std::string source;        ///< the exact decimal of the double that was converted
  std::string mode;          ///< the rounding mode's name
  double abs_error = 0;      ///< stored - source (exact unless it overflows double); see below
  double rel_error = 0;      ///< abs_error / |source|; see below
  double ulp_error = 0;      ///< abs_error in ulps of the stored value; see below
};
// The errors' special cases (overflow, NaN, text beyond double):
// docs/pages/printing.md ("Exact texts of an explanation").

/// x's exact value in fixed decimal, every digit, no exponent and no trailing zeros (a binary
/// fraction with quantum 2^q has exactly max(0, -q) digits after the point): exact_decimal(0.1)
/// is "0.1000000000000000055511151231257827021181583404541015625", exact_decimal(65504.0)
/// "65504", exact_decimal(half(0.5f)) "0.5". inf, -inf and nan as to_chars prints them.
/// T: a mixprec type, float or double.
template <class T>
std::string exact_decimal(T x) {
  using F = typename float_traits<T>::format_type;
  const detail::exact_value u = detail::decode_bits<F>(float_traits<T>::to_bits(x));
  int digits = 0;
  if (u.cls == detail::value_class::finite) {
    int trailing = 0;  // u.sig != 0 for finite values
    while (((u.sig >> trailing) & 1u) == 0) ++trailing;
    const int q = u.exp - (63 - trailing);  // the weight of the lowest set bit
    digits = q < 0 ? -q : 0;
  }
  std::string buf(static_cast<std::size_t>(digits) + 400, '\0');
  const auto r = mixprec::to_chars(&buf[0], &buf[0] + buf.size(), x, std::chars_format::fixed, digits);
  return std::string(&buf[0], r.ptr);
}

namespace detail {

template <class T>
std::string shortest_decimal(T x) {
  char buf[64];
  const auto r = mixprec::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

/// The relative and ulp errors, from the stored value s and the source value x (as doubles;
/// source_finite: the source is a finite number, even where x overflowed double).
inline void relative_errors(double s, double x, bool source_finite, double abs_error, double ulp, double& rel,
                            double& ulps) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (std::isnan(s) || std::isnan(x) || std::isnan(abs_error)) {  // NaN read or stored: undefined
    rel = ulps = nan;
  } else if (!source_finite) {  // inf stored as that inf: no error; else undefined
    rel = ulps = exact_eq(s, x) ? 0.0 : nan;
  } else if (std::isinf(s)) {  // overflow to an infinity
    rel = ulps = abs_error;
  } else if (std::isinf(x)) {  // a finite source beyond double, stored finite: (s - x) / |x| = -+1 + tiny
    rel = x > 0 ? -1.0 : 1.0;
    ulps = abs_error;
  } else {
    rel = exact_eq(abs_error, 0.0) ? 0.0 : abs_error / std::fabs(x);
    ulps = exact_eq(ulp, 0.0) ? abs_error : abs_error / ulp;
  }
}

/// text_of_exact: the exact_value_text of a value given its exact fixed decimal and its shortest
/// text (inf/nan: exact == shortest). Scientific notation as to_chars writes it ("e-08", "e+38").
inline std::string exact_text_of(const std::string& exact, const std::string& shortest) {
  if (exact.size() <= 20 || exact.find_first_not_of("-0123456789.") != std::string::npos) return exact;
  const bool neg = exact[0] == '-';
  const std::string body = exact.substr(neg ? 1 : 0);
  const std::size_t point = body.find('.');
  const std::string int_part = body.substr(0, point);
  const std::string all = int_part + (point == std::string::npos ? "" : body.substr(point + 1));
  const std::size_t first = all.find_first_not_of('0');
  if (first == std::string::npos) return exact;  // zero (never this long)
  const std::size_t last = all.find_last_not_of('0');
  const long e10 = static_cast<long>(int_part.size()) - 1 - static_cast<long>(first);
  std::string sci = neg ? "-" : "";
  sci += all[first];
  if (last > first) sci += "." + all.substr(first + 1, last - first);
  const long mag = e10 < 0 ? -e10 : e10;
  sci += e10 < 0 ? "e-" : "e+";
  if (mag < 10) sci += '0';
  sci += std::to_string(mag);
  return sci == shortest ? sci : sci + " (about " + shortest + ")";
}

inline std::string bit_string(std::uint64_t v, int width) {
  std::string s;
  for (int i = width - 1; i >= 0; --i) s += ((v >> i) & 1u) != 0 ? '1' : '0';
  return s;
}


}  // namespace detail

/// x as a sentence states a value: its exact decimal when that is at most 20 characters ("0.125",
/// "65504", "0.00006103515625"); else the exact decimal in scientific notation (every significant
/// digit) with the shortest text that reads back beside it: half's smallest subnormal is
/// "5.9604644775390625e-08 (about 6e-08)". inf, -inf and nan as to_chars prints them.
/// T: a mixprec type, float or double.
template <class T>
std::string exact_value_text(T x) {
  using F = typename float_traits<T>::format_type;
  const std::string shortest = detail::shortest_decimal(x);
  if (detail::decode_bits<F>(float_traits<T>::to_bits(x)).cls != detail::value_class::finite) return shortest;
  return detail::exact_text_of(exact_decimal(x), shortest);
}

/// exact_value_text of an explained value: e's exact decimal (e.exact) when at most 20
/// characters, else in scientific notation with e.shortest beside it when they differ
/// ("5.9604644775390625e-08 (about 6e-08)"); inf, -inf, nan as they stand. What the first line of
/// `os << e` shows.
inline std::string exact_value_text(const value_explanation& e) { return detail::exact_text_of(e.exact, e.shortest); }

/// An absolute error (conversion_explanation::abs_error, text_explanation::abs_error) as the
/// explanations print it: its exact decimal, every digit (exact_decimal); "infinite" /
/// "-infinite" for +-inf; "undefined (NaN)" for NaN. abs_error_text(-0.0001220703125) is
/// "-0.0001220703125".
inline std::string abs_error_text(double v) {
  if (std::isnan(v)) return "undefined (NaN)";
  if (std::isinf(v)) return v > 0 ? "infinite" : "-infinite";
  return exact_decimal(v);
}

/// An error quotient (rel_error, ulp_error of an explanation: rounded to double) as the
/// explanations print it: the shortest text that reads back as v ("-0.5", "0.0001220703125",
/// "1e-05"); "infinite" / "-infinite" for +-inf; "undefined (NaN)" for NaN.
inline std::string error_quotient_text(double v) {
  if (std::isnan(v)) return "undefined (NaN)";
  if (std::isinf(v)) return v > 0 ? "infinite" : "-infinite";
  return detail::shortest_decimal(v);
}

/// Explains a value of a mixprec type.
template <class F, std::enable_if_t<is_format<F>::value, int> = 0>
value_explanation explain(basic_float<F> x) {
  using T = basic_float<F>;
  value_explanation e;
  e.format = finfo<T>::name;
  e.bits = x.bits();
  e.storage_bits = F::storage_bits;
  const std::uint64_t code = detail::code_of<F>(x.bits());
  if (F::is_signed) e.sign = detail::bit_string(code >> (F::exponent_bits + F::mantissa_bits), 1);
  e.exponent = detail::bit_string((code >> F::mantissa_bits) & F::exponent_field_max, F::exponent_bits);
  e.mantissa = detail::bit_string(code & F::mantissa_mask, F::mantissa_bits);
  switch (fpclassify(x)) {
    case FP_NAN: e.kind = "NaN"; break;
    case FP_INFINITE: e.kind = "infinity"; break;
    case FP_ZERO: e.kind = "zero"; break;
    case FP_SUBNORMAL: e.kind = "subnormal"; break;
    default: e.kind = "normal"; break;
  }
  e.shortest = detail::shortest_decimal(x);
  e.exact = isfinite(x) ? exact_decimal(x) : e.shortest;
  if (isfinite(x)) {
    e.unbiased_exponent = x == T(0) ? 0 : ilogb(x);
    e.ulp = exact_decimal(ulp(x));
    const T lo = nextafter(x, std::numeric_limits<T>::lowest());
    const T hi = nextafter(x, std::numeric_limits<T>::max());
    if (isfinite(lo) && !(lo == x && x == std::numeric_limits<T>::lowest())) e.below = exact_decimal(lo);
    if (isfinite(hi) && !(hi == x && x == std::numeric_limits<T>::max())) e.above = exact_decimal(hi);
  }
  return e;
}

/// Explains what storing source in T does: the stored value, and the rounding error.
template <class T, std::enable_if_t<is_mixprec_float<T>::value, int> = 0>
conversion_explanation explain(double source, rounding mode = rounding::nearest_even) {
  conversion_explanation c;
  const T stored = round_to<T>(source, mode);
  c.stored = explain(stored);
  c.source = std::isfinite(source) ? exact_decimal(source) : detail::shortest_decimal(source);
  c.mode = to_string(mode);
  const double s = static_cast<double>(stored);
  c.abs_error = std::isinf(source) && detail::exact_eq(s, source) ? 0.0 : s - source;  // inf stored as inf: none
  const double u = isfinite(stored) ? static_cast<double>(ulp(stored)) : 0.0;
  detail::relative_errors(s, source, std::isfinite(source), c.abs_error, u, c.rel_error, c.ulp_error);
  return c;
}

/// Prints the explanation as text (one field per line).
inline std::ostream& operator<<(std::ostream& os, const value_explanation& e) {
  os << e.format << " value " << exact_value_text(e) << '\n';
  os << "  bits      0x" << std::hex << e.bits << std::dec << " = ";
  if (!e.sign.empty()) os << e.sign << ' ';
  os << e.exponent;
  if (!e.mantissa.empty()) os << ' ' << e.mantissa;
  os << "  (" << (e.sign.empty() ? "" : "sign, ") << "exponent" << (e.mantissa.empty() ? "" : ", mantissa") << ")\n";
  os << "  class     " << e.kind;
  if (e.kind == "normal" || e.kind == "subnormal") os << ", 2^" << e.unbiased_exponent << " <= |x| < 2^" << e.unbiased_exponent + 1;
  os << '\n';
  os << "  exact     " << e.exact << '\n';
  if (!e.ulp.empty()) os << "  ulp       " << e.ulp << '\n';
  if (!e.below.empty()) os << "  below     " << e.below << '\n';
  if (!e.above.empty()) os << "  above     " << e.above << '\n';
  return os;
}

/// Prints the source, the mode, the stored value's explanation and the errors.
inline std::ostream& operator<<(std::ostream& os, const conversion_explanation& c) {
  os << "source    " << c.source << " (double)\n";
  os << "rounding  " << c.mode << '\n';
  os << c.stored;
  // The absolute error exactly (it is a double's exact value); the quotients as the shortest
  // text that reads back as the double (not the stream's 6 digits); infinite and undefined in words.
  os << "  error     " << abs_error_text(c.abs_error) << " absolute, " << error_quotient_text(c.rel_error)
     << " relative, " << error_quotient_text(c.ulp_error) << " ulp\n";
  return os;
}

// ---------------------------------------------------------------------------------------------
// Explaining text: the number is read ONCE into T (never through double).

/// What reading a text number into a format does (see explain<T>(std::string_view)).
struct text_explanation {
  value_explanation stored;  ///< the value stored: what round_to gives for the text's exact value
  std::string source;        ///< the text, as given
  std::string mode;          ///< the rounding mode's name
  std::string policy;        ///< the overflow policy's name ("ieee" or "saturate")
  std::string range;         ///< "" when from_chars accepts the text; else what happened and why
  std::string why;           ///< one line on a NaN, infinity, clamped, underflowed or subnormal result ("" else)
  bool out_of_range = false; ///< whether from_chars reports errc::result_out_of_range
  double abs_error = 0;      ///< stored - source, with source rounded to double (see explain)
  double rel_error = 0;      ///< abs_error / |source| (the rules above conversion_explanation's)
  double ulp_error = 0;      ///< abs_error in ulps of the stored value (the same rules)
};

namespace detail {

/// Splits strtod-style text into sign, body and chars_format: "+"/"-", then "0x"/"0X" (hex) or
/// not. False when the body is empty or starts with another sign.
inline bool split_number_text(std::string_view text, bool& neg, std::string_view& body, std::chars_format& fmt) {
  neg = false;
  body = text;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    neg = body[0] == '-';
    body.remove_prefix(1);
  }
  fmt = std::chars_format::general;
  if (body.size() >= 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
    fmt = std::chars_format::hex;
    body.remove_prefix(2);
  }
  return !body.empty() && body[0] != '+' && body[0] != '-';
}

/// Why from_chars rejects u (range rules at the top of charconv.hpp), for an explanation.
template <class T>
std::string range_reason(const exact_value& u, rounding mode) {
  using F = typename float_traits<T>::format_type;
  const std::string name = finfo<T>::name;
  if (u.cls == value_class::nan) return "not representable: " + name + " has no NaN";
  if constexpr (F::enc == encoding::exponent_only) {
    if (u.sign || u.cls == value_class::zero) return "not representable: " + name + " has no zero and no negative values";
  } else if constexpr (!F::is_signed) {
    if (u.sign && u.cls != value_class::zero) return "not representable: " + name + " has no negative values";
  }
  if (u.cls == value_class::infinite) return "not representable: " + name + " has no infinity";
  if (beyond_max(F{}, u, mode)) {
    return std::string("overflow: ") + (u.sign ? "negative, " : "positive, ") + "beyond the largest finite " + name +
           ", " + exact_value_text(std::numeric_limits<T>::max()) + ", once rounded";
  }
  return std::string("underflow: ") + (u.sign ? "negative, " : "positive, ") + "not zero, but below the smallest " +
         name + ", " + exact_value_text(std::numeric_limits<T>::denorm_min()) + ", once rounded";
}

/// One line on why reading u into T stored `stored` when that is NaN, an infinity, a clamped
/// value, an underflow or a subnormal; "" for an ordinary rounding.
template <class T>
std::string why_line(const exact_value& u, T stored, const std::string& kind, rounding mode, overflow policy) {
  using F = typename float_traits<T>::format_type;
  const std::string name = finfo<T>::name;
  const std::string got = exact_value_text(stored);
  const bool nan = kind == "NaN", inf = kind == "infinity";
  if (u.cls == value_class::nan) return nan ? "NaN in, NaN out" : "NaN in, and " + name + " has no NaN: " + got;
  if (u.cls == value_class::infinite) {
    if (inf) return "inf in, inf out";
    return "inf in, and " + name + " has no infinity: " + (nan ? std::string("NaN") : "clamped to " + got);
  }
  if constexpr (F::enc == encoding::exponent_only) {
    if (u.cls == value_class::zero || u.sign) return name + " has no zero and no negative values: NaN";
  }
  if (u.cls == value_class::zero) return "";
  if constexpr (!F::is_signed) {
    if (u.sign) return "negative, and " + name + " has no negative values: " + (nan ? std::string("NaN") : got);
  }
  const std::string max = exact_value_text(std::numeric_limits<T>::max());
  if (beyond_max(F{}, u, mode)) {  // rounded in mode with an unbounded exponent, above max
    if (inf) return "overflow: |x| > max " + max + " and the mode rounds away from zero: inf";
    if (nan) return "overflow: |x| > max " + max + " and " + name + " has no infinity: NaN (overflow::saturate clamps)";
    const std::string cause = policy == overflow::saturate          ? "overflow::saturate"
                              : !std::numeric_limits<T>::has_quiet_NaN ? name + " has no infinity or NaN"
                                                                       : "the mode rounds toward zero";
    return "overflow: |x| > max " + max + ": clamped to " + got + " (" + cause + ")";
  }
  if (beyond_max(F{}, u, u.sign ? rounding::downward : rounding::upward)) {  // |x| > max, exactly
    return "|x| > max " + max + ", but it rounds to " + got + " in this mode (no overflow)";
  }
  const std::string tiny = exact_value_text(std::numeric_limits<T>::denorm_min());
  if (kind == "zero") return "underflow: |x| is below the smallest non-zero value " + tiny + " and rounds to 0";
  const exact_value d = decode_bits<F>(float_traits<T>::to_bits(std::numeric_limits<T>::denorm_min()));
  if (u.exp < d.exp) return "underflow: |x| is below the smallest non-zero value " + tiny + " and rounds up to it";
  if (kind == "subnormal") return "subnormal: fewer significant bits, so a larger relative error";
  return "";
}

}  // namespace detail

/// Explains reading text into T, rounded ONCE from the text's exact value (as from_chars; never
/// through double): explain<half>("1.00048828125000000000000001") stores 0x3c01, where parsing
/// to double first would give 0x3c00. Grammar: strtod's (decimal, hex after "0x", inf, nan); the
/// whole text must be the number. Out-of-range text, the errors and what throws:
/// docs/pages/printing.md ("Exact texts of an explanation").
template <class T, std::enable_if_t<is_mixprec_float<T>::value, int> = 0>
text_explanation explain(std::string_view text, rounding mode = rounding::nearest_even,
                         overflow policy = overflow::ieee) {
  using F = typename float_traits<T>::format_type;
  detail::require_random_bits(mode);
  detail::require_valid(policy);
  bool neg = false;
  std::string_view body;
  std::chars_format fmt{};
  detail::exact_value u{};
  const char* end = nullptr;
  if (!detail::split_number_text(text, neg, body, fmt) ||
      !detail::scan_float(body.data(), body.data() + body.size(), fmt, u, end) || end != body.data() + body.size()) {
#if MIXPREC_HAS_EXCEPTIONS
    throw std::invalid_argument("mixprec::explain: not a number: " + detail::quote_input(text));
#else
    detail::rounding_argument_error("mixprec::explain: not a number");
#endif
  }
  u.sign = neg;
  text_explanation e;
  const T stored = T::from_bits(detail::encode_bits<F>(u, mode, policy, 0));
  e.stored = explain(stored);
  e.source = std::string(text);
  e.mode = to_string(mode);
  e.policy = policy == overflow::ieee ? "ieee" : "saturate";
  if (!detail::round_parsed(F{}, u, mode, policy).ok) {
    e.out_of_range = true;
    e.range = detail::range_reason<T>(u, mode) + "; from_chars reports result_out_of_range; round_to gives " +
              exact_value_text(e.stored);
  }
  e.why = detail::why_line<T>(u, stored, e.stored.kind, mode, policy);
  using D = typename float_traits<double>::format_type;
  const double source = float_traits<double>::from_bits(detail::encode_bits<D>(u, rounding::nearest_even, overflow::ieee, 0));
  const double s = static_cast<double>(stored);
  if (u.cls == detail::value_class::finite && std::isinf(s)) {
    e.abs_error = s;  // a finite number stored as an infinity (source may be infinite in double too)
  } else if (u.cls == detail::value_class::infinite && detail::exact_eq(s, source)) {
    e.abs_error = 0;  // "inf" stored as inf
  } else {
    e.abs_error = s - source;
  }
  const double ulp_d = isfinite(stored) ? static_cast<double>(ulp(stored)) : 0.0;
  detail::relative_errors(s, source, u.cls == detail::value_class::finite, e.abs_error, ulp_d, e.rel_error,
                          e.ulp_error);
  return e;
}

/// Prints the text, the mode, the range and why lines, the stored value's explanation and the errors.
inline std::ostream& operator<<(std::ostream& os, const text_explanation& t) {
  os << "source    " << t.source << " (text, rounded once)\n";
  os << "rounding  " << t.mode << ", overflow::" << t.policy << '\n';
  if (!t.range.empty()) os << "range     " << t.range << '\n';
  if (!t.why.empty()) os << "why       " << t.why << '\n';
  os << t.stored;
  os << "  error     ";
  if (std::isinf(t.abs_error) && t.stored.kind != "infinity" && std::isfinite(t.rel_error) && !t.source.empty()) {
    // a finite text beyond double stored as a finite value: the error is about -x, beyond double
    const std::string_view mag = t.source[0] == '+' || t.source[0] == '-' ? std::string_view(t.source).substr(1)
                                                                          : std::string_view(t.source);
    os << "about " << (t.abs_error < 0 ? "-" : "") << mag << " absolute (beyond double), "
       << error_quotient_text(t.rel_error) << " relative, beyond double's range in ulps\n";
  } else {
    os << abs_error_text(t.abs_error) << " absolute, " << error_quotient_text(t.rel_error) << " relative, "
       << error_quotient_text(t.ulp_error) << " ulp\n";
  }
  return os;
}

}  // namespace mixprec

#endif  // MIXPREC_EXPLAIN_HPP
