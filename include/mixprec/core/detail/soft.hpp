// SPDX-License-Identifier: MIT
// mixprec/core/detail/soft.hpp — exact arithmetic on exact values.
//
// add, mul, div, sqrt and fma compute the exact result, or, where it has more bits than fit,
// its leading 64 bits with a sticky bit "jammed" into bit 0 (the rest of the result is non-zero).
// With at most 53 significant bits in any format that is enough for encode() to round the result
// correctly in every mode, so each operation rounds once.
#ifndef MIXPREC_DETAIL_SOFT_HPP
#define MIXPREC_DETAIL_SOFT_HPP

#include <cstdint>

#include "codec.hpp"

namespace mixprec {
namespace detail {

/// A 128-bit unsigned integer, portable and constexpr.
struct u128 {
  std::uint64_t hi;
  std::uint64_t lo;
};

MIXPREC_HD constexpr bool is_zero(u128 a) noexcept { return (a.hi | a.lo) == 0; }
MIXPREC_HD constexpr bool less(u128 a, u128 b) noexcept { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }
MIXPREC_HD constexpr u128 add(u128 a, u128 b) noexcept {
  const std::uint64_t lo = a.lo + b.lo;
  return {a.hi + b.hi + (lo < a.lo ? 1u : 0u), lo};
}
MIXPREC_HD constexpr u128 sub(u128 a, u128 b) noexcept {  // a >= b
  return {a.hi - b.hi - (a.lo < b.lo ? 1u : 0u), a.lo - b.lo};
}
MIXPREC_HD constexpr u128 shl(u128 a, int n) noexcept {  // 0 <= n < 128
  if (n == 0) return a;
  if (n >= 64) return {a.lo << (n - 64), 0};
  return {(a.hi << n) | (a.lo >> (64 - n)), a.lo << n};
}
MIXPREC_HD constexpr u128 shr(u128 a, int n) noexcept {  // 0 <= n < 128
  if (n == 0) return a;
  if (n >= 64) return {0, a.hi >> (n - 64)};
  return {a.hi >> n, (a.lo >> n) | (a.hi << (64 - n))};
}
/// Shift right, OR-ing every bit shifted out into bit 0 ("jamming").
MIXPREC_HD constexpr u128 shr_jam(u128 a, int n) noexcept {
  if (n <= 0) return a;
  if (n >= 128) return {0, is_zero(a) ? 0u : 1u};
  u128 r{};
  bool lost = false;
  if (n >= 64) {
    r = {0, a.hi >> (n - 64)};
    lost = a.lo != 0 || (n > 64 && (a.hi << (128 - n)) != 0);
  } else {
    r = {a.hi >> n, (a.lo >> n) | (a.hi << (64 - n))};
    lost = (a.lo << (64 - n)) != 0;
  }
  r.lo |= lost ? 1u : 0u;
  return r;
}
MIXPREC_HD constexpr int clz128(u128 a) noexcept {  // a != 0
  return a.hi != 0 ? clz64(a.hi) : 64 + clz64(a.lo);
}
MIXPREC_HD constexpr u128 mul64(std::uint64_t a, std::uint64_t b) noexcept {
  const std::uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
  const std::uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const std::uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
  return {p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32), (mid << 32) | (p00 & 0xffffffffu)};
}

/// A finite non-zero result from a 128-bit significand v whose bit 127 has weight 2^top.
MIXPREC_HD constexpr exact_value from_u128(bool sign, u128 v, int top) noexcept {
  const int lz = clz128(v);
  const u128 n = shl(v, lz);
  return {value_class::finite, sign, false, top - lz, n.hi | (n.lo != 0 ? 1u : 0u)};
}

MIXPREC_HD constexpr exact_value default_nan() noexcept { return {value_class::nan, false, true, 0, 0}; }
MIXPREC_HD constexpr exact_value make_zero(bool sign) noexcept { return {value_class::zero, sign, false, 0, 0}; }
MIXPREC_HD constexpr exact_value make_inf(bool sign) noexcept { return {value_class::infinite, sign, false, 0, 0}; }
MIXPREC_HD constexpr bool isnan(const exact_value& u) noexcept { return u.cls == value_class::nan; }
MIXPREC_HD constexpr exact_value quieted(exact_value u) noexcept {
  u.quiet = true;
  return u;
}

/// Sum of two finite non-zero magnitudes given as 128-bit significands (low bits zero) with the
/// weights of bit 127; sb is subtracted when the signs differ.
MIXPREC_HD constexpr exact_value add_u128(bool sa, u128 a, int ta, bool sb, u128 b, int tb,
                                       rounding mode) noexcept {
  // Normalize both, then order by magnitude.
  int la = clz128(a), lb = clz128(b);
  a = shl(a, la);
  ta -= la;
  b = shl(b, lb);
  tb -= lb;
  if (ta < tb || (ta == tb && less(a, b))) {
    const u128 t = a;
    a = b;
    b = t;
    const int te = ta;
    ta = tb;
    tb = te;
    const bool ts = sa;
    sa = sb;
    sb = ts;
  }
  // One bit of headroom for the carry; a loses nothing (its low bits are zero).
  a = shr_jam(a, 1);
  b = shr_jam(b, 1 + (ta - tb));
  if (sa == sb) return from_u128(sa, add(a, b), ta + 1);
  const u128 d = sub(a, b);
  if (is_zero(d)) return make_zero(mode == rounding::downward);
  return from_u128(sa, d, ta + 1);
}

MIXPREC_HD constexpr exact_value soft_add(const exact_value& x, const exact_value& y, rounding mode) noexcept {
  if (isnan(x)) return quieted(x);
  if (isnan(y)) return quieted(y);
  if (x.cls == value_class::infinite) {
    if (y.cls == value_class::infinite && x.sign != y.sign) return default_nan();
    return x;
  }
  if (y.cls == value_class::infinite) return y;
  if (x.cls == value_class::zero) {
    if (y.cls == value_class::zero) {
      return make_zero(x.sign == y.sign ? x.sign : mode == rounding::downward);
    }
    return y;
  }
  if (y.cls == value_class::zero) return x;
  return add_u128(x.sign, u128{x.sig, 0}, x.exp, y.sign, u128{y.sig, 0}, y.exp, mode);
}

MIXPREC_HD constexpr exact_value negated(exact_value u) noexcept {
  u.sign = !u.sign;
  return u;
}

MIXPREC_HD constexpr exact_value soft_mul(const exact_value& x, const exact_value& y) noexcept {
  if (isnan(x)) return quieted(x);
  if (isnan(y)) return quieted(y);
  const bool s = x.sign != y.sign;
  if (x.cls == value_class::infinite || y.cls == value_class::infinite) {
    if (x.cls == value_class::zero || y.cls == value_class::zero) return default_nan();
    return make_inf(s);
  }
  if (x.cls == value_class::zero || y.cls == value_class::zero) return make_zero(s);
  // sig_x * sig_y < 2^128 with weight 2^(ex - 63 + ey - 63): bit 127 weighs 2^(ex + ey + 1).
  return from_u128(s, mul64(x.sig, y.sig), x.exp + y.exp + 1);
}

MIXPREC_HD constexpr exact_value soft_div(const exact_value& x, const exact_value& y) noexcept {
  if (isnan(x)) return quieted(x);
  if (isnan(y)) return quieted(y);
  const bool s = x.sign != y.sign;
  if (x.cls == value_class::infinite) {
    return y.cls == value_class::infinite ? default_nan() : make_inf(s);
  }
  if (y.cls == value_class::infinite) return make_zero(s);
  if (y.cls == value_class::zero) return x.cls == value_class::zero ? default_nan() : make_inf(s);
  if (x.cls == value_class::zero) return make_zero(s);
  // q = floor(sig_x * 2^62 / sig_y), bit by bit; the ratio lies in (1/2, 2).
  const u128 d{0, y.sig};
  u128 rem{0, x.sig};
  std::uint64_t q = 0;
  for (int i = 0; i <= 62; ++i) {
    if (i > 0) rem = shl(rem, 1);
    q <<= 1;
    if (!less(rem, d)) {
      rem = sub(rem, d);
      q |= 1u;
    }
  }
  // q * 2^(ex - ey - 62); jam the remainder.
  return from_u128(s, u128{q | (is_zero(rem) ? 0u : 1u), 0}, x.exp - y.exp + 1);
}

MIXPREC_HD constexpr exact_value soft_sqrt(const exact_value& x) noexcept {
  if (isnan(x)) return quieted(x);
  if (x.cls == value_class::zero) return x;  // sqrt(-0) = -0
  if (x.sign) return default_nan();
  if (x.cls == value_class::infinite) return x;
  // value = R * 2^(e - 126) with R = sig << 63, or sig << 64 when e is odd, so the exponent of
  // R's weight is even.
  const bool odd = (x.exp & 1) != 0;
  const u128 r = odd ? u128{x.sig, 0} : u128{x.sig >> 1, x.sig << 63};
  const int half_exp = odd ? (x.exp - 127) / 2 : (x.exp - 126) / 2;
  // Digit-by-digit integer square root of r (r >= 2^126, so the root has 64 bits).
  u128 op = r, res{0, 0}, one{std::uint64_t{1} << 62, 0};
  while (!is_zero(one)) {
    const u128 t = add(res, one);
    if (!less(op, t)) {
      op = sub(op, t);
      res = add(shr(res, 1), one);
    } else {
      res = shr(res, 1);
    }
    one = shr(one, 2);
  }
  // res < 2^64; its weight is 2^half_exp, so bit 127 of {res, 0} weighs 2^(half_exp + 127).
  return from_u128(false, u128{res.lo | (is_zero(op) ? 0u : 1u), 0}, half_exp + 63);
}

MIXPREC_HD constexpr exact_value soft_fma(const exact_value& x, const exact_value& y, const exact_value& z,
                                       rounding mode) noexcept {
  if (isnan(x)) return quieted(x);
  if (isnan(y)) return quieted(y);
  const bool ps = x.sign != y.sign;
  const bool p_inf = x.cls == value_class::infinite || y.cls == value_class::infinite;
  const bool p_zero = x.cls == value_class::zero || y.cls == value_class::zero;
  if (p_inf && p_zero) return default_nan();  // inf * 0, even when z is a NaN
  if (isnan(z)) return quieted(z);
  if (p_inf) {
    if (z.cls == value_class::infinite && z.sign != ps) return default_nan();
    return make_inf(ps);
  }
  if (z.cls == value_class::infinite) return z;
  if (p_zero) {
    if (z.cls == value_class::zero) return make_zero(ps == z.sign ? ps : mode == rounding::downward);
    return z;
  }
  const u128 p = mul64(x.sig, y.sig);
  if (z.cls == value_class::zero) return from_u128(ps, p, x.exp + y.exp + 1);
  return add_u128(ps, p, x.exp + y.exp + 1, z.sign, u128{z.sig, 0}, z.exp, mode);
}

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_SOFT_HPP
