// SPDX-License-Identifier: MIT
// mixprec/recipes/mx.hpp — OCP Microscaling (MX) block quantization: blocks of 32 float values share one
// float8_e8m0fnu scale X = 2^s and store elements P_i of an FP8/FP6/FP4 format with
// value = X * P_i.
//
//   mx_quantize<Elem>(in, n, out, scales[, rule]), mx_dequantize(in, scales, n, out)
//   mx_quantize<Elem>(std::vector<float>[, rule]) -> mx_tensor<Elem>, mx_dequantize(mx_tensor)
//
// Contract: Elem is float8_e4m3fn, float8_e5m2, float6_e2m3fn, float6_e3m2fn or float4_e2m1fn.
// The scale rule is mx_scale_rule::ocp_floor (OCP MX v1.0 6.3, the default; Inf/NaN blocks get the
// NaN scale) or te_ceil (Transformer Engine's MXFP8 rule: no element clamped). Elements are x_i / X
// rounded once to nearest-even, clamped to +-max; dequantize is X * P_i rounded once. The last
// block may be short; scales hold ceil(n / 32) entries. Null pointers with n > 0 (or mismatched
// mx_tensor sizes) throw std::invalid_argument. The 2D recipes: block_scaling_mx.hpp.
// Both rules, specials, TE's differences: docs/pages/recipe-mx.md#the-1d-functions-of-mxhpp.
//
//   std::vector<float> x(64, 1.5f);
//   auto t = mixprec::mx_quantize<mixprec::float4_e2m1fn>(x);  // 2 scales 2^-2, elements 6 (= 1.5 / 2^-2)
//   std::vector<float> back = mixprec::mx_dequantize(t);        // 64 x 1.5
#ifndef MIXPREC_MX_HPP
#define MIXPREC_MX_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/recipes/mx.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "../core/detail/bits.hpp"
#include "../core/detail/values.hpp"
#include "../core/round_to.hpp"
#include "../core/types.hpp"

namespace mixprec {

/// Elements per MX block.
constexpr std::size_t mx_block_size = 32;

/// The rule that picks a block's shared scale (docs/pages/recipe-mx.md, "The 1D functions of mx.hpp").
enum class mx_scale_rule : unsigned char { ocp_floor, te_ceil };

/// Tells whether T is one of the MX element types.
template <class T>
struct is_mx_element
    : std::integral_constant<bool, std::is_same<T, float8_e4m3fn>::value || std::is_same<T, float8_e5m2>::value ||
                                       std::is_same<T, float6_e2m3fn>::value || std::is_same<T, float6_e3m2fn>::value ||
                                       std::is_same<T, float4_e2m1fn>::value> {};

/// The exponent of Elem's largest normal value (OCP's emax_elem): 8, 15, 2, 4, 2.
template <class Elem>
constexpr int mx_emax_elem() noexcept {
  static_assert(is_mx_element<Elem>::value,
                "MX elements: float8_e4m3fn, float8_e5m2, float6_e2m3fn, float6_e3m2fn, float4_e2m1fn");
  return float_traits<Elem>::format_type::emax;
}

namespace detail {

/// floor(log2(a)) for a positive finite float.
inline int floor_log2(float a) noexcept {
  const std::uint32_t b = bit_cast<std::uint32_t>(a) & 0x7FFFFFFFu;
  const int field = static_cast<int>(b >> 23);
  if (field != 0) return field - 127;
  return (63 - clz64(b)) - 149;  // subnormal: b = m, value m * 2^-149
}

/// Transformer Engine's float_to_e8m0 (the non-Blackwell path; cvt.rp.satfinite.ue8m0 agrees):
/// the E8M0 code of val rounded toward +inf, saturating at 2^127; NaN -> 0xFF, Inf -> 0xFE, 0 -> 0.
inline std::uint8_t te_float_to_e8m0(float val) noexcept {
  if (std::isnan(val)) return 0xFF;
  if (std::isinf(val)) return 0xFE;
  if (exact_eq(val, 0.0f)) return 0x00;
  const std::uint32_t u = bit_cast<std::uint32_t>(val);
  auto exponent = static_cast<std::uint8_t>(u >> 23);
  const std::uint32_t mantissa = u & 0x7FFFFFu;
  if ((mantissa > 0 && exponent != 0xFE) && !(exponent == 0 && mantissa <= 0x400000u)) ++exponent;
  return exponent;
}

/// max |x| over rows [r0, r1) x columns [c0, c1) of a row-major array with rows of cols floats;
/// the first non-finite |x| in row order where there is one (the ocp_floor rule's amax).
inline float block_amax_ocp(const float* in, std::size_t cols, std::size_t r0, std::size_t r1, std::size_t c0,
                            std::size_t c1) noexcept {
  float amax = 0.0f;
  for (std::size_t i = r0; i < r1; ++i)
    for (std::size_t j = c0; j < c1; ++j) {
      const float a = std::fabs(in[i * cols + j]);
      if (!std::isfinite(a)) return a;
      if (a > amax) amax = a;
    }
  return amax;
}

}  // namespace detail

/// The shared scale of a block whose max |x| is amax, under rule. For the OCP rule, pass a NaN or
/// infinite amax for a block holding Inf/NaN (its scale is NaN); for te_ceil, pass TE's fmax fold.
template <class Elem>
float8_e8m0fnu mx_shared_scale(float amax, mx_scale_rule rule) noexcept {
  constexpr int emax = mx_emax_elem<Elem>();
  if (rule == mx_scale_rule::te_ceil) {
    const float max_elem = static_cast<float>(detail::max_value<Elem>());
    const float rcp = round_to<float>(1.0 / static_cast<double>(max_elem));  // TE's constexpr float max_norm_rcp
    const float prod = round_to<float>(static_cast<double>(amax) * static_cast<double>(rcp));
    return float8_e8m0fnu::from_bits(detail::te_float_to_e8m0(prod));
  }
  if (!std::isfinite(amax)) return float8_e8m0fnu::from_bits(0xFF);
  const float a = std::fabs(amax);
  if (detail::exact_eq(a, 0.0f)) return float8_e8m0fnu::from_bits(0x00);
  int s = detail::floor_log2(a) - emax;
  if (s < -127) s = -127;
  if (s > 127) s = 127;  // unreachable for float input (floor(log2(FLT_MAX)) - 2 = 125)
  return float8_e8m0fnu::from_bits(static_cast<std::uint8_t>(s + 127));
}

/// Quantizes n floats into MX blocks: out receives n elements, scales ceil(n / 32) scales.
/// Throws std::invalid_argument for null pointers with n > 0.
template <class Elem>
void mx_quantize(const float* in, std::size_t n, Elem* out, float8_e8m0fnu* scales,
                 mx_scale_rule rule = mx_scale_rule::ocp_floor) {
  static_assert(is_mx_element<Elem>::value,
                "MX elements: float8_e4m3fn, float8_e5m2, float6_e2m3fn, float6_e3m2fn, float4_e2m1fn");
  if (n == 0) return;
  if (in == nullptr || out == nullptr || scales == nullptr) {
    throw std::invalid_argument("mixprec::mx_quantize: null pointer with a non-zero length");
  }
  for (std::size_t b = 0; b * mx_block_size < n; ++b) {
    const std::size_t lo = b * mx_block_size;
    const std::size_t hi = n - lo < mx_block_size ? n : lo + mx_block_size;
    float amax = 0.0f;
    if (rule == mx_scale_rule::ocp_floor) {
      amax = detail::block_amax_ocp(in, 0, 0, 1, lo, hi);
    } else {
      for (std::size_t i = lo; i < hi; ++i) amax = std::fmax(amax, std::fabs(in[i]));
    }
    const float8_e8m0fnu x = mx_shared_scale<Elem>(amax, rule);
    scales[b] = x;
    if (x.bits() == 0xFF) {
      for (std::size_t i = lo; i < hi; ++i) out[i] = detail::quiet_nan<Elem>();
      continue;
    }
    const int s = static_cast<int>(x.bits()) - 127;
    for (std::size_t i = lo; i < hi; ++i) {
      // Exact: |x| in [2^-149, 2^128) times 2^-s with |s| <= 127 stays inside double's range.
      const double v = std::ldexp(static_cast<double>(in[i]), -s);
      out[i] = round_to<Elem>(v, rounding::nearest_even, overflow::saturate);
    }
  }
}

/// Decodes n MX elements with their ceil(n / 32) scales into Out (float or double): X * P_i
/// rounded once; NaN where X is NaN. Throws std::invalid_argument for null pointers with n > 0.
template <class Elem, class Out>
void mx_dequantize(const Elem* in, const float8_e8m0fnu* scales, std::size_t n, Out* out) {
  static_assert(is_mx_element<Elem>::value,
                "MX elements: float8_e4m3fn, float8_e5m2, float6_e2m3fn, float6_e3m2fn, float4_e2m1fn");
  static_assert(std::is_same<Out, float>::value || std::is_same<Out, double>::value,
                "MX dequantizes to float or double");
  if (n == 0) return;
  if (in == nullptr || out == nullptr || scales == nullptr) {
    throw std::invalid_argument("mixprec::mx_dequantize: null pointer with a non-zero length");
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t code = scales[i / mx_block_size].bits();
    if (code == 0xFF) {
      out[i] = std::numeric_limits<Out>::quiet_NaN();
      continue;
    }
    // Exact: |P_i| <= 57344 and 2^-143 <= |X * P_i| (when non-zero) <= 2^143.
    const double v = std::ldexp(static_cast<double>(in[i]), static_cast<int>(code) - 127);
    out[i] = round_to<Out>(v);
  }
}

/// MX-quantized data: elements and one scale per block of 32.
template <class Elem>
struct mx_tensor {
  std::vector<Elem> elements;             ///< one element per value, in order
  std::vector<float8_e8m0fnu> scales;     ///< one E8M0 scale per block
};

/// Quantizes a vector of floats (see mx_quantize).
template <class Elem>
mx_tensor<Elem> mx_quantize(const std::vector<float>& in, mx_scale_rule rule = mx_scale_rule::ocp_floor) {
  mx_tensor<Elem> t;
  t.elements.resize(in.size());
  t.scales.resize((in.size() + mx_block_size - 1) / mx_block_size);
  mx_quantize<Elem>(in.data(), in.size(), t.elements.data(), t.scales.data(), rule);
  return t;
}

/// Decodes an mx_tensor into floats.
template <class Elem>
std::vector<float> mx_dequantize(const mx_tensor<Elem>& t) {
  if (t.scales.size() != (t.elements.size() + mx_block_size - 1) / mx_block_size) {
    throw std::invalid_argument("mixprec::mx_dequantize: scales must hold ceil(elements / 32) entries");
  }
  std::vector<float> out(t.elements.size());
  mx_dequantize(t.elements.data(), t.scales.data(), t.elements.size(), out.data());
  return out;
}

}  // namespace mixprec

#endif  // MIXPREC_MX_HPP
