// mixprec — exhaustive comparison with the CUDA toolkit's host-side conversions.
// SPDX-License-Identifier: MIT
//
// For every one of the 2^32 float bit patterns, mixprec::round_to must give the same bits as
// the CUDA toolkit's own host implementations (cuda_fp16.h, cuda_bf16.h, cuda_fp8.h; compiled
// by the host compiler, no GPU and no CUDA runtime needed):
//
//   half      __float2half_rn/_rz/_rd/_ru          nearest_even/toward_zero/downward/upward
//   bfloat16  __float2bfloat16_rn/_rz/_rd/_ru      (same four modes)
//   e4m3fn    __nv_cvt_float_to_fp8(x, __NV_SATFINITE / __NV_NOSAT, __NV_E4M3)
//   e5m2      __nv_cvt_float_to_fp8(x, __NV_SATFINITE / __NV_NOSAT, __NV_E5M2)
//             (nearest_even with overflow::saturate / overflow::ieee)
//
// NaN inputs: CUDA returns one canonical NaN (0x7fff for half and bfloat16, 0x7f for both FP8
// formats), whereas mixprec keeps the sign and the leading payload bits and sets the quiet bit
// (x86 F16C behaviour). NaN results therefore compare as "both NaN"; the number of NaN results
// whose bits differ is printed as a note and is not a failure.
//
// One pass over the floats computes all 12 comparisons for each float, on
// std::thread::hardware_concurrency() threads that take chunks of 2^22 floats in turn.
// Progress (every ~10%) and the elapsed time go to stderr.
//
// Environment (for development; the test runs over all 2^32 floats by default):
//   MIXPREC_EXHAUSTIVE_STRIDE=N   test only every N-th bit pattern (N >= 1; e.g. 257)
//   MIXPREC_EXHAUSTIVE_THREADS=N  number of threads (default: hardware_concurrency)
#include <mixprec/round_to.hpp>
#include <mixprec/types.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "env.hpp"

namespace {

constexpr int kChecks = 12;
constexpr int kMaxReported = 8;  // mismatches printed per check

enum class kind : unsigned char { half, bfloat16, e4m3, e5m2 };

struct check_info {
  const char* name;
  kind k;
};

constexpr std::array<check_info, kChecks> kCheckInfo = {{
    {"half       rn  (__float2half_rn)", kind::half},
    {"half       rz  (__float2half_rz)", kind::half},
    {"half       rd  (__float2half_rd)", kind::half},
    {"half       ru  (__float2half_ru)", kind::half},
    {"bfloat16   rn  (__float2bfloat16_rn)", kind::bfloat16},
    {"bfloat16   rz  (__float2bfloat16_rz)", kind::bfloat16},
    {"bfloat16   rd  (__float2bfloat16_rd)", kind::bfloat16},
    {"bfloat16   ru  (__float2bfloat16_ru)", kind::bfloat16},
    {"e4m3fn     rn satfinite (__NV_SATFINITE, __NV_E4M3)", kind::e4m3},
    {"e4m3fn     rn nosat     (__NV_NOSAT, __NV_E4M3)", kind::e4m3},
    {"e5m2       rn satfinite (__NV_SATFINITE, __NV_E5M2)", kind::e5m2},
    {"e5m2       rn nosat     (__NV_NOSAT, __NV_E5M2)", kind::e5m2},
}};

inline bool result_is_nan(kind k, std::uint32_t b) {
  switch (k) {
    case kind::half: return (b & 0x7fffu) > 0x7c00u;
    case kind::bfloat16: return (b & 0x7fffu) > 0x7f80u;
    case kind::e4m3: return (b & 0x7fu) == 0x7fu;
    case kind::e5m2: return (b & 0x7fu) > 0x7cu;
  }
  return false;
}

struct mismatch {
  std::uint32_t input;
  std::uint32_t cuda;
  std::uint32_t mixprec;
};

struct tally {
  std::array<std::uint64_t, kChecks> mismatches{};
  std::array<std::uint64_t, kChecks> nan_results{};          // both sides NaN
  std::array<std::uint64_t, kChecks> nan_payload_differs{};  // both NaN, bits differ
  std::array<std::vector<mismatch>, kChecks> first{};
  std::uint64_t tested = 0;
};

std::uint16_t bits_of(__half h) { return static_cast<__half_raw>(h).x; }
std::uint16_t bits_of(__nv_bfloat16 h) { return static_cast<__nv_bfloat16_raw>(h).x; }

// The rare outcomes of compare_one (bits differ), out of line.
void compare_differing(tally& t, int check, std::uint32_t input, std::uint32_t cuda, std::uint32_t mine) {
  const kind k = kCheckInfo[static_cast<std::size_t>(check)].k;
  const auto c = static_cast<std::size_t>(check);
  if (result_is_nan(k, cuda) && result_is_nan(k, mine)) {
    ++t.nan_results[c];
    ++t.nan_payload_differs[c];
    return;
  }
  ++t.mismatches[c];
  if (t.first[c].size() < kMaxReported) t.first[c].push_back({input, cuda, mine});
}

// Inline: check is a constant in test_float, so the usual case (same bits) is two compares.
inline void compare_one(tally& t, int check, std::uint32_t input, std::uint32_t cuda, std::uint32_t mine) {
  if (cuda == mine) {
    if (result_is_nan(kCheckInfo[static_cast<std::size_t>(check)].k, cuda)) {
      ++t.nan_results[static_cast<std::size_t>(check)];
    }
    return;
  }
  compare_differing(t, check, input, cuda, mine);
}

// All 12 comparisons for one float (GCC and Clang: with everything it calls inlined into it).
#if defined(__GNUC__)
__attribute__((flatten))
#endif
inline void test_float(tally& t, std::uint32_t i) {
  using mixprec::overflow;
  using mixprec::rounding;
  using mixprec::round_to;
  float x;
  std::memcpy(&x, &i, sizeof x);

  compare_one(t, 0, i, bits_of(__float2half_rn(x)),
              round_to<mixprec::half>(x, rounding::nearest_even, overflow::ieee).bits());
  compare_one(t, 1, i, bits_of(__float2half_rz(x)),
              round_to<mixprec::half>(x, rounding::toward_zero, overflow::ieee).bits());
  compare_one(t, 2, i, bits_of(__float2half_rd(x)),
              round_to<mixprec::half>(x, rounding::downward, overflow::ieee).bits());
  compare_one(t, 3, i, bits_of(__float2half_ru(x)),
              round_to<mixprec::half>(x, rounding::upward, overflow::ieee).bits());

  compare_one(t, 4, i, bits_of(__float2bfloat16_rn(x)),
              round_to<mixprec::bfloat16>(x, rounding::nearest_even, overflow::ieee).bits());
  compare_one(t, 5, i, bits_of(__float2bfloat16_rz(x)),
              round_to<mixprec::bfloat16>(x, rounding::toward_zero, overflow::ieee).bits());
  compare_one(t, 6, i, bits_of(__float2bfloat16_rd(x)),
              round_to<mixprec::bfloat16>(x, rounding::downward, overflow::ieee).bits());
  compare_one(t, 7, i, bits_of(__float2bfloat16_ru(x)),
              round_to<mixprec::bfloat16>(x, rounding::upward, overflow::ieee).bits());

  compare_one(t, 8, i, __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3),
              round_to<mixprec::float8_e4m3fn>(x, rounding::nearest_even, overflow::saturate).bits());
  compare_one(t, 9, i, __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E4M3),
              round_to<mixprec::float8_e4m3fn>(x, rounding::nearest_even, overflow::ieee).bits());
  compare_one(t, 10, i, __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2),
              round_to<mixprec::float8_e5m2>(x, rounding::nearest_even, overflow::saturate).bits());
  compare_one(t, 11, i, __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E5M2),
              round_to<mixprec::float8_e5m2>(x, rounding::nearest_even, overflow::ieee).bits());
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("mixprec agrees with CUDA's host conversions for every float (half, bfloat16, e4m3fn, e5m2)") {
  constexpr std::uint64_t kTotal = std::uint64_t{1} << 32;
  constexpr std::uint64_t kChunk = std::uint64_t{1} << 22;  // 1024 chunks
  constexpr std::uint64_t kChunks = kTotal / kChunk;

  const std::uint64_t stride = exhaustive_env::exhaustive_stride();
  const unsigned hw = std::thread::hardware_concurrency();
  const auto threads = static_cast<unsigned>(
      std::min<std::uint64_t>(exhaustive_env::env_uint("MIXPREC_EXHAUSTIVE_THREADS", hw == 0 ? 1 : hw), 1024));
  std::fprintf(stderr, "test_cuda_host_conversions: %s floats (stride %llu), %u thread(s), CUDA %d.%d headers\n",
               stride == 1 ? "all 2^32" : "a subsample of the", static_cast<unsigned long long>(stride), threads,
               CUDART_VERSION / 1000, (CUDART_VERSION % 1000) / 10);

  std::vector<tally> tallies(threads);
  std::atomic<std::uint64_t> next_chunk{0};
  std::atomic<std::uint64_t> done_chunks{0};
  std::mutex progress_mutex;
  const auto t0 = std::chrono::steady_clock::now();

  auto worker = [&](unsigned id) {
    tally& t = tallies[id];
    for (;;) {
      const std::uint64_t c = next_chunk.fetch_add(1, std::memory_order_relaxed);
      if (c >= kChunks) break;
      const std::uint64_t lo = c * kChunk;
      const std::uint64_t hi = lo + kChunk;
      const std::uint64_t first = (lo + stride - 1) / stride * stride;
      for (std::uint64_t i = first; i < hi; i += stride) {
        test_float(t, static_cast<std::uint32_t>(i));
        ++t.tested;
      }
      const std::uint64_t done = done_chunks.fetch_add(1, std::memory_order_relaxed) + 1;
      if (done * 10 / kChunks != (done - 1) * 10 / kChunks) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        std::fprintf(stderr, "  %3llu%%  %.1f s\n", static_cast<unsigned long long>(done * 100 / kChunks),
                     seconds_since(t0));
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (unsigned id = 0; id < threads; ++id) pool.emplace_back(worker, id);
  for (auto& th : pool) th.join();
  const double elapsed = seconds_since(t0);

  tally total;
  for (const tally& t : tallies) {
    total.tested += t.tested;
    for (std::size_t c = 0; c < kChecks; ++c) {
      total.mismatches[c] += t.mismatches[c];
      total.nan_results[c] += t.nan_results[c];
      total.nan_payload_differs[c] += t.nan_payload_differs[c];
      for (const mismatch& m : t.first[c]) total.first[c].push_back(m);
    }
  }
  std::fprintf(stderr, "test_cuda_host_conversions: %llu floats x %d checks in %.1f s\n",
               static_cast<unsigned long long>(total.tested), kChecks, elapsed);

  std::printf("%-52s %12s %12s %14s\n", "check", "mismatches", "NaN results", "NaN bits differ");
  for (std::size_t c = 0; c < kChecks; ++c) {
    std::printf("%-52s %12llu %12llu %14llu\n", kCheckInfo[c].name,
                static_cast<unsigned long long>(total.mismatches[c]),
                static_cast<unsigned long long>(total.nan_results[c]),
                static_cast<unsigned long long>(total.nan_payload_differs[c]));
    std::vector<mismatch>& ms = total.first[c];
    std::sort(ms.begin(), ms.end(), [](const mismatch& a, const mismatch& b) { return a.input < b.input; });
    for (std::size_t k = 0; k < ms.size() && k < kMaxReported; ++k) {
      float x;
      std::memcpy(&x, &ms[k].input, sizeof x);
      std::printf("    input 0x%08x (%.9g): CUDA 0x%04x, mixprec 0x%04x\n", ms[k].input, static_cast<double>(x),
                  ms[k].cuda, ms[k].mixprec);
    }
  }
  std::printf(
      "note: NaN results compare as \"both NaN\". CUDA returns one canonical NaN (half/bfloat16 0x7fff,\n"
      "      FP8 0x7f); mixprec keeps the sign and leading payload bits with the quiet bit set, so\n"
      "      the 'NaN bits differ' column counts NaN results whose bits differ (expected, not an error).\n");
  std::fflush(stdout);

  const std::uint64_t expected = (kTotal + stride - 1) / stride;
  CHECK(total.tested == expected);
  for (std::size_t c = 0; c < kChecks; ++c) {
    INFO("check: " << kCheckInfo[c].name);
    CHECK(total.mismatches[c] == 0);
  }
  std::uint64_t all = 0;
  for (std::size_t c = 0; c < kChecks; ++c) all += total.mismatches[c];
  REQUIRE(all == 0);
}

namespace {

std::uint32_t bits_of_float(float x) {
  std::uint32_t u = 0;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

}  // namespace

TEST_CASE("widening every half and bfloat16 agrees with CUDA's __half2float and __bfloat162float") {
  // bfloat16: bit for bit, NaNs included. Both widen by bit extension, so a signalling NaN
  // stays signalling with its payload (mixprec's rule for formats of float's layout).
  // half: bit for bit except NaN payloads (mixprec quiets signalling NaNs, like F16C).
  std::uint64_t bf16_bad = 0, half_bad = 0, half_nan_bits_differ = 0;
  for (std::uint32_t c = 0; c < 0x10000u; ++c) {
    const auto code = static_cast<std::uint16_t>(c);
    __nv_bfloat16_raw br;
    br.x = code;
    __half_raw hr;
    hr.x = code;
    const std::uint32_t cb = bits_of_float(__bfloat162float(__nv_bfloat16(br)));
    const std::uint32_t mb = bits_of_float(static_cast<float>(mixprec::bfloat16::from_bits(code)));
    const std::uint32_t ch = bits_of_float(__half2float(__half(hr)));
    const std::uint32_t mh = bits_of_float(static_cast<float>(mixprec::half::from_bits(code)));
    if (cb != mb && ++bf16_bad <= kMaxReported) {
      std::printf("  bfloat16 0x%04x: CUDA 0x%08x, mixprec 0x%08x\n", static_cast<unsigned>(c), cb, mb);
    }
    const bool both_nan = (ch & 0x7fffffffu) > 0x7f800000u && (mh & 0x7fffffffu) > 0x7f800000u;
    if (both_nan) {
      if (ch != mh) ++half_nan_bits_differ;
    } else if (ch != mh && ++half_bad <= kMaxReported) {
      std::printf("  half 0x%04x: CUDA 0x%08x, mixprec 0x%08x\n", static_cast<unsigned>(c), ch, mh);
    }
  }
  std::printf("widening 65536 codes: bfloat16 mismatches %llu (NaNs compared bit for bit); half mismatches %llu,"
              " NaN bits differ %llu (not an error)\n",
              static_cast<unsigned long long>(bf16_bad), static_cast<unsigned long long>(half_bad),
              static_cast<unsigned long long>(half_nan_bits_differ));
  CHECK(bf16_bad == 0);
  CHECK(half_bad == 0);
}
