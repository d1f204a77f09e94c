// SPDX-License-Identifier: MIT
// NVFP4 "Four Over Six" (nvfp4_order::four_over_six, block_scaling_nvfp4.hpp): a hand-worked block,
// a tie, and random tensors (block magnitudes down to E4M3-subnormal scales, an all-zero tensor)
// against an independent re-implementation of the published rule (the fouroversix PyTorch
// reference's order of float operations) under each error metric.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <mixprec/amp.hpp>

namespace {
std::uint32_t fbits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
}  // namespace
// An independent re-implementation of the rule in the header (fouroversix's PyTorch reference):
// every float operation written as a double operation on floats rounded once to float (exact
// products and quotients rounded once = the IEEE float operation), E2M1 by brute force (nearest of
// the 8 magnitudes, a tie to the even code, saturating), both candidates computed in full and the
// lower error taken.
namespace {

float f32(double v) { return static_cast<float>(v); }

/// Nearest E2M1 magnitude of |y| (ties to the even code), with the sign of y; saturates at 6.
float e2m1_brute(float y) {
  static const float mags[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  const double a = std::fabs(static_cast<double>(y));
  int best = 0;
  for (int c = 1; c < 8; ++c) {
    const double dc = std::fabs(a - mags[c]), db = std::fabs(a - mags[best]);
    if (dc < db || (dc == db && c % 2 == 0)) best = c;
  }
  return std::signbit(y) ? -mags[best] : mags[best];
}

/// E4M3 (non-negative, RNE, saturating) by brute force over the 127 finite codes.
float e4m3_brute(float v) {
  float best = 0.0f;
  for (unsigned c = 1; c < 0x7F; ++c) {
    const float s = static_cast<float>(mixprec::float8_e4m3fn::from_bits(static_cast<std::uint8_t>(c)));
    const double ds = std::fabs(static_cast<double>(v) - s), db = std::fabs(static_cast<double>(v) - best);
    const unsigned cb = best == 0.0f ? 0u : mixprec::round_to<mixprec::float8_e4m3fn>(best).bits();
    if (ds < db || (ds == db && c % 2 == 0 && cb % 2 != 0)) best = s;
  }
  return best;
}

struct ref46 {
  std::vector<float> q;      // element values
  std::vector<float> scale;  // per block
  float amax = 0.0f;
};

ref46 four_over_six_ref(const std::vector<float>& x, std::size_t rows, std::size_t cols, mixprec::nvfp4_46_metric m) {
  ref46 out;
  out.q.assign(x.size(), 0.0f);
  for (float v : x) out.amax = std::max(out.amax, std::fabs(v));
  const float enc = f32(1536.0 / out.amax), dec = f32(1.0 / enc);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t b0 = 0; b0 < cols; b0 += 16) {
      float bmax = 0.0f;
      for (std::size_t j = b0; j < b0 + 16; ++j) bmax = std::max(bmax, std::fabs(x[i * cols + j]));
      const float s = out.amax == 0.0f ? 0.0f : f32(static_cast<double>(f32(bmax / 6.0)) * enc);
      float best_err = 0.0f, best_s = 0.0f;
      std::vector<float> best_q(16);
      for (int c = 0; c < 2; ++c) {  // 6 first: 4 must be strictly better
        const float sc = e4m3_brute(c == 0 ? s : f32(static_cast<double>(s) * 1.5));
        const float r = f32(1.0 / static_cast<double>(f32(static_cast<double>(dec) * sc)));
        float err = 0.0f;
        std::vector<float> q(16);
        for (std::size_t j = 0; j < 16; ++j) {
          const float xv = x[i * cols + b0 + j];
          q[j] = sc == 0.0f ? 0.0f : e2m1_brute(f32(static_cast<double>(xv) * r));
          const float d = f32(
              static_cast<double>(f32(static_cast<double>(f32(static_cast<double>(q[j]) * sc)) * out.amax)) / 1536.0);
          const float e = f32(static_cast<double>(d) - xv);
          if (m == mixprec::nvfp4_46_metric::mse)
            err = f32(static_cast<double>(err) + static_cast<double>(f32(static_cast<double>(e) * e)));
          if (m == mixprec::nvfp4_46_metric::mae)
            err = f32(static_cast<double>(err) + std::fabs(static_cast<double>(e)));
          if (m == mixprec::nvfp4_46_metric::abs_max) err = std::max(err, std::fabs(e));
        }
        if (c == 0 || err < best_err) {
          best_err = err;
          best_s = sc;
          best_q = q;
        }
      }
      out.scale.push_back(best_s);
      for (std::size_t j = 0; j < 16; ++j) out.q[i * cols + b0 + j] = best_q[j];
    }
  return out;
}

}  // namespace

TEST_CASE("NVFP4 four_over_six: a block where scaling to 4 wins, by hand") {
  // amax 1: S6 = E4M3(256) = 256, S4 = E4M3(384) = 384. x = 0.77 scales to 4.62 -> 4 (d = 0.6667,
  // error^2 0.0107) under S6 and to 3.08 -> 3 (d = 0.75, error^2 0.0004) under S4: S4 is taken.
  std::vector<float> x(16, 0.0f);
  x[0] = 1.0f;
  x[1] = 0.77f;
  mixprec::nvfp4_recipe r;
  r.order = mixprec::nvfp4_order::four_over_six;
  const auto t = r.quantize(x.data(), 1, 16);
  CHECK(static_cast<float>(t.scales[0]) == 384.0f);
  CHECK(t.elements[0].bits() == 0x6);  // 4
  CHECK(t.elements[1].bits() == 0x5);  // 3
  CHECK(t.tensor_scale == 1.0f);
  const auto back = mixprec::block_dequantize(r, t);
  CHECK(back[0] == 1.0f);
  CHECK(back[1] == 0.75f);
  CHECK(r.info().name == "nvfp4/four_over_six/mse");
  // A block whose values sit on the 6-grid keeps S6: x = {1, 0.5} -> 6 and 3 exactly.
  x[1] = 0.5f;
  const auto u = r.quantize(x.data(), 1, 16);
  CHECK(static_cast<float>(u.scales[0]) == 256.0f);
  CHECK(u.elements[1].bits() == 0x5);  // 3
}

TEST_CASE("NVFP4 four_over_six equals the brute-force re-implementation (mse, mae, abs_max)") {
  std::mt19937 g(46);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::uniform_int_distribution<int> ex(-30, 30);
  for (auto m : {mixprec::nvfp4_46_metric::mse, mixprec::nvfp4_46_metric::mae, mixprec::nvfp4_46_metric::abs_max}) {
    mixprec::nvfp4_recipe r;
    r.order = mixprec::nvfp4_order::four_over_six;
    r.metric = m;
    std::size_t picked4 = 0, blocks = 0;
    for (int trial = 0; trial < 40; ++trial) {
      const std::size_t rows = 8, cols = 64;
      std::vector<float> x(rows * cols);
      const int e = ex(g);
      for (std::size_t k = 0; k < x.size(); ++k) {
        // per-block magnitudes spread over 2^-12 .. 2^0 of the tensor's (subnormal E4M3 scales too)
        const int be = -static_cast<int>((k / 16 * 7) % 13);
        x[k] = std::ldexp(nd(g), e + be);
      }
      if (trial == 0) std::fill(x.begin(), x.end(), 0.0f);  // amax 0
      const auto t = r.quantize(x.data(), rows, cols);
      const ref46 ref = four_over_six_ref(x, rows, cols, m);
      CHECK(fbits(t.tensor_scale) == fbits(ref.amax));
      std::size_t bad = 0;
      for (std::size_t b = 0; b < ref.scale.size(); ++b) {
        ++blocks;
        if (static_cast<float>(t.scales[b]) != ref.scale[b] && bad++ < 5)
          FAIL_CHECK("block " << b << ": scale " << static_cast<float>(t.scales[b]) << " reference " << ref.scale[b]);
      }
      for (std::size_t k = 0; k < x.size(); ++k)
        if (static_cast<float>(t.elements[k]) != ref.q[k] && bad++ < 10)
          FAIL_CHECK("element " << k << ": " << static_cast<float>(t.elements[k]) << " reference " << ref.q[k]);
      CHECK(bad == 0);
      // dequantize: ((P * S) * amax) / 1536
      const auto back = mixprec::block_dequantize(r, t);
      for (std::size_t k = 0; k < x.size(); ++k) {
        const float want =
            f32(static_cast<double>(f32(static_cast<double>(f32(static_cast<double>(ref.q[k]) *
                                                                ref.scale[k % cols / 16 + (k / cols) * (cols / 16)])) *
                                        ref.amax)) /
                1536.0);
        if (fbits(back[k]) != fbits(want) && !(back[k] == 0.0f && want == 0.0f) && bad++ < 15)
          FAIL_CHECK("dequantized " << k << ": " << back[k] << " want " << want);
      }
      CHECK(bad == 0);
      for (std::size_t b = 0; b < ref.scale.size(); ++b) {
        const float bm = [&] {
          float v = 0.0f;
          for (std::size_t j = 0; j < 16; ++j) v = std::max(v, std::fabs(x[b * 16 + j]));
          return v;
        }();
        const float s = ref.amax == 0.0f ? 0.0f : f32(static_cast<double>(f32(bm / 6.0)) * f32(1536.0 / ref.amax));
        if (ref.scale[b] != e4m3_brute(s)) ++picked4;
      }
    }
    MESSAGE("metric " << static_cast<int>(m) << ": blocks scaled to 4: " << picked4 << " of " << blocks);
    CHECK(picked4 > blocks / 20);  // both candidates are exercised
    CHECK(picked4 < blocks);
  }
}

TEST_CASE("NVFP4 four_over_six at the rounding edges of its scale and element steps") {
  // Tensor amax A (one block holds A). Block amax b = m * A / 256 and its float neighbours (two
  // each way) for every E4M3 midpoint m up to 256: s = (b / 6) * (1536 / A) lands next to m, on
  // the side the published order of operations decides; the other elements are E2M1 midpoints
  // times b / 6 and their float neighbours, so x * R lands next to element midpoints.
  const float e2m1_mid[] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f};
  for (float amax : {1.0f, 0.7f, 3.3f, 1e-3f}) {
    std::vector<float> x(16, 0.0f);
    x[0] = amax;
    for (unsigned c = 0; c + 1 < 0x7F; ++c) {
      const double lo = static_cast<double>(mixprec::float8_e4m3fn::from_bits(static_cast<std::uint8_t>(c)));
      const double hi = static_cast<double>(mixprec::float8_e4m3fn::from_bits(static_cast<std::uint8_t>(c + 1)));
      const double mid = (lo + hi) / 2;
      if (mid > 256.0) break;
      const float b0 = f32(mid * amax / 256.0);
      for (int k = -2; k <= 2; ++k) {
        float b = b0;
        for (int s = 0; s < (k < 0 ? -k : k); ++s) b = std::nextafter(b, k < 0 ? 0.0f : 1e30f);
        std::vector<float> blk = {b};
        for (float e : e2m1_mid)
          for (float v : {e, std::nextafter(e, 0.0f)}) blk.push_back(f32(static_cast<double>(v) * b / 6.0));
        blk.push_back(-b / 3.0f);
        x.insert(x.end(), blk.begin(), blk.begin() + 16);
      }
    }
    while (x.size() % 64 != 0) x.push_back(0.0f);
    for (auto m : {mixprec::nvfp4_46_metric::mse, mixprec::nvfp4_46_metric::mae, mixprec::nvfp4_46_metric::abs_max}) {
      CAPTURE(amax);
      mixprec::nvfp4_recipe r;
      r.order = mixprec::nvfp4_order::four_over_six;
      r.metric = m;
      const auto t = r.quantize(x.data(), x.size() / 64, 64);
      const ref46 ref = four_over_six_ref(x, x.size() / 64, 64, m);
      std::size_t bad = 0;
      for (std::size_t b = 0; b < ref.scale.size(); ++b)
        if (static_cast<float>(t.scales[b]) != ref.scale[b] && bad++ < 5)
          FAIL_CHECK("block " << b << ": scale " << static_cast<float>(t.scales[b]) << " reference " << ref.scale[b]);
      for (std::size_t k = 0; k < x.size(); ++k)
        if (static_cast<float>(t.elements[k]) != ref.q[k] && bad++ < 10)
          FAIL_CHECK("element " << k << ": " << static_cast<float>(t.elements[k]) << " reference " << ref.q[k]);
      CHECK(bad == 0);
    }
  }
}
