// SPDX-License-Identifier: MIT
// block_scaled_gemm: the FP32 accumulator model against a plain-float re-implementation (float
// products and sums, scales applied per promotion chunk), the truncated model against exact
// integer arithmetic on hand-checked values, promotion intervals, the size checks, and the
// result against the float GEMM of the dequantized operands.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <type_traits>
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

// ---------------------------------------------------------------------------------------------
// The fast FP32 path (detail/simd_block_gemm.hpp's tiles, or the row loop without SIMD) against a
// plain triple loop of the model written here: every float operation through a volatile, so each
// is rounded once to float and none is fused (GCC contracts a * b + c across statements).
// Elements and scales are random codes (NaN, Inf, zero and extreme scales placed on purpose);
// shapes leave partial tiles in M and N, several promotion chunks and a partial last K block.
// ---------------------------------------------------------------------------------------------
namespace {

float mul_f(float x, float y) {
  volatile float r = x * y;
  return r;
}
float add_f(float x, float y) {
  volatile float r = x + y;
  return r;
}

float value_of(const mixprec::mxint8& e) { return static_cast<float>(e.code) / 64.0f; }
template <class E>
float value_of(const E& e) {
  return static_cast<float>(e);
}

template <class T>
struct is_nvfp4_tensor : std::false_type {};
template <>
struct is_nvfp4_tensor<mixprec::block_scaled_tensor<mixprec::float4_e2m1fn, mixprec::float8_ue4m3>> : std::true_type {};

/// The model, one C element at a time (docs/pages/block-scaled-gemm.md, "The product").
template <class TA, class TB>
std::vector<float> ref_model(const TA& a, const TB& b, std::size_t chunk, float ga, float gb) {
  const std::size_t m = a.rows, n = b.cols, k = a.cols;
  if (!(ga > 0.0f)) ga = is_nvfp4_tensor<TA>::value ? 1.0f / a.tensor_scale : 1.0f;
  if (!(gb > 0.0f)) gb = is_nvfp4_tensor<TB>::value ? 1.0f / b.tensor_scale : 1.0f;
  const float g = mul_f(ga, gb);
  std::vector<float> c(m * n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (std::size_t k0 = 0; k0 < k; k0 += chunk) {
        float s = 0.0f;
        for (std::size_t kk = k0; kk < k && kk < k0 + chunk; ++kk)
          s = add_f(s, mul_f(value_of(a.elements[i * k + kk]), value_of(b.elements[kk * n + j])));
        const float sa = static_cast<float>(a.scales[(i / a.block.rows) * a.scale_cols() + k0 / a.block.cols]);
        const float sb = static_cast<float>(b.scales[(k0 / b.block.rows) * b.scale_cols() + j / b.block.cols]);
        acc = add_f(acc, mul_f(s, mul_f(sa, sb)));
      }
      c[i * n + j] = mul_f(acc, g);
    }
  return c;
}

template <class E>
E rand_elem(std::mt19937& rng, bool special) {
  if constexpr (std::is_same<E, mixprec::mxint8>::value) {
    return mixprec::mxint8{static_cast<std::int8_t>(static_cast<int>(rng() % 256u) - 128)};
  } else {
    constexpr unsigned mask = (1u << E::format_type::storage_bits) - 1u;
    for (;;) {
      const E e = E::from_bits(static_cast<typename E::format_type::storage_type>(rng() & mask));
      if (special || std::isfinite(static_cast<float>(e))) return e;
    }
  }
}

template <class S>
S rand_scale(std::mt19937& rng) {
  if constexpr (std::is_same<S, float>::value) {
    return std::ldexp(1.0f + static_cast<float>(rng() % 1024u) / 1024.0f, static_cast<int>(rng() % 21u) - 10);
  } else if constexpr (std::is_same<S, mixprec::float8_e8m0fnu>::value) {
    return S::from_bits(static_cast<std::uint8_t>(117u + rng() % 20u));
  } else {
    return S::from_bits(static_cast<std::uint8_t>(rng() % 0x7Fu));  // UE4M3: 0 .. 448, no NaN
  }
}

/// Scale values that must pass through unchanged: zero, NaN, infinity, the extremes.
template <class S>
std::vector<S> special_scales() {
  if constexpr (std::is_same<S, float>::value) {
    return {0.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(), 1e-40f, 3e38f, -2.0f};
  } else if constexpr (std::is_same<S, mixprec::float8_e8m0fnu>::value) {
    return {S::from_bits(0x00), S::from_bits(0xFF), S::from_bits(0xFE), S::from_bits(0x01)};
  } else {
    return {S::from_bits(0x00), S::from_bits(0x7F), S::from_bits(0x01), S::from_bits(0x7E)};
  }
}

template <class E, class S>
mixprec::block_scaled_tensor<E, S> rand_tensor(std::mt19937& rng, std::size_t rows, std::size_t cols,
                                               mixprec::block_shape block, bool specials,
                                               bool special_elements = true) {
  mixprec::block_scaled_tensor<E, S> t;
  t.rows = rows;
  t.cols = cols;
  t.block = block;
  for (std::size_t q = 0; q < rows * cols; ++q) t.elements.push_back(rand_elem<E>(rng, specials && special_elements && rng() % 97u == 0));
  for (std::size_t q = 0; q < t.scale_rows() * t.scale_cols(); ++q) t.scales.push_back(rand_scale<S>(rng));
  if (specials) {
    const auto sp = special_scales<S>();
    // Each special on one block, on grids of at least 6 blocks, so most of C stays finite.
    const std::size_t count = std::min(sp.size(), t.scales.size() / 6);
    for (std::size_t q = 0; q < count; ++q) t.scales[rng() % t.scales.size()] = sp[(q + rows) % sp.size()];
  }
  t.tensor_scale = 37.5f;
  return t;
}

bool same_bits(float x, float y) { return fbits(x) == fbits(y) || (std::isnan(x) && std::isnan(y)); }

/// Mismatches of block_scaled_gemm (FP32 model) against ref_model for random A (m x k), B (k x n).
template <class EA, class SA, class EB, class SB>
int fast_vs_model(std::uint32_t seed, std::size_t m, std::size_t k, std::size_t n, mixprec::block_shape ba,
                  mixprec::block_shape bb, std::size_t promotion, bool specials, float ga = 0.0f, float gb = 0.0f) {
  std::mt19937 rng(seed);
  const auto a = rand_tensor<EA, SA>(rng, m, k, ba, specials);
  const auto b = rand_tensor<EB, SB>(rng, k, n, bb, specials);
  block_gemm_options o;
  o.promotion = promotion;
  const auto c = mixprec::block_scaled_gemm(a, b, o, ga, gb);
  const auto r = ref_model(a, b, promotion == 0 ? ba.cols : promotion, ga, gb);
  int bad = 0, finite = 0;
  for (std::size_t q = 0; q < c.size(); ++q) {
    finite += std::isfinite(r[q]) && r[q] != 0.0f;
    if (!same_bits(c[q], r[q]) && bad++ < 3) {
      MESSAGE("seed " << seed << " m " << m << " k " << k << " n " << n << " at " << q << ": " << c[q] << " vs model "
                      << r[q]);
    }
  }
  CHECK(c.size() == m * n);
  if (m * n >= 16 && k != 0) CHECK(finite * 2 > static_cast<int>(m * n));  // the check is not all NaN or zero
  return bad;
}

}  // namespace

TEST_CASE("block-scaled GEMM, FP32 accumulator: fast path bit for bit against the model's triple loop") {
  using mixprec::block_shape;
  using mixprec::float8_e8m0fnu;
  const block_shape r32{1, 32}, c32{32, 1}, r16{1, 16}, c16{16, 1}, t16{16, 16}, r128{1, 128}, t128{128, 128};
  int bad = 0;
  for (bool sp : {false, true}) {
    const std::uint32_t s = sp ? 100 : 0;
    // MXFP8 (E4M3, E5M2 with Inf/NaN elements when sp): partial tiles, partial last K block (100),
    // promotion below the block (8, 16).
    bad += fast_vs_model<mixprec::float8_e4m3fn, float8_e8m0fnu, mixprec::float8_e4m3fn, float8_e8m0fnu>(
        s + 1, 13, 96, 47, r32, c32, 0, sp);
    bad += fast_vs_model<mixprec::float8_e4m3fn, float8_e8m0fnu, mixprec::float8_e4m3fn, float8_e8m0fnu>(
        s + 2, 29, 100, 33, r32, c32, 8, sp);
    bad += fast_vs_model<mixprec::float8_e5m2, float8_e8m0fnu, mixprec::float8_e5m2, float8_e8m0fnu>(
        s + 3, 15, 64, 17, r32, c32, 16, sp);
    // MXFP8 E4M3 x E5M2 (TE's backward GEMMs), MXFP6 both kinds, MXFP4, MXINT8.
    bad += fast_vs_model<mixprec::float8_e4m3fn, float8_e8m0fnu, mixprec::float8_e5m2, float8_e8m0fnu>(
        s + 4, 30, 64, 65, r32, c32, 0, sp);
    bad += fast_vs_model<mixprec::float6_e2m3fn, float8_e8m0fnu, mixprec::float6_e3m2fn, float8_e8m0fnu>(
        s + 5, 14, 128, 32, r32, c32, 32, sp);
    bad += fast_vs_model<mixprec::float4_e2m1fn, float8_e8m0fnu, mixprec::float4_e2m1fn, float8_e8m0fnu>(
        s + 6, 45, 130, 70, r32, c32, 0, sp);
    bad += fast_vs_model<mixprec::mxint8, float8_e8m0fnu, mixprec::mxint8, float8_e8m0fnu>(s + 7, 16, 64, 20, r32, c32,
                                                                                          0, sp);
    // NVFP4: 1x16 activations, 16x1 and 16x16 weights, TE's S_dec (default) and given globals.
    bad += fast_vs_model<mixprec::float4_e2m1fn, mixprec::float8_ue4m3, mixprec::float4_e2m1fn, mixprec::float8_ue4m3>(
        s + 8, 20, 80, 40, r16, c16, 0, sp);
    bad += fast_vs_model<mixprec::float4_e2m1fn, mixprec::float8_ue4m3, mixprec::float4_e2m1fn, mixprec::float8_ue4m3>(
        s + 9, 33, 48, 31, r16, t16, 0, sp);
    bad += fast_vs_model<mixprec::float4_e2m1fn, mixprec::float8_ue4m3, mixprec::float4_e2m1fn, mixprec::float8_ue4m3>(
        s + 10, 7, 32, 9, r16, t16, 0, sp, 0.125f, 3.0f);
    // FP8 blocks (DeepSeek-V3, TE Float8BlockScaling): 1x128 x 128x128, FP32 scales, promotion
    // every 128 (the block) and every 32; a partial last K block (300).
    bad += fast_vs_model<mixprec::float8_e4m3fn, float, mixprec::float8_e4m3fn, float>(s + 11, 17, 384, 70, r128, t128,
                                                                                      0, sp);
    bad += fast_vs_model<mixprec::float8_e4m3fn, float, mixprec::float8_e4m3fn, float>(s + 12, 15, 300, 130, r128,
                                                                                      t128, 32, sp);
    // 2D A blocks, and 1 x 1.
    bad += fast_vs_model<mixprec::float8_e4m3fn, float, mixprec::float8_e4m3fn, float>(s + 13, 40, 256, 20, t128, t128,
                                                                                      0, sp);
    bad += fast_vs_model<mixprec::float8_e4m3fn, float8_e8m0fnu, mixprec::float8_e4m3fn, float8_e8m0fnu>(
        s + 14, 1, 32, 1, r32, c32, 0, sp);
  }
  // A packed panel above 8 MiB (its own allocation, not the per-thread scratch).
  bad += fast_vs_model<mixprec::float8_e4m3fn, float8_e8m0fnu, mixprec::float8_e4m3fn, float8_e8m0fnu>(
      16, 1100, 1920, 1, r32, c32, 0, false);
  // K = 0: C = 0 * g.
  bad += fast_vs_model<mixprec::float8_e4m3fn, float8_e8m0fnu, mixprec::float8_e4m3fn, float8_e8m0fnu>(15, 3, 0, 5, r32,
                                                                                                      c32, 0, false);
  CHECK(bad == 0);
}

TEST_CASE("block-scaled GEMM, FP32 accumulator: every recipe's quantized operands against the model") {
  std::mt19937 rng(7);
  const std::size_t m = 19, k = 256, n = 37;
  const auto x = randn(m * k, rng, 2.0f), w = randn(k * n, rng, 0.1f);
  int bad = 0;
  auto cmp = [&](const auto& a, const auto& b, std::size_t chunk, std::size_t promo) {
    block_gemm_options o;
    o.promotion = promo;
    const auto c = mixprec::block_scaled_gemm(a, b, o);
    const auto r = ref_model(a, b, chunk, 0.0f, 0.0f);
    for (std::size_t i = 0; i < c.size(); ++i) bad += !same_bits(c[i], r[i]);
  };
  using mixprec::block_columnwise;
  using mixprec::block_rowwise;
  using mixprec::mx_block_rule;
  auto mx = [&](auto elem, mx_block_rule rule) {
    using E = decltype(elem);
    const mixprec::mx_block_recipe<E> ra{rule, block_rowwise(32)}, rb{rule, block_columnwise(32)};
    cmp(ra.quantize(x.data(), m, k), rb.quantize(w.data(), k, n), 32, 0);
    cmp(ra.quantize(x.data(), m, k), rb.quantize(w.data(), k, n), 16, 16);
  };
  for (auto rule : {mx_block_rule::ocp_floor, mx_block_rule::te_rceil}) {
    mx(mixprec::float8_e4m3fn{}, rule);
    mx(mixprec::float8_e5m2{}, rule);
    mx(mixprec::float6_e2m3fn{}, rule);
    mx(mixprec::float6_e3m2fn{}, rule);
    mx(mixprec::float4_e2m1fn{}, rule);
    mx(mixprec::mxint8{}, rule);
  }
  {
    const mixprec::nvfp4_recipe ra{}, rb{mixprec::nvfp4_order::te, mixprec::nvfp4_encode_factor::reciprocal,
                                        mixprec::block_shape{16, 16}};
    cmp(ra.quantize(x.data(), m, k), rb.quantize(w.data(), k, n), 16, 0);
    mixprec::nvfp4_recipe r1{};
    r1.block = block_columnwise(16);
    cmp(ra.quantize(x.data(), m, k), r1.quantize(w.data(), k, n), 16, 0);
  }
  for (bool ue8m0 : {false, true}) {  // DeepSeek-V3 FP32 scales and the UE8M0 variant
    const mixprec::deepseek_fp8_recipe ra{block_rowwise(128), ue8m0}, rb{mixprec::block_shape{128, 128}, ue8m0};
    cmp(ra.quantize(x.data(), m, k), rb.quantize(w.data(), k, n), 128, 0);
    cmp(ra.quantize(x.data(), m, k), rb.quantize(w.data(), k, n), 32, 32);
  }
  {
    const mixprec::te_fp8_block_recipe ra{}, rb{mixprec::block_shape{128, 128}};
    cmp(ra.quantize(x.data(), m, k), rb.quantize(w.data(), k, n), 128, 0);
  }
  CHECK(bad == 0);
}

// ---------------------------------------------------------------------------------------------
// The truncated model against exact integer arithmetic: element values as integers in units of
// their quantum, products and sums in int64 (units of 2^-u), truncation toward zero by integer
// division, leading bits by counting; the promotion steps as ref_model's volatile floats.
// ---------------------------------------------------------------------------------------------
namespace {

template <class E>
constexpr int qmin_of() {
  if constexpr (std::is_same<E, mixprec::mxint8>::value) {
    return -6;
  } else {
    return E::format_type::qmin;
  }
}

/// floor(log2 |x|) for x != 0.
int lead(std::int64_t x) {
  std::uint64_t u = x < 0 ? static_cast<std::uint64_t>(-x) : static_cast<std::uint64_t>(x);
  int e = -1;
  while (u != 0) {
    u >>= 1;
    ++e;
  }
  return e;
}

/// x truncated toward zero to a multiple of 2^sh (units).
std::int64_t trunc_units(std::int64_t x, int sh) {
  if (sh <= 0) return x;
  if (sh >= 62) return 0;
  const std::int64_t d = std::int64_t{1} << sh;
  return x / d * d;  // C++ division truncates toward zero
}

template <class TA, class TB>
std::vector<float> ref_truncated(const TA& a, const TB& b, std::size_t chunk, int bits, std::size_t group, float g) {
  using EA = typename std::decay_t<decltype(a.elements)>::value_type;
  using EB = typename std::decay_t<decltype(b.elements)>::value_type;
  constexpr int qa = qmin_of<EA>(), qb = qmin_of<EB>(), u = -(qa + qb);  // a product is an integer times 2^-u
  const std::size_t m = a.rows, n = b.cols, k = a.cols;
  auto units = [](float v, int q) { return static_cast<std::int64_t>(std::ldexp(static_cast<double>(v), -q)); };
  std::vector<float> c(m * n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (std::size_t k0 = 0; k0 < k; k0 += chunk) {
        const std::size_t k1 = std::min(k, k0 + chunk);
        std::int64_t part = 0;
        for (std::size_t g0 = k0; g0 < k1; g0 += group) {
          const std::size_t g1 = std::min(k1, g0 + group);
          std::vector<std::int64_t> t;
          for (std::size_t kk = g0; kk < g1; ++kk)
            t.push_back(units(value_of(a.elements[i * k + kk]), qa) * units(value_of(b.elements[kk * n + j]), qb));
          int emax = part != 0 ? lead(part) : -1000;
          for (std::int64_t x : t)
            if (x != 0) emax = std::max(emax, lead(x));
          if (emax == -1000) continue;
          const int sh = emax - bits;  // the grid, in units
          std::int64_t s = trunc_units(part, sh);
          for (std::int64_t x : t) s += trunc_units(x, sh);
          part = s == 0 ? 0 : trunc_units(s, lead(s) - bits);
        }
        const float pf = static_cast<float>(std::ldexp(static_cast<double>(part), -u));
        const float sa = static_cast<float>(a.scales[(i / a.block.rows) * a.scale_cols() + k0 / a.block.cols]);
        const float sb = static_cast<float>(b.scales[(k0 / b.block.rows) * b.scale_cols() + j / b.block.cols]);
        acc = add_f(acc, mul_f(pf, mul_f(sa, sb)));
      }
      c[i * n + j] = mul_f(acc, g);
    }
  return c;
}

template <class E, class S>
int truncated_vs_integers(std::uint32_t seed, std::size_t m, std::size_t k, std::size_t n, mixprec::block_shape ba,
                          mixprec::block_shape bb, std::size_t promotion, int bits, std::size_t group) {
  std::mt19937 rng(seed);
  const auto a = rand_tensor<E, S>(rng, m, k, ba, true, false);  // special scales, finite elements
  const auto b = rand_tensor<E, S>(rng, k, n, bb, true, false);
  block_gemm_options o;
  o.promotion = promotion;
  o.acc = block_accumulator::truncated(bits, group);
  const float ga = 0.5f, gb = 3.0f;  // given globals: g = 1.5
  const auto c = mixprec::block_scaled_gemm(a, b, o, ga, gb);
  const auto r = ref_truncated(a, b, promotion == 0 ? ba.cols : promotion, bits, group, mul_f(ga, gb));
  int bad = 0;
  for (std::size_t q = 0; q < c.size(); ++q) {
    if (!same_bits(c[q], r[q]) && bad++ < 3) {
      MESSAGE("seed " << seed << " bits " << bits << " group " << group << " at " << q << ": " << c[q] << " vs "
                      << r[q]);
    }
  }
  return bad;
}

}  // namespace

TEST_CASE("block-scaled GEMM, truncated accumulator: bit for bit against exact integer arithmetic") {
  using mixprec::block_shape;
  using mixprec::float8_e8m0fnu;
  const block_shape r32{1, 32}, c32{32, 1}, r16{1, 16}, t16{16, 16};
  int bad = 0;
  std::uint32_t seed = 200;
  for (int bits : {1, 3, 8, 13, 23}) {
    for (std::size_t group : {1u, 3u, 4u, 32u}) {
      bad += truncated_vs_integers<mixprec::float8_e4m3fn, float8_e8m0fnu>(++seed, 13, 100, 37, r32, c32, 0, bits, group);
      bad += truncated_vs_integers<mixprec::float8_e4m3fn, float8_e8m0fnu>(++seed, 5, 64, 9, r32, c32, 8, bits, group);
      bad += truncated_vs_integers<mixprec::float4_e2m1fn, mixprec::float8_ue4m3>(++seed, 7, 48, 19, r16, t16, 0, bits,
                                                                                  group);
      bad += truncated_vs_integers<mixprec::mxint8, float8_e8m0fnu>(++seed, 4, 64, 11, r32, c32, 32, bits, group);
      bad += truncated_vs_integers<mixprec::float6_e3m2fn, float8_e8m0fnu>(++seed, 4, 64, 11, r32, c32, 16, bits,
                                                                           group);
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("block-scaled GEMM, truncated accumulator: Inf and NaN products") {
  // E5M2 has Inf: the finite terms of its group truncate to 0 and the sum is Inf (or NaN for
  // Inf - Inf); a NaN element gives NaN.
  const float inf = std::numeric_limits<float>::infinity();
  block_gemm_options o;
  o.acc = block_accumulator::truncated(8, 2);
  CHECK(dot_ones<mixprec::float8_e5m2>({1.0f, inf, 3.0f, 4.0f}, o)[0] == inf);
  CHECK(dot_ones<mixprec::float8_e5m2>({1.0f, 2.0f, -inf, 4.0f}, o)[0] == -inf);
  CHECK(std::isnan(dot_ones<mixprec::float8_e5m2>({inf, -inf, 3.0f, 4.0f}, o)[0]));
  CHECK(std::isnan(dot_ones<mixprec::float8_e5m2>({inf, 1.0f, -inf, 4.0f}, o)[0]));
  CHECK(std::isnan(dot_ones<mixprec::float8_e5m2>({1.0f, 2.0f, 3.0f, std::nanf("")}, o)[0]));
  CHECK(std::isnan(dot_ones<mixprec::float8_e5m2>({std::nanf(""), 2.0f, 3.0f, 4.0f}, o)[0]));
}

// ---------------------------------------------------------------------------------------------
// block_accumulator::tensor_core against MMA-Sim (tests/golden/mma_vectors.txt, generated by
// tests/golden/gen_mma_vectors.py): the tiles' outputs whose C is +0 are block_scaled_gemm's
// (which starts from +0), for the mx kinds with the tile's scales, for the FP8 wgmma / f8f6f4 /
// Ada presets with unit float scales and one promotion chunk of the tile's K.
// ---------------------------------------------------------------------------------------------

#include <string>

#include "mma_vectors.hpp"

namespace {

using tc_tile = mmatest::tile;

/// The outputs of block_scaled_gemm with the tile's preset whose C is +0, compared with D; counts them.
template <class EA, class EB, class S>
std::size_t tc_check(const tc_tile& t, std::size_t& bad) {
  const mixprec::mma_preset p = mixprec::mma_preset_from_name(t.preset);
  const bool scaled = mixprec::mma_model_of(p).scales != 0;
  const std::size_t kb = scaled ? t.block : t.k, nb = t.k / kb;
  mixprec::block_scaled_tensor<EA, S> a;
  a.rows = t.rows;
  a.cols = t.k;
  a.block = mixprec::block_rowwise(kb);
  a.elements = mmatest::decode<EA>(t.a);
  mixprec::block_scaled_tensor<EB, S> b;
  b.rows = t.k;
  b.cols = t.n;
  b.block = mixprec::block_columnwise(kb);
  b.elements = mmatest::decode<EB>(t.b);
  if constexpr (std::is_same<S, float>::value) {
    a.scales.assign(t.rows * nb, 1.0f);
    b.scales.assign(nb * t.n, 1.0f);
  } else {
    a.scales = mmatest::decode<S>(t.sa);
    b.scales = mmatest::decode<S>(t.sb);
  }
  block_gemm_options o;
  o.acc = block_accumulator::tensor_core(p);
  const std::vector<float> c = mixprec::block_scaled_gemm(a, b, o, 1.0f, 1.0f);
  std::size_t checked = 0;
  for (std::size_t q = 0; q < c.size(); ++q) {
    if (t.c[q] != 0) continue;
    ++checked;
    if (fbits(c[q]) != t.d[q]) {
      INFO(t.preset << " " << t.a_fmt << "x" << t.b_fmt << " k " << t.k << " output " << q << ": got 0x" << std::hex
                    << fbits(c[q]) << " want 0x" << t.d[q]);
      CHECK(fbits(c[q]) == t.d[q]);
      ++bad;
    }
  }
  return checked;
}

}  // namespace

TEST_CASE("block_scaled_gemm tensor_core: bit-identical to MMA-Sim where the tile's C is +0") {
  using mixprec::float8_e4m3fn;
  using mixprec::float8_e5m2;
  std::size_t bad = 0, checked = 0, mx = 0;
  for (const tc_tile& t : mmatest::load_tiles("mma_vectors.txt")) {
    const mixprec::mma_model& md = mixprec::mma_model_of(mixprec::mma_preset_from_name(t.preset));
    if (md.out != mixprec::mma_output::f32 && md.out != mixprec::mma_output::f32_e8m13) continue;
    if (t.preset == "blackwell_tcgen05_mxf4nvf4") {
      const std::size_t got = t.s_fmt == "ue8m0"
                                  ? tc_check<mixprec::float4_e2m1fn, mixprec::float4_e2m1fn, mixprec::float8_e8m0fnu>(t, bad)
                                  : tc_check<mixprec::float4_e2m1fn, mixprec::float4_e2m1fn, mixprec::float8_ue4m3>(t, bad);
      checked += got;
      mx += got;
    } else if (t.preset == "blackwell_tcgen05_mxf8f6f4") {
      std::size_t got = 0;
      if (t.a_fmt == "e4m3" && t.b_fmt == "e4m3") got = tc_check<float8_e4m3fn, float8_e4m3fn, mixprec::float8_e8m0fnu>(t, bad);
      if (t.a_fmt == "e4m3" && t.b_fmt == "e5m2") got = tc_check<float8_e4m3fn, float8_e5m2, mixprec::float8_e8m0fnu>(t, bad);
      if (t.a_fmt == "e5m2" && t.b_fmt == "e4m3") got = tc_check<float8_e5m2, float8_e4m3fn, mixprec::float8_e8m0fnu>(t, bad);
      if (t.a_fmt == "e5m2" && t.b_fmt == "e5m2") got = tc_check<float8_e5m2, float8_e5m2, mixprec::float8_e8m0fnu>(t, bad);
      checked += got;
      mx += got;
    } else if (t.a_fmt == "e4m3" && t.b_fmt == "e4m3") {
      checked += tc_check<float8_e4m3fn, float8_e4m3fn, float>(t, bad);
    } else if (t.a_fmt == "e4m3" && t.b_fmt == "e5m2") {
      checked += tc_check<float8_e4m3fn, float8_e5m2, float>(t, bad);
    } else if (t.a_fmt == "e5m2" && t.b_fmt == "e4m3") {
      checked += tc_check<float8_e5m2, float8_e4m3fn, float>(t, bad);
    } else if (t.a_fmt == "e5m2" && t.b_fmt == "e5m2") {
      checked += tc_check<float8_e5m2, float8_e5m2, float>(t, bad);
    }
  }
  CHECK(bad == 0);
  CHECK(mx >= 40);
  CHECK(checked >= 150);
  MESSAGE("block_scaled_gemm tensor_core: " << checked << " outputs checked (" << mx << " mx kinds), " << bad << " differ");
}

TEST_CASE("block_scaled_gemm tensor_core: bad presets, scale layouts and promotion throw naming what is allowed") {
  std::mt19937 rng(7);
  const std::vector<float> xa = randn(4 * 64, rng, 1.0f), xb = randn(64 * 3, rng, 1.0f);
  const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> ra{mixprec::mx_block_rule::te_rceil, mixprec::block_rowwise(32)};
  const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> rb{mixprec::mx_block_rule::te_rceil, mixprec::block_columnwise(32)};
  const auto mx_a = ra.quantize(xa.data(), 4, 64);
  const auto mx_b = rb.quantize(xb.data(), 64, 3);
  block_gemm_options o;
  auto expect_throw = [&](const char* needle) {
    try {
      (void)mixprec::block_scaled_gemm(mx_a, mx_b, o);
      FAIL("no exception");
    } catch (const std::invalid_argument& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find(needle) != std::string::npos);
    }
  };
  o.acc = block_accumulator::tensor_core(mixprec::mma_preset::none);
  expect_throw("hopper_wgmma_fp8_f32");
  o.acc = block_accumulator::tensor_core(mixprec::mma_preset::hopper_wgmma_bf16_f32);
  expect_throw("bfloat16");  // the operands are e4m3
  o.acc = block_accumulator::tensor_core(mixprec::mma_preset::blackwell_tcgen05_mxf4nvf4);
  expect_throw("float4_e2m1fn");
  o.acc = block_accumulator::tensor_core(mixprec::mma_preset::blackwell_tcgen05_mxf8f6f4);
  o.promotion = 16;
  expect_throw("promotion must be 0");
  o.promotion = 0;
  const std::vector<float> c = mixprec::block_scaled_gemm(mx_a, mx_b, o);
  CHECK(c.size() == 12);
  // The result equals mma_dot_scaled per element.
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = 0; j < 3; ++j) {
      std::vector<mixprec::float8_e4m3fn> col(64);
      for (std::size_t p = 0; p < 64; ++p) col[p] = mx_b.elements[p * 3 + j];
      const mixprec::float8_e8m0fnu sa[2] = {mx_a.scale_of(i, 0), mx_a.scale_of(i, 32)};
      const mixprec::float8_e8m0fnu sb[2] = {mx_b.scale_of(0, j), mx_b.scale_of(32, j)};
      const float d = mixprec::mma_dot_scaled(mixprec::mma_preset::blackwell_tcgen05_mxf8f6f4, mx_a.elements.data() + i * 64,
                                              col.data(), 64, 0.0f, sa, sb, 32);
      CHECK(fbits(c[i * 3 + j]) == fbits(d));
    }
  }
  // A 2D-tile scale layout is not the instruction's.
  auto t_b = mx_b;
  t_b.block = mixprec::block_shape{32, 32};
  t_b.scales.resize(2);
  try {
    (void)mixprec::block_scaled_gemm(mx_a, t_b, o);
    FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("per column of B") != std::string::npos);
  }
}
