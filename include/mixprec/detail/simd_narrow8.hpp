// mixprec/detail/simd_narrow8.hpp — float -> byte-sized formats (FP8, FP6, FP4), vectorised (host only).
//
// What: round_to<T>(x, nearest_even, policy) for float or double x and a signed format T stored in one
// byte without padding (float8_e4m3fn, float8_e5m2, the fnuz and IEEE-style FP8s, float6_*,
// float4_e2m1fn, ...), overflow::ieee or overflow::saturate, 16 (AVX-512) or 8 (AVX2) lanes at a
// time, by integer arithmetic on the float's bits — detail::pack's algorithm lane by lane:
//   shift   = clamp(23 - M, (emin + 150 - M) - max(e, 1), 31)   (e: the float's biased exponent)
//   integer = m24 >> shift, rounded up when the discarded bits, left-aligned in 32, plus
//             0x7fffffff + (integer & 1) carry out (nearest even), then the exponent added:
//   code    = integer + ((max(e, 1), emin + 127) - (emin + 127)) << M, so a carry moves up;
//   code > max_code: the overflow code; NaN: the NaN code; fnuz: no -0; then the sign.
// A double is first rounded to odd at float's precision (simd_convert.hpp's double -> half step):
// with T's at most 22 significant bits that is one correct rounding in all.
// AVX-512 first tries the common case, all 16 lanes zero or normal in F: (a - rebias + half - 1 +
// lsb) >> (23 - M), as the scalar float32_to_rne. Results do not depend on MXCSR (no
// floating-point instruction is used).
// Contract: the bits of the scalar round_to for every float; tests/test_simd_narrow8.cpp checks
// every level and supported built-in format on every sign, exponent and rounding case, and
// tests/exhaustive/test_convert_fast_paths.cpp all 2^32 floats for e4m3fn and e5m2.
//   detail::simd_narrow8_at(detail::simd_level::avx2, src, dst, n, overflow::saturate);
#ifndef MIXPREC_DETAIL_SIMD_NARROW8_HPP
#define MIXPREC_DETAIL_SIMD_NARROW8_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../rounding.hpp"
#include "simd_convert.hpp"

namespace mixprec {
namespace detail {

/// The constants of the narrowing float -> F (see the top of this header).
template <class F>
struct narrow8_traits {
  static constexpr bool supported =
      F::storage_bits <= 8 && F::padding_bits == 0 && F::is_signed && F::mantissa_bits <= 22 &&
      F::emin >= -126 && F::emin - F::mantissa_bits >= -149 &&
      (F::enc == encoding::ieee || F::enc == encoding::fn || F::enc == encoding::fnuz ||
       F::enc == encoding::finite);
  static constexpr int M = F::mantissa_bits;
  static constexpr int min_shift = 23 - M;
  static constexpr int shift_base = F::emin + 150 - M;  ///< shift = shift_base - e below F's normals
  static constexpr std::uint32_t ebase = static_cast<std::uint32_t>(F::emin + 127);
  static constexpr std::uint32_t max_code = static_cast<std::uint32_t>(F::max_code);
  static constexpr int sign_shift = 31 - F::exponent_bits - M;  ///< float sign -> F's sign bit
  /// The magnitude code of an overflowing value (the sign is added after).
  static constexpr std::uint32_t overflow_mag(overflow policy) noexcept {
    return (policy == overflow::saturate || F::enc == encoding::finite) ? max_code
           : F::enc == encoding::ieee ? static_cast<std::uint32_t>(F::exponent_field_max << M)
           : F::enc == encoding::fn   ? static_cast<std::uint32_t>(F::magnitude_mask)
                                      : static_cast<std::uint32_t>(F::sign_mask);  // fnuz: the NaN
  }
  /// The NaN code's magnitude bits (ieee: quiet, payload's leading bits kept; finite: max, no sign).
  static constexpr std::uint32_t nan_fixed =
      F::enc == encoding::ieee ? static_cast<std::uint32_t>((F::exponent_field_max << M) | (std::uint64_t{1} << (M - 1)))
      : F::enc == encoding::fn ? static_cast<std::uint32_t>(F::magnitude_mask)
      : F::enc == encoding::fnuz ? static_cast<std::uint32_t>(F::sign_mask)
                                 : max_code;
  static constexpr std::uint32_t nan_payload_mask = F::enc == encoding::ieee && M > 1 ? (1u << (M - 1)) - 1u : 0u;
  static constexpr bool nan_signed = F::enc == encoding::ieee || F::enc == encoding::fn;
  // The common case, every lane zero or in F's normal range without overflow (as the scalar
  // float32_to_rne): code = (a - rebias + half - 1 + lsb) >> min_shift, for lo <= a < hi.
  static constexpr std::uint32_t lo = ebase << 23;  ///< F's smallest normal, as float bits
  static constexpr std::uint32_t rebias = static_cast<std::uint32_t>(127 - F::bias) << 23;
  static constexpr std::uint32_t half_minus_one = (1u << (min_shift - 1)) - 1u;
  /// The first float pattern (magnitude) that rounds past max_code.
  static constexpr std::uint32_t hi =
      ((max_code << min_shift) + rebias) + half_minus_one + 1u + ((max_code & 1u) != 0 ? 0u : 1u);
};

#if defined(MIXPREC_SIMD_AVX2) || defined(MIXPREC_SIMD_AVX512)
namespace narrow8 {

#if defined(MIXPREC_SIMD_AVX512)
/// 16 floats -> 16 codes of F (32-bit lanes).
template <class F>
inline __m512i codes512(__m512i u, overflow policy) noexcept {
  using t = narrow8_traits<F>;
  const __m512i a = _mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff));
  const __m512i e = _mm512_max_epu32(_mm512_srli_epi32(a, 23), _mm512_set1_epi32(1));
  const __m512i m24 = _mm512_mask_or_epi32(_mm512_and_si512(a, _mm512_set1_epi32(0x7fffff)),
                                           _mm512_cmpge_epu32_mask(a, _mm512_set1_epi32(0x800000)),
                                           _mm512_and_si512(a, _mm512_set1_epi32(0x7fffff)), _mm512_set1_epi32(0x800000));
  const __m512i shift = _mm512_min_epi32(
      _mm512_max_epi32(_mm512_sub_epi32(_mm512_set1_epi32(t::shift_base), e), _mm512_set1_epi32(t::min_shift)),
      _mm512_set1_epi32(31));
  __m512i integer = _mm512_srlv_epi32(m24, shift);
  const __m512i rem = _mm512_sllv_epi32(m24, _mm512_sub_epi32(_mm512_set1_epi32(32), shift));
  const __m512i r = _mm512_add_epi32(_mm512_set1_epi32(0x7fffffff), _mm512_and_si512(integer, _mm512_set1_epi32(1)));
  integer = _mm512_mask_add_epi32(integer, _mm512_cmplt_epu32_mask(_mm512_add_epi32(rem, r), rem), integer,
                                  _mm512_set1_epi32(1));
  const __m512i biased = _mm512_slli_epi32(
      _mm512_sub_epi32(_mm512_max_epu32(e, _mm512_set1_epi32(static_cast<int>(t::ebase))),
                       _mm512_set1_epi32(static_cast<int>(t::ebase))),
      static_cast<unsigned>(t::M));
  __m512i code = _mm512_add_epi32(integer, biased);
  code = _mm512_mask_mov_epi32(code, _mm512_cmpgt_epu32_mask(code, _mm512_set1_epi32(static_cast<int>(t::max_code))),
                               _mm512_set1_epi32(static_cast<int>(t::overflow_mag(policy))));
  __m512i sign = _mm512_slli_epi32(_mm512_srli_epi32(u, 31), static_cast<unsigned>(31 - t::sign_shift));
  if constexpr (F::enc == encoding::fnuz) {  // no -0
    sign = _mm512_maskz_mov_epi32(_mm512_test_epi32_mask(code, code), sign);
  }
  const __mmask16 nan = _mm512_cmpgt_epu32_mask(a, _mm512_set1_epi32(0x7f800000));
  if (nan != 0) {
    const __m512i payload =
        _mm512_and_si512(_mm512_srli_epi32(a, static_cast<unsigned>(23 - t::M)), _mm512_set1_epi32(static_cast<int>(t::nan_payload_mask)));
    code = _mm512_mask_or_epi32(code, nan, _mm512_set1_epi32(static_cast<int>(t::nan_fixed)), payload);
    if constexpr (!t::nan_signed) sign = _mm512_mask_mov_epi32(sign, nan, _mm512_setzero_si512());
  }
  return _mm512_or_si512(code, sign);
}

/// codes512, with the common case (every lane zero or a normal of F) in a few operations.
template <class F>
inline __m512i codes512_fast(__m512i u, overflow policy) noexcept {
  using t = narrow8_traits<F>;
  const __m512i a = _mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff));
  const __mmask16 normal = _mm512_cmplt_epu32_mask(_mm512_sub_epi32(a, _mm512_set1_epi32(static_cast<int>(t::lo))),
                                                   _mm512_set1_epi32(static_cast<int>(t::hi - t::lo)));
  const __mmask16 nonzero = _mm512_test_epi32_mask(a, a);
  if (static_cast<__mmask16>(normal | static_cast<__mmask16>(~nonzero)) != 0xffff) return codes512<F>(u, policy);
  // the kept integer's last bit is (a - rebias)'s: rebias is a multiple of 2^23
  const __m512i b = _mm512_sub_epi32(a, _mm512_set1_epi32(static_cast<int>(t::rebias)));
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(b, static_cast<unsigned>(t::min_shift)), _mm512_set1_epi32(1));
  const __m512i code = _mm512_srli_epi32(
      _mm512_add_epi32(_mm512_add_epi32(b, _mm512_set1_epi32(static_cast<int>(t::half_minus_one))), lsb),
      static_cast<unsigned>(t::min_shift));
  __m512i sign = _mm512_and_si512(_mm512_srli_epi32(u, static_cast<unsigned>(t::sign_shift)),
                                  _mm512_set1_epi32(static_cast<int>(F::sign_mask)));
  if constexpr (F::enc == encoding::fnuz) sign = _mm512_maskz_mov_epi32(nonzero, sign);  // no -0
  return _mm512_or_si512(_mm512_maskz_mov_epi32(normal, code), sign);
}

template <class F>
inline void narrow512(const float* s, std::uint8_t* d, std::size_t n, overflow policy) noexcept {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i),
                     _mm512_cvtepi32_epi8(codes512_fast<F>(_mm512_castps_si512(_mm512_loadu_ps(s + i)), policy)));
  }
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    _mm_mask_storeu_epi8(d + i, m, _mm512_cvtepi32_epi8(codes512<F>(_mm512_maskz_loadu_epi32(m, s + i), policy)));
  }
}
/// 16 doubles -> 16 codes: each rounded to odd at float's precision (simd512's half helper: the
/// same bits wherever F's result depends on them, F having at most 22 significant bits and no
/// values below float's normals), then as floats.
template <class F>
inline __m512i codes512_from_double(__m512d x0, __m512d x1, overflow policy) noexcept {
  const __m256 f0 = simd512::double_to_float_odd_for_half(x0);
  const __m256 f1 = simd512::double_to_float_odd_for_half(x1);
  return codes512_fast<F>(_mm512_inserti64x4(_mm512_castsi256_si512(_mm256_castps_si256(f0)), _mm256_castps_si256(f1), 1),
                          policy);
}

template <class F>
inline void narrow512(const double* s, std::uint8_t* d, std::size_t n, overflow policy) noexcept {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i),
                     _mm512_cvtepi32_epi8(codes512_from_double<F>(_mm512_loadu_pd(s + i), _mm512_loadu_pd(s + i + 8), policy)));
  }
  if (i < n) {
    const std::size_t left = n - i;
    const auto m0 = static_cast<__mmask8>(left >= 8 ? 0xffu : (1u << left) - 1u);
    const auto m1 = static_cast<__mmask8>(left <= 8 ? 0u : (1u << (left - 8)) - 1u);
    const __m512i c = codes512_from_double<F>(_mm512_maskz_loadu_pd(m0, s + i), _mm512_maskz_loadu_pd(m1, s + i + 8), policy);
    _mm_mask_storeu_epi8(d + i, static_cast<__mmask16>((1u << left) - 1u), _mm512_cvtepi32_epi8(c));
  }
}
#endif  // MIXPREC_SIMD_AVX512

#if defined(MIXPREC_SIMD_AVX2)
/// 8 floats -> 8 codes of F (32-bit lanes).
template <class F>
inline __m256i codes256(__m256i u, overflow policy) noexcept {
  using t = narrow8_traits<F>;
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i a = _mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff));
  const __m256i e = _mm256_max_epu32(_mm256_srli_epi32(a, 23), one);
  const __m256i m24 = _mm256_or_si256(_mm256_and_si256(a, _mm256_set1_epi32(0x7fffff)),
                                      _mm256_slli_epi32(_mm256_min_epu32(_mm256_srli_epi32(a, 23), one), 23));
  const __m256i shift = _mm256_min_epi32(
      _mm256_max_epi32(_mm256_sub_epi32(_mm256_set1_epi32(t::shift_base), e), _mm256_set1_epi32(t::min_shift)),
      _mm256_set1_epi32(31));
  __m256i integer = _mm256_srlv_epi32(m24, shift);
  const __m256i rem = _mm256_sllv_epi32(m24, _mm256_sub_epi32(_mm256_set1_epi32(32), shift));
  const __m256i r = _mm256_add_epi32(_mm256_set1_epi32(0x7fffffff), _mm256_and_si256(integer, one));
  // carry out of rem + r: unsigned (rem + r) < rem, as a signed comparison of sign-flipped values
  const __m256i flip = _mm256_set1_epi32(static_cast<int>(0x80000000u));
  const __m256i carry = _mm256_cmpgt_epi32(_mm256_xor_si256(rem, flip), _mm256_xor_si256(_mm256_add_epi32(rem, r), flip));
  integer = _mm256_sub_epi32(integer, carry);
  const __m256i eb = _mm256_set1_epi32(static_cast<int>(t::ebase));
  __m256i code = _mm256_add_epi32(integer, _mm256_slli_epi32(_mm256_sub_epi32(_mm256_max_epu32(e, eb), eb), t::M));
  // code > max_code (both below 2^31: a signed comparison)
  const __m256i over = _mm256_cmpgt_epi32(code, _mm256_set1_epi32(static_cast<int>(t::max_code)));
  code = _mm256_blendv_epi8(code, _mm256_set1_epi32(static_cast<int>(t::overflow_mag(policy))), over);
  __m256i sign = _mm256_slli_epi32(_mm256_srli_epi32(u, 31), 31 - t::sign_shift);
  if constexpr (F::enc == encoding::fnuz) {  // no -0
    sign = _mm256_andnot_si256(_mm256_cmpeq_epi32(code, _mm256_setzero_si256()), sign);
  }
  const __m256i nan = _mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x7f800000));
  if (!_mm256_testz_si256(nan, nan)) {
    const __m256i payload =
        _mm256_and_si256(_mm256_srli_epi32(a, 23 - t::M), _mm256_set1_epi32(static_cast<int>(t::nan_payload_mask)));
    code = _mm256_blendv_epi8(code, _mm256_or_si256(_mm256_set1_epi32(static_cast<int>(t::nan_fixed)), payload), nan);
    if constexpr (!t::nan_signed) sign = _mm256_andnot_si256(nan, sign);
  }
  return _mm256_or_si256(code, sign);
}

/// 32 floats (or doubles rounded to odd at float's precision, as for AVX-512) -> 32 codes.
template <class F>
inline __m256i load8(const float* s) noexcept {
  return _mm256_castps_si256(_mm256_loadu_ps(s));
}
template <class F>
inline __m256i load8(const double* s) noexcept {
  return _mm256_castps_si256(simd256::double_to_float_odd(_mm256_loadu_pd(s), _mm256_loadu_pd(s + 4)));
}
template <class F, class S>
inline void narrow256x32(const S* s, std::uint8_t* d, overflow policy) noexcept {
  const __m256i c0 = codes256<F>(load8<F>(s), policy);
  const __m256i c1 = codes256<F>(load8<F>(s + 8), policy);
  const __m256i c2 = codes256<F>(load8<F>(s + 16), policy);
  const __m256i c3 = codes256<F>(load8<F>(s + 24), policy);
  // bytes in dword order c0[0..3] c1[0..3] c2[0..3] c3[0..3] | c0[4..7] c1[4..7] ...
  const __m256i b = _mm256_packus_epi16(_mm256_packus_epi32(c0, c1), _mm256_packus_epi32(c2, c3));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
}

template <class F, class S>
inline void narrow256(const S* s, std::uint8_t* d, std::size_t n, overflow policy) noexcept {
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) narrow256x32<F>(s + i, d + i, policy);
  if (i < n) {
    S in[32] = {};
    std::uint8_t out[32] = {};
    std::memcpy(in, s + i, (n - i) * sizeof(S));
    narrow256x32<F>(in, out, policy);
    std::memcpy(d + i, out, n - i);
  }
}
#endif  // MIXPREC_SIMD_AVX2

}  // namespace narrow8
#endif

/// dst[i] = round_to<T>(src[i], nearest_even, policy) for i < n (float or double src) with the given
/// level's fast path;
/// false (nothing written) when the level is not compiled in, T is not supported
/// (narrow8_traits<format>::supported) or policy is neither ieee nor saturate.
template <class F, class S, std::enable_if_t<std::is_same<S, float>::value || std::is_same<S, double>::value, int> = 0>
inline bool simd_narrow8_at(simd_level level, const S* s, basic_float<F>* d, std::size_t n,
                            overflow policy) noexcept {
  if constexpr (!narrow8_traits<F>::supported || (std::is_same<S, double>::value && F::mantissa_bits > 21)) {
    (void)level, (void)s, (void)d, (void)n, (void)policy;
    return false;
  } else {
    if (policy != overflow::ieee && policy != overflow::saturate) return false;
    static_assert(sizeof(basic_float<F>) == 1, "one byte per value");
    auto* out = reinterpret_cast<std::uint8_t*>(d);
    switch (level) {
#if defined(MIXPREC_SIMD_AVX512)
      case simd_level::avx512_bf16:
      case simd_level::avx512:
        if (!simd_level_compiled(level)) return false;
        narrow8::narrow512<F>(s, out, n, policy);
        return true;
#endif
#if defined(MIXPREC_SIMD_AVX2)
      case simd_level::avx2:
        narrow8::narrow256<F>(s, out, n, policy);
        return true;
#endif
      default:
        (void)s, (void)out, (void)n;
        return false;
    }
  }
}

/// simd_narrow8_at with the best level compiled in.
template <class F, class S>
inline bool simd_narrow8(const S* s, basic_float<F>* d, std::size_t n, overflow policy) noexcept {
  return simd_narrow8_at(simd_best_level, s, d, n, policy);
}

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_SIMD_NARROW8_HPP
