// SPDX-License-Identifier: MIT
// bench/bench_block_scaling.cpp — block quantize / dequantize against the data-movement limit of
// the same bytes, and the block-scaled GEMM against the plain float GEMM, in one run.
//
//   quant/<recipe>/<impl>/<n>     quantize n floats (rows of 4096) into elements + scales
//   dequant/<recipe>/<impl>/<n>   dequantize them back to n floats
//     recipe  mxfp8   mx_block_recipe<float8_e4m3fn>, te_rceil, rowwise 1x32 (TE MXFP8)
//             mxfp8_ocp  the same with ocp_floor (OCP MX v1.0; quantize; mixprec, scalar, avx2)
//             fp8_1x128  deepseek_fp8_recipe, rowwise 1x128, FP32 scale amax / 448 (quantize)
//             nvfp4   nvfp4_recipe, te order, rowwise 1x16 (TE NVFP4; two passes: tensor amax,
//                     then the blocks)
//             mxfp8_col, nvfp4_col  the same recipes in columnwise 32x1 / 16x1 blocks
//             nvfp4_sr, nvfp4_srcol  NVFP4 with stochastic rounding, 1x16 / 16x1 (quantize)
//     impl    mixprec  recipe.quantize_into / dequantize (storage reused; x86 fast path where
//                      compiled in, -march=native)
//             scalar   quantize_into_at / dequantize_at(simd_level::portable): the scalar loops
//             avx2     the same at simd_level::avx2 (what an -mavx2 build runs), in an AVX-512 build
//             given_amax  (NVFP4 quantize) quantize_into with the tensor amax given: one pass
//             copy     a narrowing copy uint32 -> uint8 (quant) or widening uint8 -> uint32
//                      (dequant) of n elements: the same bytes (less the scales, 1/32 or 1/16 of
//                      the elements), the data-movement limit the targets are stated against
//     n       65536 (256 KiB of floats: L2) and 16777216 (64 MiB: DRAM)
//   gemm/<impl>/<m>   C = A B, m x m x m (256 and 1024; mxfp8_tc 256 only), single thread
//             f32       mixprec::gemm(exec::seq, ...) float, matmul precision highest (peer)
//             mxfp8     block_scaled_gemm: A 1x32, B 32x1 MXFP8 (TE rule), FP32 accumulator model
//             mxfp8_tc  the same with block_accumulator::truncated(13, 4), promotion 32
//             nvfp4     block_scaled_gemm: A 1x16, B 16x1 NVFP4 (TE rule), FP32 accumulator model
//             fp8blk    block_scaled_gemm: A 1x128, B 128x128 DeepSeek-V3 FP8, FP32 model
// Counters: bytes_per_second counts input + output bytes (elements and scales);
// bench/bench_block_scaling_table.py prints the ratios to copy and to f32.
//
// Reproduce: see bench/README.md ("Block scaling").
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <mixprec/block_scaled_gemm.hpp>
#include <mixprec/block_scaling_fp8.hpp>
#include <mixprec/block_scaling_mx.hpp>
#include <mixprec/block_scaling_nvfp4.hpp>
#include <mixprec/kernels.hpp>

#if defined(__x86_64__) && defined(__AVX512F__)
#include <mixprec/detail/x86.hpp>
#endif

namespace {

using namespace mixprec;

constexpr std::size_t kCols = 4096;

std::vector<float> normal_floats(std::size_t n, std::uint32_t seed = 42) {
  std::mt19937 g(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

void narrow_copy(const std::uint32_t* __restrict in, std::uint8_t* __restrict out, std::size_t n) {
  std::size_t i = 0;
#if defined(__AVX512F__)
  for (; i + 16 <= n; i += 16)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm512_cvtepi32_epi8(_mm512_loadu_si512(reinterpret_cast<const void*>(in + i))));
#endif
  for (; i < n; ++i) out[i] = static_cast<std::uint8_t>(in[i]);
}

void widen_copy(const std::uint8_t* __restrict in, std::uint32_t* __restrict out, std::size_t n) {
  std::size_t i = 0;
#if defined(__AVX512F__)
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_si512(reinterpret_cast<void*>(out + i),
                        _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
#endif
  for (; i < n; ++i) out[i] = in[i];
}

/// NVFP4's one-pass quantize_into with the tensor amax given (a no-op for the other recipes).
template <class Recipe>
void quantize_given_amax(const Recipe&, const float*, std::size_t, std::size_t, typename Recipe::tensor_type&, float) {}
void quantize_given_amax(const nvfp4_recipe& r, const float* x, std::size_t rows, std::size_t cols,
                         nvfp4_recipe::tensor_type& t, float amax) {
  r.quantize_into(x, rows, cols, t, amax);
}

enum class impl { mixprec, scalar, copy, avx2, given_amax };

template <class Recipe>
void quant(benchmark::State& st, Recipe r, std::size_t block, impl im) {
  const auto n = static_cast<std::size_t>(st.range(0));
  const std::vector<float> x = normal_floats(n);
  typename Recipe::tensor_type t = r.quantize(x.data(), n / kCols, kCols);
  std::vector<std::uint8_t> out(n);
  const float amax = detail::block_amax_fmax(x.data(), kCols, 0, n / kCols, 0, kCols);  // given_amax
  for (auto _ : st) {
    if (im == impl::copy) {
      narrow_copy(reinterpret_cast<const std::uint32_t*>(x.data()), out.data(), n);
      benchmark::DoNotOptimize(out.data());
    } else if (im == impl::mixprec) {
      r.quantize_into(x.data(), n / kCols, kCols, t);
      benchmark::DoNotOptimize(t.elements.data());
    } else if (im == impl::given_amax) {
      quantize_given_amax(r, x.data(), n / kCols, kCols, t, amax);
      benchmark::DoNotOptimize(t.elements.data());
    } else if (im == impl::avx2) {
      r.quantize_into_at(detail::simd_level::avx2, x.data(), n / kCols, kCols, t);
      benchmark::DoNotOptimize(t.elements.data());
    } else {
      r.quantize_into_at(detail::simd_level::portable, x.data(), n / kCols, kCols, t);
      benchmark::DoNotOptimize(t.elements.data());
    }
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations()) *
                       static_cast<std::int64_t>(n * 5 + (im == impl::copy ? 0 : n / block)));
}

template <class Recipe>
void dequant(benchmark::State& st, Recipe r, std::size_t block, impl im) {
  const auto n = static_cast<std::size_t>(st.range(0));
  const std::vector<float> x = normal_floats(n);
  const typename Recipe::tensor_type t = r.quantize(x.data(), n / kCols, kCols);
  std::vector<float> out(n);
  for (auto _ : st) {
    if (im == impl::copy) {
      widen_copy(reinterpret_cast<const std::uint8_t*>(t.elements.data()), reinterpret_cast<std::uint32_t*>(out.data()),
                 n);
    } else if (im == impl::mixprec) {
      r.dequantize(t, out.data());
    } else if (im == impl::avx2) {
      r.dequantize_at(detail::simd_level::avx2, t, out.data());
    } else {
      r.dequantize_at(detail::simd_level::portable, t, out.data());
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations()) *
                       static_cast<std::int64_t>(n * 5 + (im == impl::copy ? 0 : n / block)));
}

const mx_block_recipe<float8_e4m3fn> kMx{mx_block_rule::te_rceil, block_rowwise(32)};
const mx_block_recipe<float8_e4m3fn> kMxOcp{mx_block_rule::ocp_floor, block_rowwise(32)};
const mx_block_recipe<float8_e4m3fn> kMxCol{mx_block_rule::te_rceil, block_columnwise(32)};
nvfp4_recipe nvfp4_variant(block_shape b, bool sr) {
  nvfp4_recipe r;
  r.block = b;
  r.stochastic = sr;
  r.seed = 7;
  return r;
}

void register_quant() {
  const char* names[] = {"mixprec", "scalar", "copy", "avx2", "given_amax"};
  for (impl im : {impl::mixprec, impl::scalar, impl::copy, impl::avx2, impl::given_amax}) {
    if (im == impl::avx2 && !detail::simd_level_compiled(detail::simd_level::avx2)) continue;
    const std::string nm = names[static_cast<int>(im)];
    std::vector<benchmark::internal::Benchmark*> bs;
    if (im != impl::given_amax) {
      bs.push_back(benchmark::RegisterBenchmark(("quant/mxfp8/" + nm).c_str(),
                                                [im](benchmark::State& s) { quant(s, kMx, 32, im); }));
      bs.push_back(benchmark::RegisterBenchmark(("dequant/mxfp8/" + nm).c_str(),
                                                [im](benchmark::State& s) { dequant(s, kMx, 32, im); }));
      bs.push_back(benchmark::RegisterBenchmark(("dequant/nvfp4/" + nm).c_str(),
                                                [im](benchmark::State& s) { dequant(s, nvfp4_recipe{}, 16, im); }));
    }
    bs.push_back(benchmark::RegisterBenchmark(("quant/nvfp4/" + nm).c_str(),
                                              [im](benchmark::State& s) { quant(s, nvfp4_recipe{}, 16, im); }));
    if (im == impl::mixprec || im == impl::scalar || im == impl::avx2) {
      bs.push_back(benchmark::RegisterBenchmark(("quant/mxfp8_ocp/" + nm).c_str(),
                                                [im](benchmark::State& s) { quant(s, kMxOcp, 32, im); }));
      // Columnwise (32x1 / 16x1) and stochastic rounding variants (against the recipe's copy).
      bs.push_back(benchmark::RegisterBenchmark(("quant/mxfp8_col/" + nm).c_str(),
                                                [im](benchmark::State& s) { quant(s, kMxCol, 32, im); }));
      bs.push_back(benchmark::RegisterBenchmark(("dequant/mxfp8_col/" + nm).c_str(),
                                                [im](benchmark::State& s) { dequant(s, kMxCol, 32, im); }));
      bs.push_back(benchmark::RegisterBenchmark(("quant/nvfp4_col/" + nm).c_str(), [im](benchmark::State& s) {
        quant(s, nvfp4_variant(block_columnwise(16), false), 16, im);
      }));
      bs.push_back(benchmark::RegisterBenchmark(("dequant/nvfp4_col/" + nm).c_str(), [im](benchmark::State& s) {
        dequant(s, nvfp4_variant(block_columnwise(16), false), 16, im);
      }));
      bs.push_back(benchmark::RegisterBenchmark(("quant/nvfp4_sr/" + nm).c_str(), [im](benchmark::State& s) {
        quant(s, nvfp4_variant(block_rowwise(16), true), 16, im);
      }));
      bs.push_back(benchmark::RegisterBenchmark(("quant/nvfp4_srcol/" + nm).c_str(), [im](benchmark::State& s) {
        quant(s, nvfp4_variant(block_columnwise(16), true), 16, im);
      }));
    }
    if (im != impl::given_amax)  // FP32 scales: 4 bytes per 128 values, counted as 1 per 32
      bs.push_back(benchmark::RegisterBenchmark(("quant/fp8_1x128/" + nm).c_str(),
                                                [im](benchmark::State& s) { quant(s, deepseek_fp8_recipe{}, 32, im); }));
    for (auto* b : bs) b->Arg(65536)->Arg(16777216)->Unit(benchmark::kMicrosecond);
  }
}

enum class gimpl { f32, mxfp8, mxfp8_tc, nvfp4, fp8blk };

void gemm_bench(benchmark::State& st, gimpl im) {
  const auto m = static_cast<std::size_t>(st.range(0));
  const std::vector<float> a = normal_floats(m * m, 1), b = normal_floats(m * m, 2);
  std::vector<float> c(m * m);
  const mx_block_recipe<float8_e4m3fn> ra{mx_block_rule::te_rceil, block_rowwise(32)};
  const mx_block_recipe<float8_e4m3fn> rb{mx_block_rule::te_rceil, block_columnwise(32)};
  nvfp4_recipe na, nb;
  nb.block = block_columnwise(16);
  const auto qa = ra.quantize(a.data(), m, m), qb = rb.quantize(b.data(), m, m);
  const auto pa = na.quantize(a.data(), m, m), pb = nb.quantize(b.data(), m, m);
  const deepseek_fp8_recipe da{}, db{block_shape{128, 128}};
  const auto fa = da.quantize(a.data(), m, m), fb = db.quantize(b.data(), m, m);
  block_gemm_options tc;
  tc.acc = block_accumulator::truncated(13, 4);
  tc.promotion = 32;
  for (auto _ : st) {
    switch (im) {
      case gimpl::f32:
        gemm(exec::seq, transpose::none, transpose::none, m, m, m, 1.0f, a.data(), m, b.data(), m, 0.0f, c.data(), m);
        benchmark::DoNotOptimize(c.data());
        break;
      case gimpl::mxfp8: {
        auto r = block_scaled_gemm(qa, qb);
        benchmark::DoNotOptimize(r.data());
        break;
      }
      case gimpl::mxfp8_tc: {
        auto r = block_scaled_gemm(qa, qb, tc);
        benchmark::DoNotOptimize(r.data());
        break;
      }
      case gimpl::nvfp4: {
        auto r = block_scaled_gemm(pa, pb);
        benchmark::DoNotOptimize(r.data());
        break;
      }
      case gimpl::fp8blk: {
        auto r = block_scaled_gemm(fa, fb);
        benchmark::DoNotOptimize(r.data());
        break;
      }
    }
    benchmark::ClobberMemory();
  }
  st.counters["flops"] =
      benchmark::Counter(2.0 * static_cast<double>(m * m * m), benchmark::Counter::kIsIterationInvariantRate);
}

void register_gemm() {
  const char* names[] = {"f32", "mxfp8", "mxfp8_tc", "nvfp4", "fp8blk"};
  for (gimpl im : {gimpl::f32, gimpl::mxfp8, gimpl::mxfp8_tc, gimpl::nvfp4, gimpl::fp8blk}) {
    auto* bm = benchmark::RegisterBenchmark((std::string("gemm/") + names[static_cast<int>(im)]).c_str(),
                                            [im](benchmark::State& s) { gemm_bench(s, im); });
    bm->Arg(256)->Unit(benchmark::kMillisecond);
    if (im != gimpl::mxfp8_tc) bm->Arg(1024);  // the truncated model is seconds per call there
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_quant();
  register_gemm();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
