// SPDX-License-Identifier: MIT
// mixprec types in code written for float: the everyday lines of README's "Drop-in" table, each
// with the type and value it must give (C++23's rules for std::float16_t, P1467), the explicit
// conversions to integer types over every half and bfloat16 value against std::trunc on the
// exact double value, and NaN signs in every rounding mode. The lines that must NOT compile are
// in tests/compile_fail/ (checked with their error messages by tests/compile_fail/check.py).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

#include <mixprec/mixprec.hpp>

using mixprec::bfloat16;
using mixprec::half;

namespace {

double take_double(double d) { return d; }

// Generic code written for float, as users write it.
template <class T>
T horner(const std::vector<T>& c, T x) {
  T sum = 0;
  for (auto it = c.rbegin(); it != c.rend(); ++it) sum = sum * x + *it;
  return sum;
}

template <class T>
T kahan_sum(const std::vector<T>& v) {
  T sum = 0, comp = 0;
  for (T x : v) {
    T y = x - comp;
    T t = sum + y;
    comp = (t - sum) - y;
    sum = t;
  }
  return sum;
}

template <class T>
std::vector<float> softmax(const std::vector<T>& v) {
  T m = *std::max_element(v.begin(), v.end());
  float total = 0;
  std::vector<float> out;
  for (T x : v) out.push_back(std::exp(x - m));  // T - T is T; std::exp widens to float
  for (float e : out) total += e;
  for (float& e : out) e /= total;
  return out;
}

bool same_bits(half a, half b) { return a.bits() == b.bits(); }

}  // namespace

TEST_CASE("everyday lines compile and give float's types (README Drop-in table)") {
  half x = 0;  // `T x = 0;`
  CHECK(x.bits() == 0x0000);
  half y(0.1);  // `T y(0.1);`
  CHECK(y.bits() == 0x2e66);
  x = 3;
  CHECK(x.bits() == 0x4200);
  x += 1;  // `x += 1;`
  CHECK(x.bits() == 0x4400);

  bool taken = false;
  if (x) taken = true;  // `if (x)`
  CHECK(taken);
  if (half(0)) taken = false;
  CHECK(taken);
  CHECK(static_cast<bool>(half::from_bits(0x8000)) == false);  // -0
  CHECK(static_cast<bool>(half::from_bits(0x7e00)) == true);   // NaN, as for float

  float f = x;  // `float f = x;`
  CHECK(f == 4.0f);
  double d = x;  // `double d = x;`
  CHECK(d == 4.0);
  CHECK(take_double(y) == 0.0999755859375);  // `take_double(x)`: half -> double parameter

  static_assert(std::is_same<decltype(x + 1), half>::value, "`x + 1` is half");
  static_assert(std::is_same<decltype(x + 'a'), half>::value, "`x + 'a'` is half");
  static_assert(std::is_same<decltype(x * 2.0f), float>::value, "`x * 2.0f` is float");
  static_assert(std::is_same<decltype(x * 2.0), double>::value, "`x * 2.0` is double");
  static_assert(std::is_same<decltype(1.5f - x), float>::value, "");
  CHECK(same_bits(x + 1, half(5)));
  CHECK(x + 'a' == 101);
  CHECK(x * 2.0f == 8.0f);
  CHECK(y * 2.0 == 0.199951171875);
  CHECK(half(2049) == 2048);  // 2049 rounds to the half 2048 first, as float(16777217) does

  CHECK(x == 4);           // `x == 4`
  CHECK(x < 4.5);          // `x < 4.5`
  CHECK(!(x != 4.0f));
  CHECK(0 < x);
  const half z = x > 1 ? x : y;  // `x > 1 ? x : y`
  CHECK(same_bits(z, x));
  const half w = x ? y : x;  // `x ? y : x`
  CHECK(same_bits(w, y));

  CHECK(same_bits(std::max(x, half(1)), x));  // `std::max(x, T(1))`
  CHECK(same_bits(std::min(x, y), y));         // `std::min(x, y)`

  // `std::sqrt(x)`: <cmath> through the widening to float; `sqrt(x)` (ADL): mixprec's, rounded once.
  static_assert(std::is_same<decltype(std::sqrt(x)), float>::value, "std::sqrt(half) is float");
  static_assert(std::is_same<decltype(sqrt(x)), half>::value, "sqrt(half) is half");
  CHECK(std::sqrt(half(2)) == std::sqrt(2.0f));
  CHECK(sqrt(half(2)).bits() == 0x3da8);  // sqrt(2) = 1.41421356..., nearest half 1.4140625
  CHECK(std::abs(half(-3)) == 3.0f);             // `std::abs(x)`
  CHECK(std::isnan(half::from_bits(0x7e00)));    // `std::isnan(x)`
  CHECK(!std::isnan(x));
  CHECK(std::isinf(half::from_bits(0xfc00)));

  std::vector<half> v = {half(0.1f)};  // not {0.1f}: see tests/compile_fail/vector_init.cpp
  v.push_back(3);
  v.push_back(-2);
  std::sort(v.begin(), v.end());                           // `std::sort(v.begin(), v.end())`
  CHECK(v.front() == -2);
  CHECK(v.back() == 3);
  const half acc = std::accumulate(v.begin(), v.end(), half(0));  // `std::accumulate(..., T(0))`
  CHECK(acc.bits() == half(1.099609375).bits());
  const float facc = std::accumulate(v.begin(), v.end(), 0.0f);  // `std::accumulate(..., 0.0f)`
  CHECK(facc == 1.0999755859375f);

  CHECK(static_cast<int>(x) == 4);
  CHECK(static_cast<int>(half(2.75)) == 2);  // truncates
  CHECK(static_cast<int>(half(-2.75)) == -2);
  CHECK(static_cast<unsigned char>(half(200)) == 200);
}

TEST_CASE("generic float code runs on mixprec types: Horner, Kahan, softmax") {
  // 1 + 2x + 3x^2 at x = 0.5: every step exact in half.
  CHECK(horner<half>({half(1), half(2), half(3)}, half(0.5)).bits() == half(2.75).bits());
  CHECK(horner<float>({1, 2, 3}, 0.5f) == 2.75f);
  // Kahan in bfloat16 recovers what plain summation loses: 1 + 100 * 2^-9 (each addend below half
  // an ulp of 1 in bfloat16).
  std::vector<bfloat16> v(101, bfloat16(std::ldexp(1.0, -9)));
  v[0] = 1;
  bfloat16 naive = 0;
  for (bfloat16 e : v) naive += e;
  CHECK(naive == 1);
  CHECK(kahan_sum(v) == bfloat16(1 + 100 * std::ldexp(1.0, -9)));
  const std::vector<float> p = softmax<half>({half(1), half(2), half(3)});
  const std::vector<float> q = softmax<float>({1, 2, 3});
  CHECK(p == q);  // the inputs are exact in half and exp runs in float: identical results
}

TEST_CASE("conversion to integers truncates and saturates, for every half and bfloat16 value") {
  // Oracle: the exact double value, std::trunc, and the documented saturation (NaN -> 0).
  auto expected = [](double v, double lo, double hi) {
    if (std::isnan(v)) return 0.0;
    const double t = std::trunc(v);
    return t < lo ? lo : t > hi ? hi : t;
  };
  auto check_all = [&](auto tag) {
    using T = decltype(tag);
    long mismatches = 0;
    for (std::uint32_t b = 0; b < 0x10000; ++b) {
      const T x = T::from_bits(static_cast<std::uint16_t>(b));
      const double v = static_cast<double>(x);
      auto one = [&](auto itag) {
        using I = decltype(itag);
        const double lo = static_cast<double>(std::numeric_limits<I>::min());
        const double hi = static_cast<double>(std::numeric_limits<I>::max());
        const I got = static_cast<I>(x);
        const double want = expected(v, lo, hi);
        // hi of 64-bit types is not a double; saturated results compare through max().
        const bool ok = want >= hi ? got == std::numeric_limits<I>::max()
                                   : static_cast<double>(got) == want;
        if (!ok) ++mismatches;
      };
      one(std::int8_t{});
      one(std::uint8_t{});
      one(std::int16_t{});
      one(std::uint16_t{});
      one(int{});
      one(unsigned{});
      one(std::int64_t{});
      one(std::uint64_t{});
      one(char{});
    }
    return mismatches;
  };
  CHECK(check_all(half{}) == 0);
  CHECK(check_all(bfloat16{}) == 0);
  // Spot values from the rule.
  CHECK(static_cast<std::int64_t>(bfloat16::from_bits(0x7f80)) == std::numeric_limits<std::int64_t>::max());
  CHECK(static_cast<std::int64_t>(bfloat16(-std::ldexp(1.0, 63))) == std::numeric_limits<std::int64_t>::min());
  CHECK(static_cast<int>(bfloat16::from_bits(0x7fc0)) == 0);
  CHECK(static_cast<unsigned>(half(-1)) == 0u);
  CHECK(static_cast<std::uint64_t>(bfloat16(std::ldexp(1.0, 63))) == (std::uint64_t{1} << 63));
  constexpr int ci = static_cast<int>(half(7));  // constexpr
  static_assert(ci == 7, "");
}

TEST_CASE("implicit conversions: from every integer type, widening to float and double") {
  static_assert(sizeof(half) == 2 && sizeof(mixprec::float8_e4m3fn) == 1 && std::is_trivially_copyable<half>::value &&
                    std::is_standard_layout<half>::value,
                "the conversion base classes add no state");
  static_assert(std::is_convertible<int, half>::value && std::is_convertible<unsigned long long, half>::value &&
                    std::is_convertible<char, bfloat16>::value && std::is_convertible<bool, half>::value,
                "integers convert implicitly");
  static_assert(!std::is_convertible<double, half>::value && !std::is_convertible<float, half>::value &&
                    !std::is_convertible<bfloat16, half>::value,
                "narrowing and cross-format conversions are explicit");
  static_assert(std::is_convertible<half, float>::value && std::is_convertible<half, double>::value &&
                    std::is_convertible<bfloat16, float>::value &&
                    std::is_convertible<mixprec::float8_e4m3fn, float>::value &&
                    std::is_convertible<mixprec::tf32, double>::value,
                "widening is implicit");
  static_assert(std::is_constructible<int, half>::value, "explicit conversion to integers");
  // A format wider than float widens implicitly to double (and from there, like a double, to float).
  using wide = mixprec::basic_float<mixprec::format<11, 20>>;
  static_assert(std::is_convertible<wide, double>::value, "");
  static_assert(std::is_same<decltype(wide() + 1.0), double>::value, "");
  // A format float cannot hold does not mix with float (ill-formed, see tests/compile_fail).
  const wide big(1e300);
  CHECK(static_cast<double>(big) == double(wide(1e300)));
  const half from_u64 = std::uint64_t{65504};
  CHECK(from_u64.bits() == 0x7bff);
  const half from_bool = true;
  CHECK(from_bool.bits() == 0x3c00);
  const half rounded = 2049;
  CHECK(rounded.bits() == 0x6800);
}

TEST_CASE("NaN operands keep their sign in every rounding mode (sub included)") {
  using mixprec::rounding;
  for (rounding m : {rounding::nearest_even, rounding::nearest_away, rounding::toward_zero, rounding::upward,
                     rounding::downward, rounding::to_odd}) {
    for (std::uint16_t nan : {std::uint16_t{0x7e01}, std::uint16_t{0xfe01}, std::uint16_t{0x7c01},
                              std::uint16_t{0xfd23}}) {
      const half n = half::from_bits(nan);
      const std::uint16_t quiet = static_cast<std::uint16_t>(nan | 0x0200);
      CAPTURE(static_cast<int>(m));
      CAPTURE(nan);
      CHECK(mixprec::sub(half(1), n, m).bits() == quiet);
      CHECK(mixprec::sub(n, half(1), m).bits() == quiet);
      CHECK(mixprec::add(half(1), n, m).bits() == quiet);
      CHECK(mixprec::mul(half(1), n, m).bits() == quiet);
      CHECK(mixprec::div(half(1), n, m).bits() == quiet);
    }
  }
}
