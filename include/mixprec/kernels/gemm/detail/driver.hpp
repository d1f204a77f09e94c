// SPDX-License-Identifier: MIT
// mixprec/kernels/gemm/detail/driver.hpp — argument checks and the choice of path of the host gemm.
//
// What: detail::gemm::setup (checks, std::invalid_argument naming the problem, and the normalized
// problem), host_simd (the SIMD path's choices: dot2, A or B in place, tile width) and host (the
// host computation: SIMD where it has a path, else portable).
#ifndef MIXPREC_KERNELS_GEMM_DETAIL_DRIVER_HPP
#define MIXPREC_KERNELS_GEMM_DETAIL_DRIVER_HPP

#include "../../../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/kernels/gemm/detail/driver.hpp
#include "../../../core/detail/needs_exceptions.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "../../../core/random.hpp"
#include "../../../core/types.hpp"
#include "../../exec.hpp"
#include "../../matmul_precision.hpp"
#include "../options.hpp"
#include "blocked.hpp"
#include "blocking.hpp"
#include "dot2.hpp"
#include "microkernel.hpp"
#include "panel.hpp"
#include "portable.hpp"
#include "scalar.hpp"
#include "store.hpp"
#include "vec.hpp"

namespace mixprec {
namespace detail {
namespace gemm {

#if defined(MIXPREC_GEMM_SIMD)
/// The SIMD path for this problem; false when it has none (then the portable path runs).
template <class Acc, class TA, class TB, class TC>
bool host_simd(const problem<Acc, TA, TB, TC>& pr, unsigned threads) {
  constexpr std::size_t MR = tile_mr;
  // Below parallel_min (2^19) multiply-adds, a few microseconds on one core, waking other threads
  // costs more than it saves: run on the calling thread (the result does not depend on it).
  if (static_cast<double>(pr.m) * static_cast<double>(pr.n) * static_cast<double>(pr.k) <
      static_cast<double>(blocking_sizes().parallel_min)) {
    threads = 1;
  }
#if defined(MIXPREC_GEMM_AVX512BF16)
  if constexpr (std::is_same<Acc, float>::value && ((std::is_same<TA, TB>::value && dot2_operand<TA>::value) ||
                                                    (dot2_fp8<TA>::value && dot2_fp8<TB>::value))) {
    if (pr.kind == step_kind::dot2) {  // (bfloat16 A and B: setup)
      host_dot2(dot2_problem(pr), dot2_src{pr.a, pr.a_is, pr.a_ps, dot2_src::bf16},
                dot2_src{pr.b, pr.b_js, pr.b_ps, dot2_src::bf16}, threads);
      return true;
    }
    if (dot2_auto(pr, threads)) return true;
  }
#endif
  if (pr.kind == step_kind::dot2) return false;
  auto panel_a = [&](std::size_t i, std::size_t rows, Acc* dst) {
    copy_panel(pr.a + i * pr.a_is, pr.a_is, pr.a_ps, rows, MR, pr.k, dst, MR, pr.kind, pr.input, pr.x3_a_first);
  };
  const std::size_t kk = pr.kind == step_kind::x3 ? 3 * pr.k : pr.k;
  if constexpr (std::is_same<Acc, float>::value) {
    // B read in place (row-major op(B), n contiguous, a vector type with no input conversion)
    // where a panel copy would not pay: its slivers serve at most two A slivers (m <= 2*MR: the weight
    // gradient of a 10-class layer, m = 10), or k is short (k <= 16: the sliver stays in L1).
    // Only full-width slivers; the last partial one is copied.
    bool direct_b = false;
    if constexpr (direct_b_type<TB>::value) {
      direct_b = pr.kind == step_kind::fma && (!std::is_same<TB, float>::value || pr.input == input_mode::as_is) &&
                 pr.b_js == 1 && (pr.m <= 2 * MR || pr.k <= 16);
    }
    const bool vec_store = vec_store_ok(pr);
    auto run = [&](auto nr_constant) {
      constexpr std::size_t NR = decltype(nr_constant)::value;
      constexpr std::size_t V = NR / vw;
      // A read in place (float, k contiguous, no input conversion) where each A sliver meets one
      // B sliver (n <= NR: a 10-class layer's forward pass), so that copying it is not repaid.
      // Full slivers only (the last partial one is copied, its padding rows zero).
      bool direct_a = false;
      if constexpr (std::is_same<TA, float>::value) {
        direct_a = pr.kind == step_kind::fma && pr.input == input_mode::as_is && pr.a_ps == 1 && pr.n <= NR;
      }
      auto panel_a_run = [&](std::size_t i, std::size_t rows, float* dst) {
        if (direct_a && rows == MR) return;  // read in place
        panel_a(i, rows, dst);
      };
      auto panel_b = [&](std::size_t j, std::size_t cols, float* dst) {
        if (direct_b && cols == NR) return;  // read in place
        copy_panel(pr.b + j * pr.b_js, pr.b_js, pr.b_ps, cols, NR, pr.k, dst, NR, pr.kind, pr.input, !pr.x3_a_first);
      };
      auto tile = [&](std::size_t kk_, const float* ap, const float* bp, std::size_t i, std::size_t rows, std::size_t j,
                      std::size_t nr) {
        // The tile kernels depend on TB and C's type only (shared by every A type).
        using TCv = typename std::conditional<vec_store_type<TC>::value, TC, float>::type;
        alignas(64) float buf[MR * NR];
        tile_dest<TCv> d{nullptr, 0, pr.alpha, pr.beta, buf};
        if constexpr (vec_store_type<TC>::value) {
          if (vec_store) {
            d.c = pr.c + i * pr.c_is + j;
            d.ldc = pr.c_is;
          }
        }
        auto kernel = [&](auto r_constant) {
          constexpr std::size_t R = decltype(r_constant)::value;
          auto with_a = [&](auto... a_op) {  // A from a panel (no argument) or in place
            if constexpr (direct_b_type<TB>::value) {
              if (direct_b && nr == NR) return tile_f32<R, V>(kk_, ap, pr.b + j, pr.b_ps, rows, nr, d, a_op...);
            }
            return tile_f32<R, V>(kk_, ap, bp, NR, rows, nr, d, a_op...);
          };
          if constexpr (std::is_same<TA, float>::value) {  // (nested: the outer test is not R's)
            if constexpr (R == MR) {
              if (direct_a && rows == MR) return with_a(a_in_place{pr.a + i * pr.a_is, pr.a_is});
            }
          }
          return with_a();
        };
        if (!with_rows<2, MR>(rows, kernel)) store_tile(pr, i, j, rows, nr, buf, NR);
      };
      host_blocked<float, MR, NR>(pr, threads, kk, panel_a_run, panel_b, tile);
    };
    if (pr.n <= vw) {  // narrow C (e.g. a 10-wide output layer): one vector per tile row
      run(std::integral_constant<std::size_t, vw>{});
    } else {
      run(std::integral_constant<std::size_t, tile_nr_f32>{});
    }
  } else {
    constexpr std::size_t NR = tile_nr_f64;
    auto panel_b = [&](std::size_t j, std::size_t cols, Acc* dst) {
      copy_panel(pr.b + j * pr.b_js, pr.b_js, pr.b_ps, cols, NR, pr.k, dst, NR, pr.kind, pr.input, !pr.x3_a_first);
    };
    host_blocked<double, MR, NR>(pr, threads, kk, panel_a, panel_b, buffered_tile<MR, NR>(pr, kernel_f64));
  }
  return true;
}

#endif  // MIXPREC_GEMM_SIMD

/// The host computation: column-major C runs as the row-major C^T = op(B)^T op(A)^T.
template <class Acc, class TA, class TB, class TC>
void host(const problem<Acc, TA, TB, TC>& pr, unsigned threads) {
  if (host_empty_k(pr, threads)) return;
  if (pr.c_js != 1 && pr.c_is == 1) {
    const problem<Acc, TB, TA, TC> t{pr.n,        pr.m,    pr.k,          pr.alpha,      pr.beta,   pr.b,
                                     pr.b_js,     pr.b_ps, pr.a,          pr.a_ps,       pr.a_is,   pr.c,
                                     pr.c_js,     pr.c_is, pr.counter_js, pr.counter_is, pr.offset, pr.rng,
                                     pr.out_mode, pr.kind, pr.input,      !pr.x3_a_first};
    host(t, threads);
    return;
  }
#if defined(MIXPREC_GEMM_SIMD)
  if (host_simd(pr, threads)) return;
#endif
  host_portable(pr, threads);
}

/// What setup computes beyond the arguments: the strides of the normalized problem, its step
/// kind and input conversion.
struct setup_layout {
  std::size_t a_is, a_ps, b_ps, b_js, c_is, c_js, counter_is, counter_js;
  step_kind kind;
  input_mode input;
};

/// setup's checks (std::invalid_argument naming the problem) and layout, shared by every element
/// type: the types enter as flags (bf16_ab: A and B bfloat16; acc_float: Acc float; float_ab:
/// A or B float), the pointers as whether they are null.
inline setup_layout setup_checks(transpose op_a, transpose op_b, std::size_t m, std::size_t n, std::size_t k,
                                 bool a_null, std::size_t lda, bool b_null, std::size_t ldb, bool c_null,
                                 std::size_t ldc, const gemm_options& opts, bool bf16_ab, bool acc_float,
                                 bool float_ab) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("mixprec::gemm: " + what); };
  auto check_op = [&](transpose t, const char* name) {
    if (t != transpose::none && t != transpose::trans) fail(std::string("invalid transpose value for ") + name);
  };
  check_op(op_a, "op_a");
  check_op(op_b, "op_b");
  if (opts.order != layout::row_major && opts.order != layout::col_major) fail("invalid layout value");
  if (opts.algorithm != gemm_algorithm::exact && opts.algorithm != gemm_algorithm::bf16_dot2) {
    fail("invalid algorithm value");
  }
  if (!is_valid(opts.output_rounding)) {
    fail("invalid output rounding value");
  }
  if (!is_valid(opts.generator)) fail("invalid generator value (splitmix64 or philox4x32_10)");
  const bool row = opts.order == layout::row_major;
  // Stored shapes: A is (m x k) or (k x m), B is (k x n) or (n x k), C is m x n.
  const bool ta = op_a == transpose::trans, tb = op_b == transpose::trans;
  const std::size_t a_rows = ta ? k : m, a_cols = ta ? m : k;
  const std::size_t b_rows = tb ? n : k, b_cols = tb ? k : n;
  auto check_ld = [&](const char* name, std::size_t ld, std::size_t rows, std::size_t cols) {
    const std::size_t need = row ? cols : rows;
    if (ld < need) {
      fail(std::string(name) + " = " + std::to_string(ld) + " is smaller than the " + (row ? "row" : "column") +
           " length " + std::to_string(need) + " of the stored " + std::to_string(rows) + " x " + std::to_string(cols) +
           (row ? " row-major" : " column-major") + " matrix");
    }
  };
  check_ld("lda", lda, a_rows, a_cols);
  check_ld("ldb", ldb, b_rows, b_cols);
  check_ld("ldc", ldc, m, n);
  if (a_null && m != 0 && k != 0)
    fail("A is a null pointer but op(A) is " + std::to_string(m) + " x " + std::to_string(k));
  if (b_null && k != 0 && n != 0)
    fail("B is a null pointer but op(B) is " + std::to_string(k) + " x " + std::to_string(n));
  if (c_null && m != 0 && n != 0) fail("C is a null pointer but C is " + std::to_string(m) + " x " + std::to_string(n));

  step_kind kind = step_kind::fma;
  input_mode input = input_mode::as_is;
  if (opts.algorithm == gemm_algorithm::bf16_dot2) {
    if (!bf16_ab) fail("gemm_algorithm::bf16_dot2 needs bfloat16 A and B");
    if (!acc_float) fail("gemm_algorithm::bf16_dot2 accumulates in float (Acc must be float)");
    kind = step_kind::dot2;
  } else if (float_ab) {
    switch (float32_matmul_precision()) {
      case matmul_precision::medium:
        input = input_mode::bf16;
        break;
      case matmul_precision::high:
        switch (float32_matmul_high_mode()) {
          case matmul_high_mode::tf32_nearest_even:
            input = input_mode::tf32_even;
            break;
          case matmul_high_mode::bf16x3:
            kind = step_kind::x3;
            break;
          default:
            input = input_mode::tf32_away;
            break;
        }
        break;
      default:
        break;
    }
  }
  const std::size_t a_is = (row != ta) ? lda : 1, a_ps = (row != ta) ? 1 : lda;
  const std::size_t b_ps = (row != tb) ? ldb : 1, b_js = (row != tb) ? 1 : ldb;
  const std::size_t c_is = row ? ldc : 1, c_js = row ? 1 : ldc;
  const std::size_t counter_is = row ? n : 1, counter_js = row ? 1 : m;
  return setup_layout{a_is, a_ps, b_ps, b_js, c_is, c_js, counter_is, counter_js, kind, input};
}

/// Checks the arguments (std::invalid_argument naming the problem) and normalizes them.
template <class Acc, class TA, class TB, class TC>
problem<Acc, TA, TB, TC> setup(transpose op_a, transpose op_b, std::size_t m, std::size_t n, std::size_t k, Acc alpha,
                               const TA* A, std::size_t lda, const TB* B, std::size_t ldb, Acc beta, TC* C,
                               std::size_t ldc, const gemm_options& opts) {
  const auto [a_is, a_ps, b_ps, b_js, c_is, c_js, counter_is, counter_js, kind, input] =
      setup_checks(op_a, op_b, m, n, k, A == nullptr, lda, B == nullptr, ldb, C == nullptr, ldc, opts,
                   std::is_same<TA, bfloat16>::value && std::is_same<TB, bfloat16>::value,
                   std::is_same<Acc, float>::value, std::is_same<TA, float>::value || std::is_same<TB, float>::value);
  const sr_rng rng(opts.generator, opts.seed);
  const std::uint64_t offset = opts.offset;
  const rounding out = opts.output_rounding;
  return problem<Acc, TA, TB, TC>{m, n,    k,    alpha,      beta,       A,      a_is, a_ps, B,    b_ps,  b_js,
                                  C, c_is, c_js, counter_is, counter_js, offset, rng,  out,  kind, input, true};
}

/// The thread count of a policy (exec::par's, or 1).
template <class P>
unsigned thread_count(const P& policy) noexcept {
  if constexpr (std::is_same<P, exec::parallel_policy>::value) {
    return threads_of(policy);
  } else {
    return 1;
  }
}

}  // namespace gemm
}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_KERNELS_GEMM_DETAIL_DRIVER_HPP
