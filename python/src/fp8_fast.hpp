// SPDX-License-Identifier: MIT
// fp8_fast.hpp (python/src) — AVX-512 float32/float64 -> float8_e4m3fn / float8_e5m2, nearest-even,
// overflow::ieee: the bulk path of mixprec.to_bits for the two OCP FP8 formats (the C++ bulk
// converter has SIMD paths for half and bfloat16 only). Integer arithmetic only, so the result
// does not depend on MXCSR (rounding mode, DAZ, FTZ). Exactly the bits of detail::pack:
//   e' = max(e, emin); integer = RNE(significand >> (23 - M + e' - e)); code = integer +
//   ((e' - emin) << M) (a carry moves into the exponent); code > max_code: overflow (e4m3fn: NaN
//   0x7F, e5m2: inf); NaN: e4m3fn 0x7F, e5m2 quiet NaN keeping the leading payload bit; sign on top.
// Checked against the C++ scalar converter on all 2^32 float32 patterns (python/tests/test_fast_paths.py
// samples them, and float64 inputs, in CI); float64 inputs round once, from the double (no float step). fp8_convert<E4M3>(src, dst, n) returns false where AVX-512 is not compiled in.
#ifndef MIXPREC_PYTHON_FP8_FAST_HPP
#define MIXPREC_PYTHON_FP8_FAST_HPP

#include <cstddef>
#include <cstdint>

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && !defined(MIXPREC_NO_SIMD)
#include <immintrin.h>
#define MIXPREC_PY_FP8_AVX512 1
#endif

namespace mixprec_py {

/// The two formats: M mantissa bits, emin, max magnitude code, overflow/NaN codes (ieee policy).
struct fp8_e4m3fn_traits {
  static constexpr int M = 3, emin = -6;
  static constexpr std::uint32_t max_code = 0x7E, overflow = 0x7F;
  static constexpr bool ieee = false;
};
struct fp8_e5m2_traits {
  static constexpr int M = 2, emin = -14;
  static constexpr std::uint32_t max_code = 0x7B, overflow = 0x7C;
  static constexpr bool ieee = true;
};

#if defined(MIXPREC_PY_FP8_AVX512)
template <class F>
inline __m128i fp8_convert16(__m512i u) noexcept {
  const __m512i abs = _mm512_and_si512(u, _mm512_set1_epi32(0x7FFFFFFF));
  const __m512i sign = _mm512_and_si512(_mm512_srli_epi32(u, 24), _mm512_set1_epi32(0x80));
  const __m512i field = _mm512_srli_epi32(abs, 23);
  // significand with the implicit bit (float subnormals are far below FP8's range: they give 0,
  // and treating their field 0 as exponent -126 without the bit gives 0 too)
  const __mmask16 normal = _mm512_cmpneq_epi32_mask(field, _mm512_setzero_si512());
  const __m512i sig = _mm512_mask_or_epi32(_mm512_and_si512(abs, _mm512_set1_epi32(0x7FFFFF)), normal,
                                           _mm512_and_si512(abs, _mm512_set1_epi32(0x7FFFFF)),
                                           _mm512_set1_epi32(0x800000));
  const __m512i e = _mm512_sub_epi32(_mm512_max_epi32(field, _mm512_set1_epi32(1)), _mm512_set1_epi32(127));
  const __m512i ep = _mm512_max_epi32(e, _mm512_set1_epi32(F::emin));
  const __m512i shift = _mm512_add_epi32(_mm512_set1_epi32(23 - F::M), _mm512_sub_epi32(ep, e));  // >= 20
  // RNE(sig >> shift): (sig + 2^(shift-1) - 1 + lsb) >> shift; counts >= 32 give 0 in vpsllvd/vpsrlvd
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i half = _mm512_sllv_epi32(one, _mm512_sub_epi32(shift, one));
  const __m512i lsb = _mm512_and_si512(_mm512_srlv_epi32(sig, shift), one);
  const __m512i rounded =
      _mm512_srlv_epi32(_mm512_add_epi32(_mm512_add_epi32(sig, _mm512_sub_epi32(half, one)), lsb), shift);
  __m512i code = _mm512_add_epi32(rounded, _mm512_slli_epi32(_mm512_sub_epi32(ep, _mm512_set1_epi32(F::emin)), F::M));
  // overflow (finite too large, and +-inf): the ieee policy's code
  const __mmask16 over = _mm512_cmpgt_epu32_mask(code, _mm512_set1_epi32(static_cast<int>(F::max_code)));
  code = _mm512_mask_mov_epi32(code, over, _mm512_set1_epi32(static_cast<int>(F::overflow)));
  // NaN
  const __mmask16 nan = _mm512_cmpgt_epu32_mask(abs, _mm512_set1_epi32(0x7F800000));
  __m512i nan_code = _mm512_set1_epi32(0x7F);
  if (F::ieee) {  // quiet NaN, leading payload bit below the quiet bit kept (detail::nan_code)
    nan_code = _mm512_or_si512(_mm512_set1_epi32(0x7E), _mm512_and_si512(_mm512_srli_epi32(abs, 21), one));
  }
  code = _mm512_mask_mov_epi32(code, nan, nan_code);
  // zero: sig 0 gives rounded 0 and code (ep - emin) << M = 0 since e = -126 < emin
  code = _mm512_or_si512(code, sign);
  return _mm512_cvtepi32_epi8(code);
}

/// The same for 8 doubles (64-bit lanes: significand 53 bits, bias 1023; shifts of 64 or more give 0).
template <class F>
inline __m128i fp8_convert8(__m512i u) noexcept {
  const __m512i abs = _mm512_and_si512(u, _mm512_set1_epi64(0x7FFFFFFFFFFFFFFFll));
  const __m512i sign = _mm512_and_si512(_mm512_srli_epi64(u, 56), _mm512_set1_epi64(0x80));
  const __m512i field = _mm512_srli_epi64(abs, 52);
  const __m512i mant = _mm512_and_si512(abs, _mm512_set1_epi64(0xFFFFFFFFFFFFFll));
  const __mmask8 normal = _mm512_cmpneq_epi64_mask(field, _mm512_setzero_si512());
  const __m512i sig = _mm512_mask_or_epi64(mant, normal, mant, _mm512_set1_epi64(0x10000000000000ll));
  const __m512i e = _mm512_sub_epi64(_mm512_max_epi64(field, _mm512_set1_epi64(1)), _mm512_set1_epi64(1023));
  const __m512i ep = _mm512_max_epi64(e, _mm512_set1_epi64(F::emin));
  const __m512i shift = _mm512_add_epi64(_mm512_set1_epi64(52 - F::M), _mm512_sub_epi64(ep, e));  // >= 49
  const __m512i one = _mm512_set1_epi64(1);
  const __m512i half = _mm512_sllv_epi64(one, _mm512_sub_epi64(shift, one));
  const __m512i lsb = _mm512_and_si512(_mm512_srlv_epi64(sig, shift), one);
  const __m512i rounded =
      _mm512_srlv_epi64(_mm512_add_epi64(_mm512_add_epi64(sig, _mm512_sub_epi64(half, one)), lsb), shift);
  __m512i code = _mm512_add_epi64(rounded, _mm512_slli_epi64(_mm512_sub_epi64(ep, _mm512_set1_epi64(F::emin)), F::M));
  const __mmask8 over = _mm512_cmpgt_epu64_mask(code, _mm512_set1_epi64(static_cast<long long>(F::max_code)));
  code = _mm512_mask_mov_epi64(code, over, _mm512_set1_epi64(static_cast<long long>(F::overflow)));
  const __mmask8 nan = _mm512_cmpgt_epu64_mask(abs, _mm512_set1_epi64(0x7FF0000000000000ll));
  __m512i nan_code = _mm512_set1_epi64(0x7F);
  if (F::ieee) nan_code = _mm512_or_si512(_mm512_set1_epi64(0x7E), _mm512_and_si512(_mm512_srli_epi64(abs, 50), one));
  code = _mm512_mask_mov_epi64(code, nan, nan_code);
  code = _mm512_or_si512(code, sign);
  return _mm512_cvtepi64_epi8(code);
}
#endif

/// dst[i] = the FP8 code of src[i] (nearest-even, overflow::ieee) for i < n; false: not compiled in.
template <class F>
inline bool fp8_convert(const double* src, std::uint8_t* dst, std::size_t n) noexcept {
#if defined(MIXPREC_PY_FP8_AVX512)
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m512i u = _mm512_loadu_si512(static_cast<const void*>(src + i));
    _mm_mask_storeu_epi8(dst + i, 0xFF, fp8_convert8<F>(u));
  }
  if (i < n) {
    const __mmask8 k = static_cast<__mmask8>((1u << (n - i)) - 1u);
    const __m512i u = _mm512_maskz_loadu_epi64(k, src + i);
    _mm_mask_storeu_epi8(dst + i, k, fp8_convert8<F>(u));
  }
  return true;
#else
  (void)src;
  (void)dst;
  (void)n;
  return false;
#endif
}

/// dst[i] = the FP8 code of src[i] (nearest-even, overflow::ieee) for i < n; false: not compiled in.
template <class F>
inline bool fp8_convert(const float* src, std::uint8_t* dst, std::size_t n) noexcept {
#if defined(MIXPREC_PY_FP8_AVX512)
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i u = _mm512_loadu_si512(static_cast<const void*>(src + i));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), fp8_convert16<F>(u));
  }
  if (i < n) {
    const __mmask16 k = static_cast<__mmask16>((1u << (n - i)) - 1u);
    const __m512i u = _mm512_maskz_loadu_epi32(k, src + i);
    _mm_mask_storeu_epi8(dst + i, k, fp8_convert16<F>(u));
  }
  return true;
#else
  (void)src;
  (void)dst;
  (void)n;
  return false;
#endif
}

}  // namespace mixprec_py

#endif  // MIXPREC_PYTHON_FP8_FAST_HPP
