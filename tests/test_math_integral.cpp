// SPDX-License-Identifier: MIT
// round_to_integral (floor, ceil, trunc, round, rint, nearbyint) and to_integer (lrint, llrint,
// lround, llround) over EVERY value of every format (tf32 and some formats' to_integer in
// tests/exhaustive/test_math_integral_all.cpp), in all seven rounding modes, against MPFR's mpfr_rint (stochastic:
// the fractional part from mpfr_frac against the random bits) and saturation to the integer
// type's limits computed by MPFR comparisons. Also: a signalling NaN comes back quiet.
#include <cstdint>  // before mpfr.h: mpfr_get_sj/uj

#include <doctest/doctest.h>

#include <climits>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>

#include "formats_list.hpp"
#if MIXPREC_TEST_HAVE_MPFR
#include "mpfr_reference.hpp"
#endif

using mixprec::rounding;

namespace {

constexpr rounding all_modes[] = {rounding::nearest_even, rounding::nearest_away, rounding::toward_zero,
                                  rounding::upward,       rounding::downward,     rounding::to_odd};
constexpr std::uint32_t random_bits_list[] = {0u, 1u, 0x7fffffffu, 0x80000000u, 0xc0000001u, 0xffffffffu};

template <class T>
T from_code(std::uint64_t c) {
  return T::from_bits(static_cast<typename T::storage_type>(c << T::format_type::padding_bits));
}

}  // namespace

#if MIXPREC_TEST_HAVE_MPFR
namespace {

/// r = x rounded to an integer in mode (random_bits for stochastic); r has enough precision to
/// be exact.
void mpfr_integral(mpfr_t r, mpfr_srcptr a, rounding mode, std::uint32_t random_bits) {
  switch (mode) {
    case rounding::nearest_even: mpfr_rint(r, a, MPFR_RNDN); return;
    case rounding::nearest_away: mpfr_round(r, a); return;
    case rounding::toward_zero: mpfr_trunc(r, a); return;
    case rounding::upward: mpfr_ceil(r, a); return;
    case rounding::downward: mpfr_floor(r, a); return;
    case rounding::to_odd:
    case rounding::stochastic: break;
  }
  mpfr_trunc(r, a);
  if (mpfr_equal_p(r, a)) return;
  bool away = false;
  if (mode == rounding::to_odd) {
    mpfr_t h;
    mpfr_init2(h, mpfr_get_prec(r));
    mpfr_div_2ui(h, r, 1, MPFR_RNDN);
    away = mpfr_integer_p(h) != 0;  // truncation is even: take the odd neighbour
    mpfr_clear(h);
  } else {
    mpfr_t f;
    mpfr_init2(f, 256);
    mpfr_frac(f, a, MPFR_RNDN);
    mpfr_abs(f, f, MPFR_RNDN);
    mpfr_mul_2ui(f, f, 32, MPFR_RNDN);
    const unsigned long f32 = mpfr_get_ui(f, MPFR_RNDZ);  // floor(frac * 2^32)
    away = f32 + random_bits >= (1ull << 32);
    mpfr_clear(f);
  }
  if (away) mpfr_add_si(r, r, mpfr_signbit(a) ? -1 : 1, MPFR_RNDN);  // exact; a zero keeps no sign: r is +-1
}

template <class T>
void check_round_to_integral() {
  using F = typename T::format_type;
  const ref::format& fmt = reftest::ref_of<T>();
  mpfr_t a, r;
  mpfr_init2(a, 64);
  mpfr_init2(r, 128);
  int bad = 0;
  long checked = 0;
  for (std::uint64_t c = 0; c < (std::uint64_t{1} << F::bits); ++c) {
    const T x = from_code<T>(c);
    const double d = static_cast<double>(x);
    if (std::isnan(d)) continue;  // the NaN test below
    mpfr_set_d(a, d, MPFR_RNDN);
    for (int m = 0; m < 7; ++m) {
      const auto mode = static_cast<rounding>(m);
      const int nrb = mode == rounding::stochastic ? 6 : 1;
      for (int k = 0; k < nrb; ++k) {
        const std::uint32_t rb = mode == rounding::stochastic ? random_bits_list[k] : 0;
        mpfr_integral(r, a, mode, rb);
        // The exact integer, then into the format (only float6_e2m3fn's 8 overflows; e8m0fnu's 0
        // is NaN; fnuz has no -0).
        const double want = ref::round(fmt, mpfr_get_d(r, MPFR_RNDN), rounding::nearest_even, mixprec::overflow::ieee);
        const double got = static_cast<double>(mixprec::round_to_integral(x, mode, rb));
        ++checked;
        if (!ref::same(got, want) && ++bad <= 5) {
          const std::string what = std::string(fmt.name) + " round_to_integral";
          MESSAGE(what, "(", d, ", mode ", m, ", ", rb, "): want ", want, " got ", got);
        }
      }
    }
    // The fixed-mode forms, and the default-mode overload.
    const auto same_bits = [](T p, T q) { return p.bits() == q.bits(); };
    bad += !same_bits(mixprec::floor(x), mixprec::round_to_integral(x, rounding::downward));
    bad += !same_bits(mixprec::ceil(x), mixprec::round_to_integral(x, rounding::upward));
    bad += !same_bits(mixprec::trunc(x), mixprec::round_to_integral(x, rounding::toward_zero));
    bad += !same_bits(mixprec::round(x), mixprec::round_to_integral(x, rounding::nearest_away));
    bad += !same_bits(mixprec::rint(x), mixprec::round_to_integral(x));
    bad += !same_bits(mixprec::nearbyint(x), mixprec::round_to_integral(x, rounding::nearest_even));
  }
  mpfr_clear(a);
  mpfr_clear(r);
  CAPTURE(checked);
  CHECK(bad == 0);
}

/// I's limits as MPFR numbers (set once per type).
template <class I>
struct limits_mpfr {
  mpfr_t lo, hi;
  limits_mpfr() {
    mpfr_init2(lo, 128);
    mpfr_init2(hi, 128);
    if (std::is_signed<I>::value) {
      mpfr_set_sj(lo, static_cast<std::intmax_t>(std::numeric_limits<I>::min()), MPFR_RNDN);
      mpfr_set_sj(hi, static_cast<std::intmax_t>(std::numeric_limits<I>::max()), MPFR_RNDN);
    } else {
      mpfr_set_ui(lo, 0, MPFR_RNDN);
      mpfr_set_uj(hi, static_cast<std::uintmax_t>(std::numeric_limits<I>::max()), MPFR_RNDN);
    }
  }
  ~limits_mpfr() {
    mpfr_clear(lo);
    mpfr_clear(hi);
  }
  limits_mpfr(const limits_mpfr&) = delete;
  limits_mpfr& operator=(const limits_mpfr&) = delete;
};

/// The saturated reference for integer type I: 0 for NaN, the nearer limit out of range.
template <class I>
I saturated(mpfr_srcptr r, bool nan) {
  if (nan) return 0;
  static const limits_mpfr<I> lim;
  if (mpfr_cmp(r, lim.hi) > 0) return std::numeric_limits<I>::max();
  if (mpfr_cmp(r, lim.lo) < 0) return std::numeric_limits<I>::min();
  return std::is_signed<I>::value ? static_cast<I>(mpfr_get_sj(r, MPFR_RNDN)) : static_cast<I>(mpfr_get_uj(r, MPFR_RNDN));
}

template <class T, class... I>
void check_to_integer() {
  using F = typename T::format_type;
  const ref::format& fmt = reftest::ref_of<T>();
  mpfr_t a, r;
  mpfr_init2(a, 64);
  mpfr_init2(r, 256);
  int bad = 0;
  for (std::uint64_t c = 0; c < (std::uint64_t{1} << F::bits); ++c) {
    const T x = from_code<T>(c);
    const double d = static_cast<double>(x);
    const bool nan = std::isnan(d);
    if (!nan) mpfr_set_d(a, d, MPFR_RNDN);  // infinities included
    for (int m = 0; m < 7; ++m) {
      const auto mode = static_cast<rounding>(m);
      const int nrb = mode == rounding::stochastic ? 6 : 1;
      for (int k = 0; k < nrb; ++k) {
        const std::uint32_t rb = mode == rounding::stochastic ? random_bits_list[k] : 0;
        if (!nan) {
          if (std::isinf(d)) {
            mpfr_set(r, a, MPFR_RNDN);
          } else {
            mpfr_integral(r, a, mode, rb);
          }
        }
        const int fails = (0 + ... + (mixprec::to_integer<I>(x, mode, rb) != saturated<I>(r, nan) ? 1 : 0));
        if (fails != 0 && ++bad <= 5) {
          const std::string what = std::string(fmt.name) + " to_integer";
          MESSAGE(what, "(", d, ", mode ", m, ", ", rb, ")");
        }
      }
    }
    if (!nan) {
      mpfr_rint(r, a, MPFR_RNDN);
      bad += mixprec::lrint(x) != saturated<long>(r, false);
      bad += mixprec::llrint(x) != saturated<long long>(r, false);
      mpfr_round(r, a);
      bad += mixprec::lround(x) != saturated<long>(r, false);
      bad += mixprec::llround(x) != saturated<long long>(r, false);
      mpfr_trunc(r, a);
      bad += mixprec::to_integer<int>(x) != saturated<int>(r, false);  // default: truncation
    } else {
      bad += mixprec::lrint(x) != 0 || mixprec::llround(x) != 0;
    }
  }
  mpfr_clear(a);
  mpfr_clear(r);
  CHECK(bad == 0);
}

}  // namespace

#define MIXPREC_MATH_INTEGER_TYPES                                                                    \
  std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, \
      long, unsigned long long, char, signed char

#ifndef MIXPREC_MATH_INTEGRAL_EXHAUSTIVE
TEST_CASE_TEMPLATE("round_to_integral in every mode over every value, against MPFR", T, mixprec::half,
                   mixprec::bfloat16, mixprec::float8_e4m3fn, mixprec::float8_e5m2, mixprec::float8_e4m3fnuz,
                   mixprec::float8_e5m2fnuz, mixprec::float8_e8m0fnu, mixprec::float6_e2m3fn, mixprec::float6_e3m2fn,
                   mixprec::float4_e2m1fn, reftest::e3m4, reftest::e6m9fn) {
  check_round_to_integral<T>();
}

TEST_CASE_TEMPLATE("to_integer in every mode over every value, saturating, against MPFR", T, mixprec::half,
                   mixprec::bfloat16, mixprec::float8_e4m3fn, mixprec::float8_e5m2, mixprec::float8_e4m3fnuz,
                   mixprec::float8_e8m0fnu, mixprec::float6_e2m3fn) {
  check_to_integer<T, MIXPREC_MATH_INTEGER_TYPES>();
}
#else
// tests/exhaustive/test_math_integral_all.cpp: the formats left out above.
TEST_CASE_TEMPLATE("round_to_integral in every mode over every value, against MPFR", T, mixprec::tf32) {
  check_round_to_integral<T>();
}

TEST_CASE_TEMPLATE("to_integer in every mode over every value, saturating, against MPFR", T, mixprec::tf32,
                   mixprec::float8_e5m2fnuz, mixprec::float6_e3m2fn, mixprec::float4_e2m1fn, reftest::e3m4,
                   reftest::e6m9fn) {
  check_to_integer<T, MIXPREC_MATH_INTEGER_TYPES>();
}
#endif
#endif  // MIXPREC_TEST_HAVE_MPFR

TEST_CASE("rint and the other integral functions return a quiet NaN for a signalling one") {
  // Regression: rint/nearbyint returned a signalling NaN unchanged.
  using mixprec::half;
  int bad = 0;
  for (std::uint32_t c = 0; c < 65536; ++c) {
    const half x = half::from_bits(static_cast<std::uint16_t>(c));
    if (!mixprec::isnan(x)) continue;
    const std::uint16_t want = static_cast<std::uint16_t>(c | 0x0200u);  // quiet bit set, sign and payload kept
    for (rounding m : all_modes) bad += mixprec::round_to_integral(x, m).bits() != want;
    bad += mixprec::round_to_integral(x, rounding::stochastic, 0x12345678u).bits() != want;
    bad += mixprec::rint(x).bits() != want;
    bad += mixprec::nearbyint(x).bits() != want;
    bad += mixprec::floor(x).bits() != want;
    bad += mixprec::ceil(x).bits() != want;
    bad += mixprec::trunc(x).bits() != want;
    bad += mixprec::round(x).bits() != want;
    bad += mixprec::ldexp(x, 3).bits() != want;
    bad += mixprec::logb(x).bits() != want;
    bad += mixprec::nextafter(x, half(1.0f)).bits() != want;
    bad += mixprec::nextafter(half(1.0f), x).bits() != want;
    bad += mixprec::fmod(x, half(1.0f)).bits() != want;
    bad += mixprec::remainder(half(1.0f), x).bits() != want;
    bad += mixprec::fdim(x, half(1.0f)).bits() != want;
    half ip;
    bad += mixprec::modf(x, &ip).bits() != want || ip.bits() != want;
    bad += mixprec::to_integer<int>(x, rounding::nearest_even) != 0;
  }
  CHECK(bad == 0);
  CHECK(mixprec::rint(half::from_bits(0x7c01)).bits() == 0x7e01);
  CHECK(mixprec::nearbyint(half::from_bits(0xfd00)).bits() == 0xff00);
  using mixprec::bfloat16;
  CHECK(mixprec::rint(bfloat16::from_bits(0x7f81)).bits() == 0x7fc1);
}

TEST_CASE("to_integer: out-of-range and NaN results are the documented ones") {
  using mixprec::half;
  using mixprec::bfloat16;
  const half inf = std::numeric_limits<half>::infinity();
  CHECK(mixprec::to_integer<int>(std::numeric_limits<half>::quiet_NaN()) == 0);
  CHECK(mixprec::to_integer<int>(inf) == INT_MAX);
  CHECK(mixprec::to_integer<int>(-inf) == INT_MIN);
  CHECK(mixprec::to_integer<unsigned>(-inf) == 0u);
  CHECK(mixprec::to_integer<unsigned>(half(-0.75f)) == 0u);
  CHECK(mixprec::to_integer<unsigned>(half(-0.75f), rounding::downward) == 0u);  // -1 saturates to 0
  CHECK(mixprec::to_integer<std::int8_t>(half(300.0f)) == 127);
  CHECK(mixprec::to_integer<std::int8_t>(half(-128.5f)) == -128);
  CHECK(mixprec::to_integer<std::int8_t>(half(-128.5f), rounding::downward) == -128);
  CHECK(mixprec::to_integer<std::uint8_t>(half(255.5f), rounding::upward) == 255);
  CHECK(mixprec::to_integer<std::int64_t>(bfloat16(0x1p63f)) == INT64_MAX);
  CHECK(mixprec::to_integer<std::int64_t>(bfloat16(-0x1p63f)) == INT64_MIN);
  CHECK(mixprec::to_integer<std::uint64_t>(bfloat16(0x1p63f)) == (std::uint64_t{1} << 63));
  CHECK(mixprec::to_integer<std::uint64_t>(bfloat16(0x1p64f)) == UINT64_MAX);
  CHECK(mixprec::lrint(half(2.5f)) == 2);
  CHECK(mixprec::lrint(half(-3.5f)) == -4);
  CHECK(mixprec::lround(half(2.5f)) == 3);
  CHECK(mixprec::llround(half(-2.5f)) == -3);
  CHECK(mixprec::to_integer<int>(half(-2.5f), rounding::to_odd) == -3);
  CHECK(mixprec::to_integer<int>(half(2.25f), rounding::stochastic, 0xbfffffffu) == 2);
  CHECK(mixprec::to_integer<int>(half(2.25f), rounding::stochastic, 0xc0000000u) == 3);
#if MIXPREC_HAS_EXCEPTIONS
  CHECK_THROWS(mixprec::to_integer<int>(half(2.25f), rounding::stochastic));
  CHECK_THROWS(mixprec::round_to_integral(half(2.25f), rounding::stochastic));
#endif
}

TEST_CASE("round_to_integral edge cases") {
  using mixprec::half;
  CHECK(mixprec::rint(half(-0.25f)).bits() == 0x8000);
  CHECK(mixprec::ceil(half(-0.25f)).bits() == 0x8000);
  CHECK(mixprec::floor(half(0.25f)).bits() == 0x0000);
  CHECK(mixprec::round_to_integral(half(0.25f), rounding::to_odd).bits() == half(1.0f).bits());
  CHECK(mixprec::round_to_integral(half(-2.0f), rounding::to_odd).bits() == half(-2.0f).bits());
  CHECK(mixprec::round_to_integral(half(-2.5f), rounding::to_odd).bits() == half(-3.0f).bits());
  CHECK(mixprec::round_to_integral(half(1023.5f), rounding::nearest_even).bits() == half(1024.0f).bits());
  CHECK(mixprec::round_to_integral(half(0.5f), rounding::stochastic, 0x7fffffffu).bits() == 0);
  CHECK(mixprec::round_to_integral(half(0.5f), rounding::stochastic, 0x80000000u).bits() == half(1.0f).bits());
  // float6_e2m3fn's max, 7.5, has no integral neighbour above: +max (as a conversion of 8).
  using E = mixprec::float6_e2m3fn;
  CHECK(static_cast<double>(mixprec::ceil(E(7.5f))) == 7.5);
  CHECK(static_cast<double>(mixprec::floor(E(7.5f))) == 7.0);
  using Z = mixprec::float8_e4m3fnuz;
  CHECK(mixprec::trunc(Z(-0.5f)).bits() == 0x00);  // no -0
}

TEST_CASE("the integral functions are constant expressions") {
  using mixprec::half;
  static_assert(mixprec::rint(half(2.5f)).bits() == 0x4000, "");
  static_assert(mixprec::floor(half(-0.5f)).bits() == 0xbc00, "");
  static_assert(mixprec::round_to_integral(half(2.5f), rounding::upward).bits() == 0x4200, "");
  static_assert(mixprec::lround(half(2.5f)) == 3, "");
  static_assert(mixprec::to_integer<unsigned char>(half(-3.0f)) == 0, "");
  static_assert(mixprec::to_integer<short>(half(65504.0f)) == SHRT_MAX, "");
  CHECK(true);
}
