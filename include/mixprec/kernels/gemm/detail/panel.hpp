// SPDX-License-Identifier: MIT
// mixprec/kernels/gemm/detail/panel.hpp — copying A and B into the panels that the tiles read.
//
// What: detail::gemm::copy_panel copies rows x k of an operand (k-major, rows padded with zeros),
// converting each element as the step kind wants (load_input, the bf16x3 split, or DAZ for the
// portable bf16_dot2); with SIMD, widening runs and register transposes (panel_transposed).
#ifndef MIXPREC_KERNELS_GEMM_DETAIL_PANEL_HPP
#define MIXPREC_KERNELS_GEMM_DETAIL_PANEL_HPP

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "../../../core/detail/widen_table.hpp"
#include "scalar.hpp"
#include "vec.hpp"

namespace mixprec {
namespace detail {
namespace gemm {

#if defined(MIXPREC_GEMM_SIMD)

/// The k-contiguous panel copy (ps == 1) of panel_load<float, Mode> through register
/// transposes: dst[p*dps + r] = load_input<float, Mode>(src[r*rs + p]) for r < rows and p < k
/// (a last partial block of k, e.g. k = 10, by masked loads; reads only the k elements of a row).
template <input_mode Mode, class T>
void panel_transposed(const T* src, std::size_t rs, std::size_t rows, std::size_t k, float* dst,
                      std::size_t dps) noexcept {
  constexpr std::size_t W = vw;
  for (std::size_t p0 = 0; p0 < k; p0 += W) {
    const std::size_t kc = std::min(W, k - p0);
    for (std::size_t r0 = 0; r0 < rows; r0 += W) {
      const std::size_t cnt = std::min(W, rows - r0);
      vf v[W];
      if (kc == W) {
        for (std::size_t r = 0; r < W; ++r) {
          v[r] = r < cnt ? load_vec<Mode>(src + (r0 + r) * rs + p0) : vzero();
        }
      } else {
        for (std::size_t r = 0; r < W; ++r) {
          v[r] = r < cnt ? load_vec_first<Mode>(src + (r0 + r) * rs + p0, kc) : vzero();
        }
      }
      transpose_block(v);
      float* d = dst + p0 * dps + r0;
      if (cnt == W) {
        for (std::size_t q = 0; q < kc; ++q) {
          vstoreu(d + q * dps, v[q]);
        }
      } else {
        for (std::size_t q = 0; q < kc; ++q) store_first(d + q * dps, v[q], cnt);
      }
    }
  }
}
#endif  // MIXPREC_GEMM_SIMD

/// Panel conversions: write `expand` values per element at out[0], out[step], ...
/// dst[i] = load_input<Acc, Mode>(src[i]) for i < count; with SIMD, vw at a time for half,
/// bfloat16 and float sources into float (the same values: the widenings are exact, and the
/// tf32 / bfloat16 roundings are the scalar functions' integer steps lane by lane).
template <class Acc, input_mode Mode, class T>
void load_run(const T* src, Acc* dst, std::size_t count) noexcept {
  std::size_t i = 0;
#if defined(MIXPREC_GEMM_SIMD)
  if constexpr (std::is_same<Acc, float>::value && vec_type<T>::value) {
    for (; i + vw <= count; i += vw) {
      vstoreu(dst + i, load_vec<Mode>(src + i));
    }
    // The rest (short rows: k = 10 in a 10-class layer) by a masked load and store.
    if (i < count) store_first(dst + i, load_vec_first<Mode>(src + i, count - i), count - i);
  } else
#endif
      if constexpr (widen_table_exact<T, Acc>) {  // FP8/FP6/FP4: one table lookup each (same values)
    const Acc* table = widen_table<T, Acc>();
    for (; i < count; ++i) dst[i] = table[byte_of(src[i])];
  } else {
    for (; i < count; ++i) dst[i] = load_input<Acc, Mode>(src[i]);
  }
}

template <class Acc, input_mode Mode>
struct panel_load {
  static constexpr std::size_t expand = 1;
  static constexpr bool has_run = true;
  static constexpr input_mode mode = Mode;
  template <class T>
  void operator()(T x, Acc* out, std::size_t) const noexcept {
    if constexpr (widen_table_exact<T, Acc>) {
      out[0] = widen_table<T, Acc>()[byte_of(x)];
    } else {
      out[0] = load_input<Acc, Mode>(x);
    }
  }
  template <class T>
  void run(const T* src, Acc* dst, std::size_t count) const noexcept {
    load_run<Acc, Mode>(src, dst, count);
  }
};
template <class Acc>
struct panel_x3 {
  static constexpr std::size_t expand = 3;
  static constexpr bool has_run = false;
  bool first;  // the "first" role: lo, hi, hi; the second: hi, lo, hi
  template <class T>
  void operator()(T x, Acc* out, std::size_t step) const noexcept {
    float hi = 0, lo = 0;
    split(x, hi, lo);
    out[0] = static_cast<Acc>(first ? lo : hi);
    out[step] = static_cast<Acc>(first ? hi : lo);
    out[2 * step] = static_cast<Acc>(hi);
  }
};
template <class Acc>
struct panel_daz {
  static constexpr std::size_t expand = 1;
  static constexpr bool has_run = false;
  template <class T>
  void operator()(T x, Acc* out, std::size_t) const noexcept {
    out[0] = static_cast<Acc>(flush(gemm::widen<float>(x)));
  }
};

/// dst[(p*expand + e)*dps + r] = the e-th value of X(r, p) = src[r*rs + p*ps], for r < rows and
/// p < k; rows..rows_padded-1 are zero.
template <class Acc, class T, class Load>
void fill_panel(const T* src, std::size_t rs, std::size_t ps, std::size_t rows, std::size_t rows_padded, std::size_t k,
                Acc* dst, std::size_t dps, Load load) noexcept {
  constexpr std::size_t E = Load::expand;
  if (ps == 1 && rows > 1) {
    // k is contiguous: with SIMD (float accumulation of vector types), vw x vw blocks
    // through register transposes; otherwise read along k, row by row, in chunks that keep the
    // writes in L1.
    std::size_t pv = 0;
#if defined(MIXPREC_GEMM_SIMD)
    if constexpr (Load::has_run && std::is_same<Acc, float>::value && vec_type<T>::value) {
      panel_transposed<Load::mode>(src, rs, rows, k, dst, dps);
      pv = k;
    }
#endif
    constexpr std::size_t chunk = 128;
    for (std::size_t p0 = pv; p0 < k; p0 += chunk) {
      const std::size_t p1 = std::min(k, p0 + chunk);
      for (std::size_t r = 0; r < rows; ++r) {
        const T* s = src + r * rs;
        if constexpr (Load::has_run) {
          Acc tmp[chunk];
          load.run(s + p0, tmp, p1 - p0);
          for (std::size_t p = p0; p < p1; ++p) dst[p * dps + r] = tmp[p - p0];
        } else {
          for (std::size_t p = p0; p < p1; ++p) load(s[p], dst + p * E * dps + r, dps);
        }
      }
    }
  } else {
    for (std::size_t p = 0; p < k; ++p) {
      const T* s = src + p * ps;
      Acc* d = dst + p * E * dps;
      if constexpr (Load::has_run) {
        if (rs == 1) {
          load.run(s, d, rows);
          continue;
        }
      }
      for (std::size_t r = 0; r < rows; ++r) load(s[r * rs], d + r, dps);
    }
  }
  if (rows_padded > rows) {
#if defined(MIXPREC_GEMM_SIMD)
    if constexpr (std::is_same<Acc, float>::value) {
      // By vector stores: the scalar loop becomes a `rep stos` per step (slow for 6 or 12 floats).
      for (std::size_t r = rows; r < rows_padded; r += vw) {
        const std::size_t cnt = std::min(vw, rows_padded - r);
        for (std::size_t q = 0; q < k * E; ++q) store_first(dst + q * dps + r, vzero(), cnt);
      }
      return;
    }
#endif
    for (std::size_t q = 0; q < k * E; ++q) {
      for (std::size_t r = rows; r < rows_padded; ++r) dst[q * dps + r] = Acc(0);
    }
  }
}

/// Copies one operand into a panel for the kinds fma, x3 and (DAZ values for the portable emulation) dot2.
template <class Acc, class T>
void copy_panel(const T* src, std::size_t rs, std::size_t ps, std::size_t rows, std::size_t rows_padded, std::size_t k,
                Acc* dst, std::size_t dps, step_kind kind, input_mode input, bool x3_first) noexcept {
  switch (kind) {
    case step_kind::x3:
      fill_panel(src, rs, ps, rows, rows_padded, k, dst, dps, panel_x3<Acc>{x3_first});
      return;
    case step_kind::dot2:
      fill_panel(src, rs, ps, rows, rows_padded, k, dst, dps, panel_daz<Acc>{});
      return;
    default:
      break;
  }
  switch (input) {
    case input_mode::tf32_away:
      fill_panel(src, rs, ps, rows, rows_padded, k, dst, dps, panel_load<Acc, input_mode::tf32_away>{});
      return;
    case input_mode::tf32_even:
      fill_panel(src, rs, ps, rows, rows_padded, k, dst, dps, panel_load<Acc, input_mode::tf32_even>{});
      return;
    case input_mode::bf16:
      fill_panel(src, rs, ps, rows, rows_padded, k, dst, dps, panel_load<Acc, input_mode::bf16>{});
      return;
    default:
      fill_panel(src, rs, ps, rows, rows_padded, k, dst, dps, panel_load<Acc, input_mode::as_is>{});
      return;
  }
}

}  // namespace gemm
}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_KERNELS_GEMM_DETAIL_PANEL_HPP
