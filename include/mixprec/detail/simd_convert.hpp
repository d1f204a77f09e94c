// mixprec/detail/simd_convert.hpp — x86 fast paths of the bulk conversions (host only).
//
// Chosen at compile time from the target macros (-mavx512f, -mf16c, -march=native, ...):
//   float  -> half       AVX-512F vcvtps2ph (zmm), else F16C (ymm)
//   half   -> float      AVX-512F vcvtph2ps (zmm), else F16C (ymm)
//   float  -> bfloat16   AVX-512-BF16 vcvtneps2bf16 (nearest even; NaN quieted with sign and
//                        leading payload kept, as mixprec does) — except that the instruction
//                        flushes subnormal inputs to zero: lanes holding a float subnormal are
//                        redone with the integer form (u + 0x7fff + lsb) >> 16 and blended in
//                        (a float subnormal rounds to a bfloat16 subnormal or to the smallest
//                        normal). Without AVX-512-BF16 the integer form does every lane.
//   bfloat16 -> float    AVX-512F shift (bit extension, NaNs kept as they are, as the scalar path)
//   double -> half       AVX-512F/VL: double -> float rounded to ODD (truncate, then OR the sticky
//                        bit into the last place when inexact), then float -> half nearest-even;
//                        round-to-odd to 24 bits followed by one rounding to 11 bits equals one
//                        direct rounding (24 >= 11 + 2), so this is a single correct rounding.
// Only nearest-even with overflow::ieee takes them; every other mode and policy goes to the
// portable code. Each function converts all n elements (AVX-512 tails with masked loads and
// stores) and gives bit-identical results to the portable scalar path, which
// tests/exhaustive/test_convert_fast_paths.cpp checks over all inputs (2^32 floats, 2^16
// halves and bfloat16s) and tests/test_convert.cpp on samples.
// Define MIXPREC_NO_SIMD to compile the portable path only.
#ifndef MIXPREC_DETAIL_SIMD_CONVERT_HPP
#define MIXPREC_DETAIL_SIMD_CONVERT_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../types.hpp"

#if !defined(MIXPREC_NO_SIMD) && !defined(__CUDA_ARCH__) && (defined(__x86_64__) || defined(_M_X64)) && \
    (defined(__AVX512F__) || (defined(__F16C__) && defined(__AVX__)))
#include "x86.hpp"
#define MIXPREC_SIMD_X86 1
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)
#define MIXPREC_SIMD_AVX512 1
#endif
#if defined(__F16C__)
#define MIXPREC_SIMD_F16C 1
#endif
#endif

namespace mixprec {
namespace detail {

/// The names of the fast paths compiled in (for benchmarks and logs).
inline const char* simd_convert_paths() noexcept {
#if defined(MIXPREC_SIMD_AVX512) && defined(__AVX512BF16__)
  return "avx512 + avx512-bf16 (float<->half, float<->bfloat16, double->half)";
#elif defined(MIXPREC_SIMD_AVX512)
  return "avx512 (float<->half, float<->bfloat16, double->half)";
#elif defined(MIXPREC_SIMD_F16C)
  return "f16c (float<->half)";
#else
  return "none (portable)";
#endif
}

// Fallback: no fast path for this pair (the portable loop runs).
template <class S, class D>
inline bool simd_convert(const S*, D*, std::size_t) noexcept {
  return false;
}

#if defined(MIXPREC_SIMD_X86)

#if defined(MIXPREC_SIMD_AVX512) || defined(MIXPREC_SIMD_F16C)
inline bool simd_convert(const float* s, half* d, std::size_t n) noexcept {
  auto* out = reinterpret_cast<std::uint16_t*>(d);
  std::size_t i = 0;
#if defined(MIXPREC_SIMD_AVX512)
  for (; i + 16 <= n; i += 16) {
    const __m256i h = _mm512_cvtps_ph(_mm512_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), h);
  }
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    const __m256i h = _mm512_cvtps_ph(_mm512_maskz_loadu_ps(m, s + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm256_mask_storeu_epi16(out + i, m, h);
  }
#else
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
  }
  for (; i < n; ++i) {
    const __m128i h = _mm_cvtps_ph(_mm_set_ss(s[i]), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    out[i] = static_cast<std::uint16_t>(_mm_extract_epi16(h, 0));
  }
#endif
  return true;
}

inline bool simd_convert(const half* s, float* d, std::size_t n) noexcept {
  const auto* in = reinterpret_cast<const std::uint16_t*>(s);
  std::size_t i = 0;
#if defined(MIXPREC_SIMD_AVX512)
  for (; i + 16 <= n; i += 16) {
    _mm512_storeu_ps(d + i, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i))));
  }
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    _mm512_mask_storeu_ps(d + i, m, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, in + i)));
  }
#else
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(d + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
  }
  for (; i < n; ++i) d[i] = _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(in[i])));
#endif
  return true;
}
#endif

#if defined(MIXPREC_SIMD_AVX512)
namespace simd512 {
inline __m256i float_bits_to_bf16(__m512i u) noexcept {
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
  const __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)), lsb), 16);
  const __m512i quiet = _mm512_or_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(0x40));
  const __mmask16 nan =
      _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
  return _mm512_cvtepi32_epi16(_mm512_mask_blend_epi32(nan, rounded, quiet));
}
inline __m512 bf16_to_float(__m256i b) noexcept {  // bit extension, NaNs as they are
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(b), 16));
}
inline __m128i double_to_half(__m512d x) noexcept {
  const __m256 t = _mm512_cvt_roundpd_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __mmask8 inexact = _mm512_cmp_pd_mask(_mm512_cvtps_pd(t), x, _CMP_NEQ_UQ);
  const __m256i ti = _mm256_castps_si256(t);
  const __m256i odd = _mm256_mask_or_epi32(ti, inexact, ti, _mm256_set1_epi32(1));
  return _mm256_cvtps_ph(_mm256_castsi256_ps(odd), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
}  // namespace simd512

#if defined(__AVX512BF16__)
namespace simd512 {
/// vcvtneps2bf16, with the subnormal inputs it flushes to zero redone by the integer form.
inline __m256i float_to_bf16_hw(__m512 x) noexcept {
  const __m512i u = _mm512_castps_si512(x);
  const __m256bh r = _mm512_cvtneps_pbh(x);
  __m256i out;
  std::memcpy(&out, &r, sizeof out);
#if defined(__AVX512DQ__)
  const __mmask16 sub = _mm512_fpclass_ps_mask(x, 0x20);  // 0x20: denormal
#else
  const __mmask16 sub = static_cast<__mmask16>(_mm512_testn_epi32_mask(u, _mm512_set1_epi32(0x7f800000)) &
                                               _mm512_test_epi32_mask(u, _mm512_set1_epi32(0x007fffff)));
#endif
  if (sub != 0) out = _mm256_mask_blend_epi16(sub, out, float_bits_to_bf16(u));
  return out;
}
}  // namespace simd512
#endif

inline bool simd_convert(const float* s, bfloat16* d, std::size_t n) noexcept {
  auto* out = reinterpret_cast<std::uint16_t*>(d);
  std::size_t i = 0;
#if defined(__AVX512BF16__) && defined(__AVX512DQ__)
  // 32 at a time: vcvtne2ps2bf16 packs two vectors; one test for subnormal inputs in both.
  for (; i + 32 <= n; i += 32) {
    const __m512 lo = _mm512_loadu_ps(s + i);
    const __m512 hi = _mm512_loadu_ps(s + i + 16);
    const __mmask16 sub = static_cast<__mmask16>(_mm512_fpclass_ps_mask(lo, 0x20) | _mm512_fpclass_ps_mask(hi, 0x20));
    if (sub == 0) {
      const __m512bh r = _mm512_cvtne2ps_pbh(hi, lo);
      std::memcpy(out + i, &r, sizeof r);
    } else {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), simd512::float_to_bf16_hw(lo));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i + 16), simd512::float_to_bf16_hw(hi));
    }
  }
#endif
  for (; i + 16 <= n; i += 16) {
#if defined(__AVX512BF16__)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), simd512::float_to_bf16_hw(_mm512_loadu_ps(s + i)));
#else
    const __m512i u = _mm512_castps_si512(_mm512_loadu_ps(s + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), simd512::float_bits_to_bf16(u));
#endif
  }
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    const __m512i u = _mm512_castps_si512(_mm512_maskz_loadu_ps(m, s + i));
    _mm256_mask_storeu_epi16(out + i, m, simd512::float_bits_to_bf16(u));
  }
  return true;
}

inline bool simd_convert(const bfloat16* s, float* d, std::size_t n) noexcept {
  const auto* in = reinterpret_cast<const std::uint16_t*>(s);
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm512_storeu_ps(d + i, simd512::bf16_to_float(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i))));
  }
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    _mm512_mask_storeu_ps(d + i, m, simd512::bf16_to_float(_mm256_maskz_loadu_epi16(m, in + i)));
  }
  return true;
}

inline bool simd_convert(const double* s, half* d, std::size_t n) noexcept {
  auto* out = reinterpret_cast<std::uint16_t*>(d);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), simd512::double_to_half(_mm512_loadu_pd(s + i)));
  }
  if (i < n) {
    const __mmask8 m = static_cast<__mmask8>((1u << (n - i)) - 1u);
    _mm_mask_storeu_epi16(out + i, m, simd512::double_to_half(_mm512_maskz_loadu_pd(m, s + i)));
  }
  return true;
}
#endif  // MIXPREC_SIMD_AVX512

#endif  // MIXPREC_SIMD_X86

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_SIMD_CONVERT_HPP
