// SPDX-License-Identifier: MIT
// kernels/reduce.hpp: sum and dot follow the documented order exactly (an independent
// re-implementation of the order written from the header's description), are identical under
// every policy and thread count, and stay within the error bound of their accumulator against
// long double; amax propagates NaN; axpy and scale round once.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "kernel_test_util.hpp"

using namespace mixprec;
using ktest::bits_of;

namespace {

/// The documented order, written independently: lane sums per 4096-block, a pairwise tree over
/// the 16 lanes, then the blocks left to right.
template <class A, class X, class Y>
A ordered_reference(const std::vector<X>& x, const std::vector<Y>* y) {
  const std::size_t n = x.size();
  A total = 0;
  for (std::size_t block = 0; block * 4096 < n; ++block) {
    A lane[16] = {};
    for (std::size_t i = block * 4096; i < std::min(n, block * 4096 + 4096); ++i) {
      const std::size_t l = (i - block * 4096) % 16;
      if (y != nullptr) {
        lane[l] = std::fma(static_cast<A>(x[i]), static_cast<A>((*y)[i]), lane[l]);
      } else {
        lane[l] = lane[l] + static_cast<A>(x[i]);
      }
    }
    for (std::size_t w : {std::size_t{8}, std::size_t{4}, std::size_t{2}}) {
      for (std::size_t j = 0; j < w; ++j) lane[j] = lane[j] + lane[j + w];
    }
    const A b = lane[0] + lane[1];
    total = block == 0 ? b : total + b;
  }
  return total;
}

}  // namespace

TEST_CASE("sum and dot: the documented order, under every policy") {
  for (std::size_t n : ktest::awkward_sizes()) {
    const auto x = ktest::mixed_floats(n + 3 * 4096, 11 + n, false);
    const auto yd = ktest::mixed_floats(x.size(), 12 + n, false);
    std::vector<half> y(x.size());
    convert(exec::seq, yd, y);
    for (std::size_t len : {n, n + 3 * 4096}) {
      const std::vector<float> xs(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(len));
      const std::vector<half> ys(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(len));
      INFO("n = " << len);
      const float s = sum(exec::seq, xs);
      CHECK(bits_of(s) == bits_of(ordered_reference<float>(xs, static_cast<const std::vector<float>*>(nullptr))));
      CHECK(bits_of(sum(exec::par(2), xs)) == bits_of(s));
      CHECK(bits_of(sum(exec::par(3), xs)) == bits_of(s));
      const double sd = sum<double>(exec::par, xs);
      CHECK(bits_of(sd) == bits_of(ordered_reference<double>(xs, static_cast<const std::vector<float>*>(nullptr))));
      const float d = dot(exec::seq, xs, ys);
      CHECK(bits_of(d) == bits_of(ordered_reference<float>(xs, &ys)));
      CHECK(bits_of(dot(exec::par(2), xs, ys)) == bits_of(d));
      CHECK(bits_of(dot<double>(exec::par(3), xs, ys)) == bits_of(ordered_reference<double>(xs, &ys)));
      // Error bound of recursive summation with float accumulators against long double:
      // |err| <= (n + 5) * u * sum |x_i y_i| with u = 2^-24 (depth of the order <= n).
      long double exact = 0, mag = 0;
      for (std::size_t i = 0; i < len; ++i) {
        const long double p = static_cast<long double>(xs[i]) * static_cast<long double>(static_cast<float>(ys[i]));
        exact += p;
        mag += std::fabs(p);
      }
      const long double bound = (static_cast<long double>(len) + 5) * std::ldexp(1.0L, -24) * mag;
      CHECK(std::fabs(static_cast<long double>(d) - exact) <= bound);
    }
  }
}

TEST_CASE("sum: a case the order decides (the lanes keep small terms that a plain loop loses)") {
  // 16 copies of 2^24 then 16 ones: lane j gets 2^24 and then 1; 2^24 + 1 rounds to 2^24 in
  // float, so every lane loses its 1 and the sum is 16 * 2^24 exactly. The same data with the
  // ones first keeps them: lane = 1 + 2^24 -> 2^24 too. Both equal the reference order.
  std::vector<float> x(32, 16777216.0f);
  for (std::size_t i = 16; i < 32; ++i) x[i] = 1.0f;
  CHECK(sum(exec::seq, x) == 268435456.0f);
  CHECK(sum<double>(exec::seq, x) == 268435472.0);
}

TEST_CASE("amax: NaN propagates, signs are dropped, empty gives 0") {
  std::vector<float> x = {1.0f, -7.5f, 3.0f};
  CHECK(amax(exec::seq, x) == 7.5f);
  x.push_back(-std::numeric_limits<float>::infinity());
  CHECK(amax(exec::par, x) == std::numeric_limits<float>::infinity());
  std::vector<float> big(50000, 1.0f);
  big[40000] = std::numeric_limits<float>::quiet_NaN();
  CHECK(std::isnan(amax(exec::par(2), big)));
  CHECK(std::isnan(amax(exec::seq, big)));
  CHECK(amax(exec::seq, std::vector<float>{}) == 0.0f);
  std::vector<half> h = {half(-3.0f), half(2.0f)};
  CHECK(amax(exec::seq, h) == 3.0f);
  std::vector<double> d = {-1e300, 2.0};
  CHECK(amax(exec::seq, d) == 1e300);
}

namespace {
// max |x[i]| by comparisons of the values (NaN: any NaN), the reference for the bit-based kernel.
template <class T>
T amax_reference(const std::vector<T>& x, bool& nan) {
  T m = 0;
  nan = false;
  for (T v : x) {
    if (std::isnan(v)) nan = true;
    else if (std::fabs(v) > m) m = std::fabs(v);
  }
  return m;
}
template <class T>
void check_amax_against_reference() {
  const T specials[] = {T(0),
                        -T(0),
                        std::numeric_limits<T>::denorm_min(),
                        -std::numeric_limits<T>::denorm_min(),
                        std::numeric_limits<T>::min(),
                        -std::numeric_limits<T>::max(),
                        std::numeric_limits<T>::max(),
                        std::numeric_limits<T>::infinity(),
                        -std::numeric_limits<T>::infinity(),
                        std::numeric_limits<T>::quiet_NaN(),
                        -std::numeric_limits<T>::quiet_NaN()};
  std::uint64_t state = 12345;
  for (std::size_t n : ktest::awkward_sizes()) {
    for (int trial = 0; trial < 4; ++trial) {
      std::vector<T> x(n);
      for (auto& v : x) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        v = static_cast<T>(static_cast<double>(static_cast<std::int64_t>(state >> 11) - (std::int64_t(1) << 52)) *
                           std::ldexp(1.0, static_cast<int>(state % 41) - 70));
      }
      if (n > 0 && trial > 0) {  // one special at a position that moves through lanes and tails
        x[(n * static_cast<std::size_t>(trial)) / 5 % n] = specials[(n + static_cast<std::size_t>(trial)) % 11];
      }
      bool nan = false;
      const T want = amax_reference(x, nan);
      for (const T got : {amax(exec::seq, x), amax(exec::par(2), x)}) {
        if (nan) {
          CHECK(std::isnan(got));
        } else {
          CHECK(got == want);
          CHECK_FALSE(std::signbit(got));
        }
      }
    }
  }
}

/// The same for half and bfloat16: random bit patterns (NaN, infinities, subnormals among them),
/// NaN-free arrays too, against the maximum of the exact float values.
template <class T>
void check_amax16_against_reference() {
  std::uint64_t state = 777;
  for (std::size_t n : ktest::awkward_sizes()) {
    for (int trial = 0; trial < 4; ++trial) {
      std::vector<T> x(n);
      for (auto& v : x) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        auto b = static_cast<std::uint16_t>(state >> 48);
        if (trial < 2) b = static_cast<std::uint16_t>(b & 0xbfffu);  // top exponent bit clear: finite
        v = T::from_bits(b);
      }
      bool nan = false;
      float want = 0;
      for (T v : x) {
        const float f = static_cast<float>(v);
        if (std::isnan(f)) nan = true;
        else if (std::fabs(f) > want) want = std::fabs(f);
      }
      for (const float got : {amax(exec::seq, x), amax(exec::par(2), x)}) {
        if (nan) {
          CHECK(std::isnan(got));
        } else {
          CHECK(got == want);
          CHECK_FALSE(std::signbit(got));
        }
      }
    }
  }
}
}  // namespace

TEST_CASE("amax: float and double against a comparison reference (every size class, specials in every lane)") {
  check_amax_against_reference<float>();
  check_amax_against_reference<double>();
}

TEST_CASE("amax: half and bfloat16 against the maximum of their float values") {
  check_amax16_against_reference<half>();
  check_amax16_against_reference<bfloat16>();
}

TEST_CASE("axpy and scale: one rounding of the float (or double) result") {
  for (std::size_t n : ktest::awkward_sizes()) {
    const auto x = ktest::mixed_floats(n, 21, false);
    const auto y0 = ktest::mixed_floats(n, 22, false);
    std::vector<half> y(n);
    convert(exec::seq, y0, y);
    std::vector<half> want(n);
    for (std::size_t i = 0; i < n; ++i) {
      want[i] = round_to<half>(std::fma(0.3f, x[i], static_cast<float>(y[i])));
    }
    std::vector<half> a = y, b = y;
    axpy(exec::seq, 0.3, x, a);
    axpy(exec::par(3), 0.3, x, b);
    CHECK(ktest::same_bits(a, want));
    CHECK(ktest::same_bits(b, want));
    std::vector<double> yd(y0.begin(), y0.end());
    axpy(exec::par, 0.3, x, yd);
    for (std::size_t i = 0; i < n; ++i) {
      CHECK(bits_of(yd[i]) == bits_of(std::fma(0.3, static_cast<double>(x[i]), static_cast<double>(y0[i]))));
    }
    std::vector<half> s = y;
    scale(exec::par(2), -2.5, s);
    for (std::size_t i = 0; i < n; ++i) CHECK(s[i].bits() == round_to<half>(-2.5f * static_cast<float>(y[i])).bits());
  }
  std::vector<float> x(3), y(4);
  CHECK_THROWS_AS(axpy(exec::seq, 1.0, x, y), std::invalid_argument);
  CHECK_THROWS_AS(dot(exec::seq, x, y), std::invalid_argument);
}
