// SPDX-License-Identifier: MIT
// mixprec/text/charconv.hpp — to_chars and from_chars for every mixprec type (and for float and
// double, through float_traits).
//
//   to_chars(first, last, x[, fmt[, precision]])                 as std::to_chars
//   from_chars(first, last, x[, fmt])                            as std::from_chars
//   from_chars(first, last, x, rounding[, overflow][, fmt])      in any mode but stochastic
//
// Contract: to_chars prints std::to_chars's spelling; without a precision, the shortest text that
// from_chars reads back (the nearest to x among those), with one, printf's text of the exact value;
// a short buffer gives {last, errc::value_too_large} and writes nothing. from_chars accepts
// std::from_chars's grammar and rounds text of any length ONCE from its exact value; malformed
// text is errc::invalid_argument, overflow, underflow to zero or a value the format lacks is
// errc::result_out_of_range (overflow::saturate clamps instead), the value unchanged on error.
// Every rule (shortest, hex layout, out of range): docs/pages/printing.md#to_chars-and-from_chars.
//
//   char buf[32];
//   auto r = mixprec::to_chars(buf, buf + 32, mixprec::bfloat16(0.1f));   // "0.1"
//   mixprec::half h;
//   mixprec::from_chars(buf, r.ptr, h);                                  // h = half(0.1), rounded once
#ifndef MIXPREC_CHARCONV_HPP
#define MIXPREC_CHARCONV_HPP

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>
#include <type_traits>

#include "../core/basic_float.hpp"
#include "../core/detail/codec.hpp"
#include "../core/detail/values.hpp"
#include "../core/format.hpp"
#include "../core/rounding.hpp"

namespace mixprec {
namespace detail {

// ---------------------------------------------------------------------------------------------
// A small unsigned big integer (fixed capacity, no allocation).

/// Called only if a size bound that the algorithms below guarantee were exceeded.
[[noreturn]] inline void charconv_bound_exceeded() noexcept { std::abort(); }

class bignum {
 public:
  /// 4096 bits. The largest numbers used: 10^801 * 2^64 / 5^1201 while parsing (< 2900 bits)
  /// and (2^55) * 5^1077 while printing (< 2560 bits).
  static constexpr int capacity = 128;

  bignum() noexcept = default;
  explicit bignum(std::uint64_t v) noexcept { assign(v); }

  void assign(std::uint64_t v) noexcept {
    size_ = 0;
    while (v != 0) {
      limb_[size_++] = static_cast<std::uint32_t>(v);
      v >>= 32;
    }
  }
  /// The value of n decimal digits ('0'..'9').
  void assign_decimal(const char* digits, int n) noexcept {
    static constexpr std::uint32_t pow10[10] = {1u,      10u,      100u,      1000u,      10000u,
                                                100000u, 1000000u, 10000000u, 100000000u, 1000000000u};
    size_ = 0;
    int i = 0;
    while (i < n) {
      const int chunk = n - i < 9 ? n - i : 9;
      std::uint32_t v = 0;
      for (int k = 0; k < chunk; ++k) v = v * 10u + static_cast<std::uint32_t>(digits[i + k] - '0');
      mul_small(pow10[chunk]);
      add_small(v);
      i += chunk;
    }
  }

  bool is_zero() const noexcept { return size_ == 0; }
  int bit_length() const noexcept {
    return size_ == 0 ? 0 : (size_ - 1) * 32 + 64 - clz64(limb_[size_ - 1]);
  }

  void mul_small(std::uint32_t m) noexcept {
    std::uint64_t carry = 0;
    for (int i = 0; i < size_; ++i) {
      const std::uint64_t t = std::uint64_t{limb_[i]} * m + carry;
      limb_[i] = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
    if (carry != 0) push(static_cast<std::uint32_t>(carry));
    trim();
  }
  void add_small(std::uint32_t a) noexcept {
    std::uint64_t carry = a;
    for (int i = 0; carry != 0 && i < size_; ++i) {
      const std::uint64_t t = std::uint64_t{limb_[i]} + carry;
      limb_[i] = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
    if (carry != 0) push(static_cast<std::uint32_t>(carry));
  }
  /// Subtracts 1 from a non-zero value.
  void sub_one() noexcept {
    for (int i = 0; i < size_; ++i) {
      if (limb_[i] != 0) {
        --limb_[i];
        break;
      }
      limb_[i] = 0xFFFFFFFFu;
    }
    trim();
  }
  void mul_pow5(int n) noexcept {
    static constexpr std::uint32_t pow5[13] = {1u,      5u,       25u,       125u,       625u,
                                               3125u,   15625u,   78125u,    390625u,    1953125u,
                                               9765625u, 48828125u, 244140625u};
    while (n >= 13) {
      mul_small(1220703125u);  // 5^13
      n -= 13;
    }
    if (n > 0) mul_small(pow5[n]);
  }
  void shl(int bits) noexcept {
    if (size_ == 0 || bits <= 0) return;
    const int limbs = bits / 32;
    const int rest = bits % 32;
    if (size_ + limbs + 1 > capacity) charconv_bound_exceeded();
    limb_[size_ + limbs] = 0;
    for (int i = size_ - 1; i >= 0; --i) {
      const std::uint64_t v = std::uint64_t{limb_[i]} << rest;
      limb_[i + limbs + 1] |= static_cast<std::uint32_t>(v >> 32);
      limb_[i + limbs] = static_cast<std::uint32_t>(v);
    }
    for (int i = 0; i < limbs; ++i) limb_[i] = 0;
    size_ += limbs + 1;
    trim();
  }
  /// *this -= b, where *this >= b.
  void sub(const bignum& b) noexcept {
    std::uint64_t borrow = 0;
    for (int i = 0; i < size_; ++i) {
      const std::uint64_t bi = i < b.size_ ? b.limb_[i] : 0u;
      const std::uint64_t t = std::uint64_t{limb_[i]} - bi - borrow;
      limb_[i] = static_cast<std::uint32_t>(t);
      borrow = t >> 63;
    }
    trim();
  }
  /// Divides by d (non-zero); returns the remainder.
  std::uint32_t div_small(std::uint32_t d) noexcept {
    std::uint64_t rem = 0;
    for (int i = size_ - 1; i >= 0; --i) {
      const std::uint64_t cur = (rem << 32) | limb_[i];
      limb_[i] = static_cast<std::uint32_t>(cur / d);
      rem = cur % d;
    }
    trim();
    return static_cast<std::uint32_t>(rem);
  }
  /// The 64 leading bits of a non-zero value (the leading one in bit 63); sticky tells whether
  /// any bit below them is set.
  std::uint64_t top64(bool& sticky) const noexcept {
    const int bl = bit_length();
    if (bl <= 64) {
      sticky = false;
      return (std::uint64_t{limb(0)} | (std::uint64_t{limb(1)} << 32)) << (64 - bl);
    }
    const int s = bl - 64;
    const int li = s / 32;
    const int bi = s % 32;
    const std::uint64_t lo = std::uint64_t{limb(li)} | (std::uint64_t{limb(li + 1)} << 32);
    std::uint64_t r = lo >> bi;
    if (bi != 0) r |= std::uint64_t{limb(li + 2)} << (64 - bi);
    sticky = bi != 0 && (limb(li) & ((std::uint32_t{1} << bi) - 1u)) != 0;
    for (int i = 0; i < li && !sticky; ++i) sticky = limb_[i] != 0;
    return r;
  }

  friend int compare(const bignum& a, const bignum& b) noexcept {
    if (a.size_ != b.size_) return a.size_ < b.size_ ? -1 : 1;
    for (int i = a.size_ - 1; i >= 0; --i) {
      if (a.limb_[i] != b.limb_[i]) return a.limb_[i] < b.limb_[i] ? -1 : 1;
    }
    return 0;
  }

 private:
  std::uint32_t limb(int i) const noexcept { return i < size_ ? limb_[i] : 0u; }
  void push(std::uint32_t v) noexcept {
    if (size_ == capacity) charconv_bound_exceeded();
    limb_[size_++] = v;
  }
  void trim() noexcept {
    while (size_ > 0 && limb_[size_ - 1] == 0) --size_;
  }

  std::uint32_t limb_[capacity] = {};
  int size_ = 0;
};

/// n / d (both non-zero) as a 64-bit significand with its leading one in bit 63 and every
/// discarded bit folded into bit 0; e receives the exponent: n / d lies in [2^e, 2^(e+1)).
inline std::uint64_t divide_top64(bignum n, bignum d, int& e) noexcept {
  int k = n.bit_length() - d.bit_length();
  if (k > 0) d.shl(k);
  if (k < 0) n.shl(-k);
  if (compare(n, d) < 0) {
    n.shl(1);
    --k;
  }
  std::uint64_t q = 0;
  for (int i = 0; i < 64; ++i) {  // restoring division, one bit at a time; n < 2d throughout
    q <<= 1;
    if (compare(n, d) >= 0) {
      n.sub(d);
      q |= 1u;
    }
    n.shl(1);
  }
  if (!n.is_zero()) q |= 1u;
  e = k;
  return q;
}

// ---------------------------------------------------------------------------------------------
// Decimal digit strings.

/// Enough for every decimal digit string used here (the bignum capacity: 4096 bits < 1234 digits).
inline constexpr int max_decimal_digits = 1280;

/// A non-negative decimal d[0].d[1]d[2]... * 10^x with n significant digits (no leading or
/// trailing zeros); zero has n == 0 and x == 0.
struct decimal {
  char d[max_decimal_digits];
  int n;
  int x;
};

/// Writes the decimal digits of x (non-zero; destroyed) to out, most significant first, and
/// returns their count.
inline int to_decimal_digits(bignum& x, char* out) noexcept {
  constexpr int max_chunks = max_decimal_digits / 9;
  std::uint32_t chunks[max_chunks];
  int nc = 0;
  while (!x.is_zero()) {
    if (nc == max_chunks) charconv_bound_exceeded();
    chunks[nc++] = x.div_small(1000000000u);
  }
  int len = 0;
  char tmp[10];
  int k = 0;
  std::uint32_t c = chunks[nc - 1];
  do {
    tmp[k++] = static_cast<char>('0' + c % 10u);
    c /= 10u;
  } while (c != 0);
  while (k > 0) out[len++] = tmp[--k];
  for (int i = nc - 2; i >= 0; --i) {
    c = chunks[i];
    for (int j = 8; j >= 0; --j) {
      out[len + j] = static_cast<char>('0' + c % 10u);
      c /= 10u;
    }
    len += 9;
  }
  return len;
}

/// Sets r to the digit string s[0..len) (leading zeros allowed) times 10^scale, normalized.
inline void set_decimal(decimal& r, const char* s, int len, int scale) noexcept {
  int z = 0;
  while (z < len && s[z] == '0') ++z;
  int end = len;
  while (end > z && s[end - 1] == '0') --end;
  if (z == end) {
    r.n = 0;
    r.x = 0;
    return;
  }
  r.n = end - z;
  std::memcpy(r.d, s + z, static_cast<std::size_t>(r.n));
  r.x = scale + (len - 1 - z);
}

/// The exact decimal value of m * 2^q (m > 0).
inline void exact_decimal(std::uint64_t m, int q, decimal& r) noexcept {
  bignum b(m);
  int scale = 0;
  if (q >= 0) {
    b.shl(q);
  } else {
    b.mul_pow5(-q);
    scale = q;
  }
  char buf[max_decimal_digits];
  const int len = to_decimal_digits(b, buf);
  set_decimal(r, buf, len, scale);
}

/// Rounds r to a multiple of 10^pos, ties to even.
inline void round_decimal(decimal& r, long long pos) noexcept {
  if (r.n == 0) return;
  const long long keep = static_cast<long long>(r.x) - pos + 1;  // digits kept
  if (keep >= r.n) return;
  if (keep < 0) {  // r < 10^(pos-1): below half of 10^pos
    r.n = 0;
    r.x = 0;
    return;
  }
  const int k = static_cast<int>(keep);
  const char next = r.d[k];
  const bool rest = r.n > k + 1;  // digits after `next` (the last digit is never zero)
  bool up = next > '5' || (next == '5' && rest);
  if (next == '5' && !rest) up = k > 0 && ((r.d[k - 1] - '0') & 1) != 0;  // tie: to even
  if (k == 0) {
    if (up) {
      r.d[0] = '1';
      r.n = 1;
      r.x = static_cast<int>(pos);
    } else {
      r.n = 0;
      r.x = 0;
    }
    return;
  }
  r.n = k;
  if (up) {
    int i = k - 1;
    while (i >= 0 && r.d[i] == '9') --i;
    if (i < 0) {
      r.d[0] = '1';
      r.n = 1;
      ++r.x;
      return;
    }
    ++r.d[i];
    r.n = i + 1;
  }
  while (r.n > 0 && r.d[r.n - 1] == '0') --r.n;
}

// ---------------------------------------------------------------------------------------------
// Rounding a parsed value: the one rounding core (encode) plus the range rules of from_chars.

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

// ---------------------------------------------------------------------------------------------
// Printing.

/// What printing needs to know about a value, independent of its format.
struct number_info {
  value_class cls;
  bool negative;
  std::uint64_t m;  // finite: |value| = m * 2^q
  int q;
  int mant_bits;    // the format's stored mantissa bits (hex layout)
  bool hex_normal;  // hex: leading digit 1 (else 0)
  int hex_exp;      // hex: the printed binary exponent
  // Shortest: the values that read back as this one are those strictly (or, when inclusive,
  // also exactly) between (4m - low_gap) * 2^(q-2) and (4m + 2) * 2^(q-2).
  int low_gap;
  bool low_inclusive;
  bool high_inclusive;
};

/// Whether x * 2^s reads back (from_chars, nearest-even) as the value with the given code of f.
template <class D>
inline bool reads_back_as(const D& f, std::uint64_t x, int s, bool sign, std::uint64_t code) noexcept {
  const int lz = clz64(x);
  const exact_value u{value_class::finite, sign, false, s + 63 - lz, x << lz};
  const parse_rounding r = round_parsed(f, u, rounding::nearest_even, overflow::ieee);
  return r.ok && r.code == code;
}

/// What printing needs to know about the value of code in format f.
template <class D>
inline number_info describe(const D& f, std::uint64_t code) noexcept {
  const int M = f.mantissa_bits;
  const exact_value u = decode(f, code);
  number_info n{};
  n.cls = u.cls;
  n.negative = u.sign;
  n.mant_bits = M;
  if (u.cls != value_class::finite) return n;
  const int e = u.exp < f.emin ? f.emin : u.exp;
  n.q = e - M;
  n.m = u.sig >> (63 - M + (e - u.exp));
  n.hex_normal = u.exp >= f.emin;
  n.hex_exp = e;
  const bool half_below = n.m == (std::uint64_t{1} << M) && (u.exp > f.emin || !f.has_subnormals);
  n.low_gap = half_below ? 1 : 2;
  const std::uint64_t canonical = encode(f, u, rounding::nearest_even, overflow::ieee);
  n.low_inclusive = reads_back_as(f, 4 * n.m - static_cast<std::uint64_t>(n.low_gap), n.q - 2, u.sign, canonical);
  n.high_inclusive = reads_back_as(f, 4 * n.m + 2, n.q - 2, u.sign, canonical);
  return n;
}

/// Decimal exponent digits printed by scientific notation.
constexpr int exponent_width(int e) noexcept { return (e >= 100 || e <= -100) ? 3 : 2; }

/// The shortest decimals that read back as the finite non-zero value n.
///   r:   the fewest significant digits at the coarsest decimal position (the multiple of the
///        largest power of ten in the interval nearest to n; ties to even). This is also the
///        shortest fixed notation.
///   sci: the shortest scientific notation, nearest to n. It differs from r only when the
///        interval holds a power of ten P = 10^j: then r = P, but a one-digit d * 10^(j-1)
///        below P is as short and may be nearer (or shorter, when the exponent loses a digit).
inline void shortest_decimal(const number_info& n, decimal& r, decimal& sci) noexcept {
  bignum lo(4 * n.m - static_cast<std::uint64_t>(n.low_gap));
  bignum hi(4 * n.m + 2);
  bignum v(4 * n.m);
  const int s = n.q - 2;
  int scale = 0;
  if (s >= 0) {
    lo.shl(s);
    hi.shl(s);
    v.shl(s);
  } else {
    lo.mul_pow5(-s);
    hi.mul_pow5(-s);
    v.mul_pow5(-s);
    scale = s;
  }
  // Integer bounds (in units of 10^scale) of the candidates.
  if (!n.low_inclusive) lo.add_small(1);
  if (!n.high_inclusive) hi.sub_one();

  char h[max_decimal_digits];
  char l[max_decimal_digits];
  char w[max_decimal_digits];
  bignum hi_copy = hi;
  const int len = to_decimal_digits(hi_copy, h);
  auto right_align = [len](bignum b, char* out) {
    char tmp[max_decimal_digits];
    const int k = to_decimal_digits(b, tmp);
    std::memset(out, '0', static_cast<std::size_t>(len - k));
    std::memcpy(out + (len - k), tmp, static_cast<std::size_t>(k));
  };
  right_align(lo, l);
  right_align(v, w);

  // lo < hi: they differ first at index c; the last non-zero digit of lo is at index t.
  int c = 0;
  while (h[c] == l[c]) ++c;
  int t = len - 1;
  while (l[t] == '0') --t;
  char out[max_decimal_digits];
  int out_len = 0;
  if (t < c) {
    // lo itself has the fewest digits: every shorter multiple lies outside.
    std::memcpy(out, l, static_cast<std::size_t>(t + 1));
    out_len = t + 1;
  } else {
    // Candidates: the common prefix followed by one digit in [dl, dh]; take the one nearest to
    // v (ties to even).
    const int dl = (l[c] - '0') + (t > c ? 1 : 0);
    const int dh = h[c] - '0';
    int dv = w[c] - '0';
    int cmp = -1;  // the rest of v after index c against half a unit of index c
    if (c + 1 < len) {
      if (w[c + 1] > '5') {
        cmp = 1;
      } else if (w[c + 1] == '5') {
        cmp = 0;
        for (int i = c + 2; i < len; ++i) {
          if (w[i] != '0') {
            cmp = 1;
            break;
          }
        }
      }
    }
    if (cmp > 0 || (cmp == 0 && (dv & 1) != 0)) ++dv;
    if (dv < dl) dv = dl;
    if (dv > dh) dv = dh;
    std::memcpy(out, h, static_cast<std::size_t>(c));
    out[c] = static_cast<char>('0' + dv);
    out_len = c + 1;
  }
  // out (with len - out_len implied trailing zeros) * 10^scale
  set_decimal(r, out, out_len, scale + (len - out_len));
  sci = r;
  if (r.n != 1 || r.d[0] != '1' || r.x - 1 < scale) return;

  // r = P = 10^j lies in [lo, hi]. The one-digit candidates below P: d * 10^(j-1) >= lo.
  const int j = r.x;
  bignum unit(1);  // 10^(j-1), in units of 10^scale
  unit.mul_pow5(j - 1 - scale);
  unit.shl(j - 1 - scale);
  bignum p = unit;
  p.mul_small(10);
  int best = 0;  // the nearest lower candidate's digit, 0 if none
  bignum best_dist;
  for (std::uint32_t d = 9; d >= 1; --d) {
    bignum cand = unit;
    cand.mul_small(d);
    if (compare(cand, lo) < 0) break;
    bignum dist = v;  // |v - cand|
    if (compare(v, cand) >= 0) {
      dist.sub(cand);
    } else {
      dist = cand;
      dist.sub(v);
    }
    if (best == 0 || compare(dist, best_dist) < 0 || (compare(dist, best_dist) == 0 && d % 2 == 0)) {
      best = static_cast<int>(d);
      best_dist = dist;
    }
  }
  if (best == 0) return;
  bool lower = false;
  if (exponent_width(j - 1) != exponent_width(j)) {
    lower = exponent_width(j - 1) < exponent_width(j);
  } else {
    bignum dist_p = p;  // |v - P|
    if (compare(v, p) >= 0) {
      dist_p = v;
      dist_p.sub(p);
    } else {
      dist_p.sub(v);
    }
    const int cmp = compare(best_dist, dist_p);
    lower = cmp < 0 || (cmp == 0 && best % 2 == 0);
  }
  if (lower) {
    sci.n = 1;
    sci.d[0] = static_cast<char>('0' + best);
    sci.x = j - 1;
  }
}

/// Output assembled before anything is written: head, then `zeros` zeros, then tail.
struct text_buffer {
  static constexpr std::size_t head_capacity = 1600;
  char head[head_capacity];
  std::size_t head_len = 0;
  std::size_t zeros = 0;
  char tail[16];
  std::size_t tail_len = 0;

  void put(char c) noexcept {
    if (head_len == head_capacity) charconv_bound_exceeded();
    head[head_len++] = c;
  }
  void put(const char* s) noexcept {
    while (*s != '\0') put(*s++);
  }
  void put_exponent(char letter, long long e, int min_digits) noexcept {
    tail[tail_len++] = letter;
    tail[tail_len++] = e < 0 ? '-' : '+';
    unsigned long long a = e < 0 ? 0ull - static_cast<unsigned long long>(e) : static_cast<unsigned long long>(e);
    char tmp[24];
    int k = 0;
    do {
      tmp[k++] = static_cast<char>('0' + a % 10u);
      a /= 10u;
    } while (a != 0);
    while (k < min_digits) tmp[k++] = '0';
    while (k > 0) tail[tail_len++] = tmp[--k];
  }
  bool has_point() const noexcept { return std::memchr(head, '.', head_len) != nullptr; }
};

inline std::to_chars_result commit(char* first, char* last, const text_buffer& t) noexcept {
  const std::size_t avail = last > first ? static_cast<std::size_t>(last - first) : 0u;
  if (t.zeros > avail || t.head_len + t.tail_len > avail - t.zeros) return {last, std::errc::value_too_large};
  char* p = first;
  std::memcpy(p, t.head, t.head_len);
  p += t.head_len;
  std::memset(p, '0', t.zeros);
  p += t.zeros;
  std::memcpy(p, t.tail, t.tail_len);
  p += t.tail_len;
  return {p, std::errc{}};
}

/// d in fixed notation with `frac` digits after the point (d has no digit below 10^-frac).
inline void emit_fixed(text_buffer& t, const decimal& d, long long frac) noexcept {
  auto digit_at = [&d](long long pos) -> char {  // the digit of weight 10^pos
    const long long i = static_cast<long long>(d.x) - pos;
    return (d.n > 0 && i >= 0 && i < d.n) ? d.d[i] : '0';
  };
  if (d.n > 0 && d.x >= 0) {
    for (long long pos = d.x; pos >= 0; --pos) t.put(digit_at(pos));
  } else {
    t.put('0');
  }
  if (frac <= 0) return;
  t.put('.');
  const long long last_pos = d.n > 0 ? static_cast<long long>(d.x) - d.n + 1 : 0;  // weight of the last digit
  long long written = 0;
  for (long long pos = -1; pos >= last_pos && written < frac; --pos, ++written) t.put(digit_at(pos));
  t.zeros = static_cast<std::size_t>(frac - written);
}

/// d in scientific notation with `frac` digits after the point (d has at most frac + 1 digits).
inline void emit_scientific(text_buffer& t, const decimal& d, long long frac) noexcept {
  t.put(d.n > 0 ? d.d[0] : '0');
  if (frac > 0) {
    t.put('.');
    long long written = 0;
    for (int i = 1; i < d.n && written < frac; ++i, ++written) t.put(d.d[i]);
    t.zeros = static_cast<std::size_t>(frac - written);
  }
  t.put_exponent('e', d.n > 0 ? d.x : 0, 2);
}

inline void emit_hex(text_buffer& t, const number_info& n, int precision) noexcept {
  const int M = n.mant_bits;
  const int H = (M + 3) / 4;  // hex digits after the point
  std::uint64_t lead = 0;
  std::uint64_t frac = 0;
  int exp = 0;
  if (n.cls == value_class::finite) {
    exp = n.hex_exp;
    lead = n.hex_normal ? 1u : 0u;
    frac = (n.m & low_mask(M)) << (4 * H - M);
  }
  int ndig = H;
  if (precision >= 0 && precision < H) {
    const int drop = 4 * (H - precision);
    const std::uint64_t full = (lead << (4 * H)) | frac;
    std::uint64_t kept = full >> drop;
    const std::uint64_t rem = full & low_mask(drop);
    const std::uint64_t half = std::uint64_t{1} << (drop - 1);
    if (rem > half || (rem == half && (kept & 1u) != 0)) ++kept;
    lead = kept >> (4 * precision);
    frac = kept & low_mask(4 * precision);
    ndig = precision;
  } else if (precision < 0) {
    while (ndig > 0 && (frac & 0xFu) == 0) {
      frac >>= 4;
      --ndig;
    }
  }
  static constexpr char hexdig[] = "0123456789abcdef";
  t.put(hexdig[lead]);
  if (ndig > 0 || precision > 0) {
    t.put('.');
    for (int i = ndig - 1; i >= 0; --i) t.put(hexdig[(frac >> (4 * i)) & 0xFu]);
    if (precision > ndig) t.zeros = static_cast<std::size_t>(precision - ndig);
  }
  t.put_exponent('p', exp, 1);
}

enum class float_style : unsigned char { plain, fixed, scientific, general, hex };

/// printf's text for n. precision < 0: the shortest text (as to_chars without a precision).
/// alt: the '#' flag (always a decimal point; %#g keeps its trailing zeros).
inline void emit_number(text_buffer& t, const number_info& n, float_style style, int precision, bool alt) noexcept {
  if (n.negative) t.put('-');
  if (n.cls == value_class::nan) {
    t.put("nan");
    return;
  }
  if (n.cls == value_class::infinite) {
    t.put("inf");
    return;
  }
  if (style == float_style::hex) {
    emit_hex(t, n, precision);
  } else if (precision < 0) {
    decimal s;  // shortest, coarsest position (fixed notation)
    decimal e;  // shortest scientific notation
    s.n = 0;
    s.x = 0;
    e.n = 0;
    e.x = 0;
    if (n.cls == value_class::finite) shortest_decimal(n, s, e);
    // Fixed notation: integers whose shortest form ends in zeros are printed exactly.
    decimal exact;
    const bool use_exact = s.n > 0 && s.x - s.n + 1 > 0;
    if (use_exact) exact_decimal(n.m, n.q, exact);
    const decimal& f = use_exact ? exact : s;
    bool fixed = style == float_style::fixed;
    if (style == float_style::general) fixed = e.x >= -4 && e.x < 6;
    if (style == float_style::plain) {
      const long long fixed_len = f.x >= 0 ? (f.n > f.x + 1 ? f.n + 1 : f.x + 1) : 1LL + f.n - f.x;
      const long long sci_len = (e.n > 1 ? e.n + 1 : 1) + 2 + exponent_width(e.x);
      fixed = fixed_len <= sci_len;
    }
    if (fixed) {
      emit_fixed(t, f, f.n - 1 - f.x);
    } else {
      emit_scientific(t, e, e.n > 0 ? e.n - 1 : 0);
    }
  } else {
    decimal d;
    d.n = 0;
    d.x = 0;
    if (n.cls == value_class::finite) exact_decimal(n.m, n.q, d);
    switch (style) {
      case float_style::fixed:
        round_decimal(d, -static_cast<long long>(precision));
        emit_fixed(t, d, precision);
        break;
      case float_style::scientific:
        round_decimal(d, static_cast<long long>(d.x) - precision);
        emit_scientific(t, d, precision);
        break;
      default: {  // general (plain with a precision is general too)
        const int p = precision == 0 ? 1 : precision;
        round_decimal(d, static_cast<long long>(d.x) - (p - 1));
        const int x = d.n > 0 ? d.x : 0;
        if (p > x && x >= -4) {
          long long frac = static_cast<long long>(p) - 1 - x;
          if (!alt) frac = d.n - 1 - x > 0 ? d.n - 1 - x : 0;
          emit_fixed(t, d, frac);
        } else {
          emit_scientific(t, d, alt ? p - 1 : (d.n > 1 ? d.n - 1 : 0));
        }
        break;
      }
    }
  }
  if (alt && !t.has_point()) t.put('.');
}

template <class T>
inline std::to_chars_result to_chars_impl(char* first, char* last, T value, float_style style, int precision,
                                          bool alt = false) noexcept {
  using F = typename float_traits<T>::format_type;
  const number_info n = describe(F{}, code_of<F>(float_traits<T>::to_bits(value)));
  text_buffer t;
  emit_number(t, n, style, precision, alt);
  return commit(first, last, t);
}

inline float_style style_of(std::chars_format fmt) noexcept {
  if (fmt == std::chars_format::fixed) return float_style::fixed;
  if (fmt == std::chars_format::scientific) return float_style::scientific;
  if (fmt == std::chars_format::hex) return float_style::hex;
  return float_style::general;
}

/// Text options for the formatters (std::format, {fmt}, iostreams).
struct float_text_options {
  float_style style = float_style::plain;
  int precision = -1;  // < 0: none (shortest, or 6 where printf defaults to 6)
  bool alt = false;    // '#'
  bool upper = false;  // 'E', 'F', 'G', 'A': upper-case letters
  char plus = '\0';    // '+' or ' ' before non-negative values
};

/// The text of value under the formatter options (ASCII; no padding).
template <class T>
inline std::string float_text(T value, const float_text_options& o) {
  using F = typename float_traits<T>::format_type;
  const number_info n = describe(F{}, code_of<F>(float_traits<T>::to_bits(value)));
  text_buffer t;
  emit_number(t, n, o.style, o.precision, o.alt);
  std::string s;
  s.reserve(t.head_len + t.zeros + t.tail_len + 1);
  if (o.plus != '\0' && !n.negative) s.push_back(o.plus);
  s.append(t.head, t.head_len);
  s.append(t.zeros, '0');
  s.append(t.tail, t.tail_len);
  if (o.upper) {
    for (char& c : s) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    }
  }
  return s;
}

/// Enables the charconv functions for float, double and every mixprec type.
template <class T>
using enable_if_charconv_t = std::enable_if_t<is_binary_float<T>::value, int>;

}  // namespace detail

/// The shortest text that from_chars reads back as value: fixed or scientific, whichever is
/// shorter (fixed on a tie), as std::to_chars(first, last, value).
template <class T, detail::enable_if_charconv_t<T> = 0>
std::to_chars_result to_chars(char* first, char* last, T value) noexcept {
  return detail::to_chars_impl(first, last, value, detail::float_style::plain, -1);
}

/// The shortest text in the style fmt that reads back as value, as std::to_chars(first, last,
/// value, fmt) (hex: the stored mantissa without trailing zero digits).
template <class T, detail::enable_if_charconv_t<T> = 0>
std::to_chars_result to_chars(char* first, char* last, T value, std::chars_format fmt) noexcept {
  return detail::to_chars_impl(first, last, value, detail::style_of(fmt), -1);
}

/// printf's %.Pf / e / g / a text, P = precision (hex without "0x"), of the exact value, ties to
/// even, as std::to_chars(first, last, value, fmt, precision). A negative precision means 6
/// (for hex: the shortest text).
template <class T, detail::enable_if_charconv_t<T> = 0>
std::to_chars_result to_chars(char* first, char* last, T value, std::chars_format fmt, int precision) noexcept {
  const detail::float_style style = detail::style_of(fmt);
  if (precision < 0 && style != detail::float_style::hex) precision = 6;
  return detail::to_chars_impl(first, last, value, style, precision);
}

/// Reads a number in the grammar of std::from_chars and rounds its exact value once, in mode,
/// to T. docs/pages/printing.md ("Parsing") has the out-of-range rules. In short, with overflow::ieee a
/// value whose rounding (with an unbounded exponent) exceeds the largest finite value is
/// errc::result_out_of_range with the value unchanged — in every mode, and also for fn/fnuz
/// formats (where round_to would give NaN) and the MX formats (where it would clamp); so is
/// "inf" for a format without infinity. With overflow::saturate such values give +-max and
/// success. A non-zero value that rounds to zero is out of range under both policies.
/// rounding::stochastic and invalid mode or policy values (see is_valid in rounding.hpp) are
/// errc::invalid_argument, value unchanged.
template <class T, detail::enable_if_charconv_t<T> = 0>
std::from_chars_result from_chars(const char* first, const char* last, T& value, rounding mode,
                                  overflow policy = overflow::ieee,
                                  std::chars_format fmt = std::chars_format::general) noexcept {
  if (mode == rounding::stochastic || !is_valid(mode) || !is_valid(policy)) return {first, std::errc::invalid_argument};
  detail::exact_value u{};
  const char* end = first;
  if (!detail::scan_float(first, last, fmt, u, end)) return {first, std::errc::invalid_argument};
  using F = typename float_traits<T>::format_type;
  const detail::parse_rounding r = detail::round_parsed(F{}, u, mode, policy);
  if (!r.ok) return {end, std::errc::result_out_of_range};
  value = float_traits<T>::from_bits(detail::storage_of<F>(r.code));
  return {end, std::errc{}};
}

/// from_chars(first, last, value, mode, overflow::ieee, fmt).
template <class T, detail::enable_if_charconv_t<T> = 0>
std::from_chars_result from_chars(const char* first, const char* last, T& value, rounding mode,
                                  std::chars_format fmt) noexcept {
  return from_chars(first, last, value, mode, overflow::ieee, fmt);
}

/// As std::from_chars: correctly rounded (nearest-even) from the exact value of the text.
template <class T, detail::enable_if_charconv_t<T> = 0>
std::from_chars_result from_chars(const char* first, const char* last, T& value,
                                  std::chars_format fmt = std::chars_format::general) noexcept {
  return from_chars(first, last, value, rounding::nearest_even, overflow::ieee, fmt);
}

}  // namespace mixprec

#endif  // MIXPREC_CHARCONV_HPP
