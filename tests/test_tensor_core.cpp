// SPDX-License-Identifier: MIT
// Tensor-core presets (include/mixprec/kernels/tensor_core.hpp) beyond tests/test_gemm.cpp's:
// kind::f8f6f4 / kind::mxf8f6f4 with FP4/FP6 operands against MMA-Sim's outputs in
// tests/golden/mma_vectors_f8f6f4.txt (tests/golden/gen_mma_vectors.py) through mma_dot,
// mma_dot_scaled, gemm and block_scaled_gemm; the AMD CDNA1/CDNA2 pairwise presets on cases
// worked by hand (their MMA-Sim vectors are in mma_vectors.txt, checked by tests/test_gemm.cpp);
// bad input.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <mixprec/kernels/gemm.hpp>
#include <mixprec/kernels/tensor_core.hpp>
#include <mixprec/recipes/block_scaled_gemm.hpp>

#include "mma_vectors.hpp"

using mixprec::bfloat16;
using mixprec::float4_e2m1fn;
using mixprec::float6_e2m3fn;
using mixprec::float6_e3m2fn;
using mixprec::float8_e4m3fn;
using mixprec::float8_e5m2;
using mixprec::float8_e8m0fnu;
using mixprec::half;
using mixprec::mma_preset;

namespace {

std::uint32_t fbits(float x) { return mixprec::detail::bit_cast<std::uint32_t>(x); }

using mmatest::c_value;
using mmatest::decode;
using mmatest::out_bits;
using mmatest::tile;

/// One tile: mma_dot / mma_dot_scaled per output, gemm over the tile (unscaled presets) and
/// block_scaled_gemm for the outputs whose C is +0 (f32 outputs); returns the outputs that differ.
template <class TA, class TB>
std::size_t check_tile(const tile& t, std::size_t& gemm_checked, std::size_t& bsg_checked) {
  const mma_preset p = mixprec::mma_preset_from_name(t.preset);
  const mixprec::mma_model& md = mixprec::mma_model_of(p);
  const std::vector<TA> a = decode<TA>(t.a);
  const std::vector<TB> b = decode<TB>(t.b);
  REQUIRE(a.size() == t.rows * t.k);
  REQUIRE(b.size() == t.k * t.n);
  REQUIRE(t.d.size() == t.rows * t.n);
  const std::size_t nb = md.scales ? t.k / t.block : 0;
  const std::vector<float8_e8m0fnu> sa = decode<float8_e8m0fnu>(t.sa), sb_all = decode<float8_e8m0fnu>(t.sb);
  std::size_t bad = 0;
  std::vector<TB> col(t.k);
  std::vector<float8_e8m0fnu> sb(nb);
  for (std::size_t i = 0; i < t.rows; ++i) {
    for (std::size_t j = 0; j < t.n; ++j) {
      for (std::size_t q = 0; q < t.k; ++q) col[q] = b[q * t.n + j];
      for (std::size_t q = 0; q < nb; ++q) sb[q] = sb_all[q * t.n + j];
      const float c = c_value(t.c[i * t.n + j], md.out);
      const float d = md.scales ? mixprec::mma_dot_scaled(p, a.data() + i * t.k, col.data(), t.k, c, sa.data() + i * nb, sb.data(), t.block)
                                : mixprec::mma_dot(p, a.data() + i * t.k, col.data(), t.k, c);
      if (out_bits(d, md.out) != t.d[i * t.n + j]) {
        if (bad < 8) {
          INFO(t.preset << " " << t.a_fmt << "x" << t.b_fmt << " k " << t.k << " (" << i << ", " << j << "): got 0x" << std::hex
                        << out_bits(d, md.out) << " want 0x" << t.d[i * t.n + j]);
          CHECK(out_bits(d, md.out) == t.d[i * t.n + j]);
        }
        ++bad;
      }
    }
  }
  if (md.scales == 0) {  // gemm, C the accumulator's start (beta 1)
    mixprec::gemm_options o;
    o.mma = p;
    std::size_t bad_gemm = 0;
    if (md.out == mixprec::mma_output::f16) {
      std::vector<half> c(t.c.size());
      for (std::size_t q = 0; q < c.size(); ++q) c[q] = half::from_bits(static_cast<std::uint16_t>(t.c[q]));
      mixprec::gemm(mixprec::exec::seq, mixprec::transpose::none, mixprec::transpose::none, t.rows, t.n, t.k, 1.0f, a.data(), t.k,
                    b.data(), t.n, 1.0f, c.data(), t.n, o);
      for (std::size_t q = 0; q < c.size(); ++q) bad_gemm += c[q].bits() != t.d[q];
    } else {
      std::vector<float> c(t.c.size());
      for (std::size_t q = 0; q < c.size(); ++q) c[q] = mixprec::detail::bit_cast<float>(t.c[q]);
      mixprec::gemm(mixprec::exec::par(2), mixprec::transpose::none, mixprec::transpose::none, t.rows, t.n, t.k, 1.0f, a.data(),
                    t.k, b.data(), t.n, 1.0f, c.data(), t.n, o);
      for (std::size_t q = 0; q < c.size(); ++q) bad_gemm += fbits(c[q]) != t.d[q];
    }
    INFO("gemm " << t.preset << " " << t.a_fmt << "x" << t.b_fmt << " k " << t.k);
    CHECK(bad_gemm == 0);
    bad += bad_gemm;
    gemm_checked += t.c.size();
  }
  if (md.out == mixprec::mma_output::f32) {  // block_scaled_gemm starts from +0
    const std::size_t kb = md.scales ? t.block : t.k, nbk = t.k / kb;
    mixprec::block_scaled_tensor<TA, float8_e8m0fnu> ta;
    ta.rows = t.rows;
    ta.cols = t.k;
    ta.block = mixprec::block_rowwise(kb);
    ta.elements = a;
    ta.scales = md.scales ? sa : std::vector<float8_e8m0fnu>(t.rows * nbk, float8_e8m0fnu(1.0f));
    mixprec::block_scaled_tensor<TB, float8_e8m0fnu> tb;
    tb.rows = t.k;
    tb.cols = t.n;
    tb.block = mixprec::block_columnwise(kb);
    tb.elements = b;
    tb.scales = md.scales ? sb_all : std::vector<float8_e8m0fnu>(nbk * t.n, float8_e8m0fnu(1.0f));
    mixprec::block_gemm_options o;
    o.acc = mixprec::block_accumulator::tensor_core(p);
    const std::vector<float> c = mixprec::block_scaled_gemm(ta, tb, o, 1.0f, 1.0f);
    for (std::size_t q = 0; q < c.size(); ++q) {
      if (t.c[q] != 0) continue;
      ++bsg_checked;
      if (fbits(c[q]) != t.d[q]) {
        INFO("block_scaled_gemm " << t.preset << " " << t.a_fmt << "x" << t.b_fmt << " output " << q << ": got 0x" << std::hex
                                  << fbits(c[q]) << " want 0x" << t.d[q]);
        CHECK(fbits(c[q]) == t.d[q]);
        ++bad;
      }
    }
  }
  return bad;
}

template <class TA>
std::size_t check_b(const tile& t, std::size_t& g, std::size_t& s) {
  if (t.b_fmt == "e2m1") return check_tile<TA, float4_e2m1fn>(t, g, s);
  if (t.b_fmt == "e2m3") return check_tile<TA, float6_e2m3fn>(t, g, s);
  if (t.b_fmt == "e3m2") return check_tile<TA, float6_e3m2fn>(t, g, s);
  if (t.b_fmt == "e4m3") return check_tile<TA, float8_e4m3fn>(t, g, s);
  if (t.b_fmt == "e5m2") return check_tile<TA, float8_e5m2>(t, g, s);
  FAIL("unknown B format " << t.b_fmt);
  return 0;
}

}  // namespace

TEST_CASE("tensor-core f8f6f4 / mxf8f6f4 with FP4/FP6 operands: bit-identical to MMA-Sim (mma_vectors_f8f6f4.txt)") {
  const std::vector<tile> tiles = mmatest::load_tiles("mma_vectors_f8f6f4.txt");
  REQUIRE(tiles.size() >= 120);
  std::size_t bad = 0, total = 0, g = 0, s = 0, f32 = 0, f16 = 0, mx = 0;
  for (const tile& t : tiles) {
    if (t.a_fmt == "e2m1") bad += check_b<float4_e2m1fn>(t, g, s);
    else if (t.a_fmt == "e2m3") bad += check_b<float6_e2m3fn>(t, g, s);
    else if (t.a_fmt == "e3m2") bad += check_b<float6_e3m2fn>(t, g, s);
    else if (t.a_fmt == "e4m3") bad += check_b<float8_e4m3fn>(t, g, s);
    else if (t.a_fmt == "e5m2") bad += check_b<float8_e5m2>(t, g, s);
    else FAIL("unknown A format " << t.a_fmt);
    total += t.rows * t.n;
    (t.preset == "blackwell_tcgen05_f8f6f4_f32" ? f32 : t.preset == "blackwell_tcgen05_f8f6f4_f16" ? f16 : mx) += t.rows * t.n;
  }
  CHECK(bad == 0);
  CHECK(f32 >= 2000);
  CHECK(f16 >= 2000);
  CHECK(mx >= 2000);
  CHECK(g >= 4000);
  CHECK(s >= 500);
  MESSAGE("FP4/FP6 tensor-core vectors: " << total << " outputs, gemm " << g << ", block_scaled_gemm " << s << ", " << bad
                                          << " differ");
}

TEST_CASE("tensor-core AMD CDNA1/CDNA2 pairwise presets: cases worked by hand") {
  // bf16 [2^24, 1] . [1, 1]: the pair's f32 sum 2^24 + 1 rounds to 2^24 (even); then [-2^24, 1]:
  // -2^24 + 1 is exact. CDNA1 bf16 (pairs): 0 + 2^24 - (2^24 - 1) = 1; the exact dot is 2.
  const bfloat16 a[4] = {bfloat16(16777216.0f), bfloat16(1.0f), bfloat16(-16777216.0f), bfloat16(1.0f)};
  const bfloat16 one[4] = {bfloat16(1.0f), bfloat16(1.0f), bfloat16(1.0f), bfloat16(1.0f)};
  CHECK(mixprec::mma_dot(mma_preset::cdna1_mfma_bf16_f32, a, one, 4, 0.0f) == 1.0f);
  CHECK(mixprec::mma_dot(mma_preset::cdna2_mfma_bf16_f32, a, one, 4, 0.0f) == 1.0f);  // ((2^24 + 1) + (-2^24 + 1))
  // The fused CDNA3 sum keeps both ones: 2.
  CHECK(mixprec::mma_dot(mma_preset::cdna3_mfma_bf16_f32, a, one, 4, 0.0f) == 2.0f);
  // An f16 subnormal operand: CDNA1 keeps it, CDNA2 flushes it to +0; c = 2^-130 (f32 subnormal)
  // likewise, and a sum below 2^-126 keeps its sign.
  const half s[1] = {half::from_bits(0x0001)};  // 2^-24
  const half h1[1] = {half(1.0f)}, hm[1] = {half(-1.0f)};
  CHECK(mixprec::mma_dot(mma_preset::cdna1_mfma_f16_f32, s, h1, 1, 0.0f) == 0x1p-24f);
  CHECK(mixprec::mma_dot(mma_preset::cdna2_mfma_f16_f32, s, h1, 1, 0.0f) == 0.0f);
  CHECK(mixprec::mma_dot(mma_preset::cdna1_mfma_f16_f32, h1, hm, 1, 0x1p-130f) == -1.0f);
  CHECK(mixprec::mma_dot(mma_preset::cdna1_mfma_f16_f32, s, hm, 1, 0x1p-30f) == 0x1p-30f - 0x1p-24f);
  CHECK(mixprec::mma_dot(mma_preset::cdna2_mfma_f16_f32, s, hm, 1, 0x1p-130f) == 0.0f);
  CHECK(fbits(mixprec::mma_dot(mma_preset::cdna2_mfma_f16_f32, s, hm, 1, 0x1p-130f)) == 0u);  // +0: both flushed
  // A bf16 product below 2^-126: CDNA1 keeps the f32 subnormal, CDNA2 flushes it (+0 after the
  // group's sum with the zero products).
  const bfloat16 t[1] = {bfloat16(0x1p-70f)}, u[1] = {bfloat16(-0x1p-60f)};
  CHECK(mixprec::mma_dot(mma_preset::cdna1_mfma_bf16_f32, t, u, 1, 0.0f) == -0x1p-130f);
  CHECK(fbits(mixprec::mma_dot(mma_preset::cdna2_mfma_bf16_f32, t, u, 1, 0.0f)) == 0u);
  // c = -1.5 2^-126 plus the last group's 2^-126: -2^-127, kept by CDNA1, -0 on CDNA2 (its sign kept).
  bfloat16 v[8] = {};
  v[7] = bfloat16(0x1p-126f);
  const bfloat16 ones[8] = {bfloat16(1.0f), bfloat16(1.0f), bfloat16(1.0f), bfloat16(1.0f),
                            bfloat16(1.0f), bfloat16(1.0f), bfloat16(1.0f), bfloat16(1.0f)};
  CHECK(fbits(mixprec::mma_dot(mma_preset::cdna1_mfma_bf16_f32, v, ones, 8, -0x1.8p-126f)) == 0x80400000u);
  CHECK(fbits(mixprec::mma_dot(mma_preset::cdna2_mfma_bf16_f32, v, ones, 8, -0x1.8p-126f)) == 0x80000000u);
  // gemm over k 13 (one full CDNA1 f16 instruction, then 5 with zero padding) = mma_dot.
  std::vector<half> x(3 * 13), y(13 * 2);
  for (std::size_t q = 0; q < x.size(); ++q) x[q] = half(static_cast<float>(q % 7) * 0.37f - 1.1f);
  for (std::size_t q = 0; q < y.size(); ++q) y[q] = half(static_cast<float>(q % 5) * 0.61f - 1.3f);
  for (mma_preset p : {mma_preset::cdna1_mfma_f16_f32, mma_preset::cdna2_mfma_f16_f32}) {
    mixprec::gemm_options o;
    o.mma = p;
    std::vector<float> c(6, 0.5f);
    mixprec::gemm(mixprec::exec::seq, mixprec::transpose::none, mixprec::transpose::none, 3, 2, 13, 1.0f, x.data(), 13, y.data(), 2,
                  1.0f, c.data(), 2, o);
    for (std::size_t i = 0; i < 3; ++i) {
      for (std::size_t j = 0; j < 2; ++j) {
        const half col[13] = {y[j], y[2 + j], y[4 + j], y[6 + j], y[8 + j], y[10 + j], y[12 + j],
                              y[14 + j], y[16 + j], y[18 + j], y[20 + j], y[22 + j], y[24 + j]};
        CHECK(fbits(c[i * 2 + j]) == fbits(mixprec::mma_dot(p, x.data() + i * 13, col, 13, 0.5f)));
      }
    }
  }
}

TEST_CASE("tensor-core presets: FP4/FP6 and CDNA1/2 bad input names what is allowed, nothing written") {
  auto throws_with = [](auto&& f, const char* needle) {
    try {
      f();
      FAIL("no exception");
    } catch (const std::invalid_argument& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find(needle) != std::string::npos);
    }
  };
  const float6_e2m3fn a6[32] = {};
  const float6_e3m2fn b6[32] = {};
  const half h[32] = {};
  const float8_e8m0fnu s1[2] = {float8_e8m0fnu(1.0f), float8_e8m0fnu(1.0f)};
  const mixprec::float8_ue4m3 u1[2] = {mixprec::float8_ue4m3(1.0f), mixprec::float8_ue4m3(1.0f)};
  // FP6 operands are not Hopper's; the f8f6f4 presets name them.
  throws_with([&] { (void)mixprec::mma_dot(mma_preset::hopper_wgmma_fp8_f32, a6, b6, 32, 0.0f); }, "float8_e4m3fn, float8_e5m2");
  throws_with([&] { (void)mixprec::mma_dot(mma_preset::blackwell_tcgen05_f8f6f4_f32, h, b6, 32, 0.0f); },
              "float8_e4m3fn, float8_e5m2, float4_e2m1fn, float6_e2m3fn, float6_e3m2fn");
  throws_with([&] { (void)mixprec::mma_dot(mma_preset::blackwell_tcgen05_mxf8f6f4, a6, b6, 32, 0.0f); }, "mma_dot_scaled");
  throws_with([&] { (void)mixprec::mma_dot_scaled(mma_preset::blackwell_tcgen05_mxf8f6f4, a6, b6, 32, 0.0f, s1, s1, 16); },
              "float8_e8m0fnu per 32");
  throws_with([&] { (void)mixprec::mma_dot_scaled(mma_preset::blackwell_tcgen05_mxf8f6f4, a6, b6, 32, 0.0f, u1, u1, 32); },
              "float8_e8m0fnu per 32");
  throws_with([&] { (void)mixprec::mma_dot_scaled(mma_preset::blackwell_tcgen05_mxf4nvf4, a6, b6, 32, 0.0f, s1, s1, 32); },
              "float4_e2m1fn");
  throws_with([&] { (void)mixprec::mma_dot(mma_preset::cdna2_mfma_bf16_f32, h, h, 32, 0.0f); }, "bfloat16");
  throws_with([&] { (void)mixprec::mma_preset_from_name("cdna2_mfma_fp8_f32"); }, "cdna1_mfma_f16_f32");
  // gemm: C unchanged.
  std::vector<float> c(4, 7.0f);
  mixprec::gemm_options o;
  o.mma = mma_preset::cdna1_mfma_f16_f32;
  throws_with([&] {
    mixprec::gemm(mixprec::exec::seq, mixprec::transpose::none, mixprec::transpose::none, 2, 2, 16, 1.0f, a6, 16, b6, 2, 1.0f,
                  c.data(), 2, o);
  }, "half (f16)");
  o.mma = mma_preset::blackwell_tcgen05_mxf8f6f4;
  throws_with([&] {
    mixprec::gemm(mixprec::exec::seq, mixprec::transpose::none, mixprec::transpose::none, 2, 2, 16, 1.0f, a6, 16, b6, 2, 1.0f,
                  c.data(), 2, o);
  }, "block_scaled_gemm");
  for (float x : c) CHECK(x == 7.0f);
  // block_scaled_gemm: FP6 with mxf8f6f4 and a K block of 16 (the instruction's is 32).
  mixprec::block_scaled_tensor<float6_e2m3fn, float8_e8m0fnu> ta;
  ta.rows = 1;
  ta.cols = 32;
  ta.block = mixprec::block_rowwise(16);
  ta.elements.assign(32, float6_e2m3fn(1.0f));
  ta.scales.assign(2, float8_e8m0fnu(1.0f));
  mixprec::block_scaled_tensor<float6_e3m2fn, float8_e8m0fnu> tb;
  tb.rows = 32;
  tb.cols = 1;
  tb.block = mixprec::block_columnwise(16);
  tb.elements.assign(32, float6_e3m2fn(0.5f));
  tb.scales.assign(2, float8_e8m0fnu(1.0f));
  mixprec::block_gemm_options bo;
  bo.acc = mixprec::block_accumulator::tensor_core(mma_preset::blackwell_tcgen05_mxf8f6f4);
  throws_with([&] { (void)mixprec::block_scaled_gemm(ta, tb, bo); }, "float8_e8m0fnu per 32 K elements");
  bo.acc = mixprec::block_accumulator::tensor_core(mma_preset::blackwell_tcgen05_mxf4nvf4);
  throws_with([&] { (void)mixprec::block_scaled_gemm(ta, tb, bo); }, "float4_e2m1fn");
  // The good call: K block 32, 32 products of 1 * 0.5 = 16.
  ta.block = mixprec::block_rowwise(32);
  ta.scales.assign(1, float8_e8m0fnu(1.0f));
  tb.block = mixprec::block_columnwise(32);
  tb.scales.assign(1, float8_e8m0fnu(2.0f));
  bo.acc = mixprec::block_accumulator::tensor_core(mma_preset::blackwell_tcgen05_mxf8f6f4);
  const std::vector<float> r = mixprec::block_scaled_gemm(ta, tb, bo, 1.0f, 1.0f);
  REQUIRE(r.size() == 1);
  CHECK(r[0] == 32.0f);
}

namespace {

/// The GEMM kernel's lanes loop (gemm's tensor-core path) over decoded operands: rows of A (m x k),
/// B (k x n), C in and out (the accumulator's values), mixprec::detail::mma_fused_lanes per
/// instruction (k / split products at a time, the last ones short).
void lanes_gemm(const mixprec::mma_model& md, std::size_t m, std::size_t n, std::size_t k, const std::vector<mixprec::detail::mma_term>& a,
                const std::vector<mixprec::detail::mma_term>& b, std::vector<double>& c) {
  constexpr std::size_t L = mixprec::detail::mma_lanes;
  const std::size_t panels = (n + L - 1) / L, ik = static_cast<std::size_t>(md.k), hk = ik / static_cast<std::size_t>(md.split);
  std::vector<double> av(m * k), bv(panels * k * L);
  std::vector<int> ae(m * k), be(panels * k * L);
  for (std::size_t q = 0; q < m * k; ++q) {
    av[q] = a[q].v;
    ae[q] = a[q].e;
  }
  for (std::size_t q = 0; q < panels; ++q) {
    for (std::size_t p = 0; p < k; ++p) {
      for (std::size_t l = 0; l < L; ++l) {
        const std::size_t j = q * L + l, at = (q * k + p) * L + l;
        bv[at] = j < n ? b[p * n + j].v : 0.0;
        be[at] = j < n ? b[p * n + j].e : -252;
      }
    }
  }
  for (std::size_t q = 0; q < panels; ++q) {
    for (std::size_t i = 0; i < m; ++i) {
      double acc[L];
      for (std::size_t l = 0; l < L; ++l) acc[l] = q * L + l < n ? c[i * n + q * L + l] : 0.0;
      for (std::size_t k0 = 0; k0 < k; k0 += ik) {
        for (std::size_t lo = k0; lo < k0 + ik; lo += hk) {
          const std::size_t cnt = lo >= k ? 0 : std::min(hk, k - lo), at = std::min(lo, k);
          mixprec::detail::mma_fused_lanes(md, acc, av.data() + i * k + at, ae.data() + i * k + at, bv.data() + (q * k + at) * L,
                                           be.data() + (q * k + at) * L, cnt);
        }
      }
      for (std::size_t l = 0; l < L && q * L + l < n; ++l) c[i * n + q * L + l] = acc[l];
    }
  }
}

template <class T>
std::vector<mixprec::detail::mma_term> terms(const std::vector<T>& x) {
  constexpr unsigned op = mixprec::detail::mma_operand_of<T>();
  std::vector<mixprec::detail::mma_term> t(x.size());
  for (std::size_t q = 0; q < x.size(); ++q) t[q] = mixprec::detail::mma_decode(static_cast<double>(x[q]), op);
  return t;
}

/// The lanes kernel against mma_dot (the scalar model) on random operands of T, k 1 .. 70.
template <class T>
std::size_t lanes_vs_scalar(mma_preset pre, std::mt19937& rng, int emin, int emax) {
  const mixprec::mma_model& md = mixprec::mma_model_of(pre);
  std::uniform_int_distribution<int> ex(emin, emax), kd(1, 70);
  std::uniform_real_distribution<float> u(1.0f, 2.0f);
  std::size_t bad = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t m = 3, n = 11, k = static_cast<std::size_t>(kd(rng));
    auto draw = [&] {
      const float sgn = (rng() & 1u) ? -1.0f : 1.0f;
      return (rng() % 11u) == 0 ? T(0.0f) : T(sgn * std::ldexp(u(rng), ex(rng)));
    };
    std::vector<T> a(m * k), b(k * n);
    for (auto& x : a) x = draw();
    for (auto& x : b) x = draw();
    if (trial % 4 == 1) {  // cancellation: the second half of B's column the negated first
      for (std::size_t p = k / 2; p < 2 * (k / 2); ++p)
        for (std::size_t j = 0; j < n; ++j) b[p * n + j] = T(-static_cast<float>(b[(p - k / 2) * n + j]));
    }
    std::vector<double> c(m * n);
    std::vector<float> cf(m * n);
    for (std::size_t q = 0; q < c.size(); ++q) {
      cf[q] = trial % 3 == 0 ? 0.0f : static_cast<float>(draw()) * ((rng() & 1u) ? 1.0f : 0x1p-20f);
      c[q] = static_cast<double>(cf[q]);
    }
    lanes_gemm(md, m, n, k, terms(a), terms(b), c);
    std::vector<T> col(k);
    for (std::size_t i = 0; i < m; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        for (std::size_t p = 0; p < k; ++p) col[p] = b[p * n + j];
        const float want = mixprec::mma_dot(pre, a.data() + i * k, col.data(), k, cf[i * n + j]);
        if (fbits(static_cast<float>(c[i * n + j])) != fbits(want)) {
          if (bad < 5) {
            INFO(md.name << " k " << k << " (" << i << ", " << j << "): lanes 0x" << std::hex << fbits(static_cast<float>(c[i * n + j]))
                         << " scalar 0x" << fbits(want));
            CHECK(fbits(static_cast<float>(c[i * n + j])) == fbits(want));
          }
          ++bad;
        }
      }
    }
  }
  return bad;
}

}  // namespace

TEST_CASE("tensor-core AMD presets: the GEMM's lanes kernel gives the scalar model's bits") {
  std::mt19937 rng(32);
  std::size_t bad = 0;
  bad += lanes_vs_scalar<half>(mma_preset::cdna3_mfma_f16_f32, rng, -24, 15);
  bad += lanes_vs_scalar<bfloat16>(mma_preset::cdna3_mfma_bf16_f32, rng, -30, 30);
  bad += lanes_vs_scalar<bfloat16>(mma_preset::cdna3_mfma_bf16_f32, rng, -133, 127);  // f32 overflow, subnormal products
  bad += lanes_vs_scalar<mixprec::float8_e4m3fnuz>(mma_preset::cdna3_mfma_fp8_f32, rng, -10, 7);
  bad += lanes_vs_scalar<mixprec::float8_e5m2fnuz>(mma_preset::cdna3_mfma_fp8_f32, rng, -17, 15);
  bad += lanes_vs_scalar<half>(mma_preset::cdna1_mfma_f16_f32, rng, -24, 15);
  bad += lanes_vs_scalar<half>(mma_preset::cdna2_mfma_f16_f32, rng, -24, 15);
  bad += lanes_vs_scalar<bfloat16>(mma_preset::cdna1_mfma_bf16_f32, rng, -133, 60);
  bad += lanes_vs_scalar<bfloat16>(mma_preset::cdna2_mfma_bf16_f32, rng, -133, 60);
  bad += lanes_vs_scalar<half>(mma_preset::hopper_wgmma_f16_f32, rng, -24, 15);
  CHECK(bad == 0);
}
