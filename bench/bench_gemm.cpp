// SPDX-License-Identifier: MIT
// bench/bench_gemm.cpp — mixprec::gemm against OpenBLAS cblas_sgemm in the same run.
//
//   gemm/<impl>/<n>/threads:<t>     C (n x n, float, row-major) = A (n x n) * B (n x n), beta = 0
//     impl  sgemm           cblas_sgemm on float inputs (the peer; openblas_set_num_threads(t))
//           bf16_exact      mixprec::gemm, bfloat16 A and B, float accumulation, algorithm exact
//                           (sequential k, one fma per step: bit-identical to the naive loop)
//           bf16_dot2       the same with gemm_algorithm::bf16_dot2 (vdpbf16ps semantics)
//           half_exact      half A and B, algorithm exact
//           f32_highest     float A and B, set_float32_matmul_precision("highest")
//           f32_high        "high": inputs rounded to tf32 (nearest-away) while packing
//           f32_medium      "medium": inputs rounded to bfloat16 (nearest-even) while packing
//           f32_high_bf16x3 "high" with matmul_high_mode::bf16x3 (3 products per step; no target)
//     n     1024, 2048;  t: 1, 2 (mixprec: exec::par(t))
// Counters: GFLOPS = 2 n^3 / time (10^9 flop/s); x_sgemm = sgemm's time / this row's time, with
// sgemm's time per call for the same (n, t) taken from the sgemm rows that ran before in this
// run (all their calls: total time / calls; measured on the spot, median of 5, when the sgemm
// rows are filtered out). Inputs: N(0,1), fixed seed; the
// low-precision inputs are the same values rounded. Before timing, 97 elements of each mixprec
// result are compared with a naive loop of the documented semantics: the label says "exact" or
// "WRONG k/97". Real time is reported (threads).
//
// OpenBLAS's worker threads spin for a while after a call; a mixprec row that follows a
// two-thread sgemm row waits 0.3 s (untimed) so that they do not compete with it.
//
// Reproduce: bench/README.md ("GEMM").
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <mixprec/kernels/gemm.hpp>
#include <mixprec/types.hpp>

#if defined(MIXPREC_BENCH_HAVE_OPENBLAS) && MIXPREC_BENCH_HAVE_OPENBLAS
// OpenBLAS's cblas.h declares a global `bfloat16` typedef: mixprec's is always written qualified.
#include <cblas.h>
#define MIXPREC_BENCH_SGEMM 1
#else
#define MIXPREC_BENCH_SGEMM 0
#endif

namespace {

using clock_type = std::chrono::steady_clock;

struct inputs {
  std::size_t n;
  std::vector<float> a, b;
  std::vector<mixprec::bfloat16> a_bf16, b_bf16;
  std::vector<mixprec::half> a_half, b_half;
};

const inputs& data(std::size_t n) {
  static std::map<std::size_t, std::unique_ptr<inputs>> cache;
  auto& slot = cache[n];
  if (!slot) {
    slot = std::make_unique<inputs>();
    inputs& in = *slot;
    in.n = n;
    std::mt19937 g(static_cast<std::uint32_t>(1234 + n));
    std::normal_distribution<float> d(0.0f, 1.0f);
    in.a.resize(n * n);
    in.b.resize(n * n);
    for (float& x : in.a) x = d(g);
    for (float& x : in.b) x = d(g);
    for (float x : in.a) in.a_bf16.emplace_back(x);
    for (float x : in.b) in.b_bf16.emplace_back(x);
    for (float x : in.a) in.a_half.emplace_back(x);
    for (float x : in.b) in.b_half.emplace_back(x);
  }
  return *slot;
}

// sgemm's total seconds and calls for (n, threads), over every invocation of its rows in this
// run (Google Benchmark's iteration-count estimation included): seconds / calls is sgemm's time
// per call, dominated by the long final invocations.
struct sgemm_record {
  double seconds = 0;
  double calls = 0;
};
std::map<std::pair<std::size_t, unsigned>, sgemm_record>& sgemm_times() {
  static std::map<std::pair<std::size_t, unsigned>, sgemm_record> t;
  return t;
}
bool openblas_may_spin = false;

#if MIXPREC_BENCH_SGEMM
void run_sgemm(const inputs& in, float* c, unsigned threads) {
  openblas_set_num_threads(static_cast<int>(threads));
  const int n = static_cast<int>(in.n);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, in.a.data(), n, in.b.data(), n, 0.0f, c, n);
}
#endif

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

double sgemm_seconds(std::size_t n, unsigned threads) {
  sgemm_record& t = sgemm_times()[{n, threads}];
  if (t.calls == 0) {
#if MIXPREC_BENCH_SGEMM
    const inputs& in = data(n);
    std::vector<float> c(n * n);
    run_sgemm(in, c.data(), threads);  // warm up
    std::vector<double> reps;
    for (int r = 0; r < 5; ++r) {
      const auto t0 = clock_type::now();
      run_sgemm(in, c.data(), threads);
      reps.push_back(std::chrono::duration<double>(clock_type::now() - t0).count());
    }
    t.seconds = median(reps);
    t.calls = 1;
    openblas_may_spin = threads > 1;
#else
    return 0.0;
#endif
  }
  return t.seconds / t.calls;
}

void set_counters(benchmark::State& s, std::size_t n, double seconds_per_call, double sgemm) {
  const double flop = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  s.counters["GFLOPS"] = benchmark::Counter(flop * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  if (sgemm > 0 && seconds_per_call > 0) s.counters["x_sgemm"] = sgemm / seconds_per_call;
}

#if MIXPREC_BENCH_SGEMM
void bm_sgemm(benchmark::State& s, std::size_t n, unsigned threads) {
  const inputs& in = data(n);
  std::vector<float> c(n * n);
  run_sgemm(in, c.data(), threads);  // warm up (thread start)
  const auto t0 = clock_type::now();
  for (auto _ : s) {
    run_sgemm(in, c.data(), threads);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  const double seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
  const double per_call = seconds / static_cast<double>(s.iterations());
  sgemm_record& rec = sgemm_times()[{n, threads}];
  rec.seconds += seconds;
  rec.calls += static_cast<double>(s.iterations());
  openblas_may_spin = threads > 1;
  set_counters(s, n, per_call, per_call);
  s.SetLabel("openblas " + std::string(openblas_get_corename()));
}
#endif

enum class impl { bf16_exact, bf16_dot2, half_exact, f32_highest, f32_high, f32_medium, f32_high_bf16x3 };

/// Runs mixprec::gemm for impl on n x n inputs into c.
void run_mixprec(impl im, const inputs& in, float* c, unsigned threads) {
  const std::size_t n = in.n;
  const auto N = mixprec::transpose::none;
  const auto pol = mixprec::exec::par(threads);
  mixprec::gemm_options o;
  switch (im) {
    case impl::bf16_exact:
    case impl::bf16_dot2:
      if (im == impl::bf16_dot2) o.algorithm = mixprec::gemm_algorithm::bf16_dot2;
      mixprec::gemm(pol, N, N, n, n, n, 1.0f, in.a_bf16.data(), n, in.b_bf16.data(), n, 0.0f, c, n, o);
      return;
    case impl::half_exact:
      mixprec::gemm(pol, N, N, n, n, n, 1.0f, in.a_half.data(), n, in.b_half.data(), n, 0.0f, c, n, o);
      return;
    default:
      mixprec::set_float32_matmul_precision(im == impl::f32_highest  ? mixprec::matmul_precision::highest
                                            : im == impl::f32_medium ? mixprec::matmul_precision::medium
                                                                     : mixprec::matmul_precision::high);
      mixprec::set_float32_matmul_high_mode(im == impl::f32_high_bf16x3 ? mixprec::matmul_high_mode::bf16x3
                                                                        : mixprec::matmul_high_mode::tf32_nearest_away);
      mixprec::gemm(pol, N, N, n, n, n, 1.0f, in.a.data(), n, in.b.data(), n, 0.0f, c, n);
      mixprec::set_float32_matmul_precision(mixprec::matmul_precision::highest);
      mixprec::set_float32_matmul_high_mode(mixprec::matmul_high_mode::tf32_nearest_away);
      return;
  }
}

/// The documented semantics of element (i, j), written out (the tests check every path fully).
float naive_element(impl im, const inputs& in, std::size_t i, std::size_t j) {
  const std::size_t n = in.n;
  float acc = 0.0f;
  for (std::size_t p = 0; p < n; ++p) {
    const std::size_t ia = i * n + p, ib = p * n + j;
    switch (im) {
      case impl::bf16_exact:
        acc = std::fma(static_cast<float>(in.a_bf16[ia]), static_cast<float>(in.b_bf16[ib]), acc);
        break;
      case impl::bf16_dot2:
        acc = mixprec::detail::gemm_dot2_step(static_cast<float>(in.a_bf16[ia]), static_cast<float>(in.b_bf16[ib]),
                                              acc);
        break;
      case impl::half_exact:
        acc = std::fma(static_cast<float>(in.a_half[ia]), static_cast<float>(in.b_half[ib]), acc);
        break;
      case impl::f32_highest: acc = std::fma(in.a[ia], in.b[ib], acc); break;
      case impl::f32_high:
        acc = std::fma(static_cast<float>(mixprec::round_to<mixprec::tf32>(in.a[ia], mixprec::rounding::nearest_away)),
                       static_cast<float>(mixprec::round_to<mixprec::tf32>(in.b[ib], mixprec::rounding::nearest_away)),
                       acc);
        break;
      case impl::f32_medium:
        acc = std::fma(static_cast<float>(mixprec::bfloat16(in.a[ia])), static_cast<float>(mixprec::bfloat16(in.b[ib])),
                       acc);
        break;
      case impl::f32_high_bf16x3: {
        auto split = [](float x, float& hi, float& lo) {
          hi = static_cast<float>(
              mixprec::round_to<mixprec::bfloat16>(x, mixprec::rounding::nearest_even, mixprec::overflow::saturate));
          lo = static_cast<float>(mixprec::bfloat16(x - hi));
        };
        float ah, al, bh, bl;
        split(in.a[ia], ah, al);
        split(in.b[ib], bh, bl);
        acc = std::fma(al, bh, acc);
        acc = std::fma(ah, bl, acc);
        acc = std::fma(ah, bh, acc);
        break;
      }
    }
  }
  return acc;
}

void bm_mixprec(benchmark::State& s, impl im, std::size_t n, unsigned threads) {
  const inputs& in = data(n);
  const double sgemm = sgemm_seconds(n, threads);
  if (openblas_may_spin) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    openblas_may_spin = false;
  }
  std::vector<float> c(n * n);
  run_mixprec(im, in, c.data(), threads);  // warm up, and the result to verify
  int wrong = 0, checked = 0;
  for (std::size_t e = 0; e < n * n; e += n * n / 97 + 1, ++checked) {
    const std::size_t i = e / n, j = e % n;
    const float want = naive_element(im, in, i, j);
    wrong += std::memcmp(&want, &c[e], sizeof want) != 0 ? 1 : 0;
  }
  const auto t0 = clock_type::now();
  for (auto _ : s) {
    run_mixprec(im, in, c.data(), threads);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  const double per_call =
      std::chrono::duration<double>(clock_type::now() - t0).count() / static_cast<double>(s.iterations());
  set_counters(s, n, per_call, sgemm);
  s.SetLabel(wrong == 0 ? std::string("exact") : "WRONG " + std::to_string(wrong) + "/" + std::to_string(checked));
}

const char* impl_name(impl im) {
  switch (im) {
    case impl::bf16_exact: return "bf16_exact";
    case impl::bf16_dot2: return "bf16_dot2";
    case impl::half_exact: return "half_exact";
    case impl::f32_highest: return "f32_highest";
    case impl::f32_high: return "f32_high";
    case impl::f32_medium: return "f32_medium";
    default: return "f32_high_bf16x3";
  }
}

void register_all() {
  const impl impls[] = {impl::bf16_exact, impl::bf16_dot2,  impl::half_exact,     impl::f32_highest,
                        impl::f32_high,   impl::f32_medium, impl::f32_high_bf16x3};
  for (std::size_t n : {std::size_t{1024}, std::size_t{2048}}) {
    for (unsigned t : {1u, 2u}) {
      const std::string suffix = "/" + std::to_string(n) + "/threads:" + std::to_string(t);
#if MIXPREC_BENCH_SGEMM
      benchmark::RegisterBenchmark(("gemm/sgemm" + suffix).c_str(), bm_sgemm, n, t)
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
#endif
      for (impl im : impls) {
        benchmark::RegisterBenchmark(("gemm/" + std::string(impl_name(im)) + suffix).c_str(), bm_mixprec, im, n, t)
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
      }
    }
  }
}

std::string fast_paths() {
  std::string s;
#if defined(MIXPREC_GEMM_AVX512)
  s += "AVX-512 FMA kernel";
#else
  s += "portable (no AVX-512 at compile time)";
#endif
#if defined(MIXPREC_GEMM_AVX512BF16)
  s += ", AVX-512-BF16 vdpbf16ps kernel";
#else
  s += ", bf16_dot2 emulated";
#endif
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("mixprec gemm", fast_paths());
#if MIXPREC_BENCH_SGEMM
  benchmark::AddCustomContext("openblas", openblas_get_config());
#endif
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
