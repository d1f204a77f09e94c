// SPDX-License-Identifier: MIT
// The MX block scale of every float amax (all 2^31 non-negative bit patterns: zero, subnormals,
// normals, Inf, NaN) under the OCP floor rule (element E2M1) and Transformer Engine's round-up
// rule (element E4M3), against references written from the rules' text: ilogb for the floor,
// and for TE the smallest power of two >= float(amax * float(1/448)), clamped to E8M0's range.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include <mixprec/amp.hpp>

namespace {

float from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

int ref_ocp_e2m1(float a) {
  if (!std::isfinite(a)) return 255;
  if (a == 0.0f) return 0;
  const int s = std::ilogb(static_cast<double>(a)) - 2;  // emax_elem(E2M1) = 2
  return (s < -127 ? -127 : s) + 127;
}

int ref_te_e4m3(float a) {
  if (std::isnan(a)) return 255;
  const float rcp = 1.0f / 448.0f;
  const float prod = a * rcp;  // one float product, as TE computes it
  if (std::isinf(prod)) return 254;
  if (prod == 0.0f) return 0;
  const int e = std::ilogb(static_cast<double>(prod));
  const int k = std::ldexp(1.0, e) == static_cast<double>(prod) ? e : e + 1;  // 2^k >= prod
  return k < -127 ? 0 : k > 127 ? 254 : k + 127;
}

}  // namespace

TEST_CASE("MX scales of every float amax: OCP floor (E2M1), TE round-up (E4M3)") {
  const mixprec::mx_block_recipe<mixprec::float4_e2m1fn> ocp{mixprec::mx_block_rule::ocp_floor};
  const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> te{mixprec::mx_block_rule::te_rceil};
  std::atomic<long long> bad_ocp{0}, bad_te{0};
  const unsigned nthreads = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < nthreads; ++t) {
    pool.emplace_back([&, t] {
      long long bo = 0, bt = 0;
      const std::uint64_t lo = (std::uint64_t{1} << 31) * t / nthreads, hi = (std::uint64_t{1} << 31) * (t + 1) / nthreads;
      for (std::uint64_t u = lo; u < hi; ++u) {
        const float a = from_bits(static_cast<std::uint32_t>(u));
        bo += ocp.scale_code(a) != ref_ocp_e2m1(a);
        bt += te.scale_code(a) != ref_te_e4m3(a);
      }
      bad_ocp += bo;
      bad_te += bt;
    });
  }
  for (auto& th : pool) th.join();
  CHECK(bad_ocp.load() == 0);
  CHECK(bad_te.load() == 0);
}
