// SPDX-License-Identifier: MIT
// mixprec/simd/vec_avx2.hpp — vector traits of the 256-bit width (AVX2 + F16C), host only.
//
// What: simd::vec256, 8 lanes of 32 bits; masks are all-ones/all-zeros lanes of a vector. The
// same interface as simd/vec_avx512.hpp (see there): the kernels of simd/encode.hpp and
// simd/decode.hpp are written once over either.
// Contract: plain integer operations, no floating-point instruction except h2f (vcvtph2ps,
// exact) and mul (exact where used); results do not depend on MXCSR. The f_ float operations
// (the optimizer steps) are IEEE operations: those follow MXCSR; the d_ double conversions say
// what they depend on.
//   using V = mixprec::simd::vec256;  V::mask m = V::gt_u(V::load(p), V::set1(0x7f800000));
#ifndef MIXPREC_SIMD_VEC_AVX2_HPP
#define MIXPREC_SIMD_VEC_AVX2_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "isa.hpp"

#if defined(MIXPREC_SIMD_AVX2)
namespace mixprec {
namespace simd {

struct vec256 {
  static constexpr std::size_t N = 8;
  static constexpr const char* name = "avx2";
  using vi = __m256i;
  using mask = __m256i;
  using vh = __m128i;
  using vf = __m256;

  static vi set1(std::uint32_t x) noexcept { return _mm256_set1_epi32(static_cast<int>(x)); }
  static vi zero() noexcept { return _mm256_setzero_si256(); }
  static vi load(const void* p) noexcept { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
  static vi add(vi a, vi b) noexcept { return _mm256_add_epi32(a, b); }
  static vi sub(vi a, vi b) noexcept { return _mm256_sub_epi32(a, b); }
  static vi and_(vi a, vi b) noexcept { return _mm256_and_si256(a, b); }
  static vi or_(vi a, vi b) noexcept { return _mm256_or_si256(a, b); }
  static vi xor_(vi a, vi b) noexcept { return _mm256_xor_si256(a, b); }
  template <int S>
  static vi srli(vi a) noexcept { return _mm256_srli_epi32(a, S); }
  template <int S>
  static vi slli(vi a) noexcept { return _mm256_slli_epi32(a, S); }
  static vi srlv(vi a, vi s) noexcept { return _mm256_srlv_epi32(a, s); }  ///< counts > 31 give 0
  static vi sllv(vi a, vi s) noexcept { return _mm256_sllv_epi32(a, s); }
  static vi max_u(vi a, vi b) noexcept { return _mm256_max_epu32(a, b); }
  static vi min_u(vi a, vi b) noexcept { return _mm256_min_epu32(a, b); }
  static vi max_i(vi a, vi b) noexcept { return _mm256_max_epi32(a, b); }
  static mask gt_u(vi a, vi b) noexcept {
    const __m256i flip = _mm256_set1_epi32(static_cast<int>(0x80000000u));
    return _mm256_cmpgt_epi32(_mm256_xor_si256(a, flip), _mm256_xor_si256(b, flip));
  }
  static mask lt_u(vi a, vi b) noexcept { return gt_u(b, a); }
  static mask gt_i(vi a, vi b) noexcept { return _mm256_cmpgt_epi32(a, b); }
  static mask neg(vi a) noexcept { return _mm256_srai_epi32(a, 31); }  ///< sign bit set
  static mask eq(vi a, vi b) noexcept { return _mm256_cmpeq_epi32(a, b); }
  static mask ne(vi a, vi b) noexcept { return _mm256_xor_si256(_mm256_cmpeq_epi32(a, b), _mm256_set1_epi32(-1)); }
  static mask nonzero(vi a) noexcept { return ne(a, _mm256_setzero_si256()); }
  static mask test(vi a, vi b) noexcept { return nonzero(_mm256_and_si256(a, b)); }  ///< a & b nonzero
  static mask m_and(mask a, mask b) noexcept { return _mm256_and_si256(a, b); }
  static mask m_or(mask a, mask b) noexcept { return _mm256_or_si256(a, b); }
  static mask m_andnot(mask a, mask b) noexcept { return _mm256_andnot_si256(a, b); }  ///< ~a & b
  static bool any(mask m) noexcept { return !_mm256_testz_si256(m, m); }
  static bool all_of(mask m) noexcept { return _mm256_testc_si256(m, _mm256_set1_epi32(-1)) != 0; }
  static mask all() noexcept { return _mm256_set1_epi32(-1); }
  static mask none() noexcept { return _mm256_setzero_si256(); }
  static vi select(mask m, vi t, vi f) noexcept { return _mm256_blendv_epi8(f, t, m); }
  static vi zero_unless(mask m, vi a) noexcept { return _mm256_and_si256(m, a); }
  static vi add_one_if(mask m, vi a) noexcept { return _mm256_sub_epi32(a, m); }
  static vi or_one_if(mask m, vi a) noexcept { return _mm256_or_si256(a, _mm256_srli_epi32(m, 31)); }
  static constexpr bool has_lookup128 = false;  ///< no word permutes: the decoder computes
  static vh narrow16(vi a) noexcept {  ///< lanes < 2^16
    return _mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packus_epi32(a, a), 0x08));
  }
  static void store16(void* p, vi a) noexcept {  // lanes < 2^16
    _mm_storeu_si128(static_cast<__m128i*>(p),
                     _mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packus_epi32(a, a), 0x08)));
  }
  static void store8(void* p, vi a) noexcept {  // lanes < 2^8
    const __m128i w = _mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packus_epi32(a, a), 0x08));
    const __m128i b = _mm_packus_epi16(w, w);
    std::memcpy(p, &b, 8);
  }

  static vh h_load8(const void* p) noexcept { return _mm_cvtepu8_epi16(_mm_loadl_epi64(static_cast<const __m128i*>(p))); }
  static vh h_load8s(const void* p) noexcept {  ///< sign-extended
    return _mm_cvtepi8_epi16(_mm_loadl_epi64(static_cast<const __m128i*>(p)));
  }
  static vh h_set1(std::uint16_t x) noexcept { return _mm_set1_epi16(static_cast<short>(x)); }
  static vh h_and(vh a, vh b) noexcept { return _mm_and_si128(a, b); }
  static vh h_or(vh a, vh b) noexcept { return _mm_or_si128(a, b); }
  template <int S>
  static vh h_slli(vh a) noexcept { return _mm_slli_epi16(a, S); }
  static vh h_eq(vh a, vh b) noexcept { return _mm_cmpeq_epi16(a, b); }
  static vh h_select(vh m, vh t, vh f) noexcept { return _mm_blendv_epi8(f, t, m); }
  static vh h_add(vh a, vh b) noexcept { return _mm_add_epi16(a, b); }
  static void h_store(void* p, vh h) noexcept { _mm_storeu_si128(static_cast<__m128i*>(p), h); }
  static vf h2f(vh h) noexcept { return _mm256_cvtph_ps(h); }
  /// vcvtps2ph of the float bits u, rounding Imm (_MM_FROUND_TO_*; MXCSR.DAZ applies to the input).
  template <int Imm>
  static vh to_half(vi u) noexcept { return _mm256_cvtps_ph(_mm256_castsi256_ps(u), Imm | _MM_FROUND_NO_EXC); }
  static vf f_set1(float x) noexcept { return _mm256_set1_ps(x); }
  static vf f_mul(vf a, vf b) noexcept { return _mm256_mul_ps(a, b); }
  static void f_store(float* p, vf x) noexcept { _mm256_storeu_ps(p, x); }
  // IEEE float arithmetic (lane by lane, correctly rounded) and bit moves: the optimizer steps
  static vf f_load(const float* p) noexcept { return _mm256_loadu_ps(p); }
  static vf f_add(vf a, vf b) noexcept { return _mm256_add_ps(a, b); }
  static vf f_sub(vf a, vf b) noexcept { return _mm256_sub_ps(a, b); }
  static vf f_div(vf a, vf b) noexcept { return _mm256_div_ps(a, b); }
  static vf f_sqrt(vf a) noexcept { return _mm256_sqrt_ps(a); }
#if defined(MIXPREC_SIMD_FMA)
  static vf f_fma(vf a, vf b, vf c) noexcept { return _mm256_fmadd_ps(a, b, c); }  ///< a b + c, one rounding
#endif
  static vi f_bits(vf a) noexcept { return _mm256_castps_si256(a); }
  static vf f_from_bits(vi a) noexcept { return _mm256_castsi256_ps(a); }
  static mask f_nan(vf a) noexcept { return _mm256_castps_si256(_mm256_cmp_ps(a, a, _CMP_UNORD_Q)); }
  static mask f_ge(vf a, vf b) noexcept { return _mm256_castps_si256(_mm256_cmp_ps(a, b, _CMP_GE_OQ)); }  ///< ordered
  static mask f_eq(vf a, vf b) noexcept { return _mm256_castps_si256(_mm256_cmp_ps(a, b, _CMP_EQ_OQ)); }  ///< ordered
  static vf f_max(vf a, vf b) noexcept { return _mm256_max_ps(a, b); }  ///< b where either is NaN
  static vf f_min(vf a, vf b) noexcept { return _mm256_min_ps(a, b); }
  static mask f_le(vf a, vf b) noexcept { return _mm256_castps_si256(_mm256_cmp_ps(a, b, _CMP_LE_OQ)); }  ///< ordered
  static mask f_lt(vf a, vf b) noexcept { return _mm256_castps_si256(_mm256_cmp_ps(a, b, _CMP_LT_OQ)); }  ///< ordered
  static vf f_select(mask m, vf t, vf f) noexcept { return _mm256_blendv_ps(f, t, _mm256_castsi256_ps(m)); }
  static float f_hmax(vf m) noexcept {
    __m128 v = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    v = _mm_max_ps(v, _mm_movehl_ps(v, v));
    return _mm_cvtss_f32(_mm_max_ss(v, _mm_shuffle_ps(v, v, 1)));
  }
  static std::uint32_t hmax_u(vi m) noexcept {
    __m128i v = _mm_max_epu32(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
    v = _mm_max_epu32(v, _mm_shuffle_epi32(v, 0x4E));
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_max_epu32(v, _mm_shuffle_epi32(v, 0xB1))));
  }
  static vf f_load_aligned(const float* p) noexcept { return _mm256_load_ps(p); }  ///< p 32-byte aligned
  static void f_store_aligned(float* p, vf x) noexcept { _mm256_store_ps(p, x); }
  /// v, opaque to the optimizer: a product passed through it is never fused into a later add.
  static vf f_opaque(vf v) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    __asm__("" : "+x"(v));
#endif
    return v;
  }
  static vi bit_select(vi m, vi t, vi f) noexcept {  ///< t where m's bits, else f
    return _mm256_or_si256(_mm256_and_si256(m, t), _mm256_andnot_si256(m, f));
  }
  static vi load_u8(const void* p) noexcept {  ///< 8 bytes, zero-extended
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64(static_cast<const __m128i*>(p)));
  }
  static void store(void* p, vi a) noexcept { _mm256_storeu_si256(static_cast<__m256i*>(p), a); }
  static vh h_load(const void* p) noexcept { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }
  /// The words of w as the high halves of the lanes, low halves zero (bfloat16 -> float).
  static vi h_to_high(vh w) noexcept { return _mm256_slli_epi32(_mm256_cvtepu16_epi32(w), 16); }
  /// The high halves of the lanes, packed (float -> bfloat16 by truncation).
  static vh high_to_h(vi a) noexcept { return narrow16(_mm256_srli_epi32(a, 16)); }
  static constexpr bool has_bf16_pair = false;  ///< no vcvtne2ps2bf16
  /// even: lanes 0, 2, 4, 6 of a then of b; odd: lanes 1, 3, 5, 7 of a then of b.
  static void deinterleave(vi a, vi b, vi& even, vi& odd) noexcept {
    const __m256 fa = _mm256_castsi256_ps(a), fb = _mm256_castsi256_ps(b);
    const __m256 e = _mm256_shuffle_ps(fa, fb, _MM_SHUFFLE(2, 0, 2, 0)), o = _mm256_shuffle_ps(fa, fb, _MM_SHUFFLE(3, 1, 3, 1));
    even = _mm256_permute4x64_epi64(_mm256_castps_si256(e), _MM_SHUFFLE(3, 1, 2, 0));
    odd = _mm256_permute4x64_epi64(_mm256_castps_si256(o), _MM_SHUFFLE(3, 1, 2, 0));
  }

  // Bulk conversions (kernels/detail/simd_convert.hpp): tails through a buffer, doubles
  static constexpr bool has_masked_tail = false;  ///< no 16-bit masked loads: tails through a buffer
  static constexpr bool has_stream64 = false;     ///< streamed conversions go through a buffer
  static vi widen16(vh h) noexcept { return _mm256_cvtepu16_epi32(h); }  ///< zero-extended
  template <bool>
  static void h_store2(void* p, vh a, vh b) noexcept {  ///< 2N words: a, b
    _mm_storeu_si128(static_cast<__m128i*>(p), a);
    _mm_storeu_si128(static_cast<__m128i*>(p) + 1, b);
  }
  template <bool>
  static void store16x2(void* p, vi a, vi b) noexcept {  ///< the lanes of a, b (< 2^16) as 2N words
    _mm256_storeu_si256(static_cast<__m256i*>(p), _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xD8));
  }
  static void d_store(double* p, vf f) noexcept {  ///< the N floats of f as doubles (exact)
    _mm256_storeu_pd(p, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
    _mm256_storeu_pd(p + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
  }
  /// 8 doubles (a then b) -> 8 float bits rounded to odd, whatever the MXCSR rounding mode (right
  /// while FTZ, DAZ are clear): vcvtpd2ps rounds to one of the two floats around x; where that was
  /// the one farther from zero, step one ulp back toward zero (the bits minus one); then OR 1
  /// into the last place when inexact.
  static vi d_odd8(__m256d a, __m256d b) noexcept {
    const __m256d sign = _mm256_set1_pd(-0.0);
    const __m128 ta = _mm256_cvtpd_ps(a), tb = _mm256_cvtpd_ps(b);
    const __m256d ba = _mm256_cvtps_pd(ta), bb = _mm256_cvtps_pd(tb);
    const __m256i away = narrow_masks(_mm256_cmp_pd(_mm256_andnot_pd(sign, ba), _mm256_andnot_pd(sign, a), _CMP_GT_OQ),
                                      _mm256_cmp_pd(_mm256_andnot_pd(sign, bb), _mm256_andnot_pd(sign, b), _CMP_GT_OQ));
    const __m256i inexact = narrow_masks(_mm256_cmp_pd(ba, a, _CMP_NEQ_UQ), _mm256_cmp_pd(bb, b, _CMP_NEQ_UQ));
    const __m256i t = _mm256_add_epi32(_mm256_castps_si256(_mm256_set_m128(tb, ta)), away);  // away: -1
    return _mm256_or_si256(t, _mm256_and_si256(inexact, _mm256_set1_epi32(1)));
  }
  /// The low 32 bits of each 64-bit lane of a and b (all-ones/all-zeros masks), in order a, b.
  static vi narrow_masks(__m256d a, __m256d b) noexcept {
    const __m256 s = _mm256_shuffle_ps(_mm256_castpd_ps(a), _mm256_castpd_ps(b), _MM_SHUFFLE(2, 0, 2, 0));
    return _mm256_permute4x64_epi64(_mm256_castps_si256(s), 0xD8);
  }
  /// N doubles -> N float bits rounded to odd (d_odd8); _half: the same.
  static vi d_odd(const double* p) noexcept { return d_odd8(_mm256_loadu_pd(p), _mm256_loadu_pd(p + 4)); }
  static vi d_odd_half(const double* p) noexcept { return d_odd(p); }
  static constexpr bool d_odd_half_exact = true;  ///< d_odd_half is d_odd (no zero check needed)

  // 64-bit lanes (vq: N / 2 of them, qmask: all-ones lanes, vqf: N / 2 floats): see vec512
  using vq = __m256i;
  using qmask = __m256i;
  using vqf = __m128;
  static vq q_set1(std::uint64_t x) noexcept { return _mm256_set1_epi64x(static_cast<long long>(x)); }
  static vq q_load(const double* p) noexcept { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static vq q_lo32(vi a) noexcept { return _mm256_cvtepu32_epi64(_mm256_castsi256_si128(a)); }
  static vq q_hi32(vi a) noexcept { return _mm256_cvtepu32_epi64(_mm256_extracti128_si256(a, 1)); }
  static vq q_and(vq a, vq b) noexcept { return _mm256_and_si256(a, b); }
  static vq q_or(vq a, vq b) noexcept { return _mm256_or_si256(a, b); }
  static vq q_andnot(vq a, vq b) noexcept { return _mm256_andnot_si256(a, b); }  ///< ~a & b
  static vq q_add(vq a, vq b) noexcept { return _mm256_add_epi64(a, b); }
  static vq q_sub(vq a, vq b) noexcept { return _mm256_sub_epi64(a, b); }
  template <int S>
  static vq q_srli(vq a) noexcept { return _mm256_srli_epi64(a, S); }
  template <int S>
  static vq q_slli(vq a) noexcept { return _mm256_slli_epi64(a, S); }
  static vq q_srlv(vq a, vq s) noexcept { return _mm256_srlv_epi64(a, s); }  ///< counts > 63 give 0
  static vq q_sllv(vq a, vq s) noexcept { return _mm256_sllv_epi64(a, s); }
  // min/max of operands in [-2^31, 2^31): the 32-bit forms, the high half being the low's sign extension
  static vq q_min_u(vq a, vq b) noexcept { return _mm256_min_epu32(a, b); }
  static vq q_max_u(vq a, vq b) noexcept { return _mm256_max_epu32(a, b); }
  static vq q_max_i(vq a, vq b) noexcept { return _mm256_max_epi32(a, b); }
  static qmask q_gt_i(vq a, vq b) noexcept { return _mm256_cmpgt_epi64(a, b); }
  static qmask q_eq0(vq a) noexcept { return _mm256_cmpeq_epi64(a, _mm256_setzero_si256()); }
  static qmask q_m_and(qmask a, qmask b) noexcept { return _mm256_and_si256(a, b); }
  static qmask q_m_or(qmask a, qmask b) noexcept { return _mm256_or_si256(a, b); }
  static qmask q_m_andnot(qmask a, qmask b) noexcept { return _mm256_andnot_si256(a, b); }
  static bool q_all_of(qmask m) noexcept { return _mm256_movemask_epi8(m) == -1; }
  static vq q_select(qmask m, vq t, vq f) noexcept { return _mm256_blendv_epi8(f, t, m); }
  static vqf q_to_float(vq bits) noexcept { return _mm256_cvtpd_ps(_mm256_castsi256_pd(bits)); }  ///< MXCSR's rounding
  static void q_store_f(float* p, vqf f) noexcept { _mm_storeu_ps(p, f); }

  // 16-bit lanes (vw: NW of them) and 4N lanes of 8 bits in a vi: the byte decoders (simd/decode.hpp)
  static constexpr bool has_mask_registers = false;  ///< mask is a vector of all-ones/all-zeros lanes
  using vw = __m256i;  ///< NW lanes of 16 bits
  static constexpr std::size_t NW = 16;  ///< vw's lanes
  static vw w_set1(std::uint16_t x) noexcept { return _mm256_set1_epi16(static_cast<short>(x)); }  ///< every word x
  template <int S>
  static vw w_slli(vw a) noexcept { return _mm256_slli_epi16(a, S); }  ///< each word << S
  template <int S>
  static vw w_srli(vw a) noexcept { return _mm256_srli_epi16(a, S); }  ///< each word >> S (logical)
  static vw w_add(vw a, vw b) noexcept { return _mm256_add_epi16(a, b); }  ///< word sums mod 2^16
  /// 16 floats whose high 16 bits are the words of w (widened within 128-bit lanes), stored at p.
  static void w_store_high_words(float* p, vw w) noexcept {
    const __m256i z = _mm256_setzero_si256();
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm256_unpacklo_epi16(z, w));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + 8), _mm256_unpackhi_epi16(z, w));
  }
  static vi b_set1(std::uint8_t x) noexcept { return _mm256_set1_epi8(static_cast<char>(x)); }  ///< every byte x
  /// The 16 bytes at p in both 128-bit lanes (a b_shuffle table).
  static vi b_table16(const void* p) noexcept {
    return _mm256_broadcastsi128_si256(_mm_loadu_si128(static_cast<const __m128i*>(p)));
  }
  /// Byte idx & 15 of t's same 128-bit lane, 0 where idx has bit 7 set (vpshufb).
  static vi b_shuffle(vi t, vi idx) noexcept { return _mm256_shuffle_epi8(t, idx); }
  static vi b_add(vi a, vi b) noexcept { return _mm256_add_epi8(a, b); }  ///< byte sums mod 2^8
  /// A choice of bytes (b_lt16): bit 7 clear where chosen, the low 4 bits then the index.
  using bsel = __m256i;
  /// The bytes whose (a & Bits) < 16: (a & Bits) + 0x70, saturated (bit 7 set elsewhere).
  template <unsigned Bits>
  static bsel b_lt16(vi a) noexcept {
    const vi low = Bits == 0xffu ? a : _mm256_and_si256(a, b_set1(static_cast<std::uint8_t>(Bits)));
    return _mm256_adds_epu8(low, b_set1(0x70));
  }
  /// A b_patch16 table: replace[k] ^ cur[k] in both 128-bit lanes (cur: a's byte where index k is
  /// chosen).
  static vi b_patch_table(const std::uint8_t* replace, const std::uint8_t* cur) noexcept {
    std::uint8_t d[16] = {};
    for (unsigned k = 0; k < 16; ++k) d[k] = static_cast<std::uint8_t>(replace[k] ^ cur[k]);
    return b_table16(d);
  }
  /// a with the bytes that s chose replaced by b_patch_table's replace[index] (the index: s's low 4
  /// bits, those of the bytes b_lt16 took; i unused): a ^ the table's byte (vpshufb: 0 elsewhere).
  static vi b_patch16(bsel s, vi t, vi /*i*/, vi a) noexcept { return _mm256_xor_si256(a, _mm256_shuffle_epi8(t, s)); }
  /// t's byte of the same 128-bit lane where s chose (the index: s's low 4 bits), else 0 (vpshufb).
  static vi b_lookup16_z(bsel s, vi t, vi /*i*/) noexcept { return _mm256_shuffle_epi8(t, s); }
  using bmask = __m256i;  ///< bytes chosen (b_eq): 0xff, else 0
  static bmask b_eq(vi a, vi b) noexcept { return _mm256_cmpeq_epi8(a, b); }  ///< the bytes where a == b
  static vi b_blend(bmask m, vi a, vi b) noexcept { return _mm256_blendv_epi8(a, b, m); }  ///< b where m chose, else a
  /// Words of a byte of a (low) and of b (high): bytes 0-7 (lo), 8-15 (hi) of each 128-bit lane.
  static vw b_unpacklo(vi a, vi b) noexcept { return _mm256_unpacklo_epi8(a, b); }
  static vw b_unpackhi(vi a, vi b) noexcept { return _mm256_unpackhi_epi8(a, b); }  ///< see b_unpacklo
  /// a's dwords in the order 0, 2, 4, 6, 1, 3, 5, 7 (one vpermd), so that w_store_high_words of b_unpacklo,
  /// then of b_unpackhi, of bytes computed from it stores the floats of a's bytes 0..4N-1 in order.
  static vi b_order_for_widen(vi a) noexcept {
    return _mm256_permutevar8x32_epi32(a, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
  }

  /// counter_rng's 32-bit outputs for consecutive counters (simd/encode.hpp's and simd_optim.hpp's
  /// stream): lane j of the k-th next() is counter_rng(key)(counter + 8 k + j). SplitMix64's
  /// output function on 64-bit lanes without a 64-bit multiply: t0 holds the counters 0, 1, 4, 5
  /// of the next 8, t1 2, 3, 6, 7, so that vshufps of their high halves is in counter order; the
  /// first product is the low halves' vpmuludq plus the two cross products (one vpmulld) in the
  /// high half, the second is only needed in the high half: its cross products are taken for the 8
  /// lanes at once (two vpmulld on the low and the high halves, picked by vshufps).
  struct rng {
    __m256i t0, t1, step;
    __m256i c1, c1x, high, c2, c2h, c2l;  ///< the multipliers, opaque to the compiler (kept in registers)
    /// v, which the compiler may not rebuild from its value (it keeps or spills it instead).
    static __m256i opaque(__m256i v) noexcept {
#if defined(__GNUC__) || defined(__clang__)
      __asm__("" : "+x"(v));
#endif
      return v;
    }
    static __m256i set64(std::uint64_t x) noexcept { return _mm256_set1_epi64x(static_cast<long long>(x)); }
    rng(std::uint64_t key, std::uint64_t counter) noexcept {
      constexpr std::uint64_t g = 0x9E3779B97F4A7C15ull, m1 = 0xBF58476D1CE4E5B9ull, m2 = 0x94D049BB133111EBull;
      const std::uint64_t t = key + (counter + 1) * g;
      t0 = _mm256_set_epi64x(static_cast<long long>(t + 5 * g), static_cast<long long>(t + 4 * g),
                             static_cast<long long>(t + g), static_cast<long long>(t));
      t1 = _mm256_add_epi64(t0, set64(2 * g));
      step = opaque(set64(8 * g));
      c1 = opaque(set64(m1));
      c1x = opaque(set64((m1 << 32) | (m1 >> 32)));
      high = opaque(set64(0xFFFFFFFF00000000ull));
      c2 = opaque(set64(m2));
      c2h = opaque(_mm256_set1_epi32(static_cast<int>(m2 >> 32)));
      c2l = opaque(_mm256_set1_epi32(static_cast<int>(m2 & 0xFFFFFFFFu)));
    }
    /// (z ^ z >> 30) * m1 ^ (that >> 27) of the counters t (64-bit lanes): the low halves'
    /// product plus (lo m1_hi + hi m1_lo) << 32.
    [[gnu::always_inline]] __m256i mix1(__m256i t) const noexcept {
      const __m256i z = _mm256_xor_si256(t, _mm256_srli_epi64(t, 30));
      const __m256i cross = _mm256_mullo_epi32(z, c1x);  // lo * m1_hi, hi * m1_lo
      const __m256i p = _mm256_add_epi32(_mm256_add_epi32(_mm256_mul_epu32(z, c1), _mm256_slli_epi64(cross, 32)),
                                         _mm256_and_si256(cross, high));
      return _mm256_xor_si256(p, _mm256_srli_epi64(p, 27));
    }
    /// The next 8 outputs before SplitMix64's last z ^= z >> 31, which changes bit 0 of the high
    /// half only: next() is finish(raw()), and raw()'s top 31 bits are next()'s.
    [[gnu::always_inline]] __m256i raw() noexcept {
      const __m256 a = _mm256_castsi256_ps(mix1(t0)), b = _mm256_castsi256_ps(mix1(t1));
      t0 = _mm256_add_epi64(t0, step);
      t1 = _mm256_add_epi64(t1, step);
      // the high half of z * m2 in counter order: hi(lo * m2_lo) + lo * m2_hi + hi * m2_lo
      const __m256 la = _mm256_castsi256_ps(_mm256_mul_epu32(_mm256_castps_si256(a), c2));
      const __m256 lb = _mm256_castsi256_ps(_mm256_mul_epu32(_mm256_castps_si256(b), c2));
      const __m256i lo = _mm256_castps_si256(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)));
      const __m256i hi = _mm256_castps_si256(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
      return _mm256_add_epi32(_mm256_castps_si256(_mm256_shuffle_ps(la, lb, _MM_SHUFFLE(3, 1, 3, 1))),
                              _mm256_add_epi32(_mm256_mullo_epi32(lo, c2h), _mm256_mullo_epi32(hi, c2l)));
    }
    /// SplitMix64's last step on raw()'s lanes: h ^ h >> 31.
    static __m256i finish(__m256i h) noexcept { return _mm256_xor_si256(h, _mm256_srli_epi32(h, 31)); }
    [[gnu::always_inline]] __m256i next() noexcept { return finish(raw()); }  ///< the next 8 outputs
    [[gnu::always_inline]] __m256i next16() noexcept { return _mm256_srli_epi32(raw(), 16); }  ///< next() >> 16
  };
};

}  // namespace simd
}  // namespace mixprec
#endif  // MIXPREC_SIMD_AVX2

#endif  // MIXPREC_SIMD_VEC_AVX2_HPP
