// SPDX-License-Identifier: MIT
// Block-scaling recipes (block_scaling*.hpp): torchao 0.18's MX (FLOOR, CEIL, EVEN, RCEIL x five
// element formats) and NVFP4 (one- and two-level) bit for bit from tests/golden/block_scaling.golden;
// the variants torchao does not have (TE NVFP4 orders and stochastic rounding, MXINT8, DeepSeek
// FP8, TE Float8BlockScaling) against re-implementations here in plain float / double arithmetic
// with tests/reference.hpp's rounding; every element code through quantize -> dequantize under
// every scale code; special blocks; the layout of rowwise, columnwise and 2D blocks.
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
                            : mx_block_rule::te_rceil;
  r.torchao_min_normal_divisor = r.rule != mx_block_rule::te_rceil;
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
