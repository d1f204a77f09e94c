// SPDX-License-Identifier: MIT
// mixprec/kernels/detail/simd_narrow8.hpp — float or double -> byte-sized formats (FP8, FP6, FP4) in
// nearest-even, vectorised (host only): a thin layer over simd/encode.hpp's generic encoder.
//
// What: round_to<T>(x, nearest_even, policy) for float or double x and a signed format T stored in
// one byte without padding (float8_e4m3fn, float8_e5m2, the fnuz and IEEE-style FP8s, float6_*,
// float4_e2m1fn, ...), overflow::ieee or overflow::saturate, 16 (AVX-512) or 8 (AVX2) lanes at a
// time. Floats go through simd::encode_floats (every mode lives there; kernels/convert.hpp calls
// it directly). A double is first rounded to odd at float's precision (simd_convert.hpp's
// double -> half step): with T's at most 22 significant bits that is one correct rounding in all.
// narrow8::codes512 / codes512_fast / codes256 are the generic encoder's nearest-even codes for
// the block-scaling kernels (detail/simd_block_scaling.hpp).
// Contract: the bits of the scalar round_to for every input; tests/test_simd_narrow8.cpp checks
// every level and supported built-in format on every sign, exponent and rounding case, and
// tests/exhaustive/test_narrow8_all_floats.cpp all 2^32 floats for e4m3fn and e5m2.
//   detail::simd_narrow8_at(detail::simd_level::avx2, src, dst, n, overflow::saturate);
#ifndef MIXPREC_DETAIL_SIMD_NARROW8_HPP
#define MIXPREC_DETAIL_SIMD_NARROW8_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../core/rounding.hpp"
#include "../../simd/encode.hpp"
#include "simd_convert.hpp"

namespace mixprec {
namespace detail {

/// Whether F takes simd_narrow8 (one byte, signed; see simd::encode_format).
template <class F>
struct narrow8_traits {
  static constexpr bool supported = F::storage_bits <= 8 && simd::encode_format<F>::supported;
};

#if defined(MIXPREC_SIMD_AVX2) || defined(MIXPREC_SIMD_AVX512)
namespace narrow8 {

#if defined(MIXPREC_SIMD_AVX512)
/// 16 floats (bits) -> 16 codes of F (32-bit lanes), nearest even.
template <class F>
inline __m512i codes512(__m512i u, overflow policy) noexcept {
  return simd::encode<simd::vec512, F, rounding::nearest_even>(u, _mm512_setzero_si512(),
                                                               simd::encode_format<F>::overflow_away(policy));
}
/// codes512, with a shortcut for vectors of zeros and normals of F.
template <class F>
inline __m512i codes512_fast(__m512i u, overflow policy) noexcept {
  return simd::encode_fast<simd::vec512, F, rounding::nearest_even>(u, _mm512_setzero_si512(),
                                                                    simd::encode_format<F>::overflow_away(policy));
}
#endif
#if defined(MIXPREC_SIMD_AVX2)
/// 8 floats (bits) -> 8 codes of F (32-bit lanes), nearest even.
template <class F>
inline __m256i codes256(__m256i u, overflow policy) noexcept {
  return simd::encode<simd::vec256, F, rounding::nearest_even>(u, _mm256_setzero_si256(),
                                                               simd::encode_format<F>::overflow_away(policy));
}
#endif

/// N doubles -> N floats (bits) rounded to odd at float's precision, at V's width. load: the
/// sticky bit from the double's low bits (right where the float is normal, and enough for
/// nearest-even to formats whose least subnormal is far above float's normals); store_exact: by
/// comparing back (right for every double while MXCSR's FTZ and DAZ are clear).
template <class V>
struct odd_floats;
#if defined(MIXPREC_SIMD_AVX512)
template <>
struct odd_floats<simd::vec512> {
  static __m512i load(const double* s) noexcept {
    const __m256 f0 = simd512::double_to_float_odd_for_half(_mm512_loadu_pd(s));
    const __m256 f1 = simd512::double_to_float_odd_for_half(_mm512_loadu_pd(s + 8));
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_castps_si256(f0)), _mm256_castps_si256(f1), 1);
  }
  static void store_exact(float* d, const double* s) noexcept {
    _mm512_storeu_si512(d, simd512::join(simd512::double_to_float_odd(_mm512_loadu_pd(s)),
                                         simd512::double_to_float_odd(_mm512_loadu_pd(s + 8))));
  }
};
#endif
#if defined(MIXPREC_SIMD_AVX2)
template <>
struct odd_floats<simd::vec256> {
  static __m256i load(const double* s) noexcept {
    return _mm256_castps_si256(simd256::double_to_float_odd(_mm256_loadu_pd(s), _mm256_loadu_pd(s + 4)));
  }
  static void store_exact(float* d, const double* s) noexcept {
    _mm256_storeu_ps(d, simd256::double_to_float_odd(_mm256_loadu_pd(s), _mm256_loadu_pd(s + 4)));
  }
};
#endif

/// doubles -> codes of F, nearest even, at V's width (the tail through a buffer).
template <class V, class F>
inline void narrow_doubles(const double* s, std::uint8_t* d, std::size_t n, overflow policy) noexcept {
  constexpr std::size_t N = V::N;
  const std::uint32_t away = simd::encode_format<F>::overflow_away(policy);
  std::size_t i = 0;
  for (; i + N <= n; i += N) {
    V::store8(d + i, simd::encode<V, F, rounding::nearest_even>(odd_floats<V>::load(s + i), V::zero(), away));
  }
  if (i < n) {
    double in[N] = {};
    std::uint8_t out[N] = {};
    std::memcpy(in, s + i, (n - i) * sizeof(double));
    V::store8(out, simd::encode<V, F, rounding::nearest_even>(odd_floats<V>::load(in), V::zero(), away));
    std::memcpy(d + i, out, n - i);
  }
}

/// float or double -> codes of F, nearest even, at V's width.
template <class V, class F>
inline void narrow(const float* s, std::uint8_t* d, std::size_t n, overflow policy) noexcept {
  simd::encode_floats<V, F>(s, d, n, rounding::nearest_even, policy, 0, 0);
}
template <class V, class F>
inline void narrow(const double* s, std::uint8_t* d, std::size_t n, overflow policy) noexcept {
  narrow_doubles<V, F>(s, d, n, policy);
}

}  // namespace narrow8

/// Whether doubles -> F take encode_doubles: F encoded by simd::encode_floats, with at most 22
/// significant bits and a least subnormal of at least 2^-147 (so float's precision, rounded to
/// odd, keeps two bits more than F's everywhere: one correct rounding in every mode but stochastic).
template <class F>
struct double_encode_traits {
  static constexpr bool supported = simd::encode_format<F>::supported && F::mantissa_bits <= 21 &&
                                    F::emin - F::mantissa_bits >= -147;
};

/// dst[i] = round_to(src[i], mode, policy) for doubles, every mode but stochastic (whose bits
/// read the exact remainder) and either policy: the doubles rounded to odd at float's precision
/// (odd_floats::store_exact), 512 at a time into a buffer in L1, then simd::encode_floats. False
/// (nothing written) for stochastic rounding, F not double_encode_traits<F>::supported, or while
/// MXCSR's FTZ or DAZ is set (they would flush the float step).
template <class V, class F, class Out>
inline bool encode_doubles(const double* s, Out* d, std::size_t n, rounding mode, overflow policy) noexcept {
  if constexpr (!double_encode_traits<F>::supported) {
    (void)s, (void)d, (void)n, (void)mode, (void)policy;
    return false;
  } else {
    if (mode == rounding::stochastic || !is_valid(mode) || !is_valid(policy) || simd_x86::ftz_or_daz_on()) return false;
    constexpr std::size_t N = V::N, chunk = 512;
    alignas(64) float buf[chunk];
    for (std::size_t i = 0; i < n; i += chunk) {
      const std::size_t m = n - i < chunk ? n - i : chunk;
      std::size_t j = 0;
      for (; j + N <= m; j += N) narrow8::odd_floats<V>::store_exact(buf + j, s + i + j);
      if (j < m) {
        double in[N] = {};
        float out[N] = {};
        std::memcpy(in, s + i + j, (m - j) * sizeof(double));
        narrow8::odd_floats<V>::store_exact(out, in);
        std::memcpy(buf + j, out, (m - j) * sizeof(float));
      }
      simd::encode_floats<V, F>(buf, d + i, m, mode, policy, 0, 0);
    }
    return true;
  }
}
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
        narrow8::narrow<simd::vec512, F>(s, out, n, policy);
        return true;
#endif
#if defined(MIXPREC_SIMD_AVX2)
      case simd_level::avx2:
        narrow8::narrow<simd::vec256, F>(s, out, n, policy);
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
