// SPDX-License-Identifier: MIT
// mixprec/text/detail/parse.hpp — from_chars's reading: scan_float reads std::from_chars's grammar into
// an exact value (any length: digits past the kept ones become a sticky bit), and round_parsed
// rounds it once through the codec with from_chars's range rules (overflow, underflow to zero,
// values the format lacks).
#ifndef MIXPREC_TEXT_DETAIL_PARSE_HPP
#define MIXPREC_TEXT_DETAIL_PARSE_HPP

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../../core/detail/codec.hpp"
#include "../../core/detail/values.hpp"
#include "../../core/format.hpp"
#include "../../core/rounding.hpp"
#include "decimal.hpp"

namespace mixprec {
namespace detail {

/// The format that rounds like f inside one binade but has room above it: used to tell whether
/// a value in f's top (or, for e8m0fnu, just below its bottom) binade rounds out of it. A format
/// type for a format type (its branches fold), a format_desc for a format_desc.
template <class F, std::enable_if_t<is_format<F>::value, int> = 0>
constexpr format<11, F::mantissa_bits, encoding::finite> wide_twin(const F&) noexcept {
  return {};
}
inline format_desc wide_twin(const format_desc& f) noexcept {
  return format_desc::make(11, f.mantissa_bits, encoding::finite);
}

/// The code of 1 in format f.
template <class D>
constexpr std::uint64_t one_code_of(const D& f) noexcept {
  return encode(f, exact_value{value_class::finite, false, false, 0, std::uint64_t{1} << 63}, rounding::nearest_even,
                overflow::ieee);
}

/// The offset (in units of f's last place) of u's significand rounded to f's precision within
/// its binade: 0 .. 2^M, where 2^M means it carried into the next binade.
template <class D>
inline std::uint64_t rounded_offset_in_binade(const D& f, const exact_value& u, rounding mode) noexcept {
  const auto g = wide_twin(f);
  exact_value v = u;
  v.exp = 0;
  return (encode(g, v, mode, overflow::saturate) & g.magnitude_mask) - one_code_of(g);
}

/// Whether finite non-zero u, rounded with an unbounded exponent, exceeds f's largest value.
template <class D>
inline bool beyond_max(const D& f, const exact_value& u, rounding mode) noexcept {
  if (u.exp != f.emax) return u.exp > f.emax;
  const std::uint64_t top = encode(f, exact_value{value_class::finite, false, false, f.emax, std::uint64_t{1} << 63},
                                   rounding::nearest_even, overflow::ieee) &
                            f.magnitude_mask;  // the code of 2^emax
  return top + rounded_offset_in_binade(f, u, mode) > f.max_code;
}

/// Whether finite positive u, rounded with an unbounded exponent, is below 2^emin (e8m0fnu).
template <class D>
inline bool below_min(const D& f, const exact_value& u, rounding mode) noexcept {
  if (u.exp >= f.emin) return false;
  if (u.exp < f.emin - 1) return true;
  return rounded_offset_in_binade(f, u, mode) != (std::uint64_t{1} << f.mantissa_bits);
}

/// The code from_chars gives for an exact value, or ok == false: out of range
/// (docs/pages/printing.md#parsing).
struct parse_rounding {
  std::uint64_t code;
  bool ok;
};

/// The result of from_chars for the exact value u in format f.
template <class D>
inline parse_rounding round_parsed(const D& f, const exact_value& u, rounding mode, overflow policy) noexcept {
  const parse_rounding out_of_range{0, false};
  if (u.cls == value_class::nan) {
    if (!f.has_nan) return out_of_range;
    return {encode(f, u, mode, policy), true};
  }
  if (!f.is_signed && u.sign && u.cls != value_class::zero) return out_of_range;  // no negative values
  if (f.enc == encoding::exponent_only && u.cls == value_class::zero) return out_of_range;
  if (u.cls == value_class::infinite) {
    if (f.has_infinity || policy == overflow::saturate) return {encode(f, u, mode, policy), true};
    return out_of_range;
  }
  if (u.cls == value_class::zero) return {encode(f, u, mode, policy), true};
  if (beyond_max(f, u, mode)) {
    if (policy == overflow::saturate) return {encode(f, u, mode, overflow::saturate), true};
    return out_of_range;
  }
  if (f.enc == encoding::exponent_only) {
    if (below_min(f, u, mode)) return out_of_range;
    return {encode(f, u, mode, policy), true};
  }
  const std::uint64_t code = encode(f, u, mode, policy);
  if ((code & f.magnitude_mask) == 0) return out_of_range;  // underflow to zero
  return {code, true};
}

// ---------------------------------------------------------------------------------------------
// Parsing text into an exact value.

/// Significant decimal digits kept exactly; the rest only count as "non-zero below". Every
/// midpoint between neighbours of a format of at most 53 bits and exponents down to 2^-1076 has
/// fewer than 780 significant digits, so keeping 800 plus a sticky digit decides every rounding.
inline constexpr int parse_kept_digits = 800;
/// Exponent magnitudes are saturated here while parsing (text of absurd length only).
inline constexpr long long parse_exponent_cap = 1000000000000000LL;

constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
constexpr int hex_digit_value(char c) noexcept {
  return (c >= '0' && c <= '9')   ? c - '0'
         : (c >= 'a' && c <= 'f') ? c - 'a' + 10
         : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                  : -1;
}
constexpr char ascii_lower(char c) noexcept {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}
constexpr bool is_nan_char(char c) noexcept {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
/// Whether [p, last) starts with the lower-case word w, in any case.
inline bool starts_with_word(const char* p, const char* last, const char* w) noexcept {
  for (; *w != '\0'; ++w, ++p) {
    if (p == last || ascii_lower(*p) != *w) return false;
  }
  return true;
}

/// mant * 2^exp2 (mant non-zero), plus something below its last bit if sticky.
inline exact_value finite_from_bits(bool neg, std::uint64_t mant, bool sticky, long long exp2) noexcept {
  const int lz = clz64(mant);
  long long e = exp2 + 63 - lz;
  if (e > 100000) e = 100000;    // far beyond every format: overflow
  if (e < -100000) e = -100000;  // far below every format: underflow
  const std::uint64_t sig = (mant << lz) | (sticky ? 1u : 0u);
  return {value_class::finite, neg, false, static_cast<int>(e), sig};
}

/// The exact value of digits[0..nd) * 10^exp10 (+ something below the last digit if sticky),
/// as an exact value whose 63 leading bits are exact and whose bit 0 is sticky.
inline exact_value decimal_to_exact(bool neg, char* digits, int nd, long long exp10, bool sticky) noexcept {
  const long long sci = exp10 + nd - 1;  // the value lies in [10^sci, 10^(sci+1))
  if (sci > 400) return {value_class::finite, neg, false, 100000, std::uint64_t{1} << 63};
  if (sci < -400) return {value_class::finite, neg, false, -100000, (std::uint64_t{1} << 63) | 1u};
  if (sticky) {  // the dropped digits lie strictly between two multiples of the last kept digit
    digits[nd++] = '1';
    --exp10;
  }
  bignum b;
  b.assign_decimal(digits, nd);
  if (exp10 >= 0) {
    b.mul_pow5(static_cast<int>(exp10));
    b.shl(static_cast<int>(exp10));
    bool below = false;
    std::uint64_t sig = b.top64(below);
    if (below) sig |= 1u;
    return {value_class::finite, neg, false, b.bit_length() - 1, sig};
  }
  bignum den(1);
  den.mul_pow5(static_cast<int>(-exp10));
  int e = 0;
  const std::uint64_t sig = divide_top64(b, den, e);
  return {value_class::finite, neg, false, e + static_cast<int>(exp10), sig};
}

/// Scans the longest prefix of [first, last) that std::from_chars(fmt) accepts; on success
/// stores its exact value in u and its end in end.
inline bool scan_float(const char* first, const char* last, std::chars_format fmt, exact_value& u,
                       const char*& end) noexcept {
  const char* p = first;
  bool neg = false;
  if (p != last && *p == '-') {
    neg = true;
    ++p;
  }
  if (p == last) return false;
  const char c0 = ascii_lower(*p);
  if (c0 == 'i') {
    if (!starts_with_word(p, last, "inf")) return false;
    p += 3;
    if (starts_with_word(p, last, "inity")) p += 5;
    u = {value_class::infinite, neg, false, 0, 0};
    end = p;
    return true;
  }
  if (c0 == 'n') {
    if (!starts_with_word(p, last, "nan")) return false;
    p += 3;
    if (p != last && *p == '(') {
      const char* q = p + 1;
      while (q != last && is_nan_char(*q)) ++q;
      if (q != last && *q == ')') p = q + 1;
    }
    u = {value_class::nan, neg, true, 0, 0};
    end = p;
    return true;
  }

  const bool hex = fmt == std::chars_format::hex;
  const bool sci = (fmt & std::chars_format::scientific) != std::chars_format{};
  const bool fix = (fmt & std::chars_format::fixed) != std::chars_format{};
  const bool exponent_allowed = hex || sci;
  const bool exponent_required = !hex && sci && !fix;

  bool any_digit = false;
  bool nonzero_seen = false;
  bool sticky = false;
  long long scale = 0;  // decimal: power of 10; hex: power of 2
  char digits[parse_kept_digits + 1];
  int nd = 0;
  std::uint64_t mant = 0;
  int nibbles = 0;

  // Accepts one mantissa digit; returns false at a non-digit.
  auto take = [&](char c, bool fraction) -> bool {
    if (hex) {
      const int v = hex_digit_value(c);
      if (v < 0) return false;
      any_digit = true;
      if (!nonzero_seen && v == 0) {
        if (fraction && scale > -parse_exponent_cap) scale -= 4;
        return true;
      }
      nonzero_seen = true;
      if (nibbles < 16) {
        mant = (mant << 4) | static_cast<std::uint64_t>(v);
        ++nibbles;
        if (fraction && scale > -parse_exponent_cap) scale -= 4;
      } else {
        sticky = sticky || v != 0;
        if (!fraction && scale < parse_exponent_cap) scale += 4;
      }
      return true;
    }
    if (!is_digit(c)) return false;
    any_digit = true;
    if (!nonzero_seen && c == '0') {
      if (fraction && scale > -parse_exponent_cap) --scale;
      return true;
    }
    nonzero_seen = true;
    if (nd < parse_kept_digits) {
      digits[nd++] = c;
      if (fraction && scale > -parse_exponent_cap) --scale;
    } else {
      sticky = sticky || c != '0';
      if (!fraction && scale < parse_exponent_cap) ++scale;
    }
    return true;
  };

  while (p != last && take(*p, false)) ++p;
  if (p != last && *p == '.') {
    ++p;
    while (p != last && take(*p, true)) ++p;
  }
  if (!any_digit) return false;

  long long exponent = 0;
  const char mark = hex ? 'p' : 'e';
  if (exponent_allowed && p != last && ascii_lower(*p) == mark) {
    const char* q = p + 1;
    bool eneg = false;
    if (q != last && (*q == '+' || *q == '-')) {
      eneg = *q == '-';
      ++q;
    }
    if (q != last && is_digit(*q)) {
      long long v = 0;
      for (; q != last && is_digit(*q); ++q) {
        if (v < parse_exponent_cap) v = v * 10 + (*q - '0');
      }
      exponent = eneg ? -v : v;
      p = q;
    } else if (exponent_required) {
      return false;
    }
  } else if (exponent_required) {
    return false;
  }
  end = p;

  if (!nonzero_seen) {
    u = {value_class::zero, neg, false, 0, 0};
    return true;
  }
  if (hex) {
    u = finite_from_bits(neg, mant, sticky, scale + exponent);
    return true;
  }
  u = decimal_to_exact(neg, digits, nd, scale + exponent, sticky);
  return true;
}

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_TEXT_DETAIL_PARSE_HPP
