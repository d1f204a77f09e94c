// SPDX-License-Identifier: MIT
// mixprec/core/detail/ieee_ops.hpp — single IEEE 754 operations (round to nearest even) on float and
// double that the compiler may not fuse or reassociate, for kernels whose results must be the
// same bits on every host and device.
//
// Why: compilers contract a * b + c into an FMA (GCC's default -ffp-contract=fast, nvcc), which
// changes results. Every product here is an explicit fma_rn or a mul_rn that cannot be contracted
// (__fmul_rn on the device; behind an empty asm on x86 with FMA and AArch64; fma(a, b, -0) on
// other hosts with a fast fma; a plain product where there is no fma). Division and square root
// use the correctly rounded device intrinsics, so -prec-div/-prec-sqrt=false do not change them
// (-ftz=true / --use_fast_math do).
#ifndef MIXPREC_DETAIL_IEEE_OPS_HPP
#define MIXPREC_DETAIL_IEEE_OPS_HPP

#include <cmath>

#include "../config.hpp"

// On GCC/Clang targets with a fused multiply-add, a product that must stay a product passes
// through an empty asm statement holding it in a floating-point register: the optimizer cannot
// see through it, so it cannot fuse it with a later addition, even under -ffp-contract=fast
// (Clang folds fma(a, b, -0) back into a product and then fuses it; GCC does not).
#if !defined(__CUDA_ARCH__) && defined(__GNUC__) && defined(__FMA__) && (defined(__x86_64__) || defined(__i386__))
#define MIXPREC_IEEE_REGISTER_FENCE(v) "+x"(v)
#elif !defined(__CUDA_ARCH__) && defined(__GNUC__) && defined(__aarch64__)
#define MIXPREC_IEEE_REGISTER_FENCE(v) "+w"(v)
#endif

namespace mixprec {
namespace detail {
namespace ieee {

#if defined(__CUDA_ARCH__)
/// a * b + c rounded once.
MIXPREC_HD inline double fma_rn(double a, double b, double c) noexcept { return __fma_rn(a, b, c); }
MIXPREC_HD inline float fma_rn(float a, float b, float c) noexcept { return __fmaf_rn(a, b, c); }
/// a * b rounded once, never fused with a later addition.
MIXPREC_HD inline double mul_rn(double a, double b) noexcept { return __dmul_rn(a, b); }
MIXPREC_HD inline float mul_rn(float a, float b) noexcept { return __fmul_rn(a, b); }
/// a / b rounded once.
MIXPREC_HD inline double div_rn(double a, double b) noexcept { return __ddiv_rn(a, b); }
MIXPREC_HD inline float div_rn(float a, float b) noexcept { return __fdiv_rn(a, b); }
/// sqrt(a) rounded once.
MIXPREC_HD inline double sqrt_rn(double a) noexcept { return __dsqrt_rn(a); }
MIXPREC_HD inline float sqrt_rn(float a) noexcept { return __fsqrt_rn(a); }
#else
/// a * b + c rounded once.
MIXPREC_HD inline double fma_rn(double a, double b, double c) noexcept { return std::fma(a, b, c); }
MIXPREC_HD inline float fma_rn(float a, float b, float c) noexcept { return std::fma(a, b, c); }

/// a * b rounded once, never fused with a later addition (FastFma: the target has a fast fma of T).
template <class T, bool FastFma>
MIXPREC_HD inline T product_rn(T a, T b) noexcept {
#if defined(MIXPREC_IEEE_REGISTER_FENCE)
  T v = a * b;
  __asm__("" : MIXPREC_IEEE_REGISTER_FENCE(v));  // opaque: the product cannot be fused
  return v;
#else
  if constexpr (FastFma) {
    return std::fma(a, b, -T(0));
  } else {
    return a * b;
  }
#endif
}
#if defined(FP_FAST_FMA)
MIXPREC_HD inline double mul_rn(double a, double b) noexcept { return product_rn<double, true>(a, b); }
#else
MIXPREC_HD inline double mul_rn(double a, double b) noexcept { return product_rn<double, false>(a, b); }
#endif
#if defined(FP_FAST_FMAF)
MIXPREC_HD inline float mul_rn(float a, float b) noexcept { return product_rn<float, true>(a, b); }
#else
MIXPREC_HD inline float mul_rn(float a, float b) noexcept { return product_rn<float, false>(a, b); }
#endif

/// a / b rounded once.
MIXPREC_HD inline double div_rn(double a, double b) noexcept { return a / b; }
MIXPREC_HD inline float div_rn(float a, float b) noexcept { return a / b; }
/// sqrt(a) rounded once.
MIXPREC_HD inline double sqrt_rn(double a) noexcept { return std::sqrt(a); }
MIXPREC_HD inline float sqrt_rn(float a) noexcept { return std::sqrt(a); }
#endif

}  // namespace ieee
}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_IEEE_OPS_HPP
