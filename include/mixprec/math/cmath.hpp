// SPDX-License-Identifier: MIT
// mixprec/math/cmath.hpp — the <cmath> functions for every mixprec type, found by ADL.
//
// Contract: each returns the format's result rounded once (bit operations and integer arithmetic
// exact; sqrt, fma, hypot(x, y, z) correctly rounded; the others evaluated in double, then
// rounded once), NaN results quiet; std:: calls take the implicit widening instead and return the
// standard type's result. Accuracy per function, NaN and the environment: docs/pages/math.md.
//
//   mixprec::half h(2.0f);
//   auto a = sqrt(h);       // half 1.4140625 (0x3da8): sqrt(2) rounded once to half
//   auto b = std::sqrt(h);  // float or double 1.41421..., as for std::sqrt(2.0f)
#ifndef MIXPREC_MATH_HPP
#define MIXPREC_MATH_HPP

#include <climits>
#include <cmath>
#include <cstdint>

#include "../core/arithmetic.hpp"
#include "../core/classify.hpp"
#include "integral.hpp"

namespace mixprec {
namespace detail {

template <class F>
MIXPREC_HD constexpr basic_float<F> with_magnitude(bool negative, std::uint64_t mag) noexcept {
  if constexpr (F::enc == encoding::fnuz) {
    if (mag == 0) negative = false;
  }
  if constexpr (!F::is_signed) {
    // No negative values: -0 is 0, anything below it NaN (0 without NaN).
    if (negative && mag != 0) {
      return F::has_nan ? quiet_nan<basic_float<F>>() : from_code<basic_float<F>>(0);
    }
  }
  return from_code<basic_float<F>>((negative ? F::sign_mask : 0) | mag);
}

/// x made quiet (x a NaN).
template <class F>
MIXPREC_HD constexpr basic_float<F> quiet(basic_float<F> x) noexcept {
  return basic_float<F>::from_bits(encode_bits<F>(decode_bits<F>(x.bits()), rounding::nearest_even, overflow::ieee));
}

}  // namespace detail

// ---- exact functions -----------------------------------------------------------------------

/// |x|: the sign bit cleared (NaN stays NaN).
template <class F>
MIXPREC_HD constexpr basic_float<F> abs(basic_float<F> x) noexcept {
  if (isnan(x)) return x;
  return detail::from_code<basic_float<F>>(detail::code_of<F>(x.bits()) & F::magnitude_mask);
}
/// |x|, as abs (exact; a NaN keeps its bits).
template <class F>
MIXPREC_HD constexpr basic_float<F> fabs(basic_float<F> x) noexcept {
  return abs(x);
}
/// The magnitude of x with the sign of y (fnuz: zero and NaN have no sign to change).
template <class F>
MIXPREC_HD constexpr basic_float<F> copysign(basic_float<F> x, basic_float<F> y) noexcept {
  if (isnan(x)) return x;
  return detail::with_magnitude<F>(signbit(y), detail::code_of<F>(x.bits()) & F::magnitude_mask);
}
/// IEEE minNum: a NaN operand is ignored (NaN only if both are); fmin(-0, +0) = -0.
template <class F>
MIXPREC_HD constexpr basic_float<F> fmin(basic_float<F> x, basic_float<F> y) noexcept {
  if (isnan(x)) return isnan(y) ? detail::quiet(y) : y;
  if (isnan(y)) return x;
  if (x == y) return signbit(x) ? x : y;
  return x < y ? x : y;
}
/// IEEE maxNum: a NaN operand is ignored (NaN only if both are); fmax(-0, +0) = +0.
template <class F>
MIXPREC_HD constexpr basic_float<F> fmax(basic_float<F> x, basic_float<F> y) noexcept {
  if (isnan(x)) return isnan(y) ? detail::quiet(y) : y;
  if (isnan(y)) return x;
  if (x == y) return signbit(x) ? y : x;
  return x < y ? y : x;
}

/// x = m * 2^e with |m| in [0.5, 1); returns m (rounded where T cannot hold it: in the MX types
/// whose smallest normal is 1, [0.5, 1) is subnormal) and stores e.
template <class F>
MIXPREC_HD basic_float<F> frexp(basic_float<F> x, int* e) noexcept {
  return basic_float<F>(std::frexp(static_cast<double>(x), e));
}
/// x * 2^n, rounded once (to nearest-even; overflow and underflow as for any conversion).
template <class F>
MIXPREC_HD constexpr basic_float<F> ldexp(basic_float<F> x, int n) noexcept {
  detail::exact_value u = detail::decode_bits<F>(x.bits());
  if (u.cls == detail::value_class::nan) return detail::quiet(x);
  if (u.cls != detail::value_class::finite) return x;
  constexpr int limit = 4096;  // far beyond any format's range, and no int overflow
  u.exp += n > limit ? limit : (n < -limit ? -limit : n);
  return basic_float<F>::from_bits(detail::encode_bits<F>(u, rounding::nearest_even, overflow::ieee));
}
/// x * 2^n, as ldexp (radix 2): rounded once, nearest-even.
template <class F>
MIXPREC_HD constexpr basic_float<F> scalbn(basic_float<F> x, int n) noexcept {
  return ldexp(x, n);
}
/// x * 2^n with a long n, as ldexp.
template <class F>
MIXPREC_HD constexpr basic_float<F> scalbln(basic_float<F> x, long n) noexcept {
  constexpr long limit = 4096;  // as ldexp: beyond every format's range
  return ldexp(x, static_cast<int>(n > limit ? limit : (n < -limit ? -limit : n)));
}
/// The unbiased exponent: FP_ILOGB0 for zero, FP_ILOGBNAN for NaN, INT_MAX for infinity.
template <class F>
MIXPREC_HD constexpr int ilogb(basic_float<F> x) noexcept {
  const detail::exact_value u = detail::decode_bits<F>(x.bits());
  switch (u.cls) {
    case detail::value_class::zero: return FP_ILOGB0;
    case detail::value_class::nan: return FP_ILOGBNAN;
    case detail::value_class::infinite: return INT_MAX;
    case detail::value_class::finite: break;
  }
  return u.exp;
}
/// The unbiased exponent as a value of T (rounded if T cannot hold it): -inf for zero (NaN where
/// the format has no infinity).
template <class F>
MIXPREC_HD constexpr basic_float<F> logb(basic_float<F> x) noexcept {
  const detail::exact_value u = detail::decode_bits<F>(x.bits());
  switch (u.cls) {
    case detail::value_class::zero: return basic_float<F>::from_bits(detail::encode_bits<F>(detail::make_inf(true), rounding::nearest_even, overflow::ieee));
    case detail::value_class::nan: return detail::quiet(x);
    case detail::value_class::infinite: return abs(x);
    case detail::value_class::finite: break;
  }
  return basic_float<F>(u.exp);
}
namespace detail {

/// The neighbour of a non-NaN x above (up) or below it. Beyond the largest finite value:
/// infinity, or NaN in formats without infinity.
template <class F>
MIXPREC_HD constexpr basic_float<F> step(basic_float<F> x, bool up) noexcept {
  using T = basic_float<F>;
  const std::uint64_t mag = code_of<F>(x.bits()) & F::magnitude_mask;
  if constexpr (F::enc == encoding::exponent_only) {
    if (!up && mag == 0) return quiet_nan<T>();  // nothing below 2^-127
    return from_code<T>(up ? mag + 1 : mag - 1);  // past max: 0xff, the NaN
  } else {
    if (decode_bits<F>(x.bits()).cls == value_class::zero) return with_magnitude<F>(!up, 1);
    const bool neg = signbit(x);
    const bool grow = up != neg;  // the magnitude grows
    if (grow && mag == F::max_code) {
      return T::from_bits(encode_bits<F>(make_inf(neg), rounding::nearest_even, overflow::ieee));
    }
    return with_magnitude<F>(neg, grow ? mag + 1 : mag - 1);
  }
}

}  // namespace detail

/// The next representable value after x toward y (a quiet NaN if either is NaN; y if x == y).
/// Stepping beyond the largest finite value gives infinity, or NaN in formats without infinity.
template <class F>
MIXPREC_HD constexpr basic_float<F> nextafter(basic_float<F> x, basic_float<F> y) noexcept {
  if (isnan(x)) return detail::quiet(x);
  if (isnan(y)) return detail::quiet(y);
  if (x == y) return y;
  return detail::step(x, x < y);
}
/// nextafter toward a long double y (host only: device code has no long double).
template <class F>
basic_float<F> nexttoward(basic_float<F> x, long double y) noexcept {
  if (isnan(x)) return detail::quiet(x);
  if (std::isnan(y)) return detail::quiet_nan<basic_float<F>>();
  const long double lx = static_cast<long double>(static_cast<double>(x));
  if (lx < y) return detail::step(x, true);
  if (lx > y) return detail::step(x, false);
  // Equal: x, or for zero the zero of y's sign.
  return detail::decode_bits<F>(x.bits()).cls == detail::value_class::zero ? detail::with_magnitude<F>(std::signbit(y), 0) : x;
}
/// The spacing of the format at x: 2^(max(exponent(x), emin) - mantissa bits), i.e. the gap
/// from |x| to the next larger magnitude (at max, the spacing of max's binade). NaN for NaN and
/// infinity.
template <class F>
MIXPREC_HD constexpr basic_float<F> ulp(basic_float<F> x) noexcept {
  const detail::exact_value u = detail::decode_bits<F>(x.bits());
  if (u.cls == detail::value_class::nan || u.cls == detail::value_class::infinite) {
    return detail::quiet_nan<basic_float<F>>();
  }
  const int e = u.cls == detail::value_class::zero || u.exp < F::emin ? F::emin : u.exp;
  return detail::pow2<basic_float<F>>(e - F::mantissa_bits);
}

namespace detail {

MIXPREC_HD constexpr bool magnitude_less(const exact_value& a, const exact_value& b) noexcept {
  return a.exp < b.exp || (a.exp == b.exp && a.sig < b.sig);
}

/// x - n*y for finite x and finite non-zero y, exactly: n = trunc(x/y) (fmod) or, when nearest,
/// x/y rounded to nearest, ties to even (IEEE remainder). q: |n| modulo 2^64.
MIXPREC_HD constexpr exact_value exact_remainder(const exact_value& x, const exact_value& y, bool nearest,
                                              std::uint64_t& q) noexcept {
  q = 0;
  if (x.cls == value_class::zero) return x;
  if (magnitude_less(x, y)) {  // n = 0, or +-1 when |x| > |y|/2 (then the exponents differ by <= 1)
    exact_value twice = x;
    twice.exp += 1;
    if (!nearest || !magnitude_less(y, twice)) return x;
    q = 1;
    exact_value ay = y, ax = x;
    ay.sign = ax.sign = false;
    exact_value r = soft_add(ay, negated(ax), rounding::nearest_even);  // exact
    r.sign = !x.sign;
    return r;
  }
  // Integer significands (every format has at most 53 significant bits): m * 2^(exp - 52).
  const std::uint64_t mx = x.sig >> 11, my = y.sig >> 11;
  const int a = x.exp - 52, b = y.exp - 52;
  std::uint64_t r = 0, d = 0;  // remainder and divisor, in units of 2^w
  int w = 0;
  if (a >= b) {
    d = my;
    q = mx / d;
    r = mx % d;
    for (int k = a - b; k > 0;) {  // long division, 9 bits at a time (r < d < 2^53)
      const int c = k < 9 ? k : 9;
      r <<= c;
      q = (q << c) + r / d;
      r %= d;
      k -= c;
    }
    w = b;
  } else {
    d = my << (b - a);  // <= mx < 2^53, as |y| <= |x|
    q = mx / d;
    r = mx % d;
    w = a;
  }
  bool flip = false;
  if (nearest && (2 * r > d || (2 * r == d && (q & 1u) != 0))) {
    r = d - r;
    q += 1;
    flip = true;
  }
  if (r == 0) return make_zero(x.sign);
  exact_value u = decode_integer(r);
  u.exp += w;
  u.sign = x.sign != flip;
  return u;
}

template <class F>
MIXPREC_HD constexpr basic_float<F> remainder_of(basic_float<F> x, basic_float<F> y, bool nearest,
                                                 int* quo) noexcept {
  using T = basic_float<F>;
  const exact_value ux = decode_bits<F>(x.bits()), uy = decode_bits<F>(y.bits());
  if (quo) *quo = 0;
  if (ux.cls == value_class::nan) return quiet(x);
  if (uy.cls == value_class::nan) return quiet(y);
  if (ux.cls == value_class::infinite || uy.cls == value_class::zero) {
    return T::from_bits(encode_bits<F>(default_nan(), rounding::nearest_even, overflow::ieee));
  }
  if (uy.cls == value_class::infinite) return x;
  std::uint64_t q = 0;
  const exact_value r = exact_remainder(ux, uy, nearest, q);
  if (quo) {
    const int n = static_cast<int>(q & 0x7fffffffu);
    *quo = ux.sign != uy.sign ? -n : n;
  }
  return T::from_bits(encode_bits<F>(r, rounding::nearest_even, overflow::ieee));  // exact
}

}  // namespace detail

/// x - trunc(x/y) * y, exact (the sign of x). NaN for x infinite or y zero (+max in the MX
/// formats without NaN, as 0/0 there); x for y infinite.
template <class F>
MIXPREC_HD constexpr basic_float<F> fmod(basic_float<F> x, basic_float<F> y) noexcept {
  return detail::remainder_of(x, y, false, nullptr);
}
/// IEEE remainder: x - n*y with n = x/y rounded to nearest, ties to even; exact, |result| <=
/// |y|/2, a zero result has the sign of x. Special cases as fmod.
template <class F>
MIXPREC_HD constexpr basic_float<F> remainder(basic_float<F> x, basic_float<F> y) noexcept {
  return detail::remainder_of(x, y, true, nullptr);
}
/// remainder(x, y), and in *quo the sign of x/y and the low 31 bits of |n| (0 for NaN results).
template <class F>
MIXPREC_HD constexpr basic_float<F> remquo(basic_float<F> x, basic_float<F> y, int* quo) noexcept {
  return detail::remainder_of(x, y, true, quo);
}

/// Splits x into an integral part (*iptr, trunc(x)) and a fractional part (returned), both with
/// the sign of x, both exact. Infinity: *iptr = x, returns +-0. NaN: both a quiet NaN.
template <class F>
MIXPREC_HD constexpr basic_float<F> modf(basic_float<F> x, basic_float<F>* iptr) noexcept {
  const basic_float<F> t = trunc(x);
  *iptr = t;
  const detail::exact_value u = detail::decode_bits<F>(x.bits());
  if (u.cls == detail::value_class::nan) return t;
  if (u.cls != detail::value_class::finite || t == x) {  // a zero with x's sign (none in fnuz; NaN in e8m0fnu)
    return basic_float<F>::from_bits(detail::encode_bits<F>(detail::make_zero(u.sign), rounding::nearest_even, overflow::ieee));
  }
  if (u.exp < 0) return x;
  return basic_float<F>::from_bits(detail::encode_bits<F>(
      detail::soft_add(u, detail::negated(detail::decode_bits<F>(t.bits())), rounding::nearest_even),
      rounding::nearest_even, overflow::ieee));  // exact
}

/// x - y (rounded once) if x > y, else +0; a NaN operand gives a quiet NaN.
template <class F>
MIXPREC_HD constexpr basic_float<F> fdim(basic_float<F> x, basic_float<F> y) noexcept {
  if (isnan(x)) return detail::quiet(x);
  if (isnan(y)) return detail::quiet(y);
  if (x > y) return x - y;
  return basic_float<F>::from_bits(detail::encode_bits<F>(detail::make_zero(false), rounding::nearest_even, overflow::ieee));
}

/// x > y, quietly (false if either is NaN).
template <class F>
MIXPREC_HD constexpr bool isgreater(basic_float<F> x, basic_float<F> y) noexcept {
  return x > y;
}
/// x >= y, quietly (false if either is NaN).
template <class F>
MIXPREC_HD constexpr bool isgreaterequal(basic_float<F> x, basic_float<F> y) noexcept {
  return x >= y;
}
/// x < y, quietly (false if either is NaN).
template <class F>
MIXPREC_HD constexpr bool isless(basic_float<F> x, basic_float<F> y) noexcept {
  return x < y;
}
/// x <= y, quietly (false if either is NaN).
template <class F>
MIXPREC_HD constexpr bool islessequal(basic_float<F> x, basic_float<F> y) noexcept {
  return x <= y;
}
/// x < y || x > y, quietly (false if either is NaN).
template <class F>
MIXPREC_HD constexpr bool islessgreater(basic_float<F> x, basic_float<F> y) noexcept {
  return x < y || y < x;
}
/// Whether x or y is NaN.
template <class F>
MIXPREC_HD constexpr bool isunordered(basic_float<F> x, basic_float<F> y) noexcept {
  return isnan(x) || isnan(y);
}

// ---- functions evaluated in double, rounded once -----------------------------------------

/// The cube root, in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> cbrt(basic_float<F> x) noexcept {
  return basic_float<F>(std::cbrt(static_cast<double>(x)));
}
/// e^x, in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> exp(basic_float<F> x) noexcept {
  return basic_float<F>(std::exp(static_cast<double>(x)));
}
/// 2^x, in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> exp2(basic_float<F> x) noexcept {
  return basic_float<F>(std::exp2(static_cast<double>(x)));
}
/// e^x - 1, in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> expm1(basic_float<F> x) noexcept {
  return basic_float<F>(std::expm1(static_cast<double>(x)));
}
/// The natural logarithm, in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> log(basic_float<F> x) noexcept {
  return basic_float<F>(std::log(static_cast<double>(x)));
}
/// The base-2 logarithm, in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> log2(basic_float<F> x) noexcept {
  return basic_float<F>(std::log2(static_cast<double>(x)));
}
/// The base-10 logarithm, in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> log10(basic_float<F> x) noexcept {
  return basic_float<F>(std::log10(static_cast<double>(x)));
}
/// ln(1 + x), in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> log1p(basic_float<F> x) noexcept {
  return basic_float<F>(std::log1p(static_cast<double>(x)));
}
/// The sine (x in radians), in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> sin(basic_float<F> x) noexcept {
  return basic_float<F>(std::sin(static_cast<double>(x)));
}
/// The cosine (x in radians), in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> cos(basic_float<F> x) noexcept {
  return basic_float<F>(std::cos(static_cast<double>(x)));
}
/// The tangent (x in radians), in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> tan(basic_float<F> x) noexcept {
  return basic_float<F>(std::tan(static_cast<double>(x)));
}
/// The arc sine, in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> asin(basic_float<F> x) noexcept {
  return basic_float<F>(std::asin(static_cast<double>(x)));
}
/// The arc cosine, in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> acos(basic_float<F> x) noexcept {
  return basic_float<F>(std::acos(static_cast<double>(x)));
}
/// The arc tangent, in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> atan(basic_float<F> x) noexcept {
  return basic_float<F>(std::atan(static_cast<double>(x)));
}
/// The hyperbolic sine, in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> sinh(basic_float<F> x) noexcept {
  return basic_float<F>(std::sinh(static_cast<double>(x)));
}
/// The hyperbolic cosine, in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> cosh(basic_float<F> x) noexcept {
  return basic_float<F>(std::cosh(static_cast<double>(x)));
}
/// The hyperbolic tangent, in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> tanh(basic_float<F> x) noexcept {
  return basic_float<F>(std::tanh(static_cast<double>(x)));
}
/// The error function, in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> erf(basic_float<F> x) noexcept {
  return basic_float<F>(std::erf(static_cast<double>(x)));
}
/// 1 - erf(x), in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> erfc(basic_float<F> x) noexcept {
  return basic_float<F>(std::erfc(static_cast<double>(x)));
}
/// The inverse hyperbolic sine, in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> asinh(basic_float<F> x) noexcept {
  return basic_float<F>(std::asinh(static_cast<double>(x)));
}
/// The inverse hyperbolic cosine, in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> acosh(basic_float<F> x) noexcept {
  return basic_float<F>(std::acosh(static_cast<double>(x)));
}
/// The inverse hyperbolic tangent, in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> atanh(basic_float<F> x) noexcept {
  return basic_float<F>(std::atanh(static_cast<double>(x)));
}
/// The gamma function, in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> tgamma(basic_float<F> x) noexcept {
  return basic_float<F>(std::tgamma(static_cast<double>(x)));
}
/// ln|gamma(x)|, in double, rounded once (correctly rounded for every half and bfloat16 input).
template <class F>
MIXPREC_HD basic_float<F> lgamma(basic_float<F> x) noexcept {
  return basic_float<F>(std::lgamma(static_cast<double>(x)));
}

/// sqrt(x^2 + y^2) without overflow or underflow in between: evaluated in double, rounded once
/// (correctly rounded on every pair of the 8-bit formats and on random half/bfloat16 pairs).
template <class F>
MIXPREC_HD basic_float<F> hypot(basic_float<F> x, basic_float<F> y) noexcept {
  return basic_float<F>(std::hypot(static_cast<double>(x), static_cast<double>(y)));
}
/// x^y (C's pow special cases): evaluated in double, rounded once (correctly rounded on every
/// pair of the 8-bit formats and on random half/bfloat16 pairs).
template <class F>
MIXPREC_HD basic_float<F> pow(basic_float<F> x, basic_float<F> y) noexcept {
  return basic_float<F>(std::pow(static_cast<double>(x), static_cast<double>(y)));
}

/// sqrt(x^2 + y^2 + z^2) (C++17's three-argument hypot), without overflow or underflow in between:
/// +inf if an argument is infinite (even with a NaN), else NaN if one is NaN. Correctly rounded
/// for formats of at most 24 significant bits (all built-in ones): the squares, added smallest
/// first, are exact to 64 bits plus a sticky bit, then one correctly rounded square root.
/// (Not through std::hypot: libstdc++'s three-argument form gives NaN for infinite arguments and
/// misrounds bfloat16 values near 1e-17.)
template <class F>
MIXPREC_HD constexpr basic_float<F> hypot(basic_float<F> x, basic_float<F> y, basic_float<F> z) noexcept {
  using detail::exact_value;
  exact_value u[3] = {detail::decode_bits<F>(x.bits()), detail::decode_bits<F>(y.bits()), detail::decode_bits<F>(z.bits())};
  for (const exact_value& v : u) {
    if (v.cls == detail::value_class::infinite) {
      return basic_float<F>::from_bits(detail::encode_bits<F>(detail::make_inf(false), rounding::nearest_even, overflow::ieee));
    }
  }
  for (const exact_value& v : u) {
    if (v.cls == detail::value_class::nan) {
      return basic_float<F>::from_bits(detail::encode_bits<F>(v, rounding::nearest_even, overflow::ieee));  // quiet
    }
  }
  for (exact_value& v : u) v.sign = false;
  // Ascending magnitude (zeros first), so that only the last addition can be inexact.
  const auto less = [](const exact_value& a, const exact_value& b) {
    return a.cls == detail::value_class::zero ? b.cls != detail::value_class::zero
                                              : b.cls != detail::value_class::zero && detail::magnitude_less(a, b);
  };
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2 - i; ++j)
      if (less(u[j + 1], u[j])) {
        const exact_value t = u[j];
        u[j] = u[j + 1];
        u[j + 1] = t;
      }
  exact_value s = detail::soft_mul(u[0], u[0]);
  for (int i = 1; i < 3; ++i) s = detail::soft_add(s, detail::soft_mul(u[i], u[i]), rounding::nearest_even);
  return basic_float<F>::from_bits(detail::encode_bits<F>(detail::soft_sqrt(s), rounding::nearest_even, overflow::ieee));
}

/// atan2(y, x). For 0 < |y/x| < 2^-20 with x > 0 the result is y/x - (y/x)^3/3 + ..., and the
/// double result is y/x itself, which can be a tie of the format while the exact value lies just
/// inside it: there the quotient is computed exactly and nudged toward zero.
template <class F>
MIXPREC_HD basic_float<F> atan2(basic_float<F> y, basic_float<F> x) noexcept {
  const detail::exact_value uy = detail::decode_bits<F>(y.bits()), ux = detail::decode_bits<F>(x.bits());
  if (uy.cls == detail::value_class::finite && ux.cls == detail::value_class::finite && !ux.sign) {
    detail::exact_value q = detail::soft_div(uy, ux);
    if (q.cls == detail::value_class::finite && q.exp < -20) {
      if ((q.sig & 1u) == 0) q.sig -= 1;  // exact quotient: the true value is just below it
      return basic_float<F>::from_bits(detail::encode_bits<F>(q, rounding::nearest_even, overflow::ieee));
    }
  }
  return basic_float<F>(std::atan2(static_cast<double>(y), static_cast<double>(x)));
}

}  // namespace mixprec

#endif  // MIXPREC_MATH_HPP
