// SPDX-License-Identifier: MIT
// mixprec/recipes/block_scaling_nvfp4.hpp — NVFP4 on the block-scaling interface (block_scaling.hpp):
// float4_e2m1fn elements, one UE4M3 scale (float8_ue4m3) per block of 16, and an FP32 per-tensor
// scale.
//
//   nvfp4_recipe{order, factor, block, stochastic, seed, hadamard, hadamard_signs, ...,
//                sr_layout, sr_offset, sr_after_rowwise, sr_with_columnwise}
//       .quantize(in, rows, cols), .dequantize(t, out), .info()
//   hadamard16_transform / hadamard16_inverse(in, rows, cols, block, signs)
//
// Contract: every float operation is one IEEE float operation (nearest even) in the documented
// order of nvfp4_order (te, the default: Transformer Engine's core_nvfp4.cuh; te_legacy, torchao,
// torchao_single, four_over_six); blocks 1x16 (default), 16x1 or {16, 16}; optional stochastic
// rounding (nvfp4_sr_layout) and 16-point random Hadamard transform; dequantize exact or te_nvte
// (nvfp4_dequantize_order). Each order's formulas, the random bits, the transform and the fast
// path (te orders, detail/simd_block_scaling.hpp, same bits; quantize_at / dequantize_at take the
// level): docs/pages/recipe-nvfp4.md.
//
//   mixprec::nvfp4_recipe r;                      // TE order, 1x16, RNE
//   auto t = r.quantize(x.data(), rows, cols);    // t.scales: E4M3 codes, t.tensor_scale = S_enc
#ifndef MIXPREC_BLOCK_SCALING_NVFP4_HPP
#define MIXPREC_BLOCK_SCALING_NVFP4_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/recipes/block_scaling_nvfp4.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "block_scaling.hpp"
#include "detail/simd_block_scaling.hpp"
#include "../core/random.hpp"
#include "../core/round_to.hpp"
#include "../core/types.hpp"

namespace mixprec {

/// How NVFP4's block scale is computed (docs/pages/recipe-nvfp4.md, "Orders").
enum class nvfp4_order : unsigned char { te, te_legacy, torchao, torchao_single, four_over_six };
/// The error four_over_six compares per block (docs/pages/recipe-nvfp4.md, "Orders").
enum class nvfp4_46_metric : unsigned char { mse, mae, abs_max };
/// How TE's element encode factor R is computed (docs/pages/recipe-nvfp4.md, "Orders").
enum class nvfp4_encode_factor : unsigned char { reciprocal, quotient };
/// How the te orders dequantize (docs/pages/recipe-nvfp4.md, "Dequantize (te orders)"): exact is
/// P * S * float(1 / S_enc) rounded once; te_nvte is TE's nvte_dequantize,
/// P * ((S * amax) * float(1 / 2688)), each product a float.
enum class nvfp4_dequantize_order : unsigned char { exact, te_nvte };

/// Where stochastic rounding's random bits come from, and how they round
/// (docs/pages/recipe-nvfp4.md, "Stochastic rounding"): counter is mixprec's counter-based draw
/// (32 bits per element from (seed, row-major index)); te_vector_blockwise is Transformer Engine's
/// quantize_transpose_vector_blockwise_fp4 (Philox4x32-10 per CUDA thread, 8 bits per element,
/// TE's software E2M1 rounder); te_nvfp4_bf16 is TE's BF16 kernels quantize_transpose_nvfp4_tuned_1D
/// and quantize_transpose_nvfp4_2D (bfloat16 inputs, rows and cols multiples of 32; the same
/// rounder, another assignment of bits).
enum class nvfp4_sr_layout : unsigned char { counter, te_vector_blockwise, te_nvfp4_bf16 };

/// "counter", "te_vector_blockwise" or "te_nvfp4_bf16".
inline const char* nvfp4_sr_layout_name(nvfp4_sr_layout l) noexcept {
  return l == nvfp4_sr_layout::te_vector_blockwise ? "te_vector_blockwise"
         : l == nvfp4_sr_layout::te_nvfp4_bf16     ? "te_nvfp4_bf16"
                                                   : "counter";
}

/// The layout named name ("counter", "te_vector_blockwise", "te_nvfp4_bf16"); std::invalid_argument
/// naming them otherwise.
inline nvfp4_sr_layout nvfp4_sr_layout_from_name(const std::string& name) {
  return detail::enum_from_name<nvfp4_sr_layout>("nvfp4_sr_layout_from_name", "NVFP4 stochastic-rounding layout", name,
                                                 {"counter", "te_vector_blockwise", "te_nvfp4_bf16"});
}

/// "exact" or "te_nvte".
inline const char* nvfp4_dequantize_order_name(nvfp4_dequantize_order o) noexcept {
  return o == nvfp4_dequantize_order::te_nvte ? "te_nvte" : "exact";
}

/// The dequantize order named name ("exact", "te_nvte"); std::invalid_argument naming both otherwise.
inline nvfp4_dequantize_order nvfp4_dequantize_order_from_name(const std::string& name) {
  return detail::enum_from_name<nvfp4_dequantize_order>("nvfp4_dequantize_order_from_name", "NVFP4 dequantize order",
                                                        name, {"exact", "te_nvte"});
}

namespace detail {
/// Entry (i, j) of Sylvester's 16 x 16 Hadamard matrix: (-1)^popcount(i & j).
constexpr int hadamard16(unsigned i, unsigned j) noexcept {
  unsigned v = i & j, p = 0;
  for (; v != 0; v &= v - 1) p ^= 1u;
  return p != 0 ? -1 : 1;
}
/// y = (1/4) H16 D x (inverse = false) or x = D (1/4) H16 y (inverse = true) on every block of 16
/// along rows (block_rowwise(16)) or columns (block_columnwise(16)); who names the caller in the
/// std::invalid_argument for another block, a null input or a length not a multiple of 16.
inline std::vector<float> hadamard16_apply(const char* who, const float* in, std::size_t rows, std::size_t cols,
                                           block_shape block, std::uint16_t signs, bool inverse) {
  const std::string w = std::string("mixprec::") + who + ": ";
  if (!(block == block_rowwise(16) || block == block_columnwise(16))) {
    throw std::invalid_argument(w + "blocks must be 1x16 or 16x1");
  }
  if (in == nullptr && rows * cols != 0) throw std::invalid_argument(w + "null input");
  if ((block.rows == 1 ? cols : rows) % 16 != 0) {
    throw std::invalid_argument(w + "the length along the blocks must be a multiple of 16");
  }
  std::vector<float> out(rows * cols);
  const bool along_rows = block.rows == 1;
  const std::size_t lines = along_rows ? rows : cols, len = along_rows ? cols : rows;
  for (std::size_t l = 0; l < lines; ++l)
    for (std::size_t b = 0; b < len; b += 16) {
      double x[16] = {};
      auto at = [&](std::size_t t) { return along_rows ? l * cols + t : t * cols + l; };
      for (unsigned j = 0; j < 16 && b + j < len; ++j) {
        x[j] = static_cast<double>(in[at(b + j)]);
        if (!inverse && ((signs >> j) & 1u) != 0) x[j] = -x[j];
      }
      for (unsigned i = 0; i < 16 && b + i < len; ++i) {
        double s = 0.0;
        for (unsigned j = 0; j < 16; ++j) s += hadamard16(i, j) > 0 ? x[j] : -x[j];
        s *= 0.25;
        if (inverse && ((signs >> i) & 1u) != 0) s = -s;
        out[at(b + i)] = round_to<float>(s);
      }
    }
  return out;
}
}  // namespace detail

/// The random Hadamard transform of nvfp4_recipe (docs/pages/recipe-nvfp4.md), as a function: block
/// holds 16 values along rows (block_rowwise(16)) or columns (block_columnwise(16)).
inline std::vector<float> hadamard16_transform(const float* in, std::size_t rows, std::size_t cols, block_shape block,
                                               std::uint16_t signs) {
  return detail::hadamard16_apply("hadamard16_transform", in, rows, cols, block, signs, false);
}

/// The inverse of hadamard16_transform (each value rounded once to float from the double sum).
inline std::vector<float> hadamard16_inverse(const float* in, std::size_t rows, std::size_t cols, block_shape block,
                                             std::uint16_t signs) {
  return detail::hadamard16_apply("hadamard16_inverse", in, rows, cols, block, signs, true);
}

namespace detail {
inline float f32_mul(float a, float b) noexcept { return round_to<float>(static_cast<double>(a) * static_cast<double>(b)); }
inline float f32_div(float a, float b) noexcept { return a / b; }  // IEEE float division
inline float e4m3_satfinite(float v) noexcept {
  return static_cast<float>(round_to<float8_ue4m3>(v, rounding::nearest_even, overflow::saturate));
}

/// TE's software E2M1 stochastic rounder (util/ptx.cuh, stochastic_round_fp4_e2m1): 8 random bits
/// r, u = r / 256, t = fmaf(u, step(|x|), |x|), q = fminf(floor(t / step(t)) * step(t), 6) with
/// step 0.5 below 2, 1 in [2, 4), 2 from 4; the sign of x (NaN: +6). Each float operation as TE's.
inline float te_sr_e2m1(float x, std::uint32_t r8) noexcept {
  const float u = static_cast<float>(r8 & 0xFFu) * (1.0f / 256.0f);
  const float a = std::fabs(x);
  const float step = a >= 4.0f ? 2.0f : (a >= 2.0f ? 1.0f : 0.5f);
  const float t = std::fma(u, step, a);  // one rounding, as fmaf
  const float step_t = t >= 4.0f ? 2.0f : (t >= 2.0f ? 1.0f : 0.5f);
  const float inv_step_t = t >= 4.0f ? 0.5f : (t >= 2.0f ? 1.0f : 2.0f);
  const float q = std::fmin(std::floor(t * inv_step_t) * step_t, 6.0f);
  return std::copysign(q, std::isnan(x) ? 1.0f : x);
}

/// Byte `byte` of word `word` of TE's k-th Philox4x32-10 block of thread stream seq
/// (philox4x32_native_state: key = seed, counter = seq 2^64 + offset + k), the last block cached.
class te_philox_bytes {
 public:
  te_philox_bytes(std::uint64_t seed, std::uint64_t offset) noexcept : seed_(seed), offset_(offset) {}

  /// The 8 bits (0..255).
  std::uint32_t operator()(std::uint64_t seq, std::uint64_t k, std::size_t word, std::size_t byte) noexcept {
    if (!cached_ || seq != seq_ || k != k_) {
      const std::uint64_t lo = offset_ + k;  // the 128-bit counter seq * 2^64 + offset + k
      const std::uint64_t hi = seq + (lo < offset_ ? 1u : 0u);
      block_ = philox4x32<10>(philox4x32_block{static_cast<std::uint32_t>(lo), static_cast<std::uint32_t>(lo >> 32),
                                               static_cast<std::uint32_t>(hi), static_cast<std::uint32_t>(hi >> 32)},
                              static_cast<std::uint32_t>(seed_), static_cast<std::uint32_t>(seed_ >> 32));
      seq_ = seq;
      k_ = k;
      cached_ = true;
    }
    const std::uint32_t w = word == 0 ? block_.x : word == 1 ? block_.y : word == 2 ? block_.z : block_.w;
    return (w >> (8 * byte)) & 0xFFu;
  }

 private:
  std::uint64_t seed_, offset_;
  bool cached_ = false;
  std::uint64_t seq_ = 0, k_ = 0;
  philox4x32_block block_{0, 0, 0, 0};
};

/// The random bits of TE's quantize_transpose_vector_blockwise_fp4 for a rows x cols tensor:
/// Philox4x32-10 per CUDA thread, 8 bits per element; the layout: docs/pages/recipe-nvfp4.md,
/// "Stochastic rounding".
class te_vector_blockwise_bits {
 public:
  te_vector_blockwise_bits(std::uint64_t seed, std::uint64_t offset, std::size_t cols, bool columnwise,
                           bool after_rowwise) noexcept
      : bytes_(seed, offset), grid_x_((cols + 127) / 128), columnwise_(columnwise), base_(after_rowwise ? 4u : 0u) {}

  /// The 8 bits (0..255) of element (i, j).
  std::uint32_t operator()(std::size_t i, std::size_t j) noexcept {
    const std::size_t rr = i % 128, cc = j % 128;
    std::uint64_t tid, k;
    std::size_t word, byte;
    if (!columnwise_) {  // step 2: rows rr % 32 of iteration rr / 32, 16 columns per thread
      tid = (rr % 32) * 8 + cc / 16;
      k = rr / 32;
      word = (cc % 16) / 4;
      byte = cc % 4;
    } else {  // step 3: 16 rows x one column per (iteration, smem_idx), after step 2's 4 draws
      tid = ((cc / 2) % 32) * 8 + rr / 16;
      k = base_ + (cc / 64) * 2 + cc % 2;
      word = (rr % 16) / 4;
      byte = rr % 4;
    }
    return bytes_(tid + 256u * (static_cast<std::uint64_t>(j / 128) + static_cast<std::uint64_t>(i / 128) * grid_x_),
                  k, word, byte);
  }

 private:
  te_philox_bytes bytes_;
  std::uint64_t grid_x_;
  bool columnwise_;
  std::uint64_t base_;
};

/// The random bits of TE's BF16 NVFP4 kernels (quantize_transpose_nvfp4_tuned_1D_kernel for 1x16
/// and 16x1 blocks, quantize_transpose_nvfp4_2D_kernel's rowwise output for 16x16) for a rows x
/// cols tensor, 8 bits per element; the layout: docs/pages/recipe-nvfp4.md, "Stochastic rounding".
class te_nvfp4_bf16_bits {
 public:
  /// kind: 0 rowwise (1x16), 1 columnwise (16x1), 2 the 2D kernel's rowwise output (16x16).
  te_nvfp4_bf16_bits(std::uint64_t seed, std::uint64_t offset, std::size_t cols, unsigned kind,
                     bool with_columnwise) noexcept
      : bytes_(seed, offset), grid_x_((cols + 127) / 128), kind_(kind),
        with_columnwise_(kind == 1 || with_columnwise) {}

  /// The 8 bits (0..255) of element (i, j).
  std::uint32_t operator()(std::size_t i, std::size_t j) noexcept {
    const std::size_t rr = i % 128, cc = j % 128, r = rr % 64, c = cc % 64;
    const std::size_t stage = (rr / 64) * 2 + cc / 64, per_stage = with_columnwise_ ? 16 : 8;
    std::size_t tid, n, byte;
    if (kind_ == 2) {  // 2D kernel, stage rr / 32: thread (rr % 16) * 8 + cc / 16, after the columnwise words
      const std::size_t ty = rr % 16, bank_group = (ty % 4) / 2, p16 = cc % 16;
      const std::size_t w = (p16 / 8 + bank_group) % 2, p = p16 % 8;
      tid = ty * 8 + cc / 16;
      n = (rr / 32) * per_stage + (per_stage - 8) + ((rr % 32) / 16) * 4 + w * 2 + p / 4;
      byte = p % 4;
    } else if (kind_ == 0) {  // rowwise_scaling: thread (r % 32) * 4 + c / 16; waves swizzled by bank group
      const std::size_t ty = r % 32, bank_group = (ty % 8) / 4, p16 = c % 16;
      const std::size_t w = (p16 / 8 + bank_group) % 2, p = p16 % 8;
      tid = ty * 4 + c / 16;
      n = stage * per_stage + (r / 32) * 4 + w * 2 + p / 4;
      byte = p % 4;
    } else {  // colwise_scaling: lane c / 2, rows of warp-rotated block r / 16, after the 8 rowwise words
      const std::size_t lane = c / 2, warp = (r / 16 + 4 - (lane / 2) % 4) % 4, q = r % 16;
      tid = warp * 32 + lane;
      n = stage * 16 + 8 + (c % 2) * 4 + (q / 8) * 2 + (q % 8) / 4;
      byte = q % 4;
    }
    return bytes_(tid + 128u * (static_cast<std::uint64_t>(j / 128) + static_cast<std::uint64_t>(i / 128) * grid_x_),
                  n / 4, n % 4, byte);
  }

 private:
  te_philox_bytes bytes_;
  std::uint64_t grid_x_;
  unsigned kind_;
  bool with_columnwise_;
};
namespace nvfp4 {
/// The kernels' layout of a 1x16, 16x1 or 16x16 block.
inline layout layout_of(block_shape b) noexcept {
  return b.rows == 1 ? layout::rows16 : b.cols == 1 ? layout::cols16 : layout::tiles16;
}
}  // namespace nvfp4
}  // namespace detail

/// NVFP4 recipe (docs/pages/recipe-nvfp4.md).
struct nvfp4_recipe {
  using element_type = float4_e2m1fn;  ///< element format (E2M1)
  using scale_type = float8_ue4m3;     ///< block scale format: float8_e4m3fn's non-negative codes
  using tensor_type = block_scaled_tensor<float4_e2m1fn, float8_ue4m3>;  ///< what quantize returns

  nvfp4_order order = nvfp4_order::te;  ///< whose scale computation to reproduce
  nvfp4_encode_factor factor = nvfp4_encode_factor::reciprocal;  ///< te orders: how R is computed
  block_shape block = block_rowwise(16);  ///< 1x16 (default), 16x1, or {16, 16} (TE's 2D weights)
  bool stochastic = false;  ///< te orders: stochastic rounding of the elements
  std::uint64_t seed = 0;   ///< stochastic: the generator's seed (the TE layouts: TE's Philox key, rng_state[0])
  bool hadamard = false;    ///< apply the 16-point random Hadamard transform first (1D blocks only)
  std::uint16_t hadamard_signs = 0;  ///< hadamard: bit j set negates input j of each block (D)
  nvfp4_46_metric metric = nvfp4_46_metric::mse;  ///< four_over_six's error metric
  nvfp4_dequantize_order dequantize_order = nvfp4_dequantize_order::exact;  ///< te orders: how dequantize multiplies
  nvfp4_sr_layout sr_layout = nvfp4_sr_layout::counter;  ///< stochastic: whose random bits and rounder
  std::uint64_t sr_offset = 0;  ///< the TE layouts: TE's rng_state[1] (seed is rng_state[0])
  bool sr_after_rowwise = true;  ///< the TE layouts, 16x1 blocks: TE's call also wrote the rowwise output (te_nvfp4_bf16 needs true)
  bool sr_with_columnwise = true;  ///< te_nvfp4_bf16, 1x16 or 16x16 blocks: TE's call also wrote the columnwise output

  /// The recipe's name, formats, block and scale rule.
  recipe_info info() const {
    const char* names[] = {"nvfp4/te", "nvfp4/te_legacy", "nvfp4/torchao", "nvfp4/torchao_single",
                           "nvfp4/four_over_six"};
    const char* rules[] = {"S_enc = fminf(2688 / amax, FLT_MAX) (1 if amax or S_enc is 0); S = E4M3(b * (S_enc * (1/6)))",
                           "S_enc = fminf(2688 / amax, FLT_MAX) (1 if amax or S_enc is 0); S = E4M3((b * (1/6)) * S_enc)",
                           "pts = amax / 2688; S = E4M3(clamp((b / 6) / pts, 2^-6, 448))",
                           "S = E4M3(clamp(b / 6, 2^-6, 448))",
                           "s = (b / 6) * (1536 / amax); S = E4M3(s) or E4M3(s * 1.5), the lower block error"};
    const auto o = static_cast<std::size_t>(order);
    std::string name = names[o];
    if (order == nvfp4_order::te || order == nvfp4_order::te_legacy) {
      if (factor == nvfp4_encode_factor::quotient) name += "/quotient";
      if (stochastic) name += sr_layout == nvfp4_sr_layout::counter ? std::string("/sr")
                                                                    : std::string("/sr/") + nvfp4_sr_layout_name(sr_layout);
    }
    if (order == nvfp4_order::four_over_six) {
      name += metric == nvfp4_46_metric::mse ? "/mse" : metric == nvfp4_46_metric::mae ? "/mae" : "/abs_max";
    }
    if (hadamard) name += "/rht";
    if (dequantize_order == nvfp4_dequantize_order::te_nvte) name += "/te_nvte_dequantize";
    return recipe_info{name,  "float4_e2m1fn", "ue4m3", block, order != nvfp4_order::torchao_single,
                       stochastic && (order == nvfp4_order::te || order == nvfp4_order::te_legacy), rules[o]};
  }

  /// TE's global encode scale for a tensor amax.
  static float te_global_encode_scale(float amax) noexcept {
    float s = detail::f32_div(448.0f * 6.0f, amax);
    s = std::fmin(s, std::numeric_limits<float>::max());
    if (detail::exact_eq(amax, 0.0f) || detail::exact_eq(s, 0.0f)) return 1.0f;
    return s;
  }

  /// Quantizes the row-major rows x cols tensor `in` (docs/pages/recipe-nvfp4.md, "Orders", has each order).
  /// std::invalid_argument for an empty block shape, a null `in` with a non-zero size, rows *
  /// cols overflowing, or hadamard with blocks other than 1D 16 or a length not a multiple of 16.
  tensor_type quantize(const float* in, std::size_t rows, std::size_t cols) const {
    return quantize_at(detail::simd_best_level, in, rows, cols);
  }

  /// quantize into t, reusing its storage (no allocation when its vectors have the capacity).
  void quantize_into(const float* in, std::size_t rows, std::size_t cols, tensor_type& t) const {
    quantize_into_at(detail::simd_best_level, in, rows, cols, t);
  }

  /// quantize_into with the tensor amax given, one pass over in (TE computes the amax in its own
  /// or an earlier fused kernel): amax of the tensor as quantized (after the Hadamard transform
  /// when hadamard is set); the fmax-fold max |x| gives quantize's result.
  void quantize_into(const float* in, std::size_t rows, std::size_t cols, tensor_type& t, float tensor_amax) const {
    quantize_into_at(detail::simd_best_level, in, rows, cols, t, &tensor_amax);
  }

  /// quantize with the fast path of a given level (portable: the scalar loop); the same bits.
  tensor_type quantize_at(detail::simd_level level, const float* in, std::size_t rows, std::size_t cols) const {
    tensor_type t;
    quantize_into_at(level, in, rows, cols, t);
    return t;
  }

  /// quantize_into with the fast path of a given level (portable: the scalar loop); given_amax:
  /// the tensor amax, or null to compute it.
  void quantize_into_at(detail::simd_level level, const float* in, std::size_t rows, std::size_t cols,
                        tensor_type& t, const float* given_amax = nullptr) const {
    const bool te_order = order == nvfp4_order::te || order == nvfp4_order::te_legacy;
    const bool te_vb = te_order && stochastic && sr_layout == nvfp4_sr_layout::te_vector_blockwise;
    const bool te_bf16 = te_order && stochastic && sr_layout == nvfp4_sr_layout::te_nvfp4_bf16;
    const bool te_bits = te_vb || te_bf16;
    if (te_vb && (hadamard || !(block == block_rowwise(16) || block == block_columnwise(16) ||
                                block == block_shape{16, 16}))) {
      throw std::invalid_argument(
          "mixprec::nvfp4_recipe::quantize: sr_layout te_vector_blockwise models TE's kernel for 1x16, 16x1 and "
          "16x16 blocks without the Hadamard transform (allowed: those blocks, hadamard = false; or sr_layout "
          "counter)");
    }
    if (te_bf16) check_te_nvfp4_bf16(in, rows, cols);
    detail::shape_block_tensor("mixprec::nvfp4_recipe::quantize", in, rows, cols, block, t);
    float tensor_amax = given_amax != nullptr ? *given_amax : 0.0f;
    const bool rowwise16 = block == block_rowwise(16), colwise16 = block == block_columnwise(16);
    const bool tiles16 = block == block_shape{16, 16};
    if (te_order && !te_bits && !hadamard && (rowwise16 || colwise16 || (tiles16 && !stochastic)) &&
        cols % 16 == 0 && level != detail::simd_level::portable &&
        (given_amax != nullptr || detail::amax_at(level, in, rows * cols, tensor_amax))) {
      detail::nvfp4_fast_params p;
      p.s_enc = te_global_encode_scale(tensor_amax);
      p.legacy = order == nvfp4_order::te_legacy;
      p.quotient = factor == nvfp4_encode_factor::quotient;
      if (detail::nvfp4::quantize_at(level, in, rows, cols, detail::nvfp4::layout_of(block), stochastic, p, seed,
                                     reinterpret_cast<std::uint8_t*>(t.elements.data()),
                                     reinterpret_cast<std::uint8_t*>(t.scales.data()))) {
        t.tensor_scale = p.s_enc;
        t.tensor_amax = tensor_amax;
        return;
      }
    }
    std::vector<float> transformed;
    if (hadamard) {
      transformed = hadamard16_transform(in, rows, cols, block, hadamard_signs);
      in = transformed.data();
    }
    const float amax = given_amax != nullptr ? *given_amax : detail::block_amax_fmax(in, cols, 0, rows, 0, cols);
    t.tensor_amax = amax;
    if (order == nvfp4_order::four_over_six) {
      quantize_four_over_six(in, rows, cols, amax, t);
      return;
    }
    const bool te = order == nvfp4_order::te || order == nvfp4_order::te_legacy;
    const float rcp6 = round_to<float>(1.0 / 6.0);
    const float s_enc = te ? te_global_encode_scale(amax) : 1.0f;
    const float pts = order == nvfp4_order::torchao ? detail::f32_div(amax, 2688.0f) : 1.0f;
    t.tensor_scale = te ? s_enc : pts;
    const float flt_max = std::numeric_limits<float>::max();
    detail::te_vector_blockwise_bits te_rbits(seed, sr_offset, cols, block == block_columnwise(16), sr_after_rowwise);
    detail::te_nvfp4_bf16_bits bf16_rbits(seed, sr_offset, cols, rowwise16 ? 0u : colwise16 ? 1u : 2u,
                                          sr_with_columnwise);
    detail::for_each_block(rows, cols, block, [&](std::size_t bi, std::size_t r0, std::size_t r1, std::size_t c0,
                                                  std::size_t c1) {
      const float b = detail::block_amax_fmax(in, cols, r0, r1, c0, c1);
      float sf;  // the block scale's float value
      float r;   // the element encode factor
      if (te) {
        const float pre = order == nvfp4_order::te ? detail::f32_mul(b, detail::f32_mul(s_enc, rcp6))
                                                   : detail::f32_mul(detail::f32_mul(b, rcp6), s_enc);
        sf = detail::e4m3_satfinite(pre);
        r = factor == nvfp4_encode_factor::reciprocal
                ? std::fmin(detail::f32_div(1.0f, detail::f32_mul(sf, detail::f32_div(1.0f, s_enc))), flt_max)
                : std::fmin(detail::f32_div(s_enc, sf), flt_max);
      } else {
        float bs = detail::f32_div(b, 6.0f);
        if (order == nvfp4_order::torchao) bs = detail::f32_div(bs, pts);
        bs = std::fmin(std::fmax(bs, 0.015625f), 448.0f);
        sf = detail::e4m3_satfinite(bs);
        r = order == nvfp4_order::torchao ? detail::f32_div(detail::f32_div(1.0f, pts), sf) : detail::f32_div(1.0f, sf);
      }
      t.scales[bi] = round_to<float8_ue4m3>(sf);
      for (std::size_t i = r0; i < r1; ++i)
        for (std::size_t j = c0; j < c1; ++j) {
          const std::size_t k = i * cols + j;
          const float v = in[k] * r;  // one IEEE float product (= f32_mul; nothing to contract with)
          if (te_bits) {
            const std::uint32_t r8 = te_bf16 ? bf16_rbits(i, j) : te_rbits(i, j);
            t.elements[k] = round_to<float4_e2m1fn>(detail::te_sr_e2m1(v, r8), rounding::nearest_even, overflow::saturate);
          } else if (te && stochastic) {
            const auto bits = static_cast<std::uint32_t>(detail::counter_bits(seed, k) >> 32);
            t.elements[k] = round_to<float4_e2m1fn>(v, rounding::stochastic, overflow::saturate, bits);
          } else {
            t.elements[k] = round_to<float4_e2m1fn>(v, rounding::nearest_even, overflow::saturate);
          }
        }
    });
    return;
  }

  /// sr_layout te_nvfp4_bf16's preconditions (TE runs those kernels only for them), checked before
  /// anything is written: 1x16 or 16x16 blocks, or 16x1 with sr_after_rowwise (TE writes the 1D
  /// transpose only with the rowwise output); no Hadamard transform; rows and cols multiples of 32; every
  /// input a finite bfloat16 value (the low 16 bits of its float zero). std::invalid_argument otherwise.
  void check_te_nvfp4_bf16(const float* in, std::size_t rows, std::size_t cols) const {
    const char* what = nullptr;
    if (hadamard || !(block == block_rowwise(16) || block == block_shape{16, 16} ||
                      (block == block_columnwise(16) && sr_after_rowwise))) {
      what = "1x16 or 16x16 blocks, or 16x1 with sr_after_rowwise, and hadamard = false (TE's other cases: "
             "sr_layout te_vector_blockwise)";
    } else if (rows % 32 != 0 || cols % 32 != 0) {
      what = "rows and cols multiples of 32 (TE's other shapes: sr_layout te_vector_blockwise)";
    } else if (in == nullptr && rows * cols != 0) {
      what = "a non-null input";
    } else {
      for (std::size_t k = 0; k < rows * cols && what == nullptr; ++k) {
        std::uint32_t u;
        std::memcpy(&u, in + k, sizeof u);
        if ((u & 0xFFFFu) != 0 || (u & 0x7F800000u) == 0x7F800000u) what = "finite bfloat16-representable inputs";
      }
    }
    if (what != nullptr) {
      throw std::invalid_argument(std::string("mixprec::nvfp4_recipe::quantize: sr_layout te_nvfp4_bf16 models TE's "
                                              "BF16 kernel (allowed: ") + what + ")");
    }
  }

  /// out receives rows * cols floats, row-major.
  void dequantize(const tensor_type& t, float* out) const { dequantize_at(detail::simd_best_level, t, out); }

  /// dequantize with the fast path of a given level (portable: the scalar loop); the same bits.
  void dequantize_at(detail::simd_level level, const tensor_type& t, float* out) const {
    detail::check_block_tensor("mixprec::nvfp4_recipe::dequantize", t, out);
    const bool te = order == nvfp4_order::te || order == nvfp4_order::te_legacy;
    if (dequantize_order == nvfp4_dequantize_order::te_nvte) {
      if (!te) {
        throw std::invalid_argument(
            "mixprec::nvfp4_recipe::dequantize: dequantize_order te_nvte needs order te or te_legacy (allowed with "
            "other orders: exact)");
      }
      // TE dequantize_fp4_kernel: final_scale = float(S) * amax * factor_inv (left to right),
      // factor_inv = 1.0f / (6.0f * 448); out = P * final_scale.
      const float factor_inv = detail::f32_div(1.0f, 6.0f * 448.0f);
      for (std::size_t i = 0; i < t.rows; ++i)
        for (std::size_t j = 0; j < t.cols; ++j) {
          const float s = static_cast<float>(t.scale_of(i, j));
          const float final_scale = detail::f32_mul(detail::f32_mul(s, t.tensor_amax), factor_inv);
          out[i * t.cols + j] = detail::f32_mul(static_cast<float>(t.elements[i * t.cols + j]), final_scale);
        }
      return;
    }
    // The vector paths decode finite non-negative scale codes (< 0x7F, all quantize writes); a
    // tensor with another code (NaN 0x7F, or a sign bit) takes the scalar loop.
    unsigned top = 0;  // the largest code (a max reduction: vectorized)
    for (const auto& s : t.scales) top = s.bits() > top ? s.bits() : top;
    const bool plain = top < 0x7F;
    const bool fast_block = t.block == block_rowwise(16) || t.block == block_columnwise(16) || t.block == block_shape{16, 16};
    if (te && plain && fast_block &&
        detail::nvfp4::dequantize_at(level, reinterpret_cast<const std::uint8_t*>(t.elements.data()),
                                     reinterpret_cast<const std::uint8_t*>(t.scales.data()), t.rows, t.cols,
                                     detail::nvfp4::layout_of(t.block), detail::f32_div(1.0f, t.tensor_scale), out)) {
      return;
    }
    if (te) {  // P * S * float(1 / S_enc), exact in double (P * (S * s_dec): <= 4 x 4 x 24 bits), rounded once
      const double s_dec = static_cast<double>(detail::f32_div(1.0f, t.tensor_scale));
      double lut[16];
      for (unsigned c = 0; c < 16; ++c) lut[c] = static_cast<double>(float4_e2m1fn::from_bits(static_cast<std::uint8_t>(c)));
      std::vector<double> sd(t.scales.size());
      for (std::size_t k = 0; k < sd.size(); ++k) sd[k] = static_cast<double>(static_cast<float>(t.scales[k])) * s_dec;
      const std::size_t sc = t.scale_cols();
      const std::size_t bc = t.block.cols;
#if defined(MIXPREC_SIMD_X86)
      const bool hw = detail::simd_blk::fp_env_ok();  // then cvtsd2ss is round_to<float> for non-NaN values
#else
      const bool hw = false;
#endif
      for (std::size_t i = 0; i < t.rows; ++i) {
        const double* srow = sd.data() + (i / t.block.rows) * sc;
        for (std::size_t j0 = 0; j0 < t.cols; j0 += bc) {
          const double s = srow[j0 / bc];
          for (std::size_t j = j0; j < std::min(t.cols, j0 + bc); ++j) {
            const double v = lut[t.elements[i * t.cols + j].bits() & 0xFu] * s;
            out[i * t.cols + j] = hw && !std::isnan(v) ? static_cast<float>(v) : round_to<float>(v);
          }
        }
      }
      return;
    }
    for (std::size_t i = 0; i < t.rows; ++i)
      for (std::size_t j = 0; j < t.cols; ++j) {
        const double p = static_cast<double>(t.elements[i * t.cols + j]);
        const float s = static_cast<float>(t.scale_of(i, j));
        float& o = out[i * t.cols + j];
        if (order == nvfp4_order::four_over_six) {
          o = detail::f32_div(detail::f32_mul(detail::f32_mul(static_cast<float>(p), s), t.tensor_scale), 1536.0f);
        } else if (order == nvfp4_order::torchao) {
          o = round_to<float>(p * static_cast<double>(detail::f32_mul(t.tensor_scale, s)));
        } else {
          o = round_to<float>(p * static_cast<double>(s));
        }
      }
  }

  /// four_over_six on in (rows x cols) with tensor amax (docs/pages/recipe-nvfp4.md, "Orders").
  void quantize_four_over_six(const float* in, std::size_t rows, std::size_t cols, float amax, tensor_type& t) const {
    using detail::f32_div;
    using detail::f32_mul;
    t.tensor_scale = amax;
    const bool zero = detail::exact_eq(amax, 0.0f);
    const float enc = f32_div(1536.0f, amax);
    const float dec = f32_div(1.0f, enc);
    detail::for_each_block(rows, cols, block, [&](std::size_t bi, std::size_t r0, std::size_t r1, std::size_t c0,
                                                  std::size_t c1) {
      const float s = zero ? 0.0f : f32_mul(f32_div(detail::block_amax_fmax(in, cols, r0, r1, c0, c1), 6.0f), enc);
      const float cand[2] = {detail::e4m3_satfinite(s), detail::e4m3_satfinite(f32_mul(s, 1.5f))};  // S6, S4
      float err[2] = {0.0f, 0.0f};
      for (int c = 0; c < 2; ++c) {
        const float sc = cand[c];
        const float r = f32_div(1.0f, f32_mul(dec, sc));
        for (std::size_t i = r0; i < r1; ++i)
          for (std::size_t j = c0; j < c1; ++j) {
            const float x = in[i * cols + j];
            const float y = detail::exact_eq(sc, 0.0f) ? 0.0f : f32_mul(x, r);
            const float p = static_cast<float>(round_to<float4_e2m1fn>(y, rounding::nearest_even, overflow::saturate));
            const float e = f32_div(f32_mul(f32_mul(p, sc), amax), 1536.0f) - x;
            if (metric == nvfp4_46_metric::mse) {
              err[c] = err[c] + f32_mul(e, e);
            } else if (metric == nvfp4_46_metric::mae) {
              err[c] = err[c] + std::fabs(e);
            } else {
              err[c] = std::fmax(err[c], std::fabs(e));
            }
          }
      }
      const float sc = err[1] < err[0] ? cand[1] : cand[0];
      t.scales[bi] = round_to<float8_ue4m3>(sc);
      const float r = f32_div(1.0f, f32_mul(dec, sc));
      for (std::size_t i = r0; i < r1; ++i)
        for (std::size_t j = c0; j < c1; ++j) {
          const float y = detail::exact_eq(sc, 0.0f) ? 0.0f : f32_mul(in[i * cols + j], r);
          t.elements[i * cols + j] = round_to<float4_e2m1fn>(y, rounding::nearest_even, overflow::saturate);
        }
    });
  }
};

}  // namespace mixprec

#endif  // MIXPREC_BLOCK_SCALING_NVFP4_HPP
