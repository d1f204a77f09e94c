// SPDX-License-Identifier: MIT
// mixprec/recipes/detail/simd_block_scaling.hpp — x86 fast paths of block-scaling recipes (host only):
// Transformer Engine MXFP8 (mx_block_recipe<float8_e4m3fn>, rule te_rceil, rowwise 1x32) and
// NVFP4 (nvfp4_recipe, orders te / te_legacy, RNE, no Hadamard, rowwise 1x16; quantize also in
// 16x16 tiles), quantize and dequantize at AVX-512 and AVX2; OCP MX MXFP8 (ocp_floor, float8_e4m3fn / float8_e5m2, 1x32)
// and DeepSeek FP8 (1x128, FP32 / UE8M0 scales) quantize at both; when cols is a multiple of the block (so the blocks tile the flat array).
// Columnwise (cols a multiple of 16, any rows): TE MXFP8 32x1 and NVFP4 16x1 quantize and
// dequantize, 16 (8) columns' blocks per vector. NVFP4 stochastic rounding (1x16, 16x1): the
// scalar recipe's random words counter_bits(seed, k) >> 32 (SplitMix64's finalizer, 64-bit lanes:
// vpmullq, or three 32 x 32 products at AVX2), and the E2M1 code from the bits: truncated code
// s24 >> n plus the exponent, carry of (the 32 bits below) + random word (e2m1_codes_sr).
//
// Contract: every function gives the bits of the scalar recipe (block_scaling_mx.hpp,
// block_scaling_nvfp4.hpp) or returns false and writes nothing: when its level is not compiled in
// (levels as in simd_convert.hpp: avx512 and avx512_bf16 run the 512-bit kernels, avx2 the
// 256-bit ones, which need AVX2) or when MXCSR is not round-to-nearest with FTZ and DAZ clear
// (the kernels use IEEE float products and subnormal operands). Method (AVX-512), per group of
// 16 blocks: the block maxima as one vector (integer max of |x| bits, a transposing tree: a NaN
// wins and sends its block to the general path, which ignores it as the scalar fmax fold does),
// the scales from them with the recipe's own float operations, then the elements:
//   common case, checked per group (no NaN, scaled block max <= 464 for E4M3 / < 7 for E2M1) and
//   per vector (no lane that is an E4M3 subnormal after scaling or a float subnormal):
//     E4M3 / E5M2 of x * 2^k without a multiply: code = (|x| + cb + kept lsb) >> (23 - M),
//       cb = ((k - rebias) << 23) + half ulp - 1 (ocp_floor: min E's max code);
//     E2M1 of v = x * R (the scalar float product): min(2 + RNE on the bits, low bits of
//       |v| + 2^22), the second being RNE(2|v|) below 1;
//   every other lane: simd_narrow8's codes512 / codes256 (the library's one general vector
//   float -> FP8 / FP4 rounding), on x * 2^k or x * R. AVX2 works per block the same way (E2M1
//   by counting the RNE midpoints passed). Codes are packed 64 at a time (two packs, a permute).
//   Dequantize: E4M3 value = float(bits (c & 0x7F) << 20) * 2^120 (exact, subnormals included),
//     times the E8M0 scale (one IEEE product = the scalar's single rounding); E2M1 by a 16-entry
//     table, (P * S) exact in float, times float(1 / S_enc) rounded once.
// tests/test_block_scaling_simd.cpp compares every level with the scalar recipe (random data,
// every special, every code and midpoint, scale boundaries); CMake builds it per instruction set.
//   detail::mx_te_e4m3_quantize_at(detail::simd_level::avx2, in, n, elem_bits, scale_bits);
#ifndef MIXPREC_DETAIL_SIMD_BLOCK_SCALING_HPP
#define MIXPREC_DETAIL_SIMD_BLOCK_SCALING_HPP

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../mx.hpp"
#include "../../kernels/detail/simd_convert.hpp"
#include "../../kernels/detail/simd_narrow8.hpp"

namespace mixprec {
namespace detail {

/// The NVFP4 per-tensor parameters of the fast path (te or te_legacy order).
struct nvfp4_fast_params {
  float s_enc = 1.0f;     ///< TE's S_enc
  bool legacy = false;    ///< te_legacy order: (b * (1/6)) * S_enc
  bool quotient = false;  ///< encode factor S_enc / S instead of 1 / (S * (1 / S_enc))
};

namespace simd_blk {

/// MXCSR is round-to-nearest with FTZ and DAZ clear (what the kernels' float products assume).
inline bool fp_env_ok() noexcept {
#if defined(MIXPREC_SIMD_X86)
  return (_mm_getcsr() & 0xE040u) == 0;
#else
  return true;
#endif
}

inline float bits_float(std::uint32_t u) noexcept {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline std::uint32_t float_bits(float f) noexcept {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

/// TE MXFP8's E8M0 code of a block amax (the scalar rule) and the element factor 2^k as a float.
inline std::uint8_t mx_te_code(float amax) noexcept {
  const float rcp = static_cast<float>(1.0 / 448.0);  // as the scalar recipe: round_to<float>(1.0 / 448)
  return te_float_to_e8m0(amax * rcp);
}
/// TE's exp2f_rcp: 2^(127 - code) (2^127 for code 0, 2^-127 for 0xFE); legacy (TE before #2647):
/// 1 for code 0.
inline float mx_te_factor(std::uint8_t code, bool legacy) noexcept {
  return code == 0 && legacy ? 1.0f
         : code == 0xFE      ? bits_float(0x00400000u)
                             : bits_float(static_cast<std::uint32_t>(254 - code) << 23);
}
/// The float a dequantized element is multiplied by (TE's exp2f): 2^(code - 127), 2^-127 for code
/// 0; legacy (TE before #3262): 0 for code 0. 0xFF apart.
inline float mx_te_scale(std::uint8_t code, bool legacy) noexcept {
  return code == 0 ? (legacy ? 0.0f : bits_float(0x00400000u)) : bits_float(static_cast<std::uint32_t>(code) << 23);
}

/// E4M3 satfinite RNE code of a non-negative float (no NaN): the UE4M3 block scale of NVFP4.
inline std::uint32_t e4m3_code_nonneg(float v) noexcept {
  const std::uint32_t a = float_bits(v);
  if (a < 0x3C800000u) return static_cast<std::uint32_t>(static_cast<int>(std::nearbyint(v * 512.0f)));
  const std::uint32_t c = ((a + 0x7FFFFu + ((a >> 20) & 1u)) >> 20) - 960u;
  return c > 0x7Eu ? 0x7Eu : c;
}
/// The float value of a UE4M3 code.
inline float e4m3_value(std::uint32_t c) noexcept {
  return bits_float((c & 0x7Fu) << 20) * 1.329227995784916e36f;
}  // 2^120

/// NVFP4 block scale (float value, code) and encode factor for a block amax b (the scalar rule).
inline void nvfp4_block(float b, const nvfp4_fast_params& p, float k_te, float rcp6, float s_dec, float& sf,
                        std::uint8_t& code, float& r) noexcept {
  const float pre = p.legacy ? (b * rcp6) * p.s_enc : b * k_te;
  const std::uint32_t c = e4m3_code_nonneg(pre);
  code = static_cast<std::uint8_t>(c);
  sf = e4m3_value(c);
  const float flt_max = 3.4028234663852886e38f;
  r = p.quotient ? std::fmin(p.s_enc / sf, flt_max) : std::fmin(1.0f / (sf * s_dec), flt_max);
}

}  // namespace simd_blk

#if defined(MIXPREC_SIMD_AVX2)
namespace simd256 {

inline __m256 abs8(__m256 x) noexcept { return _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF))); }
inline float hmax8(__m256 m) noexcept {
  __m128 v = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
  v = _mm_max_ps(v, _mm_movehl_ps(v, v));
  v = _mm_max_ss(v, _mm_shuffle_ps(v, v, 1));
  return _mm_cvtss_f32(v);
}
/// E4M3 satfinite RNE codes (32-bit lanes) of 8 floats: simd_narrow8's converter.
inline __m256i e4m3_codes(__m256 v) noexcept {
  return narrow8::codes256<float_traits<float8_e4m3fn>::format_type>(_mm256_castps_si256(v), overflow::saturate);
}
/// E2M1 satfinite RNE codes (32-bit lanes) of 8 floats: simd_narrow8's converter (NaN 7, no sign).
inline __m256i e2m1_codes(__m256 v) noexcept {
  return narrow8::codes256<float_traits<float4_e2m1fn>::format_type>(_mm256_castps_si256(v), overflow::saturate);
}
/// The common case of e2m1_codes, no lane NaN (the caller checks the block): the RNE midpoints
/// 0.25 <, 0.75 <=, 1.25 <, 1.75 <=, 2.5 <, 3.5 <=, 5 < |v| passed, counted (ties to the even
/// code; 7 at most, so Inf too); sign as bit 3.
inline __m256i e2m1_codes_small(__m256 v) noexcept {
  const __m256 a = abs8(v);
  // Each compare gives -1 where passed; subtracting adds 1.
  __m256i c = _mm256_setzero_si256();
  c = _mm256_sub_epi32(c, _mm256_castps_si256(_mm256_cmp_ps(a, _mm256_set1_ps(0.25f), _CMP_GT_OQ)));
  c = _mm256_sub_epi32(c, _mm256_castps_si256(_mm256_cmp_ps(a, _mm256_set1_ps(0.75f), _CMP_GE_OQ)));
  c = _mm256_sub_epi32(c, _mm256_castps_si256(_mm256_cmp_ps(a, _mm256_set1_ps(1.25f), _CMP_GT_OQ)));
  c = _mm256_sub_epi32(c, _mm256_castps_si256(_mm256_cmp_ps(a, _mm256_set1_ps(1.75f), _CMP_GE_OQ)));
  c = _mm256_sub_epi32(c, _mm256_castps_si256(_mm256_cmp_ps(a, _mm256_set1_ps(2.5f), _CMP_GT_OQ)));
  c = _mm256_sub_epi32(c, _mm256_castps_si256(_mm256_cmp_ps(a, _mm256_set1_ps(3.5f), _CMP_GE_OQ)));
  c = _mm256_sub_epi32(c, _mm256_castps_si256(_mm256_cmp_ps(a, _mm256_set1_ps(5.0f), _CMP_GT_OQ)));
  return _mm256_or_si256(c, _mm256_and_si256(_mm256_srli_epi32(_mm256_castps_si256(v), 28), _mm256_set1_epi32(8)));
}
/// The common case of e4m3_codes(x * 2^k), as simd512::e4m3_codes_pow2; bad: a bit per lane.
inline __m256i e4m3_codes_pow2(__m256i x, __m256i cb, __m256i lo, int& bad) noexcept {
  const __m256i a = _mm256_and_si256(x, _mm256_set1_epi32(0x7FFFFFFF));
  const __m256i zero = _mm256_cmpeq_epi32(a, _mm256_setzero_si256());
  bad = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_andnot_si256(zero, _mm256_cmpgt_epi32(lo, a))));
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(a, 20), _mm256_set1_epi32(1));
  const __m256i c = _mm256_andnot_si256(zero, _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(a, cb), lsb), 20));
  return _mm256_or_si256(c, _mm256_and_si256(_mm256_srli_epi32(x, 24), _mm256_set1_epi32(0x80)));
}
/// max of 8 unsigned lanes.
inline std::uint32_t hmax8u(__m256i m) noexcept {
  __m128i v = _mm_max_epu32(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
  v = _mm_max_epu32(v, _mm_shuffle_epi32(v, 0x4E));
  v = _mm_max_epu32(v, _mm_shuffle_epi32(v, 0xB1));
  return static_cast<std::uint32_t>(_mm_cvtsi128_si32(v));
}
/// 4 x 8 codes (< 256) -> 32 bytes in order.
inline void store32(std::uint8_t* o, __m256i a, __m256i b, __m256i c, __m256i d) noexcept {
  const __m256i ab = _mm256_packs_epi32(a, b), cd = _mm256_packs_epi32(c, d);
  const __m256i x = _mm256_packus_epi16(ab, cd);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(o),
                      _mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
}
/// 2 x 8 codes (< 256) -> 16 bytes in order.
inline void store16(std::uint8_t* o, __m256i a, __m256i b) noexcept {
  const __m256i ab = _mm256_packs_epi32(a, b);  // a0-3 b0-3 | a4-7 b4-7 (16-bit)
  const __m256i x = _mm256_packus_epi16(ab, ab);
  const __m256i y = _mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(0, 4, 1, 5, 0, 0, 0, 0));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm256_castsi256_si128(y));
}
/// 8 codes (< 256) -> 8 bytes in order.
inline void store8(std::uint8_t* o, __m256i a) noexcept {
  const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));  // 16-bit
  _mm_storel_epi64(reinterpret_cast<__m128i*>(o), _mm_packus_epi16(w, w));
}
/// 8 E4M3 codes (bytes) -> floats (exact).
inline __m256 e4m3_values(const std::uint8_t* p) noexcept {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  const __m256i c = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(w)));
  const __m256i mag = _mm256_and_si256(c, _mm256_set1_epi32(0x7F));
  const __m256i sign = _mm256_slli_epi32(_mm256_and_si256(c, _mm256_set1_epi32(0x80)), 24);
  __m256 v = _mm256_mul_ps(_mm256_castsi256_ps(_mm256_slli_epi32(mag, 20)), _mm256_set1_ps(1.329227995784916e36f));
  const __m256i nan = _mm256_cmpeq_epi32(mag, _mm256_set1_epi32(0x7F));
  v = _mm256_blendv_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000)), _mm256_castsi256_ps(nan));
  return _mm256_or_ps(v, _mm256_castsi256_ps(sign));
}
/// 8 E2M1 codes (bytes, low nibble) -> floats.
inline __m256 e2m1_values(const std::uint8_t* p) noexcept {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  const __m256i c = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(w)));
  const __m256 lut = _mm256_setr_ps(0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f);
  const __m256 v = _mm256_permutevar8x32_ps(lut, c);  // uses the low 3 bits
  const __m256i sign = _mm256_slli_epi32(_mm256_and_si256(c, _mm256_set1_epi32(8)), 28);
  return _mm256_or_ps(v, _mm256_castsi256_ps(sign));
}

/// max |x| of n floats (n a multiple of 16), NaN ignored (the scalar fmax fold from 0).
inline float amax(const float* in, std::size_t n) noexcept {
  const __m256 z = _mm256_setzero_ps();
  __m256 m0 = z, m1 = z;
  for (std::size_t i = 0; i < n; i += 16) {
    m0 = _mm256_max_ps(abs8(_mm256_loadu_ps(in + i)), m0);  // a NaN lane keeps m0's
    m1 = _mm256_max_ps(abs8(_mm256_loadu_ps(in + i + 8)), m1);
  }
  return hmax8(_mm256_max_ps(m0, m1));
}

inline void mx_te_e4m3_quantize(const float* in, std::size_t nblocks, std::uint8_t* elem, std::uint8_t* scale,
                                bool legacy) noexcept {
  const __m256i am = _mm256_set1_epi32(0x7FFFFFFF);
  for (std::size_t b = 0; b < nblocks; ++b, in += 32, elem += 32) {
    __m256i x[4], c[4];
    for (int i = 0; i < 4; ++i) x[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + 8 * i));
    const std::uint32_t mb =
        hmax8u(_mm256_max_epu32(_mm256_max_epu32(_mm256_and_si256(x[0], am), _mm256_and_si256(x[1], am)),
                                _mm256_max_epu32(_mm256_and_si256(x[2], am), _mm256_and_si256(x[3], am))));
    float bmax = simd_blk::bits_float(mb);
    if (mb > 0x7F800000u) {  // a NaN: the block max without it (the scalar fmax fold from 0)
      const __m256 z = _mm256_setzero_ps();
      __m256 m = z;
      for (int i = 0; i < 4; ++i) m = _mm256_max_ps(abs8(_mm256_castsi256_ps(x[i])), m);  // a NaN lane loses
      bmax = hmax8(m);
    }
    const std::uint8_t code = simd_blk::mx_te_code(bmax);
    scale[b] = code;
    const float f = simd_blk::mx_te_factor(code, legacy);
    const __m256 r = _mm256_set1_ps(f);
    // The common case: no NaN, no overflow, and not te_rceil's code 0 (x * 2^127: the general path).
    if (mb <= 0x7F800000u && bmax * f <= 464.0f && (code != 0 || legacy)) {
      const int k = code == 0 ? 0 : 127 - code;
      const __m256i cb = _mm256_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(k - 120) << 23) + 0x7FFFF);
      const __m256i lo = _mm256_set1_epi32((121 - k > 1 ? 121 - k : 1) << 23);
      for (int i = 0; i < 4; ++i) {
        int bad;
        c[i] = e4m3_codes_pow2(x[i], cb, lo, bad);
        if (bad != 0) c[i] = e4m3_codes(_mm256_mul_ps(_mm256_castsi256_ps(x[i]), r));
      }
    } else {
      for (int i = 0; i < 4; ++i) c[i] = e4m3_codes(_mm256_mul_ps(_mm256_castsi256_ps(x[i]), r));
    }
    store32(elem, c[0], c[1], c[2], c[3]);
  }
}

inline void mx_te_e4m3_dequantize(const std::uint8_t* elem, const std::uint8_t* scale, std::size_t nblocks,
                                  float* out, bool legacy) noexcept {
  for (std::size_t b = 0; b < nblocks; ++b, elem += 32, out += 32) {
    const std::uint8_t code = scale[b];
    if (code == 0xFF) {
      for (int i = 0; i < 32; i += 8) _mm256_storeu_ps(out + i, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000)));
      continue;
    }
    const __m256 s = _mm256_set1_ps(simd_blk::mx_te_scale(code, legacy));
    for (int i = 0; i < 32; i += 8) _mm256_storeu_ps(out + i, _mm256_mul_ps(e4m3_values(elem + i), s));
  }
}

inline void nvfp4_quantize(const float* in, std::size_t nblocks, const nvfp4_fast_params& p, std::uint8_t* elem,
                           std::uint8_t* scale) noexcept {
  const float rcp6 = static_cast<float>(1.0 / 6.0);  // as the scalar recipe
  const float k_te = p.s_enc * rcp6, s_dec = 1.0f / p.s_enc;
  for (std::size_t b = 0; b < nblocks; ++b, in += 16, elem += 16) {
    const __m256 x0 = _mm256_loadu_ps(in), x1 = _mm256_loadu_ps(in + 8);
    const __m256 z = _mm256_setzero_ps();
    const float bmax = hmax8(_mm256_max_ps(_mm256_max_ps(abs8(x0), z), _mm256_max_ps(abs8(x1), z)));  // NaN ignored
    float sf, r;
    simd_blk::nvfp4_block(bmax, p, k_te, rcp6, s_dec, sf, scale[b], r);
    const __m256 rv = _mm256_set1_ps(r);
    const __m256 v0 = _mm256_mul_ps(x0, rv), v1 = _mm256_mul_ps(x1, rv);
    // No NaN element (a NaN compares unordered with itself): the common-case encoder.
    if (_mm256_movemask_ps(_mm256_or_ps(_mm256_cmp_ps(x0, x0, _CMP_UNORD_Q), _mm256_cmp_ps(x1, x1, _CMP_UNORD_Q))) == 0)
      store16(elem, e2m1_codes_small(v0), e2m1_codes_small(v1));
    else
      store16(elem, e2m1_codes(v0), e2m1_codes(v1));
  }
}

inline void nvfp4_dequantize(const std::uint8_t* elem, const std::uint8_t* scale, std::size_t nblocks, float s_dec,
                             float* out) noexcept {
  const __m256 d = _mm256_set1_ps(s_dec);
  for (std::size_t b = 0; b < nblocks; ++b, elem += 16, out += 16) {
    const __m256 s = _mm256_set1_ps(simd_blk::e4m3_value(scale[b]));
    _mm256_storeu_ps(out, _mm256_mul_ps(_mm256_mul_ps(e2m1_values(elem), s), d));
    _mm256_storeu_ps(out + 8, _mm256_mul_ps(_mm256_mul_ps(e2m1_values(elem + 8), s), d));
  }
}

/// OCP MX MXFP8 quantize (E = float8_e4m3fn or float8_e5m2), as simd512::mx_ocp_quantize, per block.
template <class E>
inline void mx_ocp_quantize(const float* in, std::size_t nblocks, std::uint8_t* elem, std::uint8_t* scale) noexcept {
  using F = typename float_traits<E>::format_type;
  constexpr int M = F::mantissa_bits, sh = 23 - M, emax = F::emax, emin = F::emin;
  const __m256i am = _mm256_set1_epi32(0x7FFFFFFF), maxc = _mm256_set1_epi32(static_cast<int>(F::max_code));
  const std::uint8_t nan_code = detail::quiet_nan<E>().bits();
  for (std::size_t b = 0; b < nblocks; ++b, in += 32, elem += 32) {
    __m256i x[4], c[4];
    for (int i = 0; i < 4; ++i) x[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + 8 * i));
    const std::uint32_t mb =
        hmax8u(_mm256_max_epu32(_mm256_max_epu32(_mm256_and_si256(x[0], am), _mm256_and_si256(x[1], am)),
                                _mm256_max_epu32(_mm256_and_si256(x[2], am), _mm256_and_si256(x[3], am))));
    if (mb >= 0x7F800000u) {  // Inf or NaN: the NaN scale, E's NaN everywhere
      scale[b] = 0xFF;
      std::memset(elem, nan_code, 32);
      continue;
    }
    const int e = static_cast<int>(mb >> 23);
    const int code = e - emax > 0 ? e - emax : 0, kk = 127 - code;
    scale[b] = static_cast<std::uint8_t>(code);
    const __m256 r = _mm256_set1_ps(simd_blk::bits_float(static_cast<std::uint32_t>(254 - code) << 23));
    const __m256i cb = _mm256_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(kk - (127 - F::bias)) << 23) +
                                         ((1 << (sh - 1)) - 1));
    const __m256i lo = _mm256_set1_epi32((127 + emin - kk > 1 ? 127 + emin - kk : 1) << 23);
    for (int i = 0; i < 4; ++i) {  // as e4m3_codes_pow2, E's width, clamped to E's max code
      const __m256i a = _mm256_and_si256(x[i], am);
      const __m256i zero = _mm256_cmpeq_epi32(a, _mm256_setzero_si256());
      if (_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_andnot_si256(zero, _mm256_cmpgt_epi32(lo, a)))) != 0) {
        c[i] = narrow8::codes256<F>(_mm256_castps_si256(_mm256_mul_ps(_mm256_castsi256_ps(x[i]), r)), overflow::saturate);
        continue;
      }
      const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(a, sh), _mm256_set1_epi32(1));
      const __m256i cm = _mm256_min_epi32(
          _mm256_andnot_si256(zero, _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(a, cb), lsb), sh)), maxc);
      c[i] = _mm256_or_si256(cm, _mm256_and_si256(_mm256_srli_epi32(x[i], 24), _mm256_set1_epi32(0x80)));
    }
    store32(elem, c[0], c[1], c[2], c[3]);
  }
}

/// DeepSeek-V3 FP8 1x128, as simd512::fp8_block128_quantize.
template <class ScaleFn>
inline void fp8_block128_quantize(const float* in, std::size_t nblocks, const ScaleFn& scale, std::uint8_t* elem,
                                  float* scales) noexcept {
  using F = float_traits<float8_e4m3fn>::format_type;
  const __m256 z = _mm256_setzero_ps();
  for (std::size_t b = 0; b < nblocks; ++b, in += 128, elem += 128) {
    __m256 m0 = z, m1 = z;
    for (int i = 0; i < 16; i += 2) {
      m0 = _mm256_max_ps(abs8(_mm256_loadu_ps(in + 8 * i)), m0);  // a NaN lane loses
      m1 = _mm256_max_ps(abs8(_mm256_loadu_ps(in + 8 * i + 8)), m1);
    }
    const float s = scale(hmax8(_mm256_max_ps(m0, m1)));
    scales[b] = s;
    const std::uint32_t u = simd_blk::float_bits(s);
    const bool p2 = (u & 0x7FFFFFu) == 0 && u >= 0x00800000u && u < 0x7F000000u;  // x * (1 / s): the same bits
    const __m256 sv = _mm256_set1_ps(s), rv = _mm256_set1_ps(1.0f / s);
    for (int i = 0; i < 16; i += 4) {
      __m256i c[4];
      for (int j = 0; j < 4; ++j) {
        const __m256 x = _mm256_loadu_ps(in + 8 * (i + j));
        c[j] = narrow8::codes256<F>(_mm256_castps_si256(p2 ? _mm256_mul_ps(x, rv) : _mm256_div_ps(x, sv)),
                                    overflow::saturate);
      }
      store32(elem + 8 * i, c[0], c[1], c[2], c[3]);
    }
  }
}

/// NVFP4 16x16 tiles (te / te_legacy, RNE): rows x cols floats, cols a multiple of 16; per tile the
/// fmax-fold amax of its (up to) 16 x 16 values, the scalar scale rule (scale[(r0 / 16) * (cols /
/// 16) + c0 / 16]), then each row's 16 elements encoded with the tile's factor (e2m1_codes).
inline void nvfp4_quantize_tiles(const float* in, std::size_t rows, std::size_t cols, const nvfp4_fast_params& p,
                                 std::uint8_t* elem, std::uint8_t* scale) noexcept {
  const float rcp6 = static_cast<float>(1.0 / 6.0);  // as the scalar recipe
  const float k_te = p.s_enc * rcp6, s_dec = 1.0f / p.s_enc;
  const __m256 z = _mm256_setzero_ps();
  const std::size_t sc = cols / 16;
  for (std::size_t r0 = 0; r0 < rows; r0 += 16) {
    const std::size_t r1 = rows - r0 < 16 ? rows : r0 + 16;
    for (std::size_t c0 = 0; c0 < cols; c0 += 16) {
      __m256 m = z, nan = z;
      for (std::size_t i = r0; i < r1; ++i) {  // NaN ignored (max_ps takes the second operand)
        const __m256 x0 = _mm256_loadu_ps(in + i * cols + c0), x1 = _mm256_loadu_ps(in + i * cols + c0 + 8);
        m = _mm256_max_ps(_mm256_max_ps(abs8(x0), z), m);
        m = _mm256_max_ps(_mm256_max_ps(abs8(x1), z), m);
        nan = _mm256_or_ps(nan, _mm256_or_ps(_mm256_cmp_ps(x0, x0, _CMP_UNORD_Q), _mm256_cmp_ps(x1, x1, _CMP_UNORD_Q)));
      }
      float sf, r;
      simd_blk::nvfp4_block(hmax8(m), p, k_te, rcp6, s_dec, sf, scale[(r0 / 16) * sc + c0 / 16], r);
      const __m256 rv = _mm256_set1_ps(r);
      const bool small = _mm256_movemask_ps(nan) == 0;  // no NaN element: the common-case encoder
      for (std::size_t i = r0; i < r1; ++i) {
        const float* x = in + i * cols + c0;
        const __m256 v0 = _mm256_mul_ps(_mm256_loadu_ps(x), rv), v1 = _mm256_mul_ps(_mm256_loadu_ps(x + 8), rv);
        if (small)
          store16(elem + i * cols + c0, e2m1_codes_small(v0), e2m1_codes_small(v1));
        else
          store16(elem + i * cols + c0, e2m1_codes(v0), e2m1_codes(v1));
      }
    }
  }
}

/// a * c modulo 2^64 in each 64-bit lane (AVX2 has no 64-bit multiply: three 32 x 32 products).
inline __m256i mul64c(__m256i a, std::uint64_t c) noexcept {
  const __m256i cl = _mm256_set1_epi64x(static_cast<long long>(c & 0xFFFFFFFFu));
  const __m256i ch = _mm256_set1_epi64x(static_cast<long long>(c >> 32));
  const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), cl), _mm256_mul_epu32(a, ch));
  return _mm256_add_epi64(_mm256_mul_epu32(a, cl), _mm256_slli_epi64(cross, 32));
}
/// SplitMix64's finalizer (detail::counter_bits) in each 64-bit lane.
inline __m256i splitmix_fin(__m256i z) noexcept {
  z = mul64c(_mm256_xor_si256(z, _mm256_srli_epi64(z, 30)), 0xBF58476D1CE4E5B9ull);
  z = mul64c(_mm256_xor_si256(z, _mm256_srli_epi64(z, 27)), 0x94D049BB133111EBull);
  return _mm256_xor_si256(z, _mm256_srli_epi64(z, 31));
}
/// counter_bits(seed, k0 + i) >> 32 for i = 0..7 (32-bit lanes): the scalar recipe's draws.
inline __m256i counter_hi8(std::uint64_t seed, std::uint64_t k0) noexcept {
  constexpr std::uint64_t g = 0x9E3779B97F4A7C15ull;
  const __m256i b = _mm256_set1_epi64x(static_cast<long long>(seed + (k0 + 1) * g));
  const __m256i z0 = splitmix_fin(_mm256_add_epi64(
      b, _mm256_setr_epi64x(0, static_cast<long long>(g), static_cast<long long>(2 * g), static_cast<long long>(3 * g))));
  const __m256i z1 = splitmix_fin(_mm256_add_epi64(b, _mm256_setr_epi64x(static_cast<long long>(4 * g), static_cast<long long>(5 * g),
                                                                          static_cast<long long>(6 * g), static_cast<long long>(7 * g))));
  // The high halves: z0_0 z0_1 z1_0 z1_1 | z0_2 z0_3 z1_2 z1_3, then the 64-bit pairs in order.
  const __m256 h = _mm256_shuffle_ps(_mm256_castsi256_ps(z0), _mm256_castsi256_ps(z1), _MM_SHUFFLE(3, 1, 3, 1));
  return _mm256_permute4x64_epi64(_mm256_castps_si256(h), _MM_SHUFFLE(3, 1, 2, 0));
}
/// E2M1 satfinite stochastic codes of 8 floats with 8 random words, as round_to<float4_e2m1fn>(v,
/// rounding::stochastic, overflow::saturate, rb): |v| = s24 * 2^(x - 23) (s24 with the hidden
/// bit), the quantum 2^(max(x, 0) - 1), so the truncated code is s24 >> n, n = 22 + max(-x, 0),
/// plus 2 max(x, 0), and the 32 bits below it, (s24 << (32 - n)) | (s24 >> (n - 32)) (variable
/// shifts past 31 give 0), round up when they plus rb carry out; min 7; sign as bit 3; NaN 7.
inline __m256i e2m1_codes_sr(__m256 v, __m256i rb) noexcept {
  const __m256i u = _mm256_castps_si256(v);
  const __m256i a = _mm256_and_si256(u, _mm256_set1_epi32(0x7FFFFFFF));
  const __m256i e = _mm256_max_epi32(_mm256_srli_epi32(a, 23), _mm256_set1_epi32(1));
  const __m256i s24 = _mm256_or_si256(_mm256_and_si256(a, _mm256_set1_epi32(0x7FFFFF)),
                                      _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(0x800000), a),
                                                          _mm256_set1_epi32(0x800000)));
  const __m256i n = _mm256_add_epi32(_mm256_max_epi32(_mm256_sub_epi32(_mm256_set1_epi32(127), e), _mm256_setzero_si256()),
                                     _mm256_set1_epi32(22));
  const __m256i whole = _mm256_srlv_epi32(s24, n);
  const __m256i frac = _mm256_or_si256(_mm256_sllv_epi32(s24, _mm256_sub_epi32(_mm256_set1_epi32(32), n)),
                                       _mm256_srlv_epi32(s24, _mm256_sub_epi32(n, _mm256_set1_epi32(32))));
  const __m256i sum = _mm256_add_epi32(frac, rb);
  const __m256i carry = _mm256_srli_epi32(
      _mm256_or_si256(_mm256_and_si256(frac, rb), _mm256_andnot_si256(sum, _mm256_or_si256(frac, rb))), 31);
  const __m256i ex = _mm256_slli_epi32(_mm256_max_epi32(_mm256_sub_epi32(e, _mm256_set1_epi32(127)), _mm256_setzero_si256()), 1);
  __m256i c = _mm256_min_epi32(_mm256_add_epi32(_mm256_add_epi32(whole, ex), carry), _mm256_set1_epi32(7));
  c = _mm256_or_si256(c, _mm256_and_si256(_mm256_srli_epi32(u, 28), _mm256_set1_epi32(8)));
  return _mm256_blendv_epi8(c, _mm256_set1_epi32(7), _mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x7F800000)));
}
/// UE4M3 codes (satfinite RNE) of 8 pre-scales >= 0 (not NaN) and the encode factors r = min(rn /
/// (S * rd), FLT_MAX) of their values S: simd_blk::nvfp4_block's rule, 8 blocks at once.
inline __m256i nvfp4_scales8(__m256 bmax, __m256 m1, __m256 m2, __m256 rn, __m256 rd, __m256& r) noexcept {
  const __m256i codes = _mm256_and_si256(e4m3_codes(_mm256_mul_ps(_mm256_mul_ps(bmax, m1), m2)), _mm256_set1_epi32(0x7F));
  const __m256 sf = _mm256_mul_ps(_mm256_castsi256_ps(_mm256_slli_epi32(codes, 20)), _mm256_set1_ps(1.329227995784916e36f));
  r = _mm256_min_ps(_mm256_div_ps(rn, _mm256_mul_ps(sf, rd)), _mm256_set1_ps(3.4028234663852886e38f));
  return codes;
}

/// NVFP4 1x16 with stochastic rounding: per block as nvfp4_quantize, element k (from 0 at in)
/// through e2m1_codes_sr with the random word counter_bits(seed, k) >> 32.
inline void nvfp4_quantize_sr(const float* in, std::size_t nblocks, const nvfp4_fast_params& p, std::uint64_t seed,
                              std::uint8_t* elem, std::uint8_t* scale) noexcept {
  const float rcp6 = static_cast<float>(1.0 / 6.0);  // as the scalar recipe
  const float k_te = p.s_enc * rcp6, s_dec = 1.0f / p.s_enc;
  const __m256 z = _mm256_setzero_ps();
  for (std::size_t b = 0; b < nblocks; ++b, in += 16, elem += 16) {
    const __m256 x0 = _mm256_loadu_ps(in), x1 = _mm256_loadu_ps(in + 8);
    const float bmax = hmax8(_mm256_max_ps(_mm256_max_ps(abs8(x0), z), _mm256_max_ps(abs8(x1), z)));  // NaN ignored
    float sf, r;
    simd_blk::nvfp4_block(bmax, p, k_te, rcp6, s_dec, sf, scale[b], r);
    const __m256 rv = _mm256_set1_ps(r);
    store16(elem, e2m1_codes_sr(_mm256_mul_ps(x0, rv), counter_hi8(seed, 16 * b)),
            e2m1_codes_sr(_mm256_mul_ps(x1, rv), counter_hi8(seed, 16 * b + 8)));
  }
}

/// NVFP4 16x1 blocks (down the columns; cols a multiple of 16, the last block row may be shorter),
/// stochastic rounding (SR) or RNE: 16 columns' blocks at once, element (i, j) with counter_bits(seed, i * cols
/// + j) >> 32; scale of block (i / 16, j) at scale[(i / 16) * cols + j].
/// SR false: RNE (e2m1_codes), seed unused.
template <bool SR>
inline void nvfp4_quantize_cols(const float* in, std::size_t rows, std::size_t cols, const nvfp4_fast_params& p,
                                std::uint64_t seed, std::uint8_t* elem, std::uint8_t* scale) noexcept {
  const float rcp6 = static_cast<float>(1.0 / 6.0);  // as the scalar recipe
  const float k_te = p.s_enc * rcp6, s_dec = 1.0f / p.s_enc;
  // RNE: the common-case encoder where the 16 x 16 block holds no NaN (as nvfp4_quantize).
  const auto enc = [seed](__m256 v, std::uint64_t k, bool small) {
    return SR ? e2m1_codes_sr(v, counter_hi8(seed, k)) : small ? e2m1_codes_small(v) : e2m1_codes(v);
  };
  const __m256 m1 = _mm256_set1_ps(p.legacy ? rcp6 : k_te), m2 = _mm256_set1_ps(p.legacy ? p.s_enc : 1.0f);
  const __m256 rn = _mm256_set1_ps(p.quotient ? p.s_enc : 1.0f), rd = _mm256_set1_ps(p.quotient ? 1.0f : s_dec);
  const __m256 z = _mm256_setzero_ps();
  for (std::size_t r0 = 0; r0 < rows; r0 += 16) {
    const std::size_t r1 = rows - r0 < 16 ? rows : r0 + 16;
    for (std::size_t c0 = 0; c0 < cols; c0 += 16) {
      __m256 ma = z, mb = z, nan = z;
      for (std::size_t i = r0; i < r1; ++i) {  // NaN ignored (max_ps takes the second operand)
        const __m256 xa = _mm256_loadu_ps(in + i * cols + c0), xb = _mm256_loadu_ps(in + i * cols + c0 + 8);
        ma = _mm256_max_ps(_mm256_max_ps(abs8(xa), z), ma);
        mb = _mm256_max_ps(_mm256_max_ps(abs8(xb), z), mb);
        if (!SR) nan = _mm256_or_ps(nan, _mm256_or_ps(_mm256_cmp_ps(xa, xa, _CMP_UNORD_Q), _mm256_cmp_ps(xb, xb, _CMP_UNORD_Q)));
      }
      const bool small = _mm256_movemask_ps(nan) == 0;
      __m256 ra, rb;
      const __m256i ca = nvfp4_scales8(ma, m1, m2, rn, rd, ra), cb = nvfp4_scales8(mb, m1, m2, rn, rd, rb);
      store16(scale + (r0 / 16) * cols + c0, ca, cb);
      for (std::size_t i = r0; i < r1; ++i) {
        const float* x = in + i * cols + c0;
        store16(elem + i * cols + c0, enc(_mm256_mul_ps(_mm256_loadu_ps(x), ra), i * cols + c0, small),
                enc(_mm256_mul_ps(_mm256_loadu_ps(x + 8), rb), i * cols + c0 + 8, small));
      }
    }
  }
}

/// NVFP4 16x1 blocks dequantize (cols a multiple of 16): (P * S) * s_dec as nvfp4_dequantize.
inline void nvfp4_dequantize_cols(const std::uint8_t* elem, const std::uint8_t* scale, std::size_t rows,
                                  std::size_t cols, float s_dec, float* out) noexcept {
  const __m256 d = _mm256_set1_ps(s_dec);
  for (std::size_t i = 0; i < rows; ++i) {
    const std::uint8_t* srow = scale + (i / 16) * cols;
    for (std::size_t j = 0; j < cols; j += 8) {
      std::uint64_t w;
      std::memcpy(&w, srow + j, 8);
      const __m256i c = _mm256_and_si256(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(w))),
                                         _mm256_set1_epi32(0x7F));
      const __m256 s = _mm256_mul_ps(_mm256_castsi256_ps(_mm256_slli_epi32(c, 20)), _mm256_set1_ps(1.329227995784916e36f));
      _mm256_storeu_ps(out + i * cols + j, _mm256_mul_ps(_mm256_mul_ps(e2m1_values(elem + i * cols + j), s), d));
    }
  }
}

/// TE MXFP8 E4M3 in 32x1 blocks (down the columns; cols a multiple of 8, the last block row may
/// be shorter): per 8 columns the fmax-fold amax over the block rows, the scalar code rule per
/// lane, elements e4m3_codes(x * 2^k); scale of block (i / 32, j) at scale[(i / 32) * cols + j].
inline void mx_te_e4m3_quantize_cols(const float* in, std::size_t rows, std::size_t cols, std::uint8_t* elem,
                                     std::uint8_t* scale, bool legacy) noexcept {
  const __m256 z = _mm256_setzero_ps();
  for (std::size_t r0 = 0; r0 < rows; r0 += 32) {
    const std::size_t r1 = rows - r0 < 32 ? rows : r0 + 32;
    for (std::size_t c0 = 0; c0 < cols; c0 += 8) {
      __m256 m = z;
      for (std::size_t i = r0; i < r1; ++i)  // NaN ignored (max_ps takes the second operand)
        m = _mm256_max_ps(_mm256_max_ps(abs8(_mm256_loadu_ps(in + i * cols + c0)), z), m);
      alignas(32) float mf[8], rf[8];
      _mm256_store_ps(mf, m);
      for (std::size_t j = 0; j < 8; ++j) {
        const std::uint8_t code = simd_blk::mx_te_code(mf[j]);
        scale[(r0 / 32) * cols + c0 + j] = code;
        rf[j] = simd_blk::mx_te_factor(code, legacy);
      }
      const __m256 r = _mm256_load_ps(rf);
      for (std::size_t i = r0; i < r1; ++i)
        store8(elem + i * cols + c0, e4m3_codes(_mm256_mul_ps(_mm256_loadu_ps(in + i * cols + c0), r)));
    }
  }
}

/// TE MXFP8 E4M3 32x1 blocks dequantize (cols a multiple of 8): as mx_te_e4m3_dequantize.
inline void mx_te_e4m3_dequantize_cols(const std::uint8_t* elem, const std::uint8_t* scale, std::size_t rows,
                                       std::size_t cols, float* out, bool legacy) noexcept {
  const __m256 qn = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000));
  // Code 0's factor: 2^-127 (TE's exp2f), or 0 (legacy: the shifted code).
  const __m256i f0 = _mm256_set1_epi32(legacy ? 0 : 0x00400000);
  for (std::size_t i = 0; i < rows; ++i) {
    const std::uint8_t* srow = scale + (i / 32) * cols;
    for (std::size_t j = 0; j < cols; j += 8) {
      std::uint64_t w;
      std::memcpy(&w, srow + j, 8);
      const __m256i c = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(w)));
      const __m256i sh = _mm256_slli_epi32(c, 23);
      const __m256i sf = _mm256_blendv_epi8(sh, f0, _mm256_cmpeq_epi32(c, _mm256_setzero_si256()));
      const __m256 v = _mm256_mul_ps(e4m3_values(elem + i * cols + j), _mm256_castsi256_ps(sf));
      _mm256_storeu_ps(out + i * cols + j,
                       _mm256_blendv_ps(v, qn, _mm256_castsi256_ps(_mm256_cmpeq_epi32(c, _mm256_set1_epi32(0xFF)))));
    }
  }
}

}  // namespace simd256
#endif  // MIXPREC_SIMD_AVX2

#if defined(MIXPREC_SIMD_AVX512)
namespace simd512 {

inline __m512 abs16(__m512 x) noexcept {
  return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(0x7FFFFFFF)));
}
/// E4M3 (satfinite RNE, NaN 0x7F with its sign) codes, 32-bit lanes, of 16 floats, every case:
/// simd_narrow8's converter (the one vector float -> FP8/FP4 rounding of the library).
inline __m512i e4m3_codes(__m512 v) noexcept {
  return narrow8::codes512<float_traits<float8_e4m3fn>::format_type>(_mm512_castps_si512(v), overflow::saturate);
}
/// E2M1 (satfinite RNE, NaN 7 without sign: round_to's) codes of 16 floats, every case.
inline __m512i e2m1_codes(__m512 v) noexcept {
  return narrow8::codes512<float_traits<float4_e2m1fn>::format_type>(_mm512_castps_si512(v), overflow::saturate);
}
/// The common case of e4m3_codes(x * 2^k) inside a block, on x's bits (no multiply): each lane zero
/// or with |x| at least lo = bits of max(2^(-6-k), FLT_MIN) (a float normal scaled to an E4M3
/// normal) and |x| * 2^k at most 464 (the caller checks the block max). Then the code is |x|'s
/// bits with the exponent moved, rounded to 3 mantissa bits:
///   code = (a + cb + bit 20 of a) >> 20,  cb = ((k - 120) << 23) + 0x7FFFF,  sign ORed in.
/// bad: the nonzero lanes below lo, which the caller re-encodes with e4m3_codes.
inline __m512i e4m3_codes_pow2(__m512i x, __m512i cb, __m512i lo, __mmask16& bad) noexcept {
  const __m512i a = _mm512_and_si512(x, _mm512_set1_epi32(0x7FFFFFFF));
  const __mmask16 nz = _mm512_test_epi32_mask(a, a);
  bad = _mm512_mask_cmplt_epu32_mask(nz, a, lo);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(a, 20), _mm512_set1_epi32(1));
  const __m512i c = _mm512_maskz_srli_epi32(nz, _mm512_add_epi32(_mm512_add_epi32(a, cb), lsb), 20);
  return _mm512_ternarylogic_epi32(c, _mm512_srli_epi32(x, 24), _mm512_set1_epi32(0x80), 0xF8);  // c | (s & 0x80)
}
/// The common case of e2m1_codes(v): |v| < 7 and not NaN (the caller checks the block max).
/// |v| >= 1: 2 + n, n = ((a - 0x3F800000 + 0x1FFFFF + bit 22 of a) >> 22); below: RNE(|v| * 2), the
/// low bits of d = bits(|v| + 2^22) (one float addition, ulp 0.5). code = min(n + 2 + bits(2^22), d)
/// & 7: below 1 n wraps high, from 1 up 2 + n <= RNE(2|v|). Sign as bit 3.
inline __m512i e2m1_codes_small(__m512 v) noexcept {
  const __m512i u = _mm512_castps_si512(v);
  const __m512i a = _mm512_and_si512(u, _mm512_set1_epi32(0x7FFFFFFF));
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(a, 22), _mm512_set1_epi32(1));
  const __m512i n = _mm512_srli_epi32(
      _mm512_add_epi32(_mm512_add_epi32(a, _mm512_set1_epi32(static_cast<int>(0x1FFFFFu - 0x3F800000u))), lsb), 22);
  const __m512i d = _mm512_castps_si512(_mm512_add_ps(_mm512_castsi512_ps(a), _mm512_set1_ps(4194304.0f)));
  const __m512i c = _mm512_min_epu32(_mm512_add_epi32(n, _mm512_set1_epi32(0x4A800002)), d);
  return _mm512_ternarylogic_epi32(c, _mm512_srli_epi32(u, 28), _mm512_set1_epi32(7), 0xE4);  // C ? A : B
}
/// 4 x 16 codes (32-bit lanes, < 256) -> 64 bytes in order: two packs and one permute.
inline void store64(std::uint8_t* o, __m512i c0, __m512i c1, __m512i c2, __m512i c3) noexcept {
  const __m512i b = _mm512_packus_epi16(_mm512_packus_epi32(c0, c1), _mm512_packus_epi32(c2, c3));
  _mm512_storeu_si512(reinterpret_cast<void*>(o),
                      _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), b));
}
/// 16 E4M3 codes (bytes) -> floats (exact).
inline __m512 e4m3_values(const std::uint8_t* p) noexcept {
  const __m512i c = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  const __m512i mag = _mm512_and_si512(c, _mm512_set1_epi32(0x7F));
  const __m512i sign = _mm512_slli_epi32(_mm512_and_si512(c, _mm512_set1_epi32(0x80)), 24);
  __m512i v = _mm512_castps_si512(
      _mm512_mul_ps(_mm512_castsi512_ps(_mm512_slli_epi32(mag, 20)), _mm512_set1_ps(1.329227995784916e36f)));
  v = _mm512_mask_mov_epi32(v, _mm512_cmpeq_epi32_mask(mag, _mm512_set1_epi32(0x7F)), _mm512_set1_epi32(0x7FC00000));
  return _mm512_castsi512_ps(_mm512_or_si512(v, sign));
}
/// 16 E2M1 codes (bytes, low nibble) -> floats.
inline __m512 e2m1_values(const std::uint8_t* p) noexcept {
  const __m512i c = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  const __m512 lut = _mm512_setr_ps(0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f, -0.0f, -0.5f, -1.0f, -1.5f, -2.0f,
                                    -3.0f, -4.0f, -6.0f);
  return _mm512_permutexvar_ps(c, lut);  // uses the low 4 bits
}

/// max |x| of n floats (n a multiple of 16), NaN ignored (the scalar fmax fold from 0).
inline float amax(const float* in, std::size_t n) noexcept {
  const __m512 z = _mm512_setzero_ps();
  __m512 m0 = z, m1 = z;
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    m0 = _mm512_max_ps(abs16(_mm512_loadu_ps(in + i)), m0);  // a NaN lane keeps m0's
    m1 = _mm512_max_ps(abs16(_mm512_loadu_ps(in + i + 16)), m1);
  }
  if (i < n) m0 = _mm512_max_ps(abs16(_mm512_loadu_ps(in + i)), m0);
  return _mm512_reduce_max_ps(_mm512_max_ps(m0, m1));
}

/// Lane i of the result = max over the 16 lanes of v[i] as unsigned integers (of |x| bits: the
/// float max, a NaN winning): a transposing tree.
inline __m512i umax16x16(const __m512i* v) noexcept {
  __m512i m[8], w[4];
  for (int k = 0; k < 8; ++k)
    m[k] = _mm512_max_epu32(_mm512_unpacklo_epi32(v[2 * k], v[2 * k + 1]), _mm512_unpackhi_epi32(v[2 * k], v[2 * k + 1]));
  for (int k = 0; k < 4; ++k)
    w[k] = _mm512_max_epu32(_mm512_unpacklo_epi64(m[2 * k], m[2 * k + 1]), _mm512_unpackhi_epi64(m[2 * k], m[2 * k + 1]));
  const __m512i u01 = _mm512_max_epu32(_mm512_shuffle_i32x4(w[0], w[1], _MM_SHUFFLE(1, 0, 1, 0)),
                                       _mm512_shuffle_i32x4(w[0], w[1], _MM_SHUFFLE(3, 2, 3, 2)));
  const __m512i u23 = _mm512_max_epu32(_mm512_shuffle_i32x4(w[2], w[3], _MM_SHUFFLE(1, 0, 1, 0)),
                                       _mm512_shuffle_i32x4(w[2], w[3], _MM_SHUFFLE(3, 2, 3, 2)));
  return _mm512_max_epu32(_mm512_shuffle_i32x4(u01, u23, _MM_SHUFFLE(2, 0, 2, 0)),
                          _mm512_shuffle_i32x4(u01, u23, _MM_SHUFFLE(3, 1, 3, 1)));
}
/// Lane i of v in every lane.
inline __m512 lane(__m512 v, int i) noexcept { return _mm512_permutexvar_ps(_mm512_set1_epi32(i), v); }

/// TE MXFP8 E8M0 codes of 16 block amaxes (te_float_to_e8m0 of amax * float(1/448)).
inline __m512i mx_te_codes(__m512 amax) noexcept {
  const __m512i u = _mm512_castps_si512(_mm512_mul_ps(amax, _mm512_set1_ps(static_cast<float>(1.0 / 448.0))));
  const __m512i e = _mm512_srli_epi32(u, 23);  // the product is >= 0
  const __m512i m = _mm512_and_si512(u, _mm512_set1_epi32(0x7FFFFF));
  const __mmask16 up = _mm512_test_epi32_mask(m, m) & _mm512_cmpneq_epi32_mask(e, _mm512_set1_epi32(0xFE)) &
                       static_cast<__mmask16>(~(_mm512_cmpeq_epi32_mask(e, _mm512_setzero_si512()) &
                                                _mm512_cmple_epi32_mask(m, _mm512_set1_epi32(0x400000))));
  const __m512i c = _mm512_mask_add_epi32(e, up, e, _mm512_set1_epi32(1));
  return _mm512_mask_mov_epi32(c, _mm512_cmpeq_epi32_mask(e, _mm512_set1_epi32(0xFF)), _mm512_set1_epi32(0xFE));
}
/// The element factors 2^(127 - code) (2^127 for code 0, legacy: 1; 2^-127 for 0xFE) of 16 codes.
inline __m512 mx_te_factors(__m512i c, bool legacy) noexcept {
  __m512i f = _mm512_slli_epi32(_mm512_sub_epi32(_mm512_set1_epi32(254), c), 23);
  if (legacy) f = _mm512_mask_mov_epi32(f, _mm512_cmpeq_epi32_mask(c, _mm512_setzero_si512()), _mm512_set1_epi32(0x3F800000));
  f = _mm512_mask_mov_epi32(f, _mm512_cmpeq_epi32_mask(c, _mm512_set1_epi32(0xFE)), _mm512_set1_epi32(0x00400000));
  return _mm512_castsi512_ps(f);
}

/// One block of 32: amax (NaN ignored), code, every element through e4m3_codes.
inline void mx_te_e4m3_block(const float* in, std::uint8_t* elem, std::uint8_t* scale, bool legacy) noexcept {
  const __m512 z = _mm512_setzero_ps();
  const __m512 x0 = _mm512_loadu_ps(in), x1 = _mm512_loadu_ps(in + 16);
  const __m512 m = _mm512_max_ps(_mm512_max_ps(abs16(x0), z), _mm512_max_ps(abs16(x1), z));  // a NaN lane loses
  const std::uint8_t code = simd_blk::mx_te_code(_mm512_reduce_max_ps(m));
  *scale = code;
  const __m512 r = _mm512_set1_ps(simd_blk::mx_te_factor(code, legacy));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(elem), _mm512_cvtepi32_epi8(e4m3_codes(_mm512_mul_ps(x0, r))));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(elem + 16), _mm512_cvtepi32_epi8(e4m3_codes(_mm512_mul_ps(x1, r))));
}

/// Chunks of groups of 16 blocks: first every group's scales (independent work the core overlaps),
/// then the elements, so no group waits on its own block-max tree and division. Sizes measured with
/// bench_block_scaling: NVFP4 (1 KiB groups) 4; MXFP8 (2 KiB) 1, as 2 was 5% faster from L2 but
/// 13% slower from DRAM.
constexpr std::size_t kMxChunk = 1, kNvChunk = 4;

inline void mx_te_e4m3_quantize(const float* in, std::size_t nblocks, std::uint8_t* elem, std::uint8_t* scale,
                                bool legacy) noexcept {
  const __m512i abs_mask = _mm512_set1_epi32(0x7FFFFFFF);
  std::size_t b = 0;
  while (b + 16 <= nblocks) {
    const std::size_t ng = (nblocks - b) / 16 < kMxChunk ? (nblocks - b) / 16 : kMxChunk;
    alignas(64) std::int32_t cb[16 * kMxChunk], lo[16 * kMxChunk];
    alignas(64) float rf[16 * kMxChunk];
    bool fast[kMxChunk];
    for (std::size_t g = 0; g < ng; ++g) {  // the scales of 16 blocks as one vector
      const float* gin = in + 512 * g;
      __m512i a[16];
      for (int k = 0; k < 16; ++k)
        a[k] = _mm512_max_epu32(_mm512_and_si512(_mm512_loadu_si512(gin + 32 * k), abs_mask),
                                _mm512_and_si512(_mm512_loadu_si512(gin + 32 * k + 16), abs_mask));
      const __m512 bmax = _mm512_castsi512_ps(umax16x16(a));
      const __m512i codes = mx_te_codes(bmax);
      const __m512 r = mx_te_factors(codes, legacy);
      const __mmask16 c0 = _mm512_cmpeq_epi32_mask(codes, _mm512_setzero_si512());
      // The common case for all 16 blocks: no NaN, scaled max <= 464 (no overflow; Inf fails too),
      // and no te_rceil code 0 (x * 2^127: the general path, mx_te_e4m3_block).
      fast[g] = _mm512_cmp_ps_mask(_mm512_mul_ps(bmax, r), _mm512_set1_ps(464.0f), _CMP_LE_OQ) == 0xFFFF &&
                (legacy || c0 == 0);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(scale + b + 16 * g), _mm512_cvtepi32_epi8(codes));
      // k = 127 - code (legacy code 0: k = 0, factor 1); cb and lo of e4m3_codes_pow2.
      const __m512i kk = _mm512_mask_mov_epi32(_mm512_sub_epi32(_mm512_set1_epi32(127), codes), c0, _mm512_setzero_si512());
      _mm512_store_si512(reinterpret_cast<void*>(cb + 16 * g),
                         _mm512_add_epi32(_mm512_slli_epi32(_mm512_sub_epi32(kk, _mm512_set1_epi32(120)), 23),
                                          _mm512_set1_epi32(0x7FFFF)));
      _mm512_store_si512(reinterpret_cast<void*>(lo + 16 * g),
                         _mm512_slli_epi32(_mm512_max_epi32(_mm512_sub_epi32(_mm512_set1_epi32(121), kk), _mm512_set1_epi32(1)), 23));
      _mm512_store_ps(rf + 16 * g, r);
    }
    for (std::size_t g = 0; g < ng; ++g, b += 16, in += 512, elem += 512) {
      if (!fast[g]) {
        for (std::size_t k = 0; k < 16; ++k) mx_te_e4m3_block(in + 32 * k, elem + 32 * k, scale + b + k, legacy);
        continue;
      }
      for (std::size_t k = 16 * g; k < 16 * g + 16; k += 2) {
        const float* p = in + 32 * (k - 16 * g);
        __m512i x[4], c[4];
        __mmask16 bad[4];
        for (std::size_t i = 0; i < 4; ++i) {
          x[i] = _mm512_loadu_si512(p + 16 * i);
          c[i] = e4m3_codes_pow2(x[i], _mm512_set1_epi32(cb[k + i / 2]), _mm512_set1_epi32(lo[k + i / 2]), bad[i]);
        }
        if ((bad[0] | bad[1] | bad[2] | bad[3]) != 0) {  // E4M3 subnormals or float subnormals: every case
          for (std::size_t i = 0; i < 4; ++i)
            if (bad[i] != 0) c[i] = e4m3_codes(_mm512_mul_ps(_mm512_castsi512_ps(x[i]), _mm512_set1_ps(rf[k + i / 2])));
        }
        store64(elem + 32 * (k - 16 * g), c[0], c[1], c[2], c[3]);
      }
    }
  }
  for (; b < nblocks; ++b, in += 32, elem += 32) mx_te_e4m3_block(in, elem, scale + b, legacy);
}

/// OCP MX v1.0 MXFP8 (rule ocp_floor, 1x32; element format E: float8_e4m3fn or float8_e5m2):
/// code = biased exponent of the block max - emax (0 at least; zero and float subnormals give 0),
/// an Inf or NaN in the block gives code 0xFF and E's NaN in every element; elements
/// E(x * 2^(127 - code)) satfinite RNE. Common case on the bits as e4m3_codes_pow2, for E's
/// mantissa width, with the code clamped to E's max (the floor rule lets the scaled max reach
/// 2^(emax + 1)); other lanes through simd_narrow8.
template <class E>
inline void mx_ocp_quantize(const float* in, std::size_t nblocks, std::uint8_t* elem, std::uint8_t* scale) noexcept {
  using F = typename float_traits<E>::format_type;
  constexpr int M = F::mantissa_bits, sh = 23 - M;
  constexpr int emax = F::emax, emin = F::emin;  // E4M3: 8, -6; E5M2: 15, -14
  const __m512i abs_mask = _mm512_set1_epi32(0x7FFFFFFF), maxc = _mm512_set1_epi32(static_cast<int>(F::max_code));
  const std::uint8_t nan_code = detail::quiet_nan<E>().bits();
  const auto encode = [&](__m512i x, float f) {
    return narrow8::codes512<F>(_mm512_castps_si512(_mm512_mul_ps(_mm512_castsi512_ps(x), _mm512_set1_ps(f))),
                                overflow::saturate);
  };
  // One block: the scalar rule, every element through simd_narrow8.
  const auto block = [&](const float* x32, std::uint8_t* e32, std::uint8_t* s1) {
    const __m512i x0 = _mm512_loadu_si512(x32), x1 = _mm512_loadu_si512(x32 + 16);
    const std::uint32_t mb = static_cast<std::uint32_t>(
        _mm512_reduce_max_epu32(_mm512_max_epu32(_mm512_and_si512(x0, abs_mask), _mm512_and_si512(x1, abs_mask))));
    if (mb >= 0x7F800000u) {  // Inf or NaN
      *s1 = 0xFF;
      std::memset(e32, nan_code, 32);
      return;
    }
    const int e = static_cast<int>(mb >> 23);
    const int code = e - emax > 0 ? e - emax : 0;
    *s1 = static_cast<std::uint8_t>(code);
    const float f = simd_blk::bits_float(static_cast<std::uint32_t>(254 - code) << 23);  // 2^(127 - code)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(e32), _mm512_cvtepi32_epi8(encode(x0, f)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(e32 + 16), _mm512_cvtepi32_epi8(encode(x1, f)));
  };
  std::size_t b = 0;
  for (; b + 16 <= nblocks; b += 16, in += 512, elem += 512) {
    __m512i a[16];
    for (int k = 0; k < 16; ++k)
      a[k] = _mm512_max_epu32(_mm512_and_si512(_mm512_loadu_si512(in + 32 * k), abs_mask),
                              _mm512_and_si512(_mm512_loadu_si512(in + 32 * k + 16), abs_mask));
    const __m512i e = _mm512_srli_epi32(umax16x16(a), 23);
    if (_mm512_cmpeq_epi32_mask(e, _mm512_set1_epi32(0xFF)) != 0) {  // an Inf or NaN block
      for (std::size_t k = 0; k < 16; ++k) block(in + 32 * k, elem + 32 * k, scale + b + k);
      continue;
    }
    const __m512i codes = _mm512_max_epi32(_mm512_sub_epi32(e, _mm512_set1_epi32(emax)), _mm512_setzero_si512());
    _mm_storeu_si128(reinterpret_cast<__m128i*>(scale + b), _mm512_cvtepi32_epi8(codes));
    const __m512i kk = _mm512_sub_epi32(_mm512_set1_epi32(127), codes);  // the element factor 2^kk
    alignas(64) std::int32_t cb[16], lo[16];
    alignas(64) float rf[16];
    _mm512_store_si512(reinterpret_cast<void*>(cb),
                       _mm512_add_epi32(_mm512_slli_epi32(_mm512_sub_epi32(kk, _mm512_set1_epi32(127 - F::bias)), 23),
                                        _mm512_set1_epi32((1 << (sh - 1)) - 1)));
    _mm512_store_si512(reinterpret_cast<void*>(lo),
                       _mm512_slli_epi32(_mm512_max_epi32(_mm512_sub_epi32(_mm512_set1_epi32(127 + emin), kk), _mm512_set1_epi32(1)), 23));
    _mm512_store_si512(reinterpret_cast<void*>(rf), _mm512_slli_epi32(_mm512_sub_epi32(_mm512_set1_epi32(254), codes), 23));
    for (int k = 0; k < 16; k += 2) {
      const float* p = in + 32 * k;
      __m512i x[4], c[4];
      __mmask16 bad[4];
      for (int i = 0; i < 4; ++i) {
        x[i] = _mm512_loadu_si512(p + 16 * i);
        const __m512i v = x[i];
        const __m512i av = _mm512_and_si512(v, abs_mask);
        const __mmask16 nz = _mm512_test_epi32_mask(av, av);
        bad[i] = _mm512_mask_cmplt_epu32_mask(nz, av, _mm512_set1_epi32(lo[k + i / 2]));
        const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(av, sh), _mm512_set1_epi32(1));
        const __m512i cm = _mm512_min_epu32(
            _mm512_maskz_srli_epi32(nz, _mm512_add_epi32(_mm512_add_epi32(av, _mm512_set1_epi32(cb[k + i / 2])), lsb), sh), maxc);
        c[i] = _mm512_ternarylogic_epi32(cm, _mm512_srli_epi32(v, 24), _mm512_set1_epi32(0x80), 0xF8);
      }
      if ((bad[0] | bad[1] | bad[2] | bad[3]) != 0) {
        for (int i = 0; i < 4; ++i)
          if (bad[i] != 0) c[i] = encode(x[i], rf[k + i / 2]);
      }
      store64(elem + 32 * k, c[0], c[1], c[2], c[3]);
    }
  }
  for (; b < nblocks; ++b, in += 32, elem += 32) block(in, elem, scale + b);
}

inline void mx_te_e4m3_dequantize(const std::uint8_t* elem, const std::uint8_t* scale, std::size_t nblocks,
                                  float* out, bool legacy) noexcept {
  const __m512 qn = _mm512_castsi512_ps(_mm512_set1_epi32(0x7FC00000));
  std::size_t b = 0;
  for (; b + 16 <= nblocks; b += 16) {
    const __m512i c = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(scale + b)));
    const __mmask16 nan = _mm512_cmpeq_epi32_mask(c, _mm512_set1_epi32(0xFF));
    // 2^(code - 127) (code 0: 2^-127, legacy 0), the NaN scale 0xFF handled below: a NaN factor
    // would keep the element's sign; the scalar recipe writes the positive quiet NaN.
    __m512i si = _mm512_slli_epi32(c, 23);
    if (!legacy) si = _mm512_mask_mov_epi32(si, _mm512_cmpeq_epi32_mask(c, _mm512_setzero_si512()), _mm512_set1_epi32(0x00400000));
    const __m512 s = _mm512_castsi512_ps(si);
    for (int k = 0; k < 16; ++k, elem += 32, out += 32) {
      if (((nan >> k) & 1u) != 0) {
        _mm512_storeu_ps(out, qn);
        _mm512_storeu_ps(out + 16, qn);
        continue;
      }
      const __m512 sk = lane(s, k);
      _mm512_storeu_ps(out, _mm512_mul_ps(e4m3_values(elem), sk));
      _mm512_storeu_ps(out + 16, _mm512_mul_ps(e4m3_values(elem + 16), sk));
    }
  }
  for (; b < nblocks; ++b, elem += 32, out += 32) {
    const std::uint8_t code = scale[b];
    if (code == 0xFF) {
      _mm512_storeu_ps(out, qn);
      _mm512_storeu_ps(out + 16, qn);
      continue;
    }
    const __m512 s = _mm512_set1_ps(simd_blk::mx_te_scale(code, legacy));
    _mm512_storeu_ps(out, _mm512_mul_ps(e4m3_values(elem), s));
    _mm512_storeu_ps(out + 16, _mm512_mul_ps(e4m3_values(elem + 16), s));
  }
}

/// UE4M3 values of 16 codes (32-bit lanes, < 0x7F).
inline __m512 e4m3_values_of(__m512i c) noexcept {
  return _mm512_mul_ps(_mm512_castsi512_ps(_mm512_slli_epi32(c, 20)), _mm512_set1_ps(1.329227995784916e36f));
}

inline void nvfp4_quantize(const float* in, std::size_t nblocks, const nvfp4_fast_params& p, std::uint8_t* elem,
                           std::uint8_t* scale) noexcept {
  const float rcp6 = static_cast<float>(1.0 / 6.0);  // as the scalar recipe
  const float k_te = p.s_enc * rcp6, s_dec = 1.0f / p.s_enc;
  const __m512 z = _mm512_setzero_ps();
  const __m512i abs_mask = _mm512_set1_epi32(0x7FFFFFFF);
  // One block: amax (NaN ignored), the scalar scale rule, every element through e2m1_codes.
  const auto block = [&](const float* x16, std::uint8_t* e16, std::uint8_t* s1) {
    const __m512 x = _mm512_loadu_ps(x16);
    float sf, r;
    simd_blk::nvfp4_block(_mm512_reduce_max_ps(_mm512_max_ps(abs16(x), z)), p, k_te, rcp6, s_dec, sf, *s1, r);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(e16), _mm512_cvtepi32_epi8(e2m1_codes(_mm512_mul_ps(x, _mm512_set1_ps(r)))));
  };
  // Without branches: pre = (b * m1) * m2 (te: b * k_te, times 1; te_legacy: (b * (1/6)) * S_enc),
  // r = rn / (sf * rd) (reciprocal: 1 / (sf * s_dec); quotient: S_enc / (sf * 1)).
  const __m512 m1 = _mm512_set1_ps(p.legacy ? rcp6 : k_te), m2 = _mm512_set1_ps(p.legacy ? p.s_enc : 1.0f);
  const __m512 rn = _mm512_set1_ps(p.quotient ? p.s_enc : 1.0f), rd = _mm512_set1_ps(p.quotient ? 1.0f : s_dec);
  std::size_t b = 0;
  while (b + 16 <= nblocks) {  // chunks of groups, as for MXFP8
    const std::size_t ng = (nblocks - b) / 16 < kNvChunk ? (nblocks - b) / 16 : kNvChunk;
    alignas(64) float rf[16 * kNvChunk];
    bool fast[kNvChunk];
    for (std::size_t g = 0; g < ng; ++g) {  // the scales of 16 blocks as one vector
      const float* gin = in + 256 * g;
      __m512i a[16];
      for (int k = 0; k < 16; ++k) a[k] = _mm512_and_si512(_mm512_loadu_si512(gin + 16 * k), abs_mask);
      const __m512 bmax = _mm512_castsi512_ps(umax16x16(a));
      const __m512 pre = _mm512_mul_ps(_mm512_mul_ps(bmax, m1), m2);
      // UE4M3 codes of pre >= 0: the common case (0 or [2^-6, 464]) as e4m3_codes_pow2 with k = 0.
      __mmask16 bad;
      __m512i codes = e4m3_codes_pow2(_mm512_castps_si512(pre), _mm512_set1_epi32(static_cast<int>(0x7FFFFu - (120u << 23))),
                                      _mm512_set1_epi32(121 << 23), bad);
      if ((bad | _mm512_cmp_ps_mask(pre, _mm512_set1_ps(464.0f), _CMP_NLE_UQ)) != 0)
        codes = _mm512_and_si512(e4m3_codes(pre), _mm512_set1_epi32(0x7F));
      const __m512 sf = e4m3_values_of(codes);
      const __m512 r = _mm512_min_ps(_mm512_div_ps(rn, _mm512_mul_ps(sf, rd)), _mm512_set1_ps(3.4028234663852886e38f));
      // The common case for all 16 blocks: no NaN, every scaled element below 7 (e2m1_codes_small).
      fast[g] = _mm512_cmp_ps_mask(_mm512_mul_ps(bmax, r), _mm512_set1_ps(7.0f), _CMP_LT_OQ) == 0xFFFF;
      _mm_storeu_si128(reinterpret_cast<__m128i*>(scale + b + 16 * g), _mm512_cvtepi32_epi8(codes));
      _mm512_store_ps(rf + 16 * g, r);
    }
    for (std::size_t g = 0; g < ng; ++g, b += 16, in += 256, elem += 256) {
      if (!fast[g]) {
        for (std::size_t k = 0; k < 16; ++k) block(in + 16 * k, elem + 16 * k, scale + b + k);
        continue;
      }
      const float* r = rf + 16 * g;
      for (int k = 0; k < 16; k += 4)
        store64(elem + 16 * k, e2m1_codes_small(_mm512_mul_ps(_mm512_loadu_ps(in + 16 * k), _mm512_set1_ps(r[k]))),
                e2m1_codes_small(_mm512_mul_ps(_mm512_loadu_ps(in + 16 * k + 16), _mm512_set1_ps(r[k + 1]))),
                e2m1_codes_small(_mm512_mul_ps(_mm512_loadu_ps(in + 16 * k + 32), _mm512_set1_ps(r[k + 2]))),
                e2m1_codes_small(_mm512_mul_ps(_mm512_loadu_ps(in + 16 * k + 48), _mm512_set1_ps(r[k + 3]))));
    }
  }
  for (; b < nblocks; ++b, in += 16, elem += 16) block(in, elem, scale + b);
}

inline void nvfp4_dequantize(const std::uint8_t* elem, const std::uint8_t* scale, std::size_t nblocks, float s_dec,
                             float* out) noexcept {
  const __m512 d = _mm512_set1_ps(s_dec);
  std::size_t b = 0;
  for (; b + 16 <= nblocks; b += 16) {
    const __m512i c = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(scale + b)));
    const __m512 s = e4m3_values_of(_mm512_and_si512(c, _mm512_set1_epi32(0x7F)));
    for (int k = 0; k < 16; ++k, elem += 16, out += 16)
      _mm512_storeu_ps(out, _mm512_mul_ps(_mm512_mul_ps(e2m1_values(elem), lane(s, k)), d));
  }
  for (; b < nblocks; ++b, elem += 16, out += 16) {
    const __m512 s = _mm512_set1_ps(simd_blk::e4m3_value(scale[b]));
    _mm512_storeu_ps(out, _mm512_mul_ps(_mm512_mul_ps(e2m1_values(elem), s), d));
  }
}

/// Whether x / s may be computed as x * (1 / s) with the same bits: s a normal power of two.
inline bool pow2_scale(float s) noexcept {
  const std::uint32_t u = simd_blk::float_bits(s);
  return (u & 0x7FFFFFu) == 0 && u >= 0x00800000u && u < 0x7F000000u;
}

/// DeepSeek-V3 FP8 1x128 (see fp8_block128_quantize_at): per block of 128, the fmax-fold amax, s =
/// scale(amax), elements simd_narrow8's E4M3 of the float quotient x / s.
template <class ScaleFn>
inline void fp8_block128_quantize(const float* in, std::size_t nblocks, const ScaleFn& scale, std::uint8_t* elem,
                                  float* scales) noexcept {
  using F = float_traits<float8_e4m3fn>::format_type;
  const __m512 z = _mm512_setzero_ps();
  for (std::size_t b = 0; b < nblocks; ++b, in += 128, elem += 128) {
    __m512 m0 = z, m1 = z;
    for (int i = 0; i < 8; i += 2) {
      m0 = _mm512_max_ps(abs16(_mm512_loadu_ps(in + 16 * i)), m0);  // a NaN lane loses
      m1 = _mm512_max_ps(abs16(_mm512_loadu_ps(in + 16 * i + 16)), m1);
    }
    const float s = scale(_mm512_reduce_max_ps(_mm512_max_ps(m0, m1)));
    scales[b] = s;
    const bool p2 = pow2_scale(s);
    const __m512 sv = _mm512_set1_ps(s), rv = _mm512_set1_ps(1.0f / s);
    __m512i c[8];
    for (int i = 0; i < 8; ++i) {
      const __m512 x = _mm512_loadu_ps(in + 16 * i);
      c[i] = narrow8::codes512_fast<F>(_mm512_castps_si512(p2 ? _mm512_mul_ps(x, rv) : _mm512_div_ps(x, sv)),
                                       overflow::saturate);
    }
    store64(elem, c[0], c[1], c[2], c[3]);
    store64(elem + 64, c[4], c[5], c[6], c[7]);
  }
}


/// Over rows [0, n) of the 16 columns at p (row stride cols): m = the fmax-fold max |x| per
/// column (NaN ignored: max_ps(|x|, 0) sanitizes), u = the max of |x| bits (a NaN wins); four
/// independent chains (max is exact, so the order does not matter).
inline void col_max(const float* p, std::size_t cols, std::size_t n, __m512& m, __m512i& u) noexcept {
  const __m512 z = _mm512_setzero_ps();
  __m512 m0 = z, m1 = z, m2 = z, m3 = z;
  __m512i u0 = _mm512_setzero_si512(), u1 = u0, u2 = u0, u3 = u0;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4, p += 4 * cols) {
    const __m512 a0 = abs16(_mm512_loadu_ps(p)), a1 = abs16(_mm512_loadu_ps(p + cols));
    const __m512 a2 = abs16(_mm512_loadu_ps(p + 2 * cols)), a3 = abs16(_mm512_loadu_ps(p + 3 * cols));
    m0 = _mm512_max_ps(_mm512_max_ps(a0, z), m0);
    m1 = _mm512_max_ps(_mm512_max_ps(a1, z), m1);
    m2 = _mm512_max_ps(_mm512_max_ps(a2, z), m2);
    m3 = _mm512_max_ps(_mm512_max_ps(a3, z), m3);
    u0 = _mm512_max_epu32(_mm512_castps_si512(a0), u0);
    u1 = _mm512_max_epu32(_mm512_castps_si512(a1), u1);
    u2 = _mm512_max_epu32(_mm512_castps_si512(a2), u2);
    u3 = _mm512_max_epu32(_mm512_castps_si512(a3), u3);
  }
  for (; i < n; ++i, p += cols) {
    const __m512 a = abs16(_mm512_loadu_ps(p));
    m0 = _mm512_max_ps(_mm512_max_ps(a, z), m0);
    u0 = _mm512_max_epu32(_mm512_castps_si512(a), u0);
  }
  m = _mm512_max_ps(_mm512_max_ps(m0, m1), _mm512_max_ps(m2, m3));
  u = _mm512_max_epu32(_mm512_max_epu32(u0, u1), _mm512_max_epu32(u2, u3));
}

/// NVFP4 16x16 tiles, as simd256::nvfp4_quantize_tiles, a tile row of 16 at a time.
inline void nvfp4_quantize_tiles(const float* in, std::size_t rows, std::size_t cols, const nvfp4_fast_params& p,
                                 std::uint8_t* elem, std::uint8_t* scale) noexcept {
  const float rcp6 = static_cast<float>(1.0 / 6.0);  // as the scalar recipe
  const float k_te = p.s_enc * rcp6, s_dec = 1.0f / p.s_enc;
  const std::size_t sc = cols / 16;
  for (std::size_t r0 = 0; r0 < rows; r0 += 16) {
    const std::size_t r1 = rows - r0 < 16 ? rows : r0 + 16;
    for (std::size_t c0 = 0; c0 < cols; c0 += 16) {
      __m512 m;
      __m512i u;  // max of |x| bits: a NaN wins
      col_max(in + r0 * cols + c0, cols, r1 - r0, m, u);
      float sf, r;
      const float bmax = _mm512_reduce_max_ps(m);
      simd_blk::nvfp4_block(bmax, p, k_te, rcp6, s_dec, sf, scale[(r0 / 16) * sc + c0 / 16], r);
      const __m512 rv = _mm512_set1_ps(r);
      // The common case (as nvfp4_quantize): no NaN, every scaled element below 7.
      if (_mm512_cmpgt_epu32_mask(u, _mm512_set1_epi32(0x7F800000)) == 0 && bmax * r < 7.0f) {
        for (std::size_t i = r0; i < r1; ++i)
          _mm_storeu_si128(reinterpret_cast<__m128i*>(elem + i * cols + c0),
                           _mm512_cvtepi32_epi8(e2m1_codes_small(_mm512_mul_ps(_mm512_loadu_ps(in + i * cols + c0), rv))));
        continue;
      }
      for (std::size_t i = r0; i < r1; ++i) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(elem + i * cols + c0),
                         _mm512_cvtepi32_epi8(e2m1_codes(_mm512_mul_ps(_mm512_loadu_ps(in + i * cols + c0), rv))));
      }
    }
  }
}

/// a * c modulo 2^64 in each 64-bit lane.
inline __m512i mul64c(__m512i a, std::uint64_t c) noexcept {
#if defined(__AVX512DQ__)
  return _mm512_mullo_epi64(a, _mm512_set1_epi64(static_cast<long long>(c)));
#else
  const __m512i cl = _mm512_set1_epi64(static_cast<long long>(c & 0xFFFFFFFFu));
  const __m512i ch = _mm512_set1_epi64(static_cast<long long>(c >> 32));
  const __m512i cross = _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(a, 32), cl), _mm512_mul_epu32(a, ch));
  return _mm512_add_epi64(_mm512_mul_epu32(a, cl), _mm512_slli_epi64(cross, 32));
#endif
}
/// SplitMix64's finalizer (detail::counter_bits) in each 64-bit lane.
inline __m512i splitmix_fin(__m512i z) noexcept {
  z = mul64c(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)), 0xBF58476D1CE4E5B9ull);
  z = mul64c(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)), 0x94D049BB133111EBull);
  return _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));
}
/// counter_bits(seed, k0 + i) >> 32 for i = 0..15 (32-bit lanes): the scalar recipe's draws.
inline __m512i counter_hi16(std::uint64_t seed, std::uint64_t k0) noexcept {
  constexpr std::uint64_t g = 0x9E3779B97F4A7C15ull;
  const __m512i b = _mm512_set1_epi64(static_cast<long long>(seed + (k0 + 1) * g));
  const auto gl = [](std::uint64_t j) { return static_cast<long long>(j * g); };
  const __m512i z0 = splitmix_fin(_mm512_add_epi64(b, _mm512_set_epi64(gl(7), gl(6), gl(5), gl(4), gl(3), gl(2), gl(1), 0)));
  const __m512i z1 =
      splitmix_fin(_mm512_add_epi64(b, _mm512_set_epi64(gl(15), gl(14), gl(13), gl(12), gl(11), gl(10), gl(9), gl(8))));
  return _mm512_permutex2var_epi32(z0, _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31), z1);
}
/// E2M1 satfinite stochastic codes of 16 floats with 16 random words, as simd256::e2m1_codes_sr.
inline __m512i e2m1_codes_sr(__m512 v, __m512i rb) noexcept {
  const __m512i u = _mm512_castps_si512(v);
  const __m512i a = _mm512_and_si512(u, _mm512_set1_epi32(0x7FFFFFFF));
  const __m512i e = _mm512_max_epi32(_mm512_srli_epi32(a, 23), _mm512_set1_epi32(1));
  const __m512i m = _mm512_and_si512(a, _mm512_set1_epi32(0x7FFFFF));
  const __m512i s24 = _mm512_mask_or_epi32(m, _mm512_cmpge_epu32_mask(a, _mm512_set1_epi32(0x800000)), m,
                                           _mm512_set1_epi32(0x800000));
  const __m512i n = _mm512_add_epi32(_mm512_max_epi32(_mm512_sub_epi32(_mm512_set1_epi32(127), e), _mm512_setzero_si512()),
                                     _mm512_set1_epi32(22));
  const __m512i whole = _mm512_srlv_epi32(s24, n);
  const __m512i frac = _mm512_or_si512(_mm512_sllv_epi32(s24, _mm512_sub_epi32(_mm512_set1_epi32(32), n)),
                                       _mm512_srlv_epi32(s24, _mm512_sub_epi32(n, _mm512_set1_epi32(32))));
  const __mmask16 carry = _mm512_cmplt_epu32_mask(_mm512_add_epi32(frac, rb), rb);
  const __m512i ex = _mm512_slli_epi32(_mm512_max_epi32(_mm512_sub_epi32(e, _mm512_set1_epi32(127)), _mm512_setzero_si512()), 1);
  __m512i c = _mm512_add_epi32(whole, ex);
  c = _mm512_min_epu32(_mm512_mask_add_epi32(c, carry, c, _mm512_set1_epi32(1)), _mm512_set1_epi32(7));
  c = _mm512_ternarylogic_epi32(c, _mm512_srli_epi32(u, 28), _mm512_set1_epi32(8), 0xF8);  // c | (s & 8)
  return _mm512_mask_mov_epi32(c, _mm512_cmpgt_epu32_mask(a, _mm512_set1_epi32(0x7F800000)), _mm512_set1_epi32(7));
}
/// UE4M3 codes of 16 block maxima and their encode factors, as simd256::nvfp4_scales8.
inline __m512i nvfp4_scales16(__m512 bmax, __m512 m1, __m512 m2, __m512 rn, __m512 rd, __m512& r) noexcept {
  const __m512i codes = _mm512_and_si512(e4m3_codes(_mm512_mul_ps(_mm512_mul_ps(bmax, m1), m2)), _mm512_set1_epi32(0x7F));
  r = _mm512_min_ps(_mm512_div_ps(rn, _mm512_mul_ps(e4m3_values_of(codes), rd)), _mm512_set1_ps(3.4028234663852886e38f));
  return codes;
}

/// NVFP4 1x16 with stochastic rounding (as simd256::nvfp4_quantize_sr): 16 blocks' scales as one
/// vector (maxima of |x| with NaN as 0, a transposing tree), then the elements.
inline void nvfp4_quantize_sr(const float* in, std::size_t nblocks, const nvfp4_fast_params& p, std::uint64_t seed,
                              std::uint8_t* elem, std::uint8_t* scale) noexcept {
  const float rcp6 = static_cast<float>(1.0 / 6.0);  // as the scalar recipe
  const float k_te = p.s_enc * rcp6, s_dec = 1.0f / p.s_enc;
  const __m512 m1 = _mm512_set1_ps(p.legacy ? rcp6 : k_te), m2 = _mm512_set1_ps(p.legacy ? p.s_enc : 1.0f);
  const __m512 rn = _mm512_set1_ps(p.quotient ? p.s_enc : 1.0f), rd = _mm512_set1_ps(p.quotient ? 1.0f : s_dec);
  const __m512 z = _mm512_setzero_ps();
  std::size_t b = 0;
  for (; b + 16 <= nblocks; b += 16, in += 256, elem += 256) {
    __m512i a[16];
    for (int k = 0; k < 16; ++k) a[k] = _mm512_castps_si512(_mm512_max_ps(abs16(_mm512_loadu_ps(in + 16 * k)), z));
    __m512 r;
    const __m512i codes = nvfp4_scales16(_mm512_castsi512_ps(umax16x16(a)), m1, m2, rn, rd, r);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(scale + b), _mm512_cvtepi32_epi8(codes));
    alignas(64) float rf[16];
    _mm512_store_ps(rf, r);
    const auto enc = [&](int k) {
      return e2m1_codes_sr(_mm512_mul_ps(_mm512_loadu_ps(in + 16 * k), _mm512_set1_ps(rf[k])),
                           counter_hi16(seed, 16 * (b + static_cast<std::size_t>(k))));
    };
    for (int k = 0; k < 16; k += 4) store64(elem + 16 * k, enc(k), enc(k + 1), enc(k + 2), enc(k + 3));
  }
  for (; b < nblocks; ++b, in += 16, elem += 16) {
    const __m512 x = _mm512_loadu_ps(in);
    float sf, r;
    simd_blk::nvfp4_block(_mm512_reduce_max_ps(_mm512_max_ps(abs16(x), z)), p, k_te, rcp6, s_dec, sf, scale[b], r);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(elem),
                     _mm512_cvtepi32_epi8(e2m1_codes_sr(_mm512_mul_ps(x, _mm512_set1_ps(r)), counter_hi16(seed, 16 * b))));
  }
}

/// NVFP4 16x1 blocks, stochastic rounding (SR) or RNE, as simd256::nvfp4_quantize_cols.
template <bool SR>
inline void nvfp4_quantize_cols(const float* in, std::size_t rows, std::size_t cols, const nvfp4_fast_params& p,
                                std::uint64_t seed, std::uint8_t* elem, std::uint8_t* scale) noexcept {
  const float rcp6 = static_cast<float>(1.0 / 6.0);  // as the scalar recipe
  const float k_te = p.s_enc * rcp6, s_dec = 1.0f / p.s_enc;
  const auto enc = [seed](__m512 v, std::uint64_t k, bool small) {
    return SR ? e2m1_codes_sr(v, counter_hi16(seed, k)) : small ? e2m1_codes_small(v) : e2m1_codes(v);
  };
  const __m512 m1 = _mm512_set1_ps(p.legacy ? rcp6 : k_te), m2 = _mm512_set1_ps(p.legacy ? p.s_enc : 1.0f);
  const __m512 rn = _mm512_set1_ps(p.quotient ? p.s_enc : 1.0f), rd = _mm512_set1_ps(p.quotient ? 1.0f : s_dec);
  for (std::size_t r0 = 0; r0 < rows; r0 += 16) {
    const std::size_t r1 = rows - r0 < 16 ? rows : r0 + 16;
    for (std::size_t c0 = 0; c0 < cols; c0 += 16) {
      __m512 m;
      __m512i u;  // max of |x| bits: a NaN wins
      col_max(in + r0 * cols + c0, cols, r1 - r0, m, u);
      __m512 r;
      const __m512i codes = nvfp4_scales16(m, m1, m2, rn, rd, r);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(scale + (r0 / 16) * cols + c0), _mm512_cvtepi32_epi8(codes));
      // RNE's common case (as nvfp4_quantize): no NaN, every scaled element below 7.
      const bool small = _mm512_cmpgt_epu32_mask(u, _mm512_set1_epi32(0x7F800000)) == 0 &&
                         _mm512_cmp_ps_mask(_mm512_mul_ps(m, r), _mm512_set1_ps(7.0f), _CMP_LT_OQ) == 0xFFFF;
      for (std::size_t i = r0; i < r1; ++i) {
        const std::size_t k = i * cols + c0;
        _mm_storeu_si128(reinterpret_cast<__m128i*>(elem + k),
                         _mm512_cvtepi32_epi8(enc(_mm512_mul_ps(_mm512_loadu_ps(in + k), r), k, small)));
      }
    }
  }
}

/// NVFP4 16x1 blocks dequantize, as simd256::nvfp4_dequantize_cols.
inline void nvfp4_dequantize_cols(const std::uint8_t* elem, const std::uint8_t* scale, std::size_t rows,
                                  std::size_t cols, float s_dec, float* out) noexcept {
  const __m512 d = _mm512_set1_ps(s_dec);
  for (std::size_t i = 0; i < rows; ++i) {
    const std::uint8_t* srow = scale + (i / 16) * cols;
    for (std::size_t j = 0; j < cols; j += 16) {
      const __m512i c = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(srow + j)));
      const __m512 s = e4m3_values_of(_mm512_and_si512(c, _mm512_set1_epi32(0x7F)));
      _mm512_storeu_ps(out + i * cols + j, _mm512_mul_ps(_mm512_mul_ps(e2m1_values(elem + i * cols + j), s), d));
    }
  }
}

/// TE MXFP8 E4M3 32x1 blocks, as simd256::mx_te_e4m3_quantize_cols, 16 columns at a time.
inline void mx_te_e4m3_quantize_cols(const float* in, std::size_t rows, std::size_t cols, std::uint8_t* elem,
                                     std::uint8_t* scale, bool legacy) noexcept {
  for (std::size_t r0 = 0; r0 < rows; r0 += 32) {
    const std::size_t r1 = rows - r0 < 32 ? rows : r0 + 32;
    for (std::size_t c0 = 0; c0 < cols; c0 += 16) {
      __m512 m;
      __m512i u;  // max of |x| bits: a NaN wins
      col_max(in + r0 * cols + c0, cols, r1 - r0, m, u);
      const __m512i codes = mx_te_codes(m);
      const __m512 r = mx_te_factors(codes, legacy);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(scale + (r0 / 32) * cols + c0), _mm512_cvtepi32_epi8(codes));
      // The common case (as mx_te_e4m3_quantize): no NaN, scaled max <= 464, no te_rceil code 0;
      // e4m3_codes_pow2 with each lane's k = 127 - code (legacy code 0: k = 0), other lanes
      // through e4m3_codes.
      const bool fast = _mm512_cmpgt_epu32_mask(u, _mm512_set1_epi32(0x7F800000)) == 0 &&
                        _mm512_cmp_ps_mask(_mm512_mul_ps(m, r), _mm512_set1_ps(464.0f), _CMP_LE_OQ) == 0xFFFF &&
                        (legacy || _mm512_cmpeq_epi32_mask(codes, _mm512_setzero_si512()) == 0);
      const __m512i kk = _mm512_mask_mov_epi32(_mm512_sub_epi32(_mm512_set1_epi32(127), codes),
                                               _mm512_cmpeq_epi32_mask(codes, _mm512_setzero_si512()), _mm512_setzero_si512());
      const __m512i cb = _mm512_add_epi32(_mm512_slli_epi32(_mm512_sub_epi32(kk, _mm512_set1_epi32(120)), 23), _mm512_set1_epi32(0x7FFFF));
      const __m512i lo = _mm512_slli_epi32(_mm512_max_epi32(_mm512_sub_epi32(_mm512_set1_epi32(121), kk), _mm512_set1_epi32(1)), 23);
      for (std::size_t i = r0; i < r1; ++i) {
        const __m512i x = _mm512_loadu_si512(in + i * cols + c0);
        __mmask16 bad = 1;
        __m512i c = fast ? e4m3_codes_pow2(x, cb, lo, bad) : x;
        if (!fast || bad != 0) c = e4m3_codes(_mm512_mul_ps(_mm512_castsi512_ps(x), r));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(elem + i * cols + c0), _mm512_cvtepi32_epi8(c));
      }
    }
  }
}

/// TE MXFP8 E4M3 32x1 blocks dequantize, as simd256::mx_te_e4m3_dequantize_cols.
inline void mx_te_e4m3_dequantize_cols(const std::uint8_t* elem, const std::uint8_t* scale, std::size_t rows,
                                       std::size_t cols, float* out, bool legacy) noexcept {
  const __m512i qn = _mm512_set1_epi32(0x7FC00000);
  for (std::size_t i = 0; i < rows; ++i) {
    const std::uint8_t* srow = scale + (i / 32) * cols;
    for (std::size_t j = 0; j < cols; j += 16) {
      const __m512i c = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(srow + j)));
      __m512i si = _mm512_slli_epi32(c, 23);  // 2^(code - 127); code 0: 2^-127 (legacy: 0)
      if (!legacy) si = _mm512_mask_mov_epi32(si, _mm512_cmpeq_epi32_mask(c, _mm512_setzero_si512()), _mm512_set1_epi32(0x00400000));
      const __m512 v = _mm512_mul_ps(e4m3_values(elem + i * cols + j), _mm512_castsi512_ps(si));
      _mm512_storeu_ps(out + i * cols + j, _mm512_castsi512_ps(_mm512_mask_mov_epi32(
                                               _mm512_castps_si512(v), _mm512_cmpeq_epi32_mask(c, _mm512_set1_epi32(0xFF)), qn)));
    }
  }
}

}  // namespace simd512
#endif  // MIXPREC_SIMD_AVX512

/// TE MXFP8 E4M3 quantize of n floats (n a multiple of 32) at a level: n element codes, n / 32
/// E8M0 codes. False (nothing written) where the level or the FP environment does not allow it.
inline bool mx_te_e4m3_quantize_at(simd_level l, const float* in, std::size_t n, std::uint8_t* elem,
                                   std::uint8_t* scale, bool legacy) noexcept {
  if (n % 32 != 0 || !simd_blk::fp_env_ok()) return false;
#if defined(MIXPREC_SIMD_AVX512)
  if (l == simd_level::avx512 || l == simd_level::avx512_bf16) {
    simd512::mx_te_e4m3_quantize(in, n / 32, elem, scale, legacy);
    return true;
  }
#endif
#if defined(MIXPREC_SIMD_AVX2)
  if (l == simd_level::avx2) {
    simd256::mx_te_e4m3_quantize(in, n / 32, elem, scale, legacy);
    return true;
  }
#endif
  (void)l, (void)in, (void)elem, (void)scale, (void)legacy;
  return false;
}

/// OCP MX (ocp_floor) MXFP8 quantize (E = float8_e4m3fn or float8_e5m2) of n floats (n a multiple
/// of 32), as mx_te_e4m3_quantize_at.
template <class E>
inline bool mx_ocp_quantize_at(simd_level l, const float* in, std::size_t n, std::uint8_t* elem,
                               std::uint8_t* scale) noexcept {
  if (n % 32 != 0 || !simd_blk::fp_env_ok()) return false;
#if defined(MIXPREC_SIMD_AVX512)
  if (l == simd_level::avx512 || l == simd_level::avx512_bf16) {
    simd512::mx_ocp_quantize<E>(in, n / 32, elem, scale);
    return true;
  }
#endif
#if defined(MIXPREC_SIMD_AVX2)
  if (l == simd_level::avx2) {
    simd256::mx_ocp_quantize<E>(in, n / 32, elem, scale);
    return true;
  }
#endif
  (void)l, (void)in, (void)elem, (void)scale;
  return false;
}

/// DeepSeek-V3 fine-grained FP8 quantize, rowwise 1x128 (n a multiple of 128): per block s =
/// scale(fmax-fold amax of |x|, NaN ignored) into scales, elements E4M3 satfinite RNE of the float
/// quotient x / s (as deepseek_fp8_recipe; x * (1 / s) where s is a normal power of two: the same
/// bits). The element rounding is simd_narrow8's. False (nothing written) as the others.
template <class ScaleFn>
inline bool fp8_block128_quantize_at(simd_level l, const float* in, std::size_t n, const ScaleFn& scale,
                                     std::uint8_t* elem, float* scales) noexcept {
  if (n % 128 != 0 || !simd_blk::fp_env_ok()) return false;
#if defined(MIXPREC_SIMD_AVX512)
  if (l == simd_level::avx512 || l == simd_level::avx512_bf16) {
    simd512::fp8_block128_quantize(in, n / 128, scale, elem, scales);
    return true;
  }
#endif
#if defined(MIXPREC_SIMD_AVX2)
  if (l == simd_level::avx2) {
    simd256::fp8_block128_quantize(in, n / 128, scale, elem, scales);
    return true;
  }
#endif
  (void)l, (void)in, (void)scale, (void)elem, (void)scales;
  return false;
}

/// TE MXFP8 E4M3 dequantize of n elements (n a multiple of 32), as mx_te_e4m3_quantize_at.
inline bool mx_te_e4m3_dequantize_at(simd_level l, const std::uint8_t* elem, const std::uint8_t* scale, std::size_t n,
                                     float* out, bool legacy) noexcept {
  if (n % 32 != 0 || !simd_blk::fp_env_ok()) return false;
#if defined(MIXPREC_SIMD_AVX512)
  if (l == simd_level::avx512 || l == simd_level::avx512_bf16) {
    simd512::mx_te_e4m3_dequantize(elem, scale, n / 32, out, legacy);
    return true;
  }
#endif
#if defined(MIXPREC_SIMD_AVX2)
  if (l == simd_level::avx2) {
    simd256::mx_te_e4m3_dequantize(elem, scale, n / 32, out, legacy);
    return true;
  }
#endif
  (void)l, (void)elem, (void)scale, (void)out, (void)legacy;
  return false;
}

/// max |x| of n floats (n a multiple of 16) with NaN ignored, as block_amax_fmax, into out.
inline bool amax_at(simd_level l, const float* in, std::size_t n, float& out) noexcept {
  if (n % 16 != 0) return false;
#if defined(MIXPREC_SIMD_AVX512)
  if (l == simd_level::avx512 || l == simd_level::avx512_bf16) {
    out = simd512::amax(in, n);
    return true;
  }
#endif
#if defined(MIXPREC_SIMD_AVX2)
  if (l == simd_level::avx2) {
    out = simd256::amax(in, n);
    return true;
  }
#endif
  (void)l, (void)in, (void)out;
  return false;
}

/// NVFP4 (te / te_legacy, RNE) quantize of n floats (n a multiple of 16) with S_enc p.s_enc.
inline bool nvfp4_quantize_at(simd_level l, const float* in, std::size_t n, const nvfp4_fast_params& p,
                              std::uint8_t* elem, std::uint8_t* scale) noexcept {
  if (n % 16 != 0 || !simd_blk::fp_env_ok()) return false;
#if defined(MIXPREC_SIMD_AVX512)
  if (l == simd_level::avx512 || l == simd_level::avx512_bf16) {
    simd512::nvfp4_quantize(in, n / 16, p, elem, scale);
    return true;
  }
#endif
#if defined(MIXPREC_SIMD_AVX2)
  if (l == simd_level::avx2) {
    simd256::nvfp4_quantize(in, n / 16, p, elem, scale);
    return true;
  }
#endif
  (void)l, (void)in, (void)p, (void)elem, (void)scale;
  return false;
}

/// NVFP4 (te / te_legacy, RNE) quantize of rows x cols floats in 16x16 tiles (cols a multiple of
/// 16; the last tile row may be shorter) with S_enc p.s_enc: elements row-major, one scale per
/// tile (row-major tile grid).
inline bool nvfp4_quantize_tiles_at(simd_level l, const float* in, std::size_t rows, std::size_t cols,
                                    const nvfp4_fast_params& p, std::uint8_t* elem, std::uint8_t* scale) noexcept {
  if (cols % 16 != 0 || !simd_blk::fp_env_ok()) return false;
#if defined(MIXPREC_SIMD_AVX512)
  if (l == simd_level::avx512 || l == simd_level::avx512_bf16) {
    simd512::nvfp4_quantize_tiles(in, rows, cols, p, elem, scale);
    return true;
  }
#endif
#if defined(MIXPREC_SIMD_AVX2)
  if (l == simd_level::avx2) {
    simd256::nvfp4_quantize_tiles(in, rows, cols, p, elem, scale);
    return true;
  }
#endif
  (void)l, (void)in, (void)rows, (void)cols, (void)p, (void)elem, (void)scale;
  return false;
}

/// NVFP4 (te order) dequantize of n elements (n a multiple of 16) with s_dec = float(1 / S_enc).
inline bool nvfp4_dequantize_at(simd_level l, const std::uint8_t* elem, const std::uint8_t* scale, std::size_t n,
                                float s_dec, float* out) noexcept {
  if (n % 16 != 0 || !simd_blk::fp_env_ok()) return false;
#if defined(MIXPREC_SIMD_AVX512)
  if (l == simd_level::avx512 || l == simd_level::avx512_bf16) {
    simd512::nvfp4_dequantize(elem, scale, n / 16, s_dec, out);
    return true;
  }
#endif
#if defined(MIXPREC_SIMD_AVX2)
  if (l == simd_level::avx2) {
    simd256::nvfp4_dequantize(elem, scale, n / 16, s_dec, out);
    return true;
  }
#endif
  (void)l, (void)elem, (void)scale, (void)s_dec, (void)out;
  return false;
}

/// NVFP4 (te / te_legacy) quantize with stochastic rounding of rows x cols floats (cols a multiple
/// of 16) with S_enc p.s_enc: blocks 1x16 (columnwise false) or 16x1 (true; the last block row may
/// be shorter); element k = i * cols + j rounded with the random word counter_bits(seed, k) >> 32
/// (the scalar recipe's draws, generated 8 or 16 at a time).
inline bool nvfp4_quantize_sr_at(simd_level l, const float* in, std::size_t rows, std::size_t cols, bool columnwise,
                                 const nvfp4_fast_params& p, std::uint64_t seed, std::uint8_t* elem,
                                 std::uint8_t* scale) noexcept {
  if (cols % 16 != 0 || !simd_blk::fp_env_ok()) return false;
#if defined(MIXPREC_SIMD_AVX512)
  if (l == simd_level::avx512 || l == simd_level::avx512_bf16) {
    if (columnwise) {
      simd512::nvfp4_quantize_cols<true>(in, rows, cols, p, seed, elem, scale);
    } else {
      simd512::nvfp4_quantize_sr(in, rows * cols / 16, p, seed, elem, scale);
    }
    return true;
  }
#endif
#if defined(MIXPREC_SIMD_AVX2)
  if (l == simd_level::avx2) {
    if (columnwise) {
      simd256::nvfp4_quantize_cols<true>(in, rows, cols, p, seed, elem, scale);
    } else {
      simd256::nvfp4_quantize_sr(in, rows * cols / 16, p, seed, elem, scale);
    }
    return true;
  }
#endif
  (void)l, (void)in, (void)rows, (void)columnwise, (void)p, (void)seed, (void)elem, (void)scale;
  return false;
}

/// NVFP4 (te / te_legacy, RNE) quantize of rows x cols floats (cols a multiple of 16) in 16x1
/// blocks (the last block row may be shorter), as nvfp4_quantize_tiles_at.
inline bool nvfp4_quantize_cols_at(simd_level l, const float* in, std::size_t rows, std::size_t cols,
                                   const nvfp4_fast_params& p, std::uint8_t* elem, std::uint8_t* scale) noexcept {
  if (cols % 16 != 0 || !simd_blk::fp_env_ok()) return false;
#if defined(MIXPREC_SIMD_AVX512)
  if (l == simd_level::avx512 || l == simd_level::avx512_bf16) {
    simd512::nvfp4_quantize_cols<false>(in, rows, cols, p, 0, elem, scale);
    return true;
  }
#endif
#if defined(MIXPREC_SIMD_AVX2)
  if (l == simd_level::avx2) {
    simd256::nvfp4_quantize_cols<false>(in, rows, cols, p, 0, elem, scale);
    return true;
  }
#endif
  (void)l, (void)in, (void)rows, (void)p, (void)elem, (void)scale;
  return false;
}

/// NVFP4 (te order) dequantize of rows x cols elements in 16x1 blocks (cols a multiple of 16).
inline bool nvfp4_dequantize_cols_at(simd_level l, const std::uint8_t* elem, const std::uint8_t* scale,
                                     std::size_t rows, std::size_t cols, float s_dec, float* out) noexcept {
  if (cols % 16 != 0 || !simd_blk::fp_env_ok()) return false;
#if defined(MIXPREC_SIMD_AVX512)
  if (l == simd_level::avx512 || l == simd_level::avx512_bf16) {
    simd512::nvfp4_dequantize_cols(elem, scale, rows, cols, s_dec, out);
    return true;
  }
#endif
#if defined(MIXPREC_SIMD_AVX2)
  if (l == simd_level::avx2) {
    simd256::nvfp4_dequantize_cols(elem, scale, rows, cols, s_dec, out);
    return true;
  }
#endif
  (void)l, (void)elem, (void)scale, (void)rows, (void)s_dec, (void)out;
  return false;
}

/// TE MXFP8 E4M3 quantize of rows x cols floats (cols a multiple of 16) in 32x1 blocks (the last
/// block row may be shorter), as mx_te_e4m3_quantize_at: scale of block (i / 32, j) at
/// scale[(i / 32) * cols + j].
inline bool mx_te_e4m3_quantize_cols_at(simd_level l, const float* in, std::size_t rows, std::size_t cols,
                                        std::uint8_t* elem, std::uint8_t* scale, bool legacy) noexcept {
  if (cols % 16 != 0 || !simd_blk::fp_env_ok()) return false;
#if defined(MIXPREC_SIMD_AVX512)
  if (l == simd_level::avx512 || l == simd_level::avx512_bf16) {
    simd512::mx_te_e4m3_quantize_cols(in, rows, cols, elem, scale, legacy);
    return true;
  }
#endif
#if defined(MIXPREC_SIMD_AVX2)
  if (l == simd_level::avx2) {
    simd256::mx_te_e4m3_quantize_cols(in, rows, cols, elem, scale, legacy);
    return true;
  }
#endif
  (void)l, (void)in, (void)rows, (void)elem, (void)scale, (void)legacy;
  return false;
}

/// TE MXFP8 E4M3 dequantize of rows x cols elements in 32x1 blocks (cols a multiple of 16).
inline bool mx_te_e4m3_dequantize_cols_at(simd_level l, const std::uint8_t* elem, const std::uint8_t* scale,
                                          std::size_t rows, std::size_t cols, float* out, bool legacy) noexcept {
  if (cols % 16 != 0 || !simd_blk::fp_env_ok()) return false;
#if defined(MIXPREC_SIMD_AVX512)
  if (l == simd_level::avx512 || l == simd_level::avx512_bf16) {
    simd512::mx_te_e4m3_dequantize_cols(elem, scale, rows, cols, out, legacy);
    return true;
  }
#endif
#if defined(MIXPREC_SIMD_AVX2)
  if (l == simd_level::avx2) {
    simd256::mx_te_e4m3_dequantize_cols(elem, scale, rows, cols, out, legacy);
    return true;
  }
#endif
  (void)l, (void)elem, (void)scale, (void)rows, (void)out, (void)legacy;
  return false;
}

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_SIMD_BLOCK_SCALING_HPP
