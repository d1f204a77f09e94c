// SPDX-License-Identifier: MIT
// mixprec/interop/cuda.hpp — bit-exact conversions between mixprec types and the CUDA toolkit's
// __half, __nv_bfloat16, __nv_fp8_e4m3 and __nv_fp8_e5m2, and (CUDA 12.8 and later)
// __nv_fp8_e8m0, __nv_fp6_e2m3, __nv_fp6_e3m2 and __nv_fp4_e2m1 (x1, x2, x4).
//
//   mixprec::to_cuda(x), mixprec::from_cuda(c)          mixprec value <-> CUDA type
//   mixprec::to_cuda_raw(x), mixprec::from_cuda_raw(r)  <-> CUDA's raw bits forms (constexpr)
//   mixprec::cuda_type_t<T>, mixprec_type_t<C>, has_cuda_type<T>
//
// Contract: optional (not in mixprec.hpp); needs the CUDA headers, compiles under nvcc (all
// __host__ __device__) and plain g++/clang++. Each pair is the same encoding, size and alignment,
// so the conversions move bits and never round (NaN payloads and -0 included); from_cuda must be
// called qualified. Type table, what is not mapped, CUDA's rounding conversions: docs/pages/cuda.md.
//
//   __half h = mixprec::to_cuda(mixprec::half(0.1f));   // bits 0x2e66, as __float2half_rn(0.1f)
//   mixprec::half back = mixprec::from_cuda(h);          // the same bits
#ifndef MIXPREC_CUDA_HPP
#define MIXPREC_CUDA_HPP

// The toolkit's headers are not clean under -Wpedantic/-Wconversion/-Wold-style-cast when they
// are on the include path with -I rather than -isystem (clang: GNU variadic macros, an implicit
// int -> unsigned short): silence those here, for these headers only.
#if defined(__GNUC__) && !defined(__CUDACC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wold-style-cast"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wundef"
#if defined(__clang__)
#pragma GCC diagnostic ignored "-Wgnu-zero-variadic-macro-arguments"
#endif
#endif
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#if defined(CUDART_VERSION) && CUDART_VERSION >= 12080
#define MIXPREC_CUDA_HAS_MX_TYPES 1
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#else
#define MIXPREC_CUDA_HAS_MX_TYPES 0
#endif
#if defined(__GNUC__) && !defined(__CUDACC__)
#pragma GCC diagnostic pop
#endif

#include <cstdint>
#include <type_traits>

#include "../core/config.hpp"
#include "../core/types.hpp"

namespace mixprec {

// ---- type mapping ------------------------------------------------------------------------

/// cuda_type<T>::type: the CUDA type with the encoding of mixprec type T (no member otherwise).
template <class T>
struct cuda_type {};
/// half maps to CUDA's __half.
template <>
struct cuda_type<half> {
  using type = __half;  ///< __half
};
/// bfloat16 maps to CUDA's __nv_bfloat16.
template <>
struct cuda_type<bfloat16> {
  using type = __nv_bfloat16;  ///< __nv_bfloat16
};
/// float8_e4m3fn maps to CUDA's __nv_fp8_e4m3.
template <>
struct cuda_type<float8_e4m3fn> {
  using type = __nv_fp8_e4m3;  ///< __nv_fp8_e4m3
};
/// float8_e5m2 maps to CUDA's __nv_fp8_e5m2.
template <>
struct cuda_type<float8_e5m2> {
  using type = __nv_fp8_e5m2;  ///< __nv_fp8_e5m2
};
#if MIXPREC_CUDA_HAS_MX_TYPES
/// Two FP4 E2M1 values as CUDA's __nv_fp4x2_e2m1 holds them (x: bits 3:0, y: bits 7:4).
struct fp4x2_e2m1 {
  float4_e2m1fn x, y;
};
/// Four FP4 E2M1 values as CUDA's __nv_fp4x4_e2m1 holds them (x, y, z, w from bit 0 up).
struct fp4x4_e2m1 {
  float4_e2m1fn x, y, z, w;
};
/// float8_e8m0fnu maps to CUDA's __nv_fp8_e8m0.
template <>
struct cuda_type<float8_e8m0fnu> {
  using type = __nv_fp8_e8m0;  ///< __nv_fp8_e8m0
};
/// float6_e2m3fn maps to CUDA's __nv_fp6_e2m3.
template <>
struct cuda_type<float6_e2m3fn> {
  using type = __nv_fp6_e2m3;  ///< __nv_fp6_e2m3
};
/// float6_e3m2fn maps to CUDA's __nv_fp6_e3m2.
template <>
struct cuda_type<float6_e3m2fn> {
  using type = __nv_fp6_e3m2;  ///< __nv_fp6_e3m2
};
/// float4_e2m1fn maps to CUDA's __nv_fp4_e2m1.
template <>
struct cuda_type<float4_e2m1fn> {
  using type = __nv_fp4_e2m1;  ///< __nv_fp4_e2m1
};
/// fp4x2_e2m1 maps to CUDA's __nv_fp4x2_e2m1.
template <>
struct cuda_type<fp4x2_e2m1> {
  using type = __nv_fp4x2_e2m1;  ///< __nv_fp4x2_e2m1
};
/// fp4x4_e2m1 maps to CUDA's __nv_fp4x4_e2m1.
template <>
struct cuda_type<fp4x4_e2m1> {
  using type = __nv_fp4x4_e2m1;  ///< __nv_fp4x4_e2m1
};
#endif
/// The CUDA type with T's encoding, e.g. cuda_type_t<half> is __half.
template <class T>
using cuda_type_t = typename cuda_type<T>::type;

namespace detail {
template <class... Ts>
struct type_list {};
/// The mixprec types that have a cuda_type, where mixprec_type looks for a CUDA type.
using cuda_mapped_types = type_list<half, bfloat16, float8_e4m3fn, float8_e5m2
#if MIXPREC_CUDA_HAS_MX_TYPES
                                    , float8_e8m0fnu, float6_e2m3fn, float6_e3m2fn, float4_e2m1fn,
                                    fp4x2_e2m1, fp4x4_e2m1
#endif
                                    >;
template <class T>
struct type_is {
  using type = T;
};
/// The first type T in the list whose cuda_type is C, as a member `type` (none if no T maps to C).
template <class C, class List>
struct mixprec_type_of {};
template <class C, class T, class... Ts>
struct mixprec_type_of<C, type_list<T, Ts...>>
    : std::conditional_t<std::is_same<typename cuda_type<T>::type, C>::value, type_is<T>,
                         mixprec_type_of<C, type_list<Ts...>>> {};
}  // namespace detail

/// mixprec_type<C>::type: the mixprec type with the encoding of CUDA type C (no member otherwise):
/// the reverse of cuda_type, e.g. mixprec_type<__nv_fp8_e4m3>::type is float8_e4m3fn.
template <class C>
struct mixprec_type : detail::mixprec_type_of<C, detail::cuda_mapped_types> {};
/// The mixprec type with C's encoding, e.g. mixprec_type_t<__half> is half.
template <class C>
using mixprec_type_t = typename mixprec_type<C>::type;

namespace detail {
template <class T, class = void>
struct has_cuda_type_impl : std::false_type {};
template <class T>
struct has_cuda_type_impl<T, std::void_t<typename cuda_type<T>::type>> : std::true_type {};
}  // namespace detail

/// Tells whether mixprec type T has a CUDA counterpart (the four above, the CUDA 12.8 ones where
/// MIXPREC_CUDA_HAS_MX_TYPES).
template <class T>
struct has_cuda_type : detail::has_cuda_type_impl<T> {};

static_assert(sizeof(half) == sizeof(__half) && alignof(half) == alignof(__half), "half and __half differ in layout");
static_assert(sizeof(bfloat16) == sizeof(__nv_bfloat16) && alignof(bfloat16) == alignof(__nv_bfloat16),
              "bfloat16 and __nv_bfloat16 differ in layout");
static_assert(sizeof(float8_e4m3fn) == sizeof(__nv_fp8_e4m3) && alignof(float8_e4m3fn) == alignof(__nv_fp8_e4m3),
              "float8_e4m3fn and __nv_fp8_e4m3 differ in layout");
static_assert(sizeof(float8_e5m2) == sizeof(__nv_fp8_e5m2) && alignof(float8_e5m2) == alignof(__nv_fp8_e5m2),
              "float8_e5m2 and __nv_fp8_e5m2 differ in layout");
static_assert(sizeof(half::storage_type) == sizeof(__half_raw{}.x), "half storage width");
static_assert(sizeof(bfloat16::storage_type) == sizeof(__nv_bfloat16_raw{}.x), "bfloat16 storage width");
static_assert(sizeof(float8_e4m3fn::storage_type) == sizeof(__nv_fp8_storage_t), "fp8 storage width");
#if MIXPREC_CUDA_HAS_MX_TYPES
static_assert(sizeof(float8_e8m0fnu) == sizeof(__nv_fp8_e8m0) && sizeof(float6_e2m3fn) == sizeof(__nv_fp6_e2m3) &&
                  sizeof(float6_e3m2fn) == sizeof(__nv_fp6_e3m2) && sizeof(float4_e2m1fn) == sizeof(__nv_fp4_e2m1),
              "MX element/scale types and their CUDA types differ in size");
static_assert(sizeof(__nv_fp4x2_storage_t) == 1 && sizeof(__nv_fp4x4_storage_t) == 2, "fp4x2/x4 storage width");
#endif

// ---- raw bit forms (constexpr) ------------------------------------------------------------

/// The bits of x as CUDA's __half_raw.
MIXPREC_HD constexpr __half_raw to_cuda_raw(half x) noexcept {
  __half_raw r{};
  r.x = x.bits();
  return r;
}
/// The bits of x as CUDA's __nv_bfloat16_raw.
MIXPREC_HD constexpr __nv_bfloat16_raw to_cuda_raw(bfloat16 x) noexcept {
  __nv_bfloat16_raw r{};
  r.x = x.bits();
  return r;
}
/// The bits of x as CUDA's FP8 storage (interpret as __NV_E4M3).
MIXPREC_HD constexpr __nv_fp8_storage_t to_cuda_raw(float8_e4m3fn x) noexcept {
  return static_cast<__nv_fp8_storage_t>(x.bits());
}
/// The bits of x as CUDA's FP8 storage (interpret as __NV_E5M2).
MIXPREC_HD constexpr __nv_fp8_storage_t to_cuda_raw(float8_e5m2 x) noexcept {
  return static_cast<__nv_fp8_storage_t>(x.bits());
}

#if MIXPREC_CUDA_HAS_MX_TYPES
/// The bits of x as CUDA's storage (interpret as __nv_fp8_e8m0).
MIXPREC_HD constexpr __nv_fp8_storage_t to_cuda_raw(float8_e8m0fnu x) noexcept {
  return static_cast<__nv_fp8_storage_t>(x.bits());
}
/// The bits of x as CUDA's storage (interpret as __NV_E2M3).
MIXPREC_HD constexpr __nv_fp6_storage_t to_cuda_raw(float6_e2m3fn x) noexcept {
  return static_cast<__nv_fp6_storage_t>(x.bits());
}
/// The bits of x as CUDA's storage (interpret as __NV_E3M2).
MIXPREC_HD constexpr __nv_fp6_storage_t to_cuda_raw(float6_e3m2fn x) noexcept {
  return static_cast<__nv_fp6_storage_t>(x.bits());
}
/// The bits of x as CUDA's storage (interpret as __NV_E2M1).
MIXPREC_HD constexpr __nv_fp4_storage_t to_cuda_raw(float4_e2m1fn x) noexcept {
  return static_cast<__nv_fp4_storage_t>(x.bits());
}
/// v.x in bits 3:0, v.y in bits 7:4 (__nv_fp4x2_storage_t).
MIXPREC_HD constexpr __nv_fp4x2_storage_t to_cuda_raw(fp4x2_e2m1 v) noexcept {
  return static_cast<__nv_fp4x2_storage_t>(v.x.bits() | (v.y.bits() << 4));
}
/// v.x, v.y, v.z, v.w in bits 3:0, 7:4, 11:8, 15:12 (__nv_fp4x4_storage_t).
MIXPREC_HD constexpr __nv_fp4x4_storage_t to_cuda_raw(fp4x4_e2m1 v) noexcept {
  return static_cast<__nv_fp4x4_storage_t>(v.x.bits() | (v.y.bits() << 4) | (v.z.bits() << 8) | (v.w.bits() << 12));
}
/// The two values of a __nv_fp4x2_storage_t (x: bits 3:0, y: bits 7:4).
MIXPREC_HD constexpr fp4x2_e2m1 fp4x2_from_cuda_raw(__nv_fp4x2_storage_t s) noexcept {
  return {float4_e2m1fn::from_bits(static_cast<std::uint8_t>(s & 0xFu)),
          float4_e2m1fn::from_bits(static_cast<std::uint8_t>((s >> 4) & 0xFu))};
}
/// The four values of a __nv_fp4x4_storage_t (x, y, z, w from bit 0 up).
MIXPREC_HD constexpr fp4x4_e2m1 fp4x4_from_cuda_raw(__nv_fp4x4_storage_t s) noexcept {
  return {float4_e2m1fn::from_bits(static_cast<std::uint8_t>(s & 0xFu)),
          float4_e2m1fn::from_bits(static_cast<std::uint8_t>((s >> 4) & 0xFu)),
          float4_e2m1fn::from_bits(static_cast<std::uint8_t>((s >> 8) & 0xFu)),
          float4_e2m1fn::from_bits(static_cast<std::uint8_t>((s >> 12) & 0xFu))};
}
#endif

/// The half whose bits are r.x.
MIXPREC_HD constexpr half from_cuda_raw(__half_raw r) noexcept { return half::from_bits(r.x); }
/// The bfloat16 whose bits are r.x.
MIXPREC_HD constexpr bfloat16 from_cuda_raw(__nv_bfloat16_raw r) noexcept { return bfloat16::from_bits(r.x); }

// ---- the CUDA types -----------------------------------------------------------------------

/// x as CUDA's __half (same bits).
MIXPREC_HD inline __half to_cuda(half x) noexcept { return __half(to_cuda_raw(x)); }
/// x as CUDA's __nv_bfloat16 (same bits).
MIXPREC_HD inline __nv_bfloat16 to_cuda(bfloat16 x) noexcept { return __nv_bfloat16(to_cuda_raw(x)); }
/// x as CUDA's __nv_fp8_e4m3 (same bits).
MIXPREC_HD inline __nv_fp8_e4m3 to_cuda(float8_e4m3fn x) noexcept {
  __nv_fp8_e4m3 r;
  r.__x = to_cuda_raw(x);
  return r;
}
/// x as CUDA's __nv_fp8_e5m2 (same bits).
MIXPREC_HD inline __nv_fp8_e5m2 to_cuda(float8_e5m2 x) noexcept {
  __nv_fp8_e5m2 r;
  r.__x = to_cuda_raw(x);
  return r;
}

#if MIXPREC_CUDA_HAS_MX_TYPES
namespace detail {
template <class C, class R>
MIXPREC_HD inline C cuda_with_bits(R bits) noexcept {
  C r;
  r.__x = bits;
  return r;
}
}  // namespace detail
/// x as CUDA's __nv_fp8_e8m0 (same bits).
MIXPREC_HD inline __nv_fp8_e8m0 to_cuda(float8_e8m0fnu x) noexcept {
  return detail::cuda_with_bits<__nv_fp8_e8m0>(to_cuda_raw(x));
}
/// x as CUDA's __nv_fp6_e2m3 (same bits).
MIXPREC_HD inline __nv_fp6_e2m3 to_cuda(float6_e2m3fn x) noexcept {
  return detail::cuda_with_bits<__nv_fp6_e2m3>(to_cuda_raw(x));
}
/// x as CUDA's __nv_fp6_e3m2 (same bits).
MIXPREC_HD inline __nv_fp6_e3m2 to_cuda(float6_e3m2fn x) noexcept {
  return detail::cuda_with_bits<__nv_fp6_e3m2>(to_cuda_raw(x));
}
/// x as CUDA's __nv_fp4_e2m1 (same bits).
MIXPREC_HD inline __nv_fp4_e2m1 to_cuda(float4_e2m1fn x) noexcept {
  return detail::cuda_with_bits<__nv_fp4_e2m1>(to_cuda_raw(x));
}
/// v as CUDA's __nv_fp4x2_e2m1 (same bits: .x low nibble).
MIXPREC_HD inline __nv_fp4x2_e2m1 to_cuda(fp4x2_e2m1 v) noexcept {
  return detail::cuda_with_bits<__nv_fp4x2_e2m1>(to_cuda_raw(v));
}
/// v as CUDA's __nv_fp4x4_e2m1 (same bits).
MIXPREC_HD inline __nv_fp4x4_e2m1 to_cuda(fp4x4_e2m1 v) noexcept {
  return detail::cuda_with_bits<__nv_fp4x4_e2m1>(to_cuda_raw(v));
}
/// c as mixprec::float8_e8m0fnu (same bits).
MIXPREC_HD inline float8_e8m0fnu from_cuda(__nv_fp8_e8m0 c) noexcept { return float8_e8m0fnu::from_bits(c.__x); }
/// c as mixprec::float6_e2m3fn (the low 6 bits).
MIXPREC_HD inline float6_e2m3fn from_cuda(__nv_fp6_e2m3 c) noexcept { return float6_e2m3fn::from_bits(c.__x); }
/// c as mixprec::float6_e3m2fn (the low 6 bits).
MIXPREC_HD inline float6_e3m2fn from_cuda(__nv_fp6_e3m2 c) noexcept { return float6_e3m2fn::from_bits(c.__x); }
/// c as mixprec::float4_e2m1fn (the low 4 bits).
MIXPREC_HD inline float4_e2m1fn from_cuda(__nv_fp4_e2m1 c) noexcept { return float4_e2m1fn::from_bits(c.__x); }
/// c as two mixprec::float4_e2m1fn (x: bits 3:0, y: bits 7:4).
MIXPREC_HD inline fp4x2_e2m1 from_cuda(__nv_fp4x2_e2m1 c) noexcept { return fp4x2_from_cuda_raw(c.__x); }
/// c as four mixprec::float4_e2m1fn (x, y, z, w from bit 0 up).
MIXPREC_HD inline fp4x4_e2m1 from_cuda(__nv_fp4x4_e2m1 c) noexcept { return fp4x4_from_cuda_raw(c.__x); }
#endif

/// c as mixprec::half (same bits).
MIXPREC_HD inline half from_cuda(__half c) noexcept { return from_cuda_raw(static_cast<__half_raw>(c)); }
/// c as mixprec::bfloat16 (same bits).
MIXPREC_HD inline bfloat16 from_cuda(__nv_bfloat16 c) noexcept {
  return from_cuda_raw(static_cast<__nv_bfloat16_raw>(c));
}
/// c as mixprec::float8_e4m3fn (same bits).
MIXPREC_HD inline float8_e4m3fn from_cuda(__nv_fp8_e4m3 c) noexcept { return float8_e4m3fn::from_bits(c.__x); }
/// c as mixprec::float8_e5m2 (same bits).
MIXPREC_HD inline float8_e5m2 from_cuda(__nv_fp8_e5m2 c) noexcept { return float8_e5m2::from_bits(c.__x); }

}  // namespace mixprec

#endif  // MIXPREC_CUDA_HPP
