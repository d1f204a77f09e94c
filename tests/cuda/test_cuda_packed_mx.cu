// mixprec — packed FP4/FP6 kernels under exec::cuda, and cuda.hpp's CUDA 12.8 types in device
// code. SPDX-License-Identifier: MIT
//
// 1. pack_elements / unpack_elements under exec::cuda (managed memory) give the bytes and values
//    of exec::seq on the host, for FP4, FP6 and 7-bit UE4M3 at awkward sizes.
// 2. In device code, for every code: mixprec's widening equals CUDA's __nv_cvt_fp4_to_halfraw /
//    __nv_cvt_fp6_to_halfraw / __nv_cvt_e8m0_to_bf16raw, and for a grid of floats mixprec's
//    round_to equals the device's __nv_cvt_float_to_fp4 / _fp6 (cvt.rn.satfinite PTX where the
//    architecture has it) and __nv_cvt_float_to_e8m0 (rz/rp).
#include <mixprec/cuda.hpp>
#include <mixprec/kernels.hpp>

#include "harness.hpp"

#include <cstdint>
#include <random>
#include <vector>

namespace mp = mixprec;
using cuda_harness::managed;
using cuda_harness::report;

namespace {

template <class T>
void packed_kernels(const char* name) {
  const std::size_t sizes[] = {0, 1, 2, 3, 5, 8, 33, 4097, 100003};
  std::mt19937_64 g(7);
  for (const std::size_t n : sizes) {
    std::vector<T> v(n);
    for (auto& x : v) x = T::from_bits(static_cast<typename T::storage_type>(g() & ((1u << T::format_type::bits) - 1u)));
    std::vector<std::uint8_t> want(mp::packed_bytes<T>(n));
    mp::pack_elements(mp::exec::seq, v, want);
    managed<T> dv(v);
    managed<std::uint8_t> db(want.size());
    mp::pack_elements(mp::exec::cuda, mp::span<const T>(dv.p, dv.n), db.span());
    cuda_harness::sync();
    report(std::string(name) + " pack n=" + std::to_string(n), db.vec() == want);
    managed<T> back(n);
    mp::unpack_elements(mp::exec::cuda, mp::span<const std::uint8_t>(db.p, db.n), back.span());
    cuda_harness::sync();
    report(std::string(name) + " unpack n=" + std::to_string(n), cuda_harness::same(back.vec(), v));
  }
}

#if MIXPREC_CUDA_HAS_MX_TYPES
// out[c]: 1 where mixprec and CUDA agree on code c (widening), computed on the device.
__global__ void widen_codes(int* out) {
  const unsigned c = threadIdx.x;  // 256 threads
  bool ok = true;
  {
    const float m = static_cast<float>(mp::float8_e8m0fnu::from_bits(static_cast<std::uint8_t>(c)));
    const float d = __bfloat162float(__nv_bfloat16(__nv_cvt_e8m0_to_bf16raw(static_cast<__nv_fp8_storage_t>(c))));
    ok = ok && (m == d || (m != m && d != d));
  }
  if (c < 64) {
    const float m2 = static_cast<float>(mp::float6_e2m3fn::from_bits(static_cast<std::uint8_t>(c)));
    const float m3 = static_cast<float>(mp::float6_e3m2fn::from_bits(static_cast<std::uint8_t>(c)));
    ok = ok && m2 == __half2float(__half(__nv_cvt_fp6_to_halfraw(static_cast<__nv_fp6_storage_t>(c), __NV_E2M3)));
    ok = ok && m3 == __half2float(__half(__nv_cvt_fp6_to_halfraw(static_cast<__nv_fp6_storage_t>(c), __NV_E3M2)));
  }
  if (c < 16) {
    const float m4 = static_cast<float>(mp::float4_e2m1fn::from_bits(static_cast<std::uint8_t>(c)));
    ok = ok && m4 == __half2float(__half(__nv_cvt_fp4_to_halfraw(static_cast<__nv_fp4_storage_t>(c), __NV_E2M1)));
    ok = ok && mp::from_cuda(mp::to_cuda(mp::float4_e2m1fn::from_bits(static_cast<std::uint8_t>(c)))).bits() == c;
  }
  out[c] = ok ? 1 : 0;
}

// out[i]: 1 where mixprec's round_to and the device's conversions agree for x[i].
__global__ void round_floats(const float* x, int* out, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  using mp::overflow;
  using mp::rounding;
  const float v = x[i];
  bool ok = true;
  ok = ok && __nv_cvt_float_to_fp4(v, __NV_E2M1, cudaRoundNearest) ==
                 mp::round_to<mp::float4_e2m1fn>(v, rounding::nearest_even, overflow::saturate).bits();
  ok = ok && __nv_cvt_float_to_fp6(v, __NV_E2M3, cudaRoundNearest) ==
                 mp::round_to<mp::float6_e2m3fn>(v, rounding::nearest_even, overflow::saturate).bits();
  ok = ok && __nv_cvt_float_to_fp6(v, __NV_E3M2, cudaRoundNearest) ==
                 mp::round_to<mp::float6_e3m2fn>(v, rounding::nearest_even, overflow::saturate).bits();
  if (v > 0.0f) {  // e8m0: CUDA ignores the sign and maps 0 to 2^-127 (mixprec: NaN); positive only
    ok = ok && __nv_cvt_float_to_e8m0(v, __NV_SATFINITE, cudaRoundZero) ==
                   mp::round_to<mp::float8_e8m0fnu>(v, rounding::toward_zero, overflow::saturate).bits();
    ok = ok && __nv_cvt_float_to_e8m0(v, __NV_SATFINITE, cudaRoundPosInf) ==
                   mp::round_to<mp::float8_e8m0fnu>(v, rounding::upward, overflow::saturate).bits();
  }
  out[i] = ok ? 1 : 0;
}
#endif

void run_all() {
  packed_kernels<mp::float4_e2m1fn>("float4_e2m1fn");
  packed_kernels<mp::float6_e2m3fn>("float6_e2m3fn");
  packed_kernels<mp::float8_ue4m3>("float8_ue4m3");
#if MIXPREC_CUDA_HAS_MX_TYPES
  {
    managed<int> out(256);
    widen_codes<<<1, 256>>>(out.p);
    cuda_harness::sync();
    int good = 0;
    for (int k = 0; k < 256; ++k) good += out.p[k];
    report("device widening of every e8m0/fp6/fp4 code equals CUDA's", good == 256);
  }
  {
    // Every float whose low 8 mantissa bits are 0x00 or 0x80 (ties of FP4/FP6 included) and a
    // random sample: 2^25 + 2^20 floats.
    std::vector<float> xs;
    xs.reserve((std::size_t{1} << 25) + (std::size_t{1} << 20));
    for (std::uint32_t hi = 0; hi < (1u << 24); ++hi) {
      for (const std::uint32_t lo : {0x00u, 0x80u}) {
        const std::uint32_t b = (hi << 8) | lo;
        float f;
        std::memcpy(&f, &b, 4);
        xs.push_back(f);
      }
    }
    std::mt19937 g(11);
    for (int k = 0; k < (1 << 20); ++k) {
      const std::uint32_t b = static_cast<std::uint32_t>(g());
      float f;
      std::memcpy(&f, &b, 4);
      xs.push_back(f);
    }
    managed<float> dx(xs);
    managed<int> out(xs.size());
    const unsigned blocks = static_cast<unsigned>((xs.size() + 255) / 256);
    round_floats<<<blocks, 256>>>(dx.p, out.p, xs.size());
    cuda_harness::sync();
    std::size_t good = 0;
    for (std::size_t k = 0; k < xs.size(); ++k) good += static_cast<std::size_t>(out.p[k]);
    report("device round_to equals __nv_cvt_float_to_fp4/_fp6/_e8m0 on " + std::to_string(xs.size()) + " floats",
           good == xs.size());
  }
#endif
}

}  // namespace

int main() { return cuda_harness::run("test_cuda_packed_mx", run_all); }
