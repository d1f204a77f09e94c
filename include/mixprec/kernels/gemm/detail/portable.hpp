// SPDX-License-Identifier: MIT
// mixprec/kernels/gemm/detail/portable.hpp — the portable host gemm (no SIMD, and what the SIMD path does not take).
//
// What: detail::gemm::host_portable copies B into column panels and each row of A, then runs the k
// steps 64 columns at a time; host_elementwise runs detail::gemm::element (a test reference).
#ifndef MIXPREC_KERNELS_GEMM_DETAIL_PORTABLE_HPP
#define MIXPREC_KERNELS_GEMM_DETAIL_PORTABLE_HPP

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "blocking.hpp"
#include "panel.hpp"
#include "scalar.hpp"

namespace mixprec {
namespace detail {
namespace gemm {

/// k == 0: C = alpha * 0 (+ beta * C); A and B are not read (and may be null). Returns whether k == 0.
template <class Acc, class TA, class TB, class TC>
bool host_empty_k(const problem<Acc, TA, TB, TC>& pr, unsigned threads) {
  if (pr.k != 0) return false;
  parallel(threads, pr.m, [&](std::size_t i) {
    for (std::size_t j = 0; j < pr.n; ++j) store_element(pr, i, j, Acc(0));
  });
  return true;
}

/// Copies B into column panels (k' x nc, row-major in k') and each row of A (k'), then runs the k'
/// steps for 64 columns at a time.
template <class Acc, class TA, class TB, class TC>
void host_portable(const problem<Acc, TA, TB, TC>& pr, unsigned threads) {
  if (host_empty_k(pr, threads)) return;
  const std::size_t expand = pr.kind == step_kind::x3 ? 3 : 1;
  const std::size_t kk = pr.k * expand;
  const std::size_t panel_bytes = blocking_sizes().portable_panel;
  constexpr std::size_t jw = 64;
  std::size_t nc = std::max<std::size_t>(jw, panel_bytes / (sizeof(Acc) * std::max<std::size_t>(kk, 1)) / jw * jw);
  nc = std::min(nc, pr.n);
  const unsigned nslots = std::max(1u, threads);
  const std::size_t row_len = std::max<std::size_t>(kk, 1);
  auto* scratch = reinterpret_cast<Acc*>(scratch_buffer(sizeof(Acc) * (kk * nc + nslots * row_len)));
  Acc* panel = scratch;
  Acc* rows = scratch + kk * nc;
  slot_pool slots(nslots);
  const bool dot2 = pr.kind == step_kind::dot2;
  constexpr std::size_t rows_per_task = 4;
  const std::size_t tasks = ceil_div(pr.m, rows_per_task);
  for (std::size_t j0 = 0; j0 < pr.n; j0 += nc) {
    const std::size_t w = std::min(nc, pr.n - j0);
    parallel(threads, ceil_div(w, jw), [&](std::size_t t) {
      const std::size_t c0 = t * jw, cw = std::min(jw, w - c0);
      // panel[p*w + j]: X(r = j, p) = B(p, j0 + j).
      copy_panel(pr.b + (j0 + c0) * pr.b_js, pr.b_js, pr.b_ps, cw, cw, pr.k, panel + c0, w, pr.kind, pr.input,
                 !pr.x3_a_first);
    });
    parallel(threads, tasks, [&](std::size_t t) {
      const unsigned slot = slots.acquire();
      Acc* arow = rows + slot * row_len;
      const std::size_t i1 = std::min(pr.m, (t + 1) * rows_per_task);
      for (std::size_t i = t * rows_per_task; i < i1; ++i) {
        copy_panel(pr.a + i * pr.a_is, pr.a_is, pr.a_ps, 1, 1, pr.k, arow, 1, pr.kind, pr.input, pr.x3_a_first);
        for (std::size_t c0 = 0; c0 < w; c0 += jw) {
          const std::size_t cw = std::min(jw, w - c0);
          Acc acc[jw];
          for (std::size_t c = 0; c < jw; ++c) acc[c] = Acc(0);
          if (dot2) {
            if constexpr (std::is_same<Acc, float>::value) {
              for (std::size_t p = 0; p < kk; ++p) {
                const float av = arow[p];
                const float* bp = panel + p * w + c0;
                for (std::size_t c = 0; c < cw; ++c) acc[c] = dot2_step(av, bp[c], acc[c]);
              }
            }
          } else {
            for (std::size_t p = 0; p < kk; ++p) {
              const Acc av = arow[p];
              const Acc* bp = panel + p * w + c0;
              for (std::size_t c = 0; c < cw; ++c) acc[c] = ieee::fma_rn(av, bp[c], acc[c]);
            }
          }
          for (std::size_t c = 0; c < cw; ++c) store_element(pr, i, j0 + c0 + c, acc[c]);
        }
      }
      slots.release(slot);
    });
  }
}

/// Every element by element on the host (a reference for tests; the CUDA path's code).
template <class Acc, class TA, class TB, class TC>
void host_elementwise(const problem<Acc, TA, TB, TC>& pr, unsigned threads) {
  parallel(threads, pr.m, [&](std::size_t i) {
    for (std::size_t j = 0; j < pr.n; ++j) element(pr, i, j);
  });
}

}  // namespace gemm
}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_KERNELS_GEMM_DETAIL_PORTABLE_HPP
