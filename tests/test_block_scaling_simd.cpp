// SPDX-License-Identifier: MIT
// The block-scaling fast paths (detail/simd_block_scaling.hpp: TE MXFP8 E4M3 1x32 and NVFP4
// te / te_legacy 1x16, quantize and dequantize) against the scalar recipes (quantize_at /
// dequantize_at with simd_level::portable, which tests/test_block_scaling.cpp checks against
// torchao and re-implementations), bit for bit: random data of every magnitude mixed with 0, -0,
// +-Inf, NaN, float subnormals, FLT_MAX blocks, E4M3 / E2M1 values and their rounding midpoints
// (each scaled by powers of two), blocks whose element factor is exactly 1 (every E2M1 midpoint
// hit), and every (element code, scale code) pair through dequantize; columnwise MXFP8 32x1 and
// NVFP4 16x1, and NVFP4 stochastic rounding (1x16, 16x1; its vector E2M1 encoder against round_to
// on both sides of every decision boundary, its random words against counter_bits). Every level compiled in is
// run; tests/CMakeLists.txt builds this file for AVX2 and AVX-512 as well (exhaustive label).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <mixprec/amp.hpp>

namespace {

namespace md = mixprec::detail;
using md::simd_level;

std::uint32_t fbits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

std::vector<simd_level> fast_levels() {
  std::vector<simd_level> v;
  for (simd_level l : {simd_level::avx2, simd_level::avx512, simd_level::avx512_bf16})
    if (md::simd_level_compiled(l)) v.push_back(l);
  return v;
}

/// Values on both sides of every rounding decision of E4M3 and E2M1 (representable values,
/// midpoints, and the floats next to the midpoints), and the specials.
std::vector<float> interesting() {
  std::vector<float> v;
  for (unsigned c = 0; c < 0x7F; ++c) {
    const float a = static_cast<float>(mixprec::float8_e4m3fn::from_bits(static_cast<std::uint8_t>(c)));
    const float b = static_cast<float>(mixprec::float8_e4m3fn::from_bits(static_cast<std::uint8_t>(c + 1)));
    const float mid = c + 1 < 0x7F ? (a + b) / 2 : 464.0f;
    for (float x : {a, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f)}) v.push_back(x);
  }
  for (float x : {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f, 6.0f, 7.0f})
    for (float y : {x, std::nextafter(x, 0.0f), std::nextafter(x, 1e30f)}) v.push_back(y);
  return v;
}

/// rows x cols floats: random magnitudes with specials and rounding-edge values.
std::vector<float> make_data(std::size_t rows, std::size_t cols, std::size_t block, std::uint32_t seed, bool specials) {
  std::mt19937 g(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::uniform_int_distribution<int> pick(0, 99);
  std::uniform_int_distribution<int> ex(-140, 120);
  const std::vector<float> edge = interesting();
  std::uniform_int_distribution<std::size_t> pe(0, edge.size() - 1);
  const float inf = std::numeric_limits<float>::infinity(), qnan = std::numeric_limits<float>::quiet_NaN();
  const float specs[] = {0.0f,
                         -0.0f,
                         inf,
                         -inf,
                         qnan,
                         -qnan,
                         std::numeric_limits<float>::max(),
                         -std::numeric_limits<float>::max(),
                         std::numeric_limits<float>::denorm_min(),
                         -from_bits(0x007FFFFFu),
                         std::numeric_limits<float>::min()};
  std::vector<float> x(rows * cols);
  for (std::size_t b0 = 0; b0 < x.size(); b0 += block) {
    const int kind = pick(g);
    const int e = ex(g);  // the block's magnitude
    for (std::size_t i = b0; i < b0 + block && i < x.size(); ++i) {
      float v;
      if (kind < 5) {
        v = 0.0f;  // all-zero block
      } else if (kind < 40) {
        v = std::ldexp(nd(g), e);
      } else if (kind < 75) {
        v = std::ldexp(edge[pe(g)], e / 4) * (pick(g) < 50 ? -1.0f : 1.0f);
      } else {
        v = std::ldexp(nd(g), e / 8);
      }
      if (specials && pick(g) < 3) v = specs[static_cast<std::size_t>(pick(g)) % (sizeof specs / sizeof specs[0])];
      x[i] = v;
    }
  }
  return x;
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return a.bits() == b.bits();
}

template <class Tensor>
void check_same(const Tensor& fast, const Tensor& ref) {
  REQUIRE(fast.elements.size() == ref.elements.size());
  REQUIRE(fast.scales.size() == ref.scales.size());
  CHECK(fbits(fast.tensor_scale) == fbits(ref.tensor_scale));
  std::size_t bad = 0;
  for (std::size_t k = 0; k < ref.elements.size(); ++k)
    if (!same_bits(fast.elements[k], ref.elements[k]) && bad++ < 5)
      FAIL_CHECK("element " << k << ": fast " << int(fast.elements[k].bits()) << " scalar "
                            << int(ref.elements[k].bits()));
  for (std::size_t k = 0; k < ref.scales.size(); ++k)
    if (!same_bits(fast.scales[k], ref.scales[k]) && bad++ < 10)
      FAIL_CHECK("scale " << k << ": fast " << int(fast.scales[k].bits()) << " scalar " << int(ref.scales[k].bits()));
  CHECK(bad == 0);
}

void check_same_floats(const std::vector<float>& fast, const std::vector<float>& ref) {
  REQUIRE(fast.size() == ref.size());
  std::size_t bad = 0;
  for (std::size_t k = 0; k < ref.size(); ++k)
    if (fbits(fast[k]) != fbits(ref[k]) && bad++ < 5)
      FAIL_CHECK("value " << k << ": fast " << fast[k] << " scalar " << ref[k]);
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("block_scaling fast paths: TE MXFP8 E4M3 quantize/dequantize equal the scalar recipe") {
  const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> r{mixprec::mx_block_rule::te_rceil,
                                                           mixprec::block_rowwise(32)};
  MESSAGE("fast levels compiled in: " << fast_levels().size());
  for (simd_level l : fast_levels()) {
    CAPTURE(md::simd_level_name(l));
    for (std::uint32_t seed = 1; seed <= 6; ++seed) {
      const std::size_t rows = 7 + seed, cols = 32 * seed;
      const std::vector<float> x = make_data(rows, cols, 32, seed, seed % 2 == 0);
      const auto ref = r.quantize_at(simd_level::portable, x.data(), rows, cols);
      const auto fast = r.quantize_at(l, x.data(), rows, cols);
      check_same(fast, ref);
      std::vector<float> a(x.size()), b(x.size());
      r.dequantize_at(simd_level::portable, ref, a.data());
      r.dequantize_at(l, ref, b.data());
      check_same_floats(b, a);
    }
    // Every element code under every scale code through dequantize.
    mixprec::block_scaled_tensor<mixprec::float8_e4m3fn, mixprec::float8_e8m0fnu> t;
    t.rows = 256;
    t.cols = 256;
    t.block = mixprec::block_rowwise(32);
    for (std::size_t i = 0; i < 256 * 256; ++i)
      t.elements.push_back(mixprec::float8_e4m3fn::from_bits(static_cast<std::uint8_t>(i)));
    for (std::size_t i = 0; i < 256 * 8; ++i)
      t.scales.push_back(mixprec::float8_e8m0fnu::from_bits(static_cast<std::uint8_t>(i / 8)));
    std::vector<float> a(t.elements.size()), b(t.elements.size());
    r.dequantize_at(simd_level::portable, t, a.data());
    r.dequantize_at(l, t, b.data());
    check_same_floats(b, a);
  }
}

TEST_CASE("block_scaling fast paths: MXFP8 scale codes at every power of two of amax / 448") {
  // Block amax = 448 * 2^k and its float neighbours for every k that keeps it a float (the E8M0
  // rounding-up boundary, subnormal products included); the other elements random below amax.
  const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> r{mixprec::mx_block_rule::te_rceil,
                                                           mixprec::block_rowwise(32)};
  std::vector<float> x;
  std::mt19937 g(3);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int k = -157; k <= 120; ++k) {
    const float a = std::ldexp(448.0f, k);
    if (a == 0.0f) continue;
    for (float amax : {a, std::nextafter(a, 0.0f), std::nextafter(a, 1e38f)}) {
      for (int j = 0; j < 32; ++j) x.push_back(j == 5 ? -amax : amax * u(g));
    }
  }
  x.resize(x.size() / 64 * 64);
  for (simd_level l : fast_levels()) {
    CAPTURE(md::simd_level_name(l));
    const auto ref = r.quantize_at(simd_level::portable, x.data(), x.size() / 64, 64);
    check_same(r.quantize_at(l, x.data(), x.size() / 64, 64), ref);
  }
}

TEST_CASE("block_scaling fast paths: NVFP4 te / te_legacy quantize/dequantize equal the scalar recipe") {
  for (simd_level l : fast_levels()) {
    CAPTURE(md::simd_level_name(l));
    for (auto order : {mixprec::nvfp4_order::te, mixprec::nvfp4_order::te_legacy})
      for (auto factor : {mixprec::nvfp4_encode_factor::reciprocal, mixprec::nvfp4_encode_factor::quotient})
        for (std::uint32_t seed = 1; seed <= 8; ++seed) {
          mixprec::nvfp4_recipe r;
          r.order = order;
          r.factor = factor;
          const std::size_t rows = 5 + seed, cols = 16 * (seed + 1);
          std::vector<float> x = make_data(rows, cols, 16, 100 + seed, seed % 2 == 0);
          if (seed == 3) {
            // Tensor amax 2688 gives S_enc = 1; a block of amax 6 then has S = 1 and R = 1, so
            // its elements are quantized as they are: every E2M1 midpoint and its neighbours.
            for (float& v : x) v = std::fmod(v, 6.0f);
            x[0] = 2688.0f;
            const std::vector<float> edge = interesting();
            for (std::size_t k = 16; k < 32; ++k) x[k] = 0.0f;
            x[16] = 6.0f;
            std::size_t k = 17;
            for (std::size_t e = 4 * 0x7F; e < edge.size(); ++e) {
              if (edge[e] > 6.0f) continue;  // the blocks' amax stays 6
              x[k] = edge[e] * (e % 2 == 0 ? 1.0f : -1.0f);
              if (++k % 16 == 0) {
                x[k++] = 6.0f;
              }
            }
          }
          CAPTURE(seed);
          const auto ref = r.quantize_at(simd_level::portable, x.data(), rows, cols);
          const auto fast = r.quantize_at(l, x.data(), rows, cols);
          check_same(fast, ref);
          std::vector<float> a(x.size()), b(x.size());
          r.dequantize_at(simd_level::portable, ref, a.data());
          r.dequantize_at(l, ref, b.data());
          check_same_floats(b, a);
        }
    // Every element code under every finite scale code, for a few tensor scales.
    for (float s_enc : {1.0f, 2688.0f / 3.0f, 1e-30f, 3.0e38f}) {
      mixprec::nvfp4_recipe r;
      mixprec::nvfp4_recipe::tensor_type t;
      t.rows = 127;
      t.cols = 16;
      t.block = mixprec::block_rowwise(16);
      t.tensor_scale = s_enc;
      for (std::size_t i = 0; i < 127 * 16; ++i)
        t.elements.push_back(mixprec::float4_e2m1fn::from_bits(static_cast<std::uint8_t>(i % 16)));
      for (std::size_t i = 0; i < 127; ++i)
        t.scales.push_back(mixprec::float8_ue4m3::from_bits(static_cast<std::uint8_t>(i)));
      std::vector<float> a(t.elements.size()), b(t.elements.size());
      r.dequantize_at(simd_level::portable, t, a.data());
      r.dequantize_at(l, t, b.data());
      check_same_floats(b, a);
    }
  }
}

TEST_CASE("block_scaling fast paths: NVFP4 16x16 tiles quantize and dequantize as the scalar recipe") {
  // Tile rows of 16 and a shorter last one, 1 to 4 tile columns, every order and factor, with and
  // without specials (NaN ignored by the tile amax, infinities, subnormals), amax computed or given.
  for (simd_level l : fast_levels()) {
    CAPTURE(md::simd_level_name(l));
    for (auto order : {mixprec::nvfp4_order::te, mixprec::nvfp4_order::te_legacy})
      for (auto factor : {mixprec::nvfp4_encode_factor::reciprocal, mixprec::nvfp4_encode_factor::quotient})
        for (std::uint32_t seed = 1; seed <= 8; ++seed) {
          mixprec::nvfp4_recipe r;
          r.order = order;
          r.factor = factor;
          r.block = mixprec::block_shape{16, 16};
          const std::size_t rows = 5 * seed + (seed == 3 ? 1 : 0), cols = 16 * (seed % 4 + 1);
          CAPTURE(seed);
          CAPTURE(rows);
          CAPTURE(cols);
          // Blocks of 16 values share a magnitude; a tile's 16 rows mix them.
          std::vector<float> x = make_data(rows, cols, 16, 300 + seed, seed % 2 == 0);
          const auto ref0 = r.quantize_at(simd_level::portable, x.data(), rows, cols);
          check_same(r.quantize_at(l, x.data(), rows, cols), ref0);
          std::vector<float> a(x.size()), b(x.size());
          r.dequantize_at(simd_level::portable, ref0, a.data());
          r.dequantize_at(l, ref0, b.data());
          check_same_floats(b, a);
          mixprec::nvfp4_recipe::tensor_type fast, ref;
          const float amax = 3.0f * static_cast<float>(seed);
          r.quantize_into_at(l, x.data(), rows, cols, fast, &amax);
          r.quantize_into_at(simd_level::portable, x.data(), rows, cols, ref, &amax);
          check_same(fast, ref);
        }
    // A tile's amax in its last row and last column, and a NaN as the tile's largest |x|.
    mixprec::nvfp4_recipe r;
    r.block = mixprec::block_shape{16, 16};
    std::vector<float> x(32 * 32, 0.25f);
    x[15 * 32 + 15] = -5.0f;                                  // tile (0, 0)
    x[16 * 32 + 31] = 3.0f;                                   // tile (1, 1)
    x[5 * 32 + 20] = std::numeric_limits<float>::quiet_NaN();  // tile (0, 1): ignored by the amax
    x[20 * 32 + 3] = std::numeric_limits<float>::infinity();   // tile (1, 0)
    check_same(r.quantize_at(l, x.data(), 32, 32), r.quantize_at(simd_level::portable, x.data(), 32, 32));
    x[20 * 32 + 3] = 1.0f;
    check_same(r.quantize_at(l, x.data(), 32, 32), r.quantize_at(simd_level::portable, x.data(), 32, 32));
  }
}

TEST_CASE("block_scaling fast paths: MXFP8 rows with a partial last block (full blocks fast, the rest scalar)") {
  const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> te{mixprec::mx_block_rule::te_rceil,
                                                            mixprec::block_rowwise(32)};
  const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> ocp4{mixprec::mx_block_rule::ocp_floor,
                                                              mixprec::block_rowwise(32)};
  const mixprec::mx_block_recipe<mixprec::float8_e5m2> ocp5{mixprec::mx_block_rule::ocp_floor,
                                                            mixprec::block_rowwise(32)};
  for (simd_level l : fast_levels()) {
    CAPTURE(md::simd_level_name(l));
    for (std::size_t cols : {std::size_t{33}, std::size_t{47}, std::size_t{63}, std::size_t{100}, std::size_t{784}}) {
      CAPTURE(cols);
      const std::size_t rows = 5;
      const std::vector<float> x = make_data(rows, cols, 16, static_cast<std::uint32_t>(cols), cols % 2 == 1);
      const auto ref = te.quantize_at(simd_level::portable, x.data(), rows, cols);
      check_same(te.quantize_at(l, x.data(), rows, cols), ref);
      std::vector<float> a(x.size()), b(x.size());
      te.dequantize_at(simd_level::portable, ref, a.data());
      te.dequantize_at(l, ref, b.data());
      check_same_floats(b, a);
      check_same(ocp4.quantize_at(l, x.data(), rows, cols), ocp4.quantize_at(simd_level::portable, x.data(), rows, cols));
      check_same(ocp5.quantize_at(l, x.data(), rows, cols), ocp5.quantize_at(simd_level::portable, x.data(), rows, cols));
    }
  }
}

TEST_CASE("block_scaling fast paths: cases they do not take give the scalar result") {
  // cols not a multiple of the block, columnwise blocks, other rules: quantize_at falls back.
  const std::vector<float> x = make_data(9, 40, 8, 7, true);
  for (simd_level l : fast_levels()) {
    const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> r{mixprec::mx_block_rule::te_rceil,
                                                             mixprec::block_rowwise(32)};
    check_same(r.quantize_at(l, x.data(), 9, 40), r.quantize_at(simd_level::portable, x.data(), 9, 40));
    const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> c{mixprec::mx_block_rule::te_rceil,
                                                             mixprec::block_columnwise(32)};
    check_same(c.quantize_at(l, x.data(), 8, 40), c.quantize_at(simd_level::portable, x.data(), 8, 40));
    mixprec::nvfp4_recipe n;
    n.stochastic = true;
    n.seed = 5;
    check_same(n.quantize_at(l, x.data(), 9, 32), n.quantize_at(simd_level::portable, x.data(), 9, 32));
  }
}

TEST_CASE("block_scaling quantize_into reuses a tensor and gives quantize's result") {
  const std::vector<float> x = make_data(12, 64, 16, 11, true);
  const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> r{mixprec::mx_block_rule::te_rceil,
                                                           mixprec::block_rowwise(32)};
  auto t = r.quantize(x.data(), 3, 32);  // another shape first
  r.quantize_into(x.data(), 12, 64, t);
  check_same(t, r.quantize_at(simd_level::portable, x.data(), 12, 64));
  mixprec::nvfp4_recipe n;
  auto u = n.quantize(x.data(), 12, 64);
  u.tensor_scale = 5.0f;
  u.scales[0] = mixprec::float8_ue4m3::from_bits(0x33);
  n.quantize_into(x.data(), 12, 64, u);
  check_same(u, n.quantize_at(simd_level::portable, x.data(), 12, 64));
  mixprec::nvfp4_recipe o;
  o.order = mixprec::nvfp4_order::torchao_single;  // no per-tensor scale: tensor_scale back to 1
  o.quantize_into(x.data(), 12, 64, u);
  CHECK(u.tensor_scale == 1.0f);
  check_same(u, o.quantize_at(simd_level::portable, x.data(), 12, 64));
}

TEST_CASE("NVFP4 quantize_into with the tensor amax given: quantize's result, and fast = scalar for any amax") {
  const std::size_t rows = 11, cols = 64;
  const std::vector<float> x = make_data(rows, cols, 16, 21, false);
  float amax = 0.0f;
  for (float v : x) amax = std::fmax(amax, std::fabs(v));
  for (auto order : {mixprec::nvfp4_order::te, mixprec::nvfp4_order::te_legacy, mixprec::nvfp4_order::torchao,
                     mixprec::nvfp4_order::four_over_six}) {
    mixprec::nvfp4_recipe r;
    r.order = order;
    mixprec::nvfp4_recipe::tensor_type t;
    r.quantize_into(x.data(), rows, cols, t, amax);
    check_same(t, r.quantize_at(simd_level::portable, x.data(), rows, cols));
    for (float other : {amax * 0.25f, amax * 3.0f}) {  // another amax: saturated or coarser scales
      mixprec::nvfp4_recipe::tensor_type ref;
      r.quantize_into_at(simd_level::portable, x.data(), rows, cols, ref, &other);
      if (order == mixprec::nvfp4_order::te) CHECK(fbits(ref.tensor_scale) != fbits(t.tensor_scale));
      for (simd_level l : fast_levels()) {
        mixprec::nvfp4_recipe::tensor_type fast;
        r.quantize_into_at(l, x.data(), rows, cols, fast, &other);
        check_same(fast, ref);
      }
    }
  }
}

TEST_CASE("block_scaling fast paths: tensors the common-case kernels take (no specials, moderate range)") {
  // Blocks within a few binades of each other, as real activations: the AVX-512 kernels' common
  // case (groups of 16 blocks with no NaN, no overflow: exponent moved on the bits for MXFP8,
  // e2m1_codes_small for NVFP4), mixed with E4M3 / E2M1 rounding edges, zeros, -0, tiny values
  // that take the per-vector general path, and blocks whose scaled max sits at 464 / 7.
  std::mt19937 g(77);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::uniform_int_distribution<int> pick(0, 999), ex(-4, 4);
  const std::vector<float> edge = interesting();
  std::uniform_int_distribution<std::size_t> pe(0, edge.size() - 1);
  const std::size_t rows = 24, cols = 1024;
  std::vector<float> x(rows * cols);
  for (std::size_t b0 = 0; b0 < x.size(); b0 += 16) {
    const int e = ex(g);
    for (std::size_t i = b0; i < b0 + 16; ++i) {
      const int k = pick(g);
      float v = std::ldexp(nd(g), e);
      if (k < 150) v = std::ldexp(edge[pe(g)], e - 4) * (k % 2 == 0 ? -1.0f : 1.0f);  // rounding edges
      else if (k < 170) v = k % 2 == 0 ? 0.0f : -0.0f;
      else if (k < 175) v = std::ldexp(nd(g), e - 20 - k % 12);  // E4M3 subnormal after scaling / E2M1 0
      else if (k < 177) v = std::ldexp(nd(g), -130);              // float subnormal
      x[i] = v;
    }
  }
  // Rows 16-17: tiny blocks (max near 2^-118: element factors 2^121 and up) with float subnormals.
  for (std::size_t i = 16 * cols; i < 18 * cols; ++i)
    x[i] = i % 5 == 0 ? std::ldexp(nd(g), -128 - static_cast<int>(i % 17)) : std::ldexp(nd(g), -118);
  // A few MX blocks with max exactly 448 * 2^j (scaled max 448) and NVFP4 blocks at the top edge.
  for (std::size_t j = 0; j < 8; ++j) x[64 * j + 3] = std::ldexp(448.0f, static_cast<int>(j) - 4);
  const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> mx{mixprec::mx_block_rule::te_rceil,
                                                            mixprec::block_rowwise(32)};
  for (simd_level l : fast_levels()) {
    CAPTURE(md::simd_level_name(l));
    check_same(mx.quantize_at(l, x.data(), rows, cols), mx.quantize_at(simd_level::portable, x.data(), rows, cols));
    for (auto order : {mixprec::nvfp4_order::te, mixprec::nvfp4_order::te_legacy})
      for (auto factor : {mixprec::nvfp4_encode_factor::reciprocal, mixprec::nvfp4_encode_factor::quotient}) {
        mixprec::nvfp4_recipe r;
        r.order = order;
        r.factor = factor;
        check_same(r.quantize_at(l, x.data(), rows, cols), r.quantize_at(simd_level::portable, x.data(), rows, cols));
        // S_enc = 1 (tensor amax 2688 given): blocks of max 6 have R = 1, every E2M1 edge as it is.
        std::vector<float> y(x.size());
        for (std::size_t i = 0; i < y.size(); ++i) y[i] = i % 16 == 0 ? 6.0f : edge[(i * 7) % edge.size()];
        for (std::size_t i = 0; i < y.size(); ++i)
          if (y[i] > 6.0f) y[i] = std::fmod(y[i], 6.0f) * (i % 3 == 0 ? -1.0f : 1.0f);
        const float amax = 2688.0f;
        mixprec::nvfp4_recipe::tensor_type ref, fast;
        r.quantize_into_at(simd_level::portable, y.data(), rows, cols, ref, &amax);
        r.quantize_into_at(l, y.data(), rows, cols, fast, &amax);
        check_same(fast, ref);
      }
  }
}

TEST_CASE("block_scaling fast paths: OCP MX (ocp_floor) MXFP8 E4M3 / E5M2 quantize equals the scalar recipe") {
  // Random data with specials (Inf / NaN blocks: NaN scale), blocks of every magnitude, every
  // E4M3 and E5M2 code and rounding midpoint scaled into blocks of max 2^j (the floor rule's
  // boundary: scaled max up to 2^(emax + 1), saturating), zeros and float subnormals.
  std::vector<float> v;
  for (unsigned c = 0; c < 0x7B; ++c) {  // E5M2 values and midpoints
    const float a = static_cast<float>(mixprec::float8_e5m2::from_bits(static_cast<std::uint8_t>(c)));
    const float b = static_cast<float>(mixprec::float8_e5m2::from_bits(static_cast<std::uint8_t>(c + 1)));
    const float mid = (a + b) / 2;
    for (float y : {a, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f)}) v.push_back(y);
  }
  for (float y : interesting()) v.push_back(y);
  std::mt19937 g(5);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> x;
  for (int j = -140; j <= 127; j += 3) {  // blocks of max exactly 2^j, 2^j - ulp, 2^(j+1) - ulp
    for (int variant = 0; variant < 3; ++variant) {
      const float top = variant == 0 ? std::ldexp(1.0f, j)
                        : variant == 1 ? std::nextafter(std::ldexp(1.0f, j), 0.0f)
                                       : std::nextafter(std::ldexp(2.0f, j), 0.0f);
      if (top == 0.0f || std::isinf(top)) continue;
      for (int i = 0; i < 32; ++i) {
        const float e = v[static_cast<std::size_t>(g() % v.size())] / 57344.0f;  // below 1
        x.push_back(i == 7 ? -top : i % 9 == 0 ? nd(g) * top / 4 : std::ldexp(e, j) * (i % 2 ? -1.0f : 1.0f));
      }
    }
  }
  const std::vector<float> r1 = make_data(33, 64, 32, 9, true), r2 = make_data(40, 96, 32, 10, false);
  x.insert(x.end(), r1.begin(), r1.end());
  x.insert(x.end(), r2.begin(), r2.end());
  for (int i = 0; i < 64 * 64; ++i) x.push_back(std::ldexp(nd(g), i / 512 - 4));  // moderate range
  x.resize(x.size() / 64 * 64);
  const std::size_t rows = x.size() / 64;
  for (simd_level l : fast_levels()) {
    CAPTURE(md::simd_level_name(l));
    const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> e4{mixprec::mx_block_rule::ocp_floor,
                                                              mixprec::block_rowwise(32)};
    check_same(e4.quantize_at(l, x.data(), rows, 64), e4.quantize_at(simd_level::portable, x.data(), rows, 64));
    const mixprec::mx_block_recipe<mixprec::float8_e5m2> e5{mixprec::mx_block_rule::ocp_floor,
                                                            mixprec::block_rowwise(32)};
    check_same(e5.quantize_at(l, x.data(), rows, 64), e5.quantize_at(simd_level::portable, x.data(), rows, 64));
    mixprec::mx_block_recipe<mixprec::float8_e4m3fn> ta = e4;  // torchao's code-0 divisor: the scalar loop
    ta.torchao_min_normal_divisor = true;
    check_same(ta.quantize_at(l, x.data(), rows, 64), ta.quantize_at(simd_level::portable, x.data(), rows, 64));
  }
}

TEST_CASE("block_scaling fast paths: DeepSeek FP8 1x128 (FP32 and UE8M0 scales) quantize equals the scalar recipe") {
  // Blocks of every magnitude (the amax floor and tiny amax: zero, subnormal and huge quotients),
  // specials, every E4M3 code and midpoint; scales at powers of two and not.
  std::mt19937 g(12);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  const std::vector<float> edge = interesting();
  std::vector<float> x = make_data(24, 256, 128, 31, true);
  const std::vector<float> y = make_data(20, 384, 128, 32, false);
  x.insert(x.end(), y.begin(), y.end());
  for (int j = -150; j <= 127; j += 2)  // a block of max 448 * 2^j holding every E4M3 edge value
    for (int i = 0; i < 128; ++i)
      x.push_back(i == 0 ? std::ldexp(448.0f, j) : std::ldexp(edge[(static_cast<std::size_t>(i) * 5 + static_cast<std::size_t>(j + 150)) % (edge.size() - 40)], j) * (i % 3 ? 1.0f : -1.0f));
  for (int i = 0; i < 128 * 16; ++i) x.push_back(std::ldexp(nd(g), i / 128 - 8));
  x.resize(x.size() / 256 * 256);
  for (std::size_t k : {127u, 254u, 255u, 383u, 500u}) x[k] = std::numeric_limits<float>::quiet_NaN();  // last lanes
  const std::size_t rows = x.size() / 256;
  for (simd_level l : fast_levels()) {
    CAPTURE(md::simd_level_name(l));
    for (bool ue8m0 : {false, true})
      for (float floor : {1e-4f, 0.0f}) {
        CAPTURE(ue8m0);
        CAPTURE(floor);
        mixprec::deepseek_fp8_recipe r;
        r.ue8m0 = ue8m0;
        r.amax_floor = floor;
        const auto ref = r.quantize_at(simd_level::portable, x.data(), rows, 256);
        const auto fast = r.quantize_at(l, x.data(), rows, 256);
        REQUIRE(fast.scales.size() == ref.scales.size());
        std::size_t bad = 0;
        for (std::size_t k = 0; k < ref.scales.size(); ++k) bad += fbits(fast.scales[k]) != fbits(ref.scales[k]);
        for (std::size_t k = 0; k < ref.elements.size(); ++k) bad += fast.elements[k].bits() != ref.elements[k].bits();
        CHECK(bad == 0);
      }
  }
}

namespace {

/// round_to<float4_e2m1fn>'s stochastic decision boundary for |v| < 8: the 32-bit truncated
/// fraction f of |v| / quantum (exact in double), so that random words >= 2^32 - f round up.
std::uint64_t e2m1_frac32(float v) {
  int ex = 0;
  (void)std::frexp(static_cast<double>(v), &ex);  // |v| = m 2^ex, m in [0.5, 1)
  const double t = std::fabs(static_cast<double>(v)) / std::ldexp(1.0, std::max(ex - 1, 0) - 1);
  return static_cast<std::uint64_t>(std::floor((t - std::floor(t)) * 4294967296.0));
}

/// Floats for the stochastic E2M1 encoder: every E2M1 value, midpoint and neighbour, scaled by
/// powers of two from 2^-30 to 2^4, random bit patterns, subnormals, zeros, infinities, NaNs.
std::vector<float> sr_values() {
  std::vector<float> v;
  for (float x : interesting())
    if (x <= 8.0f)
      for (int e = -30; e <= 4; ++e) v.push_back(std::ldexp(x, e));
  std::mt19937 g(77);
  for (int i = 0; i < 4000; ++i) v.push_back(from_bits(static_cast<std::uint32_t>(g())));
  for (int i = 0; i < 4000; ++i) v.push_back(from_bits(0x30000000u + static_cast<std::uint32_t>(g()) % 0x11000000u));
  for (float x : {0.0f, std::numeric_limits<float>::denorm_min(), from_bits(0x007FFFFFu), std::numeric_limits<float>::min(),
                  std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                  std::numeric_limits<float>::max(), 6.0f, 7.0f, std::nextafter(7.0f, 0.0f), 8.0f})
    v.push_back(x);
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; ++i) v.push_back(-v[i]);
  while (v.size() % 16 != 0) v.push_back(0.5f);
  return v;
}

#if defined(MIXPREC_SIMD_AVX2) || defined(MIXPREC_SIMD_AVX512)
/// The E2M1 stochastic codes of the block kernels at V's width (v * 1 with the words rb) against want.
template <class V>
void check_sr_codes(const std::vector<float>& v, const std::vector<std::uint32_t>& rb,
                    const std::vector<std::uint8_t>& want) {
  using K = md::block_kernels<V>;
  using W = md::block_width<V>;
  for (std::size_t i = 0; i < v.size(); i += V::N) {
    alignas(64) std::uint32_t c[V::N];
    W::store(c, K::template codes<typename K::e2m1, mixprec::rounding::stochastic>(W::f_load(v.data() + i),
                                                                                    V::load(rb.data() + i)));
    for (std::size_t j = 0; j < V::N; ++j) {
      CAPTURE(v[i + j]);
      CAPTURE(rb[i + j]);
      REQUIRE(c[j] == want[i + j]);
    }
  }
}
/// V::rng(seed, k0)'s words (the kernels' random words) against want[0..16).
template <class V>
void check_words(std::uint64_t seed, std::uint64_t k0, const std::uint32_t* want) {
  typename V::rng rng(seed, k0);
  for (std::size_t h = 0; h < 16; h += V::N) {
    alignas(64) std::uint32_t c[V::N];
    md::block_width<V>::store(c, rng.next());
    for (std::size_t j = 0; j < V::N; ++j) CHECK(c[j] == want[h + j]);
  }
}
#endif

}  // namespace

TEST_CASE("NVFP4 stochastic rounding: the vector encoder and random words equal round_to and counter_bits") {
  const std::vector<float> v = sr_values();
  std::mt19937 g(5);
  std::size_t checked = 0;
  for (int pass = 0; pass < 8; ++pass) {
    // The random word of each value: fixed ones, random ones, and either side of its boundary.
    std::vector<std::uint32_t> rb(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::uint64_t f = std::fabs(v[i]) < 8.0f ? e2m1_frac32(v[i]) : 0;
      const std::uint32_t fixed[] = {0u, 1u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu};
      rb[i] = pass < 5    ? fixed[pass]
              : pass == 5 ? static_cast<std::uint32_t>(g())
                          : static_cast<std::uint32_t>((std::uint64_t{1} << 32) - f - (pass == 7 ? 1 : 0));
    }
    std::vector<std::uint8_t> want(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
      want[i] = mixprec::round_to<mixprec::float4_e2m1fn>(v[i], mixprec::rounding::stochastic, mixprec::overflow::saturate,
                                                          rb[i])
                    .bits();
    (void)checked;
#if defined(MIXPREC_SIMD_AVX2)
    check_sr_codes<mixprec::simd::vec256>(v, rb, want);
#endif
#if defined(MIXPREC_SIMD_AVX512)
    check_sr_codes<mixprec::simd::vec512>(v, rb, want);
#endif
  }
  // The random words: counter_bits(seed, k) >> 32 for 16 consecutive k, the counter wrapping too.
  for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{12345}, ~std::uint64_t{0},
                             std::uint64_t{0x9E3779B97F4A7C15ull}})
    for (std::uint64_t k0 : {std::uint64_t{0}, std::uint64_t{3}, std::uint64_t{1} << 40, ~std::uint64_t{0} - 9}) {
      std::uint32_t want[16];
      for (std::uint64_t i = 0; i < 16; ++i) want[i] = static_cast<std::uint32_t>(md::counter_bits(seed, k0 + i) >> 32);
#if defined(MIXPREC_SIMD_AVX2)
      check_words<mixprec::simd::vec256>(seed, k0, want);
#endif
#if defined(MIXPREC_SIMD_AVX512)
      check_words<mixprec::simd::vec512>(seed, k0, want);
#endif
      (void)want;
    }
}

TEST_CASE("block_scaling fast paths: NVFP4 stochastic rounding (1x16 and 16x1) equals the scalar recipe") {
  // Every order and factor, rowwise and columnwise blocks, row counts not a multiple of 16, with
  // and without specials, tensor amax computed or given, seeds small and wrapping the counter.
  for (simd_level l : fast_levels()) {
    CAPTURE(md::simd_level_name(l));
    for (auto block : {mixprec::block_rowwise(16), mixprec::block_columnwise(16)})
      for (auto order : {mixprec::nvfp4_order::te, mixprec::nvfp4_order::te_legacy})
        for (auto factor : {mixprec::nvfp4_encode_factor::reciprocal, mixprec::nvfp4_encode_factor::quotient})
          for (std::uint32_t seed = 1; seed <= 6; ++seed) {
            mixprec::nvfp4_recipe r;
            r.order = order;
            r.factor = factor;
            r.block = block;
            r.stochastic = true;
            r.seed = seed % 3 == 0 ? ~std::uint64_t{0} - seed : seed * 1000003u;
            const std::size_t rows = 3 + 7 * seed, cols = 16 * (seed % 4 + 1);
            CAPTURE(block.rows);
            CAPTURE(seed);
            std::vector<float> x = make_data(rows, cols, 16, 500 + seed, seed % 2 == 0);
            if (seed == 3) {  // S_enc = 1 and blocks of amax 6: R = 1, the elements rounded as they are
              for (float& v : x) v = std::fmod(v, 6.0f);
              x[0] = 2688.0f;
              for (std::size_t k = 16; k < 32; ++k) x[k] = 6.0f * static_cast<float>(k - 16) / 16.0f;
            }
            const auto ref = r.quantize_at(simd_level::portable, x.data(), rows, cols);
            check_same(r.quantize_at(l, x.data(), rows, cols), ref);
            std::vector<float> a(x.size()), b(x.size());
            r.dequantize_at(simd_level::portable, ref, a.data());
            r.dequantize_at(l, ref, b.data());
            check_same_floats(b, a);
            mixprec::nvfp4_recipe::tensor_type fast, ref2;
            const float amax = 2.0f * static_cast<float>(seed);
            r.quantize_into_at(l, x.data(), rows, cols, fast, &amax);
            r.quantize_into_at(simd_level::portable, x.data(), rows, cols, ref2, &amax);
            check_same(fast, ref2);
          }
    // Columnwise dequantize: every element code under every finite scale code.
    for (float s_enc : {1.0f, 2688.0f / 3.0f, 1e-30f, 3.0e38f}) {
      mixprec::nvfp4_recipe r;
      mixprec::nvfp4_recipe::tensor_type t;
      t.rows = 16 * 16;
      t.cols = 128;
      t.block = mixprec::block_columnwise(16);
      t.tensor_scale = s_enc;
      for (std::size_t i = 0; i < t.rows * t.cols; ++i)
        t.elements.push_back(mixprec::float4_e2m1fn::from_bits(static_cast<std::uint8_t>((i + i / 128) % 16)));
      for (std::size_t i = 0; i < 16 * 128; ++i)
        t.scales.push_back(mixprec::float8_ue4m3::from_bits(static_cast<std::uint8_t>(i % 127)));
      std::vector<float> a(t.elements.size()), b(t.elements.size());
      r.dequantize_at(simd_level::portable, t, a.data());
      r.dequantize_at(l, t, b.data());
      check_same_floats(b, a);
    }
  }
}

TEST_CASE("block_scaling fast paths: columnwise MXFP8 (TE, 32x1) and NVFP4 RNE (16x1) equal the scalar recipe") {
  // Row counts not a multiple of the block (a shorter last block row), with and without specials,
  // blocks of every magnitude (make_data's blocks of 16 values lie along the rows: a column block
  // mixes them), and columns not a multiple of 16 (the scalar loop).
  for (simd_level l : fast_levels()) {
    CAPTURE(md::simd_level_name(l));
    for (std::uint32_t seed = 1; seed <= 8; ++seed) {
      const std::size_t rows = 9 * seed + (seed == 4 ? 3 : 0), cols = seed == 7 ? 40 : 16 * (seed % 5 + 1);
      CAPTURE(seed);
      CAPTURE(rows);
      CAPTURE(cols);
      const std::vector<float> x = make_data(rows, cols, 16, 700 + seed, seed % 2 == 1);
      const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> m{mixprec::mx_block_rule::te_rceil,
                                                               mixprec::block_columnwise(32)};
      const auto mref = m.quantize_at(simd_level::portable, x.data(), rows, cols);
      check_same(m.quantize_at(l, x.data(), rows, cols), mref);
      std::vector<float> a(x.size()), b(x.size());
      m.dequantize_at(simd_level::portable, mref, a.data());
      m.dequantize_at(l, mref, b.data());
      check_same_floats(b, a);
      for (auto order : {mixprec::nvfp4_order::te, mixprec::nvfp4_order::te_legacy})
        for (auto factor : {mixprec::nvfp4_encode_factor::reciprocal, mixprec::nvfp4_encode_factor::quotient}) {
          mixprec::nvfp4_recipe r;
          r.order = order;
          r.factor = factor;
          r.block = mixprec::block_columnwise(16);
          const auto ref = r.quantize_at(simd_level::portable, x.data(), rows, cols);
          check_same(r.quantize_at(l, x.data(), rows, cols), ref);
          r.dequantize_at(simd_level::portable, ref, a.data());
          r.dequantize_at(l, ref, b.data());
          check_same_floats(b, a);
        }
    }
    // Columns of decreasing magnitude (column j about 2^-j: block scales down to UE4M3 subnormals
    // and 0), and a given tensor amax below the true one (scales saturate): the general paths.
    {
      const std::size_t rows = 40, cols = 64;
      std::mt19937 g(9);
      std::normal_distribution<float> nd(0.0f, 1.0f);
      std::vector<float> x(rows * cols);
      for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) x[i * cols + j] = std::ldexp(nd(g), -static_cast<int>(j));
      x[7 * cols + 5] = std::numeric_limits<float>::quiet_NaN();
      for (float amax : {4.0f, 1.0f, 1e-3f, 1e-9f})
        for (bool sr : {false, true}) {
          CAPTURE(amax);
          CAPTURE(sr);
          mixprec::nvfp4_recipe r;
          r.block = mixprec::block_columnwise(16);
          r.stochastic = sr;
          r.seed = 99;
          mixprec::nvfp4_recipe::tensor_type fast, ref;
          r.quantize_into_at(l, x.data(), rows, cols, fast, &amax);
          r.quantize_into_at(simd_level::portable, x.data(), rows, cols, ref, &amax);
          check_same(fast, ref);
          r.block = mixprec::block_rowwise(16);
          r.quantize_into_at(l, x.data(), rows, cols, fast, &amax);
          r.quantize_into_at(simd_level::portable, x.data(), rows, cols, ref, &amax);
          check_same(fast, ref);
          if (!sr) {
            r.block = mixprec::block_shape{16, 16};
            r.quantize_into_at(l, x.data(), rows, cols, fast, &amax);
            r.quantize_into_at(simd_level::portable, x.data(), rows, cols, ref, &amax);
            check_same(fast, ref);
            check_same(r.quantize_at(l, x.data(), rows, cols), r.quantize_at(simd_level::portable, x.data(), rows, cols));
          }
        }
      const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> m{mixprec::mx_block_rule::te_rceil,
                                                               mixprec::block_columnwise(32)};
      check_same(m.quantize_at(l, x.data(), rows, cols), m.quantize_at(simd_level::portable, x.data(), rows, cols));
    }
    // Columnwise MXFP8 dequantize: every element code under every scale code (0xFF: NaN).
    mixprec::mx_block_recipe<mixprec::float8_e4m3fn>::tensor_type t;
    t.rows = 64;
    t.cols = 256;
    t.block = mixprec::block_columnwise(32);
    for (std::size_t i = 0; i < t.rows * t.cols; ++i)
      t.elements.push_back(mixprec::float8_e4m3fn::from_bits(static_cast<std::uint8_t>((i + 37 * (i / 256)) % 256)));
    for (std::size_t i = 0; i < 2 * 256; ++i) t.scales.push_back(mixprec::float8_e8m0fnu::from_bits(static_cast<std::uint8_t>(i % 256)));
    const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> m{mixprec::mx_block_rule::te_rceil, mixprec::block_columnwise(32)};
    std::vector<float> a(t.elements.size()), b(t.elements.size());
    m.dequantize_at(simd_level::portable, t, a.data());
    m.dequantize_at(l, t, b.data());
    check_same_floats(b, a);
  }
}

TEST_CASE("block_scaling fast paths: NVFP4 dequantize of scale codes quantize never writes (NaN 0x7F, sign bit)") {
  // A tensor built by hand may hold any UE4M3 code: the fast paths leave such tensors to the
  // scalar loop, so every level gives its values (NaN for 0x7F, not a finite 480).
  for (simd_level l : fast_levels()) {
    CAPTURE(md::simd_level_name(l));
    for (auto blk : {mixprec::block_rowwise(16), mixprec::block_columnwise(16), mixprec::block_shape{16, 16}})
      for (unsigned code : {0x7Fu, 0x80u, 0x88u, 0xFEu, 0xFFu}) {
        CAPTURE(code);
        mixprec::nvfp4_recipe r;
        mixprec::nvfp4_recipe::tensor_type t;
        t.rows = 32;
        t.cols = 32;
        t.block = blk;
        t.tensor_scale = 2688.0f / 5.0f;
        for (std::size_t i = 0; i < 32 * 32; ++i)
          t.elements.push_back(mixprec::float4_e2m1fn::from_bits(static_cast<std::uint8_t>(i % 16)));
        const std::size_t ns = t.scale_rows() * t.scale_cols();
        for (std::size_t i = 0; i < ns; ++i)
          t.scales.push_back(mixprec::float8_ue4m3::from_bits(static_cast<std::uint8_t>(i == ns / 2 ? code : 56 + i % 8)));
        std::vector<float> a(t.elements.size()), b(t.elements.size());
        r.dequantize_at(simd_level::portable, t, a.data());
        r.dequantize_at(l, t, b.data());
        check_same_floats(b, a);
      }
  }
}

TEST_CASE("block_scaling fast paths: TE MXFP8 te_rceil and te_rceil_legacy on code-0 blocks equal the scalar recipe") {
  // Blocks whose E8M0 code is 0 (amax at most 448 * 2^-127: zero, float subnormals, the boundary
  // and its neighbours, a NaN beside them) among ordinary and 0xFE blocks, so that groups of 16
  // blocks mix them (the AVX-512 kernels take such groups block by block): te_rceil quantizes
  // them with 2^127 and dequantizes 2^-127 * P, te_rceil_legacy with 1 and 0.
  std::mt19937 g(17);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const float t = 448.0f * 0x1p-127f;
  const std::vector<float> amaxes{0.0f, 0x1p-149f, 0x1p-140f, 0x1.8p-127f, 0x1p-126f, t, std::nextafter(t, 0.0f),
                                  std::nextafter(t, 1.0f), 0x1p-119f, 1.0f, 3.0e38f,
                                  std::numeric_limits<float>::infinity(), 1e-3f, 0x1p-130f};
  std::vector<float> x;
  for (int rep = 0; rep < 12; ++rep)
    for (std::size_t k = 0; k < amaxes.size(); ++k) {
      const float a = amaxes[(k * 5 + static_cast<std::size_t>(rep)) % amaxes.size()];
      for (int j = 0; j < 32; ++j) x.push_back(std::isfinite(a) ? a * u(g) : u(g));
      x[x.size() - 1 - static_cast<std::size_t>(rep % 32)] = a;
      if (rep % 5 == 2) x[x.size() - 7] = std::numeric_limits<float>::quiet_NaN();
    }
  x.resize(x.size() / 64 * 64);  // rows of 64
  const std::size_t rows = x.size() / 64;
  for (auto rule : {mixprec::mx_block_rule::te_rceil, mixprec::mx_block_rule::te_rceil_legacy}) {
    CAPTURE(mixprec::mx_block_rule_name(rule));
    const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> r{rule, mixprec::block_rowwise(32)};
    const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> c{rule, mixprec::block_columnwise(32)};
    for (simd_level l : fast_levels()) {
      CAPTURE(md::simd_level_name(l));
      const auto ref = r.quantize_at(simd_level::portable, x.data(), rows, 64);
      std::size_t code0 = 0;
      for (const auto& s : ref.scales) code0 += s.bits() == 0;
      CHECK(code0 > 10);
      check_same(r.quantize_at(l, x.data(), rows, 64), ref);
      std::vector<float> a(x.size()), b(x.size());
      r.dequantize_at(simd_level::portable, ref, a.data());
      r.dequantize_at(l, ref, b.data());
      check_same_floats(b, a);
      // A row's partial last block: full blocks fast, the rest scalar.
      check_same(r.quantize_at(l, x.data(), x.size() / 48, 48), r.quantize_at(simd_level::portable, x.data(), x.size() / 48, 48));
      // Columnwise 32x1 (cols % 16 == 0): the same data as 64 columns.
      const auto cref = c.quantize_at(simd_level::portable, x.data(), rows, 64);
      check_same(c.quantize_at(l, x.data(), rows, 64), cref);
      c.dequantize_at(simd_level::portable, cref, a.data());
      c.dequantize_at(l, cref, b.data());
      check_same_floats(b, a);
      // Every element code under every scale code, rowwise and columnwise.
      mixprec::block_scaled_tensor<mixprec::float8_e4m3fn, mixprec::float8_e8m0fnu> tr, tc;
      tr.rows = 256;
      tr.cols = 256;
      tr.block = mixprec::block_rowwise(32);
      tc.rows = 64;
      tc.cols = 256;
      tc.block = mixprec::block_columnwise(32);
      for (std::size_t i = 0; i < 256 * 256; ++i) tr.elements.push_back(mixprec::float8_e4m3fn::from_bits(static_cast<std::uint8_t>(i)));
      for (std::size_t i = 0; i < 256 * 8; ++i) tr.scales.push_back(mixprec::float8_e8m0fnu::from_bits(static_cast<std::uint8_t>(i / 8)));
      for (std::size_t i = 0; i < 64 * 256; ++i)
        tc.elements.push_back(mixprec::float8_e4m3fn::from_bits(static_cast<std::uint8_t>((i + 37 * (i / 256)) % 256)));
      for (std::size_t i = 0; i < 2 * 256; ++i) tc.scales.push_back(mixprec::float8_e8m0fnu::from_bits(static_cast<std::uint8_t>(i % 256)));
      std::vector<float> ra(tr.elements.size()), rb(tr.elements.size()), ca(tc.elements.size()), cb(tc.elements.size());
      r.dequantize_at(simd_level::portable, tr, ra.data());
      r.dequantize_at(l, tr, rb.data());
      check_same_floats(rb, ra);
      c.dequantize_at(simd_level::portable, tc, ca.data());
      c.dequantize_at(l, tc, cb.data());
      check_same_floats(cb, ca);
    }
  }
}
