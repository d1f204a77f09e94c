// SPDX-License-Identifier: MIT
// kernels/convert.hpp: the bulk conversion equals the scalar round_to (itself checked
// exhaustively against independent references) element by element, under every policy and
// thread count, on awkward sizes and unaligned spans; stochastic rounding is reproducible;
// the x86 fast paths equal the portable path (all halves/bfloat16s here, all 2^32 floats in
// tests/exhaustive/test_convert_fast_paths.cpp).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernel_test_util.hpp"

using namespace mixprec;
using ktest::bits_of;

namespace {
/// Whether level l converts in every mode: not the avx2 level where only AVX + F16C is compiled in
/// (simd/vec_f16c.hpp: float <-> half and half -> double only).
bool level_converts_modes(detail::simd_level l) {
#if defined(MIXPREC_SIMD_X86) && !defined(MIXPREC_SIMD_AVX2)
  return detail::simd_level_compiled(l) && l != detail::simd_level::avx2;
#else
  return detail::simd_level_compiled(l);
#endif
}

template <class D, class S>
std::vector<D> scalar_reference(const std::vector<S>& src, std::size_t first, rounding mode, overflow ovf,
                                std::uint64_t seed, std::uint64_t offset) {
  std::vector<D> out;
  const counter_rng rng(seed);
  for (std::size_t i = first; i < src.size(); ++i) {
    const std::uint32_t r = rng(offset + (i - first));
    out.push_back(mode == rounding::stochastic ? round_to<D>(src[i], r, ovf) : round_to<D>(src[i], mode, ovf));
  }
  return out;
}

template <class D, class S>
void check_pair(const std::vector<S>& all, rounding mode, overflow ovf) {
  for (std::size_t n : ktest::awkward_sizes()) {
    // first = 1: an unaligned start.
    for (std::size_t first : {std::size_t{0}, std::size_t{1}}) {
      if (first + n > all.size()) continue;
      const std::vector<S> src(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(first + n));
      const std::vector<D> want = scalar_reference<D>(src, first, mode, ovf, 42, 1000);
      const span<const S> in(src.data() + first, n);
      std::vector<D> got_seq(n), got_par1(n), got_par2(n), got_par3(n);
      convert(exec::seq, in, got_seq, mode, ovf, 42, 1000);
      convert(exec::par(1), in, got_par1, mode, ovf, 42, 1000);
      convert(exec::par(2), in, got_par2, mode, ovf, 42, 1000);
      convert(exec::par(3), in, got_par3, mode, ovf, 42, 1000);
      INFO("n = " << n << ", first = " << first << ", mode = " << static_cast<int>(mode));
      std::size_t bad = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (bits_of(got_seq[i]) != bits_of(want[i])) {
          if (bad++ < 3) {
            MESSAGE("element " << i << ": src bits " << std::hex << bits_of(src[first + i]) << " got "
                               << bits_of(got_seq[i]) << " want " << bits_of(want[i]));
          }
        }
      }
      CHECK(bad == 0);
      CHECK(ktest::same_bits(got_seq, got_par1));
      CHECK(ktest::same_bits(got_seq, got_par2));
      CHECK(ktest::same_bits(got_seq, got_par3));
    }
  }
}

}  // namespace

TEST_CASE("convert: the fast-path pairs in nearest-even equal round_to") {
  const auto f = ktest::mixed_floats(40001, 1);
  const auto d = ktest::mixed_doubles(40001, 2);
  check_pair<half>(f, rounding::nearest_even, overflow::ieee);
  check_pair<bfloat16>(f, rounding::nearest_even, overflow::ieee);
  check_pair<half>(d, rounding::nearest_even, overflow::ieee);
  std::vector<half> h(f.size());
  std::vector<bfloat16> b(f.size());
  for (std::size_t i = 0; i < f.size(); ++i) {
    h[i] = half::from_bits(static_cast<std::uint16_t>(bits_of(f[i]) >> 7));
    b[i] = bfloat16::from_bits(static_cast<std::uint16_t>(bits_of(f[i]) >> 11));
  }
  check_pair<float>(h, rounding::nearest_even, overflow::ieee);
  check_pair<float>(b, rounding::nearest_even, overflow::ieee);
  check_pair<double>(h, rounding::nearest_even, overflow::ieee);
  check_pair<bfloat16>(d, rounding::nearest_even, overflow::ieee);
}

namespace {

/// Every compiled level of detail/simd_convert.hpp on one pair: awkward sizes, unaligned starts.
template <class D, class S>
void check_levels(const std::vector<S>& all) {
  using detail::simd_level;
  for (simd_level l : {simd_level::avx2, simd_level::avx512, simd_level::avx512_bf16}) {
    if (!detail::simd_level_compiled(l)) continue;
    for (std::size_t n : ktest::awkward_sizes()) {
      for (std::size_t first : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
        if (first + n > all.size()) continue;
        std::vector<D> got(n + 2);  // guards after the end stay untouched
        for (auto& g : got) g = D::from_bits(0x1234);
        if (!detail::simd_convert_at(l, all.data() + first, got.data(), n)) break;
        std::size_t bad = 0;
        for (std::size_t i = 0; i < n; ++i) bad += got[i].bits() != round_to<D>(all[first + i]).bits();
        INFO("level " << std::string(detail::simd_level_name(l)) << ", n = " << n << ", first = " << first);
        CHECK(bad == 0);
        CHECK(got[n].bits() == 0x1234);
        CHECK(got[n + 1].bits() == 0x1234);
      }
    }
  }
}

template <class S, class D = float>
void check_widening_levels(const std::vector<S>& all) {
  using detail::simd_level;
  for (simd_level l : {simd_level::avx2, simd_level::avx512, simd_level::avx512_bf16}) {
    if (!detail::simd_level_compiled(l)) continue;
    for (std::size_t n : ktest::awkward_sizes()) {
      for (std::size_t first : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
        if (first + n > all.size()) continue;
        std::vector<D> got(n + 1, D(1234));
        if (!detail::simd_convert_at(l, all.data() + first, got.data(), n)) break;
        std::size_t bad = 0;
        for (std::size_t i = 0; i < n; ++i) bad += bits_of(got[i]) != bits_of(round_to<D>(all[first + i]));
        INFO("level " << std::string(detail::simd_level_name(l)) << ", n = " << n << ", first = " << first);
        CHECK(bad == 0);
        CHECK(bits_of(got[n]) == bits_of(D(1234)));
      }
    }
  }
}

}  // namespace

TEST_CASE("convert: every compiled fast-path level equals round_to on awkward sizes") {
  MESSAGE("best level: " << std::string(detail::simd_level_name(detail::simd_best_level)));
  const auto f = ktest::mixed_floats(40010, 11);
  const auto d = ktest::mixed_doubles(40010, 12);
  check_levels<half>(f);
  check_levels<bfloat16>(f);
  check_levels<half>(d);
  check_levels<bfloat16>(d);
  std::vector<half> h(f.size());
  std::vector<bfloat16> b(f.size());
  for (std::size_t i = 0; i < f.size(); ++i) {
    h[i] = half::from_bits(static_cast<std::uint16_t>(bits_of(f[i]) >> 7));
    b[i] = bfloat16::from_bits(static_cast<std::uint16_t>(bits_of(f[i]) >> 11));
  }
  check_widening_levels(h);
  check_widening_levels(b);
  check_widening_levels<half, double>(h);
}

TEST_CASE("convert: every compiled level takes its fast path for each pair it documents") {
  // The level tests above skip a level that declines a pair; this one fails if a level that
  // should convert a pair falls back to the portable loop (detail/simd_convert.hpp, "Levels").
  using detail::simd_level;
#if defined(MIXPREC_SIMD_AVX2)
  constexpr bool avx2_has_all_pairs = true;  // else the avx2 level is AVX + F16C: half only
#else
  constexpr bool avx2_has_all_pairs = false;
#endif
  const float f[3] = {1.0f, -2.5f, 0.1f};
  const double d[3] = {1.0, -2.5, 0.1};
  half h[3];
  bfloat16 b[3];
  float fo[3];
  double dout[3];
  for (std::size_t i = 0; i < 3; ++i) {
    h[i] = half(f[i]);
    b[i] = bfloat16(f[i]);
  }
  for (simd_level l : {simd_level::avx2, simd_level::avx512, simd_level::avx512_bf16}) {
    if (!detail::simd_level_compiled(l)) continue;
    INFO("level " << std::string(detail::simd_level_name(l)));
    half ho[3];
    bfloat16 bo[3];
    CHECK(detail::simd_convert_at(l, f, ho, 3));
    CHECK(detail::simd_convert_at(l, h, fo, 3));
    CHECK(detail::simd_convert_at(l, h, dout, 3));
    if (l != simd_level::avx2 || avx2_has_all_pairs) {
      CHECK(detail::simd_convert_at(l, f, bo, 3));
      CHECK(detail::simd_convert_at(l, b, fo, 3));
      CHECK(detail::simd_convert_at(l, d, ho, 3));
      CHECK(detail::simd_convert_at(l, d, bo, 3));
    }
  }
#if defined(MIXPREC_SIMD_AVX512) && defined(__AVX512BF16__) && defined(__AVX512FP16__)
  CHECK(std::string(detail::simd_convert_paths()).find("vcvtpd2ph") != std::string::npos);
#endif
}

TEST_CASE("convert: other pairs, modes and overflow policies equal round_to") {
  const auto f = ktest::mixed_floats(40001, 3);
  const auto d = ktest::mixed_doubles(40001, 4);
  for (rounding mode : {rounding::nearest_even, rounding::nearest_away, rounding::toward_zero, rounding::upward,
                        rounding::downward, rounding::to_odd, rounding::stochastic}) {
    for (overflow ovf : {overflow::ieee, overflow::saturate}) {
      check_pair<half>(f, mode, ovf);
      check_pair<bfloat16>(d, mode, ovf);
      check_pair<float8_e4m3fn>(f, mode, ovf);
      check_pair<float8_e5m2>(d, mode, ovf);
      check_pair<tf32>(f, mode, ovf);
      check_pair<float>(d, mode, ovf);
    }
  }
  // Between two mixprec types, and mixprec -> wider.
  std::vector<half> h(f.size());
  convert(exec::seq, f, h);
  check_pair<bfloat16>(h, rounding::nearest_even, overflow::ieee);
  check_pair<float8_e4m3fn>(h, rounding::toward_zero, overflow::saturate);
  check_pair<float6_e2m3fn>(h, rounding::nearest_even, overflow::ieee);
}

TEST_CASE("convert: stochastic rounding is reproducible and keyed by offset + index") {
  const auto f = ktest::mixed_floats(5000, 5, false);
  std::vector<bfloat16> a(f.size()), b(f.size()), c(f.size() - 100);
  convert(exec::seq, f, a, rounding::stochastic, overflow::ieee, 9, 0);
  convert(exec::par(2), f, b, rounding::stochastic, overflow::ieee, 9, 0);
  CHECK(ktest::same_bits(a, b));
  // The tail of the array converted alone with offset 100 gives the same bits.
  convert(exec::par(3), span<const float>(f.data() + 100, f.size() - 100), c, rounding::stochastic, overflow::ieee, 9,
          100);
  CHECK(ktest::same_bits(std::vector<bfloat16>(a.begin() + 100, a.end()), c));
  // Another seed changes some results (a value strictly between two bfloat16s rounds
  // either way with probability proportional to its distance).
  convert(exec::seq, f, b, rounding::stochastic, overflow::ieee, 10, 0);
  CHECK_FALSE(ktest::same_bits(a, b));
}

TEST_CASE("convert: stochastic rounding with Philox4x32-10 takes philox_rng(seed)(offset + i)") {
  const auto f = ktest::mixed_floats(3000, 11, false);
  const philox_rng rng(0x1234567890abcdefull);
  std::vector<half> want(f.size());
  for (std::size_t i = 0; i < f.size(); ++i) want[i] = round_to<half>(f[i], rng(77 + i), overflow::saturate);
  std::vector<half> a(f.size()), b(f.size());
  convert(exec::seq, f, a, rounding::stochastic, overflow::saturate, rng.seed(), 77, rng_kind::philox4x32_10);
  convert(exec::par(3), f, b, rounding::stochastic, overflow::saturate, rng.seed(), 77, rng_kind::philox4x32_10);
  CHECK(ktest::same_bits(a, want));
  CHECK(ktest::same_bits(b, want));
  // every offset within a block, bfloat16 and e4m3fn too, awkward sizes through the threads
  for (std::uint64_t off : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{3}, std::uint64_t{6}}) {
    for (std::size_t n : {std::size_t{1}, std::size_t{17}, std::size_t{63}, f.size()}) {
      const span<const float> in(f.data(), n);
      std::vector<bfloat16> wb(n), gb1(n), gb3(n);
      std::vector<float8_e4m3fn> we(n), ge2(n);
      for (std::size_t i = 0; i < n; ++i) {
        wb[i] = round_to<bfloat16>(f[i], rng(off + i), overflow::ieee);
        we[i] = round_to<float8_e4m3fn>(f[i], rng(off + i), overflow::saturate);
      }
      convert(exec::seq, in, gb1, rounding::stochastic, overflow::ieee, rng.seed(), off, rng_kind::philox4x32_10);
      convert(exec::par(3), in, gb3, rounding::stochastic, overflow::ieee, rng.seed(), off, rng_kind::philox4x32_10);
      convert(exec::par(2), in, ge2, rounding::stochastic, overflow::saturate, rng.seed(), off, rng_kind::philox4x32_10);
      INFO("offset " << off << ", n " << n);
      CHECK(ktest::same_bits(gb1, wb));
      CHECK(ktest::same_bits(gb3, wb));
      CHECK(ktest::same_bits(ge2, we));
    }
  }
  // The default generator gives other bits for the same seed.
  convert(exec::seq, f, b, rounding::stochastic, overflow::saturate, rng.seed(), 77);
  CHECK_FALSE(ktest::same_bits(a, b));
  // An invalid generator is rejected before any write.
  std::vector<half> c(f.size(), half(3.0f));
  CHECK_THROWS_AS(convert(exec::seq, f, c, rounding::stochastic, overflow::ieee, 1, 0, static_cast<rng_kind>(9)),
                  std::invalid_argument);
  for (const half& x : c) CHECK(x.bits() == half(3.0f).bits());
}

TEST_CASE("convert: NaN, infinities, signed zeros and overflow") {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> src = {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(), 65520.0f, 65519.0f,
                                  -1e30f, 1e-30f, 5.9604645e-08f, 2.9802322e-08f, 2.9802326e-08f};
  std::vector<half> h(src.size());
  convert(exec::par, src, h);
  CHECK(h[0].bits() == 0x0000);
  CHECK(h[1].bits() == 0x8000);
  CHECK(h[2].bits() == 0x7c00);
  CHECK(h[3].bits() == 0xfc00);
  CHECK(isnan(h[4]));
  CHECK(h[5].bits() == 0x7c00);   // 65520 is the tie between 65504 and 2^16: even -> inf
  CHECK(h[6].bits() == 0x7bff);   // 65519 -> 65504
  CHECK(h[7].bits() == 0xfc00);
  CHECK(h[8].bits() == 0x0000);
  CHECK(h[9].bits() == 0x0001);   // 2^-24
  CHECK(h[10].bits() == 0x0000);  // 2^-25: the tie with 0 goes to even 0
  CHECK(h[11].bits() == 0x0001);  // just above the tie
  std::vector<half> s(src.size());
  convert(exec::seq, src, s, rounding::nearest_even, overflow::saturate);
  CHECK(s[2].bits() == 0x7bff);  // saturate clamps +inf too
  CHECK(s[7].bits() == 0xfbff);
  std::vector<float8_e4m3fn> e(src.size());
  convert(exec::seq, src, e);
  CHECK(isnan(e[2]));  // e4m3fn has no infinity: ieee policy gives NaN
}

TEST_CASE("convert: size mismatch is rejected and nothing is written") {
  std::vector<float> src(10, 1.0f);
  std::vector<half> dst(9, half(2.0f));
  CHECK_THROWS_AS(convert(exec::seq, src, dst), std::invalid_argument);
  for (const half& x : dst) CHECK(x.bits() == half(2.0f).bits());
  std::vector<half> empty;
  CHECK_NOTHROW(convert(exec::par, std::vector<float>{}, empty));
}

TEST_CASE("convert: the x86 fast paths (when compiled in) equal the portable path on all 16-bit inputs") {
  MESSAGE("fast paths compiled in: " << std::string(detail::simd_convert_paths()));
  // mixprec::convert runs the best level; test_convert's other builds (tests/CMakeLists.txt) and
  // the case above cover the other levels.
  std::vector<half> h(65536);
  std::vector<bfloat16> b(65536);
  for (std::uint32_t i = 0; i < 65536; ++i) {
    h[i] = half::from_bits(static_cast<std::uint16_t>(i));
    b[i] = bfloat16::from_bits(static_cast<std::uint16_t>(i));
  }
  std::vector<float> fh(65536), fb(65536);
  convert(exec::seq, h, fh);
  convert(exec::seq, b, fb);
  std::size_t bad = 0;
  for (std::uint32_t i = 0; i < 65536; ++i) {
    bad += bits_of(fh[i]) != bits_of(static_cast<float>(h[i]));
    bad += bits_of(fb[i]) != bits_of(static_cast<float>(b[i]));
    bad += bits_of(fb[i]) != i << 16;  // bfloat16 -> float is bit extension, signalling NaNs too
  }
  CHECK(bad == 0);
  CHECK(bits_of(fh[0x7c01]) == 0x7fc02000u);  // half: a signalling NaN comes out quiet (F16C)
  // half -> double, through convert and the streamed form (an unaligned destination).
  std::vector<double> dh(65536), dhs(65537);
  convert(exec::seq, h, dh);
  const bool streamed = detail::simd_convert_streamed(h.data(), dhs.data() + 1, 65536);
  for (std::uint32_t i = 0; i < 65536; ++i) {
    bad += bits_of(dh[i]) != bits_of(round_to<double>(h[i]));
    if (streamed) bad += bits_of(dhs[i + 1]) != bits_of(round_to<double>(h[i]));
  }
  CHECK(bits_of(dh[0x7c01]) == 0x7ff8040000000000ull);  // quiet, payload kept at the top
  CHECK(bits_of(dh[0x8001]) == bits_of(-0x1p-24));
  // And back: every half/bfloat16 value (as a float) converts back to itself (NaN: quieted).
  std::vector<half> h2(65536);
  std::vector<bfloat16> b2(65536);
  convert(exec::seq, fh, h2);
  convert(exec::seq, fb, b2);
  for (std::uint32_t i = 0; i < 65536; ++i) {
    bad += h2[i].bits() != round_to<half>(fh[i]).bits();
    bad += b2[i].bits() != round_to<bfloat16>(fb[i]).bits();
  }
  CHECK(bad == 0);
}

TEST_CASE("convert: double -> half on every midpoint between halves and its neighbours") {
  // Every tie of half (as an exact double) and the doubles one ulp either side: where a double
  // rounding through float would go wrong (the fast path rounds to odd first to avoid it).
  std::vector<double> src;
  for (std::uint32_t b = 0; b < 0x7c00; ++b) {
    const double lo = static_cast<double>(half::from_bits(static_cast<std::uint16_t>(b)));
    const double hi = b + 1 == 0x7c00 ? 65536.0 : static_cast<double>(half::from_bits(static_cast<std::uint16_t>(b + 1)));
    const double mid = (lo + hi) / 2;  // exact in double
    for (double v : {mid, std::nextafter(mid, 0.0), std::nextafter(mid, 1e300), lo + (hi - lo) * 0.25}) {
      src.push_back(v);
      src.push_back(-v);
    }
  }
  std::vector<half> got(src.size());
  convert(exec::par, src, got);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < src.size(); ++i) bad += got[i].bits() != round_to<half>(src[i]).bits();
  CHECK(bad == 0);
  // And against the direct definition on a few: the tie 65520 goes to +inf, just below to 65504.
  CHECK(round_to<half>(65520.0).bits() == 0x7c00);
  CHECK(round_to<half>(std::nextafter(65520.0, 0.0)).bits() == 0x7bff);
}

namespace {

template <class D, class S>
void check_streamed(const std::vector<S>& all) {
  for (std::size_t n : ktest::awkward_sizes()) {
    for (std::size_t first : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
      for (std::size_t out_off : {std::size_t{0}, std::size_t{1}, std::size_t{5}}) {  // unaligned destinations
        if (first + n > all.size()) continue;
        std::vector<D> got(n + out_off + 2, D::from_bits(0x1234));
        if (!detail::simd_convert_streamed(all.data() + first, got.data() + out_off, n)) return;
        std::size_t bad = 0;
        for (std::size_t i = 0; i < n; ++i) bad += got[out_off + i].bits() != round_to<D>(all[first + i]).bits();
        for (std::size_t i = 0; i < out_off; ++i) bad += got[i].bits() != 0x1234;
        bad += got[out_off + n].bits() != 0x1234;
        INFO("n = " << n << ", first = " << first << ", destination offset = " << out_off);
        CHECK(bad == 0);
      }
    }
  }
}

}  // namespace

TEST_CASE("convert: the streamed (non-temporal) fast paths equal round_to, and convert streams large arrays") {
  const auto f = ktest::mixed_floats(40010, 13);
  const auto d = ktest::mixed_doubles(40010, 14);
  check_streamed<half>(f);
  check_streamed<bfloat16>(f);
  check_streamed<half>(d);
  check_streamed<bfloat16>(d);
  // 36 MiB of source plus destination: past detail::simd_stream_min_bytes, so convert streams.
  const std::size_t n = 6u << 20;
  static_assert((6u << 20) * 6 >= detail::simd_stream_min_bytes, "large enough to stream");
  std::vector<float> big(n);
  for (std::size_t i = 0; i < n; ++i) big[i] = f[i % f.size()] * static_cast<float>(1 + i / f.size());
  std::vector<bfloat16> b(n);
  std::vector<half> h(n);
  convert(exec::par(2), big, b);
  convert(exec::seq, big, h);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    bad += b[i].bits() != round_to<bfloat16>(big[i]).bits();
    bad += h[i].bits() != round_to<half>(big[i]).bits();
  }
  CHECK(bad == 0);
}

#if defined(MIXPREC_SIMD_X86)
#include <xmmintrin.h>

TEST_CASE("convert: every level gives the same bits under any MXCSR rounding mode, DAZ and FTZ") {
  // Subnormal floats (a stride through all of them, both signs) and their neighbours, doubles
  // near them and near the float/half/bfloat16 ties: where DAZ, FTZ or the rounding mode would change
  // an instruction's result.
  std::vector<float> f;
  for (std::uint32_t u = 0; u < (1u << 24); u += 61) {
    for (std::uint32_t v : {u, u | 0x80000000u, u + 0x3f000000u}) {
      float x;
      std::memcpy(&x, &v, 4);
      f.push_back(x);
    }
  }
  std::vector<double> d;
  for (float x : f) {
    d.push_back(static_cast<double>(x) * 1.0000001);
    d.push_back(static_cast<double>(x) * (1 + 0x1p-30));
  }
  std::vector<half> hcodes(65536);
  std::vector<bfloat16> bcodes(65536);
  for (std::uint32_t i = 0; i < 65536; ++i) {
    hcodes[i] = half::from_bits(static_cast<std::uint16_t>(i));
    bcodes[i] = bfloat16::from_bits(static_cast<std::uint16_t>(i));
  }
  const ktest::csr_guard guard;
  for (unsigned bits : {0x0000u, 0x0040u, 0x8000u, 0x8040u, 0x2000u, 0x4000u, 0x6000u, 0x6040u}) {
    std::vector<half> h(f.size()), hd(d.size());
    std::vector<bfloat16> b(f.size()), bd(d.size());
    std::vector<float> fh(65536), fb(65536);
    std::vector<double> dh(65536);
    for (detail::simd_level l : {detail::simd_level::avx2, detail::simd_level::avx512, detail::simd_level::avx512_bf16}) {
      if (!detail::simd_level_compiled(l)) continue;
      _mm_setcsr((guard.saved & ~0xe040u) | bits);
      const bool fh_ok = detail::simd_convert_at(l, f.data(), h.data(), f.size());
      const bool fb_ok = detail::simd_convert_at(l, f.data(), b.data(), f.size());
      const bool dh_ok = detail::simd_convert_at(l, d.data(), hd.data(), d.size());
      const bool db_ok = detail::simd_convert_at(l, d.data(), bd.data(), d.size());
      const bool hf_ok = detail::simd_convert_at(l, hcodes.data(), fh.data(), 65536);
      const bool bf_ok = detail::simd_convert_at(l, bcodes.data(), fb.data(), 65536);
      const bool hd_ok = detail::simd_convert_at(l, hcodes.data(), dh.data(), 65536);
      _mm_setcsr(guard.saved);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < f.size(); ++i) {
        if (fh_ok) bad += h[i].bits() != round_to<half>(f[i]).bits();
        if (fb_ok) bad += b[i].bits() != round_to<bfloat16>(f[i]).bits();
      }
      for (std::size_t i = 0; i < d.size(); ++i) {
        if (dh_ok) bad += hd[i].bits() != round_to<half>(d[i]).bits();
        if (db_ok) bad += bd[i].bits() != round_to<bfloat16>(d[i]).bits();
      }
      for (std::uint32_t i = 0; i < 65536; ++i) {
        if (hf_ok) bad += bits_of(fh[i]) != bits_of(static_cast<float>(hcodes[i]));
        if (bf_ok) bad += bits_of(fb[i]) != bits_of(static_cast<float>(bcodes[i]));
        if (hd_ok) bad += bits_of(dh[i]) != bits_of(round_to<double>(hcodes[i]));
      }
      INFO("MXCSR bits " << std::hex << bits << ", level " << std::string(detail::simd_level_name(l)));
      CHECK(bad == 0);
      CHECK((db_ok || (bits & 0x8040u) != 0 || !level_converts_modes(l)));  // declines only under FTZ or DAZ
    }
  }
}
#endif

#if defined(MIXPREC_SIMD_X86)
namespace {

double double_of(std::uint64_t u) { return mixprec::detail::bit_cast<double>(u); }

/// double -> half inputs where an instruction could differ from round_to: every half value and
/// every midpoint between neighbours (the overflow threshold 65520 and the tie 2^-25 with zero
/// included) with the doubles 1 ulp either side and a sticky bit at a few positions below; every
/// NaN class (both signs, quiet and signalling, one payload bit at each of the 51 positions, the
/// payload all ones, payloads only below the 9 bits half keeps, random payloads); infinities,
/// signed zeros, double subnormals, the ends of the double range.
std::vector<double> d2h_awkward_doubles() {
  std::vector<std::uint64_t> u;
  for (std::uint32_t c = 0; c < 0x7c00; ++c) {
    const double lo = static_cast<double>(half::from_bits(static_cast<std::uint16_t>(c)));
    const double hi =
        c + 1 == 0x7c00 ? 65536.0 : static_cast<double>(half::from_bits(static_cast<std::uint16_t>(c + 1)));
    const double mid = (lo + hi) / 2;  // exact
    for (std::uint64_t b : {bits_of(lo), bits_of(mid)}) {
      u.push_back(b);
      u.push_back(b + 1);
      for (int j : {20, 28, 29, 30, 41, 42, 43}) u.push_back(b + (std::uint64_t{1} << j));
      if (b != 0) {
        u.push_back(b - 1);
        for (int j : {20, 28, 29, 30, 41, 42, 43}) u.push_back(b - (std::uint64_t{1} << j));
      }
    }
  }
  std::mt19937_64 g(15);
  for (std::uint64_t q : {std::uint64_t{0}, std::uint64_t{1} << 51}) {
    for (int j = 0; j < 51; ++j) u.push_back(0x7ff0000000000000ull | q | (std::uint64_t{1} << j));
    u.push_back(0x7ff0000000000000ull | q | 0x7ffffffffffffull);
    u.push_back(0x7ff0000000000000ull | q | 0x3ffffffffffull);  // payload below the kept bits only
    for (int k = 0; k < 200; ++k) u.push_back(0x7ff0000000000000ull | q | (g() & 0x7ffffffffffffull) | (q == 0));
  }
  for (std::uint64_t b : {0x0ull, 0x1ull, 0x2ull, 0x000fffffffffffffull, 0x0008000000000000ull, 0x0010000000000000ull,
                          0x7fefffffffffffffull, 0x7ff0000000000000ull, 0x40effc0000000000ull /* 65504 */,
                          0x40f0000000000000ull /* 65536 */, 0x3e70000000000000ull /* 2^-24 */}) {
    u.push_back(b);
  }
  for (int k = 0; k < 2000; ++k) u.push_back(g() & 0x000fffffffffffffull);                 // double subnormals
  for (int k = 0; k < 2000; ++k) u.push_back((g() & 0x000fffffffffffffull) | ((900 + g() % 150) << 52));  // tiny normals
  const std::size_t n = u.size();
  for (std::size_t i = 0; i < n; ++i) u.push_back(u[i] | (std::uint64_t{1} << 63));
  std::vector<double> v;
  for (std::uint64_t b : u) v.push_back(double_of(b));
  return v;
}

}  // namespace

TEST_CASE("convert: double -> half at every level on half boundaries, NaN classes and subnormals, any MXCSR") {
  const std::vector<double> d = d2h_awkward_doubles();
  std::vector<std::uint16_t> want(d.size());
  for (std::size_t i = 0; i < d.size(); ++i) want[i] = round_to<half>(d[i]).bits();
  // Spot checks of the NaN rule: quiet, sign and the 9 leading payload bits kept.
  CHECK(round_to<half>(double_of(0x7ff0000000000001ull)).bits() == 0x7e00);   // sNaN, payload below: quiet
  CHECK(round_to<half>(double_of(0xfff4000000000000ull)).bits() == 0xff00);   // -sNaN, top payload bit
  CHECK(round_to<half>(double_of(0x7ffffc0000000000ull)).bits() == 0x7fff);
  const ktest::csr_guard guard;
  // Every rounding mode with DAZ and FTZ off, on and both; then all exceptions unmasked.
  std::vector<unsigned> settings;
  for (unsigned rc = 0; rc < 4; ++rc) {
    for (unsigned dazftz : {0x0000u, 0x0040u, 0x8000u, 0x8040u}) settings.push_back((rc << 13) | dazftz);
  }
  for (unsigned bits : settings) {
    for (detail::simd_level l : {detail::simd_level::avx2, detail::simd_level::avx512, detail::simd_level::avx512_bf16}) {
      if (!detail::simd_level_compiled(l)) continue;
      std::vector<half> got(d.size());
      _mm_setcsr((guard.saved & ~0xe040u) | bits);
      const bool ok = detail::simd_convert_at(l, d.data(), got.data(), d.size());
      _mm_setcsr(guard.saved);
      if (!ok) continue;  // no double -> half at this level (an AVX + F16C build without AVX2)
      std::size_t bad = 0;
      for (std::size_t i = 0; i < d.size(); ++i) {
        if (got[i].bits() != want[i] && bad++ < 3) {
          MESSAGE("input " << std::hex << bits_of(d[i]) << " got " << got[i].bits() << " want " << want[i]);
        }
      }
      INFO("MXCSR bits " << std::hex << bits << ", level " << std::string(detail::simd_level_name(l)));
      CHECK(bad == 0);
    }
    // The streamed form (the best level; an unaligned destination).
    std::vector<half> got(d.size() + 1);
    _mm_setcsr((guard.saved & ~0xe040u) | bits);
    const bool ok = detail::simd_convert_streamed(d.data(), got.data() + 1, d.size());
    _mm_setcsr(guard.saved);
    std::size_t bad = 0;
    for (std::size_t i = 0; ok && i < d.size(); ++i) bad += got[i + 1].bits() != want[i];
    INFO("MXCSR bits " << std::hex << bits << ", streamed");
    CHECK(bad == 0);
  }
#if defined(MIXPREC_SIMD_AVX512) && defined(__AVX512BF16__) && defined(__AVX512FP16__)
  // The best level's vcvtpd2ph {rn-sae} with every exception unmasked: no trap, the same bits
  // (the round-to-odd forms make no such promise: vcvtpd2ps / vcvtps2pd may raise).
  std::vector<half> got(d.size());
  _mm_setcsr(guard.saved & ~0x1f80u);
  convert(exec::seq, d, got);
  _mm_setcsr(guard.saved);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < d.size(); ++i) bad += got[i].bits() != want[i];
  CHECK(bad == 0);
#endif
}
#endif

namespace {

float float_from_bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// Floats that exercise every branch of the generic encoder (simd/encode.hpp): every exponent with
// boundary, midpoint and random mantissas, both signs, zeros, infinities, NaNs with payloads,
// float subnormals, then N(0,1) * 2^k runs (whole vectors of normals: the common-case path).
std::vector<float> encoder_floats() {
  std::vector<float> v;
  std::uint32_t state = 12345;
  const auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return state;
  };
  for (std::uint32_t e = 0; e < 256; ++e) {
    for (std::uint32_t m : {0u, 1u, 2u, 0x7fffffu, 0x400000u, 0x3fffffu, 0x400001u, 0x200000u, 0x100000u, 0x80000u,
                            0x40000u, 0x20000u, 0x10000u, 0x8000u, 0x1000u, 0xfffu, 0x2000u, 0x1fffu, 0x6000u,
                            0x5000u, 0x3000u}) {
      for (std::uint32_t s : {0u, 1u}) {
        const std::uint32_t b = (s << 31) | (e << 23) | m;
        v.push_back(float_from_bits(b));
        for (int k = 0; k < 3; ++k) v.push_back(float_from_bits(b ^ (next() & 0x7fffffu)));
      }
    }
  }
  double z = 0.1;
  for (int i = 0; i < 4096; ++i) {
    z = std::fmod(z * 9.87654321 + 0.123, 4.0) - 2.0;
    v.push_back(static_cast<float>(std::ldexp(z, static_cast<int>(next() % 17) - 8)));
  }
  return v;
}

template <class D>
void check_modes_at_every_level(const std::vector<float>& src) {
  for (detail::simd_level l : {detail::simd_level::avx2, detail::simd_level::avx512}) {
    if (!level_converts_modes(l)) continue;
    for (rounding mode : {rounding::nearest_even, rounding::nearest_away, rounding::toward_zero, rounding::upward,
                          rounding::downward, rounding::to_odd, rounding::stochastic}) {
      for (overflow ovf : {overflow::ieee, overflow::saturate}) {
        // both generators; Philox from counters inside a block and across the carry into the
        // block counter's high word
        struct gen {
          rng_kind kind;
          std::uint64_t seed, counter;
        };
        const gen gens[] = {{rng_kind::splitmix64, 7, 99},
                            {rng_kind::philox4x32_10, 0x0123456789abcdefull, 5},
                            {rng_kind::philox4x32_10, 7, (std::uint64_t{1} << 34) - 13}};
        for (const gen& g : gens) {
        if (g.kind != rng_kind::splitmix64 && mode != rounding::stochastic) continue;
        for (std::size_t first : {std::size_t{0}, std::size_t{3}}) {
          const std::size_t n = src.size() - first;
          std::vector<D> got(n);
          const sr_rng rng(g.kind, g.seed);
          INFO("level " << std::string(detail::simd_level_name(l)) << ", mode " << to_string(mode) << ", " << to_string(ovf)
                        << ", first " << first << ", generator " << static_cast<int>(g.kind));
          REQUIRE(detail::simd_convert_modes_at(l, src.data() + first, got.data(), n, mode, ovf, rng, g.counter));
          std::size_t bad = 0;
          for (std::size_t i = 0; i < n; ++i) {
            const D want = round_to<D>(src[first + i], mode, ovf, rng(g.counter + i));
            if (want.bits() != got[i].bits() && bad++ < 3) {
              MESSAGE("float " << std::hex << bits_of(src[first + i]) << ": got " << got[i].bits() << " want " << want.bits());
            }
          }
          CHECK(bad == 0);
        }
        }
      }
    }
  }
}

template <class T>
void check_decode_at_every_level(bool avx2_declines = false) {
  std::vector<T> codes(256 * 3 + 5);
  for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = T::from_bits(static_cast<std::uint8_t>(i * 37 + i / 256));
  for (detail::simd_level l : {detail::simd_level::avx2, detail::simd_level::avx512}) {
    if (!level_converts_modes(l)) continue;
    for (std::size_t first : {std::size_t{0}, std::size_t{1}}) {
      const std::size_t n = codes.size() - first;
      std::vector<float> got(n);
      INFO("level " << std::string(detail::simd_level_name(l)) << ", first " << first);
      const bool ok = detail::simd_convert_modes_at(l, codes.data() + first, got.data(), n, rounding::nearest_even,
                                                    overflow::ieee, sr_rng(rng_kind::splitmix64, 0), 0);
      if (avx2_declines && l == detail::simd_level::avx2) {
        CHECK_FALSE(ok);  // no word permutes: only the table lookup of the avx512 width takes it
        continue;
      }
      REQUIRE(ok);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < n; ++i) bad += bits_of(got[i]) != bits_of(round_to<float>(codes[first + i]));
      CHECK(bad == 0);
    }
  }
}

}  // namespace

TEST_CASE("convert: the generic SIMD encoder equals round_to in every mode and policy, at every compiled level") {
  const std::vector<float> src = encoder_floats();
  check_modes_at_every_level<half>(src);
  check_modes_at_every_level<bfloat16>(src);
  check_modes_at_every_level<float8_e4m3fn>(src);
  check_modes_at_every_level<float8_e5m2>(src);
  check_modes_at_every_level<float8_e4m3fnuz>(src);
  check_modes_at_every_level<float8_e5m2fnuz>(src);
  check_modes_at_every_level<float8_e4m3>(src);
  check_modes_at_every_level<float8_e3m4>(src);
  check_modes_at_every_level<float8_e4m3b11fnuz>(src);
  check_modes_at_every_level<float6_e2m3fn>(src);
  check_modes_at_every_level<float6_e3m2fn>(src);
  check_modes_at_every_level<float4_e2m1fn>(src);
  check_modes_at_every_level<float4_e1m2>(src);
  check_modes_at_every_level<float8_ue4m3>(src);  // unsigned: negative numbers are the NaN, -0 is 0
  check_modes_at_every_level<float8_ue5m3>(src);
  check_modes_at_every_level<float8_e8m0fnu>(src);  // exponent only
  check_modes_at_every_level<tf32>(src);  // 32-bit storage: the code above 13 padding bits
}

TEST_CASE("convert: float -> tf32 through mixprec::convert equals round_to, independent values") {
  // round_to's bits in every mode and policy, sizes 0..40 and awkward ones, 1-3 threads
  const std::vector<float> src = encoder_floats();
  for (rounding mode : {rounding::nearest_even, rounding::nearest_away, rounding::toward_zero, rounding::upward,
                        rounding::downward, rounding::to_odd, rounding::stochastic}) {
    for (overflow ovf : {overflow::ieee, overflow::saturate}) check_pair<tf32>(src, mode, ovf);
  }
  // values from the definition (10 fraction bits kept, the 13 below them zero in the storage)
  const std::vector<float> x{1.0f, float_from_bits(0x3f801000u), float_from_bits(0x3f803000u), float_from_bits(0x3f801001u),
                             float_from_bits(0xbf801000u), float_from_bits(0x7f7fffffu), float_from_bits(0x00000fffu),
                             float_from_bits(0x7f800001u), -0.0f};
  std::vector<tf32> t(x.size());
  convert(exec::seq, x, t);
  CHECK(t[0].bits() == 0x3f800000u);
  CHECK(t[1].bits() == 0x3f800000u);  // tie to even
  CHECK(t[2].bits() == 0x3f804000u);  // tie to even, upward
  CHECK(t[3].bits() == 0x3f802000u);  // above the tie
  CHECK(t[4].bits() == 0xbf800000u);
  CHECK(t[5].bits() == 0x7f800000u);  // overflow: infinity
  CHECK(t[6].bits() == 0x00000000u);  // below half of the least subnormal's quantum (2^-136)
  CHECK(t[8].bits() == 0x80000000u);
  CHECK((t[7].bits() & 0xffffe000u) == t[7].bits());  // a NaN, padding zero
  CHECK((t[7].bits() & 0x7fc00000u) == 0x7fc00000u);
  convert(exec::seq, x, t, rounding::toward_zero, overflow::saturate);
  CHECK(t[3].bits() == 0x3f800000u);
  CHECK(t[5].bits() == 0x7f7fe000u);  // tf32's largest value
  convert(exec::seq, x, t, rounding::upward);
  CHECK(t[3].bits() == 0x3f802000u);
  CHECK(t[6].bits() == 0x00002000u);  // the least subnormal, 2^-136
}

TEST_CASE("convert: the generic SIMD decoder equals round_to<float> on every code, at every compiled level") {
  check_decode_at_every_level<float8_e4m3fn>();
  check_decode_at_every_level<float8_e5m2>();
  check_decode_at_every_level<float8_e4m3fnuz>();
  check_decode_at_every_level<float8_e5m2fnuz>();
  check_decode_at_every_level<float8_e4m3>();
  check_decode_at_every_level<float8_e3m4>();
  check_decode_at_every_level<float8_e4m3b11fnuz>();
  check_decode_at_every_level<float6_e2m3fn>();
  check_decode_at_every_level<float6_e3m2fn>();
  check_decode_at_every_level<float4_e2m1fn>();
  check_decode_at_every_level<float4_e1m2>();
  check_decode_at_every_level<float8_ue4m3>();  // seven bits, bit 7 ignored
  check_decode_at_every_level<float8_ue5m3>();      // the 256-entry table (byte lookup or gather)
  check_decode_at_every_level<float8_e8m0fnu>();    // code 0: 2^-127, a float subnormal; 255: the NaN
}

TEST_CASE("convert: e8m0 and ue5m3 decode through mixprec::convert on all 256 codes, any size and thread count") {
  const auto run = [](auto tag) {
    using T = decltype(tag);
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{15}, std::size_t{17}, std::size_t{63},
                          std::size_t{256}, std::size_t{256 * 5 + 3}}) {
      std::vector<T> codes(n);
      for (std::size_t i = 0; i < n; ++i) codes[i] = T::from_bits(static_cast<std::uint8_t>(i * 101 + i / 256));
      for (int threads : {1, 2, 3}) {
        std::vector<float> got(n);
        if (threads == 1) {
          convert(exec::seq, codes, got);
        } else {
          convert(exec::par(static_cast<unsigned>(threads)), codes, got);
        }
        std::size_t bad = 0;
        for (std::size_t i = 0; i < n; ++i) bad += bits_of(got[i]) != bits_of(round_to<float>(codes[i]));
        INFO("n " << n << ", threads " << threads);
        CHECK(bad == 0);
      }
    }
    // independent values: e8m0 code c is 2^(c - 127), 255 a NaN; ue5m3 0x78 (exponent 15, bias 15) is 1
    std::vector<T> one{T::from_bits(0x7f), T::from_bits(0x80), T::from_bits(0x00), T::from_bits(0x78)};
    std::vector<float> f(one.size());
    convert(exec::seq, one, f);
    return f;
  };
  const std::vector<float> e = run(float8_e8m0fnu{});
  CHECK(bits_of(e[0]) == 0x3f800000u);
  CHECK(bits_of(e[1]) == 0x40000000u);
  CHECK(bits_of(e[2]) == 0x00400000u);  // 2^-127
  const std::vector<float> u = run(float8_ue5m3{});
  CHECK(bits_of(u[3]) == 0x3f800000u);
  CHECK(bits_of(u[2]) == 0u);
}

TEST_CASE("convert: every mode and policy through mixprec::convert, any thread count (generic encoder, decoder)") {
  const std::vector<float> src = encoder_floats();
  for (rounding mode : {rounding::nearest_away, rounding::upward, rounding::to_odd, rounding::stochastic}) {
    for (overflow ovf : {overflow::ieee, overflow::saturate}) {
      check_pair<half>(src, mode, ovf);
      check_pair<float8_e4m3fn>(src, mode, ovf);
      check_pair<float4_e2m1fn>(src, mode, ovf);
      check_pair<float8_ue4m3>(src, mode, ovf);
      check_pair<float8_e8m0fnu>(src, mode, ovf);
    }
  }
  std::vector<float8_e4m3fn> e(src.size());
  convert(exec::seq, src, e, rounding::toward_zero);
  check_pair<float>(e, rounding::nearest_even, overflow::ieee);
}

#if defined(MIXPREC_SIMD_X86)
TEST_CASE("convert: the generic encoder and the half hardware modes give the same bits under any MXCSR setting") {
  // float subnormals, half subnormals and ties, near half's and e4m3fn's overflow, both signs
  std::vector<float> f;
  for (std::uint32_t u = 0; u < (1u << 23); u += 4093) {
    for (std::uint32_t v : {u, u + 0x33000000u, u + 0x38000000u, u + 0x3f000000u, u + 0x43800000u, u + 0x47000000u}) {
      f.push_back(float_from_bits(v));
      f.push_back(float_from_bits(v | 0x80000000u));
    }
  }
  const ktest::csr_guard guard;
  const auto run = [&](auto tag) {
    using D = decltype(tag);
    for (rounding mode : {rounding::nearest_even, rounding::nearest_away, rounding::toward_zero, rounding::upward,
                          rounding::downward, rounding::to_odd, rounding::stochastic}) {
      for (overflow ovf : {overflow::ieee, overflow::saturate}) {
        const sr_rng rng(rng_kind::splitmix64, 3);
        std::vector<D> want(f.size());
        for (std::size_t i = 0; i < f.size(); ++i) want[i] = round_to<D>(f[i], mode, ovf, rng(i));
        for (unsigned bits : {0x0000u, 0x0040u, 0x8000u, 0x8040u, 0x2000u, 0x4000u, 0x6000u, 0x6040u}) {
          for (detail::simd_level l : {detail::simd_level::avx2, detail::simd_level::avx512}) {
            if (!level_converts_modes(l)) continue;
            std::vector<D> got(f.size());
            _mm_setcsr((guard.saved & ~0xe040u) | bits);
            const bool ok = detail::simd_convert_modes_at(l, f.data(), got.data(), f.size(), mode, ovf, rng, 0);
            _mm_setcsr(guard.saved);
            REQUIRE(ok);
            std::size_t bad = 0;
            for (std::size_t i = 0; i < f.size(); ++i) bad += got[i].bits() != want[i].bits();
            INFO("MXCSR bits " << std::hex << bits << ", level " << std::string(detail::simd_level_name(l)) << ", mode "
                               << to_string(mode) << ", " << to_string(ovf));
            CHECK(bad == 0);
          }
        }
      }
    }
  };
  run(half{});
  run(bfloat16{});
  run(float8_e4m3fn{});
  run(tf32{});
}
#endif

namespace {

// Doubles for the double -> F encoder (kernels/detail/simd_narrow8.hpp's encode_doubles): every
// float of encoder_floats() and its two double neighbours (ties of F broken by bits below
// float's precision), doubles of every exponent (subnormal, below float's range, beyond it,
// infinities, NaNs with payloads) with random mantissas, both signs.
std::vector<double> encoder_doubles() {
  std::vector<double> v;
  const double inf = std::numeric_limits<double>::infinity();
  for (float f : encoder_floats()) {
    const double x = static_cast<double>(f);
    v.push_back(x);
    v.push_back(std::nextafter(x, 0.0));
    v.push_back(std::nextafter(x, x < 0 ? -inf : inf));
  }
  std::uint64_t state = 777;
  for (std::uint64_t e = 0; e < 2048; e += 3) {
    for (int k = 0; k < 6; ++k) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      const std::uint64_t b = (state & 0x800fffffffffffffull) | (e << 52);
      double x;
      std::memcpy(&x, &b, sizeof x);
      v.push_back(x);
    }
  }
  return v;
}

template <class D>
void check_double_modes_at_every_level(const std::vector<double>& src) {
  for (detail::simd_level l : {detail::simd_level::avx2, detail::simd_level::avx512}) {
    if (!level_converts_modes(l)) continue;
    for (rounding mode : {rounding::nearest_even, rounding::nearest_away, rounding::toward_zero, rounding::upward,
                          rounding::downward, rounding::to_odd, rounding::stochastic}) {
      for (overflow ovf : {overflow::ieee, overflow::saturate}) {
        for (std::size_t first : {std::size_t{0}, std::size_t{5}}) {
          const std::size_t n = src.size() - first;
          std::vector<D> got(n);
          const sr_rng rng(rng_kind::splitmix64, 7);
          INFO("level " << std::string(detail::simd_level_name(l)) << ", mode " << to_string(mode) << ", " << to_string(ovf)
                        << ", first " << first);
          const bool ok = detail::simd_convert_modes_at(l, src.data() + first, got.data(), n, mode, ovf, rng, 0);
          REQUIRE(ok);
          std::size_t bad = 0;
          for (std::size_t i = 0; i < n; ++i) {
            const D want = round_to<D>(src[first + i], mode, ovf, mode == rounding::stochastic ? rng(i) : 0u);
            if (want.bits() != got[i].bits() && bad++ < 3) {
              MESSAGE("double " << std::hex << bits_of(src[first + i]) << ": got " << got[i].bits() << " want " << want.bits());
            }
          }
          CHECK(bad == 0);
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("convert: double sources in every mode but stochastic and either policy equal round_to, at every level") {
  const std::vector<double> src = encoder_doubles();
  check_double_modes_at_every_level<half>(src);
  check_double_modes_at_every_level<bfloat16>(src);
  check_double_modes_at_every_level<float8_e4m3fn>(src);
  check_double_modes_at_every_level<float8_e5m2>(src);
  check_double_modes_at_every_level<float8_e4m3fnuz>(src);
  check_double_modes_at_every_level<float8_e5m2fnuz>(src);
  check_double_modes_at_every_level<float8_e4m3>(src);
  check_double_modes_at_every_level<float8_e3m4>(src);
  check_double_modes_at_every_level<float6_e2m3fn>(src);
  check_double_modes_at_every_level<float6_e3m2fn>(src);
  check_double_modes_at_every_level<float4_e2m1fn>(src);
  check_double_modes_at_every_level<float4_e1m2>(src);
  check_double_modes_at_every_level<float8_ue4m3>(src);
  check_double_modes_at_every_level<float8_ue5m3>(src);
  // through mixprec::convert: awkward sizes, unaligned starts, 1/2/3 threads
  for (rounding mode : {rounding::nearest_even, rounding::nearest_away, rounding::toward_zero, rounding::upward,
                        rounding::downward, rounding::to_odd, rounding::stochastic}) {
    for (overflow ovf : {overflow::ieee, overflow::saturate}) {
      check_pair<half>(src, mode, ovf);
      check_pair<bfloat16>(src, mode, ovf);
      check_pair<float8_e4m3fn>(src, mode, ovf);
      check_pair<float4_e2m1fn>(src, mode, ovf);
    }
  }
}

#if defined(MIXPREC_SIMD_X86)
TEST_CASE("convert: double sources in every deterministic mode give round_to's bits under any MXCSR setting") {
  const std::vector<double> src = encoder_doubles();
  const ktest::csr_guard guard;
  const auto run = [&](auto tag) {
    using D = decltype(tag);
    for (rounding mode : {rounding::nearest_even, rounding::nearest_away, rounding::toward_zero, rounding::upward,
                          rounding::downward, rounding::to_odd}) {
      std::vector<D> want(src.size());
      for (std::size_t i = 0; i < src.size(); ++i) want[i] = round_to<D>(src[i], mode, overflow::saturate);
      for (unsigned bits : {0x0000u, 0x0040u, 0x8000u, 0x8040u, 0x2000u, 0x4000u, 0x6000u, 0x6040u}) {
        std::vector<D> got(src.size());
        _mm_setcsr((guard.saved & ~0xe040u) | bits);
        convert(exec::seq, src, got, mode, overflow::saturate);
        _mm_setcsr(guard.saved);
        std::size_t bad = 0;
        for (std::size_t i = 0; i < src.size(); ++i) bad += got[i].bits() != want[i].bits();
        INFO("MXCSR bits " << std::hex << bits << ", mode " << to_string(mode));
        CHECK(bad == 0);
      }
    }
  };
  run(half{});
  run(bfloat16{});
  run(float8_e4m3fn{});
  run(float8_e5m2{});
  run(float4_e2m1fn{});
}
#endif

TEST_CASE("convert: FP8/FP6/FP4 decode into every alignment of the destination equals round_to<float>") {
  const auto run = [](auto tag) {
    using T = decltype(tag);
    std::vector<T> codes(256 * 2 + 37);
    for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = T::from_bits(static_cast<std::uint8_t>(i * 101 + 7));
    for (std::size_t off = 0; off < 17; ++off) {
      for (std::size_t n : {std::size_t{1}, std::size_t{15}, std::size_t{63}, std::size_t{64}, std::size_t{65},
                            std::size_t{200}, codes.size()}) {
        std::vector<float> out(n + 17, 1.5f);
        convert(exec::seq, span<const T>(codes.data(), n), span<float>(out.data() + off, n));
        std::size_t bad = 0;
        for (std::size_t i = 0; i < n; ++i) bad += bits_of(out[off + i]) != bits_of(round_to<float>(codes[i]));
        for (std::size_t i = 0; i < off; ++i) bad += bits_of(out[i]) != bits_of(1.5f);  // nothing outside written
        for (std::size_t i = off + n; i < out.size(); ++i) bad += bits_of(out[i]) != bits_of(1.5f);
        INFO("offset " << off << ", n " << n);
        CHECK(bad == 0);
      }
    }
  };
  run(float8_e4m3fn{});
  run(float8_e5m2{});
  run(float8_e4m3fnuz{});
  run(float8_e5m2fnuz{});
  run(float8_e4m3b11fnuz{});
  run(float6_e3m2fn{});
  run(float4_e2m1fn{});
}
