// SPDX-License-Identifier: MIT
// mixprec/cuda.hpp with CUDA 12.8+'s __nv_fp8_e8m0, __nv_fp6_e2m3, __nv_fp6_e3m2, __nv_fp4_e2m1
// and __nv_fp4x2_e2m1 / __nv_fp4x4_e2m1, host-compiled against the toolkit's headers: every code
// maps by bits both ways and widens to the float CUDA's own functions give; the x2/x4 element
// order equals CUDA's constructors and mixprec/packed.hpp's. (All 2^32 floats through CUDA's
// rounding functions: tests/exhaustive/test_cuda_host_mx_conversions.cpp.)
#include <mixprec/cuda.hpp>
#include <mixprec/mixprec.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if MIXPREC_CUDA_HAS_MX_TYPES

namespace mp = mixprec;

static_assert(std::is_same<mp::cuda_type_t<mp::float8_e8m0fnu>, __nv_fp8_e8m0>::value, "");
static_assert(std::is_same<mp::cuda_type_t<mp::float6_e2m3fn>, __nv_fp6_e2m3>::value, "");
static_assert(std::is_same<mp::cuda_type_t<mp::float6_e3m2fn>, __nv_fp6_e3m2>::value, "");
static_assert(std::is_same<mp::cuda_type_t<mp::float4_e2m1fn>, __nv_fp4_e2m1>::value, "");
static_assert(std::is_same<mp::cuda_type_t<mp::fp4x2_e2m1>, __nv_fp4x2_e2m1>::value, "");
static_assert(std::is_same<mp::mixprec_type_t<__nv_fp4x4_e2m1>, mp::fp4x4_e2m1>::value, "");
static_assert(std::is_same<mp::mixprec_type_t<__nv_fp8_e8m0>, mp::float8_e8m0fnu>::value, "");
static_assert(mp::has_cuda_type<mp::float4_e2m1fn>::value && !mp::has_cuda_type<mp::float8_ue4m3>::value, "");
static_assert(mp::to_cuda_raw(mp::fp4x2_e2m1{mp::float4_e2m1fn::from_bits(0x2), mp::float4_e2m1fn::from_bits(0xF)}) == 0xF2,
              "");

namespace {

bool same_float(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  std::uint32_t ua = 0, ub = 0;
  std::memcpy(&ua, &a, 4);
  std::memcpy(&ub, &b, 4);
  return ua == ub;
}

template <class T, class C, class Widen>
long check_codes(Widen cuda_to_float) {
  long bad = 0;
  for (unsigned c = 0; c < (1u << T::format_type::bits); ++c) {
    const T x = T::from_bits(static_cast<typename T::storage_type>(c));
    const C cx = mp::to_cuda(x);
    if (cx.__x != c) ++bad;
    if (mp::from_cuda(cx).bits() != c) ++bad;
    if (!same_float(static_cast<float>(x), cuda_to_float(cx.__x))) {
      if (++bad <= 4) MESSAGE("code ", c, ": mixprec ", static_cast<float>(x), ", CUDA ", cuda_to_float(cx.__x));
    }
  }
  return bad;
}

}  // namespace

TEST_CASE("every e8m0, fp6 and fp4 code maps by bits and widens as CUDA's functions do") {
  CHECK(check_codes<mp::float8_e8m0fnu, __nv_fp8_e8m0>([](__nv_fp8_storage_t s) {
          return __bfloat162float(__nv_bfloat16(__nv_cvt_e8m0_to_bf16raw(s)));
        }) == 0);
  CHECK(check_codes<mp::float6_e2m3fn, __nv_fp6_e2m3>([](__nv_fp6_storage_t s) {
          return __half2float(__half(__nv_cvt_fp6_to_halfraw(s, __NV_E2M3)));
        }) == 0);
  CHECK(check_codes<mp::float6_e3m2fn, __nv_fp6_e3m2>([](__nv_fp6_storage_t s) {
          return __half2float(__half(__nv_cvt_fp6_to_halfraw(s, __NV_E3M2)));
        }) == 0);
  CHECK(check_codes<mp::float4_e2m1fn, __nv_fp4_e2m1>([](__nv_fp4_storage_t s) {
          return __half2float(__half(__nv_cvt_fp4_to_halfraw(s, __NV_E2M1)));
        }) == 0);
  // Bits above the code in a CUDA FP4/FP6 byte are not part of the value.
  __nv_fp4_e2m1 c4;
  c4.__x = 0xF3;
  CHECK(mp::from_cuda(c4).bits() == 0x3);
}

TEST_CASE("__nv_fp4x2_e2m1 and __nv_fp4x4_e2m1: CUDA's element order is packed.hpp's") {
  long bad = 0;
  for (unsigned a = 0; a < 16; ++a) {
    for (unsigned b = 0; b < 16; ++b) {
      const auto x = mp::float4_e2m1fn::from_bits(static_cast<std::uint8_t>(a));
      const auto y = mp::float4_e2m1fn::from_bits(static_cast<std::uint8_t>(b));
      // CUDA's own constructor from float2{x, y}, rounding the exact values.
      float2 f;
      f.x = static_cast<float>(x);
      f.y = static_cast<float>(y);
      const __nv_fp4x2_e2m1 c(f);
      std::uint8_t packed = 0;
      mp::packed_store(&packed, 0, x);
      mp::packed_store(&packed, 1, y);
      if (c.__x != packed || mp::to_cuda(mp::fp4x2_e2m1{x, y}).__x != packed) ++bad;
      const mp::fp4x2_e2m1 back = mp::from_cuda(c);
      if (back.x.bits() != a || back.y.bits() != b) ++bad;
    }
  }
  CHECK(bad == 0);
  // float4{x, y, z, w} -> bits 3:0, 7:4, 11:8, 15:12: bytes {y:x, w:z} in memory.
  long bad4 = 0;
  for (unsigned q = 0; q < 65536; q += 7) {
    mp::float4_e2m1fn e[4];
    float4 f;
    float* fs[4] = {&f.x, &f.y, &f.z, &f.w};
    std::uint8_t packed[2] = {0, 0};
    for (unsigned k = 0; k < 4; ++k) {
      e[k] = mp::float4_e2m1fn::from_bits(static_cast<std::uint8_t>((q >> (4 * k)) & 0xFu));
      *fs[k] = static_cast<float>(e[k]);
      mp::packed_store(packed, k, e[k]);
    }
    const __nv_fp4x4_e2m1 c(f);
    std::uint8_t mem[2];
    std::memcpy(mem, &c.__x, 2);
    if (mem[0] != packed[0] || mem[1] != packed[1]) ++bad4;
    if (mp::to_cuda(mp::fp4x4_e2m1{e[0], e[1], e[2], e[3]}).__x != c.__x) ++bad4;
    const mp::fp4x4_e2m1 back = mp::from_cuda(c);
    if (back.x.bits() != e[0].bits() || back.w.bits() != e[3].bits()) ++bad4;
  }
  CHECK(bad4 == 0);
}

TEST_CASE("the __nv_fp8_e8m0 constructor rounds toward +inf and saturates") {
  using mp::overflow;
  using mp::rounding;
  const float xs[] = {1.0f, 1.5f, 3.0f, 0.75f, 4.0f, 0x1.000002p+100f, 0x1.8p127f, 1e-40f, INFINITY};
  for (const float x : xs) {
    CAPTURE(x);
    const __nv_fp8_e8m0 c(x);
    CHECK(c.__x == mp::round_to<mp::float8_e8m0fnu>(x, rounding::upward, overflow::saturate).bits());
  }
  CHECK(__nv_fp8_e8m0(3.0f).__x == 129);                       // 2^2: up, where nearest gives 2^1 or 2^2
  CHECK(mp::float8_e8m0fnu(3.0f).bits() == 129);               // 3 is a tie: ties away (ml_dtypes)
  CHECK(__nv_fp8_e8m0(2.5f).__x == 129);                       // up
  CHECK(mp::float8_e8m0fnu(2.5f).bits() == 128);               // nearest: 2^1
}

#else
TEST_CASE("CUDA older than 12.8: no fp4/fp6/e8m0 types to map") { MESSAGE("skipped: CUDART_VERSION < 12080"); }
#endif
