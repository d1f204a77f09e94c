// SPDX-License-Identifier: MIT
// bench/bench_gemm.cpp — mixprec::gemm against OpenBLAS cblas_sgemm and oneDNN dnnl_sgemm in the
// same run.
//
//   gemm/<impl>/<shape>/threads:<t>   C (m x n, float, row-major) = op(A) * op(B), beta = 0
//     impl  sgemm           cblas_sgemm on float inputs (peer; openblas_set_num_threads(t)); the
//                           label names the kernel OpenBLAS picked (openblas_get_corename(): Debian's
//                           0.3.21 misdetects recent CPUs, force one with OPENBLAS_CORETYPE=SkylakeX)
//           dnnl_sgemm      oneDNN's dnnl_sgemm (peer, when found at configure time;
//                           omp_set_num_threads(t)) — the f32 GEMM PyTorch's CPU build uses
//           dnnl_bf16       oneDNN's matmul primitive on bfloat16 A and B, float C (the peer of the
//                           bf16_* rows: x_dnnl_bf16); primitive created once per shape and t
//           bf16_exact      mixprec::gemm, bfloat16 A and B, float accumulation, algorithm exact
//                           (sequential k, one fma per step: bit-identical to the naive loop); on
//                           vdpbf16ps where proven the same and this CPU's dot2 tile is faster
//                           (MIXPREC_GEMM_DOT2=auto, docs: "exact on vdpbf16ps"), scan included
//           bf16_exact_off  the same with that path off (MIXPREC_GEMM_DOT2=off): the float kernel
//           f32_bf16val     float A and B holding bfloat16 values ("highest"; the study's FP8 / MX
//                           modes): exact, on vdpbf16ps as bf16_exact; f32_bf16val_off: path off
//           f32_highest_off f32_highest with the path off (f32_highest's scan stops at once)
//           dot2_scan       only the proof scan of bf16_exact (detail::gemm::dot2_min_exponent on
//                           op(A) and op(B))
//           bf16_dot2       the same with gemm_algorithm::bf16_dot2 (vdpbf16ps semantics)
//           bf16_bf16c      bfloat16 A, B and C (the vector bfloat16 store), algorithm exact
//           half_exact      half A and B, algorithm exact
//           f32_highest     float A and B, set_float32_matmul_precision("highest")
//           f32_high        "high": inputs rounded to tf32 (nearest-away) while copied into panels
//           f32_medium      "medium": inputs rounded to bfloat16 (nearest-even) while copied into panels
//           f32_high_bf16x3 "high" with matmul_high_mode::bf16x3 (3 products per step; no target)
//           fp8_wgmma_tc    float8_e4m3fn A and B through the tensor-core preset
//                           hopper_wgmma_fp8_f32 (gemm_options::mma; kernels/tensor_core.hpp),
//                           bit-identical to MMA-Sim; checked against mixprec::mma_dot
//           half_cdna3_tc   half A and B through the AMD preset cdna3_mfma_f16_f32 (groups of 8,
//                           round-down fused sums); checked against mixprec::mma_dot
//     shape n (n x n x n, no transposes: 1024, 2048), or mMxNxK_XY: the study's GEMMs (MLP
//           784-512-256-10, batch 128), X/Y = N or T for op(A)/op(B) (forward N T: W stored
//           out x in; weight gradient T N; input gradient N N)
//     t     1, 2 (mixprec: exec::par(t))
// Counters: GFLOPS = 2 m n k / time (10^9 flop/s); x_sgemm / x_dnnl / x_dnnl_bf16 = the peer's time / this row's
// time for the same shape and t, the peer's time per call taken from its rows that ran before in
// this run (measured on the spot, median of 5, when they are filtered out). Inputs: N(0,1), fixed
// seed; the low-precision inputs are the same values rounded. Before timing, 97 elements of each
// mixprec result are compared with a naive loop of the documented semantics: the label says
// "exact" or "WRONG k/97". Real time is reported (threads).
//
// The peers' worker threads spin for a while after a call; a row that follows a two-thread peer
// row waits 0.3 s (untimed) so that they do not compete with it.
//
// Reproduce: bench/README.md ("GEMM").
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <tuple>
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
#if defined(MIXPREC_BENCH_HAVE_DNNL) && MIXPREC_BENCH_HAVE_DNNL
#include <dnnl.h>
#include <dnnl.hpp>
#include <omp.h>
#define MIXPREC_BENCH_DNNL 1
#else
#define MIXPREC_BENCH_DNNL 0
#endif

namespace {

using clock_type = std::chrono::steady_clock;

/// One GEMM shape: op(A) is m x k, op(B) is k x n; ta / tb: A / B stored transposed.
struct shape {
  std::size_t m, n, k;
  bool ta, tb;
  std::string name() const {
    if (m == n && n == k && !ta && !tb) return std::to_string(n);
    return "m" + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + "_" + (ta ? "T" : "N") +
           (tb ? "T" : "N");
  }
  std::size_t lda() const { return ta ? m : k; }  // row-major stored A: m x k, or k x m
  std::size_t ldb() const { return tb ? k : n; }
  bool operator<(const shape& o) const {
    return std::tie(m, n, k, ta, tb) < std::tie(o.m, o.n, o.k, o.ta, o.tb);
  }
};

struct inputs {
  shape sh;
  std::vector<float> a, b;
  std::vector<mixprec::bfloat16> a_bf16, b_bf16;
  std::vector<float> a_bf16f, b_bf16f;  // the bfloat16 values as float
  std::vector<mixprec::half> a_half, b_half;
  std::vector<mixprec::float8_e4m3fn> a_e4m3, b_e4m3;
};

const inputs& data(const shape& sh) {
  static std::map<shape, std::unique_ptr<inputs>> cache;
  auto& slot = cache[sh];
  if (!slot) {
    slot = std::make_unique<inputs>();
    inputs& in = *slot;
    in.sh = sh;
    std::mt19937 g(static_cast<std::uint32_t>(1234 + sh.m + 7 * sh.n + 13 * sh.k));
    std::normal_distribution<float> d(0.0f, 1.0f);
    in.a.resize(sh.m * sh.k);
    in.b.resize(sh.k * sh.n);
    for (float& x : in.a) x = d(g);
    for (float& x : in.b) x = d(g);
    for (float x : in.a) in.a_bf16.emplace_back(x);
    for (float x : in.b) in.b_bf16.emplace_back(x);
    for (const auto& x : in.a_bf16) in.a_bf16f.push_back(static_cast<float>(x));
    for (const auto& x : in.b_bf16) in.b_bf16f.push_back(static_cast<float>(x));
    for (float x : in.a) in.a_half.emplace_back(x);
    for (float x : in.b) in.b_half.emplace_back(x);
    for (float x : in.a) in.a_e4m3.emplace_back(x);
    for (float x : in.b) in.b_e4m3.emplace_back(x);
  }
  return *slot;
}

enum class peer { openblas, dnnl, dnnl_bf16 };

// A peer's total seconds and calls for (peer, shape, threads), over every invocation of its rows
// in this run (Google Benchmark's iteration-count estimation included): seconds / calls is its
// time per call, dominated by the long final invocations.
struct peer_record {
  double seconds = 0;
  double calls = 0;
};
std::map<std::tuple<peer, shape, unsigned>, peer_record>& peer_times() {
  static std::map<std::tuple<peer, shape, unsigned>, peer_record> t;
  return t;
}
bool peer_may_spin = false;

bool have_peer(peer p) {
  return p == peer::openblas ? MIXPREC_BENCH_SGEMM != 0 : MIXPREC_BENCH_DNNL != 0;
}

#if MIXPREC_BENCH_DNNL
/// oneDNN's bf16 x bf16 -> f32 matmul for one shape and thread count (created with that many
/// OpenMP threads, which some oneDNN kernels fix at creation).
struct dnnl_bf16_matmul {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  dnnl::memory::desc a_md, b_md, c_md;
  dnnl::matmul prim;
  explicit dnnl_bf16_matmul(const shape& sh) {
    using dims = dnnl::memory::dims;
    using dt = dnnl::memory::data_type;
    const auto m = static_cast<dnnl::memory::dim>(sh.m), n = static_cast<dnnl::memory::dim>(sh.n),
               k = static_cast<dnnl::memory::dim>(sh.k);
    a_md = dnnl::memory::desc({m, k}, dt::bf16, sh.ta ? dims{1, m} : dims{k, 1});
    b_md = dnnl::memory::desc({k, n}, dt::bf16, sh.tb ? dims{1, k} : dims{n, 1});
    c_md = dnnl::memory::desc({m, n}, dt::f32, dims{n, 1});
    prim = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_md, c_md), eng));
  }
  void run(const void* a, const void* b, float* c) {
    dnnl::memory am(a_md, eng, const_cast<void*>(a)), bm(b_md, eng, const_cast<void*>(b)), cm(c_md, eng, c);
    prim.execute(strm, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
    strm.wait();
  }
};
dnnl_bf16_matmul& dnnl_bf16_for(const shape& sh, unsigned threads) {
  static std::map<std::pair<shape, unsigned>, std::unique_ptr<dnnl_bf16_matmul>> cache;
  auto& slot = cache[{sh, threads}];
  if (!slot) {
    omp_set_num_threads(static_cast<int>(threads));
    slot = std::make_unique<dnnl_bf16_matmul>(sh);
  }
  return *slot;
}
#endif

void run_peer(peer p, const inputs& in, float* c, unsigned threads) {
  const shape& sh = in.sh;
#if MIXPREC_BENCH_SGEMM
  if (p == peer::openblas) {
    openblas_set_num_threads(static_cast<int>(threads));
    cblas_sgemm(CblasRowMajor, sh.ta ? CblasTrans : CblasNoTrans, sh.tb ? CblasTrans : CblasNoTrans,
                static_cast<int>(sh.m), static_cast<int>(sh.n), static_cast<int>(sh.k), 1.0f, in.a.data(),
                static_cast<int>(sh.lda()), in.b.data(), static_cast<int>(sh.ldb()), 0.0f, c, static_cast<int>(sh.n));
  }
#endif
#if MIXPREC_BENCH_DNNL
  if (p == peer::dnnl) {
    omp_set_num_threads(static_cast<int>(threads));
    dnnl_sgemm(sh.ta ? 'T' : 'N', sh.tb ? 'T' : 'N', static_cast<dnnl_dim_t>(sh.m), static_cast<dnnl_dim_t>(sh.n),
               static_cast<dnnl_dim_t>(sh.k), 1.0f, in.a.data(), static_cast<dnnl_dim_t>(sh.lda()), in.b.data(),
               static_cast<dnnl_dim_t>(sh.ldb()), 0.0f, c, static_cast<dnnl_dim_t>(sh.n));
  }
  if (p == peer::dnnl_bf16) {
    dnnl_bf16_matmul& mm = dnnl_bf16_for(sh, threads);
    omp_set_num_threads(static_cast<int>(threads));
    mm.run(in.a_bf16.data(), in.b_bf16.data(), c);
  }
#endif
  (void)p;
  (void)sh;
  (void)c;
  (void)threads;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

double peer_seconds(peer p, const shape& sh, unsigned threads) {
  if (!have_peer(p)) return 0.0;
  peer_record& t = peer_times()[{p, sh, threads}];
  if (t.calls == 0) {
    const inputs& in = data(sh);
    std::vector<float> c(sh.m * sh.n);
    run_peer(p, in, c.data(), threads);  // warm up
    std::vector<double> reps;
    for (int r = 0; r < 5; ++r) {
      const auto t0 = clock_type::now();
      run_peer(p, in, c.data(), threads);
      reps.push_back(std::chrono::duration<double>(clock_type::now() - t0).count());
    }
    t.seconds = median(reps);
    t.calls = 1;
    peer_may_spin = threads > 1;
  }
  return t.seconds / t.calls;
}

void wait_for_spinning_peers() {
  if (peer_may_spin) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    peer_may_spin = false;
  }
}

void set_counters(benchmark::State& s, const shape& sh, double seconds_per_call) {
  const double flop = 2.0 * static_cast<double>(sh.m) * static_cast<double>(sh.n) * static_cast<double>(sh.k);
  s.counters["GFLOPS"] = benchmark::Counter(flop * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  (void)seconds_per_call;
}
void set_ratio(benchmark::State& s, const char* name, double peer_time, double seconds_per_call) {
  if (peer_time > 0 && seconds_per_call > 0) s.counters[name] = peer_time / seconds_per_call;
}

std::string peer_label(peer p) {
#if MIXPREC_BENCH_SGEMM
  if (p == peer::openblas) return "openblas " + std::string(openblas_get_corename());
#endif
#if MIXPREC_BENCH_DNNL
  if (p == peer::dnnl || p == peer::dnnl_bf16) {
    const dnnl_version_t* v = dnnl_version();
    return std::string(p == peer::dnnl ? "onednn " : "onednn matmul bf16 ") + std::to_string(v->major) + "." +
           std::to_string(v->minor) + "." + std::to_string(v->patch);
  }
#endif
  (void)p;
  return "";
}

void bm_peer(benchmark::State& s, peer p, shape sh, unsigned threads) {
  wait_for_spinning_peers();
  const inputs& in = data(sh);
  std::vector<float> c(sh.m * sh.n);
  run_peer(p, in, c.data(), threads);  // warm up (thread start)
  const auto t0 = clock_type::now();
  for (auto _ : s) {
    run_peer(p, in, c.data(), threads);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  const double seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
  const double per_call = seconds / static_cast<double>(s.iterations());
  peer_record& rec = peer_times()[{p, sh, threads}];
  rec.seconds += seconds;
  rec.calls += static_cast<double>(s.iterations());
  peer_may_spin = threads > 1;
  set_counters(s, sh, per_call);
  set_ratio(s, "x_sgemm", peer_seconds(peer::openblas, sh, threads), per_call);
  set_ratio(s, "x_dnnl", peer_seconds(peer::dnnl, sh, threads), per_call);
  set_ratio(s, "x_dnnl_bf16", peer_seconds(peer::dnnl_bf16, sh, threads), per_call);
  s.SetLabel(peer_label(p));
}

enum class impl {
  bf16_exact,
  bf16_exact_off,
  bf16_dot2,
  bf16_bf16c,
  half_exact,
  f32_highest,
  f32_highest_off,
  f32_bf16val,
  f32_bf16val_off,
  f32_high,
  f32_medium,
  f32_high_bf16x3,
  dot2_scan,
  fp8_wgmma_tc,
  half_cdna3_tc
};
[[maybe_unused]] bool dot2_off(impl im) {
  return im == impl::bf16_exact_off || im == impl::f32_highest_off || im == impl::f32_bf16val_off;
}

/// Runs mixprec::gemm for impl into c (float, or bfloat16 for bf16_bf16c: c_bf16).
void run_mixprec(impl im, const inputs& in, float* c, mixprec::bfloat16* c_bf16, unsigned threads) {
  const shape& sh = in.sh;
  const auto ta = sh.ta ? mixprec::transpose::trans : mixprec::transpose::none;
  const auto tb = sh.tb ? mixprec::transpose::trans : mixprec::transpose::none;
  const auto pol = mixprec::exec::par(threads);
  const std::size_t m = sh.m, n = sh.n, k = sh.k, lda = sh.lda(), ldb = sh.ldb();
  mixprec::gemm_options o;
#if defined(MIXPREC_GEMM_AVX512BF16)
  struct dot2_setting {  // MIXPREC_GEMM_DOT2=off for the *_off rows, restored after the call
    int saved = mixprec::detail::gemm::dot2_mode().load();
    explicit dot2_setting(bool off) {
      if (off) mixprec::detail::gemm::dot2_mode().store(2);
    }
    ~dot2_setting() { mixprec::detail::gemm::dot2_mode().store(saved); }
  } setting(dot2_off(im));
#endif
  switch (im) {
    case impl::dot2_scan: {
#if defined(MIXPREC_GEMM_AVX512BF16)
      using src = mixprec::detail::gemm::dot2_src;
      const int ea = mixprec::detail::gemm::dot2_min_exponent(
          src{in.a_bf16.data(), sh.ta ? std::size_t{1} : lda, sh.ta ? lda : std::size_t{1}, src::bf16}, m, k);
      const int eb = mixprec::detail::gemm::dot2_min_exponent(
          src{in.b_bf16.data(), sh.tb ? ldb : std::size_t{1}, sh.tb ? std::size_t{1} : ldb, src::bf16}, n, k);
      c[0] = static_cast<float>(ea + eb);
#endif
      return;
    }
    case impl::f32_bf16val:
    case impl::f32_bf16val_off:
      mixprec::gemm(pol, ta, tb, m, n, k, 1.0f, in.a_bf16f.data(), lda, in.b_bf16f.data(), ldb, 0.0f, c, n);
      return;
    case impl::bf16_exact:
    case impl::bf16_exact_off:
    case impl::bf16_dot2:
      if (im == impl::bf16_dot2) o.algorithm = mixprec::gemm_algorithm::bf16_dot2;
      mixprec::gemm(pol, ta, tb, m, n, k, 1.0f, in.a_bf16.data(), lda, in.b_bf16.data(), ldb, 0.0f, c, n, o);
      return;
    case impl::bf16_bf16c:
      mixprec::gemm(pol, ta, tb, m, n, k, 1.0f, in.a_bf16.data(), lda, in.b_bf16.data(), ldb, 0.0f, c_bf16, n, o);
      return;
    case impl::half_exact:
      mixprec::gemm(pol, ta, tb, m, n, k, 1.0f, in.a_half.data(), lda, in.b_half.data(), ldb, 0.0f, c, n, o);
      return;
    case impl::fp8_wgmma_tc:
      o.mma = mixprec::mma_preset::hopper_wgmma_fp8_f32;
      mixprec::gemm(pol, ta, tb, m, n, k, 1.0f, in.a_e4m3.data(), lda, in.b_e4m3.data(), ldb, 0.0f, c, n, o);
      return;
    case impl::half_cdna3_tc:
      o.mma = mixprec::mma_preset::cdna3_mfma_f16_f32;
      mixprec::gemm(pol, ta, tb, m, n, k, 1.0f, in.a_half.data(), lda, in.b_half.data(), ldb, 0.0f, c, n, o);
      return;
    default:
      mixprec::set_float32_matmul_precision(im == impl::f32_highest || im == impl::f32_highest_off
                                                ? mixprec::matmul_precision::highest
                                            : im == impl::f32_medium ? mixprec::matmul_precision::medium
                                                                     : mixprec::matmul_precision::high);
      mixprec::set_float32_matmul_high_mode(im == impl::f32_high_bf16x3 ? mixprec::matmul_high_mode::bf16x3
                                                                        : mixprec::matmul_high_mode::tf32_nearest_away);
      mixprec::gemm(pol, ta, tb, m, n, k, 1.0f, in.a.data(), lda, in.b.data(), ldb, 0.0f, c, n);
      mixprec::set_float32_matmul_precision(mixprec::matmul_precision::highest);
      mixprec::set_float32_matmul_high_mode(mixprec::matmul_high_mode::tf32_nearest_away);
      return;
  }
}

/// The documented semantics of element (i, j), written out (the tests check every path fully).
float naive_element(impl im, const inputs& in, std::size_t i, std::size_t j) {
  const shape& sh = in.sh;
  if (im == impl::fp8_wgmma_tc) {  // the preset's scalar model (verified against MMA-Sim by the tests)
    std::vector<mixprec::float8_e4m3fn> ra(sh.k), cb(sh.k);
    for (std::size_t p = 0; p < sh.k; ++p) {
      ra[p] = in.a_e4m3[sh.ta ? p * sh.m + i : i * sh.k + p];
      cb[p] = in.b_e4m3[sh.tb ? j * sh.k + p : p * sh.n + j];
    }
    return mixprec::mma_dot(mixprec::mma_preset::hopper_wgmma_fp8_f32, ra.data(), cb.data(), sh.k, 0.0f);
  }
  if (im == impl::half_cdna3_tc) {
    std::vector<mixprec::half> ra(sh.k), cb(sh.k);
    for (std::size_t p = 0; p < sh.k; ++p) {
      ra[p] = in.a_half[sh.ta ? p * sh.m + i : i * sh.k + p];
      cb[p] = in.b_half[sh.tb ? j * sh.k + p : p * sh.n + j];
    }
    return mixprec::mma_dot(mixprec::mma_preset::cdna3_mfma_f16_f32, ra.data(), cb.data(), sh.k, 0.0f);
  }
  float acc = 0.0f;
  for (std::size_t p = 0; p < sh.k; ++p) {
    const std::size_t ia = sh.ta ? p * sh.m + i : i * sh.k + p;
    const std::size_t ib = sh.tb ? j * sh.k + p : p * sh.n + j;
    switch (im) {
      case impl::bf16_exact:
      case impl::bf16_exact_off:
      case impl::f32_bf16val:
      case impl::f32_bf16val_off:
      case impl::bf16_bf16c:
      case impl::dot2_scan:
      case impl::fp8_wgmma_tc:
      case impl::half_cdna3_tc:
        acc = std::fma(static_cast<float>(in.a_bf16[ia]), static_cast<float>(in.b_bf16[ib]), acc);
        break;
      case impl::bf16_dot2:
        acc = mixprec::detail::gemm::dot2_step(static_cast<float>(in.a_bf16[ia]), static_cast<float>(in.b_bf16[ib]),
                                              acc);
        break;
      case impl::half_exact:
        acc = std::fma(static_cast<float>(in.a_half[ia]), static_cast<float>(in.b_half[ib]), acc);
        break;
      case impl::f32_highest:
      case impl::f32_highest_off: acc = std::fma(in.a[ia], in.b[ib], acc); break;
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

void bm_mixprec(benchmark::State& s, impl im, shape sh, unsigned threads) {
  const inputs& in = data(sh);
  const double sgemm = peer_seconds(peer::openblas, sh, threads);
  const double dnnl = peer_seconds(peer::dnnl, sh, threads);
  const double dnnl_bf16 = peer_seconds(peer::dnnl_bf16, sh, threads);
  wait_for_spinning_peers();
  const std::size_t mn = sh.m * sh.n;
  std::vector<float> c(mn);
  std::vector<mixprec::bfloat16> c_bf16(mn);
  run_mixprec(im, in, c.data(), c_bf16.data(), threads);  // warm up, and the result to verify
  int wrong = 0, checked = 0;
  for (std::size_t e = 0; e < mn && im != impl::dot2_scan; e += mn / 97 + 1, ++checked) {
    const float want = naive_element(im, in, e / sh.n, e % sh.n);
    if (im == impl::bf16_bf16c) {
      wrong += mixprec::bfloat16(want).bits() != c_bf16[e].bits() ? 1 : 0;
    } else {
      wrong += std::memcmp(&want, &c[e], sizeof want) != 0 ? 1 : 0;
    }
  }
  const auto t0 = clock_type::now();
  for (auto _ : s) {
    run_mixprec(im, in, c.data(), c_bf16.data(), threads);
    benchmark::DoNotOptimize(c.data());
    benchmark::DoNotOptimize(c_bf16.data());
    benchmark::ClobberMemory();
  }
  const double per_call =
      std::chrono::duration<double>(clock_type::now() - t0).count() / static_cast<double>(s.iterations());
  set_counters(s, sh, per_call);
  set_ratio(s, "x_sgemm", sgemm, per_call);
  set_ratio(s, "x_dnnl", dnnl, per_call);
  set_ratio(s, "x_dnnl_bf16", dnnl_bf16, per_call);
  if (im == impl::dot2_scan) {
    s.SetLabel(c[0] >= 142.0f ? "proven" : "not proven");
  } else {
    s.SetLabel(wrong == 0 ? std::string("exact") : "WRONG " + std::to_string(wrong) + "/" + std::to_string(checked));
  }
}

const char* impl_name(impl im) {
  switch (im) {
    case impl::bf16_exact: return "bf16_exact";
    case impl::bf16_exact_off: return "bf16_exact_off";
    case impl::f32_highest_off: return "f32_highest_off";
    case impl::f32_bf16val: return "f32_bf16val";
    case impl::f32_bf16val_off: return "f32_bf16val_off";
    case impl::dot2_scan: return "dot2_scan";
    case impl::bf16_dot2: return "bf16_dot2";
    case impl::bf16_bf16c: return "bf16_bf16c";
    case impl::half_exact: return "half_exact";
    case impl::f32_highest: return "f32_highest";
    case impl::f32_high: return "f32_high";
    case impl::f32_medium: return "f32_medium";
    case impl::fp8_wgmma_tc: return "fp8_wgmma_tc";
    case impl::half_cdna3_tc: return "half_cdna3_tc";
    default: return "f32_high_bf16x3";
  }
}

void register_all() {
  const impl square_impls[] = {impl::bf16_exact,  impl::bf16_exact_off, impl::bf16_dot2,        impl::bf16_bf16c,
                               impl::half_exact,  impl::f32_highest,    impl::f32_highest_off,  impl::f32_bf16val,
                               impl::f32_bf16val_off, impl::f32_high,   impl::f32_medium,       impl::f32_high_bf16x3,
                               impl::dot2_scan,   impl::fp8_wgmma_tc,     impl::half_cdna3_tc};
  const impl study_impls[] = {impl::f32_highest, impl::f32_highest_off, impl::bf16_exact, impl::bf16_exact_off,
                              impl::bf16_bf16c,  impl::bf16_dot2,       impl::f32_bf16val, impl::f32_bf16val_off,
                              impl::dot2_scan};
  std::vector<std::pair<shape, bool>> shapes = {{{1024, 1024, 1024, false, false}, true},
                                                {{2048, 2048, 2048, false, false}, true}};
  // The study (batch 128, MLP 784-512-256-10): forward (N T), weight gradient (T N), input gradient (N N).
  const std::size_t layers[][2] = {{784, 512}, {512, 256}, {256, 10}};
  for (const auto& l : layers) shapes.push_back({{128, l[1], l[0], false, true}, false});
  for (const auto& l : layers) shapes.push_back({{l[1], l[0], 128, true, false}, false});
  for (const auto& l : layers) {
    if (l[0] != 784) shapes.push_back({{128, l[0], l[1], false, false}, false});
  }
  for (const auto& entry : shapes) {
    const shape& sh = entry.first;
    for (unsigned t : {1u, 2u}) {
      const std::string suffix = "/" + sh.name() + "/threads:" + std::to_string(t);
      for (peer p : {peer::openblas, peer::dnnl, peer::dnnl_bf16}) {
        if (!have_peer(p)) continue;
        const char* name = p == peer::openblas ? "gemm/sgemm" : p == peer::dnnl ? "gemm/dnnl_sgemm" : "gemm/dnnl_bf16";
        benchmark::RegisterBenchmark((name + suffix).c_str(), bm_peer, p, sh, t)
            ->UseRealTime()
            ->Unit(entry.second ? benchmark::kMillisecond : benchmark::kMicrosecond);
      }
      const impl* begin = entry.second ? std::begin(square_impls) : std::begin(study_impls);
      const impl* end = entry.second ? std::end(square_impls) : std::end(study_impls);
      for (const impl* im = begin; im != end; ++im) {
        benchmark::RegisterBenchmark(("gemm/" + std::string(impl_name(*im)) + suffix).c_str(), bm_mixprec, *im, sh, t)
            ->UseRealTime()
            ->Unit(entry.second ? benchmark::kMillisecond : benchmark::kMicrosecond);
      }
    }
  }
}

std::string fast_paths() {
  std::string s;
#if defined(MIXPREC_GEMM_AVX512)
  s += "AVX-512 FMA kernel (14 x 32)";
#elif defined(MIXPREC_GEMM_AVX2)
  s += "AVX2 FMA kernel (6 x 16)";
#else
  s += "portable (no AVX-512 / AVX2+FMA at compile time)";
#endif
#if defined(MIXPREC_GEMM_AVX512BF16)
  s += ", AVX-512-BF16 vdpbf16ps kernel";
#else
  s += ", bf16_dot2 emulated";
#endif
#if defined(MIXPREC_GEMM_SIMD)  // (the header before the blocking from the CPU's cache has no l2_bytes)
  s += ", L2 " + std::to_string(mixprec::detail::gemm::l2_bytes() >> 10) + " KiB";
#endif
  s += ", A block " + std::to_string(mixprec::detail::gemm::blocking_sizes().a_block >> 10) + " KiB";
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("mixprec gemm", fast_paths());
#if MIXPREC_BENCH_SGEMM
  benchmark::AddCustomContext("openblas", std::string(openblas_get_config()) + " core " + openblas_get_corename());
#endif
#if MIXPREC_BENCH_DNNL
  benchmark::AddCustomContext("onednn", peer_label(peer::dnnl));
#endif
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
