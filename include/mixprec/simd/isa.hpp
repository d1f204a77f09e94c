// SPDX-License-Identifier: MIT
// mixprec/simd/isa.hpp — the one instruction-set detection of mixprec's x86 fast paths (host only).
//
// What: compile-time macros, decided once from the compiler's target macros (-march=native,
// -mavx2 -mf16c -mfma, ...), and <immintrin.h> included with GCC 12's bogus warnings silenced.
//   MIXPREC_SIMD_X86      AVX + F16C (the 256-bit float <-> half pair)
//   MIXPREC_SIMD_AVX2     MIXPREC_SIMD_X86 and AVX2: simd/vec_avx2.hpp's 8-lane traits
//   MIXPREC_SIMD_AVX512   MIXPREC_SIMD_X86 and AVX-512 F/BW/VL: simd/vec_avx512.hpp's 16 lanes
//   MIXPREC_SIMD_AVX512_BF16  MIXPREC_SIMD_AVX512 and AVX-512-BF16 (vcvtne2ps2bf16)
//   MIXPREC_SIMD_AVX512_FP16  MIXPREC_SIMD_AVX512 and AVX-512-FP16 (vcvtpd2ph)
//   MIXPREC_SIMD_AVX512_VBMI  MIXPREC_SIMD_AVX512 and AVX-512-VBMI (vpermi2b, the byte-table decoder)
//   MIXPREC_SIMD_AVX512_DQ    MIXPREC_SIMD_AVX512 and AVX-512-DQ (vfpclassps, vpmullq)
//   MIXPREC_SIMD_SSE41    SSE4.1 (reported only; no kernel uses a 128-bit width yet)
// None of them on other architectures, on a CUDA device, or with MIXPREC_NO_SIMD defined: the
// portable scalar loops run. Room for AVX10 / NEON / SVE: a new width adds a traits header and a
// macro here; the kernels (simd/encode.hpp, simd/decode.hpp) are written once over the traits.
// Contract: a macro is defined only when every instruction its code uses is enabled.
//   #if defined(MIXPREC_SIMD_AVX512)  ... mixprec::simd::vec512 ...  #endif
// GCC 12's AVX-512 intrinsics trip -Wmaybe-uninitialized on their own _mm512_undefined_*()
// placeholders (GCC bug 105593, fixed in GCC 13); the warning is silenced for the intrinsic
// headers here, before their first inclusion (include mixprec before <immintrin.h>, or add
// -Wno-maybe-uninitialized, if a translation unit includes it first).
#ifndef MIXPREC_SIMD_ISA_HPP
#define MIXPREC_SIMD_ISA_HPP

#if (defined(__x86_64__) || defined(_M_X64) || defined(__i386__)) && !defined(__CUDA_ARCH__)
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
