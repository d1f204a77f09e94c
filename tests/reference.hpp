// SPDX-License-Identifier: MIT
// tests/reference.hpp — an independent reference for the formats, written from the tables in
// ../shared/spec/formats.md and not from the library's code: values are decoded with ldexp,
// and rounding picks between the two neighbours floor(|x|/q)*q and that plus q in double
// arithmetic (exact for every format of at most 24 significant bits).
#ifndef MIXPREC_TESTS_REFERENCE_HPP
#define MIXPREC_TESTS_REFERENCE_HPP

#include <cmath>
#include <cstdint>
#include <limits>

#include <mixprec/rounding.hpp>

namespace ref {

enum class specials { ieee, fn, fnuz, finite, e8m0 };

struct format {
  const char* name;
  int exp_bits;
  int man_bits;
  int bias;
  specials kind;
  double max;         // largest finite value, from the spec table
  double min_normal;  // smallest normal, from the spec table
  double min_sub;     // smallest positive value, from the spec table
  bool no_sign = false;  // unsigned with mantissa bits (UE4M3, UE5M3): no sign bit
};

// The spec's table, typed in.
inline constexpr format half{"half", 5, 10, 15, specials::ieee, 65504.0, 0x1p-14, 0x1p-24};
inline constexpr format bfloat16{"bfloat16", 8, 7, 127, specials::ieee, 0x1.fep127, 0x1p-126, 0x1p-133};
inline constexpr format tf32{"tf32", 8, 10, 127, specials::ieee, 0x1.ffcp127, 0x1p-126, 0x1p-136};
inline constexpr format e4m3fn{"float8_e4m3fn", 4, 3, 7, specials::fn, 448.0, 0x1p-6, 0x1p-9};
inline constexpr format e5m2{"float8_e5m2", 5, 2, 15, specials::ieee, 57344.0, 0x1p-14, 0x1p-16};
inline constexpr format e4m3fnuz{"float8_e4m3fnuz", 4, 3, 8, specials::fnuz, 240.0, 0x1p-7, 0x1p-10};
inline constexpr format e5m2fnuz{"float8_e5m2fnuz", 5, 2, 16, specials::fnuz, 57344.0, 0x1p-15, 0x1p-17};
inline constexpr format e8m0fnu{"float8_e8m0fnu", 8, 0, 127, specials::e8m0, 0x1p127, 0x1p-127, 0x1p-127};
inline constexpr format e2m3fn{"float6_e2m3fn", 2, 3, 1, specials::finite, 7.5, 1.0, 0.125};
inline constexpr format e3m2fn{"float6_e3m2fn", 3, 2, 3, specials::finite, 28.0, 0.25, 0.0625};
inline constexpr format e2m1fn{"float4_e2m1fn", 2, 1, 1, specials::finite, 6.0, 1.0, 0.5};
// ml_dtypes' float8_e3m4 / float8_e4m3 / float8_e4m3b11fnuz (their PR descriptions and finfo).
inline constexpr format e3m4{"float8_e3m4", 3, 4, 3, specials::ieee, 15.5, 0x1p-2, 0x1p-6};
inline constexpr format e4m3{"float8_e4m3", 4, 3, 7, specials::ieee, 240.0, 0x1p-6, 0x1p-9};
inline constexpr format e4m3b11fnuz{"float8_e4m3b11fnuz", 4, 3, 11, specials::fnuz, 30.0, 0x1p-10, 0x1p-13};
// S.E.MM with bias 0 (ml_dtypes#281): 0, 0.5, ..., 3.5; the smallest normal is 2.
inline constexpr format e1m2{"float4_e1m2", 1, 2, 0, specials::finite, 3.5, 2.0, 0.5};
// CUTLASS FpEncoding::UE4M3 / UE5M3 (exmy_base.h): no sign; NaN = all ones; no Inf.
inline constexpr format ue4m3{"float8_ue4m3", 4, 3, 7, specials::fn, 448.0, 0x1p-6, 0x1p-9, true};
inline constexpr format ue5m3{"float8_ue5m3", 5, 3, 15, specials::fn, 114688.0, 0x1p-14, 0x1p-17, true};

inline bool is_signed(const format& f) { return f.kind != specials::e8m0 && !f.no_sign; }
inline int total_bits(const format& f) { return (is_signed(f) ? 1 : 0) + f.exp_bits + f.man_bits; }

/// The value of a bit pattern (without padding), decoded from the field definitions.
inline double decode(const format& f, std::uint64_t code) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const int sign_shift = f.exp_bits + f.man_bits;
  const bool neg = is_signed(f) && ((code >> sign_shift) & 1u);
  const std::uint64_t e = (code >> f.man_bits) & ((1u << f.exp_bits) - 1);
  const std::uint64_t m = code & ((std::uint64_t{1} << f.man_bits) - 1);
  const std::uint64_t e_all = (1u << f.exp_bits) - 1;
  const std::uint64_t m_all = (std::uint64_t{1} << f.man_bits) - 1;
  switch (f.kind) {
    case specials::ieee:
      if (e == e_all) return m == 0 ? (neg ? -INFINITY : INFINITY) : (neg ? -nan : nan);
      break;
    case specials::fn:
      if (e == e_all && m == m_all) return neg ? -nan : nan;
      break;
    case specials::fnuz:
      if (neg && e == 0 && m == 0) return -nan;  // 0x80: its sign bit is set
      break;
    case specials::finite: break;
    case specials::e8m0: return e == e_all ? nan : std::ldexp(1.0, static_cast<int>(e) - f.bias);
  }
  double v = e == 0 ? std::ldexp(static_cast<double>(m), 1 - f.bias - f.man_bits)
                    : std::ldexp(static_cast<double>(m + (std::uint64_t{1} << f.man_bits)),
                                 static_cast<int>(e) - f.bias - f.man_bits);
  return neg ? -v : v;
}

/// Whether rounding in this mode moves the magnitude away from zero when inexact.
inline bool magnitude_up(mixprec::rounding mode, bool negative) {
  using mixprec::rounding;
  switch (mode) {
    case rounding::upward: return !negative;
    case rounding::downward: return negative;
    case rounding::toward_zero:
    case rounding::to_odd: return false;
    default: return true;
  }
}

/// The value of the largest-magnitude result for an overflow that rounds away from zero.
inline double overflow_away(const format& f, bool neg, mixprec::overflow policy) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const bool sat = policy == mixprec::overflow::saturate;
  switch (f.kind) {
    case specials::ieee: return sat ? (neg ? -f.max : f.max) : (neg ? -INFINITY : INFINITY);
    case specials::fn: return sat ? (neg ? -f.max : f.max) : (neg ? -nan : nan);
    case specials::fnuz: return sat ? (neg ? -f.max : f.max) : -nan;
    case specials::finite: return neg ? -f.max : f.max;
    case specials::e8m0: return sat ? f.max : nan;
  }
  return nan;
}

/// The mode- and policy-independent part of round(): x's class, or its two neighbours
/// floor(|x|/q)*q and that plus q. prepare() once, then pick() per mode and policy, gives
/// round() for each (what the exhaustive sweeps do: one prepare per float and format).
struct prepared {
  enum class what { value, inf, finite } kind;  // value: 'result' whatever the mode and policy
  bool neg;
  double result;            // kind == value
  double a, lower, upper;   // kind == finite: |x| and its neighbours (a == lower: exact)
  double mid;               // kind == finite: lower + q / 2
  bool lower_even;          // kind == finite: lower / q is even
};

/// q, when positive, is the quantum 2^(max(floor(log2|x|), emin) - M) supplied by the caller;
/// inv_q, when positive, is 1/q (a power of two: |x| * inv_q is exact, and cheaper than |x| / q).
inline prepared prepare(const format& f, double x, double q = 0.0, double inv_q = 0.0) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  prepared p{prepared::what::value, std::signbit(x), 0.0, 0.0, 0.0, 0.0, 0.0, true};
  const bool neg = p.neg;
  if (std::isnan(x)) {
    if (f.kind == specials::finite) p.result = f.max;  // documented: NaN -> +max where no NaN exists
    else if (f.kind == specials::fnuz) p.result = -nan;  // 0x80
    else if (f.kind == specials::e8m0 || f.no_sign) p.result = nan;
    else p.result = neg ? -nan : nan;
    return p;
  }
  if (f.kind == specials::e8m0 && (neg || x == 0)) { p.result = nan; return p; }
  // Unsigned: -0 is 0; any other negative value is NaN (0 where there is no NaN).
  if (f.no_sign && neg) { p.result = (x == 0 || f.kind == specials::finite) ? 0.0 : nan; return p; }
  if (std::isinf(x)) { p.kind = prepared::what::inf; return p; }
  if (x == 0) { p.result = (f.kind == specials::fnuz) ? 0.0 : x; return p; }
  const double a = std::fabs(x);
  if (f.kind == specials::e8m0 && a < f.min_normal) { p.result = f.min_normal; return p; }
  if (q <= 0) {
    const int e = std::ilogb(a);
    q = a >= f.min_normal ? std::ldexp(1.0, e - f.man_bits) : f.min_sub;
  }
  const double k = std::floor(inv_q > 0 ? a * inv_q : a / q);
  p.kind = prepared::what::finite;
  p.a = a;
  p.lower = k * q;
  p.upper = p.lower + q;
  p.mid = p.lower + q / 2;
  p.lower_even = (static_cast<std::int64_t>(k) & 1) == 0;  // k < 2^(M+1)
  return p;
}

/// round() of the x that p was prepared from, in this mode and overflow policy.
inline double pick(const format& f, const prepared& p, mixprec::rounding mode, mixprec::overflow policy) {
  using mixprec::rounding;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const bool neg = p.neg;
  if (p.kind == prepared::what::value) return p.result;
  if (p.kind == prepared::what::inf) return overflow_away(f, neg, policy);
  const double a = p.a, lower = p.lower, upper = p.upper, mid = p.mid;
  double r = lower;
  if (a != lower) {
    switch (mode) {
      case rounding::nearest_even: r = a < mid ? lower : a > mid ? upper : (p.lower_even ? lower : upper); break;
      case rounding::nearest_away: r = a < mid ? lower : upper; break;
      case rounding::toward_zero: r = lower; break;
      case rounding::upward: r = neg ? lower : upper; break;
      case rounding::downward: r = neg ? upper : lower; break;
      case rounding::to_odd: r = p.lower_even ? upper : lower; break;
      case rounding::stochastic: return nan;  // not a deterministic mode
    }
  }
  if (r > f.max) {
    if (magnitude_up(mode, neg) || f.kind == specials::finite) {
      return f.kind == specials::finite ? (neg ? -f.max : f.max) : overflow_away(f, neg, policy);
    }
    r = f.max;
  }
  if (r == 0 && f.kind == specials::fnuz) return 0.0;
  return neg ? -r : r;
}

/// The correctly rounded value of x in format f (NaN results: a NaN with the expected sign).
/// q, when positive, is the quantum 2^(max(floor(log2|x|), emin) - M) supplied by the caller.
inline double round(const format& f, double x, mixprec::rounding mode, mixprec::overflow policy,
                    double q = 0.0) {
  return pick(f, prepare(f, x, q), mode, policy);
}

/// Same value, same sign (zeros included), or both NaN with the same sign.
inline bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) && std::signbit(a) == std::signbit(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

}  // namespace ref

#endif  // MIXPREC_TESTS_REFERENCE_HPP
