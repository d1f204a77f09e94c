// SPDX-License-Identifier: MIT
// mixprec/recipes/block_scaling_nvfp4.hpp — NVFP4 on the block-scaling interface (block_scaling.hpp):
// float4_e2m1fn elements, one UE4M3 scale (float8_ue4m3) per block of 16, and an FP32 per-tensor
// scale.
//
//   nvfp4_recipe{order, factor, block, stochastic, seed, hadamard, hadamard_signs}
//       .quantize(in, rows, cols), .dequantize(t, out), .info()
//   hadamard16_transform / hadamard16_inverse(in, rows, cols, block, signs)
//
// Contract: every float operation is one IEEE float operation (nearest even) in a documented
// order: nvfp4_order::te (Transformer Engine's core_nvfp4.cuh, the default; encode factor
// reciprocal or quotient), te_legacy (TE's earlier order), torchao and torchao_single (torchao
// 0.18 with and without a per-tensor scale). Blocks: block_rowwise(16) (default),
// block_columnwise(16) or {16, 16}. Optional stochastic rounding (counter-based, not TE's Philox)
// and 16-point random Hadamard transform (1D blocks; lengths a multiple of 16, else
// std::invalid_argument). Each order's formulas, the transform: docs/pages/recipe-nvfp4.md.
//
// four_over_six ("Four Over Six", arXiv 2512.02010, as its authors' PyTorch reference computes it;
// block error metric mse, mae or abs_max).
// Dequantize (te orders; nvfp4_dequantize_order): exact (the default) P * S * float(1 / S_enc)
// rounded once; te_nvte TE's nvte_dequantize (dequantize_nvfp4.cuh), float products in the order
// P * ((S * amax) * float(1 / 2688)) with amax = t.tensor_amax (which quantize records); at most a
// few ulp apart (docs/pages/recipe-nvfp4.md, "Dequantize (te orders)").
// nvfp4_dequantize_order_from_name("exact" / "te_nvte"): std::invalid_argument naming both otherwise.
// Fast path: te / te_legacy, no Hadamard, cols % 16 == 0, and RNE in 1x16, 16x1 or 16x16 blocks,
// or stochastic rounding in 1x16 or 16x1 blocks (the same counter-based draws, vectorised), run the
// AVX-512 / AVX2 kernels of detail/simd_block_scaling.hpp (same bits); quantize_at / dequantize_at
// take the level.
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
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "block_scaling.hpp"
#include "detail/simd_block_scaling.hpp"
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

/// "exact" or "te_nvte".
inline const char* nvfp4_dequantize_order_name(nvfp4_dequantize_order o) noexcept {
  return o == nvfp4_dequantize_order::te_nvte ? "te_nvte" : "exact";
}

/// The dequantize order named name ("exact", "te_nvte"); std::invalid_argument naming both otherwise.
inline nvfp4_dequantize_order nvfp4_dequantize_order_from_name(const std::string& name) {
  if (name == "exact") return nvfp4_dequantize_order::exact;
  if (name == "te_nvte") return nvfp4_dequantize_order::te_nvte;
  throw std::invalid_argument("mixprec::nvfp4_dequantize_order_from_name: unknown NVFP4 dequantize order '" + name +
                              "' (allowed: exact, te_nvte)");
}

namespace detail {
/// Entry (i, j) of Sylvester's 16 x 16 Hadamard matrix: (-1)^popcount(i & j).
constexpr int hadamard16(unsigned i, unsigned j) noexcept {
  unsigned v = i & j, p = 0;
  for (; v != 0; v &= v - 1) p ^= 1u;
  return p != 0 ? -1 : 1;
}
/// y = (1/4) H16 D x (inverse = false) or x = D (1/4) H16 y (inverse = true) on every block of 16
/// along rows (along = 0) or columns (along = 1); the length along them is a multiple of 16.
inline void hadamard16_apply(const float* in, float* out, std::size_t rows, std::size_t cols, int along,
                             std::uint16_t signs, bool inverse) {
  const std::size_t lines = along == 0 ? rows : cols, len = along == 0 ? cols : rows;
  for (std::size_t l = 0; l < lines; ++l)
    for (std::size_t b = 0; b < len; b += 16) {
      double x[16] = {};
      auto at = [&](std::size_t t) { return along == 0 ? l * cols + t : t * cols + l; };
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
}
}  // namespace detail

/// The random Hadamard transform of nvfp4_recipe (docs/pages/recipe-nvfp4.md), as a function: block
/// holds 16 values along rows (block_rowwise(16)) or columns (block_columnwise(16)).
inline std::vector<float> hadamard16_transform(const float* in, std::size_t rows, std::size_t cols, block_shape block,
                                               std::uint16_t signs) {
  if (!(block == block_rowwise(16) || block == block_columnwise(16))) {
    throw std::invalid_argument("mixprec::hadamard16_transform: blocks must be 1x16 or 16x1");
  }
  if (in == nullptr && rows * cols != 0) throw std::invalid_argument("mixprec::hadamard16_transform: null input");
  if ((block.rows == 1 ? cols : rows) % 16 != 0) {
    throw std::invalid_argument("mixprec::hadamard16_transform: the length along the blocks must be a multiple of 16");
  }
  std::vector<float> out(rows * cols);
  detail::hadamard16_apply(in, out.data(), rows, cols, block.rows == 1 ? 0 : 1, signs, false);
  return out;
}

/// The inverse of hadamard16_transform (each value rounded once to float from the double sum).
inline std::vector<float> hadamard16_inverse(const float* in, std::size_t rows, std::size_t cols, block_shape block,
                                             std::uint16_t signs) {
  if (!(block == block_rowwise(16) || block == block_columnwise(16))) {
    throw std::invalid_argument("mixprec::hadamard16_inverse: blocks must be 1x16 or 16x1");
  }
  if (in == nullptr && rows * cols != 0) throw std::invalid_argument("mixprec::hadamard16_inverse: null input");
  if ((block.rows == 1 ? cols : rows) % 16 != 0) {
    throw std::invalid_argument("mixprec::hadamard16_inverse: the length along the blocks must be a multiple of 16");
  }
  std::vector<float> out(rows * cols);
  detail::hadamard16_apply(in, out.data(), rows, cols, block.rows == 1 ? 0 : 1, signs, true);
  return out;
}

namespace detail {
inline float f32_mul(float a, float b) noexcept { return round_to<float>(static_cast<double>(a) * static_cast<double>(b)); }
inline float f32_div(float a, float b) noexcept { return a / b; }  // IEEE float division
inline float e4m3_satfinite(float v) noexcept {
  return static_cast<float>(round_to<float8_ue4m3>(v, rounding::nearest_even, overflow::saturate));
}
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
  std::uint64_t seed = 0;   ///< stochastic: the counter-based generator's seed
  bool hadamard = false;    ///< apply the 16-point random Hadamard transform first (1D blocks only)
  std::uint16_t hadamard_signs = 0;  ///< hadamard: bit j set negates input j of each block (D)
  nvfp4_46_metric metric = nvfp4_46_metric::mse;  ///< four_over_six's error metric
  nvfp4_dequantize_order dequantize_order = nvfp4_dequantize_order::exact;  ///< te orders: how dequantize multiplies

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
      if (stochastic) name += "/sr";
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
    detail::shape_block_tensor("mixprec::nvfp4_recipe::quantize", in, rows, cols, block, t);
    const bool te_order = order == nvfp4_order::te || order == nvfp4_order::te_legacy;
    float tensor_amax = given_amax != nullptr ? *given_amax : 0.0f;
    const bool rowwise16 = block == block_rowwise(16), tiles16 = block == block_shape{16, 16};
    if (te_order && !stochastic && !hadamard && (rowwise16 || tiles16) && cols % 16 == 0 &&
        level != detail::simd_level::portable &&
        (given_amax != nullptr || detail::amax_at(level, in, rows * cols, tensor_amax))) {
      detail::nvfp4_fast_params p;
      p.s_enc = te_global_encode_scale(tensor_amax);
      p.legacy = order == nvfp4_order::te_legacy;
      p.quotient = factor == nvfp4_encode_factor::quotient;
      auto* const elems = reinterpret_cast<std::uint8_t*>(t.elements.data());
      auto* const scales = reinterpret_cast<std::uint8_t*>(t.scales.data());
      if (rowwise16 ? detail::nvfp4_quantize_at(level, in, rows * cols, p, elems, scales)
                    : detail::nvfp4_quantize_tiles_at(level, in, rows, cols, p, elems, scales)) {
        t.tensor_scale = p.s_enc;
        t.tensor_amax = tensor_amax;
        return;
      }
    }
    const bool colwise16 = block == block_columnwise(16);
    if (te_order && (stochastic ? rowwise16 || colwise16 : colwise16) && !hadamard && cols % 16 == 0 &&
        level != detail::simd_level::portable &&
        (given_amax != nullptr || detail::amax_at(level, in, rows * cols, tensor_amax))) {
      detail::nvfp4_fast_params p;
      p.s_enc = te_global_encode_scale(tensor_amax);
      p.legacy = order == nvfp4_order::te_legacy;
      p.quotient = factor == nvfp4_encode_factor::quotient;
      auto* const elems = reinterpret_cast<std::uint8_t*>(t.elements.data());
      auto* const scales = reinterpret_cast<std::uint8_t*>(t.scales.data());
      if (stochastic ? detail::nvfp4_quantize_sr_at(level, in, rows, cols, colwise16, p, seed, elems, scales)
                     : detail::nvfp4_quantize_cols_at(level, in, rows, cols, p, elems, scales)) {
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
          if (te && stochastic) {
            const auto bits = static_cast<std::uint32_t>(detail::counter_bits(seed, k) >> 32);
            t.elements[k] = round_to<float4_e2m1fn>(v, rounding::stochastic, overflow::saturate, bits);
          } else {
            t.elements[k] = round_to<float4_e2m1fn>(v, rounding::nearest_even, overflow::saturate);
          }
        }
    });
    return;
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
    if (te && plain && t.block == block_rowwise(16) && t.cols % 16 == 0 &&
        detail::nvfp4_dequantize_at(level, reinterpret_cast<const std::uint8_t*>(t.elements.data()),
                                    reinterpret_cast<const std::uint8_t*>(t.scales.data()), t.rows * t.cols,
                                    detail::f32_div(1.0f, t.tensor_scale), out)) {
      return;
    }
    if (te && plain && t.block == block_columnwise(16) && level != detail::simd_level::portable &&
        detail::nvfp4_dequantize_cols_at(level, reinterpret_cast<const std::uint8_t*>(t.elements.data()),
                                         reinterpret_cast<const std::uint8_t*>(t.scales.data()), t.rows, t.cols,
                                         detail::f32_div(1.0f, t.tensor_scale), out)) {
      return;
    }
    if (te && plain && t.block == block_shape{16, 16} && t.cols % 16 == 0 && level != detail::simd_level::portable) {
      // 16x16 tiles: row i's blocks of 16 have the scales of tile row i / 16, consecutive, so each
      // row is a rowwise tensor (the same products, the same bits).
      const auto* elems = reinterpret_cast<const std::uint8_t*>(t.elements.data());
      const auto* scales = reinterpret_cast<const std::uint8_t*>(t.scales.data());
      const float s_dec = detail::f32_div(1.0f, t.tensor_scale);
      bool ok = true;
      for (std::size_t i = 0; i < t.rows && ok; ++i) {
        ok = detail::nvfp4_dequantize_at(level, elems + i * t.cols, scales + (i / 16) * t.scale_cols(), t.cols, s_dec,
                                         out + i * t.cols);
      }
      if (ok) return;
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
