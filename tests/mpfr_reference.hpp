// SPDX-License-Identifier: MIT
// tests/mpfr_reference.hpp — correctly rounded results of a format from MPFR (libmpfr-dev),
// an independent reference for arithmetic and math functions. MPFR computes at the format's
// precision with its exponent range and subnormals; the rules MPFR cannot know (no infinity in
// fn/fnuz/MX formats, no -0 in fnuz, nearest-away, round-to-odd, the overflow policy) are applied
// here from the spec's tables in tests/reference.hpp.
#ifndef MIXPREC_TESTS_MPFR_REFERENCE_HPP
#define MIXPREC_TESTS_MPFR_REFERENCE_HPP

#include <mpfr.h>

#include <cmath>
#include <functional>
#include <limits>

#include "reference.hpp"

namespace mref {

/// An operation: computes r = f(args) in rounding mode rnd, returns MPFR's ternary value.
using mpfr_op = std::function<int(mpfr_t r, mpfr_rnd_t rnd)>;

class context {
 public:
  explicit context(const ref::format& f) : f_(f) {
    mpfr_init2(r_, f.man_bits + 1);
    emin_ = mpfr_get_emin();
    emax_ = mpfr_get_emax();
  }
  ~context() {
    mpfr_clear(r_);
    mpfr_set_emin(emin_);
    mpfr_set_emax(emax_);
  }
  context(const context&) = delete;
  context& operator=(const context&) = delete;

  /// The correctly rounded value of op's exact result in the format, in mode/policy.
  double round(const mpfr_op& op, mixprec::rounding mode, mixprec::overflow policy) {
    using mixprec::rounding;
    switch (mode) {
      case rounding::nearest_even: return finish(eval(op, MPFR_RNDN), mode, policy);
      case rounding::toward_zero: return finish(eval(op, MPFR_RNDZ), mode, policy);
      case rounding::upward: return finish(eval(op, MPFR_RNDU), mode, policy);
      case rounding::downward: return finish(eval(op, MPFR_RNDD), mode, policy);
      case rounding::nearest_away: {
        // Nearest, ties away: pick between the two neighbours by comparing at higher precision.
        const result lo = eval(op, MPFR_RNDZ);
        if (lo.exact || std::isnan(lo.value) || std::isinf(lo.value)) return finish(lo, mode, policy);
        const result hi = eval(op, MPFR_RNDA);
        const result n = eval(op, MPFR_RNDN);
        // A tie rounds away: RNDN picked the even one; detect a tie by exact comparison.
        return finish(is_tie(op, lo.value, hi.value) ? hi : n, mode, policy);
      }
      case rounding::to_odd: {
        const result lo = eval(op, MPFR_RNDZ);
        if (lo.exact || std::isnan(lo.value) || std::isinf(lo.value)) return finish(lo, mode, policy);
        const result hi = eval(op, MPFR_RNDA);
        return finish(odd(lo.value) ? lo : hi, mode, policy);
      }
      case rounding::stochastic: break;
    }
    return std::numeric_limits<double>::quiet_NaN();
  }

 private:
  struct result {
    double value;
    bool exact;
  };

  // MPFR's exponent e means m * 2^e with m in [1/2, 1).
  long emin_mpfr() const {
    const int emin = f_.kind == ref::specials::e8m0 ? -f_.bias : 1 - f_.bias;
    return emin - f_.man_bits + 1;
  }
  long emax_mpfr() const { return std::ilogb(f_.max) + 1; }

  result eval(const mpfr_op& op, mpfr_rnd_t rnd) {
    mpfr_set_emin(emin_mpfr());
    mpfr_set_emax(emax_mpfr());
    int t = op(r_, rnd);
    t = mpfr_check_range(r_, t, rnd);
    t = mpfr_subnormalize(r_, t, rnd);
    const double v = mpfr_get_d(r_, MPFR_RNDN);  // exact: the format fits in double
    mpfr_set_emin(emin_);
    mpfr_set_emax(emax_);
    return {v, t == 0};
  }

  bool is_tie(const mpfr_op& op, double lo, double hi) {
    mpfr_t exact, mid;
    mpfr_init2(exact, 4096);
    mpfr_init2(mid, 4096);
    const int t = op(exact, MPFR_RNDN);
    mpfr_set_d(mid, lo, MPFR_RNDN);
    mpfr_add_d(mid, mid, hi, MPFR_RNDN);
    mpfr_div_2ui(mid, mid, 1, MPFR_RNDN);
    const bool tie = t == 0 && mpfr_equal_p(exact, mid);
    mpfr_clear(exact);
    mpfr_clear(mid);
    return tie;
  }

  /// Whether the significand of v (at the format's quantum) is odd.
  bool odd(double v) const {
    const double a = std::fabs(v);
    if (a == 0) return false;
    const double q = a >= f_.min_normal ? std::ldexp(1.0, std::ilogb(a) - f_.man_bits) : f_.min_sub;
    return (static_cast<long long>(a / q) & 1) != 0;
  }

  /// Applies what MPFR does not model: the format's max, its lack of Inf/NaN/-0, the policy.
  double finish(result r, mixprec::rounding mode, mixprec::overflow policy) const {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    double v = r.value;
    if (std::isnan(v)) return f_.kind == ref::specials::finite ? f_.max : nan;
    const bool neg = std::signbit(v);
    if (f_.kind == ref::specials::e8m0) {
      if (neg || v == 0) return nan;
    }
    if (f_.no_sign && neg) return ((v == 0 && r.exact) || f_.kind == ref::specials::finite) ? 0.0 : nan;
    if (std::isinf(v) || std::fabs(v) > f_.max) {
      // Beyond max: where the mode rounds away from zero, the overflow value; else max.
      // (An exact infinity, like 1/0, is always "away".)
      if (std::isinf(v) && r.exact) return ref::overflow_away(f_, neg, policy);
      if (ref::magnitude_up(mode, neg) || f_.kind == ref::specials::finite) {
        return f_.kind == ref::specials::finite ? (neg ? -f_.max : f_.max) : ref::overflow_away(f_, neg, policy);
      }
      return neg ? -f_.max : f_.max;
    }
    if (v == 0 && f_.kind == ref::specials::fnuz) return 0.0;
    return v;
  }

  const ref::format& f_;
  mpfr_t r_;
  mpfr_exp_t emin_, emax_;
};

}  // namespace mref

#endif  // MIXPREC_TESTS_MPFR_REFERENCE_HPP
