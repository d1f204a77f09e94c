// SPDX-License-Identifier: MIT
// NVFP4 stochastic rounding with Transformer Engine's random bits (nvfp4_sr_layout::
// te_vector_blockwise) bit for bit against tests/golden/te_nvfp4_sr.golden, which
// gen_te_nvfp4_sr.py writes from an independent Python reference (its own Philox4x32-10, checked
// against the Random123 known-answer vectors; TE's quantize_transpose_vector_blockwise_fp4 kernel
// simulated thread by thread; TE's software E2M1 rounder in exact arithmetic): the rounder, TE's
// Philox state after init and generate4, and whole tensors (1x16, 16x1 after and without the
// rowwise output, 16x16, partial tiles, a counter that carries into the subsequence words; the TE
// layouts always take the scalar loop, whatever SIMD level is compiled in); the same for TE's BF16 kernels (nvfp4_sr_layout::te_nvfp4_bf16,
// quantize_transpose_nvfp4_tuned_1D and _2D simulated thread by thread). Also: the default layout
// unchanged, names, bad configurations.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <mixprec/recipes/block_scaling_nvfp4.hpp>

#ifndef MIXPREC_TEST_DATA_DIR
#error "MIXPREC_TEST_DATA_DIR must name the tests/golden directory (a string literal)"
#endif

namespace {

float from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// gen_te_nvfp4_sr.py's input_bits.
std::vector<std::uint32_t> input_bits(std::size_t n, std::uint64_t salt) {
  std::vector<std::uint32_t> out(n);
  for (std::size_t k = 0; k < n; ++k) {
    if (k % 61 == 60) {
      out[k] = 0;
    } else if (k % 67 == 66) {
      out[k] = 0x80000000u;
    } else {
      const std::uint64_t r = splitmix64((salt << 32) + k);
      const auto exp = static_cast<std::uint32_t>(121 + (r >> 32) % 8);
      out[k] = static_cast<std::uint32_t>(r >> 63) << 31 | exp << 23 | static_cast<std::uint32_t>(r & 0x7FFFFFu);
    }
  }
  return out;
}

std::uint64_t fnv(const std::vector<std::uint32_t>& bits) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (auto b : bits) h = (h ^ b) * 0x100000001B3ull;
  return h;
}

unsigned hex_at(const std::string& s, std::size_t i, std::size_t digits) {
  return static_cast<unsigned>(std::stoul(s.substr(i, digits), nullptr, 16));
}

std::vector<std::string> golden_lines() {
  std::ifstream f(std::string(MIXPREC_TEST_DATA_DIR) + "/te_nvfp4_sr.golden");
  REQUIRE(f.good());
  std::vector<std::string> lines;
  for (std::string line; std::getline(f, line);)
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  REQUIRE(!lines.empty());
  REQUIRE(lines[0] == "mixprec-te-nvfp4-sr 1");
  return lines;
}

std::vector<mixprec::detail::simd_level> all_levels() {
  std::vector<mixprec::detail::simd_level> v{mixprec::detail::simd_level::portable};
  for (auto l : {mixprec::detail::simd_level::avx2, mixprec::detail::simd_level::avx512})
    if (mixprec::detail::simd_level_compiled(l)) v.push_back(l);
  return v;
}

}  // namespace

TEST_CASE("TE's software E2M1 stochastic rounder, bit for bit") {
  int n = 0;
  for (const auto& line : golden_lines()) {
    std::istringstream in(line);
    std::string tag;
    in >> tag;
    if (tag != "rounder") continue;
    std::string xb;
    unsigned r8 = 0, code = 0;
    in >> xb >> r8 >> std::hex >> code;
    const float x = from_bits(static_cast<std::uint32_t>(std::stoul(xb, nullptr, 16)));
    const float q = mixprec::detail::te_sr_e2m1(x, r8);
    const auto got = mixprec::round_to<mixprec::float4_e2m1fn>(q, mixprec::rounding::nearest_even,
                                                               mixprec::overflow::saturate);
    INFO(line);
    CHECK(static_cast<unsigned>(got.bits()) == code);
    ++n;
  }
  CHECK(n == 26 * 9 + 3);
}

TEST_CASE("TE's Philox state: block k of (seed, subsequence, offset) is Philox4x32-10 at subsequence * 2^64 + offset + k") {
  int n = 0;
  for (const auto& line : golden_lines()) {
    std::istringstream in(line);
    std::string tag;
    in >> tag;
    if (tag != "philox") continue;
    std::uint64_t seed = 0, seq = 0, off = 0, k = 0;
    in >> seed >> seq >> off >> k;
    std::uint32_t w[4] = {};
    for (auto& v : w) {
      std::string h;
      in >> h;
      v = static_cast<std::uint32_t>(std::stoul(h, nullptr, 16));
    }
    const std::uint64_t lo = off + k, hi = seq + (lo < off ? 1u : 0u);
    const auto got = mixprec::philox4x32<10>(
        mixprec::philox4x32_block{static_cast<std::uint32_t>(lo), static_cast<std::uint32_t>(lo >> 32),
                                  static_cast<std::uint32_t>(hi), static_cast<std::uint32_t>(hi >> 32)},
        static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
    INFO(line);
    CHECK(got == mixprec::philox4x32_block{w[0], w[1], w[2], w[3]});
    ++n;
  }
  CHECK(n == 5);
}

TEST_CASE("nvfp4_recipe sr_layout te_vector_blockwise: TE's float32 quantize bit for bit") {
  const auto lines = golden_lines();
  int cases = 0;
  for (std::size_t li = 0; li < lines.size(); ++li) {
    std::istringstream in(lines[li]);
    std::string tag, name, kind, hash;
    in >> tag;
    if (tag != "case") continue;
    std::size_t rows = 0, cols = 0;
    int after = 0;
    std::uint64_t seed = 0, offset = 0, salt = 0;
    in >> name >> rows >> cols >> kind >> after >> seed >> offset >> salt >> hash;
    REQUIRE(li + 2 < lines.size());
    const std::string scales = lines[li + 1].substr(7), elems = lines[li + 2].substr(6);
    REQUIRE(lines[li + 1].compare(0, 7, "scales ") == 0);
    REQUIRE(lines[li + 2].compare(0, 6, "elems ") == 0);
    const auto bits = input_bits(rows * cols, salt);
    REQUIRE(fnv(bits) == std::stoull(hash, nullptr, 16));
    std::vector<float> x(bits.size());
    for (std::size_t k = 0; k < x.size(); ++k) x[k] = from_bits(bits[k]);

    mixprec::nvfp4_recipe r;
    r.block = kind == "row" ? mixprec::block_rowwise(16)
              : kind == "col" ? mixprec::block_columnwise(16)
                              : mixprec::block_shape{16, 16};
    r.stochastic = true;
    r.seed = seed;
    r.sr_layout = mixprec::nvfp4_sr_layout::te_vector_blockwise;
    r.sr_offset = offset;
    r.sr_after_rowwise = after != 0;
    REQUIRE(elems.size() == rows * cols);
    for (auto level : all_levels()) {
      const auto t = r.quantize_at(level, x.data(), rows, cols);
      REQUIRE(t.scales.size() * 2 == scales.size());
      int bad_s = 0, bad_e = 0;
      for (std::size_t b = 0; b < t.scales.size(); ++b) bad_s += t.scales[b].bits() != hex_at(scales, 2 * b, 2);
      for (std::size_t k = 0; k < t.elements.size(); ++k) bad_e += t.elements[k].bits() != hex_at(elems, k, 1);
      INFO(name << " level " << static_cast<int>(level));
      CHECK(bad_s == 0);
      CHECK(bad_e == 0);
    }
    ++cases;
  }
  CHECK(cases == 9);
}

TEST_CASE("nvfp4_recipe sr_layout te_nvfp4_bf16: TE's BF16 quantize (tuned 1D, 2D) bit for bit") {
  const auto lines = golden_lines();
  int cases = 0;
  for (std::size_t li = 0; li < lines.size(); ++li) {
    std::istringstream in(lines[li]);
    std::string tag, name, kind, hash;
    in >> tag;
    if (tag != "bf16case") continue;
    std::size_t rows = 0, cols = 0;
    int with_col = 0;
    std::uint64_t seed = 0, offset = 0, salt = 0;
    in >> name >> rows >> cols >> kind >> with_col >> seed >> offset >> salt >> hash;
    REQUIRE(li + 2 < lines.size());
    REQUIRE(lines[li + 1].compare(0, 7, "scales ") == 0);
    REQUIRE(lines[li + 2].compare(0, 6, "elems ") == 0);
    const std::string scales = lines[li + 1].substr(7), elems = lines[li + 2].substr(6);
    auto bits = input_bits(rows * cols, salt);
    for (auto& b : bits) b &= 0xFFFF0000u;  // bfloat16 values
    REQUIRE(fnv(bits) == std::stoull(hash, nullptr, 16));
    std::vector<float> x(bits.size());
    for (std::size_t k = 0; k < x.size(); ++k) x[k] = from_bits(bits[k]);

    mixprec::nvfp4_recipe r;
    r.block = kind == "row" ? mixprec::block_rowwise(16)
              : kind == "col" ? mixprec::block_columnwise(16)
                              : mixprec::block_shape{16, 16};
    r.stochastic = true;
    r.seed = seed;
    r.sr_layout = mixprec::nvfp4_sr_layout::te_nvfp4_bf16;
    r.sr_offset = offset;
    r.sr_with_columnwise = with_col != 0;
    REQUIRE(elems.size() == rows * cols);
    for (auto level : all_levels()) {
      const auto t = r.quantize_at(level, x.data(), rows, cols);
      REQUIRE(t.scales.size() * 2 == scales.size());
      int bad_s = 0, bad_e = 0;
      for (std::size_t b = 0; b < t.scales.size(); ++b) bad_s += t.scales[b].bits() != hex_at(scales, 2 * b, 2);
      for (std::size_t k = 0; k < t.elements.size(); ++k) bad_e += t.elements[k].bits() != hex_at(elems, k, 1);
      INFO(name << " level " << static_cast<int>(level));
      CHECK(bad_s == 0);
      CHECK(bad_e == 0);
    }
    ++cases;
  }
  CHECK(cases == 8);
}

TEST_CASE("sr_layout te_nvfp4_bf16: name, bad configurations (std::invalid_argument, nothing written)") {
  using mixprec::nvfp4_sr_layout;
  CHECK(std::string(mixprec::nvfp4_sr_layout_name(nvfp4_sr_layout::te_nvfp4_bf16)) == "te_nvfp4_bf16");
  CHECK(mixprec::nvfp4_sr_layout_from_name("te_nvfp4_bf16") == nvfp4_sr_layout::te_nvfp4_bf16);
  auto bits = input_bits(32 * 128, 9);
  for (auto& b : bits) b &= 0xFFFF0000u;
  std::vector<float> x(bits.size());
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = from_bits(bits[k]);
  mixprec::nvfp4_recipe te;
  te.stochastic = true;
  te.seed = 5;
  te.sr_layout = nvfp4_sr_layout::te_nvfp4_bf16;
  CHECK(te.info().name == "nvfp4/te/sr/te_nvfp4_bf16");
  const auto good = te.quantize(x.data(), 32, 128);
  mixprec::nvfp4_recipe alone = te;  // stage 1 (columns 64..127): its rowwise words move without the transpose
  alone.sr_with_columnwise = false;
  CHECK(alone.quantize(x.data(), 32, 128).elements != good.elements);
  mixprec::nvfp4_recipe vb = te;
  vb.sr_layout = nvfp4_sr_layout::te_vector_blockwise;
  CHECK(vb.quantize(x.data(), 32, 128).elements != good.elements);

  const auto rejects = [&](const mixprec::nvfp4_recipe& r, const float* in, std::size_t rows, std::size_t cols) {
    mixprec::nvfp4_recipe::tensor_type keep = good;
    CHECK_THROWS_WITH_AS(r.quantize_into(in, rows, cols, keep), doctest::Contains("te_nvfp4_bf16"),
                         std::invalid_argument);
    CHECK(keep.elements == good.elements);
    CHECK(keep.rows == good.rows);
  };
  std::vector<float> y = x;
  y[77] = from_bits(bits[77] | 1u);  // not a bfloat16 value
  rejects(te, y.data(), 32, 128);
  y[77] = from_bits(0x7F800000u);  // infinity
  rejects(te, y.data(), 32, 128);
  rejects(te, x.data(), 16, 128);  // rows not a multiple of 32
  mixprec::nvfp4_recipe bad = te;
  bad.block = mixprec::block_shape{1, 32};
  rejects(bad, x.data(), 32, 128);
  bad = te;
  bad.block = mixprec::block_columnwise(16);
  bad.sr_after_rowwise = false;  // TE: columnwise only runs the vector-blockwise kernel
  rejects(bad, x.data(), 32, 128);
  bad = te;
  bad.hadamard = true;
  rejects(bad, x.data(), 32, 128);
}

TEST_CASE("sr_layout: names, the default unchanged, bad configurations") {
  using mixprec::nvfp4_sr_layout;
  CHECK(std::string(mixprec::nvfp4_sr_layout_name(nvfp4_sr_layout::counter)) == "counter");
  CHECK(std::string(mixprec::nvfp4_sr_layout_name(nvfp4_sr_layout::te_vector_blockwise)) == "te_vector_blockwise");
  CHECK(mixprec::nvfp4_sr_layout_from_name("te_vector_blockwise") == nvfp4_sr_layout::te_vector_blockwise);
  CHECK(mixprec::nvfp4_sr_layout_from_name("counter") == nvfp4_sr_layout::counter);
  CHECK_THROWS_WITH_AS(mixprec::nvfp4_sr_layout_from_name("philox"),
                       doctest::Contains("allowed: counter, te_vector_blockwise, te_nvfp4_bf16"), std::invalid_argument);

  const auto bits = input_bits(32 * 48, 9);
  std::vector<float> x(bits.size());
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = from_bits(bits[k]);
  mixprec::nvfp4_recipe counter;
  counter.stochastic = true;
  counter.seed = 5;
  CHECK(counter.sr_layout == nvfp4_sr_layout::counter);
  CHECK(counter.info().name == "nvfp4/te/sr");
  mixprec::nvfp4_recipe te = counter;
  te.sr_layout = nvfp4_sr_layout::te_vector_blockwise;
  CHECK(te.info().name == "nvfp4/te/sr/te_vector_blockwise");
  const auto a = counter.quantize(x.data(), 32, 48), b = te.quantize(x.data(), 32, 48);
  CHECK(a.scales == b.scales);  // the layout changes the elements' rounding only
  std::size_t differ = 0;
  for (std::size_t k = 0; k < a.elements.size(); ++k) differ += a.elements[k].bits() != b.elements[k].bits();
  CHECK(differ > 0);
  // quantize_into with the amax given: the same bits
  mixprec::nvfp4_recipe::tensor_type c;
  te.quantize_into(x.data(), 32, 48, c, b.tensor_amax);
  CHECK(c.elements == b.elements);
  // the offset moves the stream
  mixprec::nvfp4_recipe te1 = te;
  te1.sr_offset = 1;
  CHECK(te1.quantize(x.data(), 32, 48).elements != b.elements);

  // blocks TE's kernel does not have, or the Hadamard transform: std::invalid_argument, nothing written
  mixprec::nvfp4_recipe bad = te;
  bad.block = mixprec::block_shape{1, 32};
  mixprec::nvfp4_recipe::tensor_type keep = b;
  CHECK_THROWS_WITH_AS(bad.quantize_into(x.data(), 32, 48, keep), doctest::Contains("allowed:"), std::invalid_argument);
  CHECK(keep.elements == b.elements);
  CHECK(keep.block == b.block);
  bad = te;
  bad.hadamard = true;
  CHECK_THROWS_AS(bad.quantize(x.data(), 32, 48), std::invalid_argument);
  bad.stochastic = false;  // without stochastic rounding the layout plays no part
  CHECK_NOTHROW(bad.quantize(x.data(), 32, 48));
}
