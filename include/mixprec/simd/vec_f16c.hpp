// SPDX-License-Identifier: MIT
// mixprec/simd/vec_f16c.hpp — the few vector operations of float <-> half and half -> double for
// x86 with AVX and F16C but not AVX2 (the 256-bit width of kernels/detail/simd_convert.hpp there).
//
// What: simd::vec_f16c, 8 lanes; a subset of simd::vec256's interface (load/store, to_half,
// h2f, d_store), defined only where MIXPREC_SIMD_X86 is and MIXPREC_SIMD_AVX2 is not.
// Contract: vcvtps2ph/vcvtph2ps with the rounding immediate given (no MXCSR dependence).
//   simd::vec_f16c::h_store(dst, simd::vec_f16c::to_half<_MM_FROUND_TO_NEAREST_INT>(simd::vec_f16c::load(src)));
#ifndef MIXPREC_SIMD_VEC_F16C_HPP
#define MIXPREC_SIMD_VEC_F16C_HPP

#include <cstddef>

#include "isa.hpp"

#if defined(MIXPREC_SIMD_X86) && !defined(MIXPREC_SIMD_AVX2)
namespace mixprec {
namespace simd {

/// The float <-> half operations of the 256-bit width without AVX2.
struct vec_f16c {
  static constexpr std::size_t N = 8;
  static constexpr bool has_masked_tail = false;
  using vi = __m256i;
  using vh = __m128i;
  using vf = __m256;
  static vi load(const void* p) noexcept { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
  static void store(void* p, vi a) noexcept { _mm256_storeu_si256(static_cast<__m256i*>(p), a); }
  static vh h_load(const void* p) noexcept { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }
  static void h_store(void* p, vh h) noexcept { _mm_storeu_si128(static_cast<__m128i*>(p), h); }
  template <bool>
  static void h_store2(void* p, vh a, vh b) noexcept {
    _mm_storeu_si128(static_cast<__m128i*>(p), a);
    _mm_storeu_si128(static_cast<__m128i*>(p) + 1, b);
  }
  template <int Imm>
  static vh to_half(vi u) noexcept { return _mm256_cvtps_ph(_mm256_castsi256_ps(u), Imm | _MM_FROUND_NO_EXC); }
  static vf h2f(vh h) noexcept { return _mm256_cvtph_ps(h); }
  static vi f_bits(vf a) noexcept { return _mm256_castps_si256(a); }
  static void d_store(double* p, vf f) noexcept {
    _mm256_storeu_pd(p, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
    _mm256_storeu_pd(p + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
  }
};

}  // namespace simd
}  // namespace mixprec
#endif

#endif  // MIXPREC_SIMD_VEC_F16C_HPP
