// SPDX-License-Identifier: MIT
// mixprec/core/config.hpp — compiler and language feature detection shared by every header.
//
// Contract: stops with one #error under C++14 or older, and under -ffast-math, -ffinite-math-only
// or /fp:fast unless MIXPREC_ALLOW_FAST_MATH is defined (nvcc's --use_fast_math cannot be
// detected); headers that need C++ exceptions stop under -fno-exceptions. The rules:
// docs/pages/getting-started.md.
//
//   g++ -std=c++17 -ffast-math app.cpp   // error: mixprec: -ffast-math gives wrong results ...
#ifndef MIXPREC_CONFIG_HPP
#define MIXPREC_CONFIG_HPP

// The missing #include after each #error is fatal: it stops the compilation without follow-up errors.
#if defined(_MSVC_LANG) ? (_MSVC_LANG < 201703L) : (__cplusplus < 201703L)
#error "mixprec needs C++17"
#include "mixprec: compilation stopped (see the error above)"
#endif

#if (defined(__FAST_MATH__) || (defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__) || defined(_M_FP_FAST)) && \
    !defined(MIXPREC_ALLOW_FAST_MATH)
#error "mixprec: -ffast-math gives wrong results (subnormals flushed to zero, NaN and infinity assumed absent); compile without it (and without -ffinite-math-only, /fp:fast), or define MIXPREC_ALLOW_FAST_MATH to accept that"
#include "mixprec: compilation stopped (see the error above)"
#endif

#include "../version.hpp"

/// @namespace mixprec
/// Everything mixprec offers: the value types (basic_float and its aliases half, bfloat16, ...),
/// conversions (round_to), arithmetic and the cmath functions, printing and parsing, the ML layer (autocast,
/// grad_scaler, policies) and the kernels. Implementation details live in mixprec::detail.
/// @namespace mixprec::exec
/// Execution policies of the kernels: exec::seq, exec::par, exec::cuda (exec.hpp).

/// @def MIXPREC_HD
/// Marks functions usable from both host and CUDA device code (`__host__ __device__` under
/// nvcc and hipcc, empty elsewhere).
/// @def MIXPREC_HAS_BUILTIN
/// `__has_builtin(x)` where the compiler has it, else 0.
/// @def MIXPREC_CONSTEXPR_BIT_CAST
/// `constexpr` where bit casts can be (`__builtin_bit_cast` or C++20 std::bit_cast), else `inline`.
/// @def MIXPREC_NOINLINE
/// Keeps a rare path out of the hot loops (noinline attribute).
/// @def MIXPREC_LIKELY
/// Branch hint: the condition is usually true.
/// @def MIXPREC_UNLIKELY
/// Branch hint: the condition is usually false.
/// @def MIXPREC_HAS_EXCEPTIONS
/// 1 when C++ exceptions are enabled, 0 under -fno-exceptions.

// MIXPREC_HD marks functions usable from both host and CUDA device code.
#if defined(__CUDACC__) || defined(__HIPCC__)
#define MIXPREC_HD __host__ __device__
#else
#define MIXPREC_HD
#endif

#if defined(__has_builtin)
#define MIXPREC_HAS_BUILTIN(x) __has_builtin(x)
#else
#define MIXPREC_HAS_BUILTIN(x) 0
#endif

#if defined(__cpp_lib_bit_cast) || (defined(__has_include) && __cplusplus >= 202002L)
#if __has_include(<bit>)
#include <bit>
#endif
#endif

// Bit casts between float/double and integers are constexpr when the compiler offers
// __builtin_bit_cast (GCC >= 11, Clang >= 9, recent nvcc/MSVC) or std::bit_cast (C++20).
#if MIXPREC_HAS_BUILTIN(__builtin_bit_cast) || (defined(_MSC_VER) && _MSC_VER >= 1926)
#define MIXPREC_BIT_CAST_BUILTIN 1
#define MIXPREC_CONSTEXPR_BIT_CAST constexpr
#elif defined(__cpp_lib_bit_cast) && __cpp_lib_bit_cast >= 201806L
#define MIXPREC_BIT_CAST_STD 1
#define MIXPREC_CONSTEXPR_BIT_CAST constexpr
#else
#define MIXPREC_CONSTEXPR_BIT_CAST inline
#endif

// Keeps rare paths out of the hot loops.
#if defined(__CUDACC__)
#define MIXPREC_NOINLINE __noinline__
#elif defined(__GNUC__) || defined(__clang__)
#define MIXPREC_NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define MIXPREC_NOINLINE __declspec(noinline)
#else
#define MIXPREC_NOINLINE
#endif

// Branch layout hints: the likely side falls through (no taken jump on the common path).
#if defined(__GNUC__) || defined(__clang__)
#define MIXPREC_LIKELY(x) __builtin_expect(!!(x), 1)
#define MIXPREC_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define MIXPREC_LIKELY(x) (x)
#define MIXPREC_UNLIKELY(x) (x)
#endif

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
#define MIXPREC_HAS_EXCEPTIONS 1
#else
#define MIXPREC_HAS_EXCEPTIONS 0
#endif

#endif  // MIXPREC_CONFIG_HPP
