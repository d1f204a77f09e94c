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
// one reference pass per chunk is shared by all levels (about 20 s on 2 Zen 4 cores). The last
// case runs simd/encode.hpp's generic encoder (every mode and policy) at every compiled width on
// all 2^32 floats for five (format, mode, policy) triples (about 2 minutes).
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <mixprec/mixprec.hpp>
#include <mixprec/kernels.hpp>

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

/// Runs one level on src (in parallel blocks, as the kernel does). false: no fast path here.
template <class S, class D>
bool run_level(simd_level l, const std::vector<S>& src, std::vector<D>& got) {
  std::atomic<bool> ok{true};
  detail::for_each_range(exec::par, src.size(), [&](std::size_t b, std::size_t e) {
    if (!detail::simd_convert_at(l, src.data() + b, got.data() + b, e - b)) ok.store(false);
  });
  return ok.load();
}

/// Mismatches against want, by blocks: memcmp first, element by element only where it differs.
template <class D>
std::uint64_t mismatches(const std::vector<D>& got, const std::vector<std::uint16_t>& want) {
  std::atomic<std::uint64_t> bad{0};
  detail::for_each_range(exec::par, got.size(), [&](std::size_t b, std::size_t e) {
    if (std::memcmp(got.data() + b, want.data() + b, (e - b) * 2) == 0) return;
    std::uint64_t local = 0;
    for (std::size_t i = b; i < e; ++i) local += got[i].bits() != want[i];
    bad.fetch_add(local, std::memory_order_relaxed);
  });
  return bad.load();
}

/// The reference round_to<D> of every element (want), and the mismatches of the portable loop of
/// kernels/convert.hpp (one element at a time, the run-time mode: counts[0]), mixprec::convert
/// (the best level: counts[1]) and each compiled level (counts[2 + k] for levels[k]).
template <class S, class D>
void compare_levels(const std::vector<S>& src, const std::vector<simd_level>& levels,
                    std::vector<std::uint64_t>& counts) {
  static std::vector<std::uint16_t> want;  // reused from chunk to chunk (no page faults)
  static std::vector<D> got;
  want.resize(src.size());
  got.resize(src.size());
  std::atomic<std::uint64_t> portable_bad{0};
  detail::for_each_range(exec::par, src.size(), [&](std::size_t b, std::size_t e) {
    std::uint64_t local = 0;
    for (std::size_t i = b; i < e; ++i) {
      want[i] = round_to<D>(src[i]).bits();
      const D p = detail::convert_element<D>(src[i], rounding::nearest_even, overflow::ieee, sr_rng(rng_kind::splitmix64, 0), i);
      local += p.bits() != want[i];
    }
    portable_bad.fetch_add(local, std::memory_order_relaxed);
  });
  counts[0] += portable_bad.load();
  convert(exec::par, src, got);
  counts[1] += mismatches(got, want);
  for (std::size_t k = 0; k < levels.size(); ++k) {
    if (run_level(levels[k], src, got)) counts[2 + k] += mismatches(got, want);
  }
}

template <class D>
std::vector<std::uint64_t> over_all_floats(const std::vector<simd_level>& levels) {
  constexpr std::uint64_t chunk = std::uint64_t{1} << 22;
  std::vector<float> src(chunk);
  std::vector<std::uint64_t> counts(2 + levels.size(), 0);
  for (std::uint64_t base = 0; base < (std::uint64_t{1} << 32); base += chunk) {
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

/// simd/encode.hpp's generic encoder (detail::simd_convert_modes_at) at every compiled width
/// against round_to<D>(x, mode, policy, rng(i)) on all 2^32 floats (rng: the generator of kind g);
/// the count of mismatches per level.
template <class D>
std::vector<std::uint64_t> modes_over_all_floats(rounding mode, overflow policy, const std::vector<simd_level>& levels,
                                                 rng_kind g) {
  constexpr std::uint64_t chunk = std::uint64_t{1} << 22;
  std::vector<float> src(chunk);
  std::vector<typename D::storage_type> want(chunk);
  std::vector<D> got(chunk);
  std::vector<std::uint64_t> counts(levels.size(), 0);
  const sr_rng rng(g, 31);
  for (std::uint64_t base = 0; base < (std::uint64_t{1} << 32); base += chunk) {
    detail::for_each_range(exec::par, chunk, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) {
        const std::uint32_t u = static_cast<std::uint32_t>(base + i);
        std::memcpy(&src[i], &u, 4);
        want[i] = round_to<D>(src[i], mode, policy, rng(base + i)).bits();
      }
    });
    for (std::size_t k = 0; k < levels.size(); ++k) {
      std::atomic<std::uint64_t> bad{0};
      detail::for_each_range(exec::par, chunk, [&](std::size_t b, std::size_t e) {
        if (!detail::simd_convert_modes_at(levels[k], src.data() + b, got.data() + b, e - b, mode, policy, rng, base + b)) {
          bad.fetch_add(e - b);
          return;
        }
        std::uint64_t local = 0;
        for (std::size_t i = b; i < e; ++i) local += got[i].bits() != want[i];
        bad.fetch_add(local, std::memory_order_relaxed);
      });
      counts[k] += bad.load();
    }
  }
  return counts;
}

template <class D>
void check_modes_all_floats(rounding mode, overflow policy, rng_kind g = rng_kind::splitmix64) {
  std::vector<simd_level> levels;
  for (simd_level l : {simd_level::avx512, simd_level::avx2}) {
    if (detail::simd_level_compiled(l)) levels.push_back(l);
  }
  const auto counts = modes_over_all_floats<D>(mode, policy, levels, g);
  for (std::size_t k = 0; k < levels.size(); ++k) {
    INFO(finfo<D>::name << ", " << to_string(mode) << ", " << to_string(policy) << ", generator "
                        << static_cast<int>(g) << ", level "
                        << std::string(detail::simd_level_name(levels[k])));
    CHECK(counts[k] == 0);
  }
}

}  // namespace

TEST_CASE("generic encoder: every compiled width over all 2^32 floats, a mode and policy per format") {
  // Also run once, all green (2026-12-04): half upward saturate, bfloat16 stochastic saturate,
  // e4m3fn downward, e5m2 toward_zero, e2m1fn nearest_even saturate.
  check_modes_all_floats<half>(rounding::stochastic, overflow::ieee);
  check_modes_all_floats<half>(rounding::nearest_away, overflow::ieee);
  check_modes_all_floats<bfloat16>(rounding::to_odd, overflow::ieee);
  check_modes_all_floats<float8_e4m3fn>(rounding::stochastic, overflow::saturate);
  check_modes_all_floats<float8_e5m2>(rounding::upward, overflow::saturate);  // e5m2's common-case test
  // Philox's vector stream, unsigned formats and E8M0
  check_modes_all_floats<float8_e8m0fnu>(rounding::stochastic, overflow::saturate, rng_kind::philox4x32_10);
  check_modes_all_floats<float8_ue4m3>(rounding::nearest_even, overflow::ieee);
}
