// SPDX-License-Identifier: MIT
// mixprec/simd/vec_avx512.hpp — vector traits of the 512-bit width (AVX-512 F/BW/VL), host only.
//
// What: simd::vec512, 16 lanes of 32 bits (vi), lane masks (__mmask16), 16 lanes of 16 bits (vh,
// for the decoders' half-precision step) and 16 floats (vf): the operations that the kernels
// of simd/encode.hpp and simd/decode.hpp are written over, once for every width. The same
// interface as simd/vec_avx2.hpp (vec256); a new width (AVX10/256, NEON, SVE) implements it.
// rng is counter_rng's stream: lane j of the k-th next() is counter_rng(key)(counter + k N + j).
// Contract: plain integer operations, no floating-point instruction except h2f (vcvtph2ps,
// exact) and mul (exact where used); results do not depend on MXCSR. The f_ float operations
// (the optimizer steps) are IEEE operations: those follow MXCSR; the d_ double conversions say
// what they depend on.
//   using V = mixprec::simd::vec512;  V::vi x = V::add(V::set1(1), V::load(p));
#ifndef MIXPREC_SIMD_VEC_AVX512_HPP
#define MIXPREC_SIMD_VEC_AVX512_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "isa.hpp"

#if defined(MIXPREC_SIMD_AVX512)
namespace mixprec {
namespace simd {

struct vec512 {
  static constexpr std::size_t N = 16;
  static constexpr const char* name = "avx512";
  using vi = __m512i;
  using mask = __mmask16;
  using vh = __m256i;
  using vf = __m512;

  static vi set1(std::uint32_t x) noexcept { return _mm512_set1_epi32(static_cast<int>(x)); }
  static vi zero() noexcept { return _mm512_setzero_si512(); }
  static vi load(const void* p) noexcept { return _mm512_loadu_si512(p); }
  static vi add(vi a, vi b) noexcept { return _mm512_add_epi32(a, b); }
  static vi sub(vi a, vi b) noexcept { return _mm512_sub_epi32(a, b); }
  static vi and_(vi a, vi b) noexcept { return _mm512_and_si512(a, b); }
  static vi or_(vi a, vi b) noexcept { return _mm512_or_si512(a, b); }
  static vi xor_(vi a, vi b) noexcept { return _mm512_xor_si512(a, b); }
  template <int S>
  static vi srli(vi a) noexcept { return _mm512_srli_epi32(a, static_cast<unsigned>(S)); }
  template <int S>
  static vi slli(vi a) noexcept { return _mm512_slli_epi32(a, static_cast<unsigned>(S)); }
  static vi srlv(vi a, vi s) noexcept { return _mm512_srlv_epi32(a, s); }  ///< counts > 31 give 0
  static vi sllv(vi a, vi s) noexcept { return _mm512_sllv_epi32(a, s); }
  static vi max_u(vi a, vi b) noexcept { return _mm512_max_epu32(a, b); }
  static vi min_u(vi a, vi b) noexcept { return _mm512_min_epu32(a, b); }
  static vi max_i(vi a, vi b) noexcept { return _mm512_max_epi32(a, b); }
  static mask gt_u(vi a, vi b) noexcept { return _mm512_cmpgt_epu32_mask(a, b); }
  static mask lt_u(vi a, vi b) noexcept { return _mm512_cmplt_epu32_mask(a, b); }
  static mask gt_i(vi a, vi b) noexcept { return _mm512_cmpgt_epi32_mask(a, b); }
  static mask neg(vi a) noexcept { return _mm512_cmplt_epi32_mask(a, _mm512_setzero_si512()); }  ///< sign bit set
  static mask eq(vi a, vi b) noexcept { return _mm512_cmpeq_epi32_mask(a, b); }
  static mask ne(vi a, vi b) noexcept { return _mm512_cmpneq_epi32_mask(a, b); }
  static mask nonzero(vi a) noexcept { return _mm512_test_epi32_mask(a, a); }
  static mask test(vi a, vi b) noexcept { return _mm512_test_epi32_mask(a, b); }  ///< a & b nonzero
  static mask m_and(mask a, mask b) noexcept { return static_cast<mask>(a & b); }
  static mask m_or(mask a, mask b) noexcept { return static_cast<mask>(a | b); }
  static mask m_andnot(mask a, mask b) noexcept { return static_cast<mask>(~a & b); }  ///< ~a & b
  static bool any(mask m) noexcept { return m != 0; }
  static bool all_of(mask m) noexcept { return m == 0xffff; }
  static mask all() noexcept { return static_cast<mask>(0xffff); }
  static mask none() noexcept { return 0; }
  static vi select(mask m, vi t, vi f) noexcept { return _mm512_mask_blend_epi32(m, f, t); }
  static vi zero_unless(mask m, vi a) noexcept { return _mm512_maskz_mov_epi32(m, a); }
  static vi add_one_if(mask m, vi a) noexcept { return _mm512_mask_add_epi32(a, m, a, _mm512_set1_epi32(1)); }
  static vi or_one_if(mask m, vi a) noexcept { return _mm512_mask_or_epi32(a, m, a, _mm512_set1_epi32(1)); }
  static vh narrow16(vi a) noexcept { return _mm512_cvtepi32_epi16(a); }  ///< lanes < 2^16
  static void store16(void* p, vi a) noexcept {
    _mm256_storeu_si256(static_cast<__m256i*>(p), _mm512_cvtepi32_epi16(a));
  }
  static void store8(void* p, vi a) noexcept { _mm_storeu_si128(static_cast<__m128i*>(p), _mm512_cvtepi32_epi8(a)); }

  // 16-bit lanes (the decoders' half step) and floats
  static vh h_load8(const void* p) noexcept {
    return _mm256_cvtepu8_epi16(_mm_loadu_si128(static_cast<const __m128i*>(p)));
  }
  static vh h_load8s(const void* p) noexcept {  ///< sign-extended
    return _mm256_cvtepi8_epi16(_mm_loadu_si128(static_cast<const __m128i*>(p)));
  }
  static vh h_set1(std::uint16_t x) noexcept { return _mm256_set1_epi16(static_cast<short>(x)); }
  static vh h_and(vh a, vh b) noexcept { return _mm256_and_si256(a, b); }
  static vh h_or(vh a, vh b) noexcept { return _mm256_or_si256(a, b); }
  template <int S>
  static vh h_slli(vh a) noexcept { return _mm256_slli_epi16(a, S); }
  static vh h_eq(vh a, vh b) noexcept { return _mm256_cmpeq_epi16(a, b); }  ///< all-ones lanes
  static vh h_select(vh m, vh t, vh f) noexcept { return _mm256_blendv_epi8(f, t, m); }
  static vh h_add(vh a, vh b) noexcept { return _mm256_add_epi16(a, b); }
  static void h_store(void* p, vh h) noexcept { _mm256_storeu_si256(static_cast<__m256i*>(p), h); }
  static vf h2f(vh h) noexcept { return _mm512_cvtph_ps(h); }
// GCC's -O0 macro form of _mm512_cvtps_ph passes a -1 mask (-Wsign-conversion in user code).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-conversion"
#endif
  /// vcvtps2ph of the float bits u, rounding Imm (_MM_FROUND_TO_*; MXCSR.DAZ applies to the input).
  template <int Imm>
  static vh to_half(vi u) noexcept { return _mm512_cvtps_ph(_mm512_castsi512_ps(u), Imm | _MM_FROUND_NO_EXC); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  static vf f_set1(float x) noexcept { return _mm512_set1_ps(x); }
  static vf f_mul(vf a, vf b) noexcept { return _mm512_mul_ps(a, b); }
  static void f_store(float* p, vf x) noexcept { _mm512_storeu_ps(p, x); }
  // IEEE float arithmetic (lane by lane, correctly rounded) and bit moves: the optimizer steps
  static vf f_load(const float* p) noexcept { return _mm512_loadu_ps(p); }
  static vf f_add(vf a, vf b) noexcept { return _mm512_add_ps(a, b); }
  static vf f_sub(vf a, vf b) noexcept { return _mm512_sub_ps(a, b); }
  static vf f_div(vf a, vf b) noexcept { return _mm512_div_ps(a, b); }
  static vf f_sqrt(vf a) noexcept { return _mm512_sqrt_ps(a); }
  static vf f_fma(vf a, vf b, vf c) noexcept { return _mm512_fmadd_ps(a, b, c); }  ///< a b + c, one rounding
  static vi f_bits(vf a) noexcept { return _mm512_castps_si512(a); }
  static vf f_from_bits(vi a) noexcept { return _mm512_castsi512_ps(a); }
  static mask f_nan(vf a) noexcept { return _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q); }
  static mask f_ge(vf a, vf b) noexcept { return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ); }  ///< ordered
  static mask f_eq(vf a, vf b) noexcept { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }  ///< ordered
  static vf f_max(vf a, vf b) noexcept { return _mm512_max_ps(a, b); }  ///< b where either is NaN
  static vf f_min(vf a, vf b) noexcept { return _mm512_min_ps(a, b); }
  static mask f_le(vf a, vf b) noexcept { return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ); }  ///< ordered
  static mask f_lt(vf a, vf b) noexcept { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }  ///< ordered
  static vf f_select(mask m, vf t, vf f) noexcept { return _mm512_mask_blend_ps(m, f, t); }
  static float f_hmax(vf a) noexcept { return _mm512_reduce_max_ps(a); }
  static std::uint32_t hmax_u(vi a) noexcept { return static_cast<std::uint32_t>(_mm512_reduce_max_epu32(a)); }
  static vf f_load_aligned(const float* p) noexcept { return _mm512_load_ps(p); }  ///< p 64-byte aligned
  static void f_store_aligned(float* p, vf x) noexcept { _mm512_store_ps(p, x); }
  /// v, opaque to the optimizer: a product passed through it is never fused into a later add.
  static vf f_opaque(vf v) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    __asm__("" : "+v"(v));
#endif
    return v;
  }
  static vi bit_select(vi m, vi t, vi f) noexcept {  ///< t where m's bits, else f
    return _mm512_ternarylogic_epi32(m, t, f, 0xCA);
  }
  static vi load_u8(const void* p) noexcept {  ///< 16 bytes, zero-extended
    return _mm512_cvtepu8_epi32(_mm_loadu_si128(static_cast<const __m128i*>(p)));
  }
  static void store(void* p, vi a) noexcept { _mm512_storeu_si512(p, a); }
  static vh h_load(const void* p) noexcept { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
  /// The words of w as the high halves of the lanes, low halves zero (bfloat16 -> float): one vpermw.
  static vi h_to_high(vh w) noexcept {
    const __m512i idx = _mm512_set_epi16(15, 0, 14, 0, 13, 0, 12, 0, 11, 0, 10, 0, 9, 0, 8, 0, 7, 0, 6, 0, 5, 0, 4, 0,
                                         3, 0, 2, 0, 1, 0, 0, 0);
    return _mm512_maskz_permutexvar_epi16(0xAAAAAAAAu, idx, _mm512_castsi256_si512(w));
  }
  /// The high halves of the lanes, packed (float -> bfloat16 by truncation): one vpermw.
  static vh high_to_h(vi a) noexcept {
    const __m512i idx = _mm512_set_epi16(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 31, 29, 27, 25, 23, 21, 19, 17,
                                         15, 13, 11, 9, 7, 5, 3, 1);
    return _mm512_castsi512_si256(_mm512_permutexvar_epi16(idx, a));
  }
#if defined(MIXPREC_SIMD_AVX512_BF16)
  static constexpr bool has_bf16_pair = true;
  /// a and b rounded to bfloat16, nearest even, as floats, by one vcvtne2ps2bf16 (and two vpermw):
  /// it reads float subnormal inputs as zero, so only for lanes that cannot be subnormal.
  static void f_bf16_pair(vf& a, vf& b) noexcept {
    const __m512i p = reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(b, a));  // words 0-15: a, 16-31: b
    const __m512i lo = _mm512_set_epi16(15, 0, 14, 0, 13, 0, 12, 0, 11, 0, 10, 0, 9, 0, 8, 0, 7, 0, 6, 0, 5, 0, 4, 0, 3,
                                        0, 2, 0, 1, 0, 0, 0);
    const __m512i hi = _mm512_add_epi16(lo, _mm512_set1_epi32(16 << 16));
    a = _mm512_castsi512_ps(_mm512_maskz_permutexvar_epi16(0xAAAAAAAAu, lo, p));
    b = _mm512_castsi512_ps(_mm512_maskz_permutexvar_epi16(0xAAAAAAAAu, hi, p));
  }
#else
  static constexpr bool has_bf16_pair = false;  ///< no vcvtne2ps2bf16
#endif

  // Bulk conversions (kernels/detail/simd_convert.hpp): lane-masked tails, 64-byte streamed stores, doubles
  static constexpr bool has_masked_tail = true;  ///< a tail by lane masks (vec256: through a buffer)
  static constexpr bool has_stream64 = true;     ///< h_store2 / store16x2 <true>: non-temporal
  static mask first(std::size_t k) noexcept {  ///< the first min(k, N) lanes
    return k >= N ? all() : static_cast<mask>((1u << k) - 1u);
  }
  static vi load_z(const void* p, mask m) noexcept { return _mm512_maskz_loadu_epi32(m, p); }  ///< 0 outside m
  static void store_m(void* p, vi a, mask m) noexcept { _mm512_mask_storeu_epi32(p, m, a); }
  static vh h_load_z(const void* p, mask m) noexcept { return _mm256_maskz_loadu_epi16(m, p); }
  static void h_store_m(void* p, vh h, mask m) noexcept { _mm256_mask_storeu_epi16(p, m, h); }
  static vi widen16(vh h) noexcept { return _mm512_cvtepu16_epi32(h); }  ///< zero-extended
  static __m512i join(__m256i lo, __m256i hi) noexcept { return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1); }
  template <bool Stream>
  static void store64(void* p, __m512i v) noexcept {  ///< Stream: non-temporal (p 64-byte aligned)
    if (Stream) {
      _mm512_stream_si512(static_cast<__m512i*>(p), v);
    } else {
      _mm512_storeu_si512(p, v);
    }
  }
  template <bool Stream>
  static void h_store2(void* p, vh a, vh b) noexcept { store64<Stream>(p, join(a, b)); }  ///< 2N words: a, b
  template <bool Stream>
  static void store16x2(void* p, vi a, vi b) noexcept {  ///< the lanes of a, b (< 2^16) as 2N words
    store64<Stream>(p, join(narrow16(a), narrow16(b)));
  }
  static void d_store(double* p, vf f) noexcept {  ///< the N floats of f as doubles (exact)
    _mm512_storeu_pd(p, _mm512_cvtps_pd(_mm512_castps512_ps256(f)));
    _mm512_storeu_pd(p + 8, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(f), 1))));
  }
  static void d_store_m(double* p, vf f, mask m) noexcept {  ///< (p + 8 is formed only where m reaches it)
    _mm512_mask_storeu_pd(p, static_cast<__mmask8>(m), _mm512_cvtps_pd(_mm512_castps512_ps256(f)));
    if (m >> 8) {
      _mm512_mask_storeu_pd(p + 8, static_cast<__mmask8>(m >> 8),
                            _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(f), 1))));
    }
  }
  /// The doubles of p in m's lanes, 0 elsewhere, as two halves (p + 8 formed only where m reaches it).
  static __m512d d_load_lo_z(const double* p, mask m) noexcept {
    return _mm512_maskz_loadu_pd(static_cast<__mmask8>(m), p);
  }
  static __m512d d_load_hi_z(const double* p, mask m) noexcept {
    return (m >> 8) ? _mm512_maskz_loadu_pd(static_cast<__mmask8>(m >> 8), p + 8) : _mm512_setzero_pd();
  }
  /// 8 doubles -> 8 float bits rounded to odd: truncation (whatever the MXCSR mode), then OR 1
  /// into the last place where the float differs from the double (right while FTZ, DAZ are clear).
  static __m256i d_odd8(__m512d x) noexcept {
    const __m256 t = _mm512_cvt_roundpd_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __mmask8 inexact = _mm512_cmp_pd_mask(_mm512_cvtps_pd(t), x, _CMP_NEQ_UQ);
    const __m256i ti = _mm256_castps_si256(t);
    return _mm256_mask_or_epi32(ti, inexact, ti, _mm256_set1_epi32(1));
  }
  /// d_odd8 for formats whose least subnormal is far above float's normals (half): the sticky bit
  /// is the 29 low bits of the double; that is the rounding's where the float is normal; where it
  /// is not (|x| < 2^-126, beyond the float range, infinity, NaN) such a format's result is the
  /// same anyway (+-0 for tiny values, infinity or the NaN otherwise).
  static __m256i d_odd8_half(__m512d x) noexcept {
    const __m256 t = _mm512_cvt_roundpd_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __mmask8 sticky = _mm512_test_epi64_mask(_mm512_castpd_si512(x), _mm512_set1_epi64(0x1fffffff));
    const __m256i ti = _mm256_castps_si256(t);
    return _mm256_mask_or_epi32(ti, sticky, ti, _mm256_set1_epi32(1));
  }
  /// N doubles -> N float bits rounded to odd (d_odd8; _half: d_odd8_half); _z: 0 outside m.
  static vi d_odd(const double* p) noexcept { return join(d_odd8(_mm512_loadu_pd(p)), d_odd8(_mm512_loadu_pd(p + 8))); }
  static vi d_odd_z(const double* p, mask m) noexcept {
    return join(d_odd8(d_load_lo_z(p, m)), d_odd8(d_load_hi_z(p, m)));
  }
  static constexpr bool d_odd_half_exact = false;  ///< d_odd_half takes the sticky bit from the low bits
  static vi d_odd_half(const double* p) noexcept {
    return join(d_odd8_half(_mm512_loadu_pd(p)), d_odd8_half(_mm512_loadu_pd(p + 8)));
  }
  static vi d_odd_half_z(const double* p, mask m) noexcept {
    return join(d_odd8_half(d_load_lo_z(p, m)), d_odd8_half(d_load_hi_z(p, m)));
  }

  // 64-bit lanes (vq: N / 2 of them, qmask, vqf: N / 2 floats): the stochastic rounding of doubles
  using vq = __m512i;
  using qmask = __mmask8;
  using vqf = __m256;
  static vq q_set1(std::uint64_t x) noexcept { return _mm512_set1_epi64(static_cast<long long>(x)); }
  static vq q_load(const double* p) noexcept { return _mm512_loadu_si512(p); }  ///< the bits of N / 2 doubles
  static vq q_lo32(vi a) noexcept { return _mm512_cvtepu32_epi64(_mm512_castsi512_si256(a)); }  ///< lanes 0.., widened
  static vq q_hi32(vi a) noexcept { return _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(a, 1)); }  ///< lanes N / 2..
  static vq q_and(vq a, vq b) noexcept { return _mm512_and_si512(a, b); }
  static vq q_or(vq a, vq b) noexcept { return _mm512_or_si512(a, b); }
  static vq q_andnot(vq a, vq b) noexcept { return _mm512_andnot_si512(a, b); }  ///< ~a & b
  static vq q_add(vq a, vq b) noexcept { return _mm512_add_epi64(a, b); }
  static vq q_sub(vq a, vq b) noexcept { return _mm512_sub_epi64(a, b); }
  template <int S>
  static vq q_srli(vq a) noexcept { return _mm512_srli_epi64(a, S); }
  template <int S>
  static vq q_slli(vq a) noexcept { return _mm512_slli_epi64(a, S); }
  static vq q_srlv(vq a, vq s) noexcept { return _mm512_srlv_epi64(a, s); }  ///< counts > 63 give 0
  static vq q_sllv(vq a, vq s) noexcept { return _mm512_sllv_epi64(a, s); }
  // min/max of operands in [-2^31, 2^31) (vec256 compares their low halves)
  static vq q_min_u(vq a, vq b) noexcept { return _mm512_min_epu64(a, b); }
  static vq q_max_u(vq a, vq b) noexcept { return _mm512_max_epu64(a, b); }
  static vq q_max_i(vq a, vq b) noexcept { return _mm512_max_epi64(a, b); }
  static qmask q_gt_i(vq a, vq b) noexcept { return _mm512_cmpgt_epi64_mask(a, b); }
  static qmask q_eq0(vq a) noexcept { return _mm512_testn_epi64_mask(a, a); }
  static qmask q_m_and(qmask a, qmask b) noexcept { return static_cast<qmask>(a & b); }
  static qmask q_m_or(qmask a, qmask b) noexcept { return static_cast<qmask>(a | b); }
  static qmask q_m_andnot(qmask a, qmask b) noexcept { return static_cast<qmask>(~a & b); }
  static bool q_all_of(qmask m) noexcept { return m == 0xff; }
  static vq q_select(qmask m, vq t, vq f) noexcept { return _mm512_mask_mov_epi64(f, m, t); }
  static vqf q_to_float(vq bits) noexcept { return _mm512_cvtpd_ps(_mm512_castsi512_pd(bits)); }  ///< MXCSR's rounding
  static void q_store_f(float* p, vqf f) noexcept { _mm256_storeu_ps(p, f); }
#if defined(MIXPREC_SIMD_AVX512_BF16)
  /// The lanes of a or b holding a subnormal float (nonzero).
  static mask f_subnormal2(vf a, vf b) noexcept {
#if defined(MIXPREC_SIMD_AVX512_DQ)
    return static_cast<mask>(_mm512_fpclass_ps_mask(a, 0x20) | _mm512_fpclass_ps_mask(b, 0x20));  // 0x20: denormal
#else
    const __m512i e = _mm512_set1_epi32(0x7f800000), m = _mm512_set1_epi32(0x007fffff);
    const __m512i ua = _mm512_castps_si512(a), ub = _mm512_castps_si512(b);
    return static_cast<mask>((_mm512_testn_epi32_mask(ua, e) & _mm512_test_epi32_mask(ua, m)) |
                             (_mm512_testn_epi32_mask(ub, e) & _mm512_test_epi32_mask(ub, m)));
#endif
  }
  /// The 2N floats at s -> bfloat16 nearest even by one vcvtne2ps2bf16, stored at p; false,
  /// nothing stored, where one is subnormal (the instruction reads those as zero; a test that
  /// MXCSR.DAZ blinds).
  template <bool Stream>
  static bool bf16_pair_store(void* p, const float* s) noexcept {
    const __m512 lo = _mm512_loadu_ps(s), hi = _mm512_loadu_ps(s + 16);
    if (f_subnormal2(lo, hi) != 0) return false;
    const __m512bh h = _mm512_cvtne2ps_pbh(hi, lo);
    __m512i r;
    std::memcpy(&r, &h, sizeof r);
    store64<Stream>(p, r);
    return true;
  }
#endif

  // 32 lanes of 16 bits and a 128-entry table lookup (vpermt2w): the byte formats' decoder
  static constexpr bool has_lookup128 = true;
  using vw = __m512i;
  static constexpr std::size_t NW = 32;
  static vw w_load8s(const void* p) noexcept {  ///< 32 bytes, sign-extended
    return _mm512_cvtepi8_epi16(_mm256_loadu_si256(static_cast<const __m256i*>(p)));
  }
  static vw w_load8(const void* p) noexcept {  ///< 32 bytes, zero-extended
    return _mm512_cvtepu8_epi16(_mm256_loadu_si256(static_cast<const __m256i*>(p)));
  }
  /// t[idx & 127] for the 128 words t[0..127] (t: four vectors of 32).
  static vw w_lookup128(const vw* t, vw idx) noexcept {
    const __m512i r0 = _mm512_permutex2var_epi16(t[0], idx, t[1]);
    const __m512i r1 = _mm512_permutex2var_epi16(t[2], idx, t[3]);
    return _mm512_mask_blend_epi16(_mm512_test_epi16_mask(idx, _mm512_set1_epi16(0x40)), r0, r1);
  }
  static vw w_and(vw a, vw b) noexcept { return _mm512_and_si512(a, b); }
  static vw w_or(vw a, vw b) noexcept { return _mm512_or_si512(a, b); }
  static vw w_set1(std::uint16_t x) noexcept { return _mm512_set1_epi16(static_cast<short>(x)); }
  static vw w_replace_eq(vw a, vw c, vw key, vw value) noexcept {  ///< value where c == key, else a
    return _mm512_mask_mov_epi16(a, _mm512_cmpeq_epi16_mask(c, key), value);
  }
  /// The word order that w_store_high_words wants: word j of the result is word perm(j) of w
  /// (unpacklo/unpackhi work within 128-bit lanes).
  static vw w_order_for_store(vw w) noexcept {
    const __m512i perm = _mm512_set_epi16(31, 30, 29, 28, 15, 14, 13, 12, 27, 26, 25, 24, 11, 10, 9, 8, 23, 22, 21, 20,
                                          7, 6, 5, 4, 19, 18, 17, 16, 3, 2, 1, 0);
    return _mm512_permutexvar_epi16(perm, w);
  }
  /// 32 floats whose high 16 bits are the words of w (in w_order_for_store's order), stored at p.
  static void w_store_high_words(float* p, vw w) noexcept {
    const __m512i z = _mm512_setzero_si512();
    _mm512_storeu_si512(p, _mm512_unpacklo_epi16(z, w));
    _mm512_storeu_si512(p + 16, _mm512_unpackhi_epi16(z, w));
  }
  template <int S>
  static vw w_slli(vw a) noexcept { return _mm512_slli_epi16(a, S); }  ///< each word << S
  template <int S>
  static vw w_srli(vw a) noexcept { return _mm512_srli_epi16(a, S); }  ///< each word >> S (logical)
  static vw w_add(vw a, vw b) noexcept { return _mm512_add_epi16(a, b); }  ///< word sums mod 2^16

  // 4N lanes of 8 bits in a vi: the byte decoders (simd/decode.hpp)
  static constexpr bool has_mask_registers = true;  ///< mask is a k register (__mmask16), not a vector
  static vi b_set1(std::uint8_t x) noexcept { return _mm512_set1_epi8(static_cast<char>(x)); }  ///< every byte x
  /// The 16 bytes at p in every 128-bit lane (a b_shuffle table).
  static vi b_table16(const void* p) noexcept {
    return _mm512_broadcast_i32x4(_mm_loadu_si128(static_cast<const __m128i*>(p)));
  }
  /// Byte idx & 15 of t's same 128-bit lane, 0 where idx has bit 7 set (vpshufb).
  static vi b_shuffle(vi t, vi idx) noexcept { return _mm512_shuffle_epi8(t, idx); }
  static vi b_add(vi a, vi b) noexcept { return _mm512_add_epi8(a, b); }  ///< byte sums mod 2^8
  using bsel = __mmask64;  ///< a choice of bytes (b_lt16)
  /// The bytes whose (a & Bits) < 16 (one vptestnmb): the choice of b_lookup16_z and b_patch16.
  template <unsigned Bits>
  static bsel b_lt16(vi a) noexcept {
    return _mm512_testn_epi8_mask(a, b_set1(static_cast<std::uint8_t>(Bits & 0xf0u)));
  }
  /// A b_patch16 table: b_table16(replace) (cur, a's bytes where each index is chosen, unused).
  static vi b_patch_table(const std::uint8_t* replace, const std::uint8_t* /*cur*/) noexcept {
    return b_table16(replace);
  }
  /// a with the bytes that s chose replaced by the table's byte i & 15 of the same 128-bit lane
  /// (i's bit 7 clear there; a's byte there the cur[i & 15] of b_patch_table): one masked vpshufb.
  static vi b_patch16(bsel s, vi t, vi i, vi a) noexcept { return _mm512_mask_shuffle_epi8(a, s, t, i); }
  /// t's byte i & 15 of the same 128-bit lane where s chose (i's bit 7 clear there), else 0.
  static vi b_lookup16_z(bsel s, vi t, vi i) noexcept { return _mm512_maskz_shuffle_epi8(s, t, i); }
  using bmask = __mmask64;  ///< bytes chosen (b_eq)
  static bmask b_eq(vi a, vi b) noexcept { return _mm512_cmpeq_epi8_mask(a, b); }  ///< the bytes where a == b
  static vi b_blend(bmask m, vi a, vi b) noexcept { return _mm512_mask_blend_epi8(m, a, b); }  ///< b where m chose, else a
  /// Words of a byte of a (low) and of b (high): bytes 0-7 (lo), 8-15 (hi) of each 128-bit lane.
  static vw b_unpacklo(vi a, vi b) noexcept { return _mm512_unpacklo_epi8(a, b); }
  static vw b_unpackhi(vi a, vi b) noexcept { return _mm512_unpackhi_epi8(a, b); }  ///< see b_unpacklo
  /// a's dwords transposed as 4 x 4 blocks (one vpermd), so that w_store_high_words of b_unpacklo,
  /// then of b_unpackhi, of bytes computed from it stores the floats of a's bytes 0..4N-1 in order.
  static vi b_order_for_widen(vi a) noexcept {
    return _mm512_permutexvar_epi32(_mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0), a);
  }

  /// counter_rng's 32-bit outputs for consecutive counters (simd_optim.hpp's stream).
  struct rng {
    __m512i t0, t1, step;
    [[gnu::always_inline]] static __m512i mul64(__m512i a, std::uint64_t c) noexcept {
#if defined(MIXPREC_SIMD_AVX512_DQ)
      return _mm512_mullo_epi64(a, _mm512_set1_epi64(static_cast<long long>(c)));
#else
      const __m512i b = _mm512_set1_epi64(static_cast<long long>(c));
      const __m512i lo = _mm512_mul_epu32(a, b);
      const __m512i cross =
          _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(a, 32), b), _mm512_mul_epu32(a, _mm512_srli_epi64(b, 32)));
      return _mm512_add_epi64(lo, _mm512_slli_epi64(cross, 32));
#endif
    }
    // SplitMix64's output function without its last z ^= z >> 31 (done on the high halves in next()).
    [[gnu::always_inline]] static __m512i mix(__m512i z) noexcept {
      z = mul64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)), 0xBF58476D1CE4E5B9ull);
      return mul64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)), 0x94D049BB133111EBull);
    }
    rng(std::uint64_t key, std::uint64_t counter) noexcept {
      const std::uint64_t g = 0x9E3779B97F4A7C15ull;
      const std::uint64_t t = key + (counter + 1) * g;
      const __m512i lanes = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
      t0 = _mm512_add_epi64(_mm512_set1_epi64(static_cast<long long>(t)), mul64(lanes, g));
      t1 = _mm512_add_epi64(t0, _mm512_set1_epi64(static_cast<long long>(8 * g)));
      step = _mm512_set1_epi64(static_cast<long long>(16 * g));
    }
    [[gnu::always_inline]] __m512i next() noexcept {
      const __m512i a = mix(t0), b = mix(t1);
      t0 = _mm512_add_epi64(t0, step);
      t1 = _mm512_add_epi64(t1, step);
      const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
      const __m512i h = _mm512_permutex2var_epi32(a, odd, b);
      return _mm512_xor_si512(h, _mm512_srli_epi32(h, 31));
    }
    /// next() >> 16 (next()'s last xor changes bit 0 only): one vpermt2w picks the top words.
    [[gnu::always_inline]] __m512i next16() noexcept {
      const __m512i a = mix(t0), b = mix(t1);
      t0 = _mm512_add_epi64(t0, step);
      t1 = _mm512_add_epi64(t1, step);
      const __m512i top = _mm512_set_epi16(0, 63, 0, 59, 0, 55, 0, 51, 0, 47, 0, 43, 0, 39, 0, 35, 0, 31, 0, 27, 0, 23,
                                           0, 19, 0, 15, 0, 11, 0, 7, 0, 3);
      return _mm512_maskz_permutex2var_epi16(0x55555555u, a, top, b);
    }
  };
};

}  // namespace simd
}  // namespace mixprec
#endif  // MIXPREC_SIMD_AVX512

#endif  // MIXPREC_SIMD_VEC_AVX512_HPP
