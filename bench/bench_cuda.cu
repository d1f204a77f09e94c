// mixprec — the exec::cuda kernels on a GPU, against the data-movement limit and CUDA's own peers.
// SPDX-License-Identifier: MIT
//
// A standalone program (no Google Benchmark: the times are GPU times from CUDA events). Each row
// runs one kernel on device memory, reps times after a warm-up, and reports the minimum time, the
// bytes it must move per second, and two ratios:
//   ÷ copy   its bandwidth over cudaMemcpy device-to-device moving the same bytes (the limit);
//   ÷ peer   its speed over CUDA's own way of doing the same thing (the cuda_fp16 / cuda_bf16 /
//            cuda_fp8 intrinsics in a grid-stride kernel, cuBLAS for GEMM), where one exists.
// Where mixprec and the peer promise the same result, the program also compares the outputs and
// prints how many elements differ (NaN payloads aside): the bit-identity claim, on the GPU.
//
//   bench_cuda [--n ELEMENTS] [--reps R] [--gemm N]
#include <mixprec/kernels.hpp>
#include <mixprec/types.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#if defined(MIXPREC_BENCH_HAVE_CUBLAS)
#include <cublas_v2.h>
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace mp = mixprec;

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "bench_cuda: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(2);
  }
}

/// A device buffer of n T.
template <class T>
struct dbuf {
  T* p = nullptr;
  std::size_t n = 0;
  explicit dbuf(std::size_t count) : n(count) { check(cudaMalloc(reinterpret_cast<void**>(&p), count * sizeof(T)), "cudaMalloc"); }
  dbuf(const dbuf&) = delete;
  dbuf& operator=(const dbuf&) = delete;
  ~dbuf() { cudaFree(p); }
  mp::span<T> span() const { return mp::span<T>(p, n); }
  mp::span<const T> cspan() const { return mp::span<const T>(p, n); }
  void upload(const std::vector<T>& v) { check(cudaMemcpy(p, v.data(), n * sizeof(T), cudaMemcpyHostToDevice), "upload"); }
  std::vector<T> download() const {
    std::vector<T> v(n);
    check(cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), "download");
    return v;
  }
};

int g_reps = 20;

/// The minimum time of f() in milliseconds over g_reps runs (after two warm-up runs).
template <class F>
double time_ms(F&& f) {
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "cudaEventCreate");
  check(cudaEventCreate(&b), "cudaEventCreate");
  f();
  f();
  check(cudaDeviceSynchronize(), "warm-up");
  float best = 1e30f;
  for (int r = 0; r < g_reps; ++r) {
    check(cudaEventRecord(a), "cudaEventRecord");
    f();
    check(cudaEventRecord(b), "cudaEventRecord");
    check(cudaEventSynchronize(b), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    best = std::min(best, ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return best;
}

/// GB/s of a device-to-device copy of `bytes` (read + written: 2 * bytes moved), cached per size.
double copy_gbps(std::size_t bytes) {
  static std::vector<std::pair<std::size_t, double>> cache;
  for (const auto& c : cache)
    if (c.first == bytes) return c.second;
  dbuf<unsigned char> s(bytes), d(bytes);
  check(cudaMemset(s.p, 1, bytes), "cudaMemset");
  const double ms = time_ms([&] { check(cudaMemcpyAsync(d.p, s.p, bytes, cudaMemcpyDeviceToDevice), "copy"); });
  const double gbps = 2.0 * static_cast<double>(bytes) / (ms * 1e6);
  cache.emplace_back(bytes, gbps);
  return gbps;
}

/// One table row. moved: bytes read + written; peer_ms <= 0: no peer.
/// moved <= 0: a compute-bound row (no bandwidth columns).
void row(const std::string& what, std::size_t n, double ms, double moved, double peer_ms, const std::string& note) {
  std::printf("| %-44s | %10zu | %9.1f |", what.c_str(), n, ms * 1000.0);
  if (moved > 0) {
    const double gbps = moved / (ms * 1e6);
    std::printf(" %7.0f | %5.2f |", gbps, gbps / copy_gbps(static_cast<std::size_t>(moved / 2)));
  } else {
    std::printf("       - |     - |");
  }
  if (peer_ms > 0) {
    std::printf(" %5.2f |", peer_ms / ms);
  } else {
    std::printf("     - |");
  }
  std::printf(" %s\n", note.c_str());
  std::fflush(stdout);
}

template <class T>
std::uint64_t bits(const T& x) {
  std::uint64_t u = 0;
  std::memcpy(&u, &x, sizeof(T));
  return u;
}

/// "same bits" or "N differ", NaN payloads aside (nan(x) tells whether an element is NaN).
template <class A, class B, class IsNan>
std::string compare(const std::vector<A>& a, const std::vector<B>& b, IsNan nan) {
  static_assert(sizeof(A) == sizeof(B), "same sizes");
  std::size_t bad = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (bits(a[i]) != bits(b[i]) && !(nan(bits(a[i])) && nan(bits(b[i])))) ++bad;
  return bad == 0 ? "same bits as the peer" : std::to_string(bad) + " elements differ from the peer";
}

// ---- CUDA's own conversions, one element per thread, grid-stride ---------------------------------

template <class F>
__global__ void map_kernel(std::size_t n, F f) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(blockDim.x) * gridDim.x)
    f(i);
}

template <class F>
void launch_map(std::size_t n, F f) {
  const unsigned threads = 256;
  const std::size_t want = (n + threads - 1) / threads;
  map_kernel<<<static_cast<unsigned>(std::min<std::size_t>(want, 65535u * 16u)), threads>>>(n, f);
  check(cudaGetLastError(), "peer launch");
}

struct peer_f2h {
  const float* x;
  __half* y;
  __device__ void operator()(std::size_t i) const { y[i] = __float2half_rn(x[i]); }
};
struct peer_f2bf {
  const float* x;
  __nv_bfloat16* y;
  __device__ void operator()(std::size_t i) const { y[i] = __float2bfloat16_rn(x[i]); }
};
struct peer_f2e4m3 {
  const float* x;
  __nv_fp8_storage_t* y;
  __device__ void operator()(std::size_t i) const { y[i] = __nv_cvt_float_to_fp8(x[i], __NV_SATFINITE, __NV_E4M3); }
};
struct peer_h2f {
  const __half* x;
  float* y;
  __device__ void operator()(std::size_t i) const { y[i] = __half2float(x[i]); }
};

std::vector<float> inputs(std::size_t n) {
  std::vector<float> v(n);
  std::mt19937 g(1);
  std::normal_distribution<float> d(0.0f, 100.0f);
  for (auto& x : v) x = d(g);
  return v;
}

void bench_convert(std::size_t n) {
  const std::vector<float> h = inputs(n);
  dbuf<float> x(n);
  x.upload(h);
  const auto nan32 = [](std::uint64_t) { return false; };
  {
    dbuf<mp::half> y(n);
    dbuf<__half> z(n);
    const double ms = time_ms([&] { mp::convert(mp::exec::cuda, x.cspan(), y.span()); });
    const double pm = time_ms([&] { launch_map(n, peer_f2h{x.p, z.p}); });
    row("convert float -> half (nearest even)", n, ms, 6.0 * n, pm, compare(y.download(), z.download(), nan32));
  }
  {
    dbuf<mp::bfloat16> y(n);
    dbuf<__nv_bfloat16> z(n);
    const double ms = time_ms([&] { mp::convert(mp::exec::cuda, x.cspan(), y.span()); });
    const double pm = time_ms([&] { launch_map(n, peer_f2bf{x.p, z.p}); });
    row("convert float -> bfloat16 (nearest even)", n, ms, 6.0 * n, pm, compare(y.download(), z.download(), nan32));
    const double sr = time_ms([&] {
      mp::convert(mp::exec::cuda, x.cspan(), y.span(), mp::rounding::stochastic, mp::overflow::ieee, 7, 0);
    });
    row("convert float -> bfloat16 (stochastic)", n, sr, 6.0 * n, -1, "counter_rng bits per element");
  }
  {
    dbuf<mp::float8_e4m3fn> y(n);
    dbuf<__nv_fp8_storage_t> z(n);
    const double ms = time_ms([&] {
      mp::convert(mp::exec::cuda, x.cspan(), y.span(), mp::rounding::nearest_even, mp::overflow::saturate);
    });
    const double pm = time_ms([&] { launch_map(n, peer_f2e4m3{x.p, z.p}); });
    row("convert float -> float8_e4m3fn (saturate)", n, ms, 5.0 * n, pm, compare(y.download(), z.download(), nan32));
  }
  {
    std::vector<mp::half> hh(n);
    for (std::size_t i = 0; i < n; ++i) hh[i] = mp::half::from_bits(static_cast<std::uint16_t>(i * 2654435761u >> 16));
    dbuf<mp::half> x16(n);
    x16.upload(hh);
    dbuf<float> y(n), z(n);
    const double ms = time_ms([&] { mp::convert(mp::exec::cuda, x16.cspan(), y.span()); });
    const double pm = time_ms([&] { launch_map(n, peer_h2f{reinterpret_cast<const __half*>(x16.p), z.p}); });
    const auto nanf = [](std::uint64_t u) { return (u & 0x7fffffffu) > 0x7f800000u; };
    row("convert half -> float (every pattern)", n, ms, 6.0 * n, pm, compare(y.download(), z.download(), nanf));
  }
}

void bench_elementwise(std::size_t n) {
  const std::vector<float> h = inputs(n);
  dbuf<float> x(n), y(n);
  x.upload(h);
  y.upload(h);
  dbuf<mp::half> yh(n);
  mp::convert(mp::exec::cuda, x.cspan(), yh.span());
  row("axpy float x, half y", n, time_ms([&] { mp::axpy(mp::exec::cuda, 0.5, x.cspan(), yh.span()); }), 8.0 * n, -1,
      "");
  row("scale float", n, time_ms([&] { mp::scale(mp::exec::cuda, 1.0, y.span()); }), 8.0 * n, -1, "");
  row("sum float (fixed block order)", n, time_ms([&] { (void)mp::sum(mp::exec::cuda, x.cspan()); }), 4.0 * n, -1,
      "includes the copy of the partials to the host");
  row("amax float", n, time_ms([&] { (void)mp::amax(mp::exec::cuda, x.cspan()); }), 4.0 * n, -1,
      "includes the copy of the partials to the host");
  row("unscale_and_check float (inv_scale 1)", n, time_ms([&] {
        (void)mp::unscale_and_check(mp::exec::cuda, y.span(), 1.0f);
      }),
      4.0 * n, -1, "read only: inv_scale 1 writes nothing");
  dbuf<float> z(n);
  z.upload(h);
  row("unscale_and_check float (inv_scale 2^-10)", n, time_ms([&] {
        (void)mp::unscale_and_check(mp::exec::cuda, z.span(), 1.0f);
        mp::device_flag f = mp::unscale_and_check(mp::exec::cuda, z.span(), 0.0009765625f);
        (void)f;
      }),
      12.0 * n, -1, "with one read-only pass before it");
}

template <class W, class S>
void bench_adamw(const char* what, std::size_t n, mp::rounding mode) {
  dbuf<W> p(n);
  dbuf<float> g(n);
  dbuf<S> m(n), v(n);
  std::vector<float> h = inputs(n);
  g.upload(h);
  mp::convert(mp::exec::cuda, g.cspan(), p.span());
  check(cudaMemset(m.p, 0, n * sizeof(S)), "memset");
  check(cudaMemset(v.p, 0, n * sizeof(S)), "memset");
  mp::adam_options o;
  o.weight_decay = 0.01f;
  mp::update_rounding ur;
  ur.mode = mode;
  ur.seed = 3;
  std::int64_t step = 1;
  const double ms = time_ms([&] {
    mp::adamw_step(mp::exec::cuda, p.span(), g.cspan(), m.span(), v.span(), step, o, ur);
    ++step;
  });
  const double moved = static_cast<double>(n) * (2.0 * sizeof(W) + 4.0 + 4.0 * sizeof(S));
  row(what, n, ms, moved, -1, "");
}

void bench_softmax(std::size_t rows, std::size_t cols) {
  const std::size_t n = rows * cols;
  dbuf<float> x(n), y(n);
  x.upload(inputs(n));
  const double ms = time_ms([&] { mp::softmax(mp::exec::cuda, x.p, y.p, rows, cols); });
  row("softmax float rows x " + std::to_string(cols), n, ms, 8.0 * n, -1, "");
}

template <class T>
void bench_gemm(const char* what, std::size_t N) {
  const std::size_t n = N * N;
  dbuf<T> a(n), b(n);
  dbuf<float> c(n);
  {
    dbuf<float> f(n);
    f.upload(inputs(n));
    mp::convert(mp::exec::cuda, f.cspan(), a.span());
    mp::convert(mp::exec::cuda, f.cspan(), b.span());
  }
  const int saved = g_reps;
  g_reps = 3;
  const double ms = time_ms([&] {
    mp::gemm<float>(mp::exec::cuda, mp::transpose::none, mp::transpose::none, N, N, N, 1.0f, a.p, N, b.p, N, 0.0f, c.p,
                    N);
  });
  double peer = -1;
  std::string note = std::to_string(2.0 * N * N * N / (ms * 1e9)).substr(0, 6) + " TFLOP/s";
#if defined(MIXPREC_BENCH_HAVE_CUBLAS)
  {
    cublasHandle_t hnd;
    if (cublasCreate(&hnd) == CUBLAS_STATUS_SUCCESS) {
      cublasSetMathMode(hnd, CUBLAS_PEDANTIC_MATH);  // no TF32: float products in float, as mixprec's exact GEMM
      dbuf<float> c2(n);
      const float one = 1.0f, zero = 0.0f;
      const cudaDataType_t ty = sizeof(T) == 4 ? CUDA_R_32F : CUDA_R_16F;
      const int Ni = static_cast<int>(N);
      // Row-major C = A B is column-major C^T = B^T A^T: pass B first.
      peer = time_ms([&] {
        cublasGemmEx(hnd, CUBLAS_OP_N, CUBLAS_OP_N, Ni, Ni, Ni, &one, b.p, ty, Ni, a.p, ty, Ni, &zero, c2.p, CUDA_R_32F,
                     Ni, CUBLAS_COMPUTE_32F_PEDANTIC, CUBLAS_GEMM_DEFAULT);
      });
      cublasDestroy(hnd);
      note += ", cuBLAS " + std::to_string(2.0 * N * N * N / (peer * 1e9)).substr(0, 6) + " TFLOP/s (pedantic fp32)";
    }
  }
#endif
  g_reps = saved;
  row(std::string(what) + " " + std::to_string(N) + "^3", n, ms, 0.0, peer, note);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t n = std::size_t(1) << 26;
  std::size_t gemm_n = 2048;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    const long long v = std::atoll(argv[i + 1]);
    if (v <= 0) {
      std::fprintf(stderr, "bench_cuda: %s needs a positive number\n", a.c_str());
      return 2;
    }
    if (a == "--n") {
      n = static_cast<std::size_t>(v);
    } else if (a == "--reps") {
      g_reps = static_cast<int>(std::min<long long>(v, 1000));
    } else if (a == "--gemm") {
      gemm_n = static_cast<std::size_t>(std::min<long long>(v, 16384));
    } else {
      std::fprintf(stderr, "usage: bench_cuda [--n ELEMENTS] [--reps R] [--gemm N]\n");
      return 2;
    }
  }
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
    std::printf("bench_cuda: no CUDA device\n");
    return 0;
  }
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  std::printf("device: %s (sm_%d%d, %d SMs, %.0f MiB L2), driver %d, runtime %d; min of %d reps\n", prop.name,
              prop.major, prop.minor, prop.multiProcessorCount, prop.l2CacheSize / 1048576.0, driver, runtime, g_reps);
  std::printf("\n| kernel | elements | µs | GB/s | ÷ copy | ÷ peer | notes |\n|---|--:|--:|--:|--:|--:|---|\n");
  bench_convert(n);
  bench_elementwise(n);
  bench_adamw<float, float>("adamw_step float (nearest even)", n / 2, mp::rounding::nearest_even);
  bench_adamw<mp::bfloat16, mp::bfloat16>("adamw_step bfloat16 params+states", n / 2, mp::rounding::nearest_even);
  bench_adamw<mp::bfloat16, mp::bfloat16>("adamw_step bfloat16 (stochastic)", n / 2, mp::rounding::stochastic);
  bench_softmax(n / 1024, 1024);
  bench_gemm<float>("gemm float, float C (exact)", gemm_n);
  bench_gemm<mp::half>("gemm half in, float C (exact)", gemm_n);
  return 0;
}
