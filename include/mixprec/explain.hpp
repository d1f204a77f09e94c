// SPDX-License-Identifier: MIT
// mixprec/explain.hpp — what a value really is: its fields, its class, its exact decimal value,
// its ulp and neighbours; and, for a conversion, the stored value and the rounding error.
//
//   std::cout << mixprec::explain(mixprec::half(0.1f));
//   std::cout << mixprec::explain<mixprec::bfloat16>(0.1);              // with the error of 0.1
//   std::cout << mixprec::explain<mixprec::bfloat16>(0.1, rounding::toward_zero);
//   std::cout << mixprec::explain<mixprec::half>("1.00048828125000000000000001");  // text: ONE rounding
// Printing never rounds: values, ulps, neighbours and the absolute error are printed as exact
// decimals (every digit), the relative and ulp errors as the shortest text that reads back.
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
#include "classify.hpp"
#include "detail/quote_input.hpp"
#include "finfo.hpp"
#include "math.hpp"
#include "round_to.hpp"

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
  double abs_error = 0;      ///< stored - source (exact unless it overflows double)
  double rel_error = 0;      ///< abs_error / |source| (0 when source is 0)
  double ulp_error = 0;      ///< abs_error in ulps of the stored value
};

namespace detail {

template <class T>
std::string exact_decimal(T x) {
  // A binary fraction with quantum 2^q has exactly max(0, -q) digits after the point.
  using F = typename float_traits<T>::format_type;
  const unpacked u = unpack<F>(float_traits<T>::to_bits(x));
  int digits = 0;
  if (u.cls == value_class::finite) {
    int trailing = 0;  // u.sig != 0 for finite values
    while (((u.sig >> trailing) & 1u) == 0) ++trailing;
    const int q = u.exp - (63 - trailing);  // the weight of the lowest set bit
    digits = q < 0 ? -q : 0;
  }
  std::string buf(static_cast<std::size_t>(digits) + 400, '\0');
  const auto r = mixprec::to_chars(&buf[0], &buf[0] + buf.size(), x, std::chars_format::fixed, digits);
  return std::string(&buf[0], r.ptr);
}

template <class T>
std::string shortest_decimal(T x) {
  char buf[64];
  const auto r = mixprec::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

inline std::string bit_string(std::uint64_t v, int width) {
  std::string s;
  for (int i = width - 1; i >= 0; --i) s += ((v >> i) & 1u) != 0 ? '1' : '0';
  return s;
}


}  // namespace detail

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
  e.exact = isfinite(x) ? detail::exact_decimal(x) : e.shortest;
  if (isfinite(x)) {
    e.unbiased_exponent = x == T(0) ? 0 : ilogb(x);
    e.ulp = detail::exact_decimal(ulp(x));
    const T lo = nextafter(x, std::numeric_limits<T>::lowest());
    const T hi = nextafter(x, std::numeric_limits<T>::max());
    if (isfinite(lo) && !(lo == x && x == std::numeric_limits<T>::lowest())) e.below = detail::exact_decimal(lo);
    if (isfinite(hi) && !(hi == x && x == std::numeric_limits<T>::max())) e.above = detail::exact_decimal(hi);
  }
  return e;
}

/// Explains what storing source in T does: the stored value, and the rounding error.
template <class T, std::enable_if_t<is_mixprec_float<T>::value, int> = 0>
conversion_explanation explain(double source, rounding mode = rounding::nearest_even) {
  conversion_explanation c;
  const T stored = round_to<T>(source, mode);
  c.stored = explain(stored);
  c.source = std::isfinite(source) ? detail::exact_decimal(source) : detail::shortest_decimal(source);
  c.mode = to_string(mode);
  const double s = static_cast<double>(stored);
  c.abs_error = s - source;
  c.rel_error = !detail::exact_eq(source, 0.0) && std::isfinite(source) ? c.abs_error / std::fabs(source) : 0.0;
  const double u = isfinite(stored) ? static_cast<double>(ulp(stored)) : 0.0;
  c.ulp_error = !detail::exact_eq(u, 0.0) ? c.abs_error / u : c.abs_error;  // NaN or infinity when nothing finite was stored
  return c;
}

/// Prints the explanation as text (one field per line).
inline std::ostream& operator<<(std::ostream& os, const value_explanation& e) {
  os << e.format << " value " << e.shortest << '\n';
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
  // text that reads back as the double (not the stream's 6 digits).
  os << "  error     " << detail::exact_decimal(c.abs_error) << " absolute, " << detail::shortest_decimal(c.rel_error)
     << " relative, " << detail::shortest_decimal(c.ulp_error) << " ulp\n";
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
  double rel_error = 0;      ///< abs_error / |source| (0 when source is 0 or not finite)
  double ulp_error = 0;      ///< abs_error in ulps of the stored value
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
std::string range_reason(const unpacked& u, rounding mode) {
  using F = typename float_traits<T>::format_type;
  const std::string name = finfo<T>::name;
  if (u.cls == value_class::nan) return "not representable: " + name + " has no NaN";
  if constexpr (F::enc == encoding::exponent_only) {
    if (u.sign || u.cls == value_class::zero) return "not representable: " + name + " has no zero and no negative values";
  } else if constexpr (!F::is_signed) {
    if (u.sign && u.cls != value_class::zero) return "not representable: " + name + " has no negative values";
  }
  if (u.cls == value_class::infinite) return "not representable: " + name + " has no infinity";
  if (beyond_max<F>(u, mode)) {
    return std::string("overflow: ") + (u.sign ? "negative, " : "positive, ") + "beyond the largest finite " + name +
           " (" + shortest_decimal(std::numeric_limits<T>::max()) + ") once rounded";
  }
  return std::string("underflow: ") + (u.sign ? "negative, " : "positive, ") + "not zero, but below the smallest " +
         name + " (" + shortest_decimal(std::numeric_limits<T>::denorm_min()) + ") once rounded";
}

/// One line on why reading u into T stored `stored` when that is NaN, an infinity, a clamped
/// value, an underflow or a subnormal; "" for an ordinary rounding.
template <class T>
std::string why_line(const unpacked& u, T stored, const std::string& kind, rounding mode, overflow policy) {
  using F = typename float_traits<T>::format_type;
  const std::string name = finfo<T>::name;
  const std::string got = shortest_decimal(stored);
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
  const std::string max = shortest_decimal(std::numeric_limits<T>::max());
  if (beyond_max<F>(u, mode)) {  // rounded in mode with an unbounded exponent, above max
    if (inf) return "overflow: |x| > max " + max + " and the mode rounds away from zero: inf";
    if (nan) return "overflow: |x| > max " + max + " and " + name + " has no infinity: NaN (overflow::saturate clamps)";
    const std::string cause = policy == overflow::saturate          ? "overflow::saturate"
                              : !std::numeric_limits<T>::has_quiet_NaN ? name + " has no infinity or NaN"
                                                                       : "the mode rounds toward zero";
    return "overflow: |x| > max " + max + ": clamped to " + got + " (" + cause + ")";
  }
  if (beyond_max<F>(u, u.sign ? rounding::downward : rounding::upward)) {  // |x| > max, exactly
    return "|x| > max " + max + ", but it rounds to " + got + " in this mode (no overflow)";
  }
  const std::string tiny = shortest_decimal(std::numeric_limits<T>::denorm_min());
  if (kind == "zero") return "underflow: |x| is below the smallest non-zero value " + tiny + " and rounds to 0";
  const unpacked d = unpack<F>(float_traits<T>::to_bits(std::numeric_limits<T>::denorm_min()));
  if (u.exp < d.exp) return "underflow: |x| is below the smallest non-zero value " + tiny + " and rounds up to it";
  if (kind == "subnormal") return "subnormal: fewer significant bits, so a larger relative error";
  return "";
}

}  // namespace detail

/// Explains reading text into T, rounded ONCE from the text's exact value (as from_chars; never
/// through double): explain<half>("1.00048828125000000000000001") stores 0x3c01, where parsing
/// to double first would give 0x3c00. Grammar (strtod's): an optional '+' or '-', then decimal
/// text ("1e-5", ".5"), hex text after "0x"/"0X" ("0x1.8p1", p exponent optional), or "inf",
/// "infinity", "nan", "nan(chars)" in any case; the whole text must be the number.
/// stored is the conversion's result (round_to in mode and policy), also where from_chars
/// reports errc::result_out_of_range: range then says what happened — "overflow: ..." (the
/// stored value is then +-inf, +-max or NaN, by mode, policy and format), "underflow: ..." (a
/// signed zero, or e8m0fnu's smallest value), or a value the format lacks ("inf" without
/// infinities, ...). The errors use the text's value rounded to double (exact when the text is
/// a double): a finite text stored as an infinity has an infinite error, "inf" stored as inf
/// none; NaN stored or read gives NaN errors.
/// Throws std::invalid_argument (quoting at most 64 bytes of text) for text that is not a
/// number, rounding::stochastic, or invalid mode/policy values.
template <class T, std::enable_if_t<is_mixprec_float<T>::value, int> = 0>
text_explanation explain(std::string_view text, rounding mode = rounding::nearest_even,
                         overflow policy = overflow::ieee) {
  using F = typename float_traits<T>::format_type;
  detail::require_random_bits(mode);
  detail::require_valid(policy);
  bool neg = false;
  std::string_view body;
  std::chars_format fmt{};
  detail::unpacked u{};
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
  const T stored = T::from_bits(detail::pack<F>(u, mode, policy, 0));
  e.stored = explain(stored);
  e.source = std::string(text);
  e.mode = to_string(mode);
  e.policy = policy == overflow::ieee ? "ieee" : "saturate";
  if (!detail::round_parsed<F>(u, mode, policy).ok) {
    e.out_of_range = true;
    e.range = detail::range_reason<T>(u, mode) + "; from_chars reports result_out_of_range; round_to gives " +
              e.stored.shortest;
  }
  e.why = detail::why_line<T>(u, stored, e.stored.kind, mode, policy);
  using D = typename float_traits<double>::format_type;
  const double source = float_traits<double>::from_bits(detail::pack<D>(u, rounding::nearest_even, overflow::ieee, 0));
  const double s = static_cast<double>(stored);
  if (u.cls == detail::value_class::finite && std::isinf(s)) {
    e.abs_error = s;  // a finite number stored as an infinity (source may be infinite in double too)
  } else if (u.cls == detail::value_class::infinite && detail::exact_eq(s, source)) {
    e.abs_error = 0;  // "inf" stored as inf
  } else {
    e.abs_error = s - source;
  }
  e.rel_error = !detail::exact_eq(source, 0.0) && std::isfinite(source) ? e.abs_error / std::fabs(source) : 0.0;
  const double ulp_d = isfinite(stored) ? static_cast<double>(ulp(stored)) : 0.0;
  e.ulp_error = !detail::exact_eq(ulp_d, 0.0) ? e.abs_error / ulp_d : e.abs_error;
  return e;
}

/// Prints the text, the mode, the range and why lines, the stored value's explanation and the errors.
inline std::ostream& operator<<(std::ostream& os, const text_explanation& t) {
  os << "source    " << t.source << " (text, rounded once)\n";
  os << "rounding  " << t.mode << ", overflow::" << t.policy << '\n';
  if (!t.range.empty()) os << "range     " << t.range << '\n';
  if (!t.why.empty()) os << "why       " << t.why << '\n';
  os << t.stored;
  os << "  error     " << t.abs_error << " absolute, " << t.rel_error << " relative, " << t.ulp_error << " ulp\n";
  return os;
}

}  // namespace mixprec

#endif  // MIXPREC_EXPLAIN_HPP
