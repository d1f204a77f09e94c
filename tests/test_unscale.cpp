// SPDX-License-Identifier: MIT
// kernels/unscale.hpp: unscale_and_check against the per-element rule of PyTorch's
// _amp_foreach_non_finite_check_and_unscale_ (spec/amp.md), for several gradient types at
// once, under every policy; update_scale against dynamic_loss_scale's PyTorch preset, and its
// out-of-contract inputs (a saturating tracker, growth_interval < 1 rejected).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "kernel_test_util.hpp"

#include <mixprec/loss_scale.hpp>  // dynamic_loss_scale: the reference of update_scale

using namespace mixprec;
using ktest::bits_of;

namespace {

template <class T>
std::vector<T> reference(const std::vector<T>& g, float inv, bool& found) {
  using A = std::conditional_t<std::is_same<T, double>::value, double, float>;
  std::vector<T> out(g.size());
  for (std::size_t i = 0; i < g.size(); ++i) {
    const A v = static_cast<A>(g[i]);
    if (!std::isfinite(v)) found = true;
    const A r = inv == 1.0f ? v : v * static_cast<A>(inv);
    if constexpr (std::is_same<T, A>::value) {
      out[i] = r;
    } else {
      out[i] = T(r);  // nearest even
    }
  }
  return out;
}

}  // namespace

TEST_CASE("unscale_and_check: several gradient types, every policy, awkward sizes") {
  for (std::size_t n : ktest::awkward_sizes()) {
    for (float inv : {1.0f, 0.5f, 1.0f / 65536.0f, 3.0f, 1.0f / 3.0f}) {
      for (bool with_inf : {false, true}) {
        auto f = ktest::mixed_floats(n, 31 + n, false);
        if (with_inf && n > 0) f[n / 2] = std::numeric_limits<float>::infinity();
        std::vector<half> h(n);
        std::vector<bfloat16> b(n);
        convert(exec::seq, ktest::mixed_floats(n, 32 + n, false), h);
        convert(exec::seq, ktest::mixed_floats(n, 33 + n, false), b);
        std::vector<double> d(n);
        for (std::size_t i = 0; i < n; ++i) d[i] = 1e3 * static_cast<double>(f[i]);
        bool want = false;
        const auto rf = reference(f, inv, want);
        const auto rh = reference(h, inv, want);
        const auto rb = reference(b, inv, want);
        const auto rd = reference(d, inv, want);
        CHECK(want == (with_inf && n > 0));
        for (int p = 0; p < 3; ++p) {
          auto f2 = f;
          auto h2 = h;
          auto b2 = b;
          auto d2 = d;
          const bool got = p == 0   ? unscale_and_check(exec::seq, f2, h2, b2, d2, inv)
                           : p == 1 ? unscale_and_check(exec::par(2), f2, h2, span<bfloat16>(b2), d2, inv)
                                    : unscale_and_check(exec::par(3), f2, h2, b2, d2, inv);
          INFO("n = " << n << " inv = " << inv << " policy " << p);
          CHECK(got == want);
          CHECK(ktest::same_bits(f2, rf));
          CHECK(ktest::same_bits(h2, rh));
          CHECK(ktest::same_bits(b2, rb));
          CHECK(ktest::same_bits(d2, rd));
        }
      }
    }
  }
}

TEST_CASE("unscale_and_check: one non-finite float at any position (the vector paths' lanes and tails)") {
  const float big = std::numeric_limits<float>::max();
  for (std::size_t n : {std::size_t{1}, std::size_t{15}, std::size_t{16}, std::size_t{33}, std::size_t{70}}) {
    std::vector<float> fin(n, -big);  // the largest exponent field that is still finite
    CHECK_FALSE(unscale_and_check(exec::seq, fin, 1.0f));
    for (std::size_t k = 0; k < n; ++k) {
      for (float bad : {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                        std::numeric_limits<float>::quiet_NaN()}) {
        std::vector<float> f(n, 1.5f);
        f[k] = bad;
        INFO("n = " << n << ", position " << k << ", value " << bad);
        CHECK(unscale_and_check(exec::seq, f, 0.5f));
        if (n > 1) CHECK(f[(k + 1) % n] == 0.75f);  // the others are still scaled
        std::vector<float> g(n, 1.5f);
        g[k] = bad;
        CHECK(unscale_and_check(exec::seq, span<float>(g.data(), n), 1.0f));
      }
    }
  }
}

TEST_CASE("unscale_and_check: the check is on the scaled value; every element is processed") {
  // A half gradient of 65504 with inv_scale 2 overflows when unscaled, but the scaled value is
  // finite: not flagged (PyTorch's order), and the stored result is inf.
  std::vector<half> h = {half(65504.0f), half(1.0f)};
  CHECK_FALSE(unscale_and_check(exec::seq, h, 2.0f));
  CHECK(isinf(h[0]));
  CHECK(static_cast<float>(h[1]) == 2.0f);
  // NaN first, then values that are still unscaled.
  std::vector<float> f = {std::numeric_limits<float>::quiet_NaN(), 4.0f, -std::numeric_limits<float>::infinity()};
  CHECK(unscale_and_check(exec::par, f, 0.25f));
  CHECK(std::isnan(f[0]));
  CHECK(f[1] == 1.0f);
  CHECK(f[2] == -std::numeric_limits<float>::infinity());
  // inv_scale = inf (scale 0, PyTorch issue 99640): 0 * inf = NaN is not flagged.
  std::vector<float> z = {0.0f};
  CHECK_FALSE(unscale_and_check(exec::seq, z, std::numeric_limits<float>::infinity()));
  CHECK(std::isnan(z[0]));
}

TEST_CASE("update_scale: PyTorch's state machine, equal to dynamic_loss_scale's pytorch preset") {
  loss_scale_config cfg = loss_scale_config::pytorch();
  cfg.growth_interval = 3;
  dynamic_loss_scale ref(cfg);
  float scale = 65536.0f;
  std::int32_t tracker = 0;
  std::mt19937 g(5);
  for (int step = 0; step < 2000; ++step) {
    const bool inf = (g() % 4) == 0 || (step > 1500 && step < 1700);  // a long run of overflows: the scale reaches 0
    const float found = inf ? 1.0f : 0.0f;
    update_scale(exec::seq, &scale, &tracker, &found, cfg.growth_factor, cfg.backoff_factor,
                 static_cast<std::int32_t>(cfg.growth_interval));
    ref.update(inf);
    REQUIRE(bits_of(scale) == bits_of(ref.scale()));
    REQUIRE(tracker == ref.growth_tracker());
  }
  CHECK(scale == 0.0f);
  // Growth that would overflow to inf keeps the scale.
  float big = 3e38f;
  std::int32_t t = 0;
  update_scale(big, t, 0.0f, 2.0, 0.5, 1);
  CHECK(big == 3e38f);
  CHECK(t == 0);
}

TEST_CASE("update_scale: out-of-contract trackers and intervals (no int32 overflow; policy overloads reject)") {
  const std::int32_t max = std::numeric_limits<std::int32_t>::max();
  // A tracker at INT32_MAX: PyTorch's `tracker + 1` overflows; here it saturates, the scale stays.
  for (std::int32_t interval : {max, std::int32_t{2000}, std::int32_t{1}, std::int32_t{0}, std::int32_t{-5}}) {
    float s = 8.0f;
    std::int32_t t = max;
    update_scale(s, t, 0.0f, 2.0, 0.5, interval);
    CHECK(t == max);
    CHECK(s == 8.0f);
    // An overflow resets it as usual.
    update_scale(s, t, 1.0f, 2.0, 0.5, interval);
    CHECK(t == 0);
    CHECK(s == 4.0f);
  }
  // Past the interval (or interval <= 0): counts up without growing, as PyTorch.
  float s = 8.0f;
  std::int32_t t = 5;
  update_scale(s, t, 0.0f, 2.0, 0.5, 3);
  CHECK((t == 6 && s == 8.0f));
  t = 0;
  update_scale(s, t, 0.0f, 2.0, 0.5, 0);
  CHECK((t == 1 && s == 8.0f));
  // The largest interval still grows when reached.
  t = max - 1;
  update_scale(s, t, 0.0f, 2.0, 0.5, max);
  CHECK((t == 0 && s == 16.0f));
  // The policy overloads check the interval first and touch nothing.
  for (std::int32_t bad : {std::int32_t{0}, std::int32_t{-1}, std::numeric_limits<std::int32_t>::min()}) {
    float scale = 8.0f;
    std::int32_t tracker = 7;
    const float found = 0.0f;
    CHECK_THROWS_WITH_AS(update_scale(exec::seq, &scale, &tracker, &found, 2.0, 0.5, bad),
                         doctest::Contains("growth_interval must be in [1, 2147483647]"), std::invalid_argument);
    CHECK_THROWS_AS(update_scale(exec::par, &scale, &tracker, &found, 2.0, 0.5, bad), std::invalid_argument);
    CHECK((scale == 8.0f && tracker == 7));
  }
}

TEST_CASE("unscale_and_check: every start offset within a cache line (the vector paths' aligned head)") {
  // 64-byte aligned storage; spans start 0..15 floats into it, so the masked head before the
  // aligned loop has every length, including longer than the span itself.
  constexpr std::size_t size = 16 + 100;
  alignas(64) float storage[size];
  for (std::size_t off = 0; off < 16; ++off) {
    for (std::size_t n : {std::size_t{1}, std::size_t{5}, std::size_t{16}, std::size_t{17}, std::size_t{40},
                          std::size_t{100}}) {
      for (std::size_t k = 0; k <= n; ++k) {  // k == n: every value finite
        for (std::size_t i = 0; i < size; ++i) storage[i] = 3.0f + static_cast<float>(i);
        if (k < n) storage[off + k] = std::numeric_limits<float>::infinity();
        INFO("offset " << off << ", n = " << n << ", infinity at " << k);
        CHECK(unscale_and_check(exec::seq, span<float>(storage + off, n), 0.25f) == (k < n));
        std::size_t bad = 0;  // values not scaled inside the span, or touched outside it
        for (std::size_t i = 0; i < size; ++i) {
          const float x = 3.0f + static_cast<float>(i);
          const bool inside = i >= off && i < off + n;
          if (inside && i == off + k) continue;  // the infinity, scaled: still infinite
          bad += storage[i] != (inside ? x * 0.25f : x);
        }
        CHECK(bad == 0);
      }
    }
  }
}
