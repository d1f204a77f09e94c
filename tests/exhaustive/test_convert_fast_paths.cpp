// SPDX-License-Identifier: MIT
// The x86 fast paths of the bulk conversion (detail/simd_convert.hpp): EVERY level this build
// compiles in (avx512_bf16, avx512, avx2 with -march=native on an AVX-512-BF16 machine; with
// AVX-512-FP16 too, avx512_bf16 converts double -> half by vcvtpd2ph, avx512 by rounding to odd), and the
// portable element loop, equal the scalar round_to on ALL 2^32 float inputs for float -> half and
// float -> bfloat16 (nearest even), and on about 26 million doubles for double -> half and
// double -> bfloat16 (every tie of the target format with sticky bits at each position below it,
// both signs, and random bit patterns). The scalar path is itself checked against independent
// references (test_float_exhaustive, the MPFR tests). The best level also runs through
// mixprec::convert under exec::par, so the kernel's dispatch is exercised. Label "exhaustive";
// each block of the parallel loop computes the reference once and runs the portable loop and
// every level on it while it is in cache. The last case runs simd/encode.hpp's generic encoder
// (every mode and policy) at every compiled width on all 2^32 floats for six (format, mode,
// policy, generator) cases, all in one pass over the floats (half's deterministic modes at every
// width: test_encode_half_modes.cpp).
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <mixprec/mixprec.hpp>
#include <mixprec/kernels.hpp>

#include "env.hpp"

using namespace mixprec;
using detail::simd_level;

namespace {

std::vector<simd_level> levels_compiled() {
  std::vector<simd_level> v;
  for (simd_level l : {simd_level::avx512_bf16, simd_level::avx512, simd_level::avx2}) {
    if (detail::simd_level_compiled(l)) v.push_back(l);
  }
  return v;
}

/// Mismatches of got[0, n) against want[0, n): memcmp first, element by element only where it differs.
template <class D>
std::uint64_t mismatches(const D* got, const std::uint16_t* want, std::size_t n) {
  static_assert(sizeof(D) == 2, "16-bit targets");
  if (std::memcmp(got, want, n * 2) == 0) return 0;
  std::uint64_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) bad += got[i].bits() != want[i];
  return bad;
}

/// The reference round_to<D> of every element (want), and the mismatches of the portable loop of
/// kernels/convert.hpp (one element at a time, the run-time mode: counts[0]), mixprec::convert
/// (the best level: counts[1]) and each compiled level (counts[2 + k] for levels[k]; a level
/// without this conversion counts nothing). Each block of the parallel loop goes through the
/// reference, the portable loop and every level while it is in cache; mixprec::convert then
/// runs on the whole of src under exec::par.
template <class S, class D>
void compare_levels(const std::vector<S>& src, const std::vector<simd_level>& levels,
                    std::vector<std::uint64_t>& counts) {
  static std::vector<std::uint16_t> want;  // reused from chunk to chunk (no page faults)
  static std::vector<D> got;
  want.resize(src.size());
  got.resize(src.size());
  std::vector<std::atomic<std::uint64_t>> bad(counts.size());
  detail::for_each_range(exec::par, src.size(), [&](std::size_t b, std::size_t e) {
    std::uint64_t local = 0;
    for (std::size_t i = b; i < e; ++i) {
      want[i] = round_to<D>(src[i]).bits();
      const D p = detail::convert_element<D>(src[i], rounding::nearest_even, overflow::ieee, sr_rng(rng_kind::splitmix64, 0), i);
      local += p.bits() != want[i];
    }
    bad[0].fetch_add(local, std::memory_order_relaxed);
    for (std::size_t k = 0; k < levels.size(); ++k) {
      if (detail::simd_convert_at(levels[k], src.data() + b, got.data() + b, e - b)) {
        bad[2 + k].fetch_add(mismatches(got.data() + b, want.data() + b, e - b), std::memory_order_relaxed);
      }
    }
  });
  convert(exec::par, src, got);
  detail::for_each_range(exec::par, src.size(), [&](std::size_t b, std::size_t e) {
    bad[1].fetch_add(mismatches(got.data() + b, want.data() + b, e - b), std::memory_order_relaxed);
  });
  for (std::size_t k = 0; k < counts.size(); ++k) counts[k] += bad[k].load();
}

template <class D>
std::vector<std::uint64_t> over_all_floats(const std::vector<simd_level>& levels) {
  constexpr std::uint64_t chunk = std::uint64_t{1} << 22;
  std::vector<float> src(chunk);
  std::vector<std::uint64_t> counts(2 + levels.size(), 0);
  for (std::uint64_t base = 0; base < (std::uint64_t{1} << 32); base += chunk * exhaustive_env::exhaustive_stride()) {
    for_each_index(exec::par, chunk, [&](std::size_t i) {
      const std::uint32_t u = static_cast<std::uint32_t>(base + i);
      std::memcpy(&src[i], &u, 4);
    });
    compare_levels<float, D>(src, levels, counts);
    if ((base >> 22) % 256 == 255) {
      std::printf("  %s: %3u%% of the floats\n", finfo<D>::name, static_cast<unsigned>(((base + chunk) * 100) >> 32));
      std::fflush(stdout);
    }
  }
  return counts;
}

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double from_bits(std::uint64_t u) {
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}
std::uint64_t to_bits(double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}

/// Every positive finite code c of D: the midpoint m between c and its successor (for the
/// largest, the overflow threshold), and m with its bits +- 2^j for j = 0..40 (a sticky bit at
/// each position below the float's last place and above), both signs; then random doubles
/// (random exponents near the range of D, random raw patterns with NaNs and infinities).
template <class D>
std::vector<double> double_inputs() {
  std::vector<double> v;
  const std::uint16_t max_code = static_cast<std::uint16_t>(D::format_type::max_code);
  for (std::uint32_t c = 0; c <= max_code; ++c) {
    const double lo = static_cast<double>(D::from_bits(static_cast<std::uint16_t>(c)));
    const double hi = c == max_code ? 2 * lo - static_cast<double>(D::from_bits(static_cast<std::uint16_t>(c - 1)))
                                    : static_cast<double>(D::from_bits(static_cast<std::uint16_t>(c + 1)));
    const double mid = (lo + hi) / 2;  // exact
    const std::uint64_t mb = to_bits(mid);
    v.push_back(mid);
    v.push_back(lo);
    for (int j = 0; j <= 40; ++j) {
      v.push_back(from_bits(mb + (std::uint64_t{1} << j)));
      if (mid != 0) v.push_back(from_bits(mb - (std::uint64_t{1} << j)));
    }
  }
  std::uint64_t s = 7;
  for (int k = 0; k < (1 << 23); ++k) {
    const std::uint64_t r = splitmix(s);
    // exponent in [2^-160, 2^132): subnormal floats, subnormal D, normals, overflow
    const std::uint64_t e = 1023 - 160 + (r >> 52) % 292;
    v.push_back(from_bits((r & 0x000fffffffffffffull) | (e << 52)));
    v.push_back(from_bits(splitmix(s)));
  }
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; ++i) v.push_back(-v[i]);
  return v;
}

template <class D>
std::vector<std::uint64_t> over_doubles(const std::vector<simd_level>& levels) {
  const std::vector<double> src = double_inputs<D>();
  std::vector<std::uint64_t> counts(2 + levels.size(), 0);
  compare_levels<double, D>(src, levels, counts);
  MESSAGE(std::string(finfo<D>::name) << ": " << src.size() << " doubles");
  return counts;
}

void report(const char* what, const std::vector<simd_level>& levels, const std::vector<std::uint64_t>& counts) {
  INFO(what);
  INFO("portable element loop");
  CHECK(counts[0] == 0);
  INFO("mixprec::convert (best level: " << std::string(detail::simd_level_name(detail::simd_best_level)) << ")");
  CHECK(counts[1] == 0);
  for (std::size_t k = 0; k < levels.size(); ++k) {
    INFO("level " << std::string(detail::simd_level_name(levels[k])));
    CHECK(counts[2 + k] == 0);
  }
}

}  // namespace

TEST_CASE("fast paths: every level, float -> half and float -> bfloat16 over all 2^32 floats") {
  MESSAGE("fast paths compiled in: " << std::string(detail::simd_convert_paths()));
  const auto levels = levels_compiled();
  report("float -> half", levels, over_all_floats<half>(levels));
  report("float -> bfloat16", levels, over_all_floats<bfloat16>(levels));
}

TEST_CASE("fast paths: every level, double -> half and double -> bfloat16 on ties, sticky bits and random doubles") {
  const auto levels = levels_compiled();
  report("double -> half", levels, over_doubles<half>(levels));
  report("double -> bfloat16", levels, over_doubles<bfloat16>(levels));
}

namespace {

/// One (format, mode, policy, generator) case of simd/encode.hpp's generic encoder
/// (detail::simd_convert_modes_at): its reference round_to<D>(x, mode, policy, rng(i)) for a block
/// of floats (the mode and policy compile-time constants, so that the scalar call is inlined with
/// them; the random bits drawn only in stochastic mode, the only mode that reads them), and its
/// mismatches per compiled width (a width without this case counts the whole block).
template <class D, rounding M, overflow P, rng_kind G = rng_kind::splitmix64>
struct encoder_case {
  static constexpr std::size_t block = 4096;
  std::vector<std::atomic<std::uint64_t>> bad;  // per level

  explicit encoder_case(std::size_t levels) : bad(levels) {}

  /// Floats src[0, n), the bit patterns first .. first + n - 1 (n <= block).
  void run(const std::vector<simd_level>& levels, const float* src, std::size_t n, std::uint64_t first) {
    typename D::storage_type want[block];
    D got[block];
    const sr_rng rng(G, 31);
    if constexpr (M != rounding::stochastic) {
      for (std::size_t i = 0; i < n; ++i) want[i] = round_to<D>(src[i], M, P, 0).bits();
    } else if constexpr (G == rng_kind::philox4x32_10) {
      // rng(c) is word c % 4 of philox_rng(31).block(c / 4) (core/random.hpp): one block per 4 counters.
      const philox_rng ph(31);
      philox4x32_block blk{};
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t c = first + i;
        if (i == 0 || (c & 3u) == 0) blk = ph.block(c >> 2);
        const std::uint32_t w[4] = {blk.x, blk.y, blk.z, blk.w};
        want[i] = round_to<D>(src[i], M, P, w[c & 3u]).bits();
      }
    } else {
      for (std::size_t i = 0; i < n; ++i) want[i] = round_to<D>(src[i], M, P, rng(first + i)).bits();
    }
    for (std::size_t k = 0; k < levels.size(); ++k) {
      if (!detail::simd_convert_modes_at(levels[k], src, got, n, M, P, rng, first)) {
        bad[k].fetch_add(n, std::memory_order_relaxed);
        continue;
      }
      if (std::memcmp(got, want, n * sizeof(D)) == 0) continue;
      std::uint64_t local = 0;
      for (std::size_t i = 0; i < n; ++i) local += got[i].bits() != want[i];
      bad[k].fetch_add(local, std::memory_order_relaxed);
    }
  }

  void check(const std::vector<simd_level>& levels) const {
    for (std::size_t k = 0; k < levels.size(); ++k) {
      INFO(std::string(finfo<D>::name) << ", " << std::string(to_string(M)) << ", " << std::string(to_string(P))
                                        << ", generator " << static_cast<int>(G) << ", level "
                                        << std::string(detail::simd_level_name(levels[k])));
      CHECK(bad[k].load() == 0);
    }
  }
};

/// Every case on all 2^32 floats in one pass: each block of 4096 consecutive bit patterns is made
/// once and goes through every case's reference and every compiled width while it is in cache.
template <class... Cases>
void encoder_cases_over_all_floats(const std::vector<simd_level>& levels, Cases&... cases) {
  constexpr std::size_t block = 4096;
  constexpr std::uint64_t chunk = std::uint64_t{1} << 26;  // progress every 1/64
  for (std::uint64_t base = 0; base < (std::uint64_t{1} << 32); base += chunk * exhaustive_env::exhaustive_stride()) {
    for_each_index(exec::par, chunk / block, [&](std::size_t j) {
      float src[block];
      const std::uint64_t first = base + j * block;
      for (std::size_t i = 0; i < block; ++i) {
        const auto u = static_cast<std::uint32_t>(first + i);
        std::memcpy(&src[i], &u, 4);
      }
      (cases.run(levels, src, block, first), ...);
    });
    if ((base + chunk) % (std::uint64_t{1} << 30) == 0) {
      std::printf("  generic encoder: %3u%% of the floats\n", static_cast<unsigned>(((base + chunk) * 100) >> 32));
      std::fflush(stdout);
    }
  }
}

}  // namespace

TEST_CASE("generic encoder: every compiled width over all 2^32 floats, a mode and policy per format") {
  // Also run once, all green (2026-12-04): half upward saturate, bfloat16 stochastic saturate,
  // e4m3fn downward, e5m2 toward_zero, e2m1fn nearest_even saturate.
  std::vector<simd_level> levels;
  for (simd_level l : {simd_level::avx512, simd_level::avx2}) {
    if (detail::simd_level_compiled(l)) levels.push_back(l);
  }
  const std::size_t n = levels.size();
  encoder_case<half, rounding::stochastic, overflow::ieee> half_sr(n);
  encoder_case<bfloat16, rounding::to_odd, overflow::ieee> bf16_odd(n);
  encoder_case<float8_e4m3fn, rounding::stochastic, overflow::saturate> e4m3_sr(n);
  encoder_case<float8_e5m2, rounding::upward, overflow::saturate> e5m2_up(n);  // e5m2's common-case test
  // Philox's vector stream, unsigned formats and E8M0
  encoder_case<float8_e8m0fnu, rounding::stochastic, overflow::saturate, rng_kind::philox4x32_10> e8m0_sr(n);
  encoder_case<float8_ue4m3, rounding::nearest_even, overflow::ieee> ue4m3_ne(n);
  encoder_cases_over_all_floats(levels, half_sr, bf16_odd, e4m3_sr, e5m2_up, e8m0_sr, ue4m3_ne);
  half_sr.check(levels);
  bf16_odd.check(levels);
  e4m3_sr.check(levels);
  e5m2_up.check(levels);
  e8m0_sr.check(levels);
  ue4m3_ne.check(levels);
}
