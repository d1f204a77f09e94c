// SPDX-License-Identifier: MIT
// block_scaled_gemm: the FP32 accumulator model against a plain-float re-implementation (float
// products and sums, scales applied per promotion chunk), the truncated model against exact
// integer arithmetic on hand-checked values, promotion intervals, the size checks, and the
// result against the float GEMM of the dequantized operands.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include <mixprec/amp.hpp>

using mixprec::block_accumulator;
using mixprec::block_gemm_options;

namespace {

std::uint32_t fbits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

std::vector<float> randn(std::size_t n, std::mt19937& rng, float scale) {
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng) * scale;
  return v;
}

/// The FP32 model written with float arithmetic: float products of the decoded elements (exact),
/// float sums, promotion every `chunk` K with the float product of the two scales.
template <class TA, class TB>
std::vector<float> ref_fp32(const TA& a, const TB& b, std::size_t chunk, float g) {
  const std::size_t m = a.rows, n = b.cols, k = a.cols;
  std::vector<float> c(m * n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (std::size_t k0 = 0; k0 < k; k0 += chunk) {
        float s = 0.0f;
        for (std::size_t kk = k0; kk < k && kk < k0 + chunk; ++kk) {
          s += static_cast<float>(a.elements[i * k + kk]) * static_cast<float>(b.elements[kk * n + j]);
        }
        const float sab = static_cast<float>(a.scale_of(i, k0)) * static_cast<float>(b.scale_of(k0, j));
        const volatile float v = s * sab;  // through memory: never contracted into an FMA (GCC contracts across statements)
        acc += v;
      }
      c[i * n + j] = acc * g;
    }
  return c;
}

/// A 1 x K row and a K x 1 column of ones, unit scales, one K block.
template <class E>
std::vector<float> dot_ones(const std::vector<float>& row, block_gemm_options o) {
  const std::size_t k = row.size();
  mixprec::block_scaled_tensor<E, float> a, b;
  a.rows = 1;
  a.cols = k;
  a.block = mixprec::block_rowwise(k);
  b.rows = k;
  b.cols = 1;
  b.block = mixprec::block_columnwise(k);
  for (float v : row) {
    a.elements.push_back(E(v));
    b.elements.push_back(E(1.0f));
  }
  a.scales = {1.0f};
  b.scales = {1.0f};
  return mixprec::block_scaled_gemm(a, b, o);
}

}  // namespace

TEST_CASE("block-scaled GEMM, truncated accumulator: the sum and the running accumulator are truncated") {
  block_gemm_options o;
  // 1.875 * 3 = 5.625 = 101.101b: kept to 3 bits below its leading bit, 5.5.
  o.acc = block_accumulator::truncated(3, 3);
  CHECK(dot_ones<mixprec::float8_e4m3fn>({1.875f, 1.875f, 1.875f}, o)[0] == 5.5f);
  o.acc = block_accumulator::fp32();
  CHECK(dot_ones<mixprec::float8_e4m3fn>({1.875f, 1.875f, 1.875f}, o)[0] == 5.625f);
  // Groups [1024, 3], [3, 3] with 8 bits: the accumulator's exponent sets the grid (4), so the
  // second group's 3s are dropped: 1024 (aligning to the products alone would keep 1030 -> 1028).
  o.acc = block_accumulator::truncated(8, 2);
  CHECK(dot_ones<mixprec::float8_e5m2>({1024.0f, 3.0f, 3.0f, 3.0f}, o)[0] == 1024.0f);
}

TEST_CASE("block-scaled GEMM, FP32 accumulator: MXFP8, NVFP4, DeepSeek FP8 against plain float") {
  std::mt19937 rng(1);
  const std::size_t m = 9, k = 256, n = 7;
  const auto x = randn(m * k, rng, 3.0f), w = randn(k * n, rng, 0.05f);
  int bad = 0;
  {
    const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> ra{mixprec::mx_block_rule::te_rceil, mixprec::block_rowwise(32)};
    const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> rb{mixprec::mx_block_rule::te_rceil, mixprec::block_columnwise(32)};
    const auto a = ra.quantize(x.data(), m, k);
    const auto b = rb.quantize(w.data(), k, n);
    for (std::size_t promo : {0u, 8u, 32u}) {
      block_gemm_options o;
      o.promotion = promo;
      const auto c = mixprec::block_scaled_gemm(a, b, o);
      const auto r = ref_fp32(a, b, promo == 0 ? 32 : promo, 1.0f);
      for (std::size_t i = 0; i < c.size(); ++i) bad += fbits(c[i]) != fbits(r[i]);
    }
  }
  {
    const mixprec::nvfp4_recipe ra{}, rb{mixprec::nvfp4_order::te, mixprec::nvfp4_encode_factor::reciprocal,
                                        mixprec::block_shape{16, 16}};
    const auto a = ra.quantize(x.data(), m, k);
    const auto b = rb.quantize(w.data(), k, n);
    const auto c = mixprec::block_scaled_gemm(a, b);
    const float g = (1.0f / a.tensor_scale) * (1.0f / b.tensor_scale);
    const auto r = ref_fp32(a, b, 16, g);
    for (std::size_t i = 0; i < c.size(); ++i) bad += fbits(c[i]) != fbits(r[i]);
  }
  {
    const mixprec::deepseek_fp8_recipe ra{}, rb{mixprec::block_shape{128, 128}};
    const auto a = ra.quantize(x.data(), m, k);
    const auto b = rb.quantize(w.data(), k, n);
    const auto c = mixprec::block_scaled_gemm(a, b);
    const auto r = ref_fp32(a, b, 128, 1.0f);
    for (std::size_t i = 0; i < c.size(); ++i) bad += fbits(c[i]) != fbits(r[i]);
    // Close to the float GEMM of the inputs (E4M3: 2^-4 relative per element).
    double worst = 0.0;
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        double exact = 0.0, mag = 0.0;
        for (std::size_t kk = 0; kk < k; ++kk) {
          exact += static_cast<double>(x[i * k + kk]) * static_cast<double>(w[kk * n + j]);
          mag += std::fabs(static_cast<double>(x[i * k + kk]) * static_cast<double>(w[kk * n + j]));
        }
        worst = std::fmax(worst, std::fabs(static_cast<double>(c[i * n + j]) - exact) / mag);
      }
    CHECK(worst < 0.0625);
    CHECK(worst > 0.0);
  }
  CHECK(bad == 0);
}

TEST_CASE("block-scaled GEMM, truncated accumulator: hand-checked values") {
  // A = [1024, 1, 1, 1] (E5M2 exact), B = ones: one K block of 4, X = 2^(10 - 15) for A.
  std::vector<float> x{1024.0f, 1.0f, 1.0f, 1.0f};
  std::vector<float> w{1.0f, 1.0f, 1.0f, 1.0f};
  const mixprec::mx_block_recipe<mixprec::float8_e5m2> ra{mixprec::mx_block_rule::ocp_floor, mixprec::block_rowwise(4)};
  const mixprec::mx_block_recipe<mixprec::float8_e5m2> rb{mixprec::mx_block_rule::ocp_floor, mixprec::block_columnwise(4)};
  const auto a = ra.quantize(x.data(), 1, 4);
  const auto b = rb.quantize(w.data(), 4, 1);
  block_gemm_options o;
  CHECK(mixprec::block_scaled_gemm(a, b, o)[0] == 1027.0f);
  // 8 bits below 2^10: the grid is 4, the three 1s truncate to 0 (one group of 4).
  o.acc = block_accumulator::truncated(8, 4);
  CHECK(mixprec::block_scaled_gemm(a, b, o)[0] == 1024.0f);
  // Groups of one: acc 1024 + 1 truncates each time too.
  o.acc = block_accumulator::truncated(8, 1);
  CHECK(mixprec::block_scaled_gemm(a, b, o)[0] == 1024.0f);
  // 10 bits: the grid is 1, nothing is lost.
  o.acc = block_accumulator::truncated(10, 4);
  CHECK(mixprec::block_scaled_gemm(a, b, o)[0] == 1027.0f);
  // Ones first, then 1024: 1 + 1 + 1 = 3 (group 1, 8 bits), then 3 is truncated to 0 against 1024.
  std::vector<float> y{1.0f, 1.0f, 1.0f, 1024.0f};
  const auto a2 = ra.quantize(y.data(), 1, 4);
  o.acc = block_accumulator::truncated(8, 1);
  CHECK(mixprec::block_scaled_gemm(a2, b, o)[0] == 1024.0f);
  o.acc = block_accumulator::truncated(9, 1);  // grid 2: 3 -> 2
  CHECK(mixprec::block_scaled_gemm(a2, b, o)[0] == 1026.0f);
  // Negative terms truncate toward zero: 1024 - 3 with 8 bits, group 4: -1 -> 0 each: 1024.
  std::vector<float> z{1024.0f, -1.0f, -1.0f, -1.0f};
  const auto a3 = ra.quantize(z.data(), 1, 4);
  o.acc = block_accumulator::truncated(8, 4);
  CHECK(mixprec::block_scaled_gemm(a3, b, o)[0] == 1024.0f);
}

TEST_CASE("block-scaled GEMM, truncated accumulator: error grows as bits shrink (K = 4096)") {
  std::mt19937 rng(2);
  const std::size_t k = 4096;
  const auto x = randn(k, rng, 1.0f), w = randn(k * 4, rng, 1.0f);
  const mixprec::deepseek_fp8_recipe ra{}, rb{mixprec::block_shape{128, 1}};
  const auto a = ra.quantize(x.data(), 1, k);
  const auto b = rb.quantize(w.data(), k, 4);
  block_gemm_options exact;
  const auto c32 = mixprec::block_scaled_gemm(a, b, exact);
  double prev = 0.0;
  for (int bits : {23, 13, 8}) {
    block_gemm_options o;
    o.acc = block_accumulator::truncated(bits, 4);
    o.promotion = k;  // never promoted: the whole K in the model (DeepSeek-V3's concern)
    // One K block of 4096 needs scales per 4096; quantize with that block instead.
    const mixprec::deepseek_fp8_recipe wa{mixprec::block_rowwise(k)}, wb{mixprec::block_shape{k, 1}};
    const auto aa = wa.quantize(x.data(), 1, k);
    const auto bb = wb.quantize(w.data(), k, 4);
    const auto c = mixprec::block_scaled_gemm(aa, bb, o);
    const auto ce = mixprec::block_scaled_gemm(aa, bb, exact);
    double err = 0.0;
    for (std::size_t j = 0; j < 4; ++j) err += std::fabs(static_cast<double>(c[j] - ce[j]));
    MESSAGE("truncated accumulator, " << bits << " bits, K = 4096, no promotion: sum |error| " << err);
    CHECK(err >= prev);
    prev = err;
  }
  CHECK(prev > 0.0);
  CHECK(c32.size() == 4);
}

TEST_CASE("block-scaled GEMM: argument checks") {
  std::vector<float> x(64, 1.0f);
  const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> r32{};
  const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> c16{mixprec::mx_block_rule::ocp_floor, mixprec::block_columnwise(16)};
  const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> c32{mixprec::mx_block_rule::ocp_floor, mixprec::block_columnwise(32)};
  const auto a = r32.quantize(x.data(), 2, 32);
  CHECK_THROWS_AS(mixprec::block_scaled_gemm(a, c16.quantize(x.data(), 32, 2)), std::invalid_argument);
  CHECK_THROWS_AS(mixprec::block_scaled_gemm(a, c32.quantize(x.data(), 16, 4)), std::invalid_argument);
  block_gemm_options o;
  o.promotion = 12;
  CHECK_THROWS_AS(mixprec::block_scaled_gemm(a, c32.quantize(x.data(), 32, 2), o), std::invalid_argument);
  o.promotion = 0;
  o.acc = block_accumulator::truncated(0, 4);
  CHECK_THROWS_AS(mixprec::block_scaled_gemm(a, c32.quantize(x.data(), 32, 2), o), std::invalid_argument);
  o.acc = block_accumulator::fp32();
  CHECK(mixprec::block_scaled_gemm(a, c32.quantize(x.data(), 32, 2), o) == std::vector<float>(4, 32.0f));
}
