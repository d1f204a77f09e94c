// SPDX-License-Identifier: MIT
// mixprec/block_scaling_fp8.hpp — fine-grained FP8 block scaling on the block-scaling interface
// (block_scaling.hpp): float8_e4m3fn elements with one FP32 scale (a decode factor) per block.
//
// deepseek_fp8_recipe (DeepSeek-V3 §3.3; its act_quant/weight kernels and DeepGEMM's casts):
//   a = max(fmax-fold max |x| of the block, amax_floor); s = float(a / 448);
//   ue8m0: s = 2^ceil(log2 s) by exponent bits (exponent + 1 when the mantissa is not 0);
//   s = 1 when a is 0 (amax_floor 0 and an all-zero block); P = E4M3satfinite(float(x / s));
//   dequantize: P * s rounded once. Blocks: block_rowwise(128) activations (default), {128, 128}
//   weights. amax_floor defaults to 1e-4f (DeepGEMM, DeepSeek's later kernels; the V3 release
//   used none: set 0).
// te_fp8_block_recipe (Transformer Engine Float8BlockScaling, compute_scale_from_amax with
//   force_pow_2_scales): scale = current_scale(amax, 448, {epsilon, power_of_two = true}), i.e.
//   448 / amax rounded DOWN to a power of two (1 for amax 0/Inf/NaN, FLT_MAX when infinite);
//   stored decode factor s = 1 / scale; P = E4M3satfinite(x * scale). Blocks 1x128
//   (activations, gradients) or {128, 128} (weights).
// Fast path: deepseek_fp8_recipe rowwise 1x128 with cols % 128 == 0 quantizes with the AVX-512 /
//   AVX2 kernels of detail/simd_block_scaling.hpp (same bits); quantize_at takes the level.
//   mixprec::deepseek_fp8_recipe w{mixprec::block_shape{128, 128}};
//   auto t = w.quantize(x.data(), rows, cols);   // t.scales: ceil(rows/128) x ceil(cols/128) floats
#ifndef MIXPREC_BLOCK_SCALING_FP8_HPP
#define MIXPREC_BLOCK_SCALING_FP8_HPP

#include "config.hpp"
#if !MIXPREC_HAS_EXCEPTIONS && !defined(__CUDA_ARCH__)
#error "mixprec/block_scaling_fp8.hpp needs C++ exceptions (it is compiled with -fno-exceptions here); the numeric core, mixprec/mixprec.hpp, does not"
#include "mixprec: compilation stopped (see the error above)"
#endif

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "block_scaling.hpp"
#include "detail/bits.hpp"
#include "detail/simd_block_scaling.hpp"
#include "fp8_scaling.hpp"
#include "round_to.hpp"
#include "types.hpp"

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

/// DeepSeek-V3 fine-grained FP8 (see the header comment).
struct deepseek_fp8_recipe {
  using element_type = float8_e4m3fn;                              ///< element format
  using scale_type = float;                                        ///< scale format (a decode factor)
  using tensor_type = block_scaled_tensor<float8_e4m3fn, float>;  ///< what quantize returns

  block_shape block = block_rowwise(128);  ///< 1x128 activations (default), {128, 128} weights
  bool ue8m0 = false;                      ///< round s up to a power of two (UE8M0 scales)
  float amax_floor = 1e-4f;                ///< amax is raised to this (0: the V3 release, no floor)

  /// The recipe's name, formats, block and scale rule.
  recipe_info info() const {
    return recipe_info{ue8m0 ? "deepseek_fp8/ue8m0" : "deepseek_fp8",
                       "float8_e4m3fn",
                       ue8m0 ? "float32 (power of two)" : "float32",
                       block,
                       false,
                       false,
                       ue8m0 ? "s = 2^ceil(log2(max(amax, floor) / 448))" : "s = max(amax, floor) / 448"};
  }

  /// The decode scale of a block whose fmax-fold amax is amax.
  float scale_for(float amax) const noexcept {
    const float a = std::fmax(amax, amax_floor);
    if (detail::exact_eq(a, 0.0f)) return 1.0f;
    float s = a / 448.0f;
    if (ue8m0 && std::isfinite(s) && s > 0.0f) {
      std::uint32_t u = detail::bit_cast<std::uint32_t>(s);
      if ((u & 0x7FFFFFu) != 0) {
        u = (u & 0x7F800000u) + 0x00800000u;  // next power of two (a subnormal s gives 2^-126)
        s = detail::bit_cast<float>(u);
      }
    }
    return s;
  }

  /// Quantizes the row-major rows x cols tensor `in` (see the header comment for the rule).
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
    if (block == block_rowwise(128) && cols % 128 == 0 &&
        detail::fp8_block128_quantize_at(
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

/// Transformer Engine Float8BlockScaling (see the header comment).
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

  /// Quantizes the row-major rows x cols tensor `in` (see the header comment for the rule).
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
