// mixprec/detail/x86.hpp — <immintrin.h> for the x86 fast paths (host only).
//
// GCC 12's AVX-512 intrinsics trip -Wmaybe-uninitialized on their own _mm512_undefined_*()
// placeholders (GCC bug 105593, fixed in GCC 13) when inlined into user code built with
// -Werror. The warning is located in the intrinsic headers, so it is silenced for them here,
// before their first inclusion. (If a translation unit includes <immintrin.h> before mixprec,
// the GCC 12 warning can still appear there: include mixprec first or add
// -Wno-maybe-uninitialized.)
#ifndef MIXPREC_DETAIL_X86_HPP
#define MIXPREC_DETAIL_X86_HPP

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

#endif  // MIXPREC_DETAIL_X86_HPP
