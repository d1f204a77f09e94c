// SPDX-License-Identifier: MIT
// mixprec/text/detail/print.hpp — to_chars's writing: describe (a code as sign, class and m * 2^q),
// shortest_decimal (the shortest digits that read back), and emit_number (printf's plain, fixed,
// scientific, general and hex layouts into a fixed text_buffer).
#ifndef MIXPREC_TEXT_DETAIL_PRINT_HPP
#define MIXPREC_TEXT_DETAIL_PRINT_HPP

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../../core/detail/codec.hpp"
#include "../../core/detail/values.hpp"
#include "../../core/format.hpp"
#include "decimal.hpp"
#include "parse.hpp"

namespace mixprec {
namespace detail {

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

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_TEXT_DETAIL_PRINT_HPP
