// SPDX-License-Identifier: MIT
// kernels/convert.hpp, double sources: the vectorised double -> F encoder
// (kernels/detail/simd_narrow8.hpp's encode_doubles, through detail::simd_convert_modes_at) gives
// the scalar round_to's bits at every compiled level, in every rounding mode (stochastic with both
// generators) and overflow policy, for every format it covers (tf32 and E8M0 included): ties and
// near-ties of F with a sticky bit at each position below, F's and float's subnormals, overflow
// boundaries, NaN payloads, signed zeros, infinities and 10^6 random doubles; plus values worked
// out by hand where a float intermediate would be wrong, and mixprec::convert's wiring (offsets,
// threads, MXCSR settings).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernel_test_util.hpp"

using namespace mixprec;
using ktest::bits_of;

namespace {

double double_of(std::uint64_t u) { return detail::bit_cast<double>(u); }

constexpr rounding all_modes[] = {rounding::nearest_even, rounding::nearest_away, rounding::toward_zero, rounding::upward,
                                  rounding::downward,     rounding::to_odd,       rounding::stochastic};

/// Doubles around F's grid: for binades of F (all near the ends of its range and around 1, a
/// stride between) and a few significands in each (and F's subnormals), the grid point lo, the
/// tie lo + q/2, and lo + q 2^-j, the tie +- q 2^-j and the next point - q 2^-j for every j from
/// 1 to 52 - M (a single sticky bit at each position below F's last); float's subnormal range,
/// overflow boundaries, double subnormals, NaN payloads, zeros and infinities; n_random random
/// doubles (3/4 with exponents around F's range); every value with both signs.
template <class T>
std::vector<double> format_doubles(std::size_t n_random, std::uint64_t seed) {
  using F = typename T::format_type;
  constexpr int M = F::mantissa_bits;
  std::vector<double> v;
  const auto add = [&v](double x) {
    v.push_back(x);
    v.push_back(-x);
  };
  const auto around = [&](double lo, double q) {
    add(lo);
    add(lo + q / 2);
    for (int j = 1; j <= 52 - M; ++j) {
      const double t = std::ldexp(q, -j);
      add(lo + t);
      add(lo + q / 2 + t);
      add(lo + q / 2 - t);
      add(lo + q - t);
    }
  };
  const int top = 1 << M;  // significands [top, 2 top) in a binade, [0, top) below emin
  for (int e = F::emin - 1; e <= F::emax + 1; ++e) {
    const bool edge = e <= F::emin + 2 || e >= F::emax - 2 || (e >= -2 && e <= 2);
    if (!edge && (e - F::emin) % 9 != 0) continue;
    const int qe = (e < F::emin ? F::emin : e) - M;
    const double q = std::ldexp(1.0, qe);
    std::vector<int> ks;
    if (e < F::emin) {
      if (F::enc == encoding::exponent_only) {
        ks = {0};  // no subnormals: below 2^emin everything clamps to the least value
      } else {
        ks = {0, 1, 2, 3, top / 2, top - 1};
      }
    } else {
      ks = {top, top + 1, top + 2, top + top / 2, 2 * top - 2, 2 * top - 1};
    }
    for (int k : ks) {
      if (k < 0) continue;
      around(k * q, q);
    }
  }
  // float's subnormals and its least normal
  for (double x : {0x1p-126, 0x1p-127, 0x1p-149, 0x1p-150, 0x3p-150, 0x1p-151, 0x1.8p-149, 0x1.000001p-126,
                   0x1.fffffep-127, 0x1p-136, 0x1p-137, 0x1.8p-136, 0x1p-133, 0x1p-134, 0x1.8p-133}) {
    add(x);
    add(std::nextafter(x, 0.0));
    add(std::nextafter(x, 1.0));
  }
  // overflow: F's largest value and the tie above it, float's and double's ends
  const double big = static_cast<double>(std::numeric_limits<T>::max());
  const double q_top = std::ldexp(1.0, F::emax - M);
  for (double x : {big, big + q_top / 2, big + q_top, std::ldexp(1.0, F::emax + 1), 0x1.fffffep127, 0x1.ffffffp127,
                   0x1p128, 0x1p1023, std::numeric_limits<double>::max()}) {
    add(x);
    add(std::nextafter(x, 0.0));
    add(std::nextafter(x, 1e308 * 10));
  }
  // double subnormals, zeros, infinities, NaN payloads (quiet, signalling, high and low bits)
  for (std::uint64_t b : {0x0000000000000001ull, 0x000fffffffffffffull, 0x0008000000000000ull, 0x0000000000000000ull,
                          0x7ff0000000000000ull, 0x7ff0000000000001ull, 0x7ff8000000000000ull, 0x7ff4000000000000ull,
                          0x7fffffffffffffffull, 0x7ff0000020000000ull, 0x7ff00000ffffffffull, 0x7ffc000000000001ull,
                          0x7ff7ffffffffffffull, 0x7ff0080000000000ull}) {
    add(double_of(b));
  }
  // random doubles
  std::uint64_t state = seed;
  const auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 32) | (state << 32);
  };
  const int lo_e = F::emin - M - 8 + 1023, span_e = F::emax + 4 - (F::emin - M - 8);
  for (std::size_t i = 0; i < n_random; ++i) {
    std::uint64_t b = next() ^ (next() << 17);
    if (i % 4 != 0) {
      const auto e = static_cast<std::uint64_t>(lo_e + static_cast<int>(next() % static_cast<std::uint64_t>(span_e)));
      b = (b & 0x800fffffffffffffull) | (e << 52);
    }
    v.push_back(double_of(b));
  }
  return v;
}

struct gen {
  rng_kind kind;
  std::uint64_t seed, counter;
};
// Philox from counters inside a block and across the carry into the block counter's high word
constexpr gen gens[] = {{rng_kind::splitmix64, 7, 99},
                        {rng_kind::philox4x32_10, 0x0123456789abcdefull, 5},
                        {rng_kind::philox4x32_10, 7, (std::uint64_t{1} << 34) - 13},
                        {rng_kind::splitmix64, 0xfeedfacecafebeefull, (std::uint64_t{1} << 40) + 3}};

/// Every compiled level (simd_convert_modes_at) against round_to, every mode, policy and
/// generator, from an aligned and an unaligned start.
template <class T>
void check_levels(const std::vector<double>& src) {
  for (rounding mode : all_modes) {
    for (overflow ovf : {overflow::ieee, overflow::saturate}) {
      for (const gen& g : gens) {
        if (mode != rounding::stochastic && &g != &gens[0]) continue;
        const sr_rng rng(g.kind, g.seed);
        for (std::size_t first : {std::size_t{0}, std::size_t{3}}) {
          const std::size_t n = src.size() - first;
          std::vector<T> want(n);
          for (std::size_t i = 0; i < n; ++i) want[i] = round_to<T>(src[first + i], mode, ovf, rng(g.counter + i));
          for (detail::simd_level l : {detail::simd_level::avx2, detail::simd_level::avx512}) {
            if (!detail::simd_level_compiled(l)) continue;
            INFO("level " << std::string(detail::simd_level_name(l)) << ", mode " << to_string(mode) << ", "
                          << to_string(ovf) << ", first " << first << ", generator " << static_cast<int>(g.kind)
                          << ", counter " << g.counter);
            std::vector<T> got(n);
            REQUIRE(detail::simd_convert_modes_at(l, src.data() + first, got.data(), n, mode, ovf, rng, g.counter));
            std::size_t bad = 0;
            for (std::size_t i = 0; i < n; ++i) {
              if (want[i].bits() != got[i].bits() && bad++ < 3) {
                MESSAGE("double " << std::hex << bits_of(src[first + i]) << ": got " << bits_of(got[i]) << " want "
                                  << bits_of(want[i]));
              }
            }
            CHECK(bad == 0);
          }
        }
      }
    }
  }
}

/// mixprec::convert (fast path or portable loop): awkward sizes, an unaligned start, a nonzero
/// offset, 1 and 3 threads, both generators.
template <class T>
void check_convert(const std::vector<double>& all) {
  for (rounding mode : all_modes) {
    for (overflow ovf : {overflow::ieee, overflow::saturate}) {
      for (rng_kind kind : {rng_kind::splitmix64, rng_kind::philox4x32_10}) {
        if (mode != rounding::stochastic && kind != rng_kind::splitmix64) continue;
        const sr_rng rng(kind, 42);
        for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{15}, std::size_t{17}, std::size_t{33},
                              std::size_t{513}, std::size_t{4097}, std::size_t{40000}}) {
          if (n + 1 > all.size()) continue;
          const span<const double> in(all.data() + 1, n);
          std::vector<T> got1(n), got3(n);
          convert(exec::seq, in, got1, mode, ovf, 42, 1001, kind);
          convert(exec::par(3), in, got3, mode, ovf, 42, 1001, kind);
          std::size_t bad = 0;
          for (std::size_t i = 0; i < n; ++i) {
            const T want = round_to<T>(in[i], mode, ovf, rng(1001 + i));
            bad += want.bits() != got1[i].bits();
            bad += want.bits() != got3[i].bits();
          }
          INFO("n = " << n << ", mode " << to_string(mode) << ", " << to_string(ovf) << ", generator "
                      << static_cast<int>(kind));
          CHECK(bad == 0);
        }
      }
    }
  }
}

template <class T>
void check_format(std::size_t n_random, std::uint64_t seed) {
#if defined(MIXPREC_SIMD_AVX2) || defined(MIXPREC_SIMD_AVX512)
  static_assert(detail::double_encode_traits<typename T::format_type>::supported, "a format the fast path covers");
#endif
  const std::vector<double> src = format_doubles<T>(n_random, seed);
  check_levels<T>(src);
}

}  // namespace

TEST_CASE("convert doubles: 16-bit formats and tf32, every mode, policy and generator, at every level") {
  check_format<half>(1000000, 1);
  check_format<bfloat16>(1000000, 2);
  check_format<tf32>(1000000, 3);
}

TEST_CASE("convert doubles: FP8, every mode, policy and generator, at every level") {
  check_format<float8_e4m3fn>(1000000, 4);
  check_format<float8_e5m2>(200000, 5);
  check_format<float8_e4m3fnuz>(200000, 6);
  check_format<float8_e5m2fnuz>(200000, 7);
  check_format<float8_e4m3>(200000, 8);
  check_format<float8_e3m4>(200000, 9);
  check_format<float8_e4m3b11fnuz>(200000, 10);
}

TEST_CASE("convert doubles: FP6, FP4, unsigned FP8 and E8M0, every mode, policy and generator, at every level") {
  check_format<float6_e2m3fn>(200000, 11);
  check_format<float6_e3m2fn>(200000, 12);
  check_format<float4_e2m1fn>(200000, 13);
  check_format<float4_e1m2>(200000, 14);
  check_format<float8_ue4m3>(200000, 15);  // unsigned: negative numbers are the NaN, -0 is 0
  check_format<float8_ue5m3>(200000, 16);
  check_format<float8_e8m0fnu>(1000000, 17);  // exponent only: no zero, clamps below 2^-127
}

/// Doubles below float's least subnormal whose low 29 bits are clear (their float truncation is
/// zero and the double's low bits hold no sticky bit), alone among normal numbers in a vector of
/// 16 (or 8) and next to a zero, with both signs: every mode must see them as nonzero.
template <class T>
std::vector<double> tiny_among_normals() {
  std::vector<double> v;
  for (double t : {0x1p-150, 0x1p-151, 0x1p-200, 0x1p-1000, 0x1p-1022, 0x1.8p-160, 0x1p-1074, 0x1.000002p-170}) {
    for (double sign : {1.0, -1.0}) {
      for (std::size_t at : {std::size_t{0}, std::size_t{5}, std::size_t{13}, std::size_t{22}, std::size_t{31}}) {
        for (int with_zero = 0; with_zero < 2; ++with_zero) {
          std::vector<double> block(32);
          for (std::size_t i = 0; i < block.size(); ++i) block[i] = (i % 3 == 0 ? -1.0 : 1.0) * (1.25 + 0x1p-40 * static_cast<double>(i));
          block[at] = sign * t;
          if (with_zero) block[(at + 1) % block.size()] = 0.0;
          v.insert(v.end(), block.begin(), block.end());
        }
      }
    }
  }
  return v;
}

TEST_CASE("convert doubles: tiny doubles truncating to a float zero, among normal numbers") {
  check_levels<half>(tiny_among_normals<half>());
  check_levels<float8_e4m3fn>(tiny_among_normals<float8_e4m3fn>());
  check_levels<float8_e5m2>(tiny_among_normals<float8_e5m2>());
  check_levels<float8_ue4m3>(tiny_among_normals<float8_ue4m3>());
  check_levels<float4_e2m1fn>(tiny_among_normals<float4_e2m1fn>());
  check_levels<bfloat16>(tiny_among_normals<bfloat16>());
  // by hand: half's least subnormal upward and to odd, zero toward zero, its NaN for an unsigned
  // format's tiny negative number
  const std::vector<double> all = tiny_among_normals<half>();
  const std::vector<double> x(all.begin(), all.begin() + 32);
  REQUIRE(x[0] == 0x1p-150);
  std::vector<half> h(x.size());
  convert(exec::seq, x, h, rounding::upward);
  CHECK(h[0].bits() == 0x0001);
  convert(exec::seq, x, h, rounding::to_odd);
  CHECK(h[0].bits() == 0x0001);
  convert(exec::seq, x, h, rounding::toward_zero);
  CHECK(h[0].bits() == 0x0000);
  std::vector<double> neg(x);
  neg[0] = -0x1p-1000;
  std::vector<float8_ue4m3> u(neg.size());
  convert(exec::seq, neg, u, rounding::toward_zero);
  CHECK(u[0].bits() == round_to<float8_ue4m3>(-1.0f).bits());  // the NaN (or 0) of a negative number
  CHECK(u[0].bits() != 0x00);
}

TEST_CASE("convert doubles: through mixprec::convert, any size, offset and thread count") {
  check_convert<half>(format_doubles<half>(50000, 21));
  check_convert<bfloat16>(format_doubles<bfloat16>(50000, 22));
  check_convert<tf32>(format_doubles<tf32>(50000, 23));
  check_convert<float8_e4m3fn>(format_doubles<float8_e4m3fn>(50000, 24));
  check_convert<float8_e8m0fnu>(format_doubles<float8_e8m0fnu>(50000, 25));
  check_convert<float8_ue4m3>(format_doubles<float8_ue4m3>(50000, 26));
}

TEST_CASE("convert doubles: values worked out by hand where a float intermediate would differ") {
  // x = 1 + 2^-11 + 2^-40. half and tf32 have ulp 2^-10 at 1: x is 1/2 + 2^-30 ulp above 1, so the
  // top 32 bits of its remainder are 2^31 + 4 and stochastic rounding goes up iff bits >= 2^31 - 4.
  // Rounded to odd at float's precision, x is 1 + 2^-11 + 2^-23 (remainder 2^31 + 2^19): bits in
  // [2^31 - 2^19, 2^31 - 4) would round it up. Find an element whose bits fall there.
  const double x = 1.0 + 0x1p-11 + 0x1p-40;
  CHECK(round_to<half>(x, (1u << 31) - 4u).bits() == 0x3c01);
  CHECK(round_to<half>(x, (1u << 31) - 5u).bits() == 0x3c00);
  for (rng_kind kind : {rng_kind::splitmix64, rng_kind::philox4x32_10}) {
    const sr_rng rng(kind, 9);
    std::uint64_t k = 0;
    while (!(rng(k) >= (1u << 31) - (1u << 19) && rng(k) < (1u << 31) - 4u)) ++k;  // about 1 in 8192
    std::vector<double> src(100, x);
    std::vector<half> h(src.size());
    std::vector<tf32> t(src.size());
    // element 37 gets the bits rng(k): the offset is k - 37 (k >= 37 for these seeds, checked)
    REQUIRE(k >= 37);
    convert(exec::seq, src, h, rounding::stochastic, overflow::ieee, 9, k - 37, kind);
    convert(exec::seq, src, t, rounding::stochastic, overflow::ieee, 9, k - 37, kind);
    CHECK(h[37].bits() == 0x3c00);
    CHECK(t[37].bits() == 0x3f800000u);
  }
  // tf32 (10 fraction bits, 13 padding bits) from doubles, deterministic modes: a tie broken by a
  // bit below float's precision (a double -> float -> tf32 in nearest-even would give 1)
  const std::vector<double> d{1.0 + 0x1p-11 + 0x1p-40, 1.0 + 0x1p-11, 1.0 + 0x1p-11 - 0x1p-40, 1.0 + 0x1p-50,
                              0x1p128, 1e-50, -1e-50, 0x1.ffep127 + 0x1p114 + 0x1p80};
  std::vector<tf32> t(d.size());
  convert(exec::seq, d, t);
  CHECK(t[0].bits() == 0x3f802000u);  // above the tie: up
  CHECK(t[1].bits() == 0x3f800000u);  // the tie: to even
  CHECK(t[2].bits() == 0x3f800000u);
  CHECK(t[3].bits() == 0x3f800000u);
  CHECK(t[4].bits() == 0x7f800000u);  // beyond float's range: infinity
  CHECK(t[5].bits() == 0x00000000u);
  CHECK(t[6].bits() == 0x80000000u);
  CHECK(t[7].bits() == 0x7f800000u);  // above the tie past tf32's largest value: infinity
  convert(exec::seq, d, t, rounding::upward);
  CHECK(t[2].bits() == 0x3f802000u);
  CHECK(t[3].bits() == 0x3f802000u);
  CHECK(t[5].bits() == 0x00002000u);  // the least subnormal, 2^-136
  CHECK(t[6].bits() == 0x80000000u);
  convert(exec::seq, d, t, rounding::toward_zero, overflow::saturate);
  CHECK(t[0].bits() == 0x3f800000u);
  CHECK(t[4].bits() == 0x7f7fe000u);  // tf32's largest value
  CHECK(t[7].bits() == 0x7f7fe000u);
  convert(exec::seq, d, t, rounding::to_odd);
  CHECK(t[0].bits() == 0x3f802000u);
  CHECK(t[3].bits() == 0x3f802000u);
  CHECK(t[5].bits() == 0x00002000u);
  convert(exec::seq, d, t, rounding::nearest_away);
  CHECK(t[1].bits() == 0x3f802000u);  // the tie: away
  CHECK(t[2].bits() == 0x3f800000u);
  // E8M0 from doubles below 2^-127 clamps to code 0, stochastic or not; 2^-127 (1 + 2^-40) is 1/2^40
  // of a step above code 0
  const std::vector<double> e{0x1p-200, 0x1p-127 * (1 + 0x1p-40), 0.0, -1.0};
  std::vector<float8_e8m0fnu> out(e.size());
  convert(exec::seq, e, out, rounding::stochastic, overflow::ieee, 3, 0);
  CHECK(out[0].bits() == 0x00);
  CHECK(out[1].bits() <= 0x01);
  CHECK(out[2].bits() == 0xff);  // no zero: the NaN
  CHECK(out[3].bits() == 0xff);
}

#if defined(MIXPREC_SIMD_X86)
TEST_CASE("convert doubles: every mode gives round_to's bits under any MXCSR setting") {
  const ktest::csr_guard guard;
  const auto run = [&](auto tag) {
    using D = decltype(tag);
    const std::vector<double> src = format_doubles<D>(20000, 31);
    for (rounding mode : all_modes) {
      for (rng_kind kind : {rng_kind::splitmix64, rng_kind::philox4x32_10}) {
        if (mode != rounding::stochastic && kind != rng_kind::splitmix64) continue;
        const sr_rng rng(kind, 5);
        std::vector<D> want(src.size());
        for (std::size_t i = 0; i < src.size(); ++i) want[i] = round_to<D>(src[i], mode, overflow::saturate, rng(i + 77));
        for (unsigned bits : {0x0000u, 0x0040u, 0x8000u, 0x8040u, 0x2000u, 0x4000u, 0x6000u, 0x6040u}) {
          std::vector<D> got(src.size());
          _mm_setcsr((guard.saved & ~0xe040u) | bits);
          convert(exec::seq, src, got, mode, overflow::saturate, 5, 77, kind);
          _mm_setcsr(guard.saved);
          std::size_t bad = 0;
          for (std::size_t i = 0; i < src.size(); ++i) {
            if (got[i].bits() != want[i].bits() && bad++ < 3) {
              MESSAGE("double " << std::hex << bits_of(src[i]) << ": got " << bits_of(got[i]) << " want " << bits_of(want[i]));
            }
          }
          INFO("MXCSR bits " << bits << ", mode " << static_cast<int>(mode) << ", generator " << static_cast<int>(kind)
                             << ", storage bits " << sizeof(D) * 8);
          CHECK(bad == 0);
        }
      }
    }
  };
  run(half{});
  run(bfloat16{});
  run(tf32{});
  run(float8_e4m3fn{});
  run(float8_e8m0fnu{});
  run(float8_ue4m3{});
}
#endif
