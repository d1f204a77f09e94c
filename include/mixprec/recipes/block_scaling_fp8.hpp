// SPDX-License-Identifier: MIT
// mixprec/recipes/block_scaling_fp8.hpp — fine-grained FP8 block scaling on the block-scaling interface
// (block_scaling.hpp): float8_e4m3fn elements with one FP32 scale (a decode factor) per block.
//
//   deepseek_fp8_recipe{block, ue8m0, amax_floor, variant}   DeepSeek-V3 (variants v3, deepgemm)
//   te_fp8_block_recipe{block, epsilon}                      TE Float8BlockScaling
//       .quantize(in, rows, cols), .dequantize(t, out), .info()
//
// Contract: blocks 1x128 (default) or {128, 128}, any shape allowed; DeepSeek: s = max(amax,
// amax_floor) / 448 (ue8m0: rounded up to a power of two); TE: s = 1 / (448 / amax rounded down to
// a power of two); elements E4M3; dequantize is P * s rounded once. Each variant's formulas and the
// fast path (v3, 1x128, cols % 128 == 0, same bits; quantize_at takes the level):
// docs/pages/recipe-fp8-blocks.md.
//
//   mixprec::deepseek_fp8_recipe w{mixprec::block_shape{128, 128}};
//   auto t = w.quantize(x.data(), rows, cols);   // t.scales: ceil(rows/128) x ceil(cols/128) floats
#ifndef MIXPREC_BLOCK_SCALING_FP8_HPP
#define MIXPREC_BLOCK_SCALING_FP8_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/recipes/block_scaling_fp8.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "block_scaling.hpp"
#include "../core/detail/bits.hpp"
#include "detail/simd_block_scaling.hpp"
#include "fp8_scaling.hpp"
#include "../core/round_to.hpp"
#include "../core/types.hpp"

namespace mixprec {

namespace detail {
/// Dequantizes FP8 elements with FP32 per-block decode factors: P * s rounded once.
template <class T>
void fp8_block_dequantize(const char* who, const T& t, float* out) {
  check_block_tensor(who, t, out);
  for (std::size_t i = 0; i < t.rows; ++i)
    for (std::size_t j = 0; j < t.cols; ++j)
      out[i * t.cols + j] = round_to<float>(static_cast<double>(t.elements[i * t.cols + j]) *
                                            static_cast<double>(t.scale_of(i, j)));  // exact product
}
}  // namespace detail

/// The two DeepSeek FP8 block references (docs/pages/fp8-scaling.md, "DeepSeek FP8 blocks: the two references").
enum class deepseek_fp8_variant : unsigned char {
  v3,       ///< DeepSeek-V3 act_quant_kernel: x / s, UE8M0 from float32 ceil(log2 s)
  deepgemm  ///< DeepGEMM per_token_cast_to_fp8: x * (1 / s), UE8M0 from the exponent bits
};

/// "v3" or "deepgemm".
inline const char* deepseek_fp8_variant_name(deepseek_fp8_variant v) noexcept {
  return v == deepseek_fp8_variant::deepgemm ? "deepgemm" : "v3";
}

/// The variant named name ("v3", "deepgemm"); std::invalid_argument naming both otherwise.
inline deepseek_fp8_variant deepseek_fp8_variant_from_name(const std::string& name) {
  return detail::enum_from_name<deepseek_fp8_variant>("deepseek_fp8_variant_from_name", "DeepSeek FP8 variant", name,
                                                      {"v3", "deepgemm"});
}

namespace detail {
/// ceil(float32 log2 s) for a finite s > 0: log2 rounded to float (the double log2 is within an
/// ulp of a double, far inside half an ulp of a float but at a float midpoint, which a
/// transcendental log2 of a float other than a power of two never is), then ceil.
inline int ceil_log2_f32(float s) noexcept {
  return static_cast<int>(std::ceil(static_cast<float>(std::log2(static_cast<double>(s)))));
}
/// DeepGEMM's ceil_to_ue8m0 of a non-negative float (NaN and Inf included): 2^(clamp(E + (M != 0),
/// 1, 254) - 127) from the exponent field E and mantissa M of |s|.
inline float ceil_to_ue8m0(float s) noexcept {
  const std::uint32_t b = bit_cast<std::uint32_t>(s) & 0x7FFFFFFFu;
  std::uint32_t e = ((b >> 23) & 0xFFu) + ((b & 0x7FFFFFu) != 0 ? 1u : 0u);
  e = e < 1u ? 1u : e > 254u ? 254u : e;
  return bit_cast<float>(e << 23);
}
}  // namespace detail

/// DeepSeek-V3 fine-grained FP8 (docs/pages/recipe-fp8-blocks.md, "DeepSeek-V3 recipe").
struct deepseek_fp8_recipe {
  using element_type = float8_e4m3fn;                              ///< element format
  using scale_type = float;                                        ///< scale format (a decode factor)
  using tensor_type = block_scaled_tensor<float8_e4m3fn, float>;  ///< what quantize returns

  block_shape block = block_rowwise(128);  ///< 1x128 activations (default), {128, 128} weights
  bool ue8m0 = false;                      ///< round s up to a power of two (UE8M0 scales)
  float amax_floor = 1e-4f;                ///< amax is raised to this (0: the V3 release, no floor)
  deepseek_fp8_variant variant = deepseek_fp8_variant::v3;  ///< whose reference (v3 or deepgemm)

  /// The recipe's name, formats, block and scale rule.
  recipe_info info() const {
    const bool dg = variant == deepseek_fp8_variant::deepgemm;
    std::string name = dg ? "deepseek_fp8/deepgemm" : "deepseek_fp8";
    if (ue8m0) name += "/ue8m0";
    const char* rule = !dg ? (ue8m0 ? "s = 2^ceil(float32 log2(max(amax, floor) / 448)); P = E4M3sat(x / s)"
                                    : "s = max(amax, floor) / 448; P = E4M3sat(x / s)")
                           : (ue8m0 ? "s = ceil_to_ue8m0(max(amax, floor) / 448); P = E4M3(x * (1 / s))"
                                    : "s = max(amax, floor) / 448; P = E4M3(x * (1 / s))");
    return recipe_info{name, "float8_e4m3fn", ue8m0 ? "float32 (power of two)" : "float32", block, false, false, rule};
  }

  /// The decode scale of a block whose amax is amax (v3: the fmax fold; deepgemm: NaN if the
  /// block holds a NaN).
  float scale_for(float amax) const noexcept {
    if (variant == deepseek_fp8_variant::deepgemm) {
      // torch.clamp(amax, min=floor): NaN stays NaN.
      const float a = std::isnan(amax) ? amax : amax < amax_floor ? amax_floor : amax;
      if (detail::exact_eq(a, 0.0f)) return 1.0f;
      const float s = a / 448.0f;
      return ue8m0 ? detail::ceil_to_ue8m0(s) : s;
    }
    const float a = std::fmax(amax, amax_floor);
    if (detail::exact_eq(a, 0.0f)) return 1.0f;
    float s = a / 448.0f;
    if (ue8m0 && std::isfinite(s) && s > 0.0f) s = std::ldexp(1.0f, detail::ceil_log2_f32(s));  // exact power of two
    return s;
  }

  /// Quantizes the row-major rows x cols tensor `in` (the rule: docs/pages/recipe-fp8-blocks.md).
  /// std::invalid_argument for an empty block shape, a null `in` with a non-zero size, or
  /// rows * cols overflowing.
  tensor_type quantize(const float* in, std::size_t rows, std::size_t cols) const {
    return quantize_at(detail::simd_best_level, in, rows, cols);
  }

  /// quantize with the fast path of a given level (portable: the scalar loop); the same bits.
  tensor_type quantize_at(detail::simd_level level, const float* in, std::size_t rows, std::size_t cols) const {
    tensor_type t;
    quantize_into_at(level, in, rows, cols, t);
    return t;
  }

  /// quantize into t, reusing its storage (no allocation when its vectors have the capacity).
  void quantize_into(const float* in, std::size_t rows, std::size_t cols, tensor_type& t) const {
    quantize_into_at(detail::simd_best_level, in, rows, cols, t);
  }

  /// quantize_into with the fast path of a given level (portable: the scalar loop).
  void quantize_into_at(detail::simd_level level, const float* in, std::size_t rows, std::size_t cols,
                        tensor_type& t) const {
    detail::shape_block_tensor("mixprec::deepseek_fp8_recipe::quantize", in, rows, cols, block, t);
    if (variant == deepseek_fp8_variant::deepgemm) {
      detail::for_each_block(rows, cols, block, [&](std::size_t bi, std::size_t r0, std::size_t r1, std::size_t c0,
                                                    std::size_t c1) {
        float amax = 0.0f;  // torch amax: a NaN wins
        for (std::size_t i = r0; i < r1; ++i)
          for (std::size_t j = c0; j < c1; ++j) {
            const float a = std::fabs(in[i * cols + j]);
            amax = std::isnan(a) || std::isnan(amax) ? std::numeric_limits<float>::quiet_NaN() : a > amax ? a : amax;
          }
        const float s = scale_for(amax);
        t.scales[bi] = s;
        const float r = 1.0f / s;  // torch: 1.0 / sf in float32
        for (std::size_t i = r0; i < r1; ++i)
          for (std::size_t j = c0; j < c1; ++j)
            t.elements[i * cols + j] =
                round_to<float8_e4m3fn>(in[i * cols + j] * r, rounding::nearest_even, overflow::ieee);
      });
      return;
    }
    if (block == block_rowwise(128) && cols % 128 == 0 &&
        detail::fp8_128::quantize_at(
            level, in, rows * cols, [this](float amax) { return scale_for(amax); },
            reinterpret_cast<std::uint8_t*>(t.elements.data()), t.scales.data())) {
      return;
    }
    detail::for_each_block(rows, cols, block, [&](std::size_t bi, std::size_t r0, std::size_t r1, std::size_t c0,
                                                  std::size_t c1) {
      const float s = scale_for(detail::block_amax_fmax(in, cols, r0, r1, c0, c1));
      t.scales[bi] = s;
      for (std::size_t i = r0; i < r1; ++i)
        for (std::size_t j = c0; j < c1; ++j)
          t.elements[i * cols + j] =
              round_to<float8_e4m3fn>(in[i * cols + j] / s, rounding::nearest_even, overflow::saturate);
    });
  }

  /// Writes rows * cols floats, P * s rounded once, to out. std::invalid_argument where t's
  /// vector sizes do not match its shape or out is null.
  void dequantize(const tensor_type& t, float* out) const {
    detail::fp8_block_dequantize("mixprec::deepseek_fp8_recipe::dequantize", t, out);
  }
};

/// Transformer Engine Float8BlockScaling (docs/pages/recipe-fp8-blocks.md, "Transformer Engine recipe").
struct te_fp8_block_recipe {
  using element_type = float8_e4m3fn;                              ///< element format
  using scale_type = float;                                        ///< scale format (a decode factor)
  using tensor_type = block_scaled_tensor<float8_e4m3fn, float>;  ///< what quantize returns

  block_shape block = block_rowwise(128);  ///< 1x128 activations and gradients, {128, 128} weights
  float epsilon = 0.0f;                    ///< amax below epsilon is raised to it (>= 0, finite)

  /// The recipe's name, formats, block and scale rule.
  recipe_info info() const {
    return recipe_info{"te_fp8_block", "float8_e4m3fn", "float32 (power of two)", block, false, false,
                       "scale = 448 / amax rounded down to a power of two; s = 1 / scale"};
  }

  /// Quantizes the row-major rows x cols tensor `in` (the rule: docs/pages/recipe-fp8-blocks.md).
  /// std::invalid_argument as deepseek_fp8_recipe::quantize, and for an invalid epsilon.
  tensor_type quantize(const float* in, std::size_t rows, std::size_t cols) const {
    tensor_type t =
        detail::make_block_tensor<float8_e4m3fn, float>("mixprec::te_fp8_block_recipe::quantize", in, rows, cols, block);
    current_scaling_config cfg;
    cfg.epsilon = epsilon;
    cfg.power_of_two = true;
    detail::for_each_block(rows, cols, block, [&](std::size_t bi, std::size_t r0, std::size_t r1, std::size_t c0,
                                                  std::size_t c1) {
      const float scale = current_scale(detail::block_amax_fmax(in, cols, r0, r1, c0, c1), 448.0f, cfg);
      t.scales[bi] = 1.0f / scale;
      for (std::size_t i = r0; i < r1; ++i)
        for (std::size_t j = c0; j < c1; ++j)
          t.elements[i * cols + j] = round_to<float8_e4m3fn>(
              static_cast<double>(in[i * cols + j]) * static_cast<double>(scale), rounding::nearest_even,
              overflow::saturate);  // x * scale is exact (power of two) but for float underflow, below E4M3's range
    });
    return t;
  }

  /// Writes rows * cols floats, P * s rounded once, to out (errors as deepseek_fp8_recipe's).
  void dequantize(const tensor_type& t, float* out) const {
    detail::fp8_block_dequantize("mixprec::te_fp8_block_recipe::dequantize", t, out);
  }
};

}  // namespace mixprec

#endif  // MIXPREC_BLOCK_SCALING_FP8_HPP
