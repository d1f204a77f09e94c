// SPDX-License-Identifier: MIT
// The two-argument <cmath> functions on EVERY pair of values of float8_e4m3fn, float8_e5m2 and
// the 6- and 4-bit formats, and on every half and bfloat16 x against a set of y (tests/exhaustive/
// test_math_exact_pairs.cpp: the other 8-bit formats, and many more y, in threads), against MPFR: fmod, remainder, remquo (value
// and quotient bits), fdim, fmin, fmax, hypot, pow, atan2; nextafter and nexttoward against the
// sorted list of the format's values; copysign and the quiet comparisons against double. modf
// over every value of every format against mpfr_modf.
#include <cstdint>

#include <doctest/doctest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "formats_list.hpp"
#if MIXPREC_TEST_HAVE_MPFR
#include "mpfr_reference.hpp"
#endif

#ifdef MIXPREC_MATH_EXACT_EXHAUSTIVE
#include <atomic>
#include <thread>
#endif

#if MIXPREC_TEST_HAVE_MPFR
namespace {

using mixprec::overflow;
using mixprec::rounding;

bool same_or_both_nan(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

template <class T>
T from_code(std::uint64_t c) {
  return T::from_bits(static_cast<typename T::storage_type>(c << T::format_type::padding_bits));
}

/// Checks every two-argument function on (x, y); one object per thread.
template <class T>
class pair_checker {
 public:
  pair_checker() : fmt_(reftest::ref_of<T>()), ctx_(fmt_) {
    mpfr_init2(a_, 64);
    mpfr_init2(b_, 64);
    constexpr std::uint64_t n = std::uint64_t{1} << T::format_type::bits;
    for (std::uint64_t c = 0; c < n && n <= (1u << 16); ++c) {
      const double d = static_cast<double>(from_code<T>(c));
      if (!std::isnan(d) && !(d == 0 && std::signbit(d))) sorted_.push_back(d);
    }
    std::sort(sorted_.begin(), sorted_.end());
  }
  ~pair_checker() {
    mpfr_clear(a_);
    mpfr_clear(b_);
  }
  pair_checker(const pair_checker&) = delete;
  pair_checker& operator=(const pair_checker&) = delete;

  /// The number of functions that disagree on (x, y); messages for the first few. all: also the
  /// functions evaluated through double and fdim, fmin, fmax (else the exact ones only).
  int check(T x, T y, bool all = true) {
    const double dx = static_cast<double>(x), dy = static_cast<double>(y);
    mpfr_set_d(a_, dx, MPFR_RNDN);
    mpfr_set_d(b_, dy, MPFR_RNDN);
    int bad = 0;
    const auto mp = [&](int (*f)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t)) {
      return ctx_.round([&](mpfr_t r, mpfr_rnd_t rnd) { return f(r, a_, b_, rnd); }, rounding::nearest_even,
                        overflow::ieee);
    };
    const auto expect = [&](const char* name, double got, double want) {
      if (same_or_both_nan(got, want)) return;
      ++bad;
      if (++reported_ <= 6) {
        const std::string what = std::string(fmt_.name) + " " + name;
        MESSAGE(what, "(", dx, ", ", dy, "): want ", want, " got ", got);
      }
    };
    expect("fmod", static_cast<double>(mixprec::fmod(x, y)), mp(mpfr_fmod));
    expect("remainder", static_cast<double>(mixprec::remainder(x, y)), mp(mpfr_remainder));
    {
      long q = 0;
      const double want = ctx_.round([&](mpfr_t r, mpfr_rnd_t rnd) { return mpfr_remquo(r, &q, a_, b_, rnd); },
                                     rounding::nearest_even, overflow::ieee);
      int quo = 12345;
      const double got = static_cast<double>(mixprec::remquo(x, y, &quo));
      expect("remquo", got, want);
      if (!std::isnan(want)) {
        const long low = (q < 0 ? -q : q) & 0x7fffffffL;  // the low 31 bits of |n|, with the sign of x/y
        const long wq = q < 0 ? -low : low;
        if (quo != wq) expect("remquo's quotient", quo, static_cast<double>(wq));
      } else if (quo != 0 && (std::isnan(dx) || std::isnan(dy) || std::isinf(dx) || dy == 0)) {
        expect("remquo's quotient for NaN", quo, 0);  // (e8m0fnu: a zero remainder is NaN, with a quotient)
      }
    }
    if (all) check_rounded(x, y, mp, expect);
    // copysign: |x| with y's sign bit, into the format (fnuz: no -0; e8m0fnu: no sign).
    const double cs = std::isnan(dx) ? dx
                                     : ref::round(fmt_, std::copysign(dx, mixprec::signbit(y) ? -1.0 : 1.0),
                                                  rounding::nearest_even, overflow::ieee);
    expect("copysign", static_cast<double>(mixprec::copysign(x, y)), cs);
    // Comparisons.
    const bool cmp_ok = mixprec::isgreater(x, y) == (dx > dy) && mixprec::isgreaterequal(x, y) == (dx >= dy) &&
                        mixprec::isless(x, y) == (dx < dy) && mixprec::islessequal(x, y) == (dx <= dy) &&
                        mixprec::islessgreater(x, y) == (dx < dy || dx > dy) &&
                        mixprec::isunordered(x, y) == (std::isnan(dx) || std::isnan(dy));
    if (!cmp_ok) expect("comparisons", 0, 1);
    if (!sorted_.empty()) {
      const T n = mixprec::nextafter(x, y);
      expect("nextafter", static_cast<double>(n), next_ref(dx, dy));
      const T t = mixprec::nexttoward(x, static_cast<long double>(dy));
      expect("nexttoward", static_cast<double>(t), static_cast<double>(n));
      if (!mixprec::isnan(n) && t.bits() != n.bits()) expect("nexttoward's bits", 0, 1);
    }
    return bad;
  }

  /// modf against mpfr_modf over every value.
  int check_modf(T x) {
    const double dx = static_cast<double>(x);
    T ip;
    const double got = static_cast<double>(mixprec::modf(x, &ip));
    if (std::isnan(dx)) return !std::isnan(got) || !mixprec::isnan(ip);
    mpfr_t i, f;
    mpfr_init2(i, 64);
    mpfr_init2(f, 64);
    mpfr_set_d(a_, dx, MPFR_RNDN);
    mpfr_modf(i, f, a_, MPFR_RNDN);  // exact at 64 bits; signs as C's modf
    const auto into = [&](mpfr_srcptr v) {
      return ref::round(fmt_, mpfr_get_d(v, MPFR_RNDN), rounding::nearest_even, overflow::ieee);
    };
    const int bad = !same_or_both_nan(got, into(f)) + !same_or_both_nan(static_cast<double>(ip), into(i));
    mpfr_clear(i);
    mpfr_clear(f);
    if (bad != 0 && ++reported_ <= 6) {
      const std::string what = std::string(fmt_.name) + " modf";
      MESSAGE(what, "(", dx, ")");
    }
    return bad;
  }

 private:
  template <class MP, class Expect>
  void check_rounded(T x, T y, const MP& mp, const Expect& expect) {
    expect("fdim", static_cast<double>(mixprec::fdim(x, y)), mp(mpfr_dim));
    expect("fmin", static_cast<double>(mixprec::fmin(x, y)), mp(mpfr_min));
    expect("fmax", static_cast<double>(mixprec::fmax(x, y)), mp(mpfr_max));
    // (Not for e8m0fnu: where the exact result underflows, mixprec gives its smallest value,
    // 2^-127, and the MPFR reference 0, which is NaN there.)
    if (T::format_type::enc != mixprec::encoding::exponent_only) {
      expect("hypot", static_cast<double>(mixprec::hypot(x, y)), mp(mpfr_hypot));
      expect("pow", static_cast<double>(mixprec::pow(x, y)), mp(mpfr_pow));
      expect("atan2", static_cast<double>(mixprec::atan2(x, y)), mp(mpfr_atan2));
    }
  }

  /// nextafter's reference: the neighbour in the sorted values (0's neighbours are
  /// +-denorm_min; a zero result has x's sign), NaN past the ends.
  double next_ref(double dx, double dy) const {
    if (std::isnan(dx) || std::isnan(dy)) return dx + dy;
    if (dx == dy) return dy;
    const auto it = std::lower_bound(sorted_.begin(), sorted_.end(), dx);
    const auto i = it - sorted_.begin();
    const auto j = dx < dy ? i + 1 : i - 1;
    if (j < 0 || j >= static_cast<std::ptrdiff_t>(sorted_.size())) return std::numeric_limits<double>::quiet_NaN();
    const double v = sorted_[static_cast<std::size_t>(j)];
    if (v == 0) return ref::round(fmt_, std::copysign(0.0, dx), rounding::nearest_even, overflow::ieee);
    return v;
  }

  const ref::format& fmt_;
  mref::context ctx_;
  mpfr_t a_, b_;
  std::vector<double> sorted_;
  int reported_ = 0;
};

/// The y values tried against every half and bfloat16: special ones and count random codes.
template <class T>
std::vector<T> y_values(bool many_specials, std::size_t count) {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {T(1.0f), T(-0.75f), T(3.0f), T(0.1f), T(1000.0f), L::denorm_min(), L::max(), L::infinity(), T(0.0f), L::quiet_NaN()};
  if (many_specials) {
    for (T y : {-T(0.0f), -T(1.0f), T(0.5f), T(10.0f), -L::infinity(), L::lowest(), L::min(), -L::denorm_min(),
                T(1.5f), T(-2.5f), T(7.0f), T(0.3f)}) {
      v.push_back(y);
    }
  }
  std::mt19937_64 gen(2026);
  for (std::size_t i = 0; i < count; ++i) v.push_back(T::from_bits(static_cast<std::uint16_t>(gen())));
  return v;
}

}  // namespace

template <class T>
long all_pairs() {
  pair_checker<T> check;
  constexpr std::uint64_t n = std::uint64_t{1} << T::format_type::bits;
  long bad = 0;
  for (std::uint64_t i = 0; i < n; ++i)
    for (std::uint64_t j = 0; j < n; ++j) bad += check.check(from_code<T>(i), from_code<T>(j));
  return bad;
}

#ifndef MIXPREC_MATH_EXACT_EXHAUSTIVE
TEST_CASE_TEMPLATE("two-argument functions on every pair, against MPFR", T, mixprec::float8_e4m3fn,
                   mixprec::float8_e5m2, mixprec::float6_e2m3fn, mixprec::float6_e3m2fn, mixprec::float4_e2m1fn) {
  CHECK(all_pairs<T>() == 0);
}

TEST_CASE_TEMPLATE("exact two-argument functions on every half and bfloat16 against a set of y", T, mixprec::half,
                   mixprec::bfloat16) {
  pair_checker<T> check;
  const std::vector<T> ys = y_values<T>(false, 0);
  long bad = 0;
  for (std::uint32_t c = 0; c < 65536; ++c) {
    const T x = T::from_bits(static_cast<std::uint16_t>(c));
    for (T y : ys) bad += check.check(x, y, false);
  }
  CHECK(bad == 0);
}
#else
// tests/exhaustive/test_math_exact_pairs.cpp: the other formats' pairs, and every half and
// bfloat16 x against 22 special y (all functions) and 250 random y (the exact ones), in threads.
TEST_CASE_TEMPLATE("two-argument functions on every pair, against MPFR", T, mixprec::float8_e4m3fnuz,
                   mixprec::float8_e5m2fnuz, mixprec::float8_e8m0fnu, reftest::e3m4) {
  CHECK(all_pairs<T>() == 0);
}

TEST_CASE_TEMPLATE("two-argument functions on every half and bfloat16 against many y", T, mixprec::half,
                   mixprec::bfloat16) {
  const std::vector<T> ys = y_values<T>(true, 250);
  const std::size_t n_special = y_values<T>(true, 0).size();
  const unsigned nt = std::max(2u, std::thread::hardware_concurrency());
  std::atomic<long> bad{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < nt; ++t) {
    pool.emplace_back([&, t] {
      pair_checker<T> check;
      long b = 0;
      for (std::uint32_t c = t; c < 65536; c += nt) {
        const T x = T::from_bits(static_cast<std::uint16_t>(c));
        for (std::size_t k = 0; k < ys.size(); ++k) b += check.check(x, ys[k], k < n_special);
      }
      bad += b;
    });
  }
  for (auto& th : pool) th.join();
  CHECK(bad.load() == 0);
}
#endif

TEST_CASE_TEMPLATE("modf over every value, against MPFR", T, MIXPREC_ALL_FORMATS) {
  pair_checker<T> check;
  constexpr std::uint64_t n = std::uint64_t{1} << T::format_type::bits;
  long bad = 0;
  for (std::uint64_t c = 0; c < n; ++c) bad += check.check_modf(from_code<T>(c));
  CHECK(bad == 0);
}
#endif  // MIXPREC_TEST_HAVE_MPFR

#if MIXPREC_TEST_HAVE_MPFR
TEST_CASE_TEMPLATE("three-argument hypot on random triples, against MPFR", T, mixprec::half, mixprec::bfloat16) {
  const ref::format& fmt = reftest::ref_of<T>();
  mref::context ctx(fmt);
  mpfr_t a, s;
  mpfr_init2(a, 64);
  mpfr_init2(s, 512);  // x^2 + y^2 + z^2 exactly
  std::mt19937_64 gen(13);
  long bad = 0;
  for (int i = 0; i < 40000; ++i) {
    const T v[3] = {T::from_bits(static_cast<std::uint16_t>(gen())), T::from_bits(static_cast<std::uint16_t>(gen())),
                    T::from_bits(static_cast<std::uint16_t>(gen() >> 2))};  // (the third: mostly small)
    mpfr_set_zero(s, 1);
    bool nan = false, inf = false;
    for (T t : v) {
      const double d = static_cast<double>(t);
      nan = nan || std::isnan(d);
      inf = inf || std::isinf(d);
      mpfr_set_d(a, d, MPFR_RNDN);
      mpfr_sqr(a, a, MPFR_RNDN);  // exact at 64 bits
      mpfr_add(s, s, a, MPFR_RNDN);
    }
    const double want = inf ? INFINITY
                        : nan ? NAN
                              : ctx.round([&](mpfr_t r, mpfr_rnd_t rnd) { return mpfr_sqrt(r, s, rnd); },
                                          rounding::nearest_even, overflow::ieee);
    const double got = static_cast<double>(mixprec::hypot(v[0], v[1], v[2]));
    if (!same_or_both_nan(got, want) && ++bad <= 4) {
      MESSAGE("hypot(", static_cast<double>(v[0]), ", ", static_cast<double>(v[1]), ", ", static_cast<double>(v[2]),
              "): want ", want, " got ", got);
    }
  }
  mpfr_clear(a);
  mpfr_clear(s);
  CHECK(bad == 0);
}
#endif

TEST_CASE("fmod, remainder, remquo, modf, fdim: special cases") {
  using mixprec::half;
  const half inf = std::numeric_limits<half>::infinity();
  int q = 99;
  CHECK(mixprec::remquo(half(7.0f), half(2.0f), &q).bits() == half(-1.0f).bits());
  CHECK(q == 4);  // 3.5 rounds to even
  CHECK(mixprec::remquo(half(-7.0f), half(2.0f), &q).bits() == half(1.0f).bits());
  CHECK(q == -4);
  CHECK(mixprec::remquo(half(5.0f), half(-2.0f), &q).bits() == half(1.0f).bits());
  CHECK(q == -2);
  CHECK(mixprec::fmod(half(-7.0f), half(2.0f)).bits() == half(-1.0f).bits());
  CHECK(mixprec::fmod(half(-4.0f), half(2.0f)).bits() == 0x8000);  // -0: the sign of x
  CHECK(mixprec::remainder(half(4.0f), half(-2.0f)).bits() == 0x0000);
  CHECK(mixprec::fmod(half(65504.0f), half::from_bits(0x0001)).bits() == 0x0000);
  CHECK(mixprec::fmod(half(3.0f), inf).bits() == half(3.0f).bits());
  CHECK(mixprec::isnan(mixprec::fmod(inf, half(3.0f))));
  CHECK(mixprec::isnan(mixprec::fmod(half(3.0f), half(0.0f))));
  CHECK(mixprec::remquo(half(3.0f), half(0.0f), &q).bits() == std::numeric_limits<half>::quiet_NaN().bits());
  CHECK(q == 0);
  // bfloat16: an exponent difference of 260 bits.
  using mixprec::bfloat16;
  const bfloat16 big = std::numeric_limits<bfloat16>::max(), tiny = std::numeric_limits<bfloat16>::denorm_min();
  CHECK(mixprec::fmod(big, tiny).bits() == 0);
  CHECK(mixprec::fmod(big, bfloat16(3.0f)).bits() == bfloat16(static_cast<float>(std::fmod(0x1.fep127, 3.0))).bits());
  half ip;
  CHECK(mixprec::modf(half(-3.25f), &ip).bits() == half(-0.25f).bits());
  CHECK(ip.bits() == half(-3.0f).bits());
  CHECK(mixprec::modf(half(-3.0f), &ip).bits() == 0x8000);
  CHECK(mixprec::modf(-inf, &ip).bits() == 0x8000);
  CHECK(ip.bits() == (-inf).bits());
  CHECK(mixprec::fdim(half(1.0f), half(3.0f)).bits() == 0);
  CHECK(mixprec::fdim(half(3.0f), half(1.0f)).bits() == half(2.0f).bits());
  CHECK(mixprec::nexttoward(half(1.0f), 1.0L + 1e-10L).bits() == 0x3c01);
  CHECK(mixprec::nexttoward(half(0.0f), -0.0L).bits() == 0x8000);
  CHECK(mixprec::nexttoward(half(1.0f), 1.0L).bits() == 0x3c00);
  CHECK(mixprec::isnan(mixprec::nexttoward(half(1.0f), std::numeric_limits<long double>::quiet_NaN())));
  CHECK(mixprec::scalbln(half(1.0f), 3L).bits() == half(8.0f).bits());
  CHECK(mixprec::scalbln(half(1.0f), LONG_MIN).bits() == 0);
  CHECK(mixprec::scalbln(half(-1.0f), LONG_MAX).bits() == (-inf).bits());
  CHECK(mixprec::scalbln(half::from_bits(0x0001), 24L).bits() == half(1.0f).bits());
}

TEST_CASE("the exact two-argument functions are constant expressions") {
  using mixprec::half;
  static_assert(mixprec::fmod(half(7.0f), half(2.0f)).bits() == 0x3c00, "");
  static_assert(mixprec::remainder(half(7.0f), half(2.0f)).bits() == 0xbc00, "");
  static_assert(mixprec::fdim(half(3.0f), half(1.0f)).bits() == 0x4000, "");
  static_assert(mixprec::isgreater(half(3.0f), half(1.0f)), "");
  static_assert(mixprec::isunordered(half(3.0f), std::numeric_limits<half>::quiet_NaN()), "");
  CHECK(true);
}
