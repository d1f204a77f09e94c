// SPDX-License-Identifier: MIT
// mixprec/kernels/gemm/detail/device.hpp — the CUDA GEMM kernel and its launch (nvcc only; empty elsewhere).
//
// What: detail::gemm::tiled_kernel (shared-memory tiles, every element's chain in order from zero:
// the bits of detail::gemm::element) and device(), which launches it or one thread per element.
#ifndef MIXPREC_KERNELS_GEMM_DETAIL_DEVICE_HPP
#define MIXPREC_KERNELS_GEMM_DETAIL_DEVICE_HPP

#include <cstddef>
#include <type_traits>

#include "../../exec.hpp"
#include "scalar.hpp"

namespace mixprec {
namespace detail {
namespace gemm {

#if defined(__CUDACC__)
/// An element of a shared-memory slice: X(i, p) = x[i*is + p*ps] as the step reads it (dot2:
/// widened; fma: load_input), zero outside rows x k.
template <step_kind Kind, class Acc, class T>
__device__ Acc staged(const T* x, std::size_t is, std::size_t ps, std::size_t i, std::size_t rows, std::size_t p,
                      std::size_t k, input_mode input) {
  if (i >= rows || p >= k) return Acc(0);
  if constexpr (Kind == step_kind::dot2) {
    return gemm::widen<Acc>(x[i * is + p * ps]);
  } else {
    return load_input<Acc>(x[i * is + p * ps], input);
  }
}

/// The device GEMM for step_kind::fma and dot2: a 16 x 16 thread block computes a (16 TM) x
/// (16 TM) tile of C, TM x TM elements per thread (rows ty + 16 r, columns tx + 16 c), staging
/// BK-deep slices of A and B in shared memory, converted to Acc by the same load_input as
/// element. Each element's chain still runs p = 0 .. k-1 in order from zero, so C is bit for
/// bit element's (tests/cuda/test_cuda_gemm.cu).
template <std::size_t TM, std::size_t BK, step_kind Kind, class Acc, class TA, class TB, class TC>
__global__ void __launch_bounds__(256) tiled_kernel(problem<Acc, TA, TB, TC> pr) {
  constexpr std::size_t BM = 16 * TM;
  __shared__ Acc as[BK][BM];
  __shared__ Acc bs[BK][BM];
  const unsigned t = threadIdx.x, tx = t % 16, ty = t / 16;
  const std::size_t i0 = blockIdx.y * BM, j0 = blockIdx.x * BM;
  // Which index varies fastest across threads while loading: the one contiguous in memory.
  const bool a_p_fast = pr.a_ps == 1, b_p_fast = pr.b_ps == 1;
  Acc acc[TM][TM];
  for (std::size_t r = 0; r < TM; ++r)
    for (std::size_t c = 0; c < TM; ++c) acc[r][c] = Acc(0);
  for (std::size_t p0 = 0; p0 < pr.k; p0 += BK) {
    const std::size_t kb = pr.k - p0 < BK ? pr.k - p0 : BK;
    for (std::size_t e = t; e < BK * BM; e += 256) {
      const std::size_t ra = a_p_fast ? e / BK : e % BM, pa = a_p_fast ? e % BK : e / BM;
      as[pa][ra] = staged<Kind, Acc>(pr.a, pr.a_is, pr.a_ps, i0 + ra, pr.m, p0 + pa, pr.k, pr.input);
      const std::size_t cb = b_p_fast ? e / BK : e % BM, pb = b_p_fast ? e % BK : e / BM;
      bs[pb][cb] = staged<Kind, Acc>(pr.b, pr.b_js, pr.b_ps, j0 + cb, pr.n, p0 + pb, pr.k, pr.input);
    }
    __syncthreads();
    for (std::size_t p = 0; p < kb; ++p) {
      Acc ra[TM], rb[TM];
      for (std::size_t r = 0; r < TM; ++r) ra[r] = as[p][ty + 16 * r];
      for (std::size_t c = 0; c < TM; ++c) rb[c] = bs[p][tx + 16 * c];
      for (std::size_t r = 0; r < TM; ++r)
        for (std::size_t c = 0; c < TM; ++c) {
          if constexpr (Kind == step_kind::dot2) {
            acc[r][c] = dot2_step(ra[r], rb[c], acc[r][c]);
          } else {
            acc[r][c] = ieee::fma_rn(ra[r], rb[c], acc[r][c]);
          }
        }
    }
    __syncthreads();
  }
  for (std::size_t r = 0; r < TM; ++r)
    for (std::size_t c = 0; c < TM; ++c) {
      const std::size_t i = i0 + ty + 16 * r, j = j0 + tx + 16 * c;
      if (i < pr.m && j < pr.n) store_element(pr, i, j, acc[r][c]);
    }
}

/// Launches the device GEMM: the tiled kernel for step_kind::fma (and dot2), one thread per
/// element of C for bf16x3 or a grid too tall for the tiled kernel.
template <class Acc, class TA, class TB, class TC>
void device(exec::cuda_policy policy, const problem<Acc, TA, TB, TC>& pr) {
  constexpr std::size_t TM = std::is_same<Acc, float>::value ? 8 : 4, BK = 16, BM = 16 * TM;
  const std::size_t gx = (pr.n + BM - 1) / BM, gy = (pr.m + BM - 1) / BM;
  if (pr.kind == step_kind::x3 || gx > 0x7fffffffu || gy > 65535u) {
    for_each_block(policy, pr.m * pr.n, 1, elements<Acc, TA, TB, TC>{pr});
    return;
  }
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy));
  if (pr.kind == step_kind::dot2) {
    if constexpr (std::is_same<Acc, float>::value) {
      tiled_kernel<TM, BK, step_kind::dot2><<<grid, 256, 0, policy.stream>>>(pr);
    } else {
      for_each_block(policy, pr.m * pr.n, 1, elements<Acc, TA, TB, TC>{pr});
      return;
    }
  } else {
    tiled_kernel<TM, BK, step_kind::fma><<<grid, 256, 0, policy.stream>>>(pr);
  }
  cuda_check(cudaGetLastError(), "kernel launch");
}
#endif

}  // namespace gemm
}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_KERNELS_GEMM_DETAIL_DEVICE_HPP
