// SPDX-License-Identifier: MIT
// The reader of MMA-Sim's tensor-core test vectors (tests/golden/mma_vectors*.txt, written by
// tests/golden/gen_mma_vectors.py), shared by test_gemm, test_tensor_core and
// test_block_scaled_gemm: the tiles (preset, operand formats, shape, codes) and the conversions
// of their codes. Include after <doctest/doctest.h> (it REQUIREs the file to open).
#ifndef MIXPREC_TESTS_MMA_VECTORS_HPP
#define MIXPREC_TESTS_MMA_VECTORS_HPP

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <mixprec/core/detail/bits.hpp>
#include <mixprec/core/types.hpp>
#include <mixprec/kernels/tensor_core.hpp>

namespace mmatest {

/// One tile: D = the preset's chained instructions over A (rows x k), B (k x n), C (rows x n), with
/// block scales SA, SB (s_fmt, per `block` elements of k) for the scaled presets. a_fmt, b_fmt:
/// e2m1, e2m3, e3m2, e4m3, e5m2, e4m3fnuz, e5m2fnuz, f16, bf16, tf32; s_fmt ue8m0, ue4m3 or "-".
/// The vectors hold codes (bit patterns): C and D in the preset's output format.
struct tile {
  std::string preset, a_fmt, b_fmt, s_fmt;
  std::size_t rows = 0, n = 0, k = 0, block = 0;
  std::vector<std::uint32_t> a, b, c, sa, sb, d;
};

/// The codes of a hex string of w-digit codes.
inline std::vector<std::uint32_t> hex_codes(const std::string& s, std::size_t w) {
  std::vector<std::uint32_t> v;
  for (std::size_t i = 0; i + w <= s.size(); i += w) {
    v.push_back(static_cast<std::uint32_t>(std::stoul(s.substr(i, w), nullptr, 16)));
  }
  return v;
}

/// Hex digits of one code of operand format f: FP4 1, f16 / bf16 4, tf32 8, the byte formats 2.
inline std::size_t hex_width(const std::string& f) {
  return f == "e2m1" ? 1 : (f == "f16" || f == "bf16") ? 4 : f == "tf32" ? 8 : 2;
}

/// The tiles of tests/golden/<file>: lines "tile preset a_fmt b_fmt rows n k s_fmt block", then
/// "A hex", "B hex", "C hex", "SA hex", "SB hex", "D hex" ('#' comments).
inline std::vector<tile> load_tiles(const char* file) {
  std::ifstream in(std::string(MIXPREC_TEST_DATA_DIR) + "/" + file);
  REQUIRE(in.good());
  std::vector<tile> tiles;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string tag, hex;
    ss >> tag;
    if (tag == "tile") {
      tile t;
      ss >> t.preset >> t.a_fmt >> t.b_fmt >> t.rows >> t.n >> t.k >> t.s_fmt >> t.block;
      tiles.push_back(t);
      continue;
    }
    REQUIRE(!tiles.empty());
    ss >> hex;
    tile& t = tiles.back();
    const bool f16 = mixprec::mma_model_of(mixprec::mma_preset_from_name(t.preset)).out == mixprec::mma_output::f16;
    const std::size_t wc = f16 ? 4 : 8;
    if (tag == "A") {
      t.a = hex_codes(hex, hex_width(t.a_fmt));
    } else if (tag == "B") {
      t.b = hex_codes(hex, hex_width(t.b_fmt));
    } else if (tag == "C") {
      t.c = hex_codes(hex, wc);
    } else if (tag == "SA") {
      t.sa = hex_codes(hex, 2);
    } else if (tag == "SB") {
      t.sb = hex_codes(hex, 2);
    } else if (tag == "D") {
      t.d = hex_codes(hex, wc);
    }
  }
  return tiles;
}

/// Codes as values of T (a mixprec type, or float for tf32 codes).
template <class T>
std::vector<T> decode(const std::vector<std::uint32_t>& codes) {
  std::vector<T> v(codes.size());
  for (std::size_t i = 0; i < codes.size(); ++i) {
    if constexpr (std::is_same<T, float>::value) {
      v[i] = mixprec::detail::bit_cast<float>(codes[i]);
    } else {
      v[i] = T::from_bits(static_cast<typename T::storage_type>(codes[i]));
    }
  }
  return v;
}

/// The code of an output value in the preset's output format (f16: exact, the value is one).
inline std::uint32_t out_bits(float x, mixprec::mma_output out) {
  if (out == mixprec::mma_output::f16) return mixprec::half(x).bits();
  return mixprec::detail::bit_cast<std::uint32_t>(x);
}

/// The value of a C code in the preset's output format.
inline float c_value(std::uint32_t bits, mixprec::mma_output out) {
  return out == mixprec::mma_output::f16 ? static_cast<float>(mixprec::half::from_bits(static_cast<std::uint16_t>(bits)))
                                         : mixprec::detail::bit_cast<float>(bits);
}

}  // namespace mmatest

#endif  // MIXPREC_TESTS_MMA_VECTORS_HPP
