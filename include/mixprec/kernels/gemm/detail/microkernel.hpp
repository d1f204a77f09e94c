// SPDX-License-Identifier: MIT
// mixprec/kernels/gemm/detail/microkernel.hpp — the register tiles of the SIMD gemm.
//
// What: tile sizes (tile_mr x tile_nr_f32 floats, tile_mr x tile_nr_f64 doubles), the double
// kernel kernel_f64, the float tile tile_f32 (A and B each from a panel or in place, C stored
// from the registers) and with_rows (the tile height for a short last sliver).
#ifndef MIXPREC_KERNELS_GEMM_DETAIL_MICROKERNEL_HPP
#define MIXPREC_KERNELS_GEMM_DETAIL_MICROKERNEL_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "store.hpp"
#include "vec.hpp"

namespace mixprec {
namespace detail {
namespace gemm {

#if defined(MIXPREC_GEMM_SIMD)
#if defined(MIXPREC_GEMM_AVX512)
constexpr std::size_t tile_mr = 14;      // rows of a tile
constexpr std::size_t tile_nr_f32 = 32;  // columns of a float tile
constexpr std::size_t tile_nr_f64 = 16;  // columns of a double tile
#else                                    // AVX2 + FMA
constexpr std::size_t tile_mr = 6;
constexpr std::size_t tile_nr_f32 = 16;
constexpr std::size_t tile_nr_f64 = 8;
#endif

/// The tile_mr x tile_nr_f64 double tile (two vectors a row).
inline void kernel_f64(std::size_t kk, const double* ap, const double* bp, double* tile) noexcept {
  constexpr std::size_t MR = tile_mr, W = vwd;
  static_assert(tile_nr_f64 == 2 * W, "kernel_f64: two vectors a row");
  vd c0[MR], c1[MR];
  MIXPREC_GEMM_UNROLL
  for (std::size_t r = 0; r < MR; ++r) {
    c0[r] = vdzero();
    c1[r] = vdzero();
  }
  for (std::size_t p = 0; p < kk; ++p) {
    const vd b0 = vdload(bp), b1 = vdload(bp + W);
    MIXPREC_GEMM_UNROLL
    for (std::size_t r = 0; r < MR; ++r) {
      const vd a = vdbroadcast(ap + r);
      c0[r] = vdfmadd(a, b0, c0[r]);
      c1[r] = vdfmadd(a, b1, c1[r]);
    }
    ap += MR;
    bp += 2 * W;
  }
  MIXPREC_GEMM_UNROLL
  for (std::size_t r = 0; r < MR; ++r) {
    vdstore(tile + r * 2 * W, c0[r]);
    vdstore(tile + r * 2 * W + W, c1[r]);
  }
}

/// f(std::integral_constant<std::size_t, R>) for the tile height R >= rows: MR when rows > MR - 2,
/// else the least of 2, 6, 10, ... (MR = 14: 2, 6, 10, 14; MR = 6: 2, 6) that holds them. A
/// short last sliver (m = 10, or the 2 rows left of m = 128) runs a short tile; few heights keep
/// the instantiations (compile time) down.
template <std::size_t R, std::size_t MR, class F>
inline bool with_rows(std::size_t rows, F& f) {
  static_assert(MR % 4 == 2, "with_rows: tile heights 2, 6, 10, ... up to MR");
  if constexpr (R >= MR) {
    return f(std::integral_constant<std::size_t, MR>{});
  } else {
    if (R == 2 && rows > MR - 2) return f(std::integral_constant<std::size_t, MR>{});  // the common case first
    if (rows <= R) return f(std::integral_constant<std::size_t, R>{});
    return with_rows<R + 4, MR>(rows, f);
  }
}

/// How far ahead (bytes of B's steps) the float tile prefetches B into L1: B streams from L2 (from
/// L3 for the first A sliver of a B sliver), which the hardware prefetchers alone left short of
/// the FMA units (bench/README.md).
constexpr std::size_t pf_bytes = 4096;

/// The A operand of tile_f32: a panel sliver, A(r, p) = ap[p*tile_mr + r] ...
struct a_panel {
  const float* ap;
  const float* at(std::size_t r, std::size_t p) const noexcept { return ap + p * tile_mr + r; }
};
/// ... or float A read in place with k contiguous, A(r, p) = a[r*lda + p] (a sliver used once, as
/// where n <= NR: copying it would cost as much as the tile; the same values, the same products).
struct a_in_place {
  const float* a;
  std::size_t lda;
  template <std::size_t R>
  struct rows {
    const float* row[R];
    const float* at(std::size_t r, std::size_t p) const noexcept { return row[r] + p; }
  };
  template <std::size_t R>
  rows<R> start() const noexcept {
    rows<R> x{};
    for (std::size_t r = 0; r < R; ++r) x.row[r] = a + r * lda;
    return x;
  }
};

/// The float tile: R rows (R <= tile_mr) by V vectors (V*vw columns), from zero, for p < kk
/// in order: acc[r][v] = fma(A(r, p), B(p, v), acc[r][v]), where A(r, p) is a panel sliver's
/// ap[p*tile_mr + r] (or a_in_place: A in place) and B(p, v) =
/// load_vec<as_is>(bp + p*bs + v*vw): a float panel sliver (bs = V*vw) or B read in
/// place (float, half or bfloat16 with n contiguous, bs = its row stride). Then, with d.c set and
/// nr == V*vw, its first `rows` rows go to C from the registers (returns true); otherwise the
/// whole tile goes to d.tile (returns false: the caller stores it with store_tile).
template <std::size_t R, std::size_t V, class TB, class TC, class A = a_panel>
bool tile_f32(std::size_t kk, const float* ap, const TB* bp, std::size_t bs, std::size_t rows, std::size_t nr,
              const tile_dest<TC>& d, const A& a_op = A{}) noexcept {
  constexpr std::size_t W = vw;
  TC* const c = d.c;  // (locals: the stores to C cannot change them)
  const std::size_t ldc = d.ldc;
  const bool direct = c != nullptr && nr == V * W;
  vf acc[R][V];
  MIXPREC_GEMM_UNROLL
  for (std::size_t r = 0; r < R; ++r) {
    MIXPREC_GEMM_UNROLL
    for (std::size_t v = 0; v < V; ++v) acc[r][v] = vzero();
  }
  // B's row of a step, pf_bytes / step_bytes steps ahead, into L1 (prefetches do not change
  // the result, and do not fault past the end of B).
  constexpr std::size_t step_bytes = V * W * sizeof(TB);
  const std::size_t pf_ahead = std::max<std::size_t>(1, pf_bytes / step_bytes) * bs * sizeof(TB);
  const auto a_at = [&] {
    if constexpr (std::is_same<A, a_panel>::value) {
      return a_panel{ap};
    } else {
      return a_op.template start<R>();
    }
  }();
  for (std::size_t p = 0; p < kk; ++p) {
    vf b[V];
    MIXPREC_GEMM_UNROLL
    for (std::size_t v = 0; v < V; ++v) b[v] = load_vec<input_mode::as_is>(bp + v * W);
    const std::uintptr_t pf = reinterpret_cast<std::uintptr_t>(bp) + pf_ahead;
    MIXPREC_GEMM_UNROLL
    for (std::size_t o = 0; o < step_bytes; o += 64) _mm_prefetch(reinterpret_cast<const char*>(pf + o), _MM_HINT_T0);
    MIXPREC_GEMM_UNROLL
    for (std::size_t r = 0; r < R; ++r) {
      const vf a = vbroadcast(a_at.at(r, p));
      MIXPREC_GEMM_UNROLL
      for (std::size_t v = 0; v < V; ++v) acc[r][v] = vfmadd(a, b[v], acc[r][v]);
    }
    bp += bs;
  }
  return tile_out(acc, rows, direct, c, ldc, d);
}

#endif  // MIXPREC_GEMM_SIMD
}  // namespace gemm
}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_KERNELS_GEMM_DETAIL_MICROKERNEL_HPP
