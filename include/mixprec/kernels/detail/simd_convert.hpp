// SPDX-License-Identifier: MIT
// mixprec/kernels/detail/simd_convert.hpp — x86 fast paths of the bulk conversions (host only).
//
// Levels, each compiled in when the target macros allow it (-march=native, -mavx2 -mf16c, ...):
//   avx512_bf16  AVX-512 F/BW/VL + F16C + AVX-512-BF16   (float -> bfloat16 by vcvtne2ps2bf16;
//                                                          with AVX-512-FP16 also compiled in,
//                                                          double -> half by vcvtpd2ph)
//   avx512       AVX-512 F/BW/VL + F16C                  (float -> bfloat16 by integer rounding)
//   avx2         AVX2 + F16C (256-bit)                    (float <-> half only with AVX + F16C)
//   portable     none: the scalar loop of kernels/convert.hpp
// simd_convert() uses the best level compiled in; simd_convert_at(level, ...) a given one (tests
// run every level in simd_levels_compiled() over the same inputs). Pairs and methods:
//   float  -> half       vcvtps2ph (nearest even, immediate rounding)
//   half   -> float      vcvtph2ps
//   half   -> double     vcvtph2ps, vcvtps2pd (both exact)
//   float  -> bfloat16   (u + 0x7fff + lsb) >> 16, NaN quieted with sign and leading payload kept,
//                        as mixprec does; avx512_bf16: vcvtne2ps2bf16, except that it flushes
//                        subnormal inputs to zero: vectors holding one are redone by the integer form
//   bfloat16 -> float    shift (bit extension, NaNs kept as they are, as the scalar path)
//   double -> half,      double -> float rounded to ODD (truncate, then OR the sticky bit into the
//   double -> bfloat16   last place when inexact), then float -> half / bfloat16 nearest even:
//                        round-to-odd to 24 bits then one rounding to p <= 22 bits equals one
//                        direct rounding, so this is a single correct rounding. AVX2 has no
//                        truncating vcvtpd2ps: it converts in the MXCSR mode and steps back one
//                        ulp toward zero where that rounded away. double -> bfloat16 returns false
//                        (portable loop) when MXCSR.FTZ or DAZ is set (they would flush the float
//                        step or its conversion back).
//                        avx512_bf16 with AVX-512-FP16 (MIXPREC_SIMD_AVX512_FP16, e.g. -march=native on
//                        Sapphire Rapids): double -> half by vcvtpd2ph {rn-sae}, one rounding
//                        with round_to's bits for every double (NaN payloads, signed zeros,
//                        subnormals, ties, overflow) under every MXCSR setting. A build with
//                        FP16 but without BF16 (no such CPU) keeps the round-to-odd form.
// Results do not depend on the MXCSR rounding mode nor on DAZ/FTZ (avx512_bf16 uses the integer
// form for float -> bfloat16 under DAZ; tests/test_convert.cpp checks every setting).
// Only nearest-even with overflow::ieee takes them (kernels/convert.hpp); every function
// converts all n elements and gives the bits of the portable scalar path:
// tests/exhaustive/test_convert_fast_paths.cpp checks every level on all 2^32 floats (and on
// sampled doubles), tests/test_convert.cpp on all 16-bit inputs and awkward sizes.
//   detail::simd_convert_at(detail::simd_level::avx2, src, dst, n);  // false: not compiled in
// Define MIXPREC_NO_SIMD to compile the portable path only.
#ifndef MIXPREC_DETAIL_SIMD_CONVERT_HPP
#define MIXPREC_DETAIL_SIMD_CONVERT_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../../simd/encode.hpp"
#include "../../core/types.hpp"

#include "../../simd/isa.hpp"  // MIXPREC_SIMD_X86, MIXPREC_SIMD_AVX2, MIXPREC_SIMD_AVX512

namespace mixprec {
namespace detail {

/// The instruction-set levels of the bulk conversions (see the top of the header).
enum class simd_level : unsigned char { portable = 0, avx2 = 1, avx512 = 2, avx512_bf16 = 3 };

inline const char* simd_level_name(simd_level l) noexcept {
  switch (l) {
    case simd_level::avx2: return "avx2";
    case simd_level::avx512: return "avx512";
    case simd_level::avx512_bf16: return "avx512_bf16";
    default: return "portable";
  }
}

/// Whether a level is compiled in (portable always is).
constexpr bool simd_level_compiled(simd_level l) noexcept {
  return l == simd_level::portable
#if defined(MIXPREC_SIMD_X86)
         || l == simd_level::avx2
#endif
#if defined(MIXPREC_SIMD_AVX512)
         || l == simd_level::avx512
#if defined(MIXPREC_SIMD_AVX512_BF16)
         || l == simd_level::avx512_bf16
#endif
#endif
      ;
}

/// The level simd_convert() uses.
constexpr simd_level simd_best_level =
    simd_level_compiled(simd_level::avx512_bf16) ? simd_level::avx512_bf16
    : simd_level_compiled(simd_level::avx512)    ? simd_level::avx512
    : simd_level_compiled(simd_level::avx2)      ? simd_level::avx2
                                                 : simd_level::portable;

/// The names of the fast paths compiled in (for benchmarks and logs).
inline const char* simd_convert_paths() noexcept {
#if defined(MIXPREC_SIMD_AVX512_BF16) && defined(MIXPREC_SIMD_AVX512_FP16)
  return "avx512_bf16 (best; double->half by AVX-512-FP16 vcvtpd2ph), avx512, avx2: float<->half, float<->bfloat16, "
         "double->half, double->bfloat16, half->double";
#elif defined(MIXPREC_SIMD_AVX512_BF16)
  return "avx512_bf16 (best), avx512, avx2: float<->half, float<->bfloat16, double->half, double->bfloat16, half->double";
#elif defined(MIXPREC_SIMD_AVX512)
  return "avx512 (best), avx2: float<->half, float<->bfloat16, double->half, double->bfloat16, half->double";
#elif defined(MIXPREC_SIMD_AVX2)
  return "avx2: float<->half, float<->bfloat16, double->half, double->bfloat16, half->double";
#elif defined(MIXPREC_SIMD_X86)
  return "avx2 level without AVX2 (AVX + F16C): float<->half, half->double";
#else
  return "none (portable)";
#endif
}

#if defined(MIXPREC_SIMD_X86)
namespace simd_x86 {

constexpr int rne = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

/// The last n < W elements: through a zero-padded buffer of W, with the kernel of W elements.
template <std::size_t W, class S, class D, class K>
inline void tail_by_buffer(const S* s, D* d, std::size_t n, K kernel) noexcept {
  S in[W] = {};
  D out[W] = {};
  std::memcpy(in, s, n * sizeof(S));
  kernel(in, out);
  std::memcpy(d, out, n * sizeof(D));
}

/// Runs kernel(s + i, d + i) on each full block of W elements, the rest through the buffer.
template <std::size_t W, class S, class D, class K>
inline void blocks(const S* s, D* d, std::size_t n, K kernel) noexcept {
  std::size_t i = 0;
  for (; i + W <= n; i += W) kernel(s + i, d + i);
  if (i < n) tail_by_buffer<W>(s + i, d + i, n - i, kernel);
}

inline std::uint16_t* bits_of(half* p) noexcept { return reinterpret_cast<std::uint16_t*>(p); }
inline std::uint16_t* bits_of(bfloat16* p) noexcept { return reinterpret_cast<std::uint16_t*>(p); }
inline const std::uint16_t* bits_of(const half* p) noexcept { return reinterpret_cast<const std::uint16_t*>(p); }
inline const std::uint16_t* bits_of(const bfloat16* p) noexcept {
  return reinterpret_cast<const std::uint16_t*>(p);
}

using simd::daz_on;         // MXCSR.DAZ
using simd::ftz_or_daz_on;  // either: the float step of double -> bfloat16 needs neither

}  // namespace simd_x86

// ---------------------------------------------------------------------------------------------
// avx2 level (256-bit; the float <-> half pair needs only AVX + F16C)
// ---------------------------------------------------------------------------------------------
namespace simd256 {
using namespace simd_x86;

template <class S, class D>
inline bool convert(const S*, D*, std::size_t) noexcept {
  return false;
}

inline void f2h16(const float* s, std::uint16_t* o) noexcept {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm256_cvtps_ph(_mm256_loadu_ps(s), rne));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(o + 8), _mm256_cvtps_ph(_mm256_loadu_ps(s + 8), rne));
}
inline bool convert(const float* s, half* d, std::size_t n) noexcept {
  blocks<16>(s, bits_of(d), n, f2h16);
  return true;
}

inline void h2f16(const std::uint16_t* s, float* o) noexcept {
  _mm256_storeu_ps(o, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s))));
  _mm256_storeu_ps(o + 8, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 8))));
}
inline bool convert(const half* s, float* d, std::size_t n) noexcept {
  blocks<16>(bits_of(s), d, n, h2f16);
  return true;
}

/// half -> double: vcvtph2ps then vcvtps2pd, both exact (a half subnormal is a normal float, so
/// DAZ does not apply; a signalling NaN comes out quiet with its payload, as round_to).
inline void h2d8(const std::uint16_t* s, double* o) noexcept {
  const __m256 f = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s)));
  _mm256_storeu_pd(o, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
  _mm256_storeu_pd(o + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
}
inline bool convert(const half* s, double* d, std::size_t n) noexcept {
  blocks<8>(bits_of(s), d, n, h2d8);
  return true;
}

#if defined(MIXPREC_SIMD_AVX2)
/// float bits -> bfloat16 bits (in the low half of each 32-bit lane), nearest even: the generic
/// encoder (simd/encode.hpp; (u + 0x7fff + lsb) >> 16 where no lane is a NaN or overflows).
inline __m256i float_bits_to_bf16(__m256i u) noexcept {
  using F = float_traits<bfloat16>::format_type;
  return simd::encode_fast<simd::vec256, F, rounding::nearest_even>(u, _mm256_setzero_si256(),
                                                                    simd::encode_format<F>::overflow_away(overflow::ieee));
}
/// Two vectors of 8 results (32-bit lanes, values < 2^16) -> 16 uint16 in order.
inline __m256i pack16(__m256i a, __m256i b) noexcept {
  return _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xD8);
}

inline void f2b16(const float* s, std::uint16_t* o) noexcept {
  const __m256i a = float_bits_to_bf16(_mm256_castps_si256(_mm256_loadu_ps(s)));
  const __m256i b = float_bits_to_bf16(_mm256_castps_si256(_mm256_loadu_ps(s + 8)));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(o), pack16(a, b));
}
inline bool convert(const float* s, bfloat16* d, std::size_t n) noexcept {
  blocks<16>(s, bits_of(d), n, f2b16);
  return true;
}

inline void b2f16(const std::uint16_t* s, float* o) noexcept {
  const __m256i a = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s)));
  const __m256i b = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 8)));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(o), _mm256_slli_epi32(a, 16));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + 8), _mm256_slli_epi32(b, 16));
}
inline bool convert(const bfloat16* s, float* d, std::size_t n) noexcept {
  blocks<16>(bits_of(s), d, n, b2f16);
  return true;
}

/// The low 32 bits of each 64-bit lane of a and b (all-ones/all-zeros masks), in order a, b.
inline __m256i narrow_masks(__m256d a, __m256d b) noexcept {
  const __m256 s = _mm256_shuffle_ps(_mm256_castpd_ps(a), _mm256_castpd_ps(b), _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_permute4x64_epi64(_mm256_castps_si256(s), 0xD8);
}
/// 8 doubles (a then b) -> 8 floats rounded to odd, whatever the MXCSR rounding mode: vcvtpd2ps
/// rounds to one of the two floats around x; where that was the one farther from zero, step
/// one ulp back toward zero (the bits minus one); then OR 1 into the last place when inexact.
inline __m256 double_to_float_odd(__m256d a, __m256d b) noexcept {
  const __m256d sign = _mm256_set1_pd(-0.0);
  const __m128 ta = _mm256_cvtpd_ps(a);
  const __m128 tb = _mm256_cvtpd_ps(b);
  const __m256d ba = _mm256_cvtps_pd(ta);
  const __m256d bb = _mm256_cvtps_pd(tb);
  const __m256i away = narrow_masks(_mm256_cmp_pd(_mm256_andnot_pd(sign, ba), _mm256_andnot_pd(sign, a), _CMP_GT_OQ),
                                    _mm256_cmp_pd(_mm256_andnot_pd(sign, bb), _mm256_andnot_pd(sign, b), _CMP_GT_OQ));
  const __m256i inexact = narrow_masks(_mm256_cmp_pd(ba, a, _CMP_NEQ_UQ), _mm256_cmp_pd(bb, b, _CMP_NEQ_UQ));
  const __m256i t = _mm256_add_epi32(_mm256_castps_si256(_mm256_set_m128(tb, ta)), away);  // away: -1
  return _mm256_castsi256_ps(_mm256_or_si256(t, _mm256_and_si256(inexact, _mm256_set1_epi32(1))));
}

inline void d2h8(const double* s, std::uint16_t* o) noexcept {
  const __m256 f = double_to_float_odd(_mm256_loadu_pd(s), _mm256_loadu_pd(s + 4));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm256_cvtps_ph(f, rne));
}
inline bool convert(const double* s, half* d, std::size_t n) noexcept {
  blocks<8>(s, bits_of(d), n, d2h8);
  return true;
}

inline void d2b16(const double* s, std::uint16_t* o) noexcept {
  const __m256 f0 = double_to_float_odd(_mm256_loadu_pd(s), _mm256_loadu_pd(s + 4));
  const __m256 f1 = double_to_float_odd(_mm256_loadu_pd(s + 8), _mm256_loadu_pd(s + 12));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(o), pack16(float_bits_to_bf16(_mm256_castps_si256(f0)),
                                                            float_bits_to_bf16(_mm256_castps_si256(f1))));
}
inline bool convert(const double* s, bfloat16* d, std::size_t n) noexcept {
  if (ftz_or_daz_on()) return false;
  blocks<16>(s, bits_of(d), n, d2b16);
  return true;
}
#endif  // MIXPREC_SIMD_AVX2

}  // namespace simd256

// ---------------------------------------------------------------------------------------------
// avx512 and avx512_bf16 levels
// ---------------------------------------------------------------------------------------------
#if defined(MIXPREC_SIMD_AVX512)
namespace simd512 {
using namespace simd_x86;

/// Everything but float -> bfloat16 is the same at both AVX-512 levels (bf16: use vcvtne2ps2bf16).
template <class S, class D>
inline bool convert(const S*, D*, std::size_t, bool) noexcept {
  return false;
}

inline __mmask16 mask16(std::size_t n) noexcept { return static_cast<__mmask16>((1u << n) - 1u); }

// GCC's -O0 macro form of _mm512_cvtps_ph passes a -1 mask (-Wsign-conversion in user code).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-conversion"
#endif
inline __m256i cvtps_ph512(__m512 x) noexcept { return _mm512_cvtps_ph(x, rne); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/// A 64-byte store; Stream: non-temporal (p 64-byte aligned).
template <bool Stream>
inline void store64(std::uint16_t* p, __m512i v) noexcept {
  if (Stream) {
    _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v);
  } else {
    _mm512_storeu_si512(p, v);
  }
}
inline __m512i join(__m256i lo, __m256i hi) noexcept { return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1); }

template <bool Stream>
inline void f2h(const float* s, std::uint16_t* out, std::size_t n) noexcept {
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    store64<Stream>(out + i, join(cvtps_ph512(_mm512_loadu_ps(s + i)),
                                  cvtps_ph512(_mm512_loadu_ps(s + i + 16))));
  }
  for (; i < n; i += 16) {
    const __mmask16 m = n - i >= 16 ? static_cast<__mmask16>(0xffff) : mask16(n - i);
    _mm256_mask_storeu_epi16(out + i, m, cvtps_ph512(_mm512_maskz_loadu_ps(m, s + i)));
  }
}
inline bool convert(const float* s, half* d, std::size_t n, bool) noexcept {
  f2h<false>(s, bits_of(d), n);
  return true;
}

inline bool convert(const half* s, float* d, std::size_t n, bool) noexcept {
  const std::uint16_t* in = bits_of(s);
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    _mm512_storeu_ps(d + i, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i))));
    _mm512_storeu_ps(d + i + 16, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i + 16))));
  }
  for (; i < n; i += 16) {
    const __mmask16 m = n - i >= 16 ? static_cast<__mmask16>(0xffff) : mask16(n - i);
    _mm512_mask_storeu_ps(d + i, m, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, in + i)));
  }
  return true;
}

/// half -> double as in simd256 (vcvtph2ps, vcvtps2pd; AVX-512-FP16's vcvtph2pd gives the same bits).
inline bool convert(const half* s, double* d, std::size_t n, bool) noexcept {
  const std::uint16_t* in = bits_of(s);
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 f = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i)));
    _mm512_storeu_pd(d + i, _mm512_cvtps_pd(_mm512_castps512_ps256(f)));
    _mm512_storeu_pd(d + i + 8, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(f), 1))));
  }
  for (; i < n; i += 8) {
    const __mmask8 m = n - i >= 8 ? static_cast<__mmask8>(0xff) : static_cast<__mmask8>((1u << (n - i)) - 1u);
    _mm512_mask_storeu_pd(d + i, m, _mm512_cvtps_pd(_mm256_cvtph_ps(_mm_maskz_loadu_epi16(m, in + i))));
  }
  return true;
}

/// float bits -> bfloat16 bits, nearest even: the generic encoder, as simd256's.
inline __m256i float_bits_to_bf16(__m512i u) noexcept {
  using F = float_traits<bfloat16>::format_type;
  return _mm512_cvtepi32_epi16(simd::encode_fast<simd::vec512, F, rounding::nearest_even>(
      u, _mm512_setzero_si512(), simd::encode_format<F>::overflow_away(overflow::ieee)));
}

/// The lanes of a or b holding a subnormal float (nonzero).
inline __mmask16 subnormal_lanes(__m512 a, __m512 b) noexcept {
#if defined(MIXPREC_SIMD_AVX512_DQ)
  return static_cast<__mmask16>(_mm512_fpclass_ps_mask(a, 0x20) | _mm512_fpclass_ps_mask(b, 0x20));  // 0x20: denormal
#else
  const __m512i e = _mm512_set1_epi32(0x7f800000), m = _mm512_set1_epi32(0x007fffff);
  const __m512i ua = _mm512_castps_si512(a), ub = _mm512_castps_si512(b);
  return static_cast<__mmask16>((_mm512_testn_epi32_mask(ua, e) & _mm512_test_epi32_mask(ua, m)) |
                                (_mm512_testn_epi32_mask(ub, e) & _mm512_test_epi32_mask(ub, m)));
#endif
}

template <bool Stream>
inline void f2b(const float* s, std::uint16_t* out, std::size_t n, bool hw) noexcept {
  std::size_t i = 0;
#if defined(MIXPREC_SIMD_AVX512_BF16)
  if (hw && !daz_on()) {  // under DAZ, vfpclassps does not see the subnormal inputs
    // 32 at a time: vcvtne2ps2bf16 packs two vectors; one test for subnormal inputs in both.
    for (; i + 32 <= n; i += 32) {
      const __m512 lo = _mm512_loadu_ps(s + i);
      const __m512 hi = _mm512_loadu_ps(s + i + 16);
      __m512i r;
      if (subnormal_lanes(lo, hi) == 0) {
        const __m512bh h = _mm512_cvtne2ps_pbh(hi, lo);
        std::memcpy(&r, &h, sizeof r);
      } else {
        r = join(float_bits_to_bf16(_mm512_castps_si512(lo)), float_bits_to_bf16(_mm512_castps_si512(hi)));
      }
      store64<Stream>(out + i, r);
    }
  }
#else
  (void)hw;
#endif
  for (; i + 32 <= n; i += 32) {
    store64<Stream>(out + i, join(float_bits_to_bf16(_mm512_castps_si512(_mm512_loadu_ps(s + i))),
                                  float_bits_to_bf16(_mm512_castps_si512(_mm512_loadu_ps(s + i + 16)))));
  }
  for (; i < n; i += 16) {
    const __mmask16 m = n - i >= 16 ? static_cast<__mmask16>(0xffff) : mask16(n - i);
    _mm256_mask_storeu_epi16(out + i, m, float_bits_to_bf16(_mm512_castps_si512(_mm512_maskz_loadu_ps(m, s + i))));
  }
}
inline bool convert(const float* s, bfloat16* d, std::size_t n, bool hw) noexcept {
  f2b<false>(s, bits_of(d), n, hw);
  return true;
}

/// Streamed (non-temporal) versions of the narrowing float conversions; false for other pairs.
template <class S, class D>
inline bool convert_streamed(const S*, D*, std::size_t, bool) noexcept {
  return false;
}
inline std::size_t head_to_align64(const std::uint16_t* p, std::size_t n) noexcept {
  const std::size_t h = ((64 - (reinterpret_cast<std::uintptr_t>(p) & 63)) & 63) / 2;
  return h < n ? h : n;
}
inline bool convert_streamed(const float* s, bfloat16* d, std::size_t n, bool hw) noexcept {
  std::uint16_t* out = bits_of(d);
  const std::size_t h = head_to_align64(out, n);
  f2b<false>(s, out, h, hw);
  f2b<true>(s + h, out + h, n - h, hw);
  return true;
}
inline bool convert_streamed(const float* s, half* d, std::size_t n, bool) noexcept {
  std::uint16_t* out = bits_of(d);
  const std::size_t h = head_to_align64(out, n);
  f2h<false>(s, out, h);
  f2h<true>(s + h, out + h, n - h);
  return true;
}

inline bool convert(const bfloat16* s, float* d, std::size_t n, bool) noexcept {
  const std::uint16_t* in = bits_of(s);
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512i a = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i)));
    const __m512i b = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i + 16)));
    _mm512_storeu_si512(d + i, _mm512_slli_epi32(a, 16));
    _mm512_storeu_si512(d + i + 16, _mm512_slli_epi32(b, 16));
  }
  for (; i < n; i += 16) {
    const __mmask16 m = n - i >= 16 ? static_cast<__mmask16>(0xffff) : mask16(n - i);
    const __m512i w = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, in + i));
    _mm512_mask_storeu_epi32(d + i, m, _mm512_slli_epi32(w, 16));
  }
  return true;
}

/// 8 doubles -> 8 floats rounded to odd (truncation ignores the MXCSR mode; the sticky test
/// compares the float back with the double).
inline __m256i double_to_float_odd(__m512d x) noexcept {
  const __m256 t = _mm512_cvt_roundpd_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __mmask8 inexact = _mm512_cmp_pd_mask(_mm512_cvtps_pd(t), x, _CMP_NEQ_UQ);
  const __m256i ti = _mm256_castps_si256(t);
  return _mm256_mask_or_epi32(ti, inexact, ti, _mm256_set1_epi32(1));
}

/// For half only: 8 doubles -> 8 floats rounded to odd, the sticky bit being the 29 low bits of
/// the double. That is the rounding's sticky bit wherever the float is normal; where it is not
/// (|x| < 2^-126, or beyond the float range, infinity, NaN) the half result is the same anyway:
/// +-0 for tiny values (half's least subnormal is 2^-24), infinity or the NaN otherwise.
inline __m256 double_to_float_odd_for_half(__m512d x) noexcept {
  const __m256 t = _mm512_cvt_roundpd_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __mmask8 sticky = _mm512_test_epi64_mask(_mm512_castpd_si512(x), _mm512_set1_epi64(0x1fffffff));
  const __m256i ti = _mm256_castps_si256(t);
  return _mm256_castsi256_ps(_mm256_mask_or_epi32(ti, sticky, ti, _mm256_set1_epi32(1)));
}

#if defined(MIXPREC_SIMD_AVX512_FP16)
/// 8 doubles -> 8 halves by vcvtpd2ph with embedded nearest-even ({rn-sae}): one correct
/// rounding, overflow to infinity, NaN quieted with sign and leading payload kept, as round_to;
/// the embedded rounding ignores MXCSR.RC, and double subnormal inputs (which DAZ would read as
/// zero) round to the same signed zero anyway; FTZ does not flush the half results
/// (tests/test_convert.cpp checks every MXCSR setting).
inline __m128i cvtpd_ph(__m512d x) noexcept { return _mm_castph_si128(_mm512_cvt_roundpd_ph(x, rne)); }

template <bool Stream = false>
inline void d2h_fp16(const double* s, std::uint16_t* out, std::size_t n) noexcept {
  std::size_t i = 0;
  for (; Stream && i + 32 <= n; i += 32) {
    const __m256i lo = _mm256_inserti128_si256(_mm256_castsi128_si256(cvtpd_ph(_mm512_loadu_pd(s + i))),
                                               cvtpd_ph(_mm512_loadu_pd(s + i + 8)), 1);
    const __m256i hi = _mm256_inserti128_si256(_mm256_castsi128_si256(cvtpd_ph(_mm512_loadu_pd(s + i + 16))),
                                               cvtpd_ph(_mm512_loadu_pd(s + i + 24)), 1);
    store64<true>(out + i, join(lo, hi));
  }
  for (; i + 16 <= n; i += 16) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), cvtpd_ph(_mm512_loadu_pd(s + i)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i + 8), cvtpd_ph(_mm512_loadu_pd(s + i + 8)));
  }
  for (; i < n; i += 8) {
    const __mmask8 m = n - i >= 8 ? static_cast<__mmask8>(0xff) : static_cast<__mmask8>((1u << (n - i)) - 1u);
    _mm_mask_storeu_epi16(out + i, m, cvtpd_ph(_mm512_maskz_loadu_pd(m, s + i)));
  }
}
/// Streamed: direct, 64-byte non-temporal stores (the avx512_bf16 level only; else the buffered form).
inline bool convert_streamed(const double* s, half* d, std::size_t n, bool hw) noexcept {
  if (!hw) return false;
  std::uint16_t* out = bits_of(d);
  const std::size_t h = head_to_align64(out, n);
  d2h_fp16(s, out, h);
  d2h_fp16<true>(s + h, out + h, n - h);
  return true;
}
#endif

/// hw (the avx512_bf16 level): vcvtpd2ph where AVX-512-FP16 is compiled in; otherwise (and at
/// the avx512 level) double -> float rounded to odd, then vcvtps2ph.
inline bool convert(const double* s, half* d, std::size_t n, bool hw) noexcept {
  std::uint16_t* out = bits_of(d);
#if defined(MIXPREC_SIMD_AVX512_FP16)
  if (hw) {
    d2h_fp16(s, out, n);
    return true;
  }
#else
  (void)hw;
#endif
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 a = double_to_float_odd_for_half(_mm512_loadu_pd(s + i));
    const __m256 b = double_to_float_odd_for_half(_mm512_loadu_pd(s + i + 8));
    const __m512 f = _mm512_castpd_ps(
        _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(a)), _mm256_castps_pd(b), 1));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), cvtps_ph512(f));
  }
  for (; i < n; i += 8) {
    const __mmask8 m = n - i >= 8 ? static_cast<__mmask8>(0xff) : static_cast<__mmask8>((1u << (n - i)) - 1u);
    const __m256 f = double_to_float_odd_for_half(_mm512_maskz_loadu_pd(m, s + i));
    _mm_mask_storeu_epi16(out + i, m, _mm256_cvtps_ph(f, rne));
  }
  return true;
}

inline bool convert(const double* s, bfloat16* d, std::size_t n, bool) noexcept {
  if (ftz_or_daz_on()) return false;
  std::uint16_t* out = bits_of(d);
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i f0 = double_to_float_odd(_mm512_loadu_pd(s + i));
    const __m256i f1 = double_to_float_odd(_mm512_loadu_pd(s + i + 8));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), float_bits_to_bf16(join(f0, f1)));
  }
  for (; i < n; i += 16) {
    const std::size_t left = n - i;
    const __mmask8 m0 = left >= 8 ? static_cast<__mmask8>(0xff) : static_cast<__mmask8>((1u << left) - 1u);
    const __mmask8 m1 = left >= 16  ? static_cast<__mmask8>(0xff)
                        : left <= 8 ? static_cast<__mmask8>(0)
                                    : static_cast<__mmask8>((1u << (left - 8)) - 1u);
    const __m256i f0 = double_to_float_odd(_mm512_maskz_loadu_pd(m0, s + i));
    const __m256i f1 = double_to_float_odd(_mm512_maskz_loadu_pd(m1, s + i + 8));
    const __m512i u = _mm512_inserti64x4(_mm512_castsi256_si512(f0), f1, 1);
    const __mmask16 m = left >= 16 ? static_cast<__mmask16>(0xffff) : mask16(left);
    _mm256_mask_storeu_epi16(out + i, m, float_bits_to_bf16(u));
  }
  return true;
}

}  // namespace simd512
#endif  // MIXPREC_SIMD_AVX512
#endif  // MIXPREC_SIMD_X86

/// Converts n elements with the given level's fast path; false (nothing written) when the level
/// is not compiled in or has no fast path for this pair (the caller runs the portable loop).
template <class S, class D>
inline bool simd_convert_at(simd_level level, const S* s, D* d, std::size_t n) noexcept {
  switch (level) {
#if defined(MIXPREC_SIMD_AVX512)
#if defined(MIXPREC_SIMD_AVX512_BF16)
    case simd_level::avx512_bf16:
      return simd512::convert(s, d, n, true);
#endif
    case simd_level::avx512:
      return simd512::convert(s, d, n, false);
#endif
#if defined(MIXPREC_SIMD_X86)
    case simd_level::avx2:
      return simd256::convert(s, d, n);
#endif
    default:
      (void)s;
      (void)d;
      (void)n;
      return false;
  }
}

/// Source plus destination bytes from which mixprec::convert writes the destination with
/// non-temporal stores (simd_convert_streamed): beyond the caches, they save the read of every
/// destination line before it is written and leave the cache to other data.
constexpr std::size_t simd_stream_min_bytes = std::size_t{32} << 20;

#if defined(MIXPREC_SIMD_X86)
namespace simd_x86 {
/// memcpy with non-temporal stores for the 64-byte-aligned (32 without AVX-512) middle.
inline void stream_copy(void* dst, const void* src, std::size_t bytes) noexcept {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
#if defined(MIXPREC_SIMD_AVX512)
  constexpr std::size_t a = 64;
#else
  constexpr std::size_t a = 32;
#endif
  std::size_t head = (a - (reinterpret_cast<std::uintptr_t>(d) & (a - 1))) & (a - 1);
  if (head > bytes) head = bytes;
  std::memcpy(d, s, head);
  d += head;
  s += head;
  bytes -= head;
  for (; bytes >= a; bytes -= a, d += a, s += a) {
#if defined(MIXPREC_SIMD_AVX512)
    _mm512_stream_si512(reinterpret_cast<__m512i*>(d), _mm512_loadu_si512(s));
#else
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s)));
#endif
  }
  std::memcpy(d, s, bytes);
}
}  // namespace simd_x86
#endif

/// simd_convert_at with the best level compiled in.
template <class S, class D>
inline bool simd_convert(const S* s, D* d, std::size_t n) noexcept {
  return simd_convert_at(simd_best_level, s, d, n);
}

/// simd_convert, the destination written with non-temporal stores (for arrays far larger than
/// the caches, see simd_stream_min_bytes): converts 2048 elements at a time into a buffer in L1,
/// then streams it out. The same results; false (nothing written) where simd_convert is false.
template <class S, class D>
inline bool simd_convert_streamed(const S* s, D* d, std::size_t n) noexcept {
#if defined(MIXPREC_SIMD_X86)
#if defined(MIXPREC_SIMD_AVX512)
  if (simd512::convert_streamed(s, d, n, simd_best_level == simd_level::avx512_bf16)) {  // direct
    _mm_sfence();
    return true;
  }
#endif
  if (!simd_convert(s, d, 0)) return false;  // no fast path (or not in this FP environment)
  constexpr std::size_t chunk = 2048;
  alignas(64) unsigned char raw[chunk * sizeof(D)];
  D* buf = reinterpret_cast<D*>(raw);
  for (std::size_t i = 0; i < n; i += chunk) {
    const std::size_t m = n - i < chunk ? n - i : chunk;
    simd_convert(s + i, buf, m);
    simd_x86::stream_copy(d + i, buf, m * sizeof(D));
  }
  _mm_sfence();  // the streamed stores are visible before whatever synchronises with this thread
  return true;
#else
  return simd_convert(s, d, n);
#endif
}

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_SIMD_CONVERT_HPP
