// SPDX-License-Identifier: MIT
// mixprec/kernels/gemm.hpp — C = alpha * op(A) * op(B) + beta * C for any mix of float, double and
// mixprec element types, with a chosen accumulate type, on any execution policy.
//
//   mixprec::gemm(policy, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc[, opts]);
//   mixprec::gemm<double>(...)      // accumulate in double (the default is float)
//
// Contract: op(A) is m x k, op(B) k x n, C m x n, row-major (default) or column-major (opts.order),
// BLAS leading dimensions. Each C(i,j) is acc = fma(a, b, acc) for p = 0..k-1 in Acc from +0, then
// alpha, beta (beta == 0: C not read) and ONE rounding into C's type (opts.output_rounding;
// stochastic bits from counter_rng(opts.seed), or philox_rng with opts.generator): the same bits as that naive loop under every
// policy, thread count and SIMD path. float operands follow float32_matmul_precision();
// gemm_algorithm::bf16_dot2 gives vdpbf16ps's DAZ/FTZ semantics. A short leading dimension, a null
// pointer or bf16_dot2 with non-bfloat16 operands throws std::invalid_argument, C unchanged.
// Semantics, precision modes, bf16_dot2, the x86 kernel: docs/pages/kernels-reference.md#gemm.
//
//   std::vector<mixprec::bfloat16> A(m * k), B(k * n);  std::vector<float> C(m * n);
//   mixprec::gemm(mixprec::exec::par, mixprec::transpose::none, mixprec::transpose::none,
//                 m, n, k, 1.0f, A.data(), k, B.data(), n, 0.0f, C.data(), n);   // C = A B
//
// The code (namespace detail::gemm): gemm/options.hpp (public options), gemm/detail/driver.hpp
// (checks, choice of path) and one concern a header beside it.
#ifndef MIXPREC_KERNELS_GEMM_HPP
#define MIXPREC_KERNELS_GEMM_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/kernels/gemm.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <type_traits>

#include "../core/detail/type_traits.hpp"
#include "../core/types.hpp"
#include "exec.hpp"
#include "gemm/detail/blocking.hpp"
#include "gemm/detail/device.hpp"
#include "gemm/detail/dot2.hpp"
#include "gemm/detail/driver.hpp"
#include "gemm/detail/mma.hpp"
#include "gemm/detail/scalar.hpp"
#include "gemm/options.hpp"

namespace mixprec {

/// C = alpha * op(A) * op(B) + beta * C, accumulated in Acc (float or double); see
/// docs/pages/kernels-reference.md ("GEMM") for the exact semantics. Throws std::invalid_argument on bad
/// arguments (C unchanged).
template <class Acc = float, class Policy, class TA, class TB, class TC>
void gemm(Policy policy, transpose op_a, transpose op_b, std::size_t m, std::size_t n, std::size_t k,
          detail::type_identity_t<Acc> alpha, const TA* A, std::size_t lda, const TB* B, std::size_t ldb,
          detail::type_identity_t<Acc> beta, TC* C, std::size_t ldc, const gemm_options& opts = {}) {
  static_assert(exec::is_execution_policy<Policy>::value, "mixprec::gemm: the first argument must be a policy");
  static_assert(std::is_same<Acc, float>::value || std::is_same<Acc, double>::value,
                "mixprec::gemm: the accumulate type must be float or double");
  static_assert(is_binary_float<TA>::value && is_binary_float<TB>::value && is_binary_float<TC>::value,
                "mixprec::gemm: A, B and C must be float, double or mixprec types");
  static_assert(!std::is_const<TC>::value, "mixprec::gemm: C must be writable");
  const auto pr = detail::gemm::setup<Acc>(op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, opts);
  if (opts.mma != mma_preset::none) {
#if defined(__CUDACC__)
    if constexpr (std::is_same<Policy, exec::cuda_policy>::value) {
      throw std::invalid_argument("mixprec::gemm: tensor-core presets run under exec::seq or exec::par");
    } else
#endif
    {
      detail::gemm::run_mma(pr, opts.mma, detail::gemm::thread_count(policy));
    }
    return;
  }
  if (m == 0 || n == 0) return;
#if defined(__CUDACC__)
  if constexpr (std::is_same<Policy, exec::cuda_policy>::value) {
    detail::gemm::device(policy, pr);
    return;
  } else
#endif
  {
    detail::gemm::host(pr, detail::gemm::thread_count(policy));
  }
}

}  // namespace mixprec

#endif  // MIXPREC_KERNELS_GEMM_HPP
