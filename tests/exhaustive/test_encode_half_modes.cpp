// SPDX-License-Identifier: MIT
// float -> half by simd/encode.hpp (encode_floats: vcvtps2ph with its own rounding, nearest-away
// as nearest-even of the bits with their last bit set, to-odd as the truncation ORed with the last
// bit of |x| rounded upward, saturation by clamping or by replacing infinities) equals the scalar
// round_to on ALL 2^32 floats in every deterministic mode and both overflow policies, at every
// compiled width (vec512, vec256). Label "exhaustive"; MIXPREC_EXHAUSTIVE_STRIDE=N tests every
// N-th chunk of 2^24 floats.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>

#include <mixprec/kernels.hpp>
#include <mixprec/mixprec.hpp>
#include <mixprec/simd/encode.hpp>

#include "env.hpp"

using namespace mixprec;

#if defined(MIXPREC_SIMD_AVX2)
namespace {

constexpr std::size_t block = 4096;
using H = half::format_type;

/// Mismatches of one mode and policy over the floats with bit patterns first .. first + block - 1,
/// at width V.
template <class V, rounding M, overflow P>
std::uint64_t mismatches(const float* src, const std::uint16_t* want) {
  std::uint16_t got[block];
  if (!simd::encode_floats<V, H>(src, got, block, M, P, 0, 0)) return block;
  if (std::memcmp(got, want, sizeof got) == 0) return 0;
  std::uint64_t bad = 0;
  for (std::size_t i = 0; i < block; ++i) bad += got[i] != want[i];
  return bad;
}

/// Mismatches of mode M, both policies and every width over one block of floats. The scalar
/// round_to is the reference; its saturated result is computed only where the IEEE one is
/// infinite (elsewhere saturation changes nothing), which halves the test's time.
template <rounding M>
std::uint64_t block_mismatches(const float* src) {
  std::uint16_t ieee[block], sat[block];
  for (std::size_t i = 0; i < block; ++i) {
    ieee[i] = round_to<half>(src[i], M, overflow::ieee).bits();
    sat[i] = (ieee[i] & 0x7fffu) == 0x7c00u ? round_to<half>(src[i], M, overflow::saturate).bits() : ieee[i];
  }
  std::uint64_t bad = mismatches<simd::vec256, M, overflow::ieee>(src, ieee) +
                      mismatches<simd::vec256, M, overflow::saturate>(src, sat);
#if defined(MIXPREC_SIMD_AVX512)
  bad += mismatches<simd::vec512, M, overflow::ieee>(src, ieee) + mismatches<simd::vec512, M, overflow::saturate>(src, sat);
#endif
  return bad;
}

template <rounding M>
void check_all_floats() {
  std::atomic<std::uint64_t> bad{0};
  constexpr std::uint64_t chunk = std::uint64_t{1} << 24;
  for (std::uint64_t base = 0; base < (std::uint64_t{1} << 32); base += chunk * exhaustive_env::exhaustive_stride()) {
    for_each_task(exec::par, chunk / block, [&](std::size_t j) {
      float src[block];
      for (std::size_t i = 0; i < block; ++i) {
        const auto u = static_cast<std::uint32_t>(base + j * block + i);
        std::memcpy(&src[i], &u, 4);
      }
      bad.fetch_add(block_mismatches<M>(src), std::memory_order_relaxed);
    });
  }
  INFO("half, " << std::string(to_string(M)) << ", overflow::ieee and overflow::saturate");
  CHECK(bad.load() == 0);
}

}  // namespace

TEST_CASE("float -> half, every deterministic mode and both overflow policies, all 2^32 floats, every width") {
  check_all_floats<rounding::nearest_even>();
  check_all_floats<rounding::nearest_away>();
  check_all_floats<rounding::toward_zero>();
  check_all_floats<rounding::upward>();
  check_all_floats<rounding::downward>();
  check_all_floats<rounding::to_odd>();
}
#endif
