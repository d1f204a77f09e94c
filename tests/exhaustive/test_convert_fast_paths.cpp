// The x86 fast paths of the bulk conversion (detail/simd_convert.hpp), when this build has
// them (-march=native on an AVX-512 or F16C machine), equal the portable scalar conversion on
// ALL 2^32 float inputs for float -> half and float -> bfloat16 (nearest even): the portable
// scalar path is itself checked against an independent reference over all floats in
// test_float_exhaustive. The inputs are fed through mixprec::convert under exec::par in
// 2^20-element chunks, so the kernel's dispatch is exercised as well. Label "exhaustive".
#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <mixprec/mixprec.hpp>
#include <mixprec/kernels.hpp>

using namespace mixprec;

namespace {

template <class D>
std::uint64_t mismatches_over_all_floats() {
  constexpr std::uint64_t chunk = std::uint64_t{1} << 20;
  std::vector<float> src(chunk);
  std::vector<D> got(chunk);
  std::uint64_t bad = 0;
  for (std::uint64_t base = 0; base < (std::uint64_t{1} << 32); base += chunk) {
    for (std::uint64_t i = 0; i < chunk; ++i) {
      const std::uint32_t u = static_cast<std::uint32_t>(base + i);
      std::memcpy(&src[i], &u, 4);
    }
    convert(exec::par, src, got);
    std::atomic<std::uint64_t> local{0};
    for_each_index(exec::par, chunk, [&](std::size_t i) {
      if (got[i].bits() != round_to<D>(src[i]).bits()) local.fetch_add(1, std::memory_order_relaxed);
    });
    bad += local.load();
    if ((base >> 20) % 512 == 511) {
      std::printf("  %s: %3u%% of the floats\n", finfo<D>::name, static_cast<unsigned>(((base + chunk) * 100) >> 32));
      std::fflush(stdout);
    }
  }
  return bad;
}

}  // namespace

TEST_CASE("fast paths: float -> half and float -> bfloat16 over all 2^32 floats") {
  MESSAGE("fast paths compiled in: " << std::string(detail::simd_convert_paths()));
  CHECK(mismatches_over_all_floats<half>() == 0);
  CHECK(mismatches_over_all_floats<bfloat16>() == 0);
}
