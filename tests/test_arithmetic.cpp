// SPDX-License-Identifier: MIT
// Arithmetic against MPFR: + - * / for every pair of values of every 8-bit format (and random
// pairs of the 16-bit ones and tf32), sqrt of every value, fma on random triples — in every
// deterministic rounding mode and both overflow policies; the operators against the
// nearest-even results; comparisons, mixed-type rules and NaN propagation.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "formats_list.hpp"
#include "mpfr_reference.hpp"

using mixprec::overflow;
using mixprec::rounding;

namespace {

constexpr rounding modes[] = {rounding::nearest_even, rounding::nearest_away, rounding::toward_zero,
                              rounding::upward,       rounding::downward,     rounding::to_odd};
constexpr overflow policies[] = {overflow::ieee, overflow::saturate};

bool same_or_both_nan(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

struct mp {
  mpfr_t v;
  mp() { mpfr_init2(v, 64); }
  ~mp() { mpfr_clear(v); }
  mp(const mp&) = delete;
  mp& operator=(const mp&) = delete;
  void set(double d) { mpfr_set_d(v, d, MPFR_RNDN); }
};

template <class T>
T code_value(std::uint64_t c) {
  return T::from_bits(static_cast<typename T::storage_type>(c << T::format_type::padding_bits));
}

template <class T>
std::vector<T> all_values() {
  std::vector<T> v;
  for (std::uint64_t c = 0; c < (std::uint64_t{1} << T::format_type::bits); ++c) v.push_back(code_value<T>(c));
  return v;
}

template <class T>
std::vector<T> sample_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<T> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(code_value<T>(gen() & ((std::uint64_t{1} << T::format_type::bits) - 1)));
  return v;
}

/// Checks the four operations on pairs (xs[i], ys[i]) or all pairs when all_pairs.
template <class T>
void check_binary(const std::vector<T>& xs, const std::vector<T>& ys, bool all_pairs) {
  const ref::format& f = reftest::ref_of<T>();
  mref::context ctx(f);
  mp a, b;
  int bad = 0;
  const char* names[] = {"add", "sub", "mul", "div"};
  auto check_one = [&](T x, T y) {
    a.set(static_cast<double>(x));
    b.set(static_cast<double>(y));
    const mref::mpfr_op ops[] = {
        [&](mpfr_t r, mpfr_rnd_t rnd) { return mpfr_add(r, a.v, b.v, rnd); },
        [&](mpfr_t r, mpfr_rnd_t rnd) { return mpfr_sub(r, a.v, b.v, rnd); },
        [&](mpfr_t r, mpfr_rnd_t rnd) { return mpfr_mul(r, a.v, b.v, rnd); },
        [&](mpfr_t r, mpfr_rnd_t rnd) { return mpfr_div(r, a.v, b.v, rnd); },
    };
    for (int o = 0; o < 4; ++o) {
      for (rounding m : modes) {
        for (overflow p : policies) {
          const double want = ctx.round(ops[o], m, p);
          T got{};
          switch (o) {
            case 0: got = mixprec::add(x, y, m, p); break;
            case 1: got = mixprec::sub(x, y, m, p); break;
            case 2: got = mixprec::mul(x, y, m, p); break;
            default: got = mixprec::div(x, y, m, p); break;
          }
          bool ok = same_or_both_nan(static_cast<double>(got), want);
          if (m == rounding::nearest_even && p == overflow::ieee) {
            const T opres = o == 0 ? x + y : o == 1 ? x - y : o == 2 ? x * y : x / y;
            ok = ok && same_or_both_nan(static_cast<double>(opres), want);
          }
          if (!ok && ++bad <= 6) {
            const std::string what = std::string(f.name) + " " + names[o];
            MESSAGE(what, " mode ", static_cast<int>(m), " policy ", static_cast<int>(p), ": ", static_cast<double>(x),
                    ", ", static_cast<double>(y), " want ", want, " got ", static_cast<double>(got));
          }
        }
      }
    }
  };
  if (all_pairs) {
    for (T x : xs)
      for (T y : ys) check_one(x, y);
  } else {
    for (std::size_t i = 0; i < xs.size(); ++i) check_one(xs[i], ys[i]);
  }
  CHECK(bad == 0);
}

template <class T>
void check_sqrt(const std::vector<T>& xs) {
  const ref::format& f = reftest::ref_of<T>();
  mref::context ctx(f);
  mp a;
  int bad = 0;
  for (T x : xs) {
    a.set(static_cast<double>(x));
    const mref::mpfr_op op = [&](mpfr_t r, mpfr_rnd_t rnd) { return mpfr_sqrt(r, a.v, rnd); };
    for (rounding m : modes) {
      const double want = ctx.round(op, m, overflow::ieee);
      const double got = static_cast<double>(mixprec::sqrt(x, m));
      if (!same_or_both_nan(got, want) && ++bad <= 6) {
        MESSAGE(std::string(f.name), " sqrt mode ", static_cast<int>(m), ": ", static_cast<double>(x), " want ", want,
                " got ", got);
      }
    }
  }
  CHECK(bad == 0);
}

template <class T>
void check_fma(std::size_t n, std::uint64_t seed) {
  const ref::format& f = reftest::ref_of<T>();
  mref::context ctx(f);
  mp a, b, c;
  const auto xs = sample_values<T>(n, seed), ys = sample_values<T>(n, seed + 1), zs = sample_values<T>(n, seed + 2);
  int bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    a.set(static_cast<double>(xs[i]));
    b.set(static_cast<double>(ys[i]));
    c.set(static_cast<double>(zs[i]));
    const mref::mpfr_op op = [&](mpfr_t r, mpfr_rnd_t rnd) { return mpfr_fma(r, a.v, b.v, c.v, rnd); };
    for (rounding m : modes) {
      for (overflow p : policies) {
        const double want = ctx.round(op, m, p);
        const double got = static_cast<double>(mixprec::fma(xs[i], ys[i], zs[i], m, p));
        if (!same_or_both_nan(got, want) && ++bad <= 6) {
          MESSAGE(std::string(f.name), " fma mode ", static_cast<int>(m), ": ", static_cast<double>(xs[i]), ", ",
                  static_cast<double>(ys[i]), ", ", static_cast<double>(zs[i]), " want ", want, " got ", got);
        }
      }
    }
  }
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE_TEMPLATE("8-bit and smaller formats: every pair, every operation, every mode", T, mixprec::float8_e4m3fn,
                   mixprec::float8_e5m2, mixprec::float8_e4m3fnuz, mixprec::float8_e5m2fnuz, mixprec::float6_e2m3fn,
                   mixprec::float6_e3m2fn, mixprec::float4_e2m1fn, reftest::e3m4, mixprec::float8_e4m3b11fnuz,
                   mixprec::float4_e1m2, mixprec::float8_ue4m3, reftest::ue2m2fn) {
  const auto v = all_values<T>();
  check_binary(v, v, true);
  check_sqrt(v);
  check_fma<T>(20000, 5);
}

TEST_CASE_TEMPLATE("16-bit formats and tf32: random pairs, every sqrt", T, mixprec::half, mixprec::bfloat16,
                   mixprec::tf32, reftest::e6m9fn) {
  check_binary(sample_values<T>(20000, 11), sample_values<T>(20000, 12), false);
  if (T::format_type::bits <= 16) {
    check_sqrt(all_values<T>());
  } else {
    check_sqrt(sample_values<T>(100000, 13));
  }
  check_fma<T>(20000, 17);
}

TEST_CASE("e8m0fnu arithmetic: powers of two, NaN for what has no value") {
  using E = mixprec::float8_e8m0fnu;
  CHECK((E(4.0f) * E(8.0f)).bits() == E(32.0f).bits());
  CHECK((E(4.0f) / E(8.0f)).bits() == E(0.5f).bits());
  CHECK(mixprec::isnan(E(4.0f) - E(4.0f)));  // zero does not exist
  CHECK(mixprec::isnan(E(1.0f) - E(2.0f)));  // nor negative values
  CHECK(mixprec::isnan(-E(1.0f)));
  CHECK((E(1.0f) + E(2.0f)).bits() == E(4.0f).bits());  // 3 is a tie between 2 and 4: away
  CHECK(mixprec::sqrt(E(16.0f)).bits() == E(4.0f).bits());
}

TEST_CASE("comparisons are IEEE's") {
  using mixprec::half;
  const half nan = std::numeric_limits<half>::quiet_NaN();
  CHECK(half(0.0f) == -half(0.0f));
  CHECK_FALSE(nan == nan);
  CHECK(nan != nan);
  CHECK_FALSE(nan < half(1.0f));
  CHECK_FALSE(nan >= half(1.0f));
  CHECK(-std::numeric_limits<half>::infinity() < std::numeric_limits<half>::lowest());
  // Every pair of e4m3fn values orders as their decoded values do.
  int bad = 0;
  for (int i = 0; i < 256; ++i) {
    for (int j = 0; j < 256; ++j) {
      const auto x = mixprec::float8_e4m3fn::from_bits(static_cast<std::uint8_t>(i));
      const auto y = mixprec::float8_e4m3fn::from_bits(static_cast<std::uint8_t>(j));
      const double a = static_cast<double>(x), b = static_cast<double>(y);
      bad += (x == y) != (a == b) || (x < y) != (a < b) || (x <= y) != (a <= b) || (x > y) != (a > b) ||
             (x >= y) != (a >= b) || (x != y) != (a != b);
    }
  }
  CHECK(bad == 0);
  // fnuz: one zero, 0x80 is NaN.
  CHECK_FALSE(mixprec::float8_e4m3fnuz::from_bits(0x80) == mixprec::float8_e4m3fnuz::from_bits(0x80));
  CHECK(mixprec::float8_e4m3fnuz::from_bits(0x01) > mixprec::float8_e4m3fnuz::from_bits(0x00));
  CHECK(mixprec::float8_e4m3fnuz::from_bits(0x81) < mixprec::float8_e4m3fnuz::from_bits(0x00));
}

namespace {
template <class A, class B, class = void>
struct can_add : std::false_type {};
template <class A, class B>
struct can_add<A, B, decltype((void)(std::declval<A>() + std::declval<B>()))> : std::true_type {};
template <class A, class B, class = void>
struct can_compare : std::false_type {};
template <class A, class B>
struct can_compare<A, B, decltype((void)(std::declval<A>() < std::declval<B>()))> : std::true_type {};
}  // namespace

TEST_CASE("mixed operands follow the C++23 extended floating-point rules") {
  using mixprec::bfloat16;
  using mixprec::half;
  static_assert(std::is_same<decltype(half() + 1.0f), float>::value, "half + float is float");
  static_assert(std::is_same<decltype(1.0 * bfloat16()), double>::value, "double * bfloat16 is double");
  static_assert(std::is_same<decltype(half() - 2), half>::value, "integers convert to the mixprec type");
  static_assert(std::is_same<decltype('a' + half()), half>::value, "");
  static_assert(std::is_same<decltype(half() == 2.0f), bool>::value, "");
  static_assert(can_add<half, half>::value && can_add<half, float>::value && can_compare<half, int>::value, "");
  // half + bfloat16 and half + long double are declared (so that the call reaches one readable
  // static_assert instead of float + float through the implicit widening): tests/compile_fail.
  static_assert(std::is_same<decltype(half() + bfloat16()), half>::value, "");
  CHECK(half(1.5f) + 0.25f == 1.75f);
  CHECK(half(2049) == half(2048));      // 2049 is not a half: rounds to 2048 first
  CHECK((half(1.0f) + 2049).bits() == half(2048.0f).bits());  // 2049 -> 2048; 1 + 2048 = 2049 -> 2048 (tie to even)
  half h(1.0f);
  h += 0.5f;
  CHECK(h.bits() == half(1.5f).bits());
  h *= 2;
  CHECK(h.bits() == half(3.0f).bits());
  CHECK((h++).bits() == half(3.0f).bits());
  CHECK(h.bits() == half(4.0f).bits());
}

TEST_CASE("NaN operands propagate quietly; invalid operations give the positive quiet NaN") {
  using mixprec::half;
  const half snan = half::from_bits(0xfd01);  // negative signaling NaN, payload 0x101
  CHECK((snan + half(1.0f)).bits() == 0xff01);
  CHECK((half(1.0f) * snan).bits() == 0xff01);
  CHECK(mixprec::add(snan, half(1.0f), rounding::upward).bits() == 0xff01);
  const half inf = std::numeric_limits<half>::infinity();
  CHECK((inf - inf).bits() == 0x7e00);
  CHECK((half(0.0f) * inf).bits() == 0x7e00);
  CHECK((half(0.0f) / half(0.0f)).bits() == 0x7e00);
  CHECK(mixprec::sqrt(half(-1.0f)).bits() == 0x7e00);
  CHECK(mixprec::sub(inf, inf, rounding::toward_zero).bits() == 0x7e00);
  // x / 0 where there is no infinity: NaN (fn), NaN (fnuz), max (MX).
  CHECK((mixprec::float8_e4m3fn(1.0f) / mixprec::float8_e4m3fn(0.0f)).bits() == 0x7f);
  CHECK((mixprec::float8_e4m3fnuz(1.0f) / mixprec::float8_e4m3fnuz(0.0f)).bits() == 0x80);
  CHECK((mixprec::float4_e2m1fn(-1.0f) / mixprec::float4_e2m1fn(0.0f)).bits() == 0xf);
  // Signed zeros.
  CHECK((half(1.0f) - half(1.0f)).bits() == 0x0000);
  CHECK(mixprec::sub(half(1.0f), half(1.0f), rounding::downward).bits() == 0x8000);
  CHECK((-half(0.0f) + -half(0.0f)).bits() == 0x8000);
  CHECK(mixprec::sqrt(-half(0.0f)).bits() == 0x8000);
}

TEST_CASE("directed operations reject stochastic rounding without random bits") {
  using mixprec::half;
  CHECK_THROWS_AS((void)mixprec::add(half(1.0f), half(1.0f), rounding::stochastic), std::invalid_argument);
  const half x = mixprec::add(half(1.0f), half(0x1p-12f), rounding::stochastic, overflow::ieee, 0xffffffffu);
  CHECK(x.bits() == 0x3c01);  // a quarter ulp and bits that always round up
}

TEST_CASE("arithmetic is constexpr") {
  using mixprec::half;
  static_assert((half(1.0f) + half(2.0f)).bits() == 0x4200, "");
  static_assert(mixprec::div(half(1.0f), half(3.0f), rounding::upward).bits() == 0x3556, "");
  static_assert(mixprec::sqrt(mixprec::bfloat16(2.0f)).bits() == 0x3fb5, "");
  static_assert(mixprec::fma(half(2.0f), half(3.0f), half(1.0f)).bits() == 0x4700, "");
  CHECK(true);
}
