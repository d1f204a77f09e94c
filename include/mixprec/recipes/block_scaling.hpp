// SPDX-License-Identifier: MIT
// mixprec/recipes/block_scaling.hpp — the one interface of the block-scaling recipes (MX, NVFP4, DeepSeek
// FP8): a recipe quantizes a row-major rows x cols float tensor into elements + scales and
// dequantizes them back, and describes itself as data (recipe_info).
//
// Contract: every recipe type R (block_scaling_mx.hpp, block_scaling_nvfp4.hpp, block_scaling_fp8.hpp)
// has element_type, scale_type, R::info(), R::quantize(in, rows, cols) and R::dequantize(t, out),
// which block_quantize / block_dequantize call. t.elements is row-major like the input (one element
// per value); t.scales is the row-major grid of ceil(rows / block.rows) x ceil(cols / block.cols)
// block scales (edge blocks shorter, no padding). Layout, block shapes and the recipes:
// docs/pages/block-scaling.md.
//
//   mixprec::mx_block_recipe<mixprec::float8_e4m3fn> r;          // OCP MXFP8, rowwise 1x32
//   auto t = mixprec::block_quantize(r, x.data(), rows, cols);
//   std::vector<float> back = mixprec::block_dequantize(r, t);
#ifndef MIXPREC_BLOCK_SCALING_HPP
#define MIXPREC_BLOCK_SCALING_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/recipes/block_scaling.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace mixprec {

/// The shape of one block: block.rows x block.cols consecutive values of the row-major tensor.
struct block_shape {
  std::size_t rows = 1;   ///< rows per block
  std::size_t cols = 32;  ///< columns per block
};

/// 1 x n blocks along each row.
constexpr block_shape block_rowwise(std::size_t n) noexcept { return block_shape{1, n}; }
/// n x 1 blocks down each column.
constexpr block_shape block_columnwise(std::size_t n) noexcept { return block_shape{n, 1}; }

/// Same rows and cols.
inline bool operator==(const block_shape& a, const block_shape& b) noexcept {
  return a.rows == b.rows && a.cols == b.cols;
}
/// Different rows or cols.
inline bool operator!=(const block_shape& a, const block_shape& b) noexcept { return !(a == b); }

namespace detail {
/// Which of names (an enum's names in value order) name is, as E; std::invalid_argument
/// "mixprec::<fn>: unknown <what> '<name>' (allowed: <names>)" for any other string.
template <class E>
E enum_from_name(const char* fn, const char* what, const std::string& name, std::initializer_list<const char*> names) {
  std::string allowed;
  int i = 0;
  for (const char* n : names) {
    if (name == n) return static_cast<E>(i);
    allowed += (i++ == 0 ? "" : ", ") + std::string(n);
  }
  throw std::invalid_argument(std::string("mixprec::") + fn + ": unknown " + what + " '" + name + "' (allowed: " +
                              allowed + ")");
}
}  // namespace detail

/// A recipe's name and parameters, as data.
struct recipe_info {
  std::string name;        ///< the variant's name, e.g. "ocp_mx/mxfp8_e4m3"
  std::string element;     ///< element format, e.g. "float8_e4m3fn"
  std::string scale;       ///< scale format, e.g. "float8_e8m0fnu", "ue4m3", "float32"
  block_shape block;       ///< the block shape the recipe was given
  bool tensor_scale;       ///< whether a per-tensor FP32 scale is used as well
  bool stochastic;         ///< whether elements are rounded stochastically
  std::string scale_rule;  ///< the exact scale rule, one line
};

/// Elements and scales of a block-scaled tensor (layout: docs/pages/block-scaling.md, "Layout").
template <class Elem, class Scale>
struct block_scaled_tensor {
  std::size_t rows = 0;        ///< tensor rows
  std::size_t cols = 0;        ///< tensor columns
  block_shape block;           ///< the shape of one block
  std::vector<Elem> elements;  ///< rows * cols elements, row-major
  std::vector<Scale> scales;   ///< scale_rows() * scale_cols() block scales, row-major
  float tensor_scale = 1.0f;   ///< the per-tensor FP32 scale (1 where the recipe has none)
  float tensor_amax = 0.0f;    ///< the amax tensor_scale came from (NVFP4; 0 where the recipe has none)

  /// Block rows: ceil(rows / block.rows) (0 for an empty block shape).
  std::size_t scale_rows() const noexcept { return block.rows == 0 ? 0 : (rows + block.rows - 1) / block.rows; }
  /// Block columns: ceil(cols / block.cols) (0 for an empty block shape).
  std::size_t scale_cols() const noexcept { return block.cols == 0 ? 0 : (cols + block.cols - 1) / block.cols; }
  /// The scale of the block that holds element (i, j).
  const Scale& scale_of(std::size_t i, std::size_t j) const {
    return scales[(i / block.rows) * scale_cols() + j / block.cols];
  }
};

namespace detail {

/// Validates arguments and shapes t for quantization (its vectors resized: no allocation and no
/// fill when they already have the size).
template <class Elem, class Scale>
void shape_block_tensor(const char* who, const float* in, std::size_t rows, std::size_t cols, block_shape block,
                        block_scaled_tensor<Elem, Scale>& t) {
  if (block.rows == 0 || block.cols == 0) {
    throw std::invalid_argument(std::string(who) + ": block dimensions must be positive");
  }
  if (in == nullptr && rows != 0 && cols != 0) {
    throw std::invalid_argument(std::string(who) + ": null input with a non-zero size");
  }
  if (cols != 0 && rows > static_cast<std::size_t>(-1) / cols) {
    throw std::invalid_argument(std::string(who) + ": rows * cols overflows");
  }
  t.rows = rows;
  t.cols = cols;
  t.block = block;
  t.tensor_scale = 1.0f;
  t.tensor_amax = 0.0f;
  t.elements.resize(rows * cols);
  t.scales.resize(t.scale_rows() * t.scale_cols());
}

/// Validates arguments and shapes a new tensor for quantization.
template <class Elem, class Scale>
block_scaled_tensor<Elem, Scale> make_block_tensor(const char* who, const float* in, std::size_t rows, std::size_t cols,
                                                   block_shape block) {
  block_scaled_tensor<Elem, Scale> t;
  shape_block_tensor(who, in, rows, cols, block, t);
  return t;
}

/// Checks that t's vectors have the sizes its shape says.
template <class Elem, class Scale>
void check_block_tensor(const char* who, const block_scaled_tensor<Elem, Scale>& t, const void* out) {
  if (t.block.rows == 0 || t.block.cols == 0) {
    throw std::invalid_argument(std::string(who) + ": block dimensions must be positive");
  }
  if (t.elements.size() != t.rows * t.cols || t.scales.size() != t.scale_rows() * t.scale_cols()) {
    throw std::invalid_argument(std::string(who) + ": elements/scales sizes do not match rows, cols and block");
  }
  if (out == nullptr && !t.elements.empty()) throw std::invalid_argument(std::string(who) + ": null output");
}

/// Calls f(block_index, r0, r1, c0, c1) for every block, in the scale grid's row-major order.
template <class F>
void for_each_block(std::size_t rows, std::size_t cols, block_shape b, F&& f) {
  const std::size_t sc = (cols + b.cols - 1) / b.cols;
  for (std::size_t r0 = 0, bi = 0; r0 < rows; r0 += b.rows, ++bi) {
    const std::size_t r1 = rows - r0 < b.rows ? rows : r0 + b.rows;
    for (std::size_t c0 = 0, bj = 0; c0 < cols; c0 += b.cols, ++bj) {
      const std::size_t c1 = cols - c0 < b.cols ? cols : c0 + b.cols;
      f(bi * sc + bj, r0, r1, c0, c1);
    }
  }
}

/// max |x| over a block with fmax from 0 (NaN ignored, an infinity gives inf).
inline float block_amax_fmax(const float* in, std::size_t cols, std::size_t r0, std::size_t r1, std::size_t c0,
                             std::size_t c1) noexcept {
  float m = 0.0f;  // never NaN, so fmax(m, a) is a > m ? a : m (a NaN a leaves m)
  for (std::size_t i = r0; i < r1; ++i)
    for (std::size_t j = c0; j < c1; ++j) {
      const float a = std::fabs(in[i * cols + j]);
      m = a > m ? a : m;
    }
  return m;
}

/// 64 random bits from (seed, index): SplitMix64's finalizer, a counter-based generator.
constexpr std::uint64_t counter_bits(std::uint64_t seed, std::uint64_t index) noexcept {
  std::uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace detail

/// r.quantize(in, rows, cols): in is row-major rows x cols.
template <class Recipe>
auto block_quantize(const Recipe& r, const float* in, std::size_t rows, std::size_t cols)
    -> decltype(r.quantize(in, rows, cols)) {
  return r.quantize(in, rows, cols);
}

/// r.dequantize into a new row-major vector of floats.
template <class Recipe, class Elem, class Scale>
std::vector<float> block_dequantize(const Recipe& r, const block_scaled_tensor<Elem, Scale>& t) {
  std::vector<float> out(t.elements.size());
  r.dequantize(t, out.data());
  return out;
}

}  // namespace mixprec

#endif  // MIXPREC_BLOCK_SCALING_HPP
