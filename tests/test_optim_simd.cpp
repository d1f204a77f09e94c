// mixprec — the optimizer steps' x86 fast path (detail/simd_optim.hpp) against the portable loop.
// SPDX-License-Identifier: MIT
//
// Every variant the fast path takes (params/grads/states float, half or bfloat16; Adam, AdamW,
// SGD with and without momentum, dampening, nesterov, weight decay; nearest-even and stochastic
// final writes; model copies of float, half, bfloat16 and e4m3) runs through the public entry
// points (fast path where compiled in) and through optim_impl with the fast path switched off
// (the portable loop, which test_optim.cpp checks against PyTorch and a reference), on random
// data mixed with NaN, infinities, subnormals, zeros and values near overflow, and the results
// are compared bit for bit (any NaN equal to any NaN, see same() below). The vector rounding helpers are compared
// with round_to on a stride through all float bit patterns.
// Built with -march=native this exercises the AVX-512 path; tests/CMakeLists.txt also builds it
// with -mavx2 -mfma -mf16c (no AVX-512) in the exhaustive configuration. Without a fast path
// the comparisons still run (portable against portable).
#include <mixprec/kernels/optim.hpp>
#include <mixprec/mixprec.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using mixprec::bfloat16;
using e4m3 = mixprec::float8_e4m3fn;
using mixprec::half;
using mixprec::span;
namespace oi = mixprec::detail::optim_impl;

template <class T>
std::uint64_t bits_of(T x) {
  return static_cast<std::uint64_t>(mixprec::float_traits<T>::to_bits(x));
}
template <class T>
T from_bits(std::uint64_t b) {
  return mixprec::float_traits<T>::from_bits(static_cast<typename mixprec::float_traits<T>::storage_type>(b));
}

template <class T>
bool is_nan(T x) {
  const double d = static_cast<double>(x);
  return d != d;
}
/// Bit-for-bit equality, any NaN equal to any NaN: when both operands of an x86 add or fma are
/// NaN, the result is the first source's, and which operand comes first is the compiler's
/// choice (g++ and clang++ differ on the portable loop itself), so NaN payloads are not
/// specified (kernels/optim.hpp).
template <class T>
bool same(T a, T b) {
  return bits_of(a) == bits_of(b) || (is_nan(a) && is_nan(b));
}
template <class T>
std::size_t count_diff(const std::vector<T>& a, const std::vector<T>& b) {
  std::size_t d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d += same(a[i], b[i]) ? 0 : 1;
  return d;
}
template <class T>
std::string first_diff(const std::vector<T>& a, const std::vector<T>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!same(a[i], b[i])) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "element %zu: fast %.9g (0x%llx), portable %.9g (0x%llx)", i,
                    static_cast<double>(a[i]), static_cast<unsigned long long>(bits_of(a[i])),
                    static_cast<double>(b[i]), static_cast<unsigned long long>(bits_of(b[i])));
      return buf;
    }
  }
  return "none";
}

/// Random values of T: mostly log-uniform magnitudes in [10^lo, 10^hi], some zeros, some
/// arbitrary bit patterns (NaN, infinity, subnormal, huge), and T's special values; clean: only
/// the magnitudes and zeros (so that whole vectors of finite values reach the fast paths that
/// take only those, such as bfloat16 Adam's denominator table).
template <class T>
std::vector<T> data(std::size_t n, std::uint32_t seed, double lo, double hi, bool clean = false) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> e(lo, hi), u(0, 1);
  std::uniform_int_distribution<std::uint64_t> any(0, (std::uint64_t{1} << (8 * sizeof(T))) - 1);
  const T specials[] = {std::numeric_limits<T>::quiet_NaN(),  -std::numeric_limits<T>::quiet_NaN(),
                        std::numeric_limits<T>::infinity(),   -std::numeric_limits<T>::infinity(),
                        std::numeric_limits<T>::denorm_min(), -std::numeric_limits<T>::denorm_min(),
                        std::numeric_limits<T>::min(),        std::numeric_limits<T>::max(),
                        -std::numeric_limits<T>::max(),       T(0.0f),
                        -T(0.0f)};
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double r = clean ? 0.12 + 0.88 * u(gen) : u(gen);
    if (r < 0.04) {
      v[i] = specials[i % (sizeof specials / sizeof specials[0])];
    } else if (r < 0.12) {
      v[i] = from_bits<T>(any(gen));
    } else if (r < 0.15) {
      v[i] = T(0.0f);
    } else {
      const double s = u(gen) < 0.5 ? -1.0 : 1.0;
      v[i] = mixprec::round_to<T>(s * std::pow(10.0, e(gen)));
    }
  }
  return v;
}

// A few thousand elements, not a multiple of any vector width, starting one element into the
// buffers (unaligned), so that vector body, scalar tail and block edges all run.
constexpr std::size_t kN = 3001;

template <class T, class M>
struct state {
  std::vector<T> p, m, v;
  std::vector<M> copy;
};

template <class T, class M, class Policy>
void compare_adam(Policy pol, bool decoupled, const mixprec::adam_options& o, const mixprec::update_rounding& ur,
                  bool with_copy, std::uint32_t seed, double g_lo, double g_hi, bool clean = false, double p_lo = -3,
                  double p_hi = 1) {
  state<T, M> fast, slow;
  fast.p = data<T>(kN + 1, seed, p_lo, p_hi, clean);
  fast.m = data<T>(kN + 1, seed + 1, -6, -1, clean);
  fast.v = data<T>(kN + 1, seed + 2, -9, -2, clean);
  for (auto& x : fast.v) x = mixprec::round_to<T>(std::fabs(static_cast<double>(x)));
  fast.copy.assign(with_copy ? kN + 1 : 0, M(0.0f));
  slow = fast;
  for (std::int64_t step = 1; step <= 3; ++step) {
    CAPTURE(step);
    const std::vector<T> g = data<T>(kN + 1, seed + 10 + static_cast<std::uint32_t>(step), g_lo, g_hi, clean);
    mixprec::update_rounding u = ur;
    u.offset += static_cast<std::uint64_t>(step) * kN;
    auto run = [&](state<T, M>& s, bool simd) {
      const span<T> p(s.p.data() + 1, kN), m(s.m.data() + 1, kN), v(s.v.data() + 1, kN);
      const span<const T> gg(g.data() + 1, kN);
      const span<M> c = with_copy ? span<M>(s.copy.data() + 1, kN) : span<M>();
      if (decoupled) {
        oi::adam_impl<Policy, T, T, T, M, true>("adamw_step", pol, p, gg, m, v, step, o, u, c, simd);
      } else {
        oi::adam_impl<Policy, T, T, T, M, false>("adam_step", pol, p, gg, m, v, step, o, u, c, simd);
      }
    };
    run(fast, true);
    run(slow, false);
    INFO("params: " << first_diff(fast.p, slow.p));
    INFO("exp_avg: " << first_diff(fast.m, slow.m));
    INFO("exp_avg_sq: " << first_diff(fast.v, slow.v));
    INFO("copy: " << first_diff(fast.copy, slow.copy));
    REQUIRE(count_diff(fast.p, slow.p) == 0);
    REQUIRE(count_diff(fast.m, slow.m) == 0);
    REQUIRE(count_diff(fast.v, slow.v) == 0);
    REQUIRE(count_diff(fast.copy, slow.copy) == 0);
  }
  // The data did something: parameters moved, and both finite and non-finite values remain.
  const std::vector<T> p0 = data<T>(kN + 1, seed, p_lo, p_hi, clean);
  CHECK(count_diff(fast.p, p0) > kN / 2);
}

template <class T, class M, class Policy>
void compare_sgd(Policy pol, const mixprec::sgd_options& o, const mixprec::update_rounding& ur, bool with_copy,
                 std::uint32_t seed, double p_lo = -3, double p_hi = 1, bool clean = false) {
  state<T, M> fast, slow;
  fast.p = data<T>(kN + 1, seed, p_lo, p_hi, clean);
  fast.m = data<T>(kN + 1, seed + 1, -4, 0);  // the momentum buffer (its step-1 contents are not read)
  fast.copy.assign(with_copy ? kN + 1 : 0, M(0.0f));
  slow = fast;
  for (std::int64_t step = 1; step <= 3; ++step) {
    CAPTURE(step);
    const std::vector<T> g = data<T>(kN + 1, seed + 10 + static_cast<std::uint32_t>(step), -6, 2, clean);
    mixprec::update_rounding u = ur;
    u.offset += static_cast<std::uint64_t>(step) * kN;
    auto run = [&](state<T, M>& s, bool simd) {
      const span<T> p(s.p.data() + 1, kN), b(s.m.data() + 1, kN);
      const span<const T> gg(g.data() + 1, kN);
      const span<M> c = with_copy ? span<M>(s.copy.data() + 1, kN) : span<M>();
      oi::sgd_impl(pol, p, gg, b, step, o, u, c, simd);
    };
    run(fast, true);
    run(slow, false);
    INFO("params: " << first_diff(fast.p, slow.p));
    INFO("momentum_buffer: " << first_diff(fast.m, slow.m));
    INFO("copy: " << first_diff(fast.copy, slow.copy));
    REQUIRE(count_diff(fast.p, slow.p) == 0);
    REQUIRE(count_diff(fast.m, slow.m) == 0);
    REQUIRE(count_diff(fast.copy, slow.copy) == 0);
  }
  const std::vector<T> p0 = data<T>(kN + 1, seed, p_lo, p_hi, clean);
  CHECK(count_diff(fast.p, p0) > kN / 4);
}

const mixprec::rounding kModes[] = {mixprec::rounding::nearest_even, mixprec::rounding::stochastic,
                                    mixprec::rounding::toward_zero};

template <class T, class M>
void all_adam(std::uint32_t seed) {
  for (const mixprec::rounding mode : kModes) {
    for (int variant = 0; variant < 8; ++variant) {
      const bool decoupled = (variant & 1) != 0;
      mixprec::adam_options o;
      if ((variant & 2) != 0) o.weight_decay = 0.05f;
      if ((variant & 4) != 0) {  // the other lerp branch, a larger step, eps that half keeps
        o.beta1 = 0.25f;
        o.beta2 = 0.5f;
        o.lr = 0.5f;
        o.eps = 1e-3f;
      }
      for (const bool with_copy : {false, true}) {
        CAPTURE(static_cast<int>(mode));
        CAPTURE(variant);
        CAPTURE(with_copy);
        const mixprec::update_rounding ur{mode, 1234u + seed, 77};
        compare_adam<T, M>(mixprec::exec::seq, decoupled, o, ur, with_copy, seed, -8, 1);
      }
      seed += 100;
    }
  }
}

template <class T, class M>
void all_sgd(std::uint32_t seed) {
  for (const mixprec::rounding mode : kModes) {
    for (int variant = 0; variant < 6; ++variant) {
      mixprec::sgd_options o;
      o.lr = 0.05f;
      if (variant >= 1) o.momentum = 0.9f;
      if (variant == 2) o.dampening = 0.1f;
      if (variant == 3) o.nesterov = true;
      if (variant == 4 || variant == 5) o.weight_decay = 0.01f;
      if (variant == 5) {
        o.nesterov = true;
        o.lr = 4.0f;  // large updates: overflow to infinity in half
      }
      for (const bool with_copy : {false, true}) {
        CAPTURE(static_cast<int>(mode));
        CAPTURE(variant);
        CAPTURE(with_copy);
        const mixprec::update_rounding ur{mode, 99u + seed, 5};
        compare_sgd<T, M>(mixprec::exec::seq, o, ur, with_copy, seed);
      }
      seed += 100;
    }
  }
}

}  // namespace

TEST_CASE("optim fast path: which path this build has") {
  MESSAGE("optimizer fast path: " << std::string(mixprec::detail::simd_optim_path()));
  CHECK(std::string(mixprec::detail::simd_optim_path()).size() > 0);
}

TEST_CASE("optim fast path: Adam and AdamW, bit for bit with the portable loop") {
  SUBCASE("float (master weights)") {
    all_adam<float, half>(1);
    compare_adam<float, bfloat16>(mixprec::exec::seq, false, {}, {}, true, 2, -8, 1);
    compare_adam<float, float>(mixprec::exec::seq, true, {}, {}, true, 3, -8, 1);
    compare_adam<float, e4m3>(mixprec::exec::seq, false, {}, {}, true, 4, -8, 1);
  }
  SUBCASE("bfloat16") {
    all_adam<bfloat16, float>(5);
    compare_adam<bfloat16, half>(mixprec::exec::seq, false, {}, {}, true, 6, -8, 1);
    compare_adam<bfloat16, bfloat16>(mixprec::exec::seq, true, {}, {}, true, 7, -8, 1);
    // eps a subnormal (the denominator's vcvtne2ps2bf16 pairs, which flush subnormals, must be off)
    mixprec::adam_options tiny_eps;
    tiny_eps.eps = 1e-39f;
    compare_adam<bfloat16, float>(mixprec::exec::seq, false, tiny_eps, {}, false, 14, -8, 1);
    compare_adam<bfloat16, float>(mixprec::exec::seq, true, tiny_eps, {mixprec::rounding::stochastic, 3, 0}, false, 15,
                                  -8, 1);
  }
  SUBCASE("bfloat16, finite data: whole vectors of finite values (the vcvtne2ps2bf16 pairs) on most blocks") {
    // bc2 = sqrt(1 - beta2^t), t = 1-3: 0.03-0.05 (PyTorch's default), 0.7-0.9, and 2^-12 to
    // 4.2e-4 (beta2 the float below 1); nearest even and stochastic, with copies or not
    for (const float beta2 : {0.999f, 0.5f, 1.0f - 0x1p-24f}) {
      CAPTURE(beta2);
      mixprec::adam_options o;
      o.beta2 = beta2;
      o.lr = 0.25f;  // (moves most parameters with the small bc2 too)
      compare_adam<bfloat16, float>(mixprec::exec::seq, false, o, {}, false, 16, -8, 1, true);
      compare_adam<bfloat16, bfloat16>(mixprec::exec::seq, true, o, {mixprec::rounding::stochastic, 9, 4}, true, 17,
                                       -8, 1, true);
      o.eps = 0.0f;  // zero lanes of v then give 0 / 0
      compare_adam<bfloat16, half>(mixprec::exec::seq, false, o, {}, true, 18, -8, 1, true);
      o.eps = 1e-39f;  // subnormal eps: no vcvtne2ps2bf16 pairs
      compare_adam<bfloat16, float>(mixprec::exec::par(2), true, o, {}, false, 19, -8, 1, true);
    }
  }
  SUBCASE("half") {
    all_adam<half, bfloat16>(8);
    compare_adam<half, half>(mixprec::exec::seq, false, {}, {}, true, 9, -8, 1);
    compare_adam<half, float>(mixprec::exec::seq, true, {}, {}, true, 10, -8, 1);
    // tiny gradients: v underflows, eps is 0 in half: infinities and NaNs
    compare_adam<half, e4m3>(mixprec::exec::seq, false, {}, {}, true, 11, -12, -4);
  }
  SUBCASE("half, stochastic, parameters around half's subnormal range (1e-9 to 1e-3, finite)") {
    // whole vectors of finite values with lanes below 2^-14 take the encoder's general form
    mixprec::adam_options o;
    o.lr = 1e-6f;  // updates of about 1e-6: the parameters stay in that range
    for (const bool with_copy : {false, true}) {
      CAPTURE(with_copy);
      compare_adam<half, half>(mixprec::exec::seq, false, o, {mixprec::rounding::stochastic, 21, 3}, with_copy, 27,
                               -8, -3, true, -9, -3);
      compare_adam<half, float>(mixprec::exec::seq, true, o, {mixprec::rounding::stochastic, 22, 0}, with_copy, 28,
                                -8, -3, true, -9, -3);
    }
  }
  SUBCASE("par(3): blocks start anywhere, the random stream follows the index") {
    const mixprec::update_rounding sr{mixprec::rounding::stochastic, 5, 17};
    compare_adam<bfloat16, float>(mixprec::exec::par(3), false, {}, sr, true, 12, -8, 1);
    compare_adam<half, half>(mixprec::exec::par(3), true, {}, sr, false, 13, -8, 1);
  }
}

TEST_CASE("optim fast path: SGD, bit for bit with the portable loop") {
  SUBCASE("float") {
    all_sgd<float, bfloat16>(21);
    compare_sgd<float, half>(mixprec::exec::seq, {}, {}, true, 22);
    compare_sgd<float, e4m3>(mixprec::exec::seq, {}, {}, true, 23);
  }
  SUBCASE("bfloat16") { all_sgd<bfloat16, half>(24); }
  SUBCASE("half") {
    all_sgd<half, float>(25);
    compare_sgd<half, bfloat16>(mixprec::exec::seq, {}, {}, true, 26);
  }
  SUBCASE("half, stochastic, parameters around half's subnormal range (1e-9 to 1e-3, finite)") {
    mixprec::sgd_options o;
    o.lr = 1e-7f;  // updates up to about 1e-5
    o.momentum = 0.9f;
    compare_sgd<half, half>(mixprec::exec::seq, o, {mixprec::rounding::stochastic, 23, 1}, true, 29, -9, -3, true);
    o.momentum = 0.0f;
    compare_sgd<half, float>(mixprec::exec::seq, o, {mixprec::rounding::stochastic, 24, 0}, false, 30, -9, -3, true);
  }
}

#if defined(MIXPREC_OPTIM_SIMD)
namespace {
namespace so = mixprec::detail::simd_optim;
using V = so::vec;
using S = so::steps<V>;
constexpr std::size_t kLanes = V::N;

/// Runs f on a vector of floats and returns the lanes.
template <class F>
std::vector<float> lanes_of(const float* in, F f) {
  float out[kLanes];
  V::f_store(out, f(V::f_load(in)));
  return std::vector<float>(out, out + kLanes);
}
/// Runs f on a vector of floats and returns the 32-bit lanes of its result.
template <class F>
std::vector<std::uint32_t> codes_of(const float* in, F f) {
  std::uint32_t out[kLanes];
  V::store(out, f(V::f_load(in)));
  return std::vector<std::uint32_t>(out, out + kLanes);
}
}  // namespace

TEST_CASE("optim fast path: vector rounding = round_to, on a stride through all floats") {
  // Every 997th bit pattern (all exponents, both signs, NaNs, infinities, subnormals), plus
  // the patterns around half's and bfloat16's rounding boundaries, with random bits that
  // include 0 and 2^32 - 1.
  std::vector<std::uint32_t> patterns;
  for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32); b += 997) patterns.push_back(static_cast<std::uint32_t>(b));
  for (std::uint32_t e : {0x33000000u, 0x33800000u, 0x387fc000u, 0x38800000u, 0x477fe000u, 0x477ff000u, 0x7f7f8000u,
                          0x7f7fffffu, 0x00008000u, 0x007f8000u}) {
    for (std::uint32_t d = 0; d < 4; ++d) {
      patterns.push_back(e - d);
      patterns.push_back(e + d);
      patterns.push_back((e + d) | 0x80000000u);
    }
  }
  while (patterns.size() % kLanes != 0) patterns.push_back(0x7fc00001u);
  std::mt19937 gen(3);
  std::size_t mismatches = 0, checked = 0, rounded_up = 0;
  for (std::size_t i = 0; i < patterns.size(); i += kLanes) {
    float x[kLanes];
    std::uint32_t r[kLanes];
    for (std::size_t k = 0; k < kLanes; ++k) {
      std::memcpy(&x[k], &patterns[i + k], 4);
      const std::uint32_t pick = gen() % 8;
      r[k] = pick == 0 ? 0u : pick == 1 ? 0xffffffffu : static_cast<std::uint32_t>(gen());
    }
    const V::vi rv = V::load(r);
    const std::vector<float> hb = lanes_of(x, [](V::vf v) { return S::held<bfloat16>(v); });
    const std::vector<float> hh = lanes_of(x, [](V::vf v) { return S::held<half>(v); });
    const std::vector<float> rb = lanes_of(x, [](V::vf v) { return S::held_result<bfloat16>(v); });
    const std::vector<std::uint32_t> sb = codes_of(x, [&](V::vf v) { return S::stochastic<bfloat16>(v, rv); });
    const std::vector<std::uint32_t> sh = codes_of(x, [&](V::vf v) { return S::stochastic<half>(v, rv); });
    // the form for ops' results (the loops' final writes)
    const std::vector<std::uint32_t> sbr =
        codes_of(x, [&](V::vf v) { return V::srli<16>(S::stochastic_bf16(v, V::srli<16>(rv))); });
    const std::vector<std::uint32_t> shr = codes_of(x, [&](V::vf v) {
      const V::vf xs[S::K] = {v, v};
      const V::vi r16[S::K] = {V::srli<16>(rv), V::srli<16>(rv)};
      V::vh hs[S::K];
      S::stochastic_half(xs, r16, [&](std::size_t) { return rv; }, hs);
      std::uint16_t h[kLanes];
      V::h_store(h, hs[1]);
      std::uint32_t w[kLanes];
      for (std::size_t k = 0; k < kLanes; ++k) w[k] = h[k];
      return V::load(w);
    });
    for (std::size_t k = 0; k < kLanes; ++k) {
      const bfloat16 want_hb = mixprec::round_to<bfloat16>(x[k]);
      const half want_hh = mixprec::round_to<half>(x[k]);
      const bfloat16 want_sb = mixprec::round_to<bfloat16>(x[k], mixprec::rounding::stochastic, mixprec::overflow::ieee, r[k]);
      const half want_sh = mixprec::round_to<half>(x[k], mixprec::rounding::stochastic, mixprec::overflow::ieee, r[k]);
      const bool ok = bits_of(bfloat16(hb[k])) == bits_of(want_hb) && bits_of(half(hh[k])) == bits_of(want_hh) &&
                      sb[k] == bits_of(want_sb) && sh[k] == bits_of(want_sh);
      // held_result: for anything but a NaN with payload bits in the low half or a signalling NaN
      const std::uint32_t u = patterns[i + k];
      const bool nan = (u & 0x7fffffffu) > 0x7f800000u;
      if (!nan || ((u & 0x00400000u) != 0 && (u & 0xffffu) == 0)) {
        REQUIRE(bits_of(bfloat16(rb[k])) == bits_of(want_hb));
        REQUIRE(sbr[k] == bits_of(want_sb));
        REQUIRE(shr[k] == bits_of(want_sh));
      }
      if (!ok && mismatches++ < 5) {
        MESSAGE("x bits 0x" << std::hex << patterns[i + k] << " r 0x" << r[k] << ": stochastic half 0x" << sh[k]
                            << " want 0x" << bits_of(want_sh) << ", bfloat16 0x" << sb[k] << " want 0x"
                            << bits_of(want_sb));
      }
      rounded_up += bits_of(want_sh) != bits_of(mixprec::round_to<half>(x[k], mixprec::rounding::toward_zero)) ? 1 : 0;
      ++checked;
    }
  }
  CHECK(mismatches == 0);
  CHECK(checked > 4000000);
  CHECK(rounded_up > checked / 10);  // stochastic rounding did round up (the test can tell the modes apart)
}

TEST_CASE("optim fast path: stochastic half = round_to below half's normal range") {
  // Vectors without NaN below half's normals (the encoder's general form: the exponent's shift,
  // and 0 or 2^-24 below 2^-24): every float exponent from 2^-24 to 2^-13 with random
  // significands, values below 2^-24 (float subnormals included), zeros of both signs, the ends
  // of the range (2^-24 and the floats next to it, the largest float below 2^-14, which the
  // all-ones bits carry to 2^-14) and a few normals; random bits with 0 and 2^32 - 1.
  std::mt19937 gen(5);
  std::size_t checked = 0, mismatches = 0, wide = 0, tiny = 0, tiny_up = 0;
  for (int round = 0; round < 20000; ++round) {
    float x[kLanes];
    std::uint32_t r[kLanes];
    for (std::size_t k = 0; k < kLanes; ++k) {
      const std::uint32_t pick = gen() % 16;
      std::uint32_t u;
      if (pick == 0) {
        u = 0;
      } else if (pick == 1) {
        u = 0x33800000u;  // 2^-24
      } else if (pick == 2) {
        u = 0x387fffffu;  // below 2^-14
      } else if (pick == 3) {
        u = static_cast<std::uint32_t>(((113u + gen() % 30u) << 23) | (gen() & 0x7fffffu));  // a half normal
      } else if (pick == 4) {
        u = static_cast<std::uint32_t>(((gen() % 103u) << 23) | (gen() & 0x7fffffu));  // below 2^-24
      } else if (pick == 5) {
        u = static_cast<std::uint32_t>(0x33800000u - 2u + gen() % 5u);  // next to 2^-24
      } else {
        u = static_cast<std::uint32_t>(((103u + gen() % 11u) << 23) | (gen() & 0x7fffffu));  // 2^-24 .. 2^-14
      }
      u |= gen() % 2 == 0 ? 0u : 0x80000000u;
      std::memcpy(&x[k], &u, 4);
      const std::uint32_t rp = gen() % 8;
      r[k] = rp == 0 ? 0u : rp == 1 ? 0xffffffffu : static_cast<std::uint32_t>(gen());
    }
    const V::vi rv = V::load(r);
    const std::vector<std::uint32_t> sh = codes_of(x, [&](V::vf v) { return S::stochastic<half>(v, rv); });
    const std::vector<std::uint32_t> shr = codes_of(x, [&](V::vf v) {
      const V::vf xs[S::K] = {v, v};
      const V::vi r16[S::K] = {V::srli<16>(rv), V::srli<16>(rv)};
      V::vh hs[S::K];
      S::stochastic_half(xs, r16, [&](std::size_t) { return rv; }, hs);
      std::uint16_t h[kLanes];
      V::h_store(h, hs[1]);
      std::uint32_t w[kLanes];
      for (std::size_t k = 0; k < kLanes; ++k) w[k] = h[k];
      return V::load(w);
    });
    for (std::size_t k = 0; k < kLanes; ++k) {
      REQUIRE(shr[k] == sh[k]);
      const half want = mixprec::round_to<half>(x[k], mixprec::rounding::stochastic, mixprec::overflow::ieee, r[k]);
      if (sh[k] != bits_of(want) && mismatches++ < 5) {
        std::uint32_t u;
        std::memcpy(&u, &x[k], 4);
        MESSAGE("x bits 0x" << std::hex << u << " r 0x" << r[k] << ": stochastic 0x" << sh[k] << ", want 0x"
                            << bits_of(want));
      }
      wide += std::fabs(x[k]) < 0x1p-14f && x[k] != 0.0f ? 1 : 0;
      tiny += std::fabs(x[k]) < 0x1p-24f && x[k] != 0.0f ? 1 : 0;
      tiny_up += std::fabs(x[k]) < 0x1p-24f && bits_of(want) % 0x8000u == 1 ? 1 : 0;
      ++checked;
    }
  }
  CHECK(mismatches == 0);
  CHECK(wide > checked / 2);
  CHECK(tiny > checked / 20);
  CHECK(tiny_up > tiny / 100);  // some lanes below 2^-24 rounded up to 2^-24
}

TEST_CASE("optim fast path: a stochastic half write below 2^-32 reads bit 0 of the random bits") {
  // Below 2^-32 the discarded part, left-aligned in 32 bits, can be odd, so the carry reads
  // bit 0 of counter_rng's bits. For an element whose bits r are odd and in [2^32 - 2^24,
  // 2^32 - 2^23], the parameter -lr with lr = (2^32 - r) 2^-56 (in [2^-33, 2^-32), 24
  // significant bits) has rem + r = 2^32 exactly: it rounds to -2^-24, and would round to -0
  // with r's bit 0 cleared. Adam with beta1 = beta2 = eps = 0 and m = v = g = 1 makes every
  // update exactly -lr.
  const mixprec::counter_rng rng(41);
  constexpr std::size_t n = std::size_t{1} << 16;
  int found = 0;
  for (std::size_t i = 0; i + 64 < n && found < 4; ++i) {
    const std::uint32_t r = rng(i);
    if (r % 2 == 0 || r < 0xff000000u || r > 0xff800000u) continue;
    ++found;
    CAPTURE(i);
    std::vector<half> p_fast, p_slow;
    const std::vector<half> one(n, half(1.0f));
    mixprec::adam_options o;
    o.beta1 = 0.0f;
    o.beta2 = 0.0f;
    o.eps = 0.0f;
    o.lr = std::ldexp(static_cast<float>(0x100000000ull - r), -56);
    const mixprec::update_rounding ur{mixprec::rounding::stochastic, 41, 0};
    for (const bool simd : {true, false}) {
      std::vector<half> p(n, half(0.0f)), m = one, v = one;
      oi::adam_impl<mixprec::exec::sequenced_policy, half, half, half, float, false>(
          "adam_step", mixprec::exec::seq, span<half>(p), span<const half>(one), span<half>(m), span<half>(v), 1, o, ur,
          span<float>(), simd);
      (simd ? p_fast : p_slow) = p;
    }
    REQUIRE(bits_of(p_slow[i]) == 0x8001u);  // -2^-24: the reference rounds up
    REQUIRE(count_diff(p_fast, p_slow) == 0);
  }
  CHECK(found == 4);
}

TEST_CASE("optim fast path: the block random bits are counter_rng's") {
  // Lane j of vector k of a block's bits is the bits of the element load_block puts there:
  // element k N + j, or 2 j + k for bfloat16 blocks held as even and odd elements.
  const auto check = [](auto tag) {
    using T = decltype(tag);
    for (std::uint64_t seed : {0ull, 1ull, 0xdeadbeefull}) {
      for (std::uint64_t offset : {0ull, 5ull, 0xfffffffffffffff0ull}) {
        const mixprec::counter_rng rng(seed);
        S::block_rng<T> s(rng.key(), offset);
        for (std::uint64_t round = 0; round < 4; ++round) {
          V::vi r[S::K];
          s.next16(r);
          for (std::size_t k = 0; k < S::K; ++k) {
            std::uint32_t got[kLanes], full[kLanes];
            V::store(got, r[k]);
            V::store(full, s.full(k));
            for (std::size_t j = 0; j < kLanes; ++j) {
              const std::uint64_t e = S::even_odd<T> ? 2 * j + k : k * kLanes + j;
              const std::uint32_t want = rng(offset + round * S::K * kLanes + e);
              REQUIRE(got[j] == want >> 16);
              if (!S::even_odd<T>) REQUIRE(full[j] == want);
            }
          }
        }
      }
    }
  };
  check(half{});
  check(bfloat16{});
  CHECK(S::even_odd<bfloat16> == !V::has_lookup128);
}
#endif
