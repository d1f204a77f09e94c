// SPDX-License-Identifier: MIT
// mixprec/recipes/block_scaling_mx.hpp — MX recipes on the block-scaling interface (block_scaling.hpp):
// E8M0 scale X = 2^s per block, elements P = x / X in an MX element format, value = X * P.
//
//   mx_block_recipe<Elem>{rule, block}: quantize(in, rows, cols), dequantize(t, out), info()
//   te_mxfp8_quantize_both<Elem>(in, rows, cols[, rule])  TE's rowwise 1x32 and columnwise 32x1 at once
//
// Contract: Elem is float8_e4m3fn / float8_e5m2 (MXFP8), float6_e2m3fn / float6_e3m2fn (MXFP6),
// float4_e2m1fn (MXFP4) or mxint8 (MXINT8, value c * 2^-6); any block shape (default
// block_rowwise(32)); rules ocp_floor (OCP MX v1.0), te_rceil and te_rceil_legacy (Transformer
// Engine), ceil_pow2 and even (torchao). Elements round once to nearest-even, clamped to +-max;
// dequantize is X * P rounded once to float. mx.hpp's mx_quantize is this recipe with rows = 1.
// Every rule step by step and the fast paths (detail/simd_block_scaling.hpp, same bits;
// quantize_at / dequantize_at take the level): docs/pages/recipe-mx.md.
//
//   mixprec::mx_block_recipe<mixprec::float4_e2m1fn> r{mixprec::mx_block_rule::ocp_floor};
//   auto t = r.quantize(x, rows, cols);    // t.scales: rows x ceil(cols / 32) E8M0 codes
#ifndef MIXPREC_BLOCK_SCALING_MX_HPP
#define MIXPREC_BLOCK_SCALING_MX_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/recipes/block_scaling_mx.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "block_scaling.hpp"
#include "detail/simd_block_scaling.hpp"
#include "mx.hpp"
#include "../core/finfo.hpp"
#include "../core/round_to.hpp"
#include "../core/types.hpp"

namespace mixprec {

/// MXINT8's element: an int8 code c with value c * 2^-6 (OCP MX v1.0 5.4).
struct mxint8 {
  std::int8_t code = 0;  ///< the stored int8 c
  /// The value c / 64.
  constexpr double value() const noexcept { return static_cast<double>(code) / 64.0; }
};

/// The MX block scale rules (docs/pages/recipe-mx.md, "Scale rules"). te_rceil_legacy comes last
/// so that the others keep their values.
enum class mx_block_rule : unsigned char { ocp_floor, te_rceil, ceil_pow2, even, te_rceil_legacy };

/// The name of a rule: "ocp_floor", "te_rceil", "ceil_pow2", "even" or "te_rceil_legacy".
inline const char* mx_block_rule_name(mx_block_rule r) noexcept {
  const char* const names[] = {"ocp_floor", "te_rceil", "ceil_pow2", "even", "te_rceil_legacy"};
  return static_cast<std::size_t>(r) < 5 ? names[static_cast<std::size_t>(r)] : "?";
}

/// The rule named name (as mx_block_rule_name); std::invalid_argument naming the allowed names
/// for any other string.
inline mx_block_rule mx_block_rule_from_name(const std::string& name) {
  return detail::enum_from_name<mx_block_rule>("mx_block_rule_from_name", "MX rule", name,
                                               {"ocp_floor", "te_rceil", "ceil_pow2", "even", "te_rceil_legacy"});
}

namespace detail {

/// An MX element type's rounding and names: the OCP MX float formats here, mxint8 below.
template <class T>
struct mx_elem {
  static_assert(is_mx_element<T>::value,
                "MX elements: float8_e4m3fn, float8_e5m2, float6_e2m3fn, float6_e3m2fn, float4_e2m1fn or mxint8");
  using F = typename float_traits<T>::format_type;
  static constexpr int emax = F::emax;
  static constexpr int man_bits = F::mantissa_bits;
  /// "mxfp<bits>_e<E>m<M>", e.g. "mxfp8_e4m3".
  static std::string name() {
    return "mxfp" + std::to_string(F::bits) + "_e" + std::to_string(F::exponent_bits) + "m" + std::to_string(man_bits);
  }
  static const char* format() { return format_name<F>::value; }
  static double max() { return static_cast<double>(detail::max_value<T>()); }
  static T encode(double v) { return round_to<T>(v, rounding::nearest_even, overflow::saturate); }
  static T nan() { return detail::quiet_nan<T>(); }
  static double decode(T p) { return static_cast<double>(p); }
};
template <>
struct mx_elem<mxint8> {
  static constexpr int emax = 0;
  static constexpr int man_bits = 6;
  static const char* name() { return "mxint8"; }
  static const char* format() { return "int8 * 2^-6"; }
  static double max() { return 127.0 / 64.0; }
  static mxint8 encode(double v) {
    // v * 64 is exact; nearest-even to an integer, clamped to +-127 (OCP: symmetric range).
    double c = std::nearbyint(v * 64.0);  // the default rounding mode is to-nearest-even
    if (std::isnan(c)) c = 0.0;
    c = c > 127.0 ? 127.0 : c < -127.0 ? -127.0 : c;
    return mxint8{static_cast<std::int8_t>(c)};
  }
  static mxint8 nan() { return mxint8{0}; }
  static double decode(mxint8 p) { return p.value(); }
};

/// The biased exponent field of a float (0 for zero and subnormals, 255 for Inf/NaN).
inline int float_exp_field(float a) noexcept { return static_cast<int>((bit_cast<std::uint32_t>(a) >> 23) & 0xFFu); }

/// Whether a rule is one of Transformer Engine's (te_rceil, te_rceil_legacy).
constexpr bool mx_te_rule(mx_block_rule r) noexcept {
  return r == mx_block_rule::te_rceil || r == mx_block_rule::te_rceil_legacy;
}

/// A rowwise 1x32 kernel over rows x cols: kernel(0, rows * cols) when cols is a multiple of 32,
/// else for each row r kernel(r, full) on its full blocks, then tail(r, full) (full = cols / 32 *
/// 32). False as soon as a kernel call is.
template <class Tail, class Kernel>
bool mx_by_rows(std::size_t rows, std::size_t cols, const Tail& tail, const Kernel& kernel) {
  const std::size_t full = cols / 32 * 32;
  if (full == cols) return kernel(std::size_t{0}, rows * cols);
  for (std::size_t r = 0; r < rows; ++r) {
    if (!kernel(r, full)) return false;
    tail(r, full);
  }
  return true;
}

}  // namespace detail

/// An MX recipe: element type Elem, rule, block shape (docs/pages/recipe-mx.md).
template <class Elem>
struct mx_block_recipe {
  using element_type = Elem;                                      ///< the element format
  using scale_type = float8_e8m0fnu;                              ///< the scale format (E8M0)
  using tensor_type = block_scaled_tensor<Elem, float8_e8m0fnu>;  ///< what quantize returns

  mx_block_rule rule = mx_block_rule::ocp_floor;     ///< the scale rule (docs/pages/recipe-mx.md, "Scale rules")
  block_shape block = block_rowwise(mx_block_size);  ///< the block shape (default 1 x 32)
  /// torchao 0.18's to_mx (FLOOR/CEIL/EVEN): divide by max(X, 2^-126), so a code-0 block's
  /// elements are x * 2^126 (and dequantize to half of x). Off: x * 2^127, as OCP says.
  bool torchao_min_normal_divisor = false;

  /// The recipe's name, formats, block and rule as data.
  recipe_info info() const {
    using E = detail::mx_elem<Elem>;
    const char* family = rule == mx_block_rule::ocp_floor         ? "ocp_mx"
                         : rule == mx_block_rule::te_rceil        ? "te_mx"
                         : rule == mx_block_rule::te_rceil_legacy ? "te_mx_legacy"
                         : rule == mx_block_rule::ceil_pow2       ? "mx_ceil"
                                                                  : "mx_even";
    const char* r = rule == mx_block_rule::ocp_floor ? "X = 2^(floor(log2 amax) - emax_elem); Inf/NaN block: NaN scale"
                    : rule == mx_block_rule::te_rceil
                        ? "X = E8M0 rounded up of amax * float(1/max_elem); fmax amax; P = x * 2^(127 - code)"
                    : rule == mx_block_rule::te_rceil_legacy
                        ? "X = E8M0 rounded up of amax * float(1/max_elem); fmax amax; code 0: P = x, value 0"
                    : rule == mx_block_rule::ceil_pow2
                        ? "X = 2^(ceil(log2 amax) - emax_elem); Inf/NaN block: NaN scale"
                        : "X = 2^(floor(log2 RNE_m(amax)) - emax_elem); Inf/NaN block: NaN scale";
    return recipe_info{std::string(family) + "/" + E::name() + (torchao_min_normal_divisor ? "/torchao_code0" : ""), E::format(), "float8_e8m0fnu", block, false, false, r};
  }

  /// Whether detail/simd_block_scaling.hpp's kernels implement this recipe for cols columns.
  /// (cols not a multiple of 32: the kernels take each row's full blocks, the scalar loop the rest.)
  bool fast_path_applies(std::size_t cols) const noexcept {
    return std::is_same<Elem, float8_e4m3fn>::value && detail::mx_te_rule(rule) && block == block_rowwise(32) &&
           cols >= 32;
  }

  /// The E8M0 code of a block whose amax is amax (the OCP-family fold: Inf/NaN kept).
  std::uint8_t scale_code(float amax) const noexcept {
    using E = detail::mx_elem<Elem>;
    if (detail::mx_te_rule(rule)) {
      const float rcp = round_to<float>(1.0 / E::max());
      return detail::te_float_to_e8m0(round_to<float>(static_cast<double>(amax) * static_cast<double>(rcp)));
    }
    if (!std::isfinite(amax)) return 0xFF;
    float a = std::fabs(amax);
    if (detail::exact_eq(a, 0.0f)) return 0x00;
    const std::uint32_t b = detail::bit_cast<std::uint32_t>(a);
    int s;
    if (rule == mx_block_rule::ocp_floor) {
      s = detail::floor_log2(a) - E::emax;
    } else if (rule == mx_block_rule::ceil_pow2) {
      s = detail::float_exp_field(a) - 127 + ((b & 0x7FFFFFu) != 0 ? 1 : 0) - E::emax;
    } else {
      // amax's significand rounded to the element's mantissa width by adding half its ulp to
      // the bits and masking the exponent (torchao's EVEN), then floor.
      const std::uint32_t r = (b + (1u << (23 - E::man_bits - 1))) & 0x7F800000u;
      s = static_cast<int>(r >> 23) - 127 - E::emax;
    }
    if (s < -127) s = -127;
    if (s > 127) s = 127;
    return static_cast<std::uint8_t>(s + 127);
  }

  /// in (rows x cols, row-major) quantized: elements and one scale per block.
  tensor_type quantize(const float* in, std::size_t rows, std::size_t cols) const {
    return quantize_at(detail::simd_best_level, in, rows, cols);
  }

  /// quantize into t, reusing its storage (no allocation when its vectors have the capacity).
  void quantize_into(const float* in, std::size_t rows, std::size_t cols, tensor_type& t) const {
    quantize_into_at(detail::simd_best_level, in, rows, cols, t);
  }

  /// quantize with the fast path of a given level (portable: the scalar loop); the same bits.
  tensor_type quantize_at(detail::simd_level level, const float* in, std::size_t rows, std::size_t cols) const {
    tensor_type t;
    quantize_into_at(level, in, rows, cols, t);
    return t;
  }

  /// quantize_into with the fast path of a given level (portable: the scalar loop).
  void quantize_into_at(detail::simd_level level, const float* in, std::size_t rows, std::size_t cols,
                        tensor_type& t) const {
    using E = detail::mx_elem<Elem>;
    detail::shape_block_tensor("mixprec::mx_block_recipe::quantize", in, rows, cols, block, t);
    auto scalar_block = [&](std::size_t bi, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1) {
      const float amax = detail::mx_te_rule(rule) ? detail::block_amax_fmax(in, cols, r0, r1, c0, c1)
                                                   : detail::block_amax_ocp(in, cols, r0, r1, c0, c1);
      const std::uint8_t code = scale_code(amax);
      t.scales[bi] = float8_e8m0fnu::from_bits(code);
      // x * 2^k, exact in double (|k| <= 127): x / X, or TE's x * R (see header; TE's R is
      // 2^(127 - code) for every code a TE block gets, code 0 included; legacy: 1 for code 0).
      const int k = !detail::mx_te_rule(rule) ? (code == 0 && torchao_min_normal_divisor ? 126 : 127 - code)
                                               : (code == 0 && rule == mx_block_rule::te_rceil_legacy ? 0 : 127 - code);
      const double f = detail::bit_cast<double>(static_cast<std::uint64_t>(k + 1023) << 52);  // 2^k
      const bool nan_block = !detail::mx_te_rule(rule) && code == 0xFF;
      for (std::size_t i = r0; i < r1; ++i)
        for (std::size_t j = c0; j < c1; ++j) {
          t.elements[i * cols + j] = nan_block ? E::nan() : E::encode(static_cast<double>(in[i * cols + j]) * f);
        }
    };
    auto* elems = reinterpret_cast<std::uint8_t*>(t.elements.data());
    auto* scales = reinterpret_cast<std::uint8_t*>(t.scales.data());
    const std::size_t sc = t.scale_cols();
    const auto tail = [&](std::size_t r, std::size_t full) { scalar_block(r * sc + full / 32, r, r + 1, full, cols); };
    const bool legacy = rule == mx_block_rule::te_rceil_legacy;
    if (fast_path_applies(cols) && detail::mx_by_rows(rows, cols, tail, [&](std::size_t r, std::size_t n) {
          return detail::mx::te_e4m3::quantize_at(level, in + r * cols, 1, n, false, elems + r * cols, scales + r * sc,
                                                  legacy);
        })) {
      return;
    }
    if (std::is_same<Elem, float8_e4m3fn>::value && detail::mx_te_rule(rule) && block == block_columnwise(32) &&
        detail::mx::te_e4m3::quantize_at(level, in, rows, cols, true, elems, scales, legacy)) {
      return;
    }
    if constexpr (std::is_same<Elem, float8_e4m3fn>::value || std::is_same<Elem, float8_e5m2>::value) {
      if (rule == mx_block_rule::ocp_floor && !torchao_min_normal_divisor && block == block_rowwise(32) && cols >= 32 &&
          detail::mx_by_rows(rows, cols, tail, [&](std::size_t r, std::size_t n) {
            return detail::mx::ocp::quantize_at<Elem>(level, in + r * cols, n, elems + r * cols, scales + r * sc);
          })) {
        return;
      }
    }
    detail::for_each_block(rows, cols, block, scalar_block);
    return;
  }

  /// out receives rows * cols floats, row-major.
  void dequantize(const tensor_type& t, float* out) const { dequantize_at(detail::simd_best_level, t, out); }

  /// dequantize with the fast path of a given level (portable: the scalar loop); the same bits.
  void dequantize_at(detail::simd_level level, const tensor_type& t, float* out) const {
    using E = detail::mx_elem<Elem>;
    detail::check_block_tensor("mixprec::mx_block_recipe::dequantize", t, out);
#if defined(MIXPREC_SIMD_X86)
    const bool hw = detail::simd_blk::fp_env_ok();  // then cvtsd2ss is round_to<float> for non-NaN values
#else
    const bool hw = false;
#endif
    const std::size_t bc = t.block.cols;
    auto scalar_part = [&](std::size_t r0, std::size_t r1, std::size_t c0) {  // rows [r0, r1), columns from c0
      for (std::size_t i = r0; i < r1; ++i)
        for (std::size_t j0 = c0; j0 < t.cols; j0 += bc) {
          const std::uint8_t code = t.scale_of(i, j0).bits();
          // p * 2^(code - 127): exact in double, rounded once (te_rceil_legacy's code 0: p * 0)
          const double f = code == 0 && rule == mx_block_rule::te_rceil_legacy
                               ? 0.0
                               : detail::bit_cast<double>(static_cast<std::uint64_t>(code + 896) << 52);  // 2^(code-127)
          for (std::size_t j = j0; j < std::min(t.cols, j0 + bc); ++j) {
            const double v = E::decode(t.elements[i * t.cols + j]) * f;
            out[i * t.cols + j] = code == 0xFF                   ? std::numeric_limits<float>::quiet_NaN()
                                  : hw && !std::isnan(v) ? static_cast<float>(v)
                                                         : round_to<float>(v);
          }
        }
    };
    const bool legacy = rule == mx_block_rule::te_rceil_legacy;
    const auto* elems = reinterpret_cast<const std::uint8_t*>(t.elements.data());
    const auto* scales = reinterpret_cast<const std::uint8_t*>(t.scales.data());
    const std::size_t sc = t.scale_cols();
    if (t.block == block && fast_path_applies(t.cols) &&  // whole rows, or each row's full blocks
        detail::mx_by_rows(
            t.rows, t.cols, [&](std::size_t r, std::size_t full) { scalar_part(r, r + 1, full); },
            [&](std::size_t r, std::size_t n) {
              return detail::mx::te_e4m3::dequantize_at(level, elems + r * t.cols, scales + r * sc, 1, n, false,
                                                        out + r * t.cols, legacy);
            })) {
      return;
    }
    if (std::is_same<Elem, float8_e4m3fn>::value && detail::mx_te_rule(rule) && t.block == block &&
        block == block_columnwise(32) &&
        detail::mx::te_e4m3::dequantize_at(level, elems, scales, t.rows, t.cols, true, out, legacy)) {
      return;
    }
    scalar_part(0, t.rows, 0);
  }
};

/// TE MXFP8BlockScaling's two quantizations of one tensor: rowwise 1x32 and columnwise 32x1.
template <class Elem>
struct te_mxfp8_pair {
  block_scaled_tensor<Elem, float8_e8m0fnu> rowwise;     ///< 1 x 32 blocks
  block_scaled_tensor<Elem, float8_e8m0fnu> columnwise;  ///< 32 x 1 blocks
};

/// Quantizes in (row-major rows x cols) both ways with the te_rceil rule (or te_rceil_legacy),
/// each from the input.
template <class Elem = float8_e4m3fn>
te_mxfp8_pair<Elem> te_mxfp8_quantize_both(const float* in, std::size_t rows, std::size_t cols,
                                           mx_block_rule rule = mx_block_rule::te_rceil) {
  static_assert(std::is_same<Elem, float8_e4m3fn>::value || std::is_same<Elem, float8_e5m2>::value,
                "Transformer Engine's MXFP8 elements are float8_e4m3fn or float8_e5m2");
  if (!detail::mx_te_rule(rule)) {
    throw std::invalid_argument(std::string("mixprec::te_mxfp8_quantize_both: rule '") + mx_block_rule_name(rule) +
                                "' is not a Transformer Engine rule (allowed: te_rceil, te_rceil_legacy)");
  }
  const mx_block_recipe<Elem> r{rule, block_rowwise(32)};
  const mx_block_recipe<Elem> c{rule, block_columnwise(32)};
  return te_mxfp8_pair<Elem>{r.quantize(in, rows, cols), c.quantize(in, rows, cols)};
}

}  // namespace mixprec

#endif  // MIXPREC_BLOCK_SCALING_MX_HPP
