// SPDX-License-Identifier: MIT
// Math functions over EVERY input of half and bfloat16 against MPFR (correctly rounded, nearest-
// even), binary functions on random pairs plus special cases, and the exact functions against
// independent computations.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "formats_list.hpp"
#include "mpfr_reference.hpp"

using mixprec::overflow;
using mixprec::rounding;

namespace {

bool same_or_both_nan(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

template <class T>
std::vector<T> every_value() {
  std::vector<T> v;
  for (std::uint32_t c = 0; c < 65536; ++c) v.push_back(T::from_bits(static_cast<std::uint16_t>(c)));
  return v;
}

/// Error of got against want in units of the format's spacing at want.
template <class T>
double ulps(double got, double want) {
  if (same_or_both_nan(got, want)) return 0;
  if (std::isnan(got) || std::isnan(want) || std::isinf(got) || std::isinf(want)) return INFINITY;
  const double q = static_cast<double>(mixprec::ulp(T(want)));
  return std::fabs(got - want) / q;
}

struct unary_case {
  const char* name;
  int (*mpfr)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);
};

template <class T>
using unary_fn = T (*)(T);

template <class T>
void check_unary(const char* name, unary_fn<T> f, int (*mp)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t)) {
  const ref::format& fmt = reftest::ref_of<T>();
  mref::context ctx(fmt);
  mpfr_t a;
  mpfr_init2(a, 64);
  int bad = 0;
  double worst = 0;
  for (T x : every_value<T>()) {
    mpfr_set_d(a, static_cast<double>(x), MPFR_RNDN);
    const double want = ctx.round([&](mpfr_t r, mpfr_rnd_t rnd) { return mp(r, a, rnd); }, rounding::nearest_even,
                                  overflow::ieee);
    const double got = static_cast<double>(f(x));
    if (!same_or_both_nan(got, want)) {
      worst = std::fmax(worst, ulps<T>(got, want));
      if (++bad <= 4) {
        const std::string what = std::string(fmt.name) + " " + name;
        MESSAGE(what, "(", static_cast<double>(x), "): want ", want, " got ", got);
      }
    }
  }
  mpfr_clear(a);
  const std::string label = std::string(fmt.name) + " " + name;
  CAPTURE(label);
  CAPTURE(worst);
  CHECK(bad == 0);
}

#define MIXPREC_UNARY_CHECK(T, NAME, MP) \
  check_unary<T>(#NAME, [](T x) { return mixprec::NAME(x); }, MP)

template <class T>
void all_unary() {
  MIXPREC_UNARY_CHECK(T, sqrt, mpfr_sqrt);
  MIXPREC_UNARY_CHECK(T, cbrt, mpfr_cbrt);
  MIXPREC_UNARY_CHECK(T, exp, mpfr_exp);
  MIXPREC_UNARY_CHECK(T, exp2, mpfr_exp2);
  MIXPREC_UNARY_CHECK(T, expm1, mpfr_expm1);
  MIXPREC_UNARY_CHECK(T, log, mpfr_log);
  MIXPREC_UNARY_CHECK(T, log2, mpfr_log2);
  MIXPREC_UNARY_CHECK(T, log10, mpfr_log10);
  MIXPREC_UNARY_CHECK(T, log1p, mpfr_log1p);
  MIXPREC_UNARY_CHECK(T, sin, mpfr_sin);
  MIXPREC_UNARY_CHECK(T, cos, mpfr_cos);
  MIXPREC_UNARY_CHECK(T, tan, mpfr_tan);
  MIXPREC_UNARY_CHECK(T, asin, mpfr_asin);
  MIXPREC_UNARY_CHECK(T, acos, mpfr_acos);
  MIXPREC_UNARY_CHECK(T, atan, mpfr_atan);
  MIXPREC_UNARY_CHECK(T, sinh, mpfr_sinh);
  MIXPREC_UNARY_CHECK(T, cosh, mpfr_cosh);
  MIXPREC_UNARY_CHECK(T, tanh, mpfr_tanh);
  MIXPREC_UNARY_CHECK(T, erf, mpfr_erf);
  MIXPREC_UNARY_CHECK(T, erfc, mpfr_erfc);
  MIXPREC_UNARY_CHECK(T, asinh, mpfr_asinh);
  MIXPREC_UNARY_CHECK(T, acosh, mpfr_acosh);
  MIXPREC_UNARY_CHECK(T, atanh, mpfr_atanh);
  MIXPREC_UNARY_CHECK(T, tgamma, mpfr_gamma);
  check_unary<T>("lgamma", [](T x) { return mixprec::lgamma(x); }, [](mpfr_ptr r, mpfr_srcptr a, mpfr_rnd_t rnd) {
    int sign = 0;
    return mpfr_lgamma(r, &sign, a, rnd);
  });
  MIXPREC_UNARY_CHECK(T, abs, mpfr_abs);
  MIXPREC_UNARY_CHECK(T, fabs, mpfr_abs);
  MIXPREC_UNARY_CHECK(T, floor, mpfr_rint_floor);
  MIXPREC_UNARY_CHECK(T, ceil, mpfr_rint_ceil);
  MIXPREC_UNARY_CHECK(T, trunc, mpfr_rint_trunc);
  MIXPREC_UNARY_CHECK(T, round, mpfr_rint_round);
  MIXPREC_UNARY_CHECK(T, rint, mpfr_rint_roundeven);
  MIXPREC_UNARY_CHECK(T, nearbyint, mpfr_rint_roundeven);
}

}  // namespace

TEST_CASE("unary functions are correctly rounded for every half") { all_unary<mixprec::half>(); }
TEST_CASE("unary functions are correctly rounded for every bfloat16") { all_unary<mixprec::bfloat16>(); }

namespace {

template <class T>
std::vector<T> specials() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {T(0.0f), -T(0.0f), T(1.0f), -T(1.0f), T(2.0f), T(0.5f), T(-0.5f), T(3.0f), T(-3.0f), T(10.0f),
                      L::infinity(), -L::infinity(), L::quiet_NaN(), L::max(), L::lowest(), L::min(), L::denorm_min(),
                      -L::denorm_min(), T(1.5f), T(-2.5f)};
  return v;
}

/// Runs check(begin, end, notes) on [0, n) split over the hardware threads (each call makes its
/// own MPFR variables and mref::context: MPFR's state is per thread, its caches freed at the
/// thread's end); returns the number of failures and prints the first four notes.
template <class Check>
long in_threads(std::size_t n, Check check) {
  const unsigned nt = std::max(1u, std::thread::hardware_concurrency());
  std::vector<long> bad(nt, 0);
  std::vector<std::vector<std::string>> notes(nt);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < nt; ++t) {
    pool.emplace_back([&, t] {
      bad[t] = check(n * t / nt, n * (t + 1) / nt, notes[t]);
      mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);  // this thread's constant caches (LeakSanitizer)
    });
  }
  for (auto& th : pool) th.join();
  long total = 0;
  std::size_t shown = 0;
  for (unsigned t = 0; t < nt; ++t) {
    total += bad[t];
    for (const std::string& note : notes[t]) {
      if (shown++ < 4) MESSAGE(note);
    }
  }
  return total;
}

template <class... Doubles>
std::string note(const char* fmt, Doubles... values) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, values...);
  return buf;
}

template <class T>
void check_binary(const char* name, T (*f)(T, T), int (*mp)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t),
                  std::size_t n) {
  const ref::format& fmt = reftest::ref_of<T>();
  std::vector<std::pair<T, T>> pairs;
  for (T x : specials<T>())
    for (T y : specials<T>()) pairs.emplace_back(x, y);
  std::mt19937_64 gen(77);
  for (std::size_t i = 0; i < n; ++i) {
    pairs.emplace_back(T::from_bits(static_cast<std::uint16_t>(gen())), T::from_bits(static_cast<std::uint16_t>(gen())));
  }
  const std::string what = std::string(fmt.name) + " " + name + "(%.17g, %.17g): want %.17g got %.17g";
  const long bad = in_threads(pairs.size(), [&](std::size_t begin, std::size_t end, std::vector<std::string>& notes) {
    mref::context ctx(fmt);
    mpfr_t a, b;
    mpfr_init2(a, 64);
    mpfr_init2(b, 64);
    long bad_here = 0;
    for (std::size_t i = begin; i < end; ++i) {
      const auto& p = pairs[i];
      mpfr_set_d(a, static_cast<double>(p.first), MPFR_RNDN);
      mpfr_set_d(b, static_cast<double>(p.second), MPFR_RNDN);
      const double want = ctx.round([&](mpfr_t r, mpfr_rnd_t rnd) { return mp(r, a, b, rnd); }, rounding::nearest_even,
                                    overflow::ieee);
      const double got = static_cast<double>(f(p.first, p.second));
      if (!same_or_both_nan(got, want) && ++bad_here <= 4) {
        notes.push_back(note(what.c_str(), static_cast<double>(p.first), static_cast<double>(p.second), want, got));
      }
    }
    mpfr_clear(a);
    mpfr_clear(b);
    return bad_here;
  });
  CHECK(bad == 0);
}

#ifndef MIXPREC_MATH_PAIRS_DEFAULT
#define MIXPREC_MATH_PAIRS_DEFAULT 100000
#endif
std::size_t pair_count() {
  // 10^5 random pairs per function here; tests/exhaustive/test_math_pairs.cpp runs 10^7.
  if (const char* s = std::getenv("MIXPREC_MATH_PAIRS")) return std::strtoull(s, nullptr, 10);
  return MIXPREC_MATH_PAIRS_DEFAULT;
}

}  // namespace

TEST_CASE_TEMPLATE("binary functions on random pairs and special cases", T, mixprec::half, mixprec::bfloat16) {
  const std::size_t n = pair_count();
  check_binary<T>("pow", [](T x, T y) { return mixprec::pow(x, y); }, mpfr_pow, n);
  check_binary<T>("atan2", [](T x, T y) { return mixprec::atan2(x, y); }, mpfr_atan2, n);
  check_binary<T>("hypot", [](T x, T y) { return mixprec::hypot(x, y); }, mpfr_hypot, n);
  check_binary<T>("fmin", [](T x, T y) { return mixprec::fmin(x, y); }, mpfr_min, n);
  check_binary<T>("fmax", [](T x, T y) { return mixprec::fmax(x, y); }, mpfr_max, n);
}

TEST_CASE_TEMPLATE("exact functions", T, MIXPREC_ALL_FORMATS) {
  using F = typename T::format_type;
  const ref::format& fmt = reftest::ref_of<T>();
  // All values, ascending, to check nextafter and ulp by enumeration.
  std::vector<double> sorted;
  for (std::uint64_t c = 0; c < (std::uint64_t{1} << F::bits); ++c) {
    const double d = ref::decode(fmt, c);
    if (std::isfinite(d) && !(d == 0 && std::signbit(d))) sorted.push_back(d);
  }
  std::sort(sorted.begin(), sorted.end());
  const std::uint64_t n = std::uint64_t{1} << F::bits;
  const std::uint64_t step = n > 70000 ? n / 65536 : 1;
  int bad = 0;
  for (std::uint64_t c = 0; c < n; c += step) {
    const T x = T::from_bits(static_cast<typename T::storage_type>(c << F::padding_bits));
    const double d = static_cast<double>(x);
    if (std::isnan(d)) continue;
    // frexp, ilogb, logb against the C library on the exact double value. frexp's mantissa and
    // logb's exponent are values of T, so they are those of the C library rounded to T (exact
    // wherever T can hold them: not for the MX types whose [0.5, 1) is subnormal, nor e.g. -15
    // in e5m2).
    int e1 = 0, e2 = 0;
    const double m1 = static_cast<double>(mixprec::frexp(x, &e1));
    const double m2 = std::frexp(d, &e2);
    bad += !same_or_both_nan(m1, static_cast<double>(T(m2))) || (std::isfinite(d) && e1 != e2);
    bad += mixprec::ilogb(x) != std::ilogb(d);
    if (std::isfinite(d) && d != 0) {
      bad += !same_or_both_nan(static_cast<double>(mixprec::logb(x)), static_cast<double>(T(std::logb(d))));
    }
    // ldexp: one rounding of d * 2^k.
    for (int k : {-40, -3, -1, 1, 2, 7, 40}) {
      const double want = ref::round(fmt, std::ldexp(d, k), rounding::nearest_even, overflow::ieee);
      bad += !same_or_both_nan(static_cast<double>(mixprec::ldexp(x, k)), want);
    }
    if (!std::isfinite(d)) continue;
    // nextafter: the neighbours in the sorted list of values.
    const auto it = std::lower_bound(sorted.begin(), sorted.end(), d);
    const std::size_t i = static_cast<std::size_t>(it - sorted.begin());
    // Directions: the extreme finite values (formats without infinity turn +-inf into NaN).
    const T hi = std::numeric_limits<T>::max(), lo = std::numeric_limits<T>::lowest();
    if (i + 1 < sorted.size() && d != 0) bad += static_cast<double>(mixprec::nextafter(x, hi)) != sorted[i + 1];
    if (i > 0 && d != 0) bad += static_cast<double>(mixprec::nextafter(x, lo)) != sorted[i - 1];
    // ulp: the gap to the next larger magnitude (below max: the gap below).
    const double a = std::fabs(d);
    const auto ia = std::lower_bound(sorted.begin(), sorted.end(), a);
    const std::size_t j = static_cast<std::size_t>(ia - sorted.begin());
    // (At max there is no next value: the spacing is that of max's binade, 2^(emax - M).)
    const double gap = j + 1 < sorted.size() ? sorted[j + 1] - a : std::ldexp(1.0, std::ilogb(a) - fmt.man_bits);
    if (F::enc != mixprec::encoding::exponent_only || a != 0) {
      bad += static_cast<double>(mixprec::ulp(x)) != gap;
    }
    if (bad > 0) {
      MESSAGE(std::string(fmt.name), " exact functions disagree at ", d);
      break;
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("copysign, abs and nextafter edge cases") {
  using mixprec::half;
  CHECK(mixprec::copysign(half(2.0f), -half(0.0f)).bits() == half(-2.0f).bits());
  CHECK(mixprec::abs(half(-0.0f)).bits() == 0);
  CHECK(mixprec::nextafter(half(0.0f), half(-1.0f)).bits() == 0x8001);
  CHECK(mixprec::nextafter(half::from_bits(0x8001), half(1.0f)).bits() == 0x8000);
  CHECK(mixprec::nextafter(std::numeric_limits<half>::max(), std::numeric_limits<half>::infinity()).bits() == 0x7c00);
  using Z = mixprec::float8_e4m3fnuz;
  CHECK(mixprec::nextafter(Z::from_bits(0x81), Z(1.0f)).bits() == 0x00);  // -min -> 0, never 0x80
  CHECK(mixprec::nextafter(Z(0.0f), Z(-1.0f)).bits() == 0x81);
  CHECK(mixprec::isnan(mixprec::nextafter(mixprec::float8_e4m3fn(448.0f), mixprec::float8_e4m3fn::from_bits(0x7f))));
  CHECK(mixprec::ilogb(half(0.0f)) == FP_ILOGB0);
  CHECK(mixprec::ilogb(std::numeric_limits<half>::infinity()) == INT_MAX);
  CHECK(mixprec::ulp(half(1.0f)).bits() == half(0x1p-10f).bits());
  CHECK(mixprec::ulp(half(0.0f)).bits() == 0x0001);
  CHECK(mixprec::isnan(mixprec::ulp(std::numeric_limits<half>::infinity())));
  CHECK(mixprec::rint(half(2.5f)).bits() == half(2.0f).bits());
  CHECK(mixprec::rint(half(-3.5f)).bits() == half(-4.0f).bits());
  CHECK(mixprec::round(half(2.5f)).bits() == half(3.0f).bits());
  CHECK(mixprec::rint(half(-0.25f)).bits() == 0x8000);
}

TEST_CASE_TEMPLATE("fma on random triples and special cases", T, mixprec::half, mixprec::bfloat16) {
  const ref::format& fmt = reftest::ref_of<T>();
  std::vector<std::array<T, 3>> triples;
  for (T x : specials<T>())
    for (T y : specials<T>())
      for (T z : specials<T>()) triples.push_back({x, y, z});
  std::mt19937_64 gen(91);
  const std::size_t n = pair_count();
  for (std::size_t i = 0; i < n; ++i) {
    triples.push_back({T::from_bits(static_cast<std::uint16_t>(gen())), T::from_bits(static_cast<std::uint16_t>(gen())),
                       T::from_bits(static_cast<std::uint16_t>(gen()))});
  }
  const long bad = in_threads(triples.size(), [&](std::size_t begin, std::size_t end, std::vector<std::string>& notes) {
    mref::context ctx(fmt);
    mpfr_t a, b, c;
    mpfr_inits2(64, a, b, c, static_cast<mpfr_ptr>(nullptr));
    long bad_here = 0;
    for (std::size_t i = begin; i < end; ++i) {
      const auto& t = triples[i];
      mpfr_set_d(a, static_cast<double>(t[0]), MPFR_RNDN);
      mpfr_set_d(b, static_cast<double>(t[1]), MPFR_RNDN);
      mpfr_set_d(c, static_cast<double>(t[2]), MPFR_RNDN);
      for (rounding m : {rounding::nearest_even, rounding::toward_zero}) {
        const double want = ctx.round([&](mpfr_t r, mpfr_rnd_t rnd) { return mpfr_fma(r, a, b, c, rnd); }, m,
                                      overflow::ieee);
        const double got = static_cast<double>(mixprec::fma(t[0], t[1], t[2], m));
        if (!same_or_both_nan(got, want) && ++bad_here <= 4) {
          notes.push_back(note("fma(%.17g, %.17g, %.17g): want %.17g got %.17g", static_cast<double>(t[0]),
                               static_cast<double>(t[1]), static_cast<double>(t[2]), want, got));
        }
      }
    }
    mpfr_clears(a, b, c, static_cast<mpfr_ptr>(nullptr));
    return bad_here;
  });
  CHECK(bad == 0);
}

TEST_CASE("the bit-level math functions are constant expressions") {
  using mixprec::half;
  static_assert(mixprec::abs(half(-2.0f)).bits() == 0x4000, "");
  static_assert(mixprec::copysign(half(2.0f), half(-1.0f)).bits() == 0xc000, "");
  static_assert(mixprec::fmin(half(2.0f), half(1.0f)).bits() == 0x3c00, "");
  static_assert(mixprec::fmax(half(2.0f), half(1.0f)).bits() == 0x4000, "");
  static_assert(mixprec::ldexp(half(1.0f), 3).bits() == 0x4800, "");
  static_assert(mixprec::scalbn(half(1.0f), -1).bits() == 0x3800, "");
  static_assert(mixprec::ilogb(half(8.0f)) == 3, "");
  static_assert(mixprec::logb(half(8.0f)).bits() == 0x4200, "");
  static_assert(mixprec::nextafter(half(1.0f), half(2.0f)).bits() == 0x3c01, "");
  static_assert(mixprec::ulp(half(1.0f)).bits() == 0x1400, "");
  CHECK(true);
}
