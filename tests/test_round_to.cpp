// SPDX-License-Identifier: MIT
// round_to: one rounding from the exact value of doubles, floats, integers and other mixprec
// types, in every mode and overflow policy, against the independent reference.
#include <doctest/doctest.h>

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <mixprec/explain.hpp>

#include "formats_list.hpp"

using mixprec::overflow;
using mixprec::rounding;

namespace {

constexpr rounding deterministic_modes[] = {rounding::nearest_even, rounding::nearest_away, rounding::toward_zero,
                                            rounding::upward,       rounding::downward,     rounding::to_odd};
constexpr overflow policies[] = {overflow::ieee, overflow::saturate};


/// Checks round_to<T>(x) against the reference for every deterministic mode and policy;
/// returns the number of disagreements (the first few are printed).
template <class T, class S>
int check_all_modes(S x, double exact, int& printed) {
  const ref::format& f = reftest::ref_of<T>();
  int bad = 0;
  for (rounding r : deterministic_modes) {
    for (overflow p : policies) {
      const double got = static_cast<double>(mixprec::round_to<T>(x, r, p));
      const double want = ref::round(f, exact, r, p);
      if (!ref::same(got, want)) {
        ++bad;
        if (printed++ < 8) {
          const std::string what = std::string(f.name) + " " + mixprec::to_string(r) + (p == overflow::saturate ? " sat" : " ieee");
          MESSAGE(what, ": x=", exact, " want ", want, " got ", got);
        }
      }
    }
  }
  return bad;
}

/// Random doubles spread over the format's range and a little beyond, both signs.
template <class T>
std::vector<double> random_doubles(std::size_t n, std::uint64_t seed) {
  const ref::format& f = reftest::ref_of<T>();
  std::mt19937_64 gen(seed);
  const int lo = std::ilogb(f.min_sub) - 3;
  const int hi = std::ilogb(f.max) + 2;
  std::uniform_int_distribution<int> exp(lo, hi);
  std::vector<double> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double m = 1.0 + static_cast<double>(gen() >> 12) * 0x1p-52;  // 53 random bits
    const double v = std::ldexp(m, exp(gen));
    out.push_back((gen() & 1) ? -v : v);
  }
  return out;
}

/// All positive finite values of T, ascending.
template <class T>
std::vector<double> positive_values() {
  const ref::format& f = reftest::ref_of<T>();
  std::vector<double> v;
  const std::uint64_t n = std::uint64_t{1} << (f.exp_bits + f.man_bits);
  for (std::uint64_t c = 0; c < n; ++c) {
    const double d = ref::decode(f, c);
    if (std::isfinite(d) && d > 0) v.push_back(d);
  }
  return v;
}

}  // namespace

TEST_CASE_TEMPLATE("random doubles round like the reference in every mode", T, MIXPREC_ALL_FORMATS) {
  int printed = 0, bad = 0;
  for (double x : random_doubles<T>(40000, 12345)) bad += check_all_modes<T>(x, x, printed);
  CHECK(bad == 0);
}

TEST_CASE_TEMPLATE("doubles beside a tie round once, not through float", T, MIXPREC_ALL_FORMATS) {
  // x = a midpoint between neighbours +- one double ulp: float would round x onto the
  // midpoint itself, and a second rounding would then break the tie, often the wrong way.
  const std::vector<double> v = positive_values<T>();
  const std::size_t step = v.size() > 4096 ? v.size() / 4096 : 1;
  int printed = 0, bad = 0, naive_wrong = 0;
  for (std::size_t i = 0; i + 1 < v.size(); i += step) {
    const double mid = (v[i] + v[i + 1]) / 2;
    for (double x : {std::nextafter(mid, 0.0), mid, std::nextafter(mid, INFINITY)}) {
      for (double s : {x, -x}) {
        bad += check_all_modes<T>(s, s, printed);
        const double correct = ref::round(reftest::ref_of<T>(), s, rounding::nearest_even, overflow::ieee);
        if (!ref::same(static_cast<double>(T(static_cast<float>(s))), correct)) ++naive_wrong;
      }
    }
  }
  CHECK(bad == 0);
  // The cases have teeth: converting through float gets many of them wrong (for formats with
  // at most 22 significant bits; every built-in format qualifies).
  CHECK(naive_wrong > 0);
}

TEST_CASE_TEMPLATE("floats round like the reference in every mode", T, MIXPREC_ALL_FORMATS) {
  std::mt19937 gen(99);
  int printed = 0, bad = 0;
  for (int i = 0; i < 40000; ++i) {
    const float x = mixprec::detail::bit_cast<float>(static_cast<std::uint32_t>(gen()));
    bad += check_all_modes<T>(x, static_cast<double>(x), printed);
  }
  for (float x : {0.0f, -0.0f, INFINITY, -INFINITY, std::numeric_limits<float>::quiet_NaN(),
                  -std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min(),
                  std::numeric_limits<float>::max(), -std::numeric_limits<float>::max()}) {
    bad += check_all_modes<T>(x, static_cast<double>(x), printed);
  }
  CHECK(bad == 0);
}

TEST_CASE_TEMPLATE("floats at and beside every tie, and spread over the range, round like the reference", T,
                   MIXPREC_ALL_FORMATS) {
  // The float fast path (detail/fast_float32.hpp) has separate code for normal results, results
  // below the smallest normal, and overflow: every midpoint between neighbours that float can hold
  // (F's subnormal and normal ranges, and the midpoint above max), one float ulp either side,
  // both signs; then random floats over F's exponent range.
  const std::vector<double> v = positive_values<T>();
  int printed = 0, bad = 0;
  std::size_t ties = 0;
  for (std::size_t i = 0; i + 1 < v.size(); ++i) {
    const double mid = (v[i] + v[i + 1]) / 2;
    const auto fm = static_cast<float>(mid);
    if (static_cast<double>(fm) != mid) continue;  // not a float (formats with > 22 bits, or out of range)
    ++ties;
    for (float x : {std::nextafter(fm, 0.0f), fm, std::nextafter(fm, INFINITY)}) {
      for (float sx : {x, -x}) bad += check_all_modes<T>(sx, static_cast<double>(sx), printed);
    }
  }
  for (double d : random_doubles<T>(20000, 777)) {
    const auto x = static_cast<float>(d);
    bad += check_all_modes<T>(x, static_cast<double>(x), printed);
  }
  CHECK(bad == 0);
  if (T::format_type::bits >= 4 && T::format_type::enc != mixprec::encoding::exponent_only) CHECK(ties > 0);
}

TEST_CASE_TEMPLATE("formats without mantissa bits: float and double inputs round alike, ties included", T,
                   mixprec::basic_float<mixprec::format<4, 0, mixprec::encoding::fn>>,
                   mixprec::basic_float<mixprec::format<3, 0, mixprec::encoding::finite>>,
                   mixprec::basic_float<mixprec::format<5, 0, mixprec::encoding::fnuz>>) {
  // Every float from 2^-40 up to 2^20 in steps of an eighth of a binade, the exact ties among
  // them: the float input must give what the same value as a double gives (one rule for ties).
  int bad = 0;
  for (int e = -40; e < 20; ++e) {
    for (int k = 0; k < 8; ++k) {
      const float x = std::ldexp(1.0f + static_cast<float>(k) / 8, e);
      for (float sx : {x, -x}) {
        for (overflow p : policies) {
          bad += mixprec::round_to<T>(sx, rounding::nearest_even, p).bits() !=
                 mixprec::round_to<T>(static_cast<double>(sx), rounding::nearest_even, p).bits();
        }
      }
    }
  }
  CHECK(bad == 0);
}

TEST_CASE_TEMPLATE("other mixprec types convert in one rounding", T, MIXPREC_ALL_FORMATS) {
  int printed = 0, bad = 0;
  for (std::uint32_t b = 0; b < 65536; b += 3) {
    const mixprec::half h = mixprec::half::from_bits(static_cast<std::uint16_t>(b));
    const mixprec::bfloat16 g = mixprec::bfloat16::from_bits(static_cast<std::uint16_t>(b));
    bad += check_all_modes<T>(h, static_cast<double>(h), printed);
    bad += check_all_modes<T>(g, static_cast<double>(g), printed);
  }
  for (std::uint32_t b = 0; b < 256; ++b) {
    const auto e = mixprec::float8_e4m3fn::from_bits(static_cast<std::uint8_t>(b));
    bad += check_all_modes<T>(e, static_cast<double>(e), printed);
  }
  CHECK(bad == 0);
}

namespace {
/// A 64-bit integer as a double rounded to odd at 53 bits, by hand: exact enough for the
/// reference to round it correctly to any format of at most 51 significant bits.
double to_odd_double(std::uint64_t u) {
  if (u < (std::uint64_t{1} << 53)) return static_cast<double>(u);
  int drop = 0;
  while ((u >> drop) >= (std::uint64_t{1} << 53)) ++drop;
  std::uint64_t kept = u >> drop;
  if ((u & ((std::uint64_t{1} << drop) - 1)) != 0) kept |= 1;
  return std::ldexp(static_cast<double>(kept), drop);
}
}  // namespace

TEST_CASE_TEMPLATE("integers round once, never truncate", T, MIXPREC_ALL_FORMATS) {
  int printed = 0, bad = 0;
  for (int i = -70000; i <= 70000; ++i) bad += check_all_modes<T>(i, static_cast<double>(i), printed);
  std::mt19937_64 gen(7);
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t u = gen() >> (gen() % 64);
    bad += check_all_modes<T>(u, to_odd_double(u), printed);
    const auto s = static_cast<std::int64_t>(u >> 1);
    bad += check_all_modes<T>(-s, s == 0 ? 0.0 : -to_odd_double(static_cast<std::uint64_t>(s)), printed);
  }
  const std::int64_t big = std::numeric_limits<std::int64_t>::min();
  bad += check_all_modes<T>(big, -0x1p63, printed);
  bad += check_all_modes<T>(std::numeric_limits<std::uint64_t>::max(), to_odd_double(~std::uint64_t{0}), printed);
  bad += check_all_modes<T>(static_cast<signed char>(-128), -128.0, printed);
  bad += check_all_modes<T>(static_cast<unsigned short>(65535), 65535.0, printed);
  CHECK(bad == 0);
}

TEST_CASE("integer conversion examples") {
  CHECK(mixprec::bfloat16(257).bits() == 0x4380);  // 256: tie to even, not truncation
  CHECK(mixprec::bfloat16(259).bits() == 0x4382);  // 260
  CHECK(mixprec::bfloat16(std::numeric_limits<std::uint64_t>::max()).bits() == 0x5f80);  // 2^64
  CHECK(mixprec::bfloat16(std::numeric_limits<std::int64_t>::min()).bits() == 0xdf00);   // -2^63
  CHECK(mixprec::half(65519).bits() == 0x7bff);
  CHECK(mixprec::half(65520).bits() == 0x7c00);  // halfway to 2^16 rounds to infinity
  CHECK(mixprec::float8_e4m3fn(464).bits() == 0x7e);  // the tie above 448 goes to even 448
  CHECK(mixprec::float8_e4m3fn(465).bits() == 0x7f);  // beyond it: NaN (no infinity)
}

TEST_CASE("overflow follows IEEE 754 and the chosen policy") {
  using mixprec::half;
  using mixprec::round_to;
  CHECK(round_to<half>(1e6, rounding::nearest_even).bits() == 0x7c00);
  CHECK(round_to<half>(1e6, rounding::toward_zero).bits() == 0x7bff);
  CHECK(round_to<half>(1e6, rounding::upward).bits() == 0x7c00);
  CHECK(round_to<half>(1e6, rounding::downward).bits() == 0x7bff);
  CHECK(round_to<half>(-1e6, rounding::upward).bits() == 0xfbff);
  CHECK(round_to<half>(-1e6, rounding::downward).bits() == 0xfc00);
  CHECK(round_to<half>(-1e6, rounding::nearest_even, overflow::saturate).bits() == 0xfbff);
  CHECK(round_to<half>(-INFINITY, rounding::nearest_even, overflow::saturate).bits() == 0xfbff);
  using mixprec::float8_e4m3fn;
  CHECK(round_to<float8_e4m3fn>(1000.0f).bits() == 0x7f);
  CHECK(round_to<float8_e4m3fn>(-1000.0f).bits() == 0xff);
  CHECK(round_to<float8_e4m3fn>(-1000.0f, rounding::nearest_even, overflow::saturate).bits() == 0xfe);
  CHECK(round_to<float8_e4m3fn>(INFINITY).bits() == 0x7f);
  CHECK(round_to<float8_e4m3fn>(1000.0f, rounding::toward_zero).bits() == 0x7e);
  using mixprec::float8_e4m3fnuz;
  CHECK(round_to<float8_e4m3fnuz>(-0.0f).bits() == 0x00);
  CHECK(round_to<float8_e4m3fnuz>(-1e-9f).bits() == 0x00);  // underflow has no negative zero
  CHECK(round_to<float8_e4m3fnuz>(1000.0f).bits() == 0x80);
  CHECK(round_to<float8_e4m3fnuz>(std::numeric_limits<float>::quiet_NaN()).bits() == 0x80);
  using mixprec::float4_e2m1fn;
  CHECK(round_to<float4_e2m1fn>(100.0f).bits() == 0x7);  // MX elements always clamp
  CHECK(round_to<float4_e2m1fn>(-INFINITY).bits() == 0xf);
  CHECK(round_to<float4_e2m1fn>(std::numeric_limits<float>::quiet_NaN()).bits() == 0x7);
  using mixprec::float8_e8m0fnu;
  CHECK(round_to<float8_e8m0fnu>(0.0f).bits() == 0xff);  // no zero: NaN
  CHECK(round_to<float8_e8m0fnu>(-1.0f).bits() == 0xff);
  CHECK(round_to<float8_e8m0fnu>(1e-40f).bits() == 0x00);  // clamps to 2^-127
  CHECK(round_to<float8_e8m0fnu>(3.0f).bits() == 0x81);    // tie goes up (away)
  CHECK(round_to<float8_e8m0fnu>(3.0f, rounding::toward_zero).bits() == 0x80);
  CHECK(round_to<float8_e8m0fnu>(1e300).bits() == 0xff);
  CHECK(round_to<float8_e8m0fnu>(1e300, rounding::nearest_even, overflow::saturate).bits() == 0xfe);
}

TEST_CASE("NaNs keep their sign and leading payload, and become quiet") {
  using mixprec::detail::bit_cast;
  const float snan = bit_cast<float>(0x7fa00001u);  // signaling, payload 0x200001
  CHECK(mixprec::half(snan).bits() == 0x7f00);       // quiet bit + payload's top bits 0x100
  CHECK(mixprec::bfloat16(bit_cast<float>(0xffa00000u)).bits() == 0xffe0);
  CHECK(mixprec::float8_e5m2(bit_cast<float>(0x7f800001u)).bits() == 0x7e);
  CHECK(mixprec::float8_e4m3fn(bit_cast<float>(0xffc00000u)).bits() == 0xff);
  // Widening keeps the payload: half 0x7e01 -> float 0x7fc02000.
  CHECK(bit_cast<std::uint32_t>(static_cast<float>(mixprec::half::from_bits(0x7e01))) == 0x7fc02000u);
}

TEST_CASE("round_to<float> matches the hardware in the four IEEE modes") {
  const int fe[] = {FE_TONEAREST, FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};
  const rounding modes[] = {rounding::nearest_even, rounding::toward_zero, rounding::upward, rounding::downward};
  std::mt19937_64 gen(3);
  int bad = 0;
  const int saved = std::fegetround();
  for (int m = 0; m < 4; ++m) {
    for (int i = 0; i < 100000; ++i) {
      double x = mixprec::detail::bit_cast<double>(gen());
      if (i % 2) x = std::ldexp(1.0 + static_cast<double>(gen() >> 12) * 0x1p-52, static_cast<int>(gen() % 300) - 160);
      std::fesetround(fe[m]);
      volatile double vx = x;
      // The volatile store keeps the conversion before the next fesetround (an optimizer may
      // otherwise move it past the call: there is no FENV_ACCESS support in GCC or Clang).
      volatile float hw_v = static_cast<float>(vx);
      const float hw = hw_v;
      std::fesetround(saved);
      const float sw = mixprec::round_to<float>(x, modes[m]);
      const bool same = std::isnan(hw) ? std::isnan(sw)
                                       : mixprec::detail::bit_cast<std::uint32_t>(hw) == mixprec::detail::bit_cast<std::uint32_t>(sw);
      if (!same && ++bad <= 5) MESSAGE("mode ", m, " x=", x);
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("stochastic rounding needs random bits") {
  CHECK_THROWS_AS((void)mixprec::round_to<mixprec::half>(1.0, rounding::stochastic), std::invalid_argument);
}

TEST_CASE_TEMPLATE("stochastic rounding is exact on representable values", T, MIXPREC_ALL_FORMATS) {
  const mixprec::counter_rng rng(42);
  int bad = 0;
  const std::vector<double> v = positive_values<T>();
  const std::size_t step = v.size() > 2000 ? v.size() / 2000 : 1;
  for (std::size_t i = 0; i < v.size(); i += step) {
    for (std::uint64_t k = 0; k < 16; ++k) {
      const T r = mixprec::round_stochastic<T>(v[i], rng, i * 16 + k);
      if (static_cast<double>(r) != v[i]) ++bad;
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("stochastic rounding: the threshold is the distance in 32-bit fixed point") {
  using mixprec::half;
  const double x = 1.0 + 0x1p-10 / 4;  // a quarter ulp above 1
  const std::uint32_t threshold = 0xC0000000u;  // rounds up iff bits >= 2^32 - 2^30
  CHECK(mixprec::round_to<half>(x, threshold).bits() == 0x3c01);
  CHECK(mixprec::round_to<half>(x, threshold - 1).bits() == 0x3c00);
  CHECK(mixprec::round_to<half>(-x, threshold).bits() == 0xbc01);  // magnitude rounds away
  CHECK(mixprec::round_to<half>(-x, threshold - 1).bits() == 0xbc00);
}

TEST_CASE_TEMPLATE("stochastic rounding is unbiased", T, mixprec::half, mixprec::bfloat16, mixprec::float8_e4m3fn,
                   mixprec::float8_e5m2, mixprec::float4_e2m1fn) {
  const std::vector<double> v = positive_values<T>();
  const mixprec::counter_rng rng(2024);
  std::uint64_t counter = 0;
  for (std::size_t i : {std::size_t{1}, v.size() / 3, v.size() / 2, v.size() - 2}) {
    for (double frac : {0.1, 0.25, 0.5, 0.9}) {
      const double lo = v[i], hi = v[i + 1];
      const double x = lo + frac * (hi - lo);
      const int n = 200000;
      int ups = 0;
      for (int k = 0; k < n; ++k) {
        const double r = static_cast<double>(mixprec::round_stochastic<T>(x, rng, counter++));
        REQUIRE((r == lo || r == hi));
        ups += r == hi;
      }
      const double p = (x - lo) / (hi - lo);
      const double sigma = std::sqrt(p * (1 - p) / n);
      CHECK(std::fabs(static_cast<double>(ups) / n - p) < 5 * sigma);
    }
  }
}

TEST_CASE("counter_rng streams are reproducible and seed-dependent") {
  const mixprec::counter_rng a(1), b(1), c(2);
  int same_ab = 0, same_ac = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    same_ab += a(i) == b(i);
    same_ac += a(i) == c(i);
  }
  CHECK(same_ab == 1000);
  CHECK(same_ac < 3);
  // Known values pin the generator down, so host and device streams can be compared.
  static_assert(mixprec::counter_rng(0).bits64(0) == mixprec::counter_rng(0).bits64(0), "");
  std::vector<std::uint32_t> bits;
  for (std::uint64_t i = 0; i < 4096; ++i) bits.push_back(a(i));
  double mean = 0;
  for (auto x : bits) mean += static_cast<double>(x) / 4294967296.0;
  mean /= static_cast<double>(bits.size());
  CHECK(std::fabs(mean - 0.5) < 0.03);
}

TEST_CASE("philox4x32: Random123's known-answer vectors") {
  using mixprec::philox4x32;
  using B = mixprec::philox4x32_block;
  // kat_vectors of the Random123 distribution (philox4x32 7 and 10 rounds): counter, key, result.
  static_assert(philox4x32<10>(B{0, 0, 0, 0}, 0, 0) == B{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}, "");
  CHECK(philox4x32<10>(B{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, 0xffffffffu, 0xffffffffu) ==
        B{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu});
  CHECK(philox4x32<10>(B{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, 0xa4093822u, 0x299f31d0u) ==
        B{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u});
  CHECK(philox4x32<7>(B{0, 0, 0, 0}, 0, 0) == B{0x5f6fb709u, 0x0d893f64u, 0x4f121f81u, 0x4f730a48u});
  CHECK(philox4x32<7>(B{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, 0xffffffffu, 0xffffffffu) ==
        B{0x5207ddc2u, 0x45165e59u, 0x4d8ee751u, 0x8c52f662u});
  CHECK(philox4x32<7>(B{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, 0xa4093822u, 0x299f31d0u) ==
        B{0x4dfccabau, 0x190a87f0u, 0xc47362bau, 0xb6b5242au});
}

TEST_CASE("philox_rng: cuRAND's layout of counters, subsequences and keys") {
  using mixprec::philox4x32;
  using B = mixprec::philox4x32_block;
  const std::uint64_t seed = 0x299f31d0a4093822ull;  // key {0xa4093822, 0x299f31d0}
  const std::uint64_t subseq = 0x0370734413198a2eull;
  const mixprec::philox_rng rng(seed, subseq);
  // Block 0x85a308d3243f6a88 with this seed and subsequence is the third known-answer vector.
  CHECK(rng.block(0x85a308d3243f6a88ull) == B{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u});
  // Counters 4b .. 4b + 3 give block b's words x, y, z, w.
  const std::uint64_t b = 0x05a308d3243f6a88ull;
  const B blk_b = rng.block(b);
  CHECK(rng(4 * b) == blk_b.x);
  CHECK(rng(4 * b + 1) == blk_b.y);
  CHECK(rng(4 * b + 2) == blk_b.z);
  CHECK(rng(4 * b + 3) == blk_b.w);
  // Counter 0 of seed 0, subsequence 0: the all-zero known answer, word by word.
  const mixprec::philox_rng zero(0);
  CHECK(zero(0) == 0x6627e8d5u);
  CHECK(zero(1) == 0xe169c58du);
  CHECK(zero(2) == 0xbc57ac4cu);
  CHECK(zero(3) == 0x9b00dbd8u);
  // Counters past 2^32 blocks carry into the counter's second word; the subsequence is z, w.
  for (std::uint64_t n : {0ull, 5ull, 4ull << 32, (1ull << 62) + 7, ~0ull}) {
    const B blk = philox4x32<10>(B{static_cast<std::uint32_t>(n >> 2), static_cast<std::uint32_t>(n >> 34), 0x13198a2eu,
                                   0x03707344u},
                                 0xa4093822u, 0x299f31d0u);
    const std::uint32_t words[4] = {blk.x, blk.y, blk.z, blk.w};
    CHECK(rng(n) == words[n & 3]);
  }
  // sr_rng dispatches to the chosen generator.
  const mixprec::sr_rng p(mixprec::rng_kind::philox4x32_10, 7), s(mixprec::rng_kind::splitmix64, 7);
  for (std::uint64_t i = 0; i < 64; ++i) {
    CHECK(p(i) == mixprec::philox_rng(7)(i));
    CHECK(s(i) == mixprec::counter_rng(7)(i));
  }
  CHECK(mixprec::is_valid(mixprec::rng_kind::philox4x32_10));
  CHECK_FALSE(mixprec::is_valid(static_cast<mixprec::rng_kind>(2)));
}

TEST_CASE("philox_rng: stochastic rounding is unbiased") {
  // 0.1f to half with Philox's bits: the mean of the results converges to 0.1f's exact value.
  const mixprec::philox_rng rng(2024);
  const float x = 0.1f;
  double sum = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) sum += static_cast<double>(mixprec::round_stochastic<mixprec::half>(x, rng, static_cast<std::uint64_t>(i)));
  const double lo = static_cast<double>(mixprec::round_to<mixprec::half>(x, rounding::toward_zero));
  const double ulp = static_cast<double>(mixprec::round_to<mixprec::half>(x, rounding::upward)) - lo;
  const double p = (static_cast<double>(x) - lo) / ulp;
  const double sigma = ulp * std::sqrt(p * (1 - p) / n);
  CHECK(std::fabs(sum / n - static_cast<double>(x)) < 5 * sigma);
}
