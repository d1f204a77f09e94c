// SPDX-License-Identifier: MIT
// mixprec/kernels/gemm/detail/blocked.hpp — the blocked driver of the SIMD gemm: A blocks, shared B panels, threads.
//
// What: detail::gemm::host_blocked copies A by blocks of slivers per task and B by panels shared by
// the threads, and calls a tile operation per (A sliver, B sliver); buffered_tile wraps a kernel
// that writes a buffer.
#ifndef MIXPREC_KERNELS_GEMM_DETAIL_BLOCKED_HPP
#define MIXPREC_KERNELS_GEMM_DETAIL_BLOCKED_HPP

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "blocking.hpp"
#include "scalar.hpp"
#include "store.hpp"
#include "vec.hpp"

namespace mixprec {
namespace detail {
namespace gemm {

#if defined(MIXPREC_GEMM_SIMD)
/// The blocked driver: per task an A block of MR-row slivers (blocking::a_block bytes), a
/// B panel of NR-column slivers shared by the threads (b_panel bytes). P: panel element (Acc, or
/// a uint32 pair for dot2); kk: panel k length. tile(kk, a sliver, b sliver, i, rows, j, nr)
/// computes C(i .. i+rows-1, j .. j+nr-1) and stores it.
template <class P, std::size_t MR, std::size_t NR, class Acc, class TA, class TB, class TC, class PanelA, class PanelB,
          class Tile>
void host_blocked(const problem<Acc, TA, TB, TC>& pr, unsigned threads, std::size_t kk, PanelA panel_a, PanelB panel_b,
                  Tile tile) {
  const std::size_t sliver_a = MR * std::max<std::size_t>(kk, 1);
  const std::size_t sliver_b = NR * std::max<std::size_t>(kk, 1);
  const std::size_t sa = ceil_div(pr.m, MR);  // A slivers
  const std::size_t sb = ceil_div(pr.n, NR);  // B slivers
  const std::size_t per_block = std::max<std::size_t>(1, blocking_sizes().a_block / (sliver_a * sizeof(P)));
  std::size_t blocks = ceil_div(sa, per_block);
  const unsigned nthreads = std::max(1u, threads);
  if (nthreads > 1) blocks = std::min(sa, ceil_div(blocks, nthreads) * nthreads);
  const std::size_t panel = std::min(sb, std::max<std::size_t>(1, blocking_sizes().b_panel / (sliver_b * sizeof(P))));
  // Few A blocks: also split the B panel among tasks; then the whole of A (at most 2 x threads
  // blocks) is copied once, with the first B panel, and shared by the tasks of each block.
  std::size_t groups = 1;
  if (nthreads > 1 && blocks < 2 * std::size_t{nthreads}) {
    groups = std::min(panel, ceil_div(2 * std::size_t{nthreads}, blocks));
  }
  const bool a_once = groups > 1;
  const std::size_t block_slivers = ceil_div(sa, blocks);
  const std::size_t a_slivers = a_once ? sa : std::size_t{nthreads} * block_slivers;
  auto* scratch = reinterpret_cast<P*>(scratch_buffer(sizeof(P) * (panel * sliver_b + a_slivers * sliver_a)));
  P* bpanel = scratch;
  P* ablocks = scratch + panel * sliver_b;
  slot_pool slots(nthreads);
  for (std::size_t t0 = 0; t0 < sb; t0 += panel) {
    const std::size_t tn = std::min(panel, sb - t0);
    // A small panel (a narrow or short B) is copied by the calling thread: no wake-up round.
    const std::size_t na = a_once && t0 == 0 ? sa : 0;  // A slivers copied in this round
    const bool small_panel = (tn * sliver_b + na * sliver_a) * sizeof(P) < (std::size_t{64} << 10);
    parallel(small_panel ? 1u : threads, tn + na, [&](std::size_t t) {
      if (t < tn) {
        const std::size_t j = (t0 + t) * NR;
        panel_b(j, std::min(NR, pr.n - j), bpanel + t * sliver_b);
      } else {
        const std::size_t i = (t - tn) * MR;
        panel_a(i, std::min(MR, pr.m - i), ablocks + (t - tn) * sliver_a);
      }
    });
    parallel(threads, blocks * groups, [&](std::size_t task) {
      const std::size_t blk = task / groups, grp = task % groups;
      const std::size_t s0 = blk * sa / blocks, s1 = (blk + 1) * sa / blocks;
      const std::size_t u0 = grp * tn / groups, u1 = (grp + 1) * tn / groups;
      if (s0 == s1 || u0 == u1) return;
      unsigned slot = 0;
      P* ablock = ablocks + s0 * sliver_a;
      if (!a_once) {
        slot = slots.acquire();
        ablock = ablocks + slot * block_slivers * sliver_a;
        for (std::size_t s = s0; s < s1; ++s) {
          const std::size_t i = s * MR;
          panel_a(i, std::min(MR, pr.m - i), ablock + (s - s0) * sliver_a);
        }
      }
      for (std::size_t u = u0; u < u1; ++u) {
        const std::size_t j = (t0 + u) * NR;
        const std::size_t nr = std::min(NR, pr.n - j);
        for (std::size_t s = s0; s < s1; ++s) {
          const std::size_t i = s * MR;
          tile(kk, ablock + (s - s0) * sliver_a, bpanel + u * sliver_b, i, std::min(MR, pr.m - i), j, nr);
        }
      }
      if (!a_once) slots.release(slot);
    });
  }
}

/// The tile operation of host_blocked for a kernel(kk, ap, bp, tile) that writes an MR x NR
/// buffer: then store_tile.
template <std::size_t MR, std::size_t NR, class Acc, class TA, class TB, class TC, class Kernel>
auto buffered_tile(const problem<Acc, TA, TB, TC>& pr, Kernel kernel) {
  return [&pr, kernel](std::size_t kk, const auto* ap, const auto* bp, std::size_t i, std::size_t rows, std::size_t j,
                       std::size_t nr) {
    alignas(64) Acc tile[MR * NR];
    kernel(kk, ap, bp, tile);
    store_tile(pr, i, j, rows, nr, tile, NR);
  };
}

/// Whether B (element type TB) can be read in place by tile_f32 (no panel copy).
template <class TB>
struct direct_b_type
    : std::integral_constant<bool, std::is_same<TB, float>::value || std::is_same<TB, bfloat16>::value ||
                                       std::is_same<TB, half>::value> {};

#endif  // MIXPREC_GEMM_SIMD
}  // namespace gemm
}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_KERNELS_GEMM_DETAIL_BLOCKED_HPP
