// SPDX-License-Identifier: MIT
// mixprec/kernels/gemm/detail/store.hpp — the output stage of the SIMD tiles: alpha, beta and the rounding into C.
//
// What: detail::gemm::store_vec (a row of a register tile into C, as store_element lane by lane),
// store_tile (a buffered tile into C, any C type), tile_out (a register tile to C or to its
// buffer).
#ifndef MIXPREC_KERNELS_GEMM_DETAIL_STORE_HPP
#define MIXPREC_KERNELS_GEMM_DETAIL_STORE_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../../core/types.hpp"
#include "scalar.hpp"
#include "vec.hpp"

namespace mixprec {
namespace detail {
namespace gemm {

#if defined(MIXPREC_GEMM_SIMD)
/// C element types that store_vec stores: float, and half / bfloat16 (in nearest-even).
template <class TC>
struct vec_store_type
    : std::integral_constant<bool, std::is_same<TC, float>::value ||
                                       ((std::is_same<TC, half>::value || std::is_same<TC, bfloat16>::value) &&
                                        vec_type<TC>::value)> {};

/// Whether C is stored by store_vec: Acc = float, a row-major C (c_js == 1) of float, or of
/// half or bfloat16 in nearest-even.
template <class Acc, class TA, class TB, class TC>
bool vec_store_ok(const problem<Acc, TA, TB, TC>& pr) noexcept {
  if constexpr (std::is_same<Acc, float>::value && vec_store_type<TC>::value) {
    return pr.c_js == 1 && (std::is_same<TC, float>::value || pr.out_mode == rounding::nearest_even);
  } else {
    return false;
  }
}

/// cnt (<= vw) elements of a C row at dst from the accumulators acc: store_element's
/// operations lane by lane, r = alpha*acc (+ fma(beta, C, r)) in float, then (half, bfloat16)
/// round_to<TC>(r) by narrow_vec. Only dst[0..cnt) is read (read_c) and written.
template <class TC>
MIXPREC_GEMM_INLINE void store_vec(TC* dst, vf acc, std::size_t cnt, vf va, vf vb, bool read_c) noexcept {
  constexpr std::size_t W = vw;
  vf v = vmul(va, acc);
  if constexpr (std::is_same<TC, float>::value) {
    if (cnt == W) {
      if (read_c) v = vfmadd(vb, vloadu(dst), v);
      vstoreu(dst, v);
      return;
    }
    if (read_c) v = vfmadd(vb, load_first(dst, cnt), v);
    store_first(dst, v, cnt);
  } else {
    alignas(64) std::uint16_t buf[W] = {};
    std::uint16_t* cp = cnt == W ? reinterpret_cast<std::uint16_t*>(dst) : buf;
    if (read_c) {
      if (cnt != W) std::memcpy(buf, dst, cnt * sizeof(TC));
      v = vfmadd(vb, widen_vec<TC>(cp), v);
    }
    narrow_vec<TC>(v, cp);
    if (cnt != W) std::memcpy(dst, buf, cnt * sizeof(TC));
  }
}

/// Stores an mr x nr tile (row stride ldt) into C: store_element element by element, in vector form
/// (store_vec) where vec_store_ok, and for a row-major double C with Acc = double.
template <class Acc, class TA, class TB, class TC>
void store_tile(const problem<Acc, TA, TB, TC>& pr, std::size_t i0, std::size_t j0, std::size_t mr, std::size_t nr,
                const Acc* tile, std::size_t ldt) noexcept {
  if constexpr (std::is_same<Acc, float>::value && vec_store_type<TC>::value) {
    if (vec_store_ok(pr)) {
      constexpr std::size_t W = vw;
      const vf va = vset1(pr.alpha), vb = vset1(pr.beta);
      const bool read_c = !detail::exact_eq(pr.beta, 0.0f);
      for (std::size_t r = 0; r < mr; ++r) {
        TC* crow = pr.c + (i0 + r) * pr.c_is + j0;
        const float* t = tile + r * ldt;
        for (std::size_t c = 0; c < nr; c += W) {
          store_vec(crow + c, vload(t + c), std::min(W, nr - c), va, vb, read_c);
        }
      }
      return;
    }
  }
  if constexpr (std::is_same<TC, double>::value && std::is_same<Acc, double>::value) {
    if (pr.c_js == 1) {
      constexpr std::size_t W = vwd;
      const vd va = vdset1(pr.alpha), vb = vdset1(pr.beta);
      const bool read_c = !detail::exact_eq(pr.beta, 0.0);
      for (std::size_t r = 0; r < mr; ++r) {
        double* crow = pr.c + (i0 + r) * pr.c_is + j0;
        const double* t = tile + r * ldt;
        for (std::size_t c = 0; c < nr; c += W) {
          const std::size_t cnt = std::min(W, nr - c);
          vd v = vdmul(va, vdload(t + c));
          if (cnt == W) {
            if (read_c) v = vdfmadd(vb, vdloadu(crow + c), v);
            vdstoreu(crow + c, v);
            continue;
          }
          if (read_c) v = vdfmadd(vb, load_first(crow + c, cnt), v);
          store_first(crow + c, v, cnt);
        }
      }
      return;
    }
  }
  for (std::size_t r = 0; r < mr; ++r) {
    for (std::size_t c = 0; c < nr; ++c) store_element(pr, i0 + r, j0 + c, tile[r * ldt + c]);
  }
}

/// Where a float tile goes: C (c != nullptr: C(i0, j0), rows ldc apart, stored by store_vec
/// when the tile is full width) or the buffer tile (rows V*vw apart, for store_tile).
template <class TC>
struct tile_dest {
  TC* c;
  std::size_t ldc;
  float alpha, beta;
  float* tile;
};

/// The end of the bf16_dot2 register tile: direct (C set and the tile full width, nr == V*vw):
/// its first `rows` rows to C (c, rows ldc apart) by store_vec, returns true; otherwise all R
/// rows to d.tile (rows V*vw apart), returns false (the caller stores them with store_tile, as a
/// partial tile of tile_f32's). (Always inlined: the accumulators stay in registers.)
template <std::size_t R, std::size_t V, class TC>
MIXPREC_GEMM_INLINE bool tile_out(const vf (&acc)[R][V], std::size_t rows, bool direct, TC* const c,
                                  const std::size_t ldc, const tile_dest<TC>& d) noexcept {
  constexpr std::size_t W = vw;
  if (!direct) {
    float* const t = d.tile;
    MIXPREC_GEMM_UNROLL
    for (std::size_t r = 0; r < R; ++r) {
      MIXPREC_GEMM_UNROLL
      for (std::size_t v = 0; v < V; ++v) vstore(t + (r * V + v) * W, acc[r][v]);
    }
    return false;
  }
  const vf va = vset1(d.alpha), vb = vset1(d.beta);
  auto store_rows = [&](auto read_c) {
    MIXPREC_GEMM_UNROLL
    for (std::size_t r = 0; r < R; ++r) {
      if (r >= rows) break;
      MIXPREC_GEMM_UNROLL
      for (std::size_t v = 0; v < V; ++v) store_vec(c + r * ldc + v * W, acc[r][v], W, va, vb, read_c());
    }
  };
  if (detail::exact_eq(d.beta, 0.0f)) {
    store_rows(std::false_type{});
  } else {
    store_rows(std::true_type{});
  }
  return true;
}

#endif  // MIXPREC_GEMM_SIMD
}  // namespace gemm
}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_KERNELS_GEMM_DETAIL_STORE_HPP
