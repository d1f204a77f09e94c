// mixprec — gemm under exec::cuda gives the same bits as under exec::seq on the host.
// SPDX-License-Identifier: MIT
//
// A standalone CUDA program (no doctest). For a set of problems — awkward sizes, every
// transpose and both layouts, leading dimensions above the minimum, alpha/beta, bfloat16 / half /
// float / double / float8 elements, float and double accumulation, the float32 matmul precision
// modes (tf32 nearest-away and nearest-even, bfloat16, bf16x3), bf16_dot2 (subnormal inputs and
// tiny steps flushed), every output rounding mode including stochastic — it runs gemm with
// exec::cuda on managed memory and with exec::seq on host copies and compares C bit for bit
// (NaN with NaN; payloads are unspecified).
//
// Without a CUDA device it prints "SKIPPED: no CUDA device" and
// "test_cuda_gemm: 0 passed, 0 failed, 1 skipped" and exits 0. With one it prints
// "test_cuda_gemm: N passed, M failed" and exits 1 when M > 0.
#include <mixprec/kernels/gemm.hpp>
#include <mixprec/types.hpp>

#include <cuda_runtime.h>

#include "harness.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace mp = mixprec;

namespace {

using cuda_harness::report;

template <class T>
T* managed(std::size_t count) {
  T* p = nullptr;
  if (cudaMallocManaged(reinterpret_cast<void**>(&p), (count == 0 ? 1 : count) * sizeof(T)) != cudaSuccess) {
    std::printf("cudaMallocManaged failed\n");
    std::exit(2);
  }
  return p;
}

template <class T>
double to_d(T x) {
  return static_cast<double>(x);
}
template <class T>
T from_d(double x) {
  if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value) {
    return static_cast<T>(x);
  } else {
    return T(x);
  }
}
template <class T>
bool same(T x, T y) {
  const double dx = to_d(x), dy = to_d(y);
  if (dx != dx && dy != dy) return true;
  return std::memcmp(&x, &y, sizeof(T)) == 0;
}

/// One problem: random A, B, C (with padding), gemm on the device and on the host, compare C.
template <class Acc, class TA, class TB, class TC>
void check(const char* name, mp::transpose oa, mp::transpose ob, std::size_t m, std::size_t n, std::size_t k,
           Acc alpha, Acc beta, const mp::gemm_options& o, std::uint32_t seed, double tiny_fraction = 0.0) {
  const bool row = o.order == mp::layout::row_major;
  const std::size_t ar = oa == mp::transpose::none ? m : k, ac = oa == mp::transpose::none ? k : m;
  const std::size_t br = ob == mp::transpose::none ? k : n, bc = ob == mp::transpose::none ? n : k;
  const std::size_t lda = (row ? ac : ar) + 2, ldb = (row ? bc : br) + 1, ldc = (row ? n : m) + 3;
  const std::size_t na = (row ? ar : ac) * lda, nb = (row ? br : bc) * ldb, nc = (row ? m : n) * ldc;
  std::mt19937 g(seed);
  std::normal_distribution<double> d;
  std::uniform_real_distribution<double> u(0.0, 1.0);
  auto value = [&]() {
    const double v = d(g);
    return u(g) < tiny_fraction ? std::ldexp(v, u(g) < 0.5 ? -130 : -63) : v;
  };
  TA* A = managed<TA>(na);
  TB* B = managed<TB>(nb);
  TC* C = managed<TC>(nc);
  std::vector<TA> hA(na);
  std::vector<TB> hB(nb);
  std::vector<TC> hC(nc);
  for (std::size_t e = 0; e < na; ++e) A[e] = hA[e] = from_d<TA>(value());
  for (std::size_t e = 0; e < nb; ++e) B[e] = hB[e] = from_d<TB>(value());
  for (std::size_t e = 0; e < nc; ++e) C[e] = hC[e] = from_d<TC>(value());
  mp::gemm<Acc>(mp::exec::cuda, oa, ob, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, o);
  mp::gemm<Acc>(mp::exec::seq, oa, ob, m, n, k, alpha, hA.data(), lda, hB.data(), ldb, beta, hC.data(), ldc, o);
  const cudaError_t e = cudaDeviceSynchronize();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < nc; ++i) bad += same(C[i], hC[i]) ? 0 : 1;
  const std::string what = std::string(name) + " m=" + std::to_string(m) + " n=" + std::to_string(n) +
                            " k=" + std::to_string(k) + " op_a=" + std::to_string(oa == mp::transpose::trans) +
                            " op_b=" + std::to_string(ob == mp::transpose::trans) + " col_major=" +
                            std::to_string(!row) + ": " + std::to_string(bad) + " differ" +
                            (e != cudaSuccess ? std::string(", CUDA error ") + cudaGetErrorString(e) : "");
  report(what, bad == 0 && e == cudaSuccess);
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
}

void run_all() {
  const mp::transpose N = mp::transpose::none, T = mp::transpose::trans;
  struct dims {
    std::size_t m, n, k;
  };
  // The larger sizes span several tiles of the device kernel (128 x 128 for float accumulation,
  // 64 x 64 for double) with partial tiles at both edges and a partial last k slice.
  const dims sizes[] = {{1, 1, 1}, {13, 31, 7}, {29, 67, 45}, {64, 40, 129}, {130, 129, 33}, {200, 300, 70}};
  std::uint32_t seed = 1;
  for (const dims& s : sizes) {
    for (mp::transpose oa : {N, T}) {
      for (mp::transpose ob : {N, T}) {
        for (mp::layout lo : {mp::layout::row_major, mp::layout::col_major}) {
          mp::gemm_options o;
          o.order = lo;
          check<float, mp::bfloat16, mp::half, float>("bf16 x half -> float", oa, ob, s.m, s.n, s.k, 1.0f, 0.0f, o,
                                                      ++seed);
          check<float, float, mp::bfloat16, mp::bfloat16>("float x bf16 -> bf16", oa, ob, s.m, s.n, s.k, -0.75f, 1.5f,
                                                          o, ++seed);
          check<double, double, mp::float8_e4m3fn, double>("double x e4m3 -> double (Acc double)", oa, ob, s.m, s.n,
                                                           s.k, 1.0, 0.5, o, ++seed);
          mp::gemm_options dot2 = o;
          dot2.algorithm = mp::gemm_algorithm::bf16_dot2;
          check<float, mp::bfloat16, mp::bfloat16, float>("bf16_dot2", oa, ob, s.m, s.n, s.k, 1.0f, 0.0f, dot2,
                                                          ++seed, 0.3);
        }
      }
    }
  }
  // float32 matmul precision modes (float operands only).
  const mp::matmul_precision saved_p = mp::float32_matmul_precision();
  const mp::matmul_high_mode saved_h = mp::float32_matmul_high_mode();
  for (mp::matmul_precision p : {mp::matmul_precision::high, mp::matmul_precision::medium}) {
    for (mp::matmul_high_mode h : {mp::matmul_high_mode::tf32_nearest_away, mp::matmul_high_mode::tf32_nearest_even,
                                   mp::matmul_high_mode::bf16x3}) {
      mp::set_float32_matmul_precision(p);
      mp::set_float32_matmul_high_mode(h);
      mp::gemm_options o;
      check<float, float, float, float>("float precision mode", N, T, 29, 67, 45, 1.0f, 0.5f, o, ++seed);
      o.order = mp::layout::col_major;
      check<double, float, mp::half, float>("float x half, Acc double, precision mode", T, N, 29, 67, 45, 1.0, 0.0,
                                            o, ++seed);
    }
  }
  mp::set_float32_matmul_precision(saved_p);
  mp::set_float32_matmul_high_mode(saved_h);
  // Output rounding modes, stochastic included.
  for (mp::rounding r : {mp::rounding::nearest_even, mp::rounding::nearest_away, mp::rounding::toward_zero,
                         mp::rounding::upward, mp::rounding::downward, mp::rounding::to_odd,
                         mp::rounding::stochastic}) {
    mp::gemm_options o;
    o.output_rounding = r;
    o.seed = 99;
    o.offset = 12345;
    check<float, mp::bfloat16, mp::bfloat16, mp::half>("output rounding to half", N, N, 29, 67, 45, 1.0f, 0.25f, o,
                                                      ++seed);
    o.order = mp::layout::col_major;
    check<float, mp::half, mp::half, mp::float8_e5m2>("output rounding to e5m2", N, T, 29, 67, 45, 1.0f, 0.0f, o,
                                                      ++seed);
  }
}

}  // namespace

int main() { return cuda_harness::run("test_cuda_gemm", run_all); }
