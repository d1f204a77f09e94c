// SPDX-License-Identifier: MIT
// mixprec/kernels/gemm/detail/vec.hpp — the x86 vector helpers of gemm (host only): widths, loads
// that widen, stores that round.
//
// What: MIXPREC_GEMM_AVX512 / MIXPREC_GEMM_AVX2 (from simd/isa.hpp: AVX-512 F/BW/VL, or AVX2 + FMA;
// MIXPREC_GEMM_AVX512BF16 adds vdpbf16ps; MIXPREC_GEMM_SIMD either; none under nvcc), the float
// vector vf of vw lanes (AVX-512: 16, zmm; AVX2: 8, ymm) and the element conversions: load_vec
// (widen, or round to tf32/bfloat16 as load_input does), narrow_vec (round_to<half or bfloat16>,
// nearest-even), transpose_block. The integer work is written once over simd::vec512 / vec256.
// Contract: every helper computes, lane by lane, exactly what the scalar code it replaces computes.
#ifndef MIXPREC_KERNELS_GEMM_DETAIL_VEC_HPP
#define MIXPREC_KERNELS_GEMM_DETAIL_VEC_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../../core/detail/widen_table.hpp"
#include "../../../core/types.hpp"
#include "../../../simd/encode.hpp"
#include "../../../simd/isa.hpp"
#include "../../../simd/vec_avx2.hpp"
#include "../../../simd/vec_avx512.hpp"
#include "../../detail/simd_round.hpp"
#include "scalar.hpp"

#if !defined(__CUDACC__) && defined(MIXPREC_SIMD_AVX512)
#define MIXPREC_GEMM_AVX512 1
#if defined(MIXPREC_SIMD_AVX512_BF16)
#define MIXPREC_GEMM_AVX512BF16 1
#endif
#elif !defined(__CUDACC__) && defined(MIXPREC_SIMD_AVX2) && defined(MIXPREC_SIMD_FMA)
#define MIXPREC_GEMM_AVX2 1
#endif

#if defined(MIXPREC_GEMM_AVX512) || defined(MIXPREC_GEMM_AVX2)
#define MIXPREC_GEMM_SIMD 1
#if defined(__GNUC__) || defined(__clang__)
#define MIXPREC_GEMM_INLINE inline __attribute__((always_inline))
#else
#define MIXPREC_GEMM_INLINE inline
#endif
#define MIXPREC_GEMM_UNROLL _Pragma("GCC unroll 16")

namespace mixprec {
namespace detail {
namespace gemm {

#if defined(MIXPREC_GEMM_AVX512)
using vt = simd::vec512;  ///< the integer lanes of this width (simd/vec_avx512.hpp)
using vf = __m512;
using vi = __m512i;
using vd = __m512d;
constexpr std::size_t vw = 16;  // float lanes
constexpr std::size_t vwd = 8;  // double lanes
inline vf vzero() noexcept { return _mm512_setzero_ps(); }
inline vf vbroadcast(const float* p) noexcept { return _mm512_set1_ps(*p); }
inline vd vdzero() noexcept { return _mm512_setzero_pd(); }
inline vd vdbroadcast(const double* p) noexcept { return _mm512_set1_pd(*p); }
inline vd vdfmadd(vd a, vd b, vd c) noexcept { return _mm512_fmadd_pd(a, b, c); }
inline vd vdmul(vd a, vd b) noexcept { return _mm512_mul_pd(a, b); }
inline vd vdset1(double x) noexcept { return _mm512_set1_pd(x); }
inline vd vdload(const double* p) noexcept { return _mm512_load_pd(p); }
inline vd vdloadu(const double* p) noexcept { return _mm512_loadu_pd(p); }
inline void vdstore(double* p, vd v) noexcept { _mm512_store_pd(p, v); }
inline void vdstoreu(double* p, vd v) noexcept { _mm512_storeu_pd(p, v); }
/// The first n (< vw) floats at src, the other lanes zero / stores the first n lanes at dst.
inline vf load_first(const float* src, std::size_t n) noexcept {
  return _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << n) - 1u), src);
}
inline void store_first(float* dst, vf v, std::size_t n) noexcept {
  _mm512_mask_storeu_ps(dst, static_cast<__mmask16>((1u << n) - 1u), v);
}
inline vd load_first(const double* src, std::size_t n) noexcept {
  return _mm512_maskz_loadu_pd(static_cast<__mmask8>((1u << n) - 1u), src);
}
inline void store_first(double* dst, vd v, std::size_t n) noexcept {
  _mm512_mask_storeu_pd(dst, static_cast<__mmask8>((1u << n) - 1u), v);
}
#else
using vt = simd::vec256;  ///< the integer lanes of this width (simd/vec_avx2.hpp)
using vf = __m256;
using vi = __m256i;
using vd = __m256d;
constexpr std::size_t vw = 8;
constexpr std::size_t vwd = 4;
inline vf vzero() noexcept { return _mm256_setzero_ps(); }
inline vf vbroadcast(const float* p) noexcept { return _mm256_broadcast_ss(p); }
inline vd vdzero() noexcept { return _mm256_setzero_pd(); }
inline vd vdbroadcast(const double* p) noexcept { return _mm256_broadcast_sd(p); }
inline vd vdfmadd(vd a, vd b, vd c) noexcept { return _mm256_fmadd_pd(a, b, c); }
inline vd vdmul(vd a, vd b) noexcept { return _mm256_mul_pd(a, b); }
inline vd vdset1(double x) noexcept { return _mm256_set1_pd(x); }
inline vd vdload(const double* p) noexcept { return _mm256_load_pd(p); }
inline vd vdloadu(const double* p) noexcept { return _mm256_loadu_pd(p); }
inline void vdstore(double* p, vd v) noexcept { _mm256_store_pd(p, v); }
inline void vdstoreu(double* p, vd v) noexcept { _mm256_storeu_pd(p, v); }
inline vf load_first(const float* src, std::size_t n) noexcept {
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_maskload_ps(src, _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), idx));
}
inline void store_first(float* dst, vf v, std::size_t n) noexcept {
  // Not vmaskmovps: its store form is slow on AMD CPUs.
  alignas(32) float tmp[8];
  _mm256_store_ps(tmp, v);
  std::memcpy(dst, tmp, n * sizeof(float));
}
inline vd load_first(const double* src, std::size_t n) noexcept {
  const __m256i idx = _mm256_setr_epi64x(0, 1, 2, 3);
  return _mm256_maskload_pd(src, _mm256_cmpgt_epi64(_mm256_set1_epi64x(static_cast<long long>(n)), idx));
}
inline void store_first(double* dst, vd v, std::size_t n) noexcept {
  alignas(32) double tmp[4];
  _mm256_store_pd(tmp, v);
  std::memcpy(dst, tmp, n * sizeof(double));
}
#endif

// The float operations of both widths, through vt (vload / vstore: vw*4-byte aligned).
inline vf vfmadd(vf a, vf b, vf c) noexcept { return vt::f_fma(a, b, c); }
inline vf vmul(vf a, vf b) noexcept { return vt::f_mul(a, b); }
inline vf vset1(float x) noexcept { return vt::f_set1(x); }
inline vf vload(const float* p) noexcept { return vt::f_load_aligned(p); }
inline vf vloadu(const float* p) noexcept { return vt::f_load(p); }
inline void vstore(float* p, vf v) noexcept { vt::f_store_aligned(p, v); }
inline void vstoreu(float* p, vf v) noexcept { vt::f_store(p, v); }
inline vi as_bits(vf x) noexcept { return vt::f_bits(x); }
inline vf from_bits(vi u) noexcept { return vt::f_from_bits(u); }

/// vw bytes at p zero-extended to 32-bit lanes / vw 16-bit codes at p / vw half codes widened to
/// float / vw bfloat16 codes widened to float (vpmovzxwd and vpslld) (one code for both widths,
/// through vt).
inline vi load_bytes(const void* p) noexcept { return vt::load_u8(p); }
inline vt::vh load_16bit(const void* p) noexcept { return vt::h_load(p); }
inline vf half_to_float(vt::vh h) noexcept { return vt::h2f(h); }
inline vf bf16_to_float(vt::vh h) noexcept { return from_bits(vt::slli<16>(vt::widen16(h))); }

/// Element types that load_vec widens in vector form (and, half and bfloat16, C types stored in
/// vector form).
template <class T>
struct vec_type : std::integral_constant<bool, std::is_same<T, float>::value || std::is_same<T, bfloat16>::value ||
                                                   std::is_same<T, half>::value ||
                                                   widen_table_exact<T, float>  // FP8/FP6/FP4: gathered from a table
                                         > {};

/// round_tf32 / round_bf16 on the bits of vw floats (Mode != as_is): simd_round::nearest.
template <input_mode Mode>
inline vi round_vec(vi u) noexcept {
  return simd_round::nearest<vt, Mode == input_mode::bf16 ? 16 : 13, Mode == input_mode::tf32_away>(u);
}

/// vw FP8 codes at src widened to float, exactly. float8_e5m2 is the top byte of a half.
/// float8_e4m3fn: exponent and mantissa moved up 7 bits make a half worth 2^-8 of the value (a
/// subnormal code a subnormal half), sign 8; times 256 in float that is the value; code 0x7f
/// (NaN) gives 480, which e4m3fn never holds, and becomes a quiet NaN of its sign.
template <class T>
inline vf load_fp8(const T* src) noexcept {
  const vt::vh w = vt::h_load8(src);
  if constexpr (std::is_same<T, float8_e5m2>::value) {
    return vt::h2f(vt::h_slli<8>(w));
  } else {
    const vt::vh h =
        vt::h_or(vt::h_slli<7>(vt::h_and(w, vt::h_set1(0x7f))), vt::h_slli<8>(vt::h_and(w, vt::h_set1(0x80))));
    const vi v = as_bits(vt::f_mul(vt::h2f(h), vt::f_set1(256.0f)));
    const vt::mask nan = vt::eq(vt::and_(v, vt::set1(0x7fffffffu)), vt::set1(0x43f00000u));  // |code| 0x7f: 480
    return from_bits(vt::select(nan, vt::or_(vt::and_(v, vt::set1(0x80000000u)), vt::set1(0x7fc00000u)), v));
  }
}

/// vw elements of T (vec_type) widened to float: load_input<float, Mode> lane by lane.
template <input_mode Mode, class T>
inline vf load_vec(const T* src) noexcept {
  if constexpr (std::is_same<T, float8_e5m2>::value || std::is_same<T, float8_e4m3fn>::value) {
    return load_fp8(src);
  } else if constexpr (widen_table_exact<T, float>) {
    const vi idx = load_bytes(src);
    const float* table = widen_table<T, float>();  // (a macro at -O0: no comma in its arguments)
#if defined(MIXPREC_GEMM_AVX512)
    return _mm512_i32gather_ps(idx, table, 4);
#else
    return _mm256_i32gather_ps(table, idx, 4);
#endif
  } else if constexpr (std::is_same<T, half>::value) {
    return half_to_float(load_16bit(src));
  } else if constexpr (std::is_same<T, bfloat16>::value) {
    return bf16_to_float(load_16bit(src));
  } else {
    static_assert(std::is_same<T, float>::value, "load_vec: float, half, bfloat16 or a byte format");
    if constexpr (Mode == input_mode::as_is) {
      return vloadu(src);
    } else {
      return from_bits(round_vec<Mode>(as_bits(vloadu(src))));
    }
  }
}

/// The first cnt (< vw) elements at src as load_vec<Mode> widens them; reads only those (masked
/// loads: float, and half / bfloat16 with AVX-512; else through a zero-padded copy).
template <input_mode Mode, class T>
inline vf load_vec_first(const T* src, std::size_t cnt) noexcept {
  if constexpr (std::is_same<T, float>::value) {
    const vf x = load_first(src, cnt);
    if constexpr (Mode == input_mode::as_is) {
      return x;
    } else {
      return from_bits(round_vec<Mode>(as_bits(x)));
    }
#if defined(MIXPREC_GEMM_AVX512)
  } else if constexpr (std::is_same<T, half>::value) {
    return half_to_float(_mm256_maskz_loadu_epi16(static_cast<__mmask16>((1u << cnt) - 1u), src));
  } else if constexpr (std::is_same<T, bfloat16>::value) {
    return bf16_to_float(_mm256_maskz_loadu_epi16(static_cast<__mmask16>((1u << cnt) - 1u), src));
#endif
  } else {
    T in[vw] = {};
    for (std::size_t j = 0; j < cnt; ++j) in[j] = src[j];
    return load_vec<Mode>(in);
  }
}

/// vw floats rounded to TC (half or bfloat16; vec_type) in nearest-even with overflow::ieee, i.e.
/// round_to<TC>(x) lane by lane, as 16-bit patterns at dst: simd/encode.hpp's encoder (half:
/// vcvtps2ph).
template <class TC>
inline void narrow_vec(vf x, std::uint16_t* dst) noexcept {
  const vi u = as_bits(x);
  if constexpr (std::is_same<TC, half>::value) {
    vt::h_store(dst, vt::to_half<_MM_FROUND_TO_NEAREST_INT>(u));
  } else {
    using F = typename float_traits<TC>::format_type;
    constexpr std::uint32_t away = simd::encode_format<F>::overflow_away(overflow::ieee);
    vt::store16(dst, simd::encode_fast<vt, F, rounding::nearest_even>(u, vt::zero(), away));
  }
}

/// vw 16-bit patterns of TC (half or bfloat16) widened exactly to float.
template <class TC>
inline vf widen_vec(const std::uint16_t* src) noexcept {
  return load_vec<input_mode::as_is>(reinterpret_cast<const TC*>(src));
}

/// In-register transpose of a vw x vw float block: v[i] lane j <-> v[j] lane i.
/// (Always inlined: called, its block goes through memory, and the panel copy slows down.)
MIXPREC_GEMM_INLINE void transpose_block(vf* v) noexcept {
#if defined(MIXPREC_GEMM_AVX512)
  __m512 t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(v[i], v[i + 1]);      // rows i, i+1: elements 0 1 interleaved per 128-bit lane
    t[i + 1] = _mm512_unpackhi_ps(v[i], v[i + 1]);  // elements 2 3
  }
  for (int i = 0; i < 16; i += 4) {
    const __m512d a = _mm512_castps_pd(t[i]), b = _mm512_castps_pd(t[i + 2]);
    const __m512d c = _mm512_castps_pd(t[i + 1]), d = _mm512_castps_pd(t[i + 3]);
    v[i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));      // element 0 of rows i..i+3 (per 128-bit lane)
    v[i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));  // element 1
    v[i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(c, d));  // element 2
    v[i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(c, d));  // element 3
  }
  // v[4g + e], 128-bit lane l: element 4l + e of rows 4g..4g+3.
  for (int e = 0; e < 4; ++e) {
    t[e] = _mm512_shuffle_f32x4(v[e], v[4 + e], 0x88);      // lanes 0, 2 of rows 0-3, then of rows 4-7
    t[4 + e] = _mm512_shuffle_f32x4(v[e], v[4 + e], 0xdd);  // lanes 1, 3
    t[8 + e] = _mm512_shuffle_f32x4(v[8 + e], v[12 + e], 0x88);
    t[12 + e] = _mm512_shuffle_f32x4(v[8 + e], v[12 + e], 0xdd);
  }
  // t[e]: (l0 r0-3, l2 r0-3, l0 r4-7, l2 r4-7); t[4+e]: the same for l1, l3; t[8..15]: rows 8-15.
  for (int e = 0; e < 4; ++e) {
    v[e] = _mm512_shuffle_f32x4(t[e], t[8 + e], 0x88);            // element e
    v[8 + e] = _mm512_shuffle_f32x4(t[e], t[8 + e], 0xdd);        // element 8 + e
    v[4 + e] = _mm512_shuffle_f32x4(t[4 + e], t[12 + e], 0x88);   // element 4 + e
    v[12 + e] = _mm512_shuffle_f32x4(t[4 + e], t[12 + e], 0xdd);  // element 12 + e
  }
#else
  __m256 t[8], u[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(v[i], v[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(v[i], v[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    u[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xee);
    u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xee);
  }
  for (int e = 0; e < 4; ++e) {
    v[e] = _mm256_permute2f128_ps(u[e], u[4 + e], 0x20);
    v[4 + e] = _mm256_permute2f128_ps(u[e], u[4 + e], 0x31);
  }
#endif
}

}  // namespace gemm
}  // namespace detail
}  // namespace mixprec
#endif  // MIXPREC_GEMM_SIMD

#endif  // MIXPREC_KERNELS_GEMM_DETAIL_VEC_HPP
