// SPDX-License-Identifier: MIT
// block_scaling.hpp (python/src) — the block-scaling recipes of include/mixprec/block_scaling*.hpp
// for the Python binding: a recipe built by name from a dict of parameters (the Python layer fills
// the defaults and checks the names), quantize to (element codes, scale codes or floats, tensor
// scale) and dequantize back. Only included by core.cpp.
//   with_recipe("mx", params, [&](const auto& r) { auto t = r.quantize(x, rows, cols); ... });
#ifndef MIXPREC_PYTHON_BLOCK_SCALING_HPP
#define MIXPREC_PYTHON_BLOCK_SCALING_HPP

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <mixprec/block_scaled_gemm.hpp>
#include <mixprec/block_scaling.hpp>
#include <mixprec/block_scaling_fp8.hpp>
#include <mixprec/block_scaling_mx.hpp>
#include <mixprec/block_scaling_nvfp4.hpp>

namespace mixprec_py {

namespace nb = nanobind;

template <class T>
T param(const nb::dict& d, const char* key) {
  if (!d.contains(key)) throw std::invalid_argument(std::string("recipe parameter '") + key + "' missing");
  return nb::cast<T>(d[key]);
}

inline mixprec::block_shape block_param(const nb::dict& d) {
  const auto rows = param<std::size_t>(d, "block_rows");
  const auto cols = param<std::size_t>(d, "block_cols");
  if (rows == 0 || cols == 0) throw std::invalid_argument("block dimensions must be positive");
  return mixprec::block_shape{rows, cols};
}

/// Calls f(recipe) for the recipe family named name with the parameters in d.
template <class Fn>
void with_recipe(const std::string& name, const nb::dict& d, Fn&& f) {
  if (name == "mx") {
    const auto elem = param<std::string>(d, "element");
    const auto rule = param<int>(d, "rule");
    if (rule < 0 || rule > static_cast<int>(mixprec::mx_block_rule::te_rceil_legacy)) {
      throw std::invalid_argument("invalid MX rule");
    }
    auto run = [&](auto tag) {
      mixprec::mx_block_recipe<decltype(tag)> r;
      r.rule = static_cast<mixprec::mx_block_rule>(rule);
      r.block = block_param(d);
      r.torchao_min_normal_divisor = param<bool>(d, "torchao_min_normal_divisor");
      f(r);
    };
    if (elem == "float8_e4m3fn") return run(mixprec::float8_e4m3fn{});
    if (elem == "float8_e5m2") return run(mixprec::float8_e5m2{});
    if (elem == "float6_e2m3fn") return run(mixprec::float6_e2m3fn{});
    if (elem == "float6_e3m2fn") return run(mixprec::float6_e3m2fn{});
    if (elem == "float4_e2m1fn") return run(mixprec::float4_e2m1fn{});
    if (elem == "mxint8") return run(mixprec::mxint8{});
    throw std::invalid_argument("unknown MX element '" + elem + "'");
  }
  if (name == "nvfp4") {
    mixprec::nvfp4_recipe r;
    const auto order = param<int>(d, "order");
    const auto factor = param<int>(d, "factor");
    if (order < 0 || order > static_cast<int>(mixprec::nvfp4_order::torchao_single)) {
      throw std::invalid_argument("invalid NVFP4 order");
    }
    if (factor < 0 || factor > 1) throw std::invalid_argument("invalid NVFP4 encode factor");
    r.order = static_cast<mixprec::nvfp4_order>(order);
    r.factor = static_cast<mixprec::nvfp4_encode_factor>(factor);
    r.block = block_param(d);
    r.stochastic = param<bool>(d, "stochastic");
    r.seed = param<std::uint64_t>(d, "seed");
    r.hadamard = param<bool>(d, "hadamard");
    r.hadamard_signs = param<std::uint16_t>(d, "hadamard_signs");
    // Optional (default: mixprec's counter bits): stochastic rounding's layout, by name or index,
    // and TE's rng_state offset / columnwise-after-rowwise flag for te_vector_blockwise /
    // rowwise-with-columnwise flag for te_nvfp4_bf16.
    if (d.contains("sr_layout")) {
      if (nb::isinstance<nb::str>(d["sr_layout"])) {
        r.sr_layout = mixprec::nvfp4_sr_layout_from_name(param<std::string>(d, "sr_layout"));
      } else {
        const auto layout = param<int>(d, "sr_layout");
        if (layout < 0 || layout > static_cast<int>(mixprec::nvfp4_sr_layout::te_nvfp4_bf16)) {
          throw std::invalid_argument(
              "invalid NVFP4 stochastic-rounding layout (allowed: counter, te_vector_blockwise, te_nvfp4_bf16)");
        }
        r.sr_layout = static_cast<mixprec::nvfp4_sr_layout>(layout);
      }
    }
    if (d.contains("sr_offset")) r.sr_offset = param<std::uint64_t>(d, "sr_offset");
    if (d.contains("sr_after_rowwise")) r.sr_after_rowwise = param<bool>(d, "sr_after_rowwise");
    if (d.contains("sr_with_columnwise")) r.sr_with_columnwise = param<bool>(d, "sr_with_columnwise");
    return f(r);
  }
  if (name == "deepseek_fp8") {
    mixprec::deepseek_fp8_recipe r;
    r.block = block_param(d);
    r.ue8m0 = param<bool>(d, "ue8m0");
    r.amax_floor = static_cast<float>(param<double>(d, "amax_floor"));
    const auto variant = param<int>(d, "variant");
    if (variant < 0 || variant > static_cast<int>(mixprec::deepseek_fp8_variant::deepgemm)) {
      throw std::invalid_argument("invalid DeepSeek FP8 variant");
    }
    r.variant = static_cast<mixprec::deepseek_fp8_variant>(variant);
    return f(r);
  }
  if (name == "te_fp8_block") {
    mixprec::te_fp8_block_recipe r;
    r.block = block_param(d);
    r.epsilon = static_cast<float>(param<double>(d, "epsilon"));
    return f(r);
  }
  throw std::invalid_argument("unknown block-scaling recipe '" + name + "'");
}

/// The storage numpy sees for a value of T: float for float, int8 for MXINT8, the code otherwise.
template <class T>
struct numpy_storage {
  using type = typename T::storage_type;
  static type get(const T& x) { return x.bits(); }
  static T put(type c) { return T::from_bits(c); }
};
template <>
struct numpy_storage<float> {
  using type = float;
  static float get(float x) { return x; }
  static float put(float x) { return x; }
};
template <>
struct numpy_storage<mixprec::mxint8> {
  using type = std::int8_t;
  static std::int8_t get(mixprec::mxint8 x) { return x.code; }
  static mixprec::mxint8 put(std::int8_t c) { return mixprec::mxint8{c}; }
};

template <class V>
nb::object array_2d(const std::vector<V>& v, std::size_t rows, std::size_t cols) {
  using S = numpy_storage<V>;
  using U = typename S::type;
  U* data = new U[v.size() == 0 ? 1 : v.size()];
  for (std::size_t i = 0; i < v.size(); ++i) data[i] = S::get(v[i]);
  nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<U*>(p); });
  return nb::cast(nb::ndarray<nb::numpy, U, nb::ndim<2>>(data, {rows, cols}, owner));
}

inline nb::dict info_dict(const mixprec::recipe_info& i) {
  nb::dict d;
  d["name"] = i.name;
  d["element"] = i.element;
  d["scale"] = i.scale;
  d["block"] = nb::make_tuple(i.block.rows, i.block.cols);
  d["tensor_scale"] = i.tensor_scale;
  d["stochastic"] = i.stochastic;
  d["scale_rule"] = i.scale_rule;
  return d;
}

/// x (rows x cols float32, C order) quantized: {elements, scales, tensor_scale, info}.
inline nb::dict block_quantize(nb::ndarray<const float, nb::ndim<2>, nb::c_contig, nb::device::cpu> x,
                               const std::string& name, const nb::dict& params) {
  nb::dict out;
  with_recipe(name, params, [&](const auto& r) {
    const std::size_t rows = x.shape(0), cols = x.shape(1);
    using R = std::decay_t<decltype(r)>;
    typename R::tensor_type t;
    {
      nb::gil_scoped_release release;
      t = r.quantize(x.data(), rows, cols);
    }
    out["elements"] = array_2d(t.elements, rows, cols);
    out["scales"] = array_2d(t.scales, t.scale_rows(), t.scale_cols());
    out["tensor_scale"] = static_cast<double>(t.tensor_scale);
    out["info"] = info_dict(r.info());
  });
  return out;
}

/// The dtype name of a recipe's element and scale storage ("uint8", "int8", "float32").
inline nb::tuple storage_dtypes(const std::string& name, const nb::dict& params) {
  nb::tuple t;
  with_recipe(name, params, [&](const auto& r) {
    using R = std::decay_t<decltype(r)>;
    auto dtype = [](auto tag) -> const char* {
      using U = decltype(tag);
      return std::is_same<U, float>::value ? "float32" : std::is_signed<U>::value ? "int8" : "uint8";
    };
    t = nb::make_tuple(dtype(typename numpy_storage<typename R::element_type>::type{}),
                       dtype(typename numpy_storage<typename R::scale_type>::type{}), info_dict(r.info()));
  });
  return t;
}

using array2d = nb::ndarray<nb::ndim<2>, nb::c_contig, nb::device::cpu>;

/// The tensor of recipe r from arrays as block_quantize returns them (dtypes and shapes checked).
template <class R>
typename R::tensor_type make_tensor(const R& r, const array2d& elements, const array2d& scales, double tensor_scale) {
  using E = typename R::element_type;
  using S = typename R::scale_type;
  using EU = typename numpy_storage<E>::type;
  using SU = typename numpy_storage<S>::type;
  if (elements.dtype() != nb::dtype<EU>() || scales.dtype() != nb::dtype<SU>()) {
    throw std::invalid_argument("elements/scales have the wrong dtype for this recipe");
  }
  typename R::tensor_type t;
  t.rows = elements.shape(0);
  t.cols = elements.shape(1);
  t.block = r.block;
  if (scales.shape(0) != t.scale_rows() || scales.shape(1) != t.scale_cols()) {
    throw std::invalid_argument("scales must have shape (" + std::to_string(t.scale_rows()) + ", " +
                                std::to_string(t.scale_cols()) + ") for these elements and block");
  }
  const EU* e = static_cast<const EU*>(elements.data());
  const SU* s = static_cast<const SU*>(scales.data());
  t.elements.resize(t.rows * t.cols);
  t.scales.resize(t.scale_rows() * t.scale_cols());
  for (std::size_t i = 0; i < t.elements.size(); ++i) t.elements[i] = numpy_storage<E>::put(e[i]);
  for (std::size_t i = 0; i < t.scales.size(); ++i) t.scales[i] = numpy_storage<S>::put(s[i]);
  t.tensor_scale = static_cast<float>(tensor_scale);
  return t;
}

inline nb::object float_matrix(std::vector<float>&& v, std::size_t rows, std::size_t cols) {
  float* out = new float[v.empty() ? 1 : v.size()];
  std::copy(v.begin(), v.end(), out);
  nb::capsule owner(out, [](void* p) noexcept { delete[] static_cast<float*>(p); });
  return nb::cast(nb::ndarray<nb::numpy, float, nb::ndim<2>>(out, {rows, cols}, owner));
}

/// Elements and scales (as block_quantize returns them) back to float32 values.
inline nb::object block_dequantize(array2d elements, array2d scales, double tensor_scale, const std::string& name,
                                   const nb::dict& params) {
  nb::object result;
  with_recipe(name, params, [&](const auto& r) {
    const auto t = make_tensor(r, elements, scales, tensor_scale);
    std::vector<float> out(t.elements.size());
    {
      nb::gil_scoped_release release;
      r.dequantize(t, out.data());
    }
    result = float_matrix(std::move(out), t.rows, t.cols);
  });
  return result;
}

/// mixprec::block_scaled_gemm of two quantized operands (model 0: fp32, 1: truncated(bits, group)).
inline nb::object block_gemm(array2d a_elements, array2d a_scales, double a_tensor_scale, const std::string& a_name,
                             const nb::dict& a_params, array2d b_elements, array2d b_scales, double b_tensor_scale,
                             const std::string& b_name, const nb::dict& b_params, int model, int bits,
                             std::size_t group, std::size_t promotion, double a_global, double b_global) {
  mixprec::block_gemm_options o;
  if (model == 1) {
    o.acc = mixprec::block_accumulator::truncated(bits, group);
  } else if (model != 0) {
    throw std::invalid_argument("invalid accumulator model");
  }
  o.promotion = promotion;
  nb::object result;
  with_recipe(a_name, a_params, [&](const auto& ra) {
    const auto ta = make_tensor(ra, a_elements, a_scales, a_tensor_scale);
    with_recipe(b_name, b_params, [&](const auto& rb) {
      const auto tb = make_tensor(rb, b_elements, b_scales, b_tensor_scale);
      std::vector<float> c;
      {
        nb::gil_scoped_release release;
        c = mixprec::block_scaled_gemm(ta, tb, o, static_cast<float>(a_global), static_cast<float>(b_global));
      }
      result = float_matrix(std::move(c), ta.rows, tb.cols);
    });
  });
  return result;
}

}  // namespace mixprec_py

#endif  // MIXPREC_PYTHON_BLOCK_SCALING_HPP
