// SPDX-License-Identifier: MIT
// mixprec/kernels/gemm/detail/dot2_panel.hpp — bfloat16 pair panels and the proof scan of the vdpbf16ps path.
//
// What (AVX-512-BF16 only): detail::gemm::dot2_src (an operand and its element type),
// dot2_panel (rows of it as the bfloat16 pairs vdpbf16ps reads) and dot2_min_exponent (the
// scan that proves exact == vdpbf16ps; docs/pages/kernels-reference.md, "exact on vdpbf16ps").
#ifndef MIXPREC_KERNELS_GEMM_DETAIL_DOT2_PANEL_HPP
#define MIXPREC_KERNELS_GEMM_DETAIL_DOT2_PANEL_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../../../core/format.hpp"
#include "../../../core/types.hpp"
#include "scalar.hpp"
#include "vec.hpp"

namespace mixprec {
namespace detail {
namespace gemm {

#if defined(MIXPREC_GEMM_AVX512BF16)
/// The frame of a bf16_dot2 panel for vdpbf16ps: dst[q*dps + r] = (bits of X(r, 2q)) << 16 | bits
/// of X(r, 2q+1) (element 2q in the high half, which the instruction processes first) for r < rows
/// and q < (k+1)/2; rows..rows_padded-1 are zero. pair(r, q): one pair (a missing element 2q+1,
/// odd k: the caller's pad). k contiguous (ps == 1, rows > 1): row16(r, q0, qc), pairs q0..q0+qc-1
/// (qc <= 16) of row r in the lanes, 16 rows x 16 pairs at a time through a register transpose;
/// rows contiguous (rs == 1): col16(q, r, cnt), pair q of rows r..r+cnt-1 (cnt <= 16); an odd k's
/// last pair, and the other layouts, by pair.
template <class Pair, class Row16, class Col16>
void dot2_fill(std::size_t rs, std::size_t ps, std::size_t rows, std::size_t rows_padded, std::size_t k,
               std::uint32_t* dst, std::size_t dps, Pair pair, Row16 row16, Col16 col16) noexcept {
  const std::size_t kq = (k + 1) / 2, kfull = k / 2;
  std::size_t q_pair = kfull;  // the pairs from here on go by pair
  if (ps == 1 && rows > 1) {
    for (std::size_t q0 = 0; q0 < kfull; q0 += 16) {
      const std::size_t qc = std::min<std::size_t>(16, kfull - q0);
      for (std::size_t r0 = 0; r0 < rows; r0 += 16) {
        const std::size_t cnt = std::min<std::size_t>(16, rows - r0);
        __m512 v[16];
        MIXPREC_GEMM_UNROLL
        for (std::size_t r = 0; r < 16; ++r) {
          v[r] = r < cnt ? _mm512_castsi512_ps(row16(r0 + r, q0, qc)) : _mm512_setzero_ps();
        }
        transpose_block(v);  // (bit patterns: the shuffles move lanes only)
        const __mmask16 rm = vt::first(cnt);
        std::uint32_t* d = dst + q0 * dps + r0;
        MIXPREC_GEMM_UNROLL
        for (std::size_t q = 0; q < 16; ++q) {
          if (q < qc) _mm512_mask_storeu_epi32(d + q * dps, rm, _mm512_castps_si512(v[q]));
        }
      }
    }
  } else if (rs == 1) {
    for (std::size_t q = 0; q < kfull; ++q) {
      for (std::size_t r = 0; r < rows; r += 16) {
        const std::size_t cnt = std::min<std::size_t>(16, rows - r);
        _mm512_mask_storeu_epi32(dst + q * dps + r, vt::first(cnt), col16(q, r, cnt));
      }
    }
  } else {
    q_pair = 0;
  }
  for (std::size_t q = q_pair; q < kq; ++q) {
    for (std::size_t r = 0; r < rows; ++r) dst[q * dps + r] = pair(r, q);
  }
  // The padding rows by masked vector stores (a scalar loop here becomes a slow `rep stos` per pair).
  for (std::size_t r = rows; r < rows_padded; r += 16) {
    const __mmask16 rm = vt::first(rows_padded - r);
    for (std::size_t q = 0; q < kq; ++q) _mm512_mask_storeu_epi32(dst + q * dps + r, rm, _mm512_setzero_si512());
  }
}

/// Lanes hi << 16 | lo: the pairs of the high halves' lanes hi and the low halves' lanes lo.
inline __m512i dot2_join(__m512i hi, __m512i lo) noexcept { return _mm512_or_si512(_mm512_slli_epi32(hi, 16), lo); }

/// The bf16_dot2 panel (dot2_fill) of bfloat16 X(r, p) = src[r*rs + p*ps]; a missing element 2q+1
/// (odd k) is `pad`.
inline void dot2_panel_bf16(const bfloat16* src, std::size_t rs, std::size_t ps, std::size_t rows,
                            std::size_t rows_padded, std::size_t k, std::uint32_t* dst, std::size_t dps,
                            std::uint16_t pad) noexcept {
  auto pair = [&](std::size_t r, std::size_t q) -> std::uint32_t {
    const bfloat16* s0 = src + r * rs + 2 * q * ps;
    const std::uint32_t lo = 2 * q + 1 < k ? s0[ps].bits() : pad;
    return (std::uint32_t{s0[0].bits()} << 16) | lo;
  };
  // k contiguous: each pair is one little-endian dword (element 2q low), rotated by 16 bits (a last
  // partial block of pairs by masked loads, reading only the 2*kfull elements of a row).
  auto row16 = [&](std::size_t r, std::size_t q0, std::size_t qc) {
    return _mm512_rol_epi32(_mm512_maskz_loadu_epi32(vt::first(qc), src + r * rs + 2 * q0), 16);
  };
  // Rows contiguous: elements 2q (high halves) and 2q+1 (low halves) of 16 rows (fewer by masked loads).
  auto col16 = [&](std::size_t q, std::size_t r, std::size_t cnt) {
    const bfloat16* s0 = src + 2 * q * ps + r;
    const bfloat16* s1 = s0 + ps;
    if (cnt == 16) return dot2_join(vt::widen16(vt::h_load(s0)), vt::widen16(vt::h_load(s1)));
    const __mmask16 m = vt::first(cnt);
    return dot2_join(vt::widen16(vt::h_load_z(s0, m)), vt::widen16(vt::h_load_z(s1, m)));
  };
  dot2_fill(rs, ps, rows, rows_padded, k, dst, dps, pair, row16, col16);
}

/// An operand of the vdpbf16ps driver, type-erased (one driver per C type): p[r*rs + q*ps], as
/// bfloat16 (fmt bf16), float bf16-exact (fmt f32: its high 16 bits), float rounded to bfloat16
/// nearest-even (fmt f32_round: float32_matmul_precision "medium", round_bf16), or FP8
/// (e4m3: float8_e4m3fn, e5m2: float8_e5m2; every value is a normal bfloat16, or zero, inf, NaN).
struct dot2_src {
  enum fmt_t : unsigned char { bf16, f32, f32_round, e4m3, e5m2 };
  const void* p;
  std::size_t rs, ps;
  fmt_t fmt;
};

/// The bfloat16 bits of float lanes u: their high halves (rounded first for f32_round), in the low
/// halves of the result.
inline __m512i dot2_hi16(__m512i u, bool round) noexcept {
  if (round) u = round_vec<input_mode::bf16>(u);
  return _mm512_srli_epi32(u, 16);
}
inline std::uint32_t dot2_hi16(float x, bool round) noexcept { return bits_of(round ? round_bf16(x) : x) >> 16; }

/// The first cnt (1..16) elements at src widened to float (exactly: float, FP8), as bits.
template <class T>
inline __m512i dot2_load(const T* src, std::size_t cnt) noexcept {
  if (cnt == 16) return _mm512_castps_si512(load_vec<input_mode::as_is>(src));
  return _mm512_castps_si512(load_vec_first<input_mode::as_is>(src, cnt));
}

/// The bf16_dot2 panel (dot2_fill) of float and FP8 sources (the high half of each value widened
/// to float, a float rounded to bfloat16 first when `round`).
template <class T>
void dot2_panel_conv(const T* src, std::size_t rs, std::size_t ps, std::size_t rows, std::size_t rows_padded,
                     std::size_t k, std::uint32_t* dst, std::size_t dps, std::uint16_t pad, bool round) noexcept {
  auto pair = [&](std::size_t r, std::size_t q) -> std::uint32_t {
    const T* s0 = src + r * rs + 2 * q * ps;
    const std::uint32_t lo = 2 * q + 1 < k ? dot2_hi16(gemm::widen<float>(s0[ps]), round) : pad;
    return (dot2_hi16(gemm::widen<float>(s0[0]), round) << 16) | lo;
  };
  // k contiguous: 32 values of a row -> 16 pairs (even elements' halves high).
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  auto row16 = [&](std::size_t r, std::size_t q0, std::size_t qc) {
    const std::size_t e0 = std::min<std::size_t>(16, 2 * qc), e1 = 2 * qc - e0;
    const T* s = src + r * rs + 2 * q0;
    const __m512i x0 = dot2_hi16(dot2_load(s, e0), round);
    const __m512i x1 = e1 == 0 ? _mm512_setzero_si512() : dot2_hi16(dot2_load(s + 16, e1), round);
    return dot2_join(_mm512_permutex2var_epi32(x0, even, x1), _mm512_permutex2var_epi32(x0, odd, x1));
  };
  auto col16 = [&](std::size_t q, std::size_t r, std::size_t cnt) {
    const T* s0 = src + 2 * q * ps + r;
    return dot2_join(dot2_hi16(dot2_load(s0, cnt), round), dot2_hi16(dot2_load(s0 + ps, cnt), round));
  };
  dot2_fill(rs, ps, rows, rows_padded, k, dst, dps, pair, row16, col16);
}

/// The pair panel of FP8 sources: 256 k at a time widened to float (a vector at a time along the
/// contiguous dimension) into a local buffer, then dot2_panel_conv<float> (one copier
/// instantiation for float and FP8: the compile time of the sanitizer builds).
template <class T>
void dot2_panel_fp8(const T* src, std::size_t rs, std::size_t ps, std::size_t rows, std::size_t rows_padded,
                    std::size_t k, std::uint32_t* dst, std::size_t dps, std::uint16_t pad) noexcept {
  constexpr std::size_t KC = 256, RC = 32;  // rows <= max(tile_mr, tile_nr_f32) = 32
  alignas(64) float buf[KC * RC];
  const bool by_rows = ps != 1 && rs == 1;  // rows contiguous: buf[p*RC + r]; else buf[r*KC + p]
  for (std::size_t k0 = 0; k0 < k; k0 += KC) {
    const std::size_t kc = std::min(KC, k - k0);
    if (by_rows) {
      for (std::size_t p = 0; p < kc; ++p) {
        for (std::size_t r = 0; r < rows; r += 16) {
          const std::size_t cnt = std::min<std::size_t>(16, rows - r);
          _mm512_store_si512(buf + p * RC + r, dot2_load(src + (k0 + p) * ps + r, cnt));
        }
      }
      dot2_panel_conv(buf, std::size_t{1}, RC, rows, rows_padded, kc, dst + k0 / 2 * dps, dps, pad, false);
    } else {
      for (std::size_t r = 0; r < rows; ++r) {
        const T* s = src + r * rs + k0 * ps;
        float* d = buf + r * KC;
        if (ps == 1) {
          for (std::size_t p = 0; p < kc; p += 16)
            _mm512_store_si512(d + p, dot2_load(s + p, std::min<std::size_t>(16, kc - p)));
        } else {
          for (std::size_t p = 0; p < kc; ++p) d[p] = gemm::widen<float>(s[p * ps]);
        }
      }
      dot2_panel_conv(buf, KC, std::size_t{1}, rows, rows_padded, kc, dst + k0 / 2 * dps, dps, pad, false);
    }
  }
}

/// Copies rows [i, i+rows) of an operand into a pair panel (dot2_panel_bf16 / dot2_panel_conv / dot2_panel_fp8).
inline void dot2_panel(const dot2_src& s, std::size_t i, std::size_t rows, std::size_t rows_padded, std::size_t k,
                       std::uint32_t* dst, std::size_t dps, std::uint16_t pad) noexcept {
  switch (s.fmt) {
    case dot2_src::bf16:
      dot2_panel_bf16(static_cast<const bfloat16*>(s.p) + i * s.rs, s.rs, s.ps, rows, rows_padded, k, dst, dps, pad);
      return;
    case dot2_src::e4m3:
      dot2_panel_fp8(static_cast<const float8_e4m3fn*>(s.p) + i * s.rs, s.rs, s.ps, rows, rows_padded, k, dst, dps,
                     pad);
      return;
    case dot2_src::e5m2:
      dot2_panel_fp8(static_cast<const float8_e5m2*>(s.p) + i * s.rs, s.rs, s.ps, rows, rows_padded, k, dst, dps, pad);
      return;
    default:
      dot2_panel_conv(static_cast<const float*>(s.p) + i * s.rs, s.rs, s.ps, rows, rows_padded, k, dst, dps, pad,
                      s.fmt == dot2_src::f32_round);
  }
}

/// The biased float exponent of T's smallest positive value (float8_e4m3fn: 2^-9, 118; e5m2: 2^-16, 111).
template <class T>
constexpr int min_biased_exponent = float_traits<T>::format_type::desc.qmin + 127;

/// The proof scan of the exact -> vdpbf16ps rule (docs/pages/kernels-reference.md, "exact on
/// vdpbf16ps"): over the rows x k operand s, the smallest biased exponent of its nonzero finite
/// bfloat16 values (255 when there are none); -1 (early) when a value is subnormal, or (fmt f32)
/// a float is not bfloat16-exact.
inline int dot2_min_exponent(const dot2_src& s, std::size_t rows, std::size_t k) noexcept {
  // FP8: no scan, the format bounds it: the exponent of its smallest subnormal (format_desc::qmin).
  if (s.fmt == dot2_src::e4m3) return min_biased_exponent<float8_e4m3fn>;
  if (s.fmt == dot2_src::e5m2) return min_biased_exponent<float8_e5m2>;
  // Runs of contiguous elements (the order does not matter for a minimum).
  std::size_t runs = rows, len = k, stride = s.rs;
  if (s.ps != 1) {
    if (s.rs != 1) {  // neither contiguous (not from setup): element by element
      std::uint32_t mn = 0xffffffffu;
      for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t p = 0; p < k; ++p) {
          const std::size_t e = r * s.rs + p * s.ps;
          std::uint32_t h;
          if (s.fmt == dot2_src::bf16) {
            h = static_cast<const bfloat16*>(s.p)[e].bits();
          } else {
            const float x = static_cast<const float*>(s.p)[e];
            if (s.fmt == dot2_src::f32 && (bits_of(x) & 0xffffu) != 0) return -1;
            h = dot2_hi16(x, s.fmt == dot2_src::f32_round);
          }
          mn = std::min(mn, (h & 0x7fffu) - 1u);
        }
      }
      const std::uint32_t mag = mn + 1u;
      return mag == 0 ? 255 : mag < 0x80u ? -1 : static_cast<int>(std::min<std::uint32_t>(mag >> 7, 255));
    }
    runs = k;
    len = rows;
    stride = s.ps;
  }
  if (stride == len) {  // the runs are contiguous: one run (a 10-wide matrix: no short runs)
    len *= runs;
    runs = 1;
  }
  // Lanes: (magnitude bits - 1) as unsigned, so that a zero (-> all ones) never is the minimum.
  const __m512i one = _mm512_set1_epi32(1), mag_mask = _mm512_set1_epi32(0x7fff);
  __m512i mn = _mm512_set1_epi32(-1);
  if (s.fmt == dot2_src::bf16) {
    const auto* base = static_cast<const bfloat16*>(s.p);
    // 32 values a vector, in 16-bit lanes (AVX-512-BF16 implies AVX-512BW in GCC and Clang).
    const __m512i one16 = _mm512_set1_epi16(1), mag16 = _mm512_set1_epi16(0x7fff);
    __m512i mn16 = _mm512_set1_epi16(-1);
    for (std::size_t r = 0; r < runs; ++r) {
      const bfloat16* x = base + r * stride;
      for (std::size_t e = 0; e < len; e += 32) {
        const std::size_t cnt = std::min<std::size_t>(32, len - e);
        const __mmask32 m = cnt == 32 ? 0xffffffffu : (1u << cnt) - 1u;
        const __m512i h = _mm512_maskz_loadu_epi16(m, x + e);  // (masked-off lanes: 0, ignored)
        mn16 = _mm512_min_epu16(mn16, _mm512_sub_epi16(_mm512_and_si512(h, mag16), one16));
      }
      if (_mm512_cmplt_epu16_mask(mn16, _mm512_set1_epi16(0x7f)) != 0) return -1;  // a subnormal
    }
    mn = _mm512_min_epu32(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(mn16)),
                          _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(mn16, 1)));
    const std::uint32_t mag16v = _mm512_reduce_min_epu32(mn) + 1u;
    return mag16v == 0x10000u ? 255 : static_cast<int>(std::min<std::uint32_t>(mag16v >> 7, 255));
  } else {
    const bool round = s.fmt == dot2_src::f32_round;
    const __m512i low = _mm512_set1_epi32(0xffff);
    const auto* base = static_cast<const float*>(s.p);
    for (std::size_t r = 0; r < runs; ++r) {
      const float* x = base + r * stride;
      for (std::size_t e = 0; e < len; e += 16) {
        const std::size_t cnt = std::min<std::size_t>(16, len - e);
        const __mmask16 m = vt::first(cnt);
        const __m512i u = _mm512_maskz_loadu_epi32(m, x + e);
        if (!round && _mm512_test_epi32_mask(u, low) != 0) return -1;  // not bfloat16-exact: fails at once
        mn = _mm512_min_epu32(mn, _mm512_sub_epi32(_mm512_and_si512(dot2_hi16(u, round), mag_mask), one));
      }
      if (_mm512_cmplt_epu32_mask(mn, _mm512_set1_epi32(0x7f)) != 0) return -1;
    }
  }
  const std::uint32_t mag = _mm512_reduce_min_epu32(mn) + 1u;
  return mag == 0 ? 255 : static_cast<int>(std::min<std::uint32_t>(mag >> 7, 255));
}

#endif

}  // namespace gemm
}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_KERNELS_GEMM_DETAIL_DOT2_PANEL_HPP
