// SPDX-License-Identifier: MIT
// Block-scaling recipes (block_scaling*.hpp): torchao 0.18's MX (FLOOR, CEIL, EVEN, RCEIL x five
// element formats) and NVFP4 (one- and two-level) bit for bit from tests/golden/block_scaling.golden;
// the variants torchao does not have (TE NVFP4 orders and stochastic rounding, MXINT8, DeepSeek
// FP8, TE Float8BlockScaling) against re-implementations here in plain float / double arithmetic
// with tests/reference.hpp's rounding; every element code through quantize -> dequantize under
// every scale code; special blocks; the layout of rowwise, columnwise and 2D blocks. Transformer
// Engine MXFP8 (te_rceil, te_rceil_legacy), DeepGEMM and DeepSeek-V3 FP8 blocks and TE's NVFP4
// dequantize order bit for bit from tests/golden/recipe_refs.golden (gen_recipe_refs.py: each
// reference's formula in NumPy float32 / ml_dtypes), at every SIMD level compiled in; variant names.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <mixprec/amp.hpp>

#include "reference.hpp"

#ifndef MIXPREC_TEST_DATA_DIR
#error "MIXPREC_TEST_DATA_DIR must name the tests/golden directory (a string literal)"
#endif

using mixprec::block_shape;
using mixprec::mx_block_rule;

namespace {

const float inf = std::numeric_limits<float>::infinity();
const float qnan = std::numeric_limits<float>::quiet_NaN();

std::uint32_t fbits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
float from_fbits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
/// Same bits, or both NaN.
bool same_f(float a, float b) { return fbits(a) == fbits(b) || (std::isnan(a) && std::isnan(b)); }

struct golden_case {
  std::string family, variant;
  std::size_t rows = 0, cols = 0;
  std::string tensor_scale;
  std::vector<float> in;
  std::vector<unsigned> scale, elem;
  std::vector<float> deq;
};

std::vector<golden_case> read_golden() {
  std::ifstream f(std::string(MIXPREC_TEST_DATA_DIR) + "/block_scaling.golden");
  REQUIRE(f.good());
  std::vector<golden_case> cases;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    std::string tag;
    s >> tag;
    if (tag == "case") {
      cases.emplace_back();
      s >> cases.back().family >> cases.back().variant >> cases.back().rows >> cases.back().cols >>
          cases.back().tensor_scale;
      continue;
    }
    REQUIRE(!cases.empty());
    golden_case& c = cases.back();
    std::string h;
    while (s >> h) {
      const auto v = static_cast<std::uint32_t>(std::stoul(h, nullptr, 16));
      if (tag == "in") c.in.push_back(from_fbits(v));
      if (tag == "deq") c.deq.push_back(from_fbits(v));
      if (tag == "scale") c.scale.push_back(v);
      if (tag == "elem") c.elem.push_back(v);
    }
  }
  return cases;
}

template <class T>
unsigned code_of(const T& x) {
  return static_cast<unsigned>(x.bits());
}

/// Compares one recipe's output with a golden case; returns the mismatches (scale, element, deq).
template <class Recipe>
int compare(const Recipe& r, const golden_case& c) {
  const auto t = r.quantize(c.in.data(), c.rows, c.cols);
  const auto back = mixprec::block_dequantize(r, t);
  int bad = 0;
  REQUIRE(t.scales.size() == c.scale.size());
  REQUIRE(t.elements.size() == c.elem.size());
  for (std::size_t i = 0; i < c.scale.size(); ++i) bad += code_of(t.scales[i]) != c.scale[i];
  for (std::size_t i = 0; i < c.elem.size(); ++i) bad += code_of(t.elements[i]) != c.elem[i];
  for (std::size_t i = 0; i < c.deq.size(); ++i) bad += !same_f(back[i], c.deq[i]);
  if (c.tensor_scale != "-") bad += fbits(t.tensor_scale) != static_cast<std::uint32_t>(std::stoul(c.tensor_scale, nullptr, 16));
  return bad;
}

template <class Elem>
int compare_mx(const golden_case& c, const std::string& mode) {
  mixprec::mx_block_recipe<Elem> r;
  r.rule = mode == "floor"  ? mx_block_rule::ocp_floor
           : mode == "ceil" ? mx_block_rule::ceil_pow2
           : mode == "even" ? mx_block_rule::even
                            : mx_block_rule::te_rceil_legacy;  // torchao RCEIL: TE's earlier code-0 handling
  r.torchao_min_normal_divisor = r.rule != mx_block_rule::te_rceil_legacy;
  return compare(r, c);
}

}  // namespace

TEST_CASE("block scaling: torchao golden vectors, bit for bit") {
  const auto cases = read_golden();
  CHECK(cases.size() == 46);
  int checked = 0;
  for (const auto& c : cases) {
    INFO(c.family << " " << c.variant);
    const auto slash = c.variant.find('/');
    const std::string elem = c.variant.substr(0, slash);
    const std::string mode = slash == std::string::npos ? "" : c.variant.substr(slash + 1);
    int bad = -1;
    if (c.family == "mx") {
      if (elem == "mxfp8_e4m3") bad = compare_mx<mixprec::float8_e4m3fn>(c, mode);
      if (elem == "mxfp8_e5m2") bad = compare_mx<mixprec::float8_e5m2>(c, mode);
      if (elem == "mxfp6_e2m3") bad = compare_mx<mixprec::float6_e2m3fn>(c, mode);
      if (elem == "mxfp6_e3m2") bad = compare_mx<mixprec::float6_e3m2fn>(c, mode);
      if (elem == "mxfp4_e2m1") bad = compare_mx<mixprec::float4_e2m1fn>(c, mode);
    } else {
      mixprec::nvfp4_recipe r;
      r.order = c.variant == "torchao" ? mixprec::nvfp4_order::torchao : mixprec::nvfp4_order::torchao_single;
      bad = compare(r, c);
    }
    CHECK(bad == 0);
    ++checked;
  }
  CHECK(checked == 46);
}

namespace {

const mixprec::rounding rne = mixprec::rounding::nearest_even;
const mixprec::overflow sat = mixprec::overflow::saturate;

/// double -> float, nearest-even, infinity beyond the range.
float to_float(double d) {
  if (std::isnan(d)) return qnan;
  if (std::fabs(d) >= 0x1.ffffffp127) return d < 0 ? -inf : inf;
  return static_cast<float>(d);
}

/// Random blocks of wide and narrow spread over much of float's range, with zeros.
std::vector<float> random_tensor(std::size_t n, std::size_t block, std::mt19937& rng, int lo = -100, int hi = 100) {
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::uniform_int_distribution<int> base(lo, hi);
  std::uniform_int_distribution<int> spread(0, 20);
  std::vector<float> v(n);
  for (std::size_t b = 0; b < n; b += block) {
    const int e0 = base(rng);
    const int sp = spread(rng);
    for (std::size_t i = b; i < n && i < b + block; ++i) {
      float x = std::ldexp(0.5f + 0.5f * u(rng), e0 - static_cast<int>(u(rng) * static_cast<float>(sp)));
      if (u(rng) < 0.5f) x = -x;
      if (u(rng) < 0.03f) x = 0.0f;
      v[i] = x;
    }
  }
  return v;
}

/// max |x| of the block holding (i, j), NaN ignored (a plain loop over the block).
float fmax_amax(const std::vector<float>& x, std::size_t rows, std::size_t cols, block_shape b, std::size_t i,
                std::size_t j) {
  const std::size_t r0 = i / b.rows * b.rows, c0 = j / b.cols * b.cols;
  float m = 0.0f;
  for (std::size_t r = r0; r < rows && r < r0 + b.rows; ++r)
    for (std::size_t c = c0; c < cols && c < c0 + b.cols; ++c) {
      const float a = std::fabs(x[r * cols + c]);
      if (a > m) m = a;
    }
  return m;
}

/// fmax_amax for every element, one pass per block.
std::vector<float> block_amaxes(const std::vector<float>& x, std::size_t rows, std::size_t cols, block_shape b) {
  std::vector<float> out(rows * cols);
  for (std::size_t i = 0; i < rows; i += b.rows)
    for (std::size_t j = 0; j < cols; j += b.cols) {
      const float m = fmax_amax(x, rows, cols, b, i, j);
      for (std::size_t r = i; r < rows && r < i + b.rows; ++r)
        for (std::size_t c = j; c < cols && c < j + b.cols; ++c) out[r * cols + c] = m;
    }
  return out;
}

/// Transformer Engine's NVFP4, written out in float operations (see block_scaling_nvfp4.hpp).
struct te_nvfp4_ref {
  bool legacy = false;
  bool quotient = false;
  float s_enc = 1.0f;
  explicit te_nvfp4_ref(float amax, bool legacy_order, bool quotient_factor) : legacy(legacy_order), quotient(quotient_factor) {
    const float s = std::fmin(2688.0f / amax, std::numeric_limits<float>::max());
    s_enc = (amax == 0.0f || s == 0.0f) ? 1.0f : s;
  }
  float block_scale(float b) const {
    const float rcp6 = 1.0f / 6.0f;
    const float pre = legacy ? (b * rcp6) * s_enc : b * (s_enc * rcp6);
    return static_cast<float>(ref::round(ref::e4m3fn, pre, rne, sat));
  }
  float factor(float S) const {
    const float m = std::numeric_limits<float>::max();
    return quotient ? std::fmin(s_enc / S, m) : std::fmin(1.0f / (S * (1.0f / s_enc)), m);
  }
  double element(float x, float S) const { return ref::round(ref::e2m1fn, static_cast<double>(x * factor(S)), rne, sat); }
};

}  // namespace

TEST_CASE("NVFP4 (Transformer Engine orders, 1D and 2D) against a float re-implementation") {
  std::mt19937 rng(7);
  int differ_by_order = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const std::size_t rows = 32 + static_cast<std::size_t>(trial), cols = 48 + 16 * static_cast<std::size_t>(trial % 3);
    auto x = random_tensor(rows * cols, 16, rng, trial % 4 == 3 ? -140 : -30, trial % 4 == 2 ? 120 : 30);
    for (bool legacy : {false, true})
      for (bool quotient : {false, true})
        for (block_shape b : {mixprec::block_rowwise(16), mixprec::block_columnwise(16), block_shape{16, 16}}) {
          mixprec::nvfp4_recipe r;
          r.order = legacy ? mixprec::nvfp4_order::te_legacy : mixprec::nvfp4_order::te;
          r.factor = quotient ? mixprec::nvfp4_encode_factor::quotient : mixprec::nvfp4_encode_factor::reciprocal;
          r.block = b;
          const auto t = r.quantize(x.data(), rows, cols);
          const auto back = mixprec::block_dequantize(r, t);
          float amax = 0.0f;
          for (float v : x) amax = std::fmax(amax, std::fabs(v));
          const te_nvfp4_ref R(amax, legacy, quotient);
          CHECK(fbits(t.tensor_scale) == fbits(R.s_enc));
          int bad = 0;
          for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t j = 0; j < cols; ++j) {
              const float S = R.block_scale(fmax_amax(x, rows, cols, b, i, j));
              bad += static_cast<float>(t.scale_of(i, j)) != S;
              const double p = R.element(x[i * cols + j], S);
              bad += !ref::same(static_cast<double>(t.elements[i * cols + j]), p);
              const float d = to_float(p * static_cast<double>(S) * static_cast<double>(1.0f / R.s_enc));
              bad += !same_f(back[i * cols + j], d);
            }
          CHECK(bad == 0);
        }
  }
  // The two orders round the E4M3 block scale differently on some (amax, block amax) pairs: find
  // them with the re-implementation, then check the recipe on a two-block tensor for each.
  std::uniform_real_distribution<float> u(1.0f, 2.0f);
  std::uniform_int_distribution<int> e(-20, 20);
  // Aim the block amax at an E4M3 rounding midpoint m (5 significant bits) and try its
  // neighbours: there one more float rounding can change the side.
  for (int k = 0; k < 20000 && differ_by_order < 50; ++k) {
    const float amax = std::ldexp(u(rng), e(rng));
    const te_nvfp4_ref cur(amax, false, false), old(amax, true, false);
    const float m = std::ldexp(1.0f + (2.0f * static_cast<float>(k % 8) + 1.0f) / 16.0f, k % 7 - 3);
    float b = m / (cur.s_enc * (1.0f / 6.0f));
    for (int step = 0; step < k % 5; ++step) b = std::nextafter(b, k % 2 ? inf : 0.0f);
    if (b > amax) continue;
    if (cur.block_scale(b) == old.block_scale(b)) continue;
    std::vector<float> y(32, 0.0f);
    y[0] = amax;
    y[16] = b;
    mixprec::nvfp4_recipe a, l;
    l.order = mixprec::nvfp4_order::te_legacy;
    const auto ta = a.quantize(y.data(), 1, 32), tl = l.quantize(y.data(), 1, 32);
    CHECK(static_cast<float>(ta.scales[1]) == cur.block_scale(b));
    CHECK(static_cast<float>(tl.scales[1]) == old.block_scale(b));
    ++differ_by_order;
  }
  MESSAGE("NVFP4 (amax, block amax) pairs whose E4M3 scale differs between TE's orders: " << differ_by_order);
  CHECK(differ_by_order > 0);
  CHECK(mixprec::nvfp4_recipe{}.info().name == "nvfp4/te");
}

TEST_CASE("NVFP4 special tensors: zero, tiny and huge amax") {
  mixprec::nvfp4_recipe r;
  std::vector<float> z(64, 0.0f);
  auto t = r.quantize(z.data(), 2, 32);
  CHECK(t.tensor_scale == 1.0f);  // amax 0: S_enc = 1
  for (auto s : t.scales) CHECK(s.bits() == 0);
  CHECK(mixprec::block_dequantize(r, t) == z);
  // amax = FLT_MAX: S_enc = 2688 / FLT_MAX (a normal float), the largest block's scale 448.
  std::vector<float> h(32, 1.0f);
  h[3] = std::numeric_limits<float>::max();
  t = r.quantize(h.data(), 1, 32);
  CHECK(t.tensor_scale == 2688.0f / std::numeric_limits<float>::max());
  CHECK(static_cast<float>(t.scales[0]) == 448.0f);
  CHECK(static_cast<float>(t.elements[3]) == 6.0f);
  // amax subnormal: 2688 / amax overflows, S_enc = FLT_MAX.
  std::vector<float> s(16, 0.0f);
  s[0] = 1e-40f;
  t = r.quantize(s.data(), 1, 16);
  CHECK(t.tensor_scale == std::numeric_limits<float>::max());
}

TEST_CASE("NVFP4 stochastic rounding: both neighbours, in proportion, reproducible by seed") {
  // One block, amax 6 -> S_enc = 448, block scale E4M3(6 * (448 / 6)) = 448, R = 1: x itself.
  std::vector<float> x(16, 0.0f);
  x[0] = 6.0f;
  x[1] = 2.5f;   // between 2 and 3: up with probability 1/2
  x[2] = 0.625f; // between 0.5 and 1: up with probability 1/4
  x[3] = -3.5f;  // between -3 and -4: away with probability 1/2
  int up1 = 0, up2 = 0, up3 = 0;
  const int n = 4000;
  for (int s = 0; s < n; ++s) {
    mixprec::nvfp4_recipe r;
    r.stochastic = true;
    r.seed = static_cast<std::uint64_t>(s);
    const auto t = r.quantize(x.data(), 1, 16);
    REQUIRE(static_cast<float>(t.scales[0]) == 448.0f);
    const float a = static_cast<float>(t.elements[1]), b = static_cast<float>(t.elements[2]),
                c = static_cast<float>(t.elements[3]);
    REQUIRE(((a == 2.0f) || (a == 3.0f)));
    REQUIRE(((b == 0.5f) || (b == 1.0f)));
    REQUIRE(((c == -3.0f) || (c == -4.0f)));
    up1 += a == 3.0f;
    up2 += b == 1.0f;
    up3 += c == -4.0f;
    if (s == 5) {
      const auto again = r.quantize(x.data(), 1, 16);
      for (std::size_t k = 0; k < 16; ++k) CHECK(again.elements[k].bits() == t.elements[k].bits());
    }
  }
  // Binomial: 4000 draws, standard deviation <= 32; allow 5 sigma.
  CHECK(std::abs(up1 - n / 2) < 160);
  CHECK(std::abs(up2 - n / 4) < 140);
  CHECK(std::abs(up3 - n / 2) < 160);
  mixprec::nvfp4_recipe r;
  r.stochastic = true;
  CHECK(r.info().name == "nvfp4/te/sr");
  CHECK(r.info().stochastic);
}

TEST_CASE("DeepSeek-V3 FP8 (float and UE8M0 scales) and TE Float8BlockScaling against a re-implementation") {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 6; ++trial) {
    const std::size_t rows = 130 + static_cast<std::size_t>(trial), cols = 200 + 30 * static_cast<std::size_t>(trial);
    auto x = random_tensor(rows * cols, 128, rng, -60, 60);
    for (block_shape b : {mixprec::block_rowwise(128), block_shape{128, 128}, mixprec::block_columnwise(128)}) {
      for (bool ue8m0 : {false, true}) {
        mixprec::deepseek_fp8_recipe r;
        r.block = b;
        r.ue8m0 = ue8m0;
        const auto t = r.quantize(x.data(), rows, cols);
        const auto back = mixprec::block_dequantize(r, t);
        int bad = 0;
        const auto am = block_amaxes(x, rows, cols, b);
        for (std::size_t i = 0; i < rows; ++i)
          for (std::size_t j = 0; j < cols; ++j) {
            const float a = std::fmax(am[i * cols + j], 1e-4f);
            float s = a / 448.0f;
            if (ue8m0) {
              int e;
              const double m = std::frexp(static_cast<double>(s), &e);  // s = m 2^e, m in [0.5, 1)
              s = static_cast<float>(m == 0.5 ? static_cast<double>(s) : std::ldexp(1.0, e));
            }
            bad += t.scale_of(i, j) != s;
            const double p = ref::round(ref::e4m3fn, static_cast<double>(x[i * cols + j] / s), rne, sat);
            bad += !ref::same(static_cast<double>(t.elements[i * cols + j]), p);
            bad += !same_f(back[i * cols + j], to_float(p * static_cast<double>(s)));
          }
        CHECK(bad == 0);
      }
      mixprec::te_fp8_block_recipe te;
      te.block = b;
      const auto t = te.quantize(x.data(), rows, cols);
      const auto back = mixprec::block_dequantize(te, t);
      int bad = 0;
      const auto am = block_amaxes(x, rows, cols, b);
      for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) {
          const float a = am[i * cols + j];
          double scale = 1.0;
          if (a > 0.0f) {
            int e;
            std::frexp(static_cast<double>(448.0f / a), &e);
            scale = std::ldexp(1.0, e - 1);  // rounded down to a power of two
          }
          bad += static_cast<double>(t.scale_of(i, j)) != 1.0 / scale;
          const double p = ref::round(ref::e4m3fn, static_cast<double>(x[i * cols + j]) * scale, rne, sat);
          bad += !ref::same(static_cast<double>(t.elements[i * cols + j]), p);
          bad += !same_f(back[i * cols + j], to_float(p / scale));
        }
      CHECK(bad == 0);
    }
  }
  // Worked values: amax 448 -> s = 1 (both); amax 449 -> s = 449/448, UE8M0 2; amax 0 -> floor 1e-4.
  std::vector<float> v(128, 0.0f);
  v[0] = 449.0f;
  mixprec::deepseek_fp8_recipe d;
  CHECK(d.quantize(v.data(), 1, 128).scales[0] == 449.0f / 448.0f);
  d.ue8m0 = true;
  CHECK(d.quantize(v.data(), 1, 128).scales[0] == 2.0f);
  std::vector<float> z(128, 0.0f);
  CHECK(d.quantize(z.data(), 1, 128).scales[0] == std::ldexp(1.0f, -22));  // 2^ceil(log2(1e-4 / 448)) = 2^-22
  d.amax_floor = 0.0f;
  CHECK(d.quantize(z.data(), 1, 128).scales[0] == 1.0f);
  CHECK(d.info().name == "deepseek_fp8/ue8m0");
}

TEST_CASE("MXINT8 against exact integer arithmetic") {
  std::mt19937 rng(3);
  const auto x = random_tensor(64 * 96, 32, rng, -120, 120);
  mixprec::mx_block_recipe<mixprec::mxint8> r;
  const auto t = r.quantize(x.data(), 64, 96);
  const auto back = mixprec::block_dequantize(r, t);
  int bad = 0;
  for (std::size_t i = 0; i < 64; ++i)
    for (std::size_t j = 0; j < 96; ++j) {
      const float a = fmax_amax(x, 64, 96, mixprec::block_rowwise(32), i, j);
      const int s = a == 0.0f ? -127 : std::max(-127, std::ilogb(static_cast<double>(a)));  // emax_elem = 0
      bad += static_cast<int>(t.scale_of(i, j).bits()) != s + 127;
      const double q = std::ldexp(static_cast<double>(x[i * 96 + j]), 6 - s);  // x / X * 64, exact
      double c = std::floor(q);
      const double f = q - c;
      if (f > 0.5 || (f == 0.5 && std::fmod(c, 2.0) != 0.0)) c += 1.0;
      c = std::min(127.0, std::max(-127.0, c));
      bad += t.elements[i * 96 + j].code != static_cast<int>(c);
      bad += !same_f(back[i * 96 + j], to_float(std::ldexp(c, s - 6)) + 0.0f) && !(back[i * 96 + j] == 0.0f && c == 0.0);
    }
  CHECK(bad == 0);
  std::vector<float> w(32, 0.0f);
  w[0] = 1.5f;
  w[1] = 0.01f;
  w[2] = -2.0f;  // amax 2: X = 2, -2 / 2 * 64 = -64
  const auto q = r.quantize(w.data(), 1, 32);
  CHECK(static_cast<float>(q.scales[0]) == 2.0f);
  CHECK(q.elements[0].code == 48);
  CHECK(q.elements[1].code == 0);  // 0.32 -> 0
  CHECK(q.elements[2].code == -64);
  CHECK(r.info().name == "ocp_mx/mxint8");
}

namespace {

template <class T>
struct fmt;
template <>
struct fmt<mixprec::float8_e4m3fn> {
  static const ref::format& f() { return ref::e4m3fn; }
};
template <>
struct fmt<mixprec::float8_e5m2> {
  static const ref::format& f() { return ref::e5m2; }
};
template <>
struct fmt<mixprec::float6_e2m3fn> {
  static const ref::format& f() { return ref::e2m3fn; }
};
template <>
struct fmt<mixprec::float6_e3m2fn> {
  static const ref::format& f() { return ref::e3m2fn; }
};
template <>
struct fmt<mixprec::float4_e2m1fn> {
  static const ref::format& f() { return ref::e2m1fn; }
};

/// Every element code under every scale code: a block holding max_elem * X (which makes the scale
/// X under both rules) and each non-NaN code's value times X must give back the code and the value.
template <class T>
void every_code_every_scale(mx_block_rule rule) {
  const ref::format& f = fmt<T>::f();
  const std::string what = std::string(f.name) + (rule == mx_block_rule::ocp_floor ? " ocp_floor" : " te_rceil");
  INFO(what);
  const unsigned ncodes = 1u << ref::total_bits(f);
  std::vector<unsigned> codes;
  for (unsigned c = 0; c < ncodes; ++c) {
    if (std::isfinite(ref::decode(f, c))) codes.push_back(c);  // E5M2: its infinities would make a NaN block
  }
  mixprec::mx_block_recipe<T> r;
  r.rule = rule;
  r.block = mixprec::block_rowwise(codes.size() + 1);
  int bad = 0, blocks = 0;
  for (int sc = rule == mx_block_rule::te_rceil ? 1 : 0; sc <= 254; ++sc) {
    const double X = std::ldexp(1.0, sc - 127);
    if (f.max * X > static_cast<double>(std::numeric_limits<float>::max())) continue;
    std::vector<float> x{static_cast<float>(f.max * X)};
    for (unsigned c : codes) x.push_back(static_cast<float>(ref::decode(f, c) * X));  // exact
    const auto t = r.quantize(x.data(), 1, x.size());
    const auto back = mixprec::block_dequantize(r, t);
    bad += t.scales[0].bits() != sc;
    for (std::size_t k = 0; k < codes.size(); ++k) {
      bad += t.elements[k + 1].bits() != codes[k];
      bad += !same_f(back[k + 1], x[k + 1]);
    }
    ++blocks;
  }
  CHECK(bad == 0);
  CHECK(blocks >= 254 - 128 + f.exp_bits);  // at least the scales up to 2^(127 - emax - 1)
}

/// Dequantization under every E8M0 code (0xFF included) of every element code.
template <class T>
void dequantize_every_scale_code() {
  const ref::format& f = fmt<T>::f();
  INFO(std::string(f.name));
  const unsigned ncodes = 1u << ref::total_bits(f);
  mixprec::mx_block_recipe<T> r;
  r.block = mixprec::block_rowwise(ncodes);
  mixprec::block_scaled_tensor<T, mixprec::float8_e8m0fnu> t;
  t.rows = 256;
  t.cols = ncodes;
  t.block = r.block;
  for (unsigned sc = 0; sc < 256; ++sc) {
    t.scales.push_back(mixprec::float8_e8m0fnu::from_bits(static_cast<std::uint8_t>(sc)));
    for (unsigned c = 0; c < ncodes; ++c) t.elements.push_back(T::from_bits(static_cast<typename T::storage_type>(c)));
  }
  const auto back = mixprec::block_dequantize(r, t);
  int bad = 0;
  for (unsigned sc = 0; sc < 256; ++sc)
    for (unsigned c = 0; c < ncodes; ++c) {
      const float want = sc == 255 ? qnan : to_float(ref::decode(f, c) * std::ldexp(1.0, static_cast<int>(sc) - 127));
      bad += !same_f(back[sc * ncodes + c], want);
    }
  CHECK(bad == 0);
}

/// Blocks whose amax is 0, Inf, NaN, subnormal or FLT_MAX, under both MX rules.
template <class T>
void special_blocks() {
  const ref::format& f = fmt<T>::f();
  INFO(std::string(f.name));
  const float fmax = std::numeric_limits<float>::max();
  const float rcp = static_cast<float>(1.0 / f.max);
  const std::vector<float> amaxes{0.0f, inf, qnan, 0x1p-140f, 0x1.8p-127f, 0x1p-126f, fmax};
  for (auto rule : {mx_block_rule::ocp_floor, mx_block_rule::te_rceil, mx_block_rule::te_rceil_legacy}) {
    mixprec::mx_block_recipe<T> r;
    r.rule = rule;
    const bool legacy = rule == mx_block_rule::te_rceil_legacy;
    for (float special : amaxes) {
      INFO("amax " << special << " " << mixprec::mx_block_rule_name(rule));
      std::vector<float> x(32);
      for (std::size_t i = 0; i < 32; ++i) {
        x[i] = std::isfinite(special) ? special * static_cast<float>(i % 7) / 8.0f * (i % 2 ? -1.0f : 1.0f) : 0.0f;
      }
      x[9] = special;
      x[10] = std::isnan(special) ? 1.0f : x[10];  // NaN block: a finite amax beside it
      const auto t = r.quantize(x.data(), 1, 32);
      const auto back = mixprec::block_dequantize(r, t);
      // The expected scale code.
      float amax = 0.0f;
      bool nonfinite = false;
      for (float v : x) {
        nonfinite = nonfinite || !std::isfinite(v);
        if (std::fabs(v) > amax) amax = std::fabs(v);  // NaN never wins
      }
      int code;
      if (rule == mx_block_rule::ocp_floor) {
        code = nonfinite ? 255 : amax == 0.0f ? 0 : std::max(0, std::ilogb(static_cast<double>(amax)) - std::ilogb(f.max) + 127);
      } else {
        const double prod = static_cast<double>(amax * rcp);  // float product, as TE
        code = prod == 0.0 ? 0 : static_cast<int>(std::lround(std::log2(ref::round(ref::e8m0fnu, prod, mixprec::rounding::upward, sat)))) + 127;
      }
      CHECK(static_cast<int>(t.scales[0].bits()) == code);
      for (std::size_t i = 0; i < 32; ++i) {
        double p;  // the expected element
        if (code == 255) {
          CHECK(std::isnan(back[i]));
          continue;
        }
        if (rule == mx_block_rule::ocp_floor) {
          p = ref::round(f, std::ldexp(static_cast<double>(x[i]), 127 - code), rne, sat);
          CHECK(same_f(back[i], to_float(std::ldexp(p, code - 127))));
        } else {
          // TE's exp2f_rcp: 2^(127 - code), 2^-127 for 0xFE; legacy (TE before #2647): 1 for code 0.
          const int k = code == 0 && legacy ? 0 : code == 254 ? -127 : 127 - code;
          p = ref::round(f, std::ldexp(static_cast<double>(x[i]), k), rne, sat);
          // TE's exp2f: 2^(code - 127) (code 0: 2^-127); legacy (TE before #3262): 0 for code 0.
          CHECK(same_f(back[i], code == 0 && legacy ? to_float(p * 0.0) : to_float(std::ldexp(p, code - 127))));
        }
        CHECK(ref::same(static_cast<double>(t.elements[i]), p));
      }
    }
  }
}

}  // namespace

TEST_CASE("MX blocks: every E2M1/E2M3/E3M2/E4M3/E5M2 code under every scale, both rules") {
  for (auto rule : {mx_block_rule::ocp_floor, mx_block_rule::te_rceil}) {
    every_code_every_scale<mixprec::float4_e2m1fn>(rule);
    every_code_every_scale<mixprec::float6_e2m3fn>(rule);
    every_code_every_scale<mixprec::float6_e3m2fn>(rule);
    every_code_every_scale<mixprec::float8_e4m3fn>(rule);
    every_code_every_scale<mixprec::float8_e5m2>(rule);
  }
}

TEST_CASE("MX blocks: dequantize under every E8M0 scale code") {
  dequantize_every_scale_code<mixprec::float4_e2m1fn>();
  dequantize_every_scale_code<mixprec::float6_e2m3fn>();
  dequantize_every_scale_code<mixprec::float6_e3m2fn>();
  dequantize_every_scale_code<mixprec::float8_e4m3fn>();
  dequantize_every_scale_code<mixprec::float8_e5m2>();
}

TEST_CASE("MX blocks: zero, Inf, NaN, subnormal and FLT_MAX amax") {
  special_blocks<mixprec::float4_e2m1fn>();
  special_blocks<mixprec::float6_e2m3fn>();
  special_blocks<mixprec::float6_e3m2fn>();
  special_blocks<mixprec::float8_e4m3fn>();
  special_blocks<mixprec::float8_e5m2>();
}

TEST_CASE("NVFP4: dequantize under every UE4M3 scale code") {
  for (float amax : {1.0f, 2688.0f, 3e-30f}) {
    mixprec::nvfp4_recipe r;
    mixprec::block_scaled_tensor<mixprec::float4_e2m1fn, mixprec::float8_ue4m3> t;
    t.rows = 127;
    t.cols = 16;
    t.block = mixprec::block_rowwise(16);
    t.tensor_scale = 2688.0f / amax;
    for (unsigned sc = 0; sc < 127; ++sc) {  // the positive, non-NaN E4M3 codes: UE4M3
      t.scales.push_back(mixprec::float8_ue4m3::from_bits(static_cast<std::uint8_t>(sc)));
      for (unsigned c = 0; c < 16; ++c) t.elements.push_back(mixprec::float4_e2m1fn::from_bits(static_cast<std::uint8_t>(c)));
    }
    const auto back = mixprec::block_dequantize(r, t);
    int bad = 0;
    for (unsigned sc = 0; sc < 127; ++sc)
      for (unsigned c = 0; c < 16; ++c) {
        const double want = ref::decode(ref::e2m1fn, c) * ref::decode(ref::e4m3fn, sc) *
                            static_cast<double>(1.0f / t.tensor_scale);
        bad += !same_f(back[sc * 16 + c], to_float(want));
      }
    CHECK(bad == 0);
  }
}

TEST_CASE("block layout: columnwise is rowwise of the transpose; 1D MX equals mx.hpp") {
  std::mt19937 rng(5);
  const std::size_t rows = 70, cols = 45;
  const auto x = random_tensor(rows * cols, 32, rng);
  std::vector<float> xt(rows * cols);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) xt[j * rows + i] = x[i * cols + j];
  mixprec::mx_block_recipe<mixprec::float8_e4m3fn> c{mx_block_rule::te_rceil, mixprec::block_columnwise(32)};
  mixprec::mx_block_recipe<mixprec::float8_e4m3fn> r{mx_block_rule::te_rceil, mixprec::block_rowwise(32)};
  const auto tc = c.quantize(x.data(), rows, cols);
  const auto tr = r.quantize(xt.data(), cols, rows);
  CHECK(tc.scale_rows() == 3);
  CHECK(tc.scale_cols() == cols);
  CHECK(tr.scale_rows() == cols);
  CHECK(tr.scale_cols() == 3);
  int bad = 0;
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) {
      bad += tc.elements[i * cols + j].bits() != tr.elements[j * rows + i].bits();
      bad += tc.scale_of(i, j).bits() != tr.scale_of(j, i).bits();
    }
  CHECK(bad == 0);
  const auto both = mixprec::te_mxfp8_quantize_both(x.data(), rows, cols);
  CHECK(both.rowwise.scales.size() == rows * 2);
  CHECK(both.columnwise.scales == tc.scales);
  // rows = 1: the same bits as mx.hpp's mx_quantize (OCP; TE: te_ceil there is te_rceil, code 0 included).
  const std::vector<float> v(x.begin(), x.begin() + 1000);
  const auto old_ocp = mixprec::mx_quantize<mixprec::float6_e3m2fn>(v);
  const mixprec::mx_block_recipe<mixprec::float6_e3m2fn> ocp;
  const auto new_ocp = ocp.quantize(v.data(), 1, v.size());
  CHECK(old_ocp.scales == new_ocp.scales);
  for (std::size_t i = 0; i < v.size(); ++i) bad += old_ocp.elements[i].bits() != new_ocp.elements[i].bits();
  const auto old_te = mixprec::mx_quantize<mixprec::float8_e5m2>(v, mixprec::mx_scale_rule::te_ceil);
  const auto new_te = mixprec::mx_block_recipe<mixprec::float8_e5m2>{mx_block_rule::te_rceil}.quantize(v.data(), 1, v.size());
  CHECK(old_te.scales == new_te.scales);
  for (std::size_t i = 0; i < v.size(); ++i) bad += old_te.elements[i].bits() != new_te.elements[i].bits();
  CHECK(bad == 0);
  CHECK(ocp.info().name == "ocp_mx/mxfp6_e3m2");
  CHECK(ocp.info().element == "float6_e3m2fn");
  CHECK(ocp.info().scale == "float8_e8m0fnu");
  using mixprec::mx_block_recipe;
  CHECK(mx_block_recipe<mixprec::float8_e4m3fn>{mx_block_rule::te_rceil}.info().name == "te_mx/mxfp8_e4m3");
  CHECK(mx_block_recipe<mixprec::float8_e5m2>{}.info().element == "float8_e5m2");
  CHECK(mx_block_recipe<mixprec::float8_e5m2>{}.info().name == "ocp_mx/mxfp8_e5m2");
  CHECK(mx_block_recipe<mixprec::float6_e2m3fn>{mx_block_rule::even}.info().name == "mx_even/mxfp6_e2m3");
  CHECK(mx_block_recipe<mixprec::float6_e2m3fn>{}.info().element == "float6_e2m3fn");
  CHECK(mx_block_recipe<mixprec::float4_e2m1fn>{mx_block_rule::ceil_pow2}.info().name == "mx_ceil/mxfp4_e2m1");
  CHECK(mx_block_recipe<mixprec::float4_e2m1fn>{}.info().element == "float4_e2m1fn");
  CHECK(mx_block_recipe<mixprec::float8_e4m3fn>{}.info().element == "float8_e4m3fn");
  CHECK(mx_block_recipe<mixprec::mxint8>{}.info().element == "int8 * 2^-6");
  CHECK(ocp.info().block == mixprec::block_rowwise(32));
}

TEST_CASE("block scaling: bad arguments") {
  const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> r;
  CHECK_THROWS_WITH_AS(r.quantize(nullptr, 2, 2), "mixprec::mx_block_recipe::quantize: null input with a non-zero size",
                       std::invalid_argument);
  CHECK(r.quantize(nullptr, 0, 5).elements.empty());
  const mixprec::mx_block_recipe<mixprec::float8_e4m3fn> z{mx_block_rule::ocp_floor, block_shape{0, 32}};
  const float one = 1.0f;
  CHECK_THROWS_AS(z.quantize(&one, 1, 1), std::invalid_argument);
  auto t = r.quantize(&one, 1, 1);
  t.scales.push_back(t.scales[0]);
  CHECK_THROWS_WITH_AS(mixprec::block_dequantize(r, t),
                       "mixprec::mx_block_recipe::dequantize: elements/scales sizes do not match rows, cols and block",
                       std::invalid_argument);
  const mixprec::nvfp4_recipe n;
  CHECK_THROWS_AS(n.quantize(nullptr, 1, 1), std::invalid_argument);
  const mixprec::deepseek_fp8_recipe d;
  CHECK_THROWS_AS(d.quantize(nullptr, 1, 1), std::invalid_argument);
}

TEST_CASE("block scaling: the float roundings that decide ties") {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(1.0f, 2.0f);
  // NVFP4: TE's two element factors, 1 / (S * (1 / S_enc)) and S_enc / S, differ by an ulp on some
  // blocks; aim x * R at an E2M1 midpoint to find elements they round differently.
  int nv = 0;
  for (int k = 0; k < 40000 && nv < 20; ++k) {
    const float amax = std::ldexp(u(rng), k % 30 - 15);
    const te_nvfp4_ref rr(amax, false, false), rq(amax, false, true);
    const float bamax = amax * std::ldexp(u(rng), -3);
    const float S = rr.block_scale(bamax);
    if (rr.factor(S) == rq.factor(S)) continue;
    const float mids[] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f};
    float x = mids[k % 7] / rr.factor(S);
    for (int s = 0; s < k % 3; ++s) x = std::nextafter(x, k % 2 ? inf : 0.0f);
    if (rr.element(x, S) == rq.element(x, S)) continue;
    std::vector<float> y(32, 0.0f);
    y[0] = amax;
    y[16] = x;
    y[17] = bamax;
    if (std::fabs(x) > bamax) continue;
    mixprec::nvfp4_recipe a, q;
    q.factor = mixprec::nvfp4_encode_factor::quotient;
    const auto ta = a.quantize(y.data(), 1, 32), tq = q.quantize(y.data(), 1, 32);
    CHECK(static_cast<double>(ta.elements[16]) == rr.element(x, S));
    CHECK(static_cast<double>(tq.elements[16]) == rq.element(x, S));
    ++nv;
  }
  MESSAGE("NVFP4 elements that TE's two encode factors round differently: " << nv);
  CHECK(nv > 0);
  // NVFP4: an infinite amax makes 2688 / amax = 0, and S_enc falls back to 1.
  std::vector<float> w(16, 1.0f);
  w[2] = inf;
  CHECK(mixprec::nvfp4_recipe{}.quantize(w.data(), 1, 16).tensor_scale == 1.0f);
  // DeepSeek: x / s is rounded to float before E4M3; aim at E4M3 midpoints to find x where the
  // float quotient is the midpoint (a tie, to even) but the exact quotient is not.
  int ds = 0;
  for (int k = 0; k < 40000 && ds < 20; ++k) {
    const float a = std::ldexp(u(rng), k % 20 - 10);
    const float s = a / 448.0f;
    const float m = std::ldexp(1.0f + (2.0f * static_cast<float>(k % 8) + 1.0f) / 16.0f, k % 9 - 1);
    float x = m * s;
    for (int st = 0; st < k % 3; ++st) x = std::nextafter(x, k % 2 ? inf : 0.0f);
    if (x > a) continue;
    const double via_float = ref::round(ref::e4m3fn, static_cast<double>(x / s), rne, sat);
    const double exact = ref::round(ref::e4m3fn, static_cast<double>(x) / static_cast<double>(s), rne, sat);
    if (via_float == exact) continue;
    std::vector<float> y(128, 0.0f);
    y[0] = a;
    y[1] = x;
    const auto t = mixprec::deepseek_fp8_recipe{}.quantize(y.data(), 1, 128);
    REQUIRE(t.scales[0] == s);
    CHECK(static_cast<double>(t.elements[1]) == via_float);
    ++ds;
  }
  MESSAGE("DeepSeek elements where the float quotient and the exact one round differently: " << ds);
  CHECK(ds > 0);
  // MX ceil_pow2: the smallest non-zero mantissa rounds the exponent up; MXINT8 ties go to even.
  std::vector<float> c(32, 0.0f);
  c[0] = 1.0f + 0x1p-23f;
  CHECK(mixprec::mx_block_recipe<mixprec::float8_e4m3fn>{mx_block_rule::ceil_pow2}.quantize(c.data(), 1, 32).scales[0].bits() ==
        127 + 1 - 8);
  CHECK(mixprec::mx_block_recipe<mixprec::float8_e4m3fn>{mx_block_rule::ocp_floor}.quantize(c.data(), 1, 32).scales[0].bits() ==
        127 - 8);
  c[0] = 1.0f;  // X = 1
  c[1] = 2.5f / 64.0f;
  c[2] = 3.5f / 64.0f;
  c[3] = -2.5f / 64.0f;
  const auto i8 = mixprec::mx_block_recipe<mixprec::mxint8>{}.quantize(c.data(), 1, 32);
  CHECK(i8.elements[1].code == 2);
  CHECK(i8.elements[2].code == 4);
  CHECK(i8.elements[3].code == -2);
}

TEST_CASE("NVFP4 random Hadamard transform") {
  // Sylvester's construction, written independently: H1 = [1], H2n = [[H, H], [H, -H]].
  std::vector<std::vector<int>> h{{1}};
  while (h.size() < 16) {
    const std::size_t n = h.size();
    std::vector<std::vector<int>> g(2 * n, std::vector<int>(2 * n));
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        g[i][j] = g[i][j + n] = g[i + n][j] = h[i][j];
        g[i + n][j + n] = -h[i][j];
      }
    h = g;
  }
  std::mt19937 rng(13);
  const std::size_t rows = 32, cols = 48;
  const auto x = random_tensor(rows * cols, 16, rng, -10, 10);
  const std::uint16_t signs = 0xA5C3;
  for (block_shape b : {mixprec::block_rowwise(16), mixprec::block_columnwise(16)}) {
    const auto y = mixprec::hadamard16_transform(x.data(), rows, cols, b, signs);
    const auto back = mixprec::hadamard16_inverse(y.data(), rows, cols, b, signs);
    int bad = 0;
    double worst = 0.0;
    const bool along_rows = b.rows == 1;
    const std::size_t lines = along_rows ? rows : cols, len = along_rows ? cols : rows;
    for (std::size_t l = 0; l < lines; ++l)
      for (std::size_t b0 = 0; b0 < len; b0 += 16) {
        auto at = [&](std::size_t t) { return along_rows ? l * cols + t : t * cols + l; };
        double norm = 0.0;
        for (std::size_t j = 0; j < 16 && b0 + j < len; ++j) norm = std::fmax(norm, std::fabs(static_cast<double>(x[at(b0 + j)])));
        for (std::size_t i = 0; i < 16 && b0 + i < len; ++i) {
          double s = 0.0;  // exact: the block's values span less than 2^25
          for (std::size_t j = 0; j < 16 && b0 + j < len; ++j) {
            const double v = static_cast<double>(x[at(b0 + j)]) * (((signs >> j) & 1u) ? -1.0 : 1.0);
            s += h[i][j] * v;
          }
          bad += !same_f(y[at(b0 + i)], static_cast<float>(s / 4.0)) && !(y[at(b0 + i)] == 0.0f && s == 0.0);
          worst = std::fmax(worst, std::fabs(static_cast<double>(back[at(b0 + i)] - x[at(b0 + i)])) / norm);
        }
      }
    CHECK(bad == 0);
    CHECK(worst < 0x1p-20);
    // The recipe with the option is the recipe on the transformed tensor.
    mixprec::nvfp4_recipe r, plain;
    r.hadamard = true;
    r.hadamard_signs = signs;
    r.block = plain.block = b;
    const auto t1 = r.quantize(x.data(), rows, cols), t2 = plain.quantize(y.data(), rows, cols);
    CHECK(t1.scales == t2.scales);
    for (std::size_t k = 0; k < t1.elements.size(); ++k) bad += t1.elements[k].bits() != t2.elements[k].bits();
    CHECK(bad == 0);
    CHECK(r.info().name == "nvfp4/te/rht");
  }
  // All ones, no sign flips: (4, 0, ..., 0); e_3 with bit 3 set: the negated column 3 over 4.
  std::vector<float> ones(16, 1.0f), e3(16, 0.0f);
  e3[3] = 1.0f;
  const auto y1 = mixprec::hadamard16_transform(ones.data(), 1, 16, mixprec::block_rowwise(16), 0);
  CHECK(y1[0] == 4.0f);
  for (std::size_t i = 1; i < 16; ++i) CHECK(y1[i] == 0.0f);
  const auto y3 = mixprec::hadamard16_transform(e3.data(), 1, 16, mixprec::block_rowwise(16), 0x0008);
  for (std::size_t i = 0; i < 16; ++i) CHECK(y3[i] == -0.25f * static_cast<float>(h[i][3]));
  // A GEMM of two operands transformed along K with the same signs is the original product.
  const std::size_t m = 3, k = 32, n = 2;
  const auto a = random_tensor(m * k, 16, rng, -2, 2), w = random_tensor(k * n, 16, rng, -2, 2);
  const auto ta = mixprec::hadamard16_transform(a.data(), m, k, mixprec::block_rowwise(16), signs);
  const auto tw = mixprec::hadamard16_transform(w.data(), k, n, mixprec::block_columnwise(16), signs);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double p = 0.0, q = 0.0, mag = 0.0;
      for (std::size_t kk = 0; kk < k; ++kk) {
        p += static_cast<double>(a[i * k + kk]) * static_cast<double>(w[kk * n + j]);
        q += static_cast<double>(ta[i * k + kk]) * static_cast<double>(tw[kk * n + j]);
        mag += std::fabs(static_cast<double>(a[i * k + kk]) * static_cast<double>(w[kk * n + j]));
      }
      CHECK(std::fabs(p - q) <= 1e-6 * mag);
    }
  mixprec::nvfp4_recipe r2d;
  r2d.hadamard = true;
  r2d.block = block_shape{16, 16};
  CHECK_THROWS_AS(r2d.quantize(ones.data(), 1, 16), std::invalid_argument);
  CHECK_THROWS_WITH_AS(mixprec::hadamard16_transform(ones.data(), 2, 8, mixprec::block_rowwise(16), 0),
                       "mixprec::hadamard16_transform: the length along the blocks must be a multiple of 16",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(mixprec::hadamard16_inverse(ones.data(), 16, 16, block_shape{16, 16}, 0),
                       "mixprec::hadamard16_inverse: blocks must be 1x16 or 16x1", std::invalid_argument);
  CHECK_THROWS_WITH_AS(mixprec::hadamard16_inverse(nullptr, 16, 1, mixprec::block_columnwise(16), 0),
                       "mixprec::hadamard16_inverse: null input", std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// tests/golden/recipe_refs.golden (gen_recipe_refs.py): Transformer Engine MXFP8 (te_rceil and
// te_rceil_legacy), DeepGEMM and DeepSeek-V3 FP8 blocks, TE's NVFP4 dequantize, each computed by
// the generator the way the reference code computes it (NumPy float32 and ml_dtypes).

namespace {

struct ref_case {
  std::string family, variant;
  std::size_t rows = 0, cols = 0, brows = 0, bcols = 0;
  std::vector<float> in;
  std::vector<std::uint32_t> scale, elem, deq;
};

struct nvfp4_ref {
  float amax = 0.0f;
  std::uint32_t s_enc = 0;
  std::vector<std::uint32_t> te, exact;  // index S * 16 + P
};

struct recipe_refs {
  std::vector<ref_case> cases;
  std::vector<nvfp4_ref> nv;
  std::vector<float> ulp_set;
  int max_ulp = -1;
};

recipe_refs read_recipe_refs() {
  std::ifstream f(std::string(MIXPREC_TEST_DATA_DIR) + "/recipe_refs.golden");
  REQUIRE(f.good());
  recipe_refs r;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    std::string tag;
    s >> tag;
    if (tag == "case") {
      r.cases.emplace_back();
      ref_case& c = r.cases.back();
      s >> c.family >> c.variant >> c.rows >> c.cols >> c.brows >> c.bcols;
      continue;
    }
    if (tag == "nvfp4") {
      std::string a, e;
      s >> a >> e;
      r.nv.emplace_back();
      r.nv.back().amax = from_fbits(static_cast<std::uint32_t>(std::stoul(a, nullptr, 16)));
      r.nv.back().s_enc = static_cast<std::uint32_t>(std::stoul(e, nullptr, 16));
      continue;
    }
    if (tag == "nvfp4_max_ulp") {
      s >> r.max_ulp;
      continue;
    }
    std::vector<std::uint32_t> v;
    std::string h;
    while (s >> h) {
      if (h == "=") break;
      v.push_back(static_cast<std::uint32_t>(std::stoul(h, nullptr, 16)));
    }
    if (tag == "nvfp4_ulp_set") {
      for (auto u : v) r.ulp_set.push_back(from_fbits(u));
      continue;
    }
    if (tag == "nvfp4_te" || tag == "nvfp4_exact") {
      REQUIRE(!r.nv.empty());
      (tag == "nvfp4_te" ? r.nv.back().te : r.nv.back().exact) = v;
      continue;
    }
    REQUIRE(!r.cases.empty());
    ref_case& c = r.cases.back();
    if (tag == "in") {
      if (h == "=") {  // the previous case's inputs
        REQUIRE(r.cases.size() >= 2);
        c.in = r.cases[r.cases.size() - 2].in;
      } else {
        for (auto u : v) c.in.push_back(from_fbits(u));
      }
    }
    if (tag == "scale") c.scale = v;
    if (tag == "elem") c.elem = v;
    if (tag == "deq") c.deq = v;
  }
  return r;
}

const recipe_refs& refs() {
  static const recipe_refs r = read_recipe_refs();
  return r;
}

std::vector<mixprec::detail::simd_level> all_levels() {
  std::vector<mixprec::detail::simd_level> v{mixprec::detail::simd_level::portable};
  for (auto l : {mixprec::detail::simd_level::avx2, mixprec::detail::simd_level::avx512})
    if (mixprec::detail::simd_level_compiled(l)) v.push_back(l);
  return v;
}

/// Element codes equal, or both NaN (the references' NaN codes differ in sign between platforms:
/// x86's default NaN is negative, CUDA's positive).
template <class T>
bool same_code(unsigned a, unsigned b) {
  using S = typename T::storage_type;
  return a == b || (std::isnan(static_cast<float>(T::from_bits(static_cast<S>(a)))) &&
                    std::isnan(static_cast<float>(T::from_bits(static_cast<S>(b)))));
}

template <class Elem>
int compare_te_mx(const ref_case& c, mx_block_rule rule, mixprec::detail::simd_level level, int& code0_blocks) {
  const mixprec::mx_block_recipe<Elem> r{rule, mixprec::block_rowwise(32)};
  const auto t = r.quantize_at(level, c.in.data(), c.rows, c.cols);
  std::vector<float> back(c.in.size());
  r.dequantize_at(level, t, back.data());
  int bad = 0;
  REQUIRE(t.scales.size() == c.scale.size());
  for (std::size_t i = 0; i < c.scale.size(); ++i) {
    bad += t.scales[i].bits() != c.scale[i];
    code0_blocks += c.scale[i] == 0;
  }
  for (std::size_t i = 0; i < c.elem.size(); ++i) bad += !same_code<Elem>(t.elements[i].bits(), c.elem[i]);
  for (std::size_t i = 0; i < c.deq.size(); ++i) bad += !same_f(back[i], from_fbits(c.deq[i]));
  // Columnwise 32x1 blocks of the transposed first 16 rows (the columnwise kernels: cols % 16 == 0).
  const std::size_t R = 16, C = c.cols;
  std::vector<float> tr(C * R);
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t j = 0; j < C; ++j) tr[j * R + i] = c.in[i * C + j];
  const mixprec::mx_block_recipe<Elem> rc{rule, mixprec::block_columnwise(32)};
  const auto tc = rc.quantize_at(level, tr.data(), C, R);
  std::vector<float> backc(tr.size());
  rc.dequantize_at(level, tc, backc.data());
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t j = 0; j < C; ++j) {
      bad += tc.scale_of(j, i).bits() != c.scale[i * (C / 32) + j / 32];
      bad += !same_code<Elem>(tc.elements[j * R + i].bits(), c.elem[i * C + j]);
      bad += !same_f(backc[j * R + i], from_fbits(c.deq[i * C + j]));
    }
  return bad;
}

}  // namespace

TEST_CASE("recipe references: TE MXFP8 te_rceil (current TE) and te_rceil_legacy, bit for bit") {
  int cases = 0, code0 = 0;
  for (const auto& c : refs().cases) {
    if (c.family != "te_mxfp8") continue;
    const auto slash = c.variant.find('/');
    const std::string elem = c.variant.substr(0, slash);
    const mx_block_rule rule = mixprec::mx_block_rule_from_name(c.variant.substr(slash + 1));
    for (auto level : all_levels()) {
      INFO(c.variant << " at " << mixprec::detail::simd_level_name(level));
      const int bad = elem == "e4m3" ? compare_te_mx<mixprec::float8_e4m3fn>(c, rule, level, code0)
                                     : compare_te_mx<mixprec::float8_e5m2>(c, rule, level, code0);
      CHECK(bad == 0);
    }
    ++cases;
  }
  CHECK(cases == 4);
  CHECK(code0 > 0);  // the adversarial code-0 blocks are there
}

TEST_CASE("recipe references: DeepGEMM and DeepSeek-V3 FP8 blocks, bit for bit") {
  int cases = 0;
  for (const auto& c : refs().cases) {
    if (c.family != "deepseek_fp8") continue;
    mixprec::deepseek_fp8_recipe d;
    const auto slash = c.variant.find('/');
    d.variant = mixprec::deepseek_fp8_variant_from_name(c.variant.substr(0, slash));
    d.ue8m0 = slash != std::string::npos && c.variant.substr(slash + 1) == "ue8m0";
    d.block = block_shape{c.brows, c.bcols};
    for (auto level : all_levels()) {
      INFO(c.variant << " " << c.brows << "x" << c.bcols << " at " << mixprec::detail::simd_level_name(level));
      const auto t = d.quantize_at(level, c.in.data(), c.rows, c.cols);
      const auto back = mixprec::block_dequantize(d, t);
      int bad = 0;
      REQUIRE(t.scales.size() == c.scale.size());
      for (std::size_t i = 0; i < c.scale.size(); ++i) bad += !same_f(t.scales[i], from_fbits(c.scale[i]));
      for (std::size_t i = 0; i < c.elem.size(); ++i)
        bad += !same_code<mixprec::float8_e4m3fn>(t.elements[i].bits(), c.elem[i]);
      for (std::size_t i = 0; i < c.deq.size(); ++i) bad += !same_f(back[i], from_fbits(c.deq[i]));
      CHECK(bad == 0);
    }
    ++cases;
  }
  CHECK(cases == 10);
  // The two UE8M0 rules part where s is just above a power of two: s = 2^k (1 + 2^-23), k = 5.
  const float s = std::nextafter(32.0f, 64.0f), amax = s * 448.0f;
  mixprec::deepseek_fp8_recipe v3, dg;
  v3.ue8m0 = dg.ue8m0 = true;
  dg.variant = mixprec::deepseek_fp8_variant::deepgemm;
  REQUIRE(amax / 448.0f == s);
  CHECK(v3.scale_for(amax) == 32.0f);  // float32 log2(s) rounds to 5
  CHECK(dg.scale_for(amax) == 64.0f);  // the exponent bits round up
  CHECK(dg.info().name == "deepseek_fp8/deepgemm/ue8m0");
  CHECK(v3.info().name == "deepseek_fp8/ue8m0");
}

TEST_CASE("recipe references: NVFP4 dequantize, TE's nvte_dequantize order and the exact default") {
  const auto& r = refs();
  REQUIRE(r.nv.size() == 6);
  // Every element code (columns) under every finite UE4M3 scale code (rows).
  auto tensor = [](float amax) {
    mixprec::nvfp4_recipe::tensor_type t;
    t.rows = 127;
    t.cols = 16;
    t.block = mixprec::block_rowwise(16);
    t.tensor_scale = mixprec::nvfp4_recipe::te_global_encode_scale(amax);
    t.tensor_amax = amax;
    for (unsigned s = 0; s < 127; ++s) {
      t.scales.push_back(mixprec::float8_ue4m3::from_bits(static_cast<std::uint8_t>(s)));
      for (unsigned p = 0; p < 16; ++p) t.elements.push_back(mixprec::float4_e2m1fn::from_bits(static_cast<std::uint8_t>(p)));
    }
    return t;
  };
  mixprec::nvfp4_recipe exact, te;
  te.dequantize_order = mixprec::nvfp4_dequantize_order::te_nvte;
  CHECK(te.info().name == "nvfp4/te/te_nvte_dequantize");
  for (const auto& n : r.nv) {
    INFO("amax " << n.amax);
    const auto t = tensor(n.amax);
    CHECK(fbits(t.tensor_scale) == n.s_enc);
    for (auto level : all_levels()) {
      std::vector<float> a(t.elements.size()), b(t.elements.size());
      te.dequantize_at(level, t, a.data());
      exact.dequantize_at(level, t, b.data());
      int bad = 0;
      for (std::size_t i = 0; i < a.size(); ++i) {
        bad += !same_f(a[i], from_fbits(n.te[i]));
        bad += !same_f(b[i], from_fbits(n.exact[i]));
      }
      CHECK(bad == 0);
    }
  }
  // The largest distance in ulps between the two orders over the golden's amax set (every 7th
  // amax here, and the whole set's worst case): as measured by the generator.
  auto ordered = [](float f) {
    const long long u = static_cast<long long>(fbits(f));
    return u >= 0x80000000LL ? 0x80000000LL - u : u;
  };
  REQUIRE(r.max_ulp >= 0);
  long long worst = 0;
  std::vector<float> a(127 * 16), b(127 * 16);
  for (std::size_t k = 0; k < r.ulp_set.size(); ++k) {
    if (k % 7 != 0 && fbits(r.ulp_set[k]) != 0x299f4d8au) continue;
    const auto t = tensor(r.ulp_set[k]);
    te.dequantize(t, a.data());
    exact.dequantize(t, b.data());
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::llabs(ordered(a[i]) - ordered(b[i])));
  }
  MESSAGE("NVFP4 dequantize: max ulp distance between te_nvte and exact: " << worst);
  CHECK(worst == r.max_ulp);
}

TEST_CASE("recipe variants by name: unknown names throw, naming the allowed ones, and write nothing") {
  CHECK(mixprec::mx_block_rule_from_name("te_rceil_legacy") == mx_block_rule::te_rceil_legacy);
  CHECK(std::string(mixprec::mx_block_rule_name(mx_block_rule::te_rceil)) == "te_rceil");
  CHECK_THROWS_WITH_AS(mixprec::mx_block_rule_from_name("te_rceil_old"),
                       "mixprec::mx_block_rule_from_name: unknown MX rule 'te_rceil_old' (allowed: ocp_floor, "
                       "te_rceil, ceil_pow2, even, te_rceil_legacy)",
                       std::invalid_argument);
  CHECK(mixprec::deepseek_fp8_variant_from_name("deepgemm") == mixprec::deepseek_fp8_variant::deepgemm);
  CHECK_THROWS_WITH_AS(mixprec::deepseek_fp8_variant_from_name("deepseek"),
                       "mixprec::deepseek_fp8_variant_from_name: unknown DeepSeek FP8 variant 'deepseek' (allowed: v3, "
                       "deepgemm)",
                       std::invalid_argument);
  CHECK(mixprec::nvfp4_dequantize_order_from_name("te_nvte") == mixprec::nvfp4_dequantize_order::te_nvte);
  CHECK_THROWS_WITH_AS(mixprec::nvfp4_dequantize_order_from_name("te"),
                       "mixprec::nvfp4_dequantize_order_from_name: unknown NVFP4 dequantize order 'te' (allowed: exact, "
                       "te_nvte)",
                       std::invalid_argument);
  const std::vector<float> x(64, 1.0f);
  CHECK_THROWS_WITH_AS(mixprec::te_mxfp8_quantize_both(x.data(), 2, 32, mx_block_rule::ocp_floor),
                       "mixprec::te_mxfp8_quantize_both: rule 'ocp_floor' is not a Transformer Engine rule (allowed: "
                       "te_rceil, te_rceil_legacy)",
                       std::invalid_argument);
  // te_nvte with an order that has no TE per-tensor scale: an error, out untouched.
  mixprec::nvfp4_recipe n;
  n.order = mixprec::nvfp4_order::torchao;
  const auto t = n.quantize(x.data(), 2, 32);
  n.dequantize_order = mixprec::nvfp4_dequantize_order::te_nvte;
  std::vector<float> out(64, -7.0f);
  CHECK_THROWS_AS(n.dequantize(t, out.data()), std::invalid_argument);
  CHECK(out == std::vector<float>(64, -7.0f));
}
