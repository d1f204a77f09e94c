// SPDX-License-Identifier: MIT
// detail/simd_narrow8.hpp: the vectorised float -> FP8/FP6/FP4 narrowing equals the scalar
// round_to (itself checked exhaustively against independent references) at every compiled level,
// for every supported built-in format, under overflow::ieee and saturate, on every sign, float
// exponent and rounding case (the 8 bits below float's leading mantissa bit enumerated, the rest
// as zero, one, just below/at/above half, all ones), on specials, on random floats, and on every
// length up to 70 through mixprec::convert. All 2^32 floats: tests/exhaustive/test_convert_fast_paths.cpp.
#include <doctest/doctest.h>

#include <cstdint>
#include <cmath>
#include <cstring>
#include <ios>
#include <limits>
#include <random>
#include <vector>

#include <mixprec/kernels/convert.hpp>
#include <mixprec/mixprec.hpp>

using namespace mixprec;

namespace {

float from_bits32(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
template <class T>
unsigned byte_of(T x) {
  return static_cast<unsigned>(x.bits());
}

std::vector<float> inputs() {
  std::vector<float> v;
  const std::uint32_t lows[] = {0x0, 0x1, 0x3fff, 0x4000, 0x4001, 0x7fff};
  for (std::uint32_t sign = 0; sign < 2; ++sign)
    for (std::uint32_t e = 0; e < 256; ++e)
      for (std::uint32_t top = 0; top < 256; ++top)
        for (std::uint32_t low : lows) v.push_back(from_bits32(sign << 31 | e << 23 | top << 15 | low));
  std::mt19937 gen(7);
  for (int i = 0; i < 100000; ++i) v.push_back(from_bits32(static_cast<std::uint32_t>(gen())));
  for (std::uint32_t u : {0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fa00000u, 0x7fbfffffu,
                          0xff900000u, 0x7fe00000u, 0x7f7fffffu, 0x00000001u, 0x80000001u, 0x00800000u})
    v.push_back(from_bits32(u));
  return v;
}

/// Probes at T's own boundaries (each code's value, the midpoints to the next code and one float
/// ulp either side, the overflow threshold, +-0), each in a block of 16 whose other lanes are 1.0
/// so that the vector is otherwise in T's normal range (the common-case path runs on it).
template <class T>
std::vector<float> probes() {
  std::vector<float> p = {0.0f, -0.0f};
  for (unsigned c = 0; c < 256; ++c) {
    const T x = T::from_bits(static_cast<typename T::storage_type>(c));
    const T y = T::from_bits(static_cast<typename T::storage_type>(c + 1));
    if (!isfinite(x)) continue;
    const float v = static_cast<float>(x);
    p.push_back(v);
    // past the largest finite value: one more step of its spacing (the overflow threshold is the midpoint)
    const float below = static_cast<float>(T::from_bits(static_cast<typename T::storage_type>(c - 1)));
    const float w = isfinite(y) && static_cast<float>(y) > v ? static_cast<float>(y) : v + (v - below);
    const float mid = v + (w - v) / 2;  // exact in float for these formats
    for (float q : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f), -mid}) p.push_back(q);
  }
  std::vector<float> blocks;
  for (float q : p) {
    for (int lane = 0; lane < 16; ++lane) blocks.push_back(lane == 5 ? q : 1.0f);
  }
  return blocks;
}

/// Every compiled level against want (round_to of each input under ovf); returns want.
template <class T, class S>
std::vector<T> compare_levels(const std::vector<S>& in, overflow ovf) {
  std::vector<T> want(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) want[i] = round_to<T>(in[i], rounding::nearest_even, ovf);
  for (detail::simd_level level :
       {detail::simd_level::avx2, detail::simd_level::avx512, detail::simd_level::avx512_bf16}) {
    if (!detail::simd_level_compiled(level)) continue;
    std::vector<T> got(in.size());
    REQUIRE(detail::simd_narrow8_at(level, in.data(), got.data(), in.size(), ovf));
    std::size_t bad = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (got[i].bits() != want[i].bits() && bad++ < 3) {
        MESSAGE(detail::simd_level_name(level) << " " << to_string(ovf) << ": input " << in[i] << " (" << std::hexfloat
                                               << in[i] << std::defaultfloat << ") got " << std::hex << byte_of(got[i])
                                               << " want " << byte_of(want[i]) << std::dec);
      }
    }
    CHECK_MESSAGE(bad == 0, detail::simd_level_name(level) << ", " << to_string(ovf) << ", " << sizeof(S) << "-byte inputs");
  }
  return want;
}

template <class T>
void check_format(std::vector<float> in) {
  using F = typename T::format_type;
  const std::vector<float> extra = probes<T>();
  in.insert(in.begin(), extra.begin(), extra.end());  // at the start: 16-aligned blocks
  static_assert(detail::narrow8_traits<F>::supported, "format expected to be supported");
  for (overflow ovf : {overflow::ieee, overflow::saturate}) compare_levels<T>(in, ovf);
  // Through the bulk kernel, every length to 70 and an unaligned start, both policies.
  for (overflow ovf : {overflow::ieee, overflow::saturate}) {
    for (std::size_t n = 0; n <= 70; ++n) {
      const span<const float> src(in.data() + 1 + 1000 * n, n);
      std::vector<T> got(n + 1, T::from_bits(0x55));
      convert(exec::seq, src, span<T>(got.data(), n), rounding::nearest_even, ovf);
      for (std::size_t i = 0; i < n; ++i) REQUIRE(got[i].bits() == round_to<T>(src[i], rounding::nearest_even, ovf).bits());
      CHECK(got[n].bits() == T::from_bits(0x55).bits());  // nothing written past the end
    }
  }
}

/// Doubles: every code's midpoint to the next (and the overflow threshold), with a sticky bit at
/// each position below float's last place and above (double rounding through float would show
/// there), each in a block of ones as probes(); then random doubles around T's range and specials.
template <class T>
std::vector<double> double_inputs() {
  std::vector<double> p = {0.0, -0.0, 1e300, -1e300, 1e-300, 4.9e-324, -4.9e-324, 3.5e38, 1e-40,
                           std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN()};
  for (unsigned c = 0; c < 256; ++c) {
    const T x = T::from_bits(static_cast<typename T::storage_type>(c));
    const T y = T::from_bits(static_cast<typename T::storage_type>(c + 1));
    if (!isfinite(x)) continue;
    const double v = static_cast<double>(x);
    const double below = static_cast<double>(T::from_bits(static_cast<typename T::storage_type>(c - 1)));
    const double w = isfinite(y) && static_cast<double>(y) > v ? static_cast<double>(y) : v + (v - below);
    const double mid = v + (w - v) / 2;
    std::uint64_t mb;
    std::memcpy(&mb, &mid, 8);
    p.push_back(mid);
    for (int j = 0; j <= 44; ++j) {
      for (std::uint64_t q : {mb + (std::uint64_t{1} << j), mb - (std::uint64_t{1} << j)}) {
        double d;
        std::memcpy(&d, &q, 8);
        if (mid != 0) p.push_back(d), p.push_back(-d);
      }
    }
  }
  std::vector<double> v;
  for (double q : p) {
    for (int lane = 0; lane < 16; ++lane) v.push_back(lane == 9 ? q : 1.0);
  }
  std::mt19937_64 gen(11);
  for (int i = 0; i < 200000; ++i) {
    const std::uint64_t r = gen();
    const std::uint64_t e = 1023 - 40 + (r >> 52) % 80;  // 2^-40 .. 2^40
    const std::uint64_t u = (r & 0x800fffffffffffffull) | (e << 52);
    double d;
    std::memcpy(&d, &u, 8);
    v.push_back(d);
  }
  return v;
}

template <class T>
void check_doubles() {
  const std::vector<double> in = double_inputs<T>();
  for (overflow ovf : {overflow::ieee, overflow::saturate}) {
    const std::vector<T> want = compare_levels<T>(in, ovf);
    for (std::size_t n = 0; n <= 40; ++n) {  // lengths and tails through the kernel
      std::vector<T> got(n);
      convert(exec::seq, span<const double>(in.data() + 16 * 40 + n, n), span<T>(got), rounding::nearest_even, ovf);
      for (std::size_t i = 0; i < n; ++i) REQUIRE(got[i].bits() == want[16 * 40 + n + i].bits());
    }
  }
}

}  // namespace

TEST_CASE("simd_narrow8: doubles, every level equals round_to") {
  check_doubles<float8_e4m3fn>();
  check_doubles<float8_e5m2>();
  check_doubles<float8_e4m3fnuz>();
  check_doubles<float8_e5m2fnuz>();
  check_doubles<float8_e3m4>();
  check_doubles<float8_e4m3b11fnuz>();
  check_doubles<float6_e3m2fn>();
  check_doubles<float4_e2m1fn>();
}

TEST_CASE("simd_narrow8: every level equals round_to, FP8") {
  const std::vector<float> in = inputs();
  check_format<float8_e4m3fn>(in);
  check_format<float8_e5m2>(in);
  check_format<float8_e4m3fnuz>(in);
  check_format<float8_e5m2fnuz>(in);
  check_format<float8_e4m3>(in);
  check_format<float8_e3m4>(in);
  check_format<float8_e4m3b11fnuz>(in);
}

TEST_CASE("simd_narrow8: every level equals round_to, FP6 and FP4") {
  const std::vector<float> in = inputs();
  check_format<float6_e2m3fn>(in);
  check_format<float6_e3m2fn>(in);
  check_format<float4_e2m1fn>(in);
  check_format<float4_e1m2>(in);
}

TEST_CASE("simd_narrow8: what it does not take") {
  const float x[1] = {1.0f};
  float8_e4m3fn d[1] = {float8_e4m3fn::from_bits(0x55)};
  CHECK_FALSE(detail::simd_narrow8_at(detail::simd_level::portable, x, d, 1, overflow::ieee));
  CHECK_FALSE(detail::simd_narrow8_at(detail::simd_level::avx2, x, d, 1, static_cast<overflow>(7)));
  CHECK(d[0].bits() == 0x55);
  float8_e8m0fnu s[1];
  CHECK_FALSE(detail::simd_narrow8_at(detail::simd_level::avx2, x, s, 1, overflow::ieee));  // unsigned: not taken
}
