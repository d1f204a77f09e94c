// SPDX-License-Identifier: MIT
// mixprec/simd/isa.hpp — the one instruction-set detection of mixprec's x86 fast paths (host
// only): compile-time macros from the compiler's target macros, and <immintrin.h>.
// Contract: a macro is defined only when every instruction its code uses is enabled; none on other
// architectures, on a CUDA device, or with MIXPREC_NO_SIMD (the portable loops run).
//   MIXPREC_SIMD_X86      AVX + F16C (the 256-bit float <-> half pair)
//   MIXPREC_SIMD_AVX2     MIXPREC_SIMD_X86 and AVX2: simd/vec_avx2.hpp's 8-lane traits
//   MIXPREC_SIMD_AVX512   MIXPREC_SIMD_X86 and AVX-512 F/BW/VL: simd/vec_avx512.hpp's 16 lanes
//   MIXPREC_SIMD_AVX512_BF16, _FP16, _VBMI, _DQ  MIXPREC_SIMD_AVX512 and that AVX-512 extension
//   MIXPREC_SIMD_FMA      MIXPREC_SIMD_X86 and FMA;  MIXPREC_SIMD_SSE41  SSE4.1 (reported only)
//   #if defined(MIXPREC_SIMD_AVX512)  ... mixprec::simd::vec512 ...  #endif
#ifndef MIXPREC_SIMD_ISA_HPP
#define MIXPREC_SIMD_ISA_HPP

#if (defined(__x86_64__) || defined(_M_X64) || defined(__i386__)) && !defined(__CUDA_ARCH__)
// GCC 12's AVX-512 intrinsics trip -Wmaybe-uninitialized on their own _mm512_undefined_*()
// (GCC bug 105593): silenced here, before the intrinsic headers' first inclusion.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

#if !defined(MIXPREC_NO_SIMD) && !defined(__CUDA_ARCH__) && (defined(__x86_64__) || defined(_M_X64))
#if defined(__SSE4_1__) && !defined(MIXPREC_SIMD_SSE41)
#define MIXPREC_SIMD_SSE41 1
#endif
#if defined(__F16C__) && defined(__AVX__)
#if !defined(MIXPREC_SIMD_X86)
#define MIXPREC_SIMD_X86 1
#endif
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && !defined(MIXPREC_SIMD_AVX512)
#define MIXPREC_SIMD_AVX512 1
#endif
#if defined(MIXPREC_SIMD_AVX512)
#if defined(__AVX512BF16__) && !defined(MIXPREC_SIMD_AVX512_BF16)
#define MIXPREC_SIMD_AVX512_BF16 1
#endif
#if defined(__AVX512FP16__) && !defined(MIXPREC_SIMD_AVX512_FP16)
#define MIXPREC_SIMD_AVX512_FP16 1
#endif
#if defined(__AVX512VBMI__) && !defined(MIXPREC_SIMD_AVX512_VBMI)
#define MIXPREC_SIMD_AVX512_VBMI 1
#endif
#if defined(__AVX512DQ__) && !defined(MIXPREC_SIMD_AVX512_DQ)
#define MIXPREC_SIMD_AVX512_DQ 1
#endif
#endif
#if defined(__AVX2__) && !defined(MIXPREC_SIMD_AVX2)
#define MIXPREC_SIMD_AVX2 1
#endif
#if defined(__FMA__) && !defined(MIXPREC_SIMD_FMA)
#define MIXPREC_SIMD_FMA 1
#endif
#endif
#endif

#if defined(MIXPREC_SIMD_X86)
namespace mixprec {
namespace simd {
/// MXCSR.DAZ (denormals-are-zero) is set: float subnormal inputs of floating-point instructions read as zero.
inline bool daz_on() noexcept { return (_mm_getcsr() & 0x0040u) != 0; }
/// MXCSR.FTZ (flush-to-zero) or DAZ is set.
inline bool ftz_or_daz_on() noexcept { return (_mm_getcsr() & 0x8040u) != 0; }
}  // namespace simd
}  // namespace mixprec
#endif

#endif  // MIXPREC_SIMD_ISA_HPP
