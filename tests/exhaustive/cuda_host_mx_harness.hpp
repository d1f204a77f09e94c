// mixprec — exhaustive comparison with the CUDA toolkit's host-side MX conversions (CUDA 12.8+);
// the shared part of tests/exhaustive/test_cuda_host_{e8m0,fp6,fp4}.cpp.
// SPDX-License-Identifier: MIT
//
// For every one of the 2^32 float bit patterns, mixprec::round_to must give the same bits as
// the CUDA toolkit's own host implementations (cuda_fp8.h, cuda_fp6.h, cuda_fp4.h; compiled by
// the host compiler, no GPU needed), in every rounding and saturation mode they offer:
//
//   e8m0fnu  __nv_cvt_float_to_e8m0(x, __NV_SATFINITE / __NV_NOSAT, cudaRoundZero / cudaRoundPosInf)
//            toward_zero / upward with overflow::saturate / overflow::ieee
//            and the __nv_fp8_e8m0(float) constructor (cudaRoundPosInf, __NV_SATFINITE)
//   e2m3fn   __nv_cvt_float_to_fp6(x, __NV_E2M3, cudaRoundNearest / cudaRoundZero)
//   e3m2fn   __nv_cvt_float_to_fp6(x, __NV_E3M2, cudaRoundNearest / cudaRoundZero)
//   e2m1fn   __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest / cudaRoundZero)
//            nearest_even / toward_zero (always saturating: the formats have no Inf/NaN; NaN
//            gives +max in both)
//
// Documented deviation (e8m0 only): CUDA ignores the sign (it converts |x|) and gives 2^-127
// (0x00) for +-0; mixprec's float8_e8m0fnu has no zero and no negative values and gives NaN
// (0xFF). For these inputs the test checks exactly that: mixprec 0xFF, CUDA(x) == CUDA(|x|),
// and counts them apart. NaN inputs give 0xFF in both.
//
// The checks are split into three programs (one group each, so that each stays near a minute on
// two cores): test_cuda_host_e8m0.cpp, test_cuda_host_fp6.cpp, test_cuda_host_fp4.cpp include
// this file with MIXPREC_MX_GROUP set to 1, 2 or 4. The e8m0 group handles x and -x together
// (CUDA(-x) is compared with CUDA(x) instead of calling CUDA twice more).
// Threads take chunks of 2^22 patterns in turn. Environment (development only):
//   MIXPREC_EXHAUSTIVE_STRIDE=N   test only every N-th bit pattern
//   MIXPREC_EXHAUSTIVE_THREADS=N  number of threads (default: hardware_concurrency)
#ifndef MIXPREC_MX_GROUP
#error "define MIXPREC_MX_GROUP (1: e8m0, 2: fp6, 4: fp4) before including this file"
#endif
#include <mixprec/round_to.hpp>
#include <mixprec/types.hpp>

#include <cuda_fp8.h>
#if defined(CUDART_VERSION) && CUDART_VERSION >= 12080
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#define MIXPREC_TEST_HAS_MX 1
#else
#define MIXPREC_TEST_HAS_MX 0
#endif

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
#include <thread>
#include <vector>

#include "env.hpp"

#if MIXPREC_TEST_HAS_MX
namespace {

constexpr int kChecks = 11;
constexpr int kMaxReported = 8;

struct check_info {
  const char* name;
  int group;  // 0 e8m0, 1 fp6, 2 fp4
};

constexpr std::array<check_info, kChecks> kCheckInfo = {{
    {"e8m0fnu rz satfinite (cudaRoundZero, __NV_SATFINITE)", 0},
    {"e8m0fnu rz nosat     (cudaRoundZero, __NV_NOSAT)", 0},
    {"e8m0fnu rp satfinite (cudaRoundPosInf, __NV_SATFINITE)", 0},
    {"e8m0fnu rp nosat     (cudaRoundPosInf, __NV_NOSAT)", 0},
    {"e8m0fnu constructor  (__nv_fp8_e8m0(float))", 0},
    {"e2m3fn  rn (__nv_cvt_float_to_fp6, __NV_E2M3)", 1},
    {"e2m3fn  rz", 1},
    {"e3m2fn  rn (__nv_cvt_float_to_fp6, __NV_E3M2)", 1},
    {"e3m2fn  rz", 1},
    {"e2m1fn  rn (__nv_cvt_float_to_fp4, __NV_E2M1)", 2},
    {"e2m1fn  rz", 2},
}};

struct mismatch {
  std::uint32_t input;
  std::uint32_t cuda;
  std::uint32_t mixprec;
};

struct tally {
  std::array<std::uint64_t, kChecks> mismatches{};
  std::array<std::uint64_t, kChecks> deviations{};  // the documented e8m0 sign/zero rule
  std::array<std::vector<mismatch>, kChecks> first{};
  std::uint64_t tested = 0;
};

inline void record(tally& t, int check, std::uint32_t input, std::uint32_t cuda, std::uint32_t mine) {
  if (cuda == mine) return;
  const auto c = static_cast<std::size_t>(check);
  ++t.mismatches[c];
  if (t.first[c].size() < kMaxReported) t.first[c].push_back({input, cuda, mine});
}

// An e8m0 check on the pair x >= +0 (bits i) and -x: x compares bit for bit (except +0, a
// deviation: CUDA 0x00, mixprec NaN); -x (unless NaN) must show the documented deviation:
// mixprec NaN (0xFF), and CUDA(-x) == CUDA(x).
inline void record_e8m0(tally& t, int check, std::uint32_t i, std::uint32_t cuda, std::uint32_t mine,
                        std::uint32_t cuda_neg, std::uint32_t mine_neg) {
  const auto c = static_cast<std::size_t>(check);
  const bool nan = i > 0x7f800000u;
  if (i == 0) {
    ++t.deviations[c];
    if (cuda != 0x00u || mine != 0xffu) record(t, check, i, cuda, mine | 0x100u);
  } else {
    record(t, check, i, cuda, mine);
  }
  const std::uint32_t ni = i | 0x80000000u;
  if (nan) return record(t, check, ni, cuda_neg, mine_neg);
  ++t.deviations[c];
  if (mine_neg != 0xffu || cuda_neg != cuda) record(t, check, ni, cuda_neg, mine_neg | 0x100u);
}

constexpr unsigned kGroup = MIXPREC_MX_GROUP;

// The checks of this program's group for bit pattern i (the e8m0 group: for i and i | sign);
// GCC and Clang: with everything it calls inlined into it (much faster).
#if defined(__GNUC__)
__attribute__((flatten))
#endif
inline void test_pattern(tally& t, std::uint32_t i) {
  using mixprec::overflow;
  using mixprec::rounding;
  using mixprec::round_to;
  float x;
  std::memcpy(&x, &i, sizeof x);
  if constexpr (kGroup == 1) {
    using E = mixprec::float8_e8m0fnu;
    const float nx = -x;
    const std::uint32_t rp_sat = __nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundPosInf);
    const std::uint32_t up_sat = round_to<E>(x, rounding::upward, overflow::saturate).bits();
    const std::uint32_t up_sat_neg = round_to<E>(nx, rounding::upward, overflow::saturate).bits();
    record_e8m0(t, 0, i, __nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundZero),
                round_to<E>(x, rounding::toward_zero, overflow::saturate).bits(),
                __nv_cvt_float_to_e8m0(nx, __NV_SATFINITE, cudaRoundZero),
                round_to<E>(nx, rounding::toward_zero, overflow::saturate).bits());
    record_e8m0(t, 1, i, __nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundZero),
                round_to<E>(x, rounding::toward_zero, overflow::ieee).bits(),
                __nv_cvt_float_to_e8m0(nx, __NV_NOSAT, cudaRoundZero),
                round_to<E>(nx, rounding::toward_zero, overflow::ieee).bits());
    record_e8m0(t, 2, i, rp_sat, up_sat, __nv_cvt_float_to_e8m0(nx, __NV_SATFINITE, cudaRoundPosInf), up_sat_neg);
    record_e8m0(t, 3, i, __nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundPosInf),
                round_to<E>(x, rounding::upward, overflow::ieee).bits(),
                __nv_cvt_float_to_e8m0(nx, __NV_NOSAT, cudaRoundPosInf),
                round_to<E>(nx, rounding::upward, overflow::ieee).bits());
    record_e8m0(t, 4, i, __nv_fp8_e8m0(x).__x, up_sat, __nv_fp8_e8m0(nx).__x, up_sat_neg);
  } else if constexpr (kGroup == 2) {
    record(t, 5, i, __nv_cvt_float_to_fp6(x, __NV_E2M3, cudaRoundNearest),
           round_to<mixprec::float6_e2m3fn>(x, rounding::nearest_even, overflow::saturate).bits());
    record(t, 6, i, __nv_cvt_float_to_fp6(x, __NV_E2M3, cudaRoundZero),
           round_to<mixprec::float6_e2m3fn>(x, rounding::toward_zero, overflow::saturate).bits());
    record(t, 7, i, __nv_cvt_float_to_fp6(x, __NV_E3M2, cudaRoundNearest),
           round_to<mixprec::float6_e3m2fn>(x, rounding::nearest_even, overflow::saturate).bits());
    record(t, 8, i, __nv_cvt_float_to_fp6(x, __NV_E3M2, cudaRoundZero),
           round_to<mixprec::float6_e3m2fn>(x, rounding::toward_zero, overflow::saturate).bits());
  } else {
    record(t, 9, i, __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest),
           round_to<mixprec::float4_e2m1fn>(x, rounding::nearest_even, overflow::saturate).bits());
    record(t, 10, i, __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundZero),
           round_to<mixprec::float4_e2m1fn>(x, rounding::toward_zero, overflow::saturate).bits());
  }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("mixprec agrees with CUDA's host conversions for every float, in every mode CUDA offers") {
  // The e8m0 group walks the 2^31 non-negative patterns, each with its negation.
  constexpr std::uint64_t kTotal = std::uint64_t{1} << (kGroup == 1 ? 31 : 32);
  constexpr std::uint64_t kChunk = std::uint64_t{1} << 22;
  constexpr std::uint64_t kChunks = kTotal / kChunk;

  const std::uint64_t stride = exhaustive_env::exhaustive_stride();
  const unsigned hw = std::thread::hardware_concurrency();
  const auto threads = static_cast<unsigned>(
      std::min<std::uint64_t>(exhaustive_env::env_uint("MIXPREC_EXHAUSTIVE_THREADS", hw == 0 ? 1 : hw), 1024));
  std::fprintf(stderr, "test_cuda_host_mx (group %u): %s floats (stride %llu), %u thread(s), CUDA %d.%d headers\n",
               kGroup, stride == 1 ? "all 2^32" : "a subsample of the", static_cast<unsigned long long>(stride), threads,
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
        test_pattern(t, static_cast<std::uint32_t>(i));
        t.tested += kGroup == 1 ? 2 : 1;
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
      total.deviations[c] += t.deviations[c];
      for (const mismatch& m : t.first[c]) total.first[c].push_back(m);
    }
  }
  std::fprintf(stderr, "test_cuda_host_mx (group %u): %llu floats in %.1f s\n", kGroup,
               static_cast<unsigned long long>(total.tested), elapsed);
  std::printf("%-58s %12s %20s\n", "check", "mismatches", "sign/zero deviation");
  for (std::size_t c = 0; c < kChecks; ++c) {
    if (((kGroup >> kCheckInfo[c].group) & 1u) == 0) continue;
    std::printf("%-58s %12llu %20llu\n", kCheckInfo[c].name, static_cast<unsigned long long>(total.mismatches[c]),
                static_cast<unsigned long long>(total.deviations[c]));
    std::vector<mismatch>& ms = total.first[c];
    std::sort(ms.begin(), ms.end(), [](const mismatch& a, const mismatch& b) { return a.input < b.input; });
    for (std::size_t k = 0; k < ms.size() && k < kMaxReported; ++k) {
      float x;
      std::memcpy(&x, &ms[k].input, sizeof x);
      std::printf("    input 0x%08x (%.9g): CUDA 0x%02x, mixprec 0x%02x\n", ms[k].input, static_cast<double>(x),
                  ms[k].cuda, ms[k].mixprec);
    }
  }
  std::fflush(stdout);

  const std::uint64_t expected = (kTotal + stride - 1) / stride * (kGroup == 1 ? 2 : 1);
  CHECK(total.tested == expected);
  for (std::size_t c = 0; c < kChecks; ++c) {
    INFO("check: " << kCheckInfo[c].name);
    CHECK(total.mismatches[c] == 0);
  }
  if (stride == 1 && kGroup == 1) {
    // Negative non-NaN floats: 2^31 - (2^23 - 1) NaNs; plus +0.
    const std::uint64_t want = (std::uint64_t{1} << 31) - ((std::uint64_t{1} << 23) - 1) + 1;
    for (std::size_t c = 0; c < 5; ++c) CHECK(total.deviations[c] == want);
  }
}
#else
TEST_CASE("CUDA older than 12.8: no fp4/fp6/e8m0 conversions to compare") {
  MESSAGE("skipped: CUDART_VERSION < 12080");
}
#endif
