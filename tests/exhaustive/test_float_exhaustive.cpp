// SPDX-License-Identifier: MIT
// Exhaustive: all 2^32 floats against the independent reference (tests/reference.hpp):
//   half and bfloat16 in the six deterministic modes; tf32 in nearest-even and nearest-away;
//   float8_e4m3fn and float8_e5m2 in nearest-even under both overflow policies: every float where
//   their results vary (with six binades of margin; see fp8_window), every 61st elsewhere.
// Plus 10^7 random doubles per format in every deterministic mode and policy.
// Multi-threaded; label "exhaustive".
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../formats_list.hpp"
#include "env.hpp"

using mixprec::overflow;
using mixprec::rounding;

// GCC and Clang: everything the per-float check calls is inlined into it (the library's round_to
// and the reference): about 20% less time than leaving it to the inliner.
#if defined(__GNUC__)
#define MIXPREC_TEST_FLATTEN __attribute__((flatten))
#else
#define MIXPREC_TEST_FLATTEN
#endif

namespace {

unsigned thread_count() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 2 : n;
}

/// Runs body(begin, end) over [0, total) in chunks on all threads, printing progress.
template <class Body>
void parallel_chunks(std::uint64_t total, std::uint64_t chunk, const char* what, Body body) {
  std::atomic<std::uint64_t> next{0};
  std::atomic<std::uint64_t> done{0};
  std::mutex print;
  int last_decile = 0;
  const auto start = std::chrono::steady_clock::now();
  auto worker = [&] {
    for (;;) {
      const std::uint64_t b = next.fetch_add(chunk);
      if (b >= total) return;
      const std::uint64_t e = b + chunk < total ? b + chunk : total;
      body(b, e);
      const std::uint64_t d = done.fetch_add(e - b) + (e - b);
      const int decile = static_cast<int>(d * 10 / total);
      std::lock_guard<std::mutex> lock(print);
      if (decile > last_decile) {
        last_decile = decile;
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::fprintf(stderr, "  %s: %3d%% (%.0f s)\n", what, decile * 10, s);
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < thread_count(); ++i) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
}

/// Per format: the quantum 2^(max(E, emin) - M) for each float exponent field E + 127 >= 1, and
/// its inverse (a power of two too: the reference multiplies by it instead of dividing).
struct quanta {
  double q[256];
  double inv[256];
  explicit quanta(const ref::format& f) {
    const int emin = f.kind == ref::specials::e8m0 ? -f.bias : 1 - f.bias;
    for (int eb = 1; eb < 256; ++eb) {
      const int e = eb - 127 > emin ? eb - 127 : emin;
      q[eb] = std::ldexp(1.0, e - f.man_bits);
      inv[eb] = std::ldexp(1.0, f.man_bits - e);
    }
    q[0] = 0.0;  // float zero and subnormals: the reference computes it
    inv[0] = 0.0;
  }
};

struct check_spec {
  rounding mode;
  overflow policy;
};

/// One (mode, policy) pair as a type: the sweep's checks are compile-time constants, so that the
/// flattened per-float code has no switch on the mode in the library call or in the reference
/// (with the multiplication by 1/q, 32% less time than runtime modes; the runtime-mode calls are
/// the random-doubles case below and the unit tests).
template <rounding M, overflow P>
struct chk {
  static constexpr rounding mode = M;
  static constexpr overflow policy = P;
};

template <class T, const ref::format& F, class... Checks>
struct sweep {
  quanta qs{F};
  std::atomic<std::uint64_t> failures[sizeof...(Checks)] = {};

  template <class C>
  MIXPREC_TEST_FLATTEN void one(std::size_t i, std::uint32_t bits, float x, const ref::prepared& p, std::mutex& print) {
    const double got = static_cast<double>(mixprec::round_to<T>(x, C::mode, C::policy));
    const double want = ref::pick(F, p, C::mode, C::policy);
    if (!ref::same(got, want)) {
      if (failures[i].fetch_add(1) < 3) {
        std::lock_guard<std::mutex> lock(print);
        std::fprintf(stderr, "MISMATCH %s mode %d policy %d: x=0x%08x want %.17g got %.17g\n", F.name,
                     static_cast<int>(C::mode), static_cast<int>(C::policy), bits, want, got);
      }
    }
  }

  MIXPREC_TEST_FLATTEN void run(std::uint32_t bits, float x, std::mutex& print) {
    const unsigned eb = (bits >> 23) & 0xff;
    // Once per float; ref::round = pick(prepare).
    const ref::prepared p = ref::prepare(F, static_cast<double>(x), qs.q[eb], qs.inv[eb]);
    std::size_t i = 0;
    (one<Checks>(i++, bits, x, p, print), ...);
  }
  std::uint64_t total_failures() const {
    std::uint64_t n = 0;
    for (const auto& a : failures) n += a.load();
    return n;
  }
};

/// float8_e4m3fn and float8_e5m2 (nearest even, ieee and saturate) are checked on EVERY float
/// whose exponent field is 0 (zeros, subnormals) or 255 (Inf, NaN) or whose exponent e = field - 127
/// lies in [-23, 21]: the range where their results vary, |x| in [2^-17, 2^16) (2^-17 is half of
/// e5m2's smallest subnormal, every smaller float rounds to +-0; from 2^16 up, beyond the overflow
/// thresholds 464 and 61440, every float gives +-Inf, NaN or +-max), with six binades of margin on
/// each side. Outside it, every 61st pattern of each chunk (all mantissa bit positions, every
/// exponent, both signs). The other 2^32 - 2^32 * 47/256 floats give one result per sign and policy;
/// tests/exhaustive/test_cuda_host_conversions.cpp compares all 2^32 floats, bit for bit, with
/// CUDA's __nv_cvt_float_to_fp8 in the same four cases, and test_narrow8_all_floats.cpp the vector
/// paths with round_to. half, bfloat16 and tf32: all 2^32 floats.
constexpr std::uint64_t kFp8Stride = 61;
constexpr bool fp8_window(std::uint64_t exponent_field) {
  return exponent_field == 0 || exponent_field == 255 || (exponent_field >= 127 - 23 && exponent_field <= 127 + 21);
}

std::vector<check_spec> all_deterministic(overflow p) {
  return {{rounding::nearest_even, p}, {rounding::nearest_away, p}, {rounding::toward_zero, p},
          {rounding::upward, p},       {rounding::downward, p},     {rounding::to_odd, p}};
}

}  // namespace

TEST_CASE("all 2^32 floats convert correctly") {
  std::mutex print;
  using ne = chk<rounding::nearest_even, overflow::ieee>;
  using na = chk<rounding::nearest_away, overflow::ieee>;
  using tz = chk<rounding::toward_zero, overflow::ieee>;
  using up = chk<rounding::upward, overflow::ieee>;
  using dn = chk<rounding::downward, overflow::ieee>;
  using odd = chk<rounding::to_odd, overflow::ieee>;
  using ne_sat = chk<rounding::nearest_even, overflow::saturate>;
  sweep<mixprec::half, ref::half, ne, na, tz, up, dn, odd> half;
  sweep<mixprec::bfloat16, ref::bfloat16, ne, na, tz, up, dn, odd> bf16;
  sweep<mixprec::tf32, ref::tf32, ne, na> tf32;
  sweep<mixprec::float8_e4m3fn, ref::e4m3fn, ne, ne_sat> e4m3;
  sweep<mixprec::float8_e5m2, ref::e5m2, ne, ne_sat> e5m2;
  const std::uint64_t stride = exhaustive_env::exhaustive_stride();
  if (stride > 1) MESSAGE("MIXPREC_EXHAUSTIVE_STRIDE=", stride, ": checking every ", stride, "th float only");
  // Chunks of 2^22 patterns: each lies in one (sign, exponent field) pair.
  parallel_chunks(std::uint64_t{1} << 32, std::uint64_t{1} << 22, "floats", [&](std::uint64_t b, std::uint64_t e) {
    for (std::uint64_t i = b; i < e; i += stride) {
      const auto bits = static_cast<std::uint32_t>(i);
      const float x = mixprec::detail::bit_cast<float>(bits);
      half.run(bits, x, print);
      bf16.run(bits, x, print);
      tf32.run(bits, x, print);
    }
    const std::uint64_t fp8_step = stride * (fp8_window((b >> 23) & 0xff) ? 1 : kFp8Stride);
    for (std::uint64_t i = b; i < e; i += fp8_step) {
      const auto bits = static_cast<std::uint32_t>(i);
      const float x = mixprec::detail::bit_cast<float>(bits);
      e4m3.run(bits, x, print);
      e5m2.run(bits, x, print);
    }
  });
  CHECK(half.total_failures() == 0);
  CHECK(bf16.total_failures() == 0);
  CHECK(tf32.total_failures() == 0);
  CHECK(e4m3.total_failures() == 0);
  CHECK(e5m2.total_failures() == 0);
}

namespace {

template <class T>
std::uint64_t random_double_failures(std::uint64_t n, std::uint64_t seed) {
  const ref::format& f = reftest::ref_of<T>();
  const int lo = std::ilogb(f.min_sub) - 3;
  const int hi = std::ilogb(f.max) + 2;
  std::atomic<std::uint64_t> bad{0};
  const std::string what = std::string("random doubles, ") + f.name;
  const std::vector<check_spec> ieee_checks = all_deterministic(overflow::ieee);
  const std::vector<check_spec> saturate_checks = all_deterministic(overflow::saturate);
  parallel_chunks(n, 1u << 20, what.c_str(), [&](std::uint64_t b, std::uint64_t e) {
    std::mt19937_64 gen(seed ^ (b * 0x9E3779B97F4A7C15ull));
    std::uniform_int_distribution<int> exp(lo, hi);
    for (std::uint64_t i = b; i < e; ++i) {
      const double m = 1.0 + static_cast<double>(gen() >> 12) * 0x1p-52;
      double x = std::ldexp(m, exp(gen));
      if (gen() & 1) x = -x;
      const ref::prepared prep = ref::prepare(f, x);  // once per double; ref::round = pick(prepare)
      for (const auto* checks : {&ieee_checks, &saturate_checks}) {
        for (const check_spec& c : *checks) {
          const double got = static_cast<double>(mixprec::round_to<T>(x, c.mode, c.policy));
          const double want = ref::pick(f, prep, c.mode, c.policy);
          if (!ref::same(got, want) && bad.fetch_add(1) < 3) {
            std::fprintf(stderr, "MISMATCH %s mode %d policy %d: x=%a want %a got %a\n", f.name,
                         static_cast<int>(c.mode), static_cast<int>(c.policy), x, want, got);
          }
        }
      }
    }
  });
  return bad.load();
}

}  // namespace

TEST_CASE_TEMPLATE("10^7 random doubles per format round like the reference", T, MIXPREC_ALL_FORMATS) {
  const std::uint64_t n = 10000000 / exhaustive_env::exhaustive_stride();
  CHECK(random_double_failures<T>(n, 20261121) == 0);
}
