// SPDX-License-Identifier: MIT
// mixprec/math.hpp — <cmath>-style functions for every mixprec type, found by ADL.
//
// Accuracy (see the README's table; tests/test_math.cpp checks it against MPFR over every
// input of half and bfloat16):
// - exact: abs, fabs, copysign, fmin, fmax, floor, ceil, trunc, round, nearbyint, rint, frexp,
//   ilogb, logb, nextafter, ulp; ldexp and scalbn round once.
// - correctly rounded (one rounding of the exact result): sqrt, fma (arithmetic.hpp).
// - the others are evaluated in double (glibc/CUDA: under 1 ulp of double) and rounded once to
//   the format. For formats of at most 24 significant bits the double result is 29+ bits more
//   precise than the target, so the result is the correctly rounded one unless the exact value
//   lies within about 2^-52 (relative) of a rounding boundary; for half and bfloat16 the test
//   finds no such input among all 65536.
// Rounding-mode functions (rint, nearbyint) round half to even: mixprec does not read the
// floating-point environment.
#ifndef MIXPREC_MATH_HPP
#define MIXPREC_MATH_HPP

#include <climits>
#include <cmath>
#include <cstdint>

#include "arithmetic.hpp"
#include "classify.hpp"

namespace mixprec {
namespace detail {

template <class F>
MIXPREC_HD constexpr basic_float<F> with_magnitude(bool negative, std::uint64_t mag) noexcept {
  if constexpr (F::enc == encoding::fnuz) {
    if (mag == 0) negative = false;
  }
  return from_code<basic_float<F>>((negative ? F::sign_mask : 0) | mag);
}

}  // namespace detail

// ---- exact functions -----------------------------------------------------------------------

/// |x|: the sign bit cleared (NaN stays NaN).
template <class F>
MIXPREC_HD constexpr basic_float<F> abs(basic_float<F> x) noexcept {
  if (isnan(x)) return x;
  return detail::from_code<basic_float<F>>(detail::code_of<F>(x.bits()) & F::magnitude_mask);
}
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
/// IEEE minNum/maxNum: a NaN operand is ignored; fmin(-0, +0) = -0, fmax(-0, +0) = +0.
template <class F>
MIXPREC_HD constexpr basic_float<F> fmin(basic_float<F> x, basic_float<F> y) noexcept {
  if (isnan(x)) return y;
  if (isnan(y)) return x;
  if (x == y) return signbit(x) ? x : y;
  return x < y ? x : y;
}
template <class F>
MIXPREC_HD constexpr basic_float<F> fmax(basic_float<F> x, basic_float<F> y) noexcept {
  if (isnan(x)) return y;
  if (isnan(y)) return x;
  if (x == y) return signbit(x) ? y : x;
  return x < y ? y : x;
}

// f(x) evaluated in double and rounded once to F.
#define MIXPREC_UNARY(NAME)                                                        \
  template <class F>                                                               \
  MIXPREC_HD basic_float<F> NAME(basic_float<F> x) noexcept {                      \
    return basic_float<F>(std::NAME(static_cast<double>(x)));                      \
  }
// Integral rounding: exact in double, so exact here.
MIXPREC_UNARY(floor)
MIXPREC_UNARY(ceil)
MIXPREC_UNARY(trunc)
/// Half away from zero.
MIXPREC_UNARY(round)
/// Nearest integer, ties to even (the default rounding mode; the environment is not read).
template <class F>
MIXPREC_HD basic_float<F> rint(basic_float<F> x) noexcept {
  const double d = static_cast<double>(x);
  if (!(std::fabs(d) < 0x1p52)) return x;  // already an integer, or NaN or infinity
  double t = std::trunc(d);                 // keeps the sign of zero
  const double f = std::fabs(d - t);        // exact
  if (f > 0.5 || (detail::exact_eq(f, 0.5) && !detail::exact_eq(std::fmod(t, 2.0), 0.0))) t += std::copysign(1.0, d);
  return basic_float<F>(t);
}
template <class F>
MIXPREC_HD basic_float<F> nearbyint(basic_float<F> x) noexcept {
  return rint(x);
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
  detail::unpacked u = detail::unpack<F>(x.bits());
  if (u.cls != detail::value_class::finite) return x;
  constexpr int limit = 4096;  // far beyond any format's range, and no int overflow
  u.exp += n > limit ? limit : (n < -limit ? -limit : n);
  return basic_float<F>::from_bits(detail::pack<F>(u, rounding::nearest_even, overflow::ieee));
}
template <class F>
MIXPREC_HD constexpr basic_float<F> scalbn(basic_float<F> x, int n) noexcept {
  return ldexp(x, n);
}
/// The unbiased exponent: FP_ILOGB0 for zero, FP_ILOGBNAN for NaN, INT_MAX for infinity.
template <class F>
MIXPREC_HD constexpr int ilogb(basic_float<F> x) noexcept {
  const detail::unpacked u = detail::unpack<F>(x.bits());
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
  const detail::unpacked u = detail::unpack<F>(x.bits());
  switch (u.cls) {
    case detail::value_class::zero: return basic_float<F>::from_bits(detail::pack<F>(detail::make_inf(true), rounding::nearest_even, overflow::ieee));
    case detail::value_class::nan: return x;
    case detail::value_class::infinite: return abs(x);
    case detail::value_class::finite: break;
  }
  return basic_float<F>(u.exp);
}
/// The next representable value after x toward y (NaN if either is NaN; y if x == y). Stepping
/// beyond the largest finite value gives infinity, or NaN in formats without infinity.
template <class F>
MIXPREC_HD constexpr basic_float<F> nextafter(basic_float<F> x, basic_float<F> y) noexcept {
  using T = basic_float<F>;
  if (isnan(x)) return x;
  if (isnan(y)) return y;
  if (x == y) return y;
  const bool up = x < y;
  const std::uint64_t mag = detail::code_of<F>(x.bits()) & F::magnitude_mask;
  if constexpr (F::enc == encoding::exponent_only) {
    if (!up && mag == 0) return detail::quiet_nan<T>();  // nothing below 2^-127
    return detail::from_code<T>(up ? mag + 1 : mag - 1);  // past max: 0xff, the NaN
  } else {
    if (x == T(0)) return detail::with_magnitude<F>(!up, 1);
    const bool neg = signbit(x);
    const bool grow = up != neg;  // the magnitude grows
    if (grow && mag == F::max_code) {
      return T::from_bits(detail::pack<F>(detail::make_inf(neg), rounding::nearest_even, overflow::ieee));
    }
    return detail::with_magnitude<F>(neg, grow ? mag + 1 : mag - 1);
  }
}
/// The spacing of the format at x: 2^(max(exponent(x), emin) - mantissa bits), i.e. the gap
/// from |x| to the next larger magnitude (at max, the spacing of max's binade). NaN for NaN and
/// infinity.
template <class F>
MIXPREC_HD constexpr basic_float<F> ulp(basic_float<F> x) noexcept {
  const detail::unpacked u = detail::unpack<F>(x.bits());
  if (u.cls == detail::value_class::nan || u.cls == detail::value_class::infinite) {
    return detail::quiet_nan<basic_float<F>>();
  }
  const int e = u.cls == detail::value_class::zero || u.exp < F::emin ? F::emin : u.exp;
  return detail::pow2<basic_float<F>>(e - F::mantissa_bits);
}

// ---- functions evaluated in double, rounded once -----------------------------------------

MIXPREC_UNARY(cbrt)
MIXPREC_UNARY(exp)
MIXPREC_UNARY(exp2)
MIXPREC_UNARY(expm1)
MIXPREC_UNARY(log)
MIXPREC_UNARY(log2)
MIXPREC_UNARY(log10)
MIXPREC_UNARY(log1p)
MIXPREC_UNARY(sin)
MIXPREC_UNARY(cos)
MIXPREC_UNARY(tan)
MIXPREC_UNARY(asin)
MIXPREC_UNARY(acos)
MIXPREC_UNARY(atan)
MIXPREC_UNARY(sinh)
MIXPREC_UNARY(cosh)
MIXPREC_UNARY(tanh)
MIXPREC_UNARY(erf)
MIXPREC_UNARY(erfc)
#undef MIXPREC_UNARY

#define MIXPREC_BINARY(NAME)                                                                   \
  template <class F>                                                                           \
  MIXPREC_HD basic_float<F> NAME(basic_float<F> x, basic_float<F> y) noexcept {                \
    return basic_float<F>(std::NAME(static_cast<double>(x), static_cast<double>(y)));          \
  }
MIXPREC_BINARY(hypot)
MIXPREC_BINARY(pow)
#undef MIXPREC_BINARY

/// atan2(y, x). For 0 < |y/x| < 2^-20 with x > 0 the result is y/x - (y/x)^3/3 + ..., and the
/// double result is y/x itself, which can be a tie of the format while the exact value lies just
/// inside it: there the quotient is computed exactly and nudged toward zero.
template <class F>
MIXPREC_HD basic_float<F> atan2(basic_float<F> y, basic_float<F> x) noexcept {
  const detail::unpacked uy = detail::unpack<F>(y.bits()), ux = detail::unpack<F>(x.bits());
  if (uy.cls == detail::value_class::finite && ux.cls == detail::value_class::finite && !ux.sign) {
    detail::unpacked q = detail::soft_div(uy, ux);
    if (q.cls == detail::value_class::finite && q.exp < -20) {
      if ((q.sig & 1u) == 0) q.sig -= 1;  // exact quotient: the true value is just below it
      return basic_float<F>::from_bits(detail::pack<F>(q, rounding::nearest_even, overflow::ieee));
    }
  }
  return basic_float<F>(std::atan2(static_cast<double>(y), static_cast<double>(x)));
}

}  // namespace mixprec

#endif  // MIXPREC_MATH_HPP
