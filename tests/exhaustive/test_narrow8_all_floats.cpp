// SPDX-License-Identifier: MIT
// detail/simd_narrow8.hpp on ALL 2^32 floats: float -> float8_e4m3fn and float -> float8_e5m2,
// nearest even, overflow::ieee and overflow::saturate, at every level this build compiles in and
// through mixprec::convert (exec::par), against the scalar round_to (itself checked against
// independent references: test_float_exhaustive, the MPFR tests). Label "exhaustive"; about
// 20 s on 2 Zen 4 cores. The other byte formats: tests/test_simd_narrow8.cpp (every case, sampled).
#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <mixprec/kernels.hpp>
#include <mixprec/mixprec.hpp>

using namespace mixprec;
using detail::simd_level;

namespace {

template <class T>
void all_floats(overflow ovf) {
  std::vector<simd_level> levels;
  for (simd_level l : {simd_level::avx512, simd_level::avx2})
    if (detail::simd_level_compiled(l)) levels.push_back(l);
  constexpr std::uint64_t chunk = std::uint64_t{1} << 22;
  std::vector<float> src(chunk);
  std::vector<T> want(chunk), got(chunk);
  std::vector<std::uint64_t> bad(levels.size() + 1, 0);
  for (std::uint64_t base = 0; base < (std::uint64_t{1} << 32); base += chunk) {
    detail::for_each_range(exec::par, chunk, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) {
        const auto u = static_cast<std::uint32_t>(base + i);
        std::memcpy(&src[i], &u, 4);
        want[i] = round_to<T>(src[i], rounding::nearest_even, ovf);
      }
    });
    const auto count = [&](std::size_t k) {
      if (std::memcmp(got.data(), want.data(), chunk) == 0) return;
      for (std::size_t i = 0; i < chunk; ++i) bad[k] += got[i].bits() != want[i].bits();
    };
    for (std::size_t k = 0; k < levels.size(); ++k) {
      detail::for_each_range(exec::par, chunk, [&](std::size_t b, std::size_t e) {
        detail::simd_narrow8_at(levels[k], src.data() + b, got.data() + b, e - b, ovf);
      });
      count(k);
    }
    convert(exec::par, span<const float>(src), span<T>(got), rounding::nearest_even, ovf);
    count(levels.size());
  }
  for (std::size_t k = 0; k < levels.size(); ++k) {
    INFO(finfo<T>::name << ", " << to_string(ovf) << ", level " << detail::simd_level_name(levels[k]));
    CHECK(bad[k] == 0);
  }
  INFO(finfo<T>::name << ", " << to_string(ovf) << ", mixprec::convert");
  CHECK(bad[levels.size()] == 0);
  std::printf("  %s, overflow %s: all 2^32 floats, %zu level(s) and convert\n", finfo<T>::name, to_string(ovf),
              levels.size());
  std::fflush(stdout);
}

}  // namespace

TEST_CASE("simd_narrow8: all 2^32 floats to float8_e4m3fn and float8_e5m2, ieee and saturate") {
  all_floats<float8_e4m3fn>(overflow::ieee);
  all_floats<float8_e4m3fn>(overflow::saturate);
  all_floats<float8_e5m2>(overflow::ieee);
  all_floats<float8_e5m2>(overflow::saturate);
}
