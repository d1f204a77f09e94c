// SPDX-License-Identifier: MIT
// detail/simd_narrow8.hpp on ALL 2^32 floats: float -> float8_e4m3fn and float -> float8_e5m2,
// nearest even, overflow::ieee and overflow::saturate, at every level this build compiles in and
// through mixprec::convert (exec::par), against the scalar round_to (itself checked against
// independent references: test_float_exhaustive, test_cuda_host_conversions, the MPFR tests).
// Label "exhaustive"; the four cases in one pass over the floats. The other byte formats:
// tests/test_simd_narrow8.cpp (every case, sampled).
#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <mixprec/kernels.hpp>
#include <mixprec/mixprec.hpp>

#include "env.hpp"

using namespace mixprec;
using detail::simd_level;

namespace {

/// One (format, overflow policy): the reference round_to<T>(x, nearest_even, P) of a chunk of
/// floats (the policy a compile-time constant), the mismatches of each compiled level (bad[k])
/// and of mixprec::convert (bad[levels]).
template <class T, overflow P>
struct narrow_case {
  std::vector<T> want, got;
  std::vector<std::atomic<std::uint64_t>> bad;
  narrow_case(std::size_t chunk, std::size_t levels) : want(chunk), got(chunk), bad(levels + 1) {}

  static std::uint64_t count(const T* g, const T* w, std::size_t n) {
    if (std::memcmp(g, w, n) == 0) return 0;
    std::uint64_t b = 0;
    for (std::size_t i = 0; i < n; ++i) b += g[i].bits() != w[i].bits();
    return b;
  }
  /// The reference and every level on src[b, e) (one block of the parallel loop, in cache).
  void block(const std::vector<simd_level>& levels, const float* src, std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) want[i] = round_to<T>(src[i], rounding::nearest_even, P);
    for (std::size_t k = 0; k < levels.size(); ++k) {
      detail::simd_narrow8_at(levels[k], src + b, got.data() + b, e - b, P);
      bad[k].fetch_add(count(got.data() + b, want.data() + b, e - b), std::memory_order_relaxed);
    }
  }
  /// mixprec::convert under exec::par on the whole chunk.
  void through_convert(const std::vector<float>& src, std::size_t levels) {
    convert(exec::par, span<const float>(src), span<T>(got), rounding::nearest_even, P);
    detail::for_each_range(exec::par, src.size(), [&](std::size_t b, std::size_t e) {
      bad[levels].fetch_add(count(got.data() + b, want.data() + b, e - b), std::memory_order_relaxed);
    });
  }
  void check(const std::vector<simd_level>& levels) const {
    for (std::size_t k = 0; k < levels.size(); ++k) {
      INFO(std::string(finfo<T>::name) << ", " << std::string(to_string(P)) << ", level "
                                        << std::string(detail::simd_level_name(levels[k])));
      CHECK(bad[k].load() == 0);
    }
    INFO(std::string(finfo<T>::name) << ", " << std::string(to_string(P)) << ", mixprec::convert");
    CHECK(bad[levels.size()].load() == 0);
    std::printf("  %s, overflow %s: all 2^32 floats, %zu level(s) and convert\n", finfo<T>::name, to_string(P),
                levels.size());
    std::fflush(stdout);
  }
};

}  // namespace

TEST_CASE("simd_narrow8: all 2^32 floats to float8_e4m3fn and float8_e5m2, ieee and saturate") {
  std::vector<simd_level> levels;
  for (simd_level l : {simd_level::avx512, simd_level::avx2})
    if (detail::simd_level_compiled(l)) levels.push_back(l);
  // One pass over the floats for the four cases: each chunk is made once.
  constexpr std::uint64_t chunk = std::uint64_t{1} << 22;
  std::vector<float> src(chunk);
  narrow_case<float8_e4m3fn, overflow::ieee> e4m3_ieee(chunk, levels.size());
  narrow_case<float8_e4m3fn, overflow::saturate> e4m3_sat(chunk, levels.size());
  narrow_case<float8_e5m2, overflow::ieee> e5m2_ieee(chunk, levels.size());
  narrow_case<float8_e5m2, overflow::saturate> e5m2_sat(chunk, levels.size());
  const std::uint64_t stride = exhaustive_env::exhaustive_stride();  // every stride-th chunk
  for (std::uint64_t base = 0; base < (std::uint64_t{1} << 32); base += chunk * stride) {
    detail::for_each_range(exec::par, chunk, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) {
        const auto u = static_cast<std::uint32_t>(base + i);
        std::memcpy(&src[i], &u, 4);
      }
      e4m3_ieee.block(levels, src.data(), b, e);
      e4m3_sat.block(levels, src.data(), b, e);
      e5m2_ieee.block(levels, src.data(), b, e);
      e5m2_sat.block(levels, src.data(), b, e);
    });
    e4m3_ieee.through_convert(src, levels.size());
    e4m3_sat.through_convert(src, levels.size());
    e5m2_ieee.through_convert(src, levels.size());
    e5m2_sat.through_convert(src, levels.size());
    if ((base + chunk) % (std::uint64_t{1} << 30) == 0) {
      std::printf("  %3u%% of the floats\n", static_cast<unsigned>(((base + chunk) * 100) >> 32));
      std::fflush(stdout);
    }
  }
  e4m3_ieee.check(levels);
  e4m3_sat.check(levels);
  e5m2_ieee.check(levels);
  e5m2_sat.check(levels);
}
