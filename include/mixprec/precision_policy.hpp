// SPDX-License-Identifier: MIT
// mixprec/precision_policy.hpp — jmp / Keras / Apex mixed-precision policies: which type the
// parameters are stored in, which type computations run in, which type results are given in.
//
//   auto p = mixprec::parse_precision_policy("params=float32,compute=bfloat16,output=float32");
//   auto xc = p.cast_to_compute(x);   // x's floating values in bfloat16 (cast_result.hpp)
//   p.to_string();                    // "p=full,c=bf16,o=full" (jmp's spelling)
//   mixprec::parse_precision_policy("O2").apex->master_weights;   // true
//
// GRAMMAR (all names case-sensitive, no whitespace allowed anywhere, as in jmp):
//   - Keras DTypePolicy names: "mixed_float16" (params float32, compute and output float16,
//     dynamic loss scaling: Keras' Model.compile wraps the optimizer in a LossScaleOptimizer for
//     this policy) and "mixed_bfloat16" (params float32, compute and output bfloat16, no loss
//     scaling).
//   - Apex opt levels "O0".."O3" (apex/amp/frontend.py), with Apex's Properties in .apex:
//       O0  pure float32: cast_model_type float32, master_weights False, keep_batchnorm_fp32 None,
//           loss_scale 1.0 -> params/compute/output float32.
//       O1  patch_torch_functions (per-op autocast lists), cast_model_type None, master_weights
//           None, keep_batchnorm_fp32 None, loss_scale "dynamic" -> params float32, compute and
//           output float16 (autocast = true: the op lists decide per op, see autocast.hpp; O1
//           does not cast the model's outputs, so "output" is what its last op gives).
//       O2  cast_model_type float16 with batchnorm kept float32, float32 master weights,
//           loss_scale "dynamic" -> params float16, compute float16, output float32 (Apex patches
//           forward() to cast the outputs to float32).
//       O3  pure float16: cast_model_type float16, keep_batchnorm_fp32 False, master_weights
//           False, loss_scale 1.0 -> params/compute float16, output float32.
//     A dynamic Apex loss scale is loss_scale_config::apex() (loss_scale.hpp).
//   - jmp (jmp/_src/policy.py, get_policy / parse_dtype), everything else:
//       * without '=': one dtype name, for all three ("bf16", "full", "half", "float32", ...);
//       * with '=' anywhere: comma-separated key=value parts; keys params|p, compute|c,
//         output|o (a repeated key: the last one counts); params defaults to float32, compute
//         to params, output to compute ("c=f16" is p=f32,c=f16,o=f16);
//       * dtype names: bf16|bfloat16, f16|float16, full|f32|float32, f64|float64, and half =
//         the "half_dtype" argument (jmp: bfloat16 on TPU, float16 elsewhere; default float16).
// Whatever is not accepted throws precision_policy_error (a std::invalid_argument) whose
// message names the bad token in quotes and whose token()/position() give it and its offset in
// the input: an unknown dtype ("p=f99" -> 'f99'), an unknown key ("q=f16" -> 'q'), a part that
// is not exactly one key=value ("p=f16,bf16" -> 'bf16'; "p=f16=f32"; an empty part as in
// "p=f16," -> '' at offset 6), an unknown name ("O4", "", "Float32"). As in jmp, a part's dtype
// is checked before its key.
//
// PROPERTIES besides the three types (filled by the presets; a jmp policy has none of them):
// loss_scale (none / fixed value / dynamic), master_weights (a float32 master copy of
// low-precision parameters), keep_batchnorm_fp32, autocast (per-op casting decides the compute
// type), and preset (the Keras or Apex name, empty for jmp policies).
//
// cast_to_param / cast_to_compute / cast_to_output(x) are jmp's: every FLOATING value in x
// (float64 included) is converted to that type; anything else passes through (cast_to in
// cast_result.hpp). to_string() writes a preset's name, or jmp's "p=..,c=..,o=.." with jmp's first
// names (full, f16, bf16, f64), which parse back to the same policy.
#ifndef MIXPREC_PRECISION_POLICY_HPP
#define MIXPREC_PRECISION_POLICY_HPP

#include "config.hpp"
#if !MIXPREC_HAS_EXCEPTIONS && !defined(__CUDA_ARCH__)
#error "mixprec/precision_policy.hpp needs C++ exceptions (it is compiled with -fno-exceptions here); the numeric core, mixprec/mixprec.hpp, does not"
#include "mixprec: compilation stopped (see the error above)"
#endif

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "cast_result.hpp"
#include "detail/quote_input.hpp"
#include "dtype.hpp"

namespace mixprec {

/// A rejected policy string: what() names the bad token; token() and position() locate it.
class precision_policy_error : public std::invalid_argument {
 public:
  precision_policy_error(const std::string& what, std::string token, std::size_t position)
      : std::invalid_argument(what), token_(std::move(token)), position_(position) {}
  const std::string& token() const noexcept { return token_; }
  std::size_t position() const noexcept { return position_; }

 private:
  std::string token_;
  std::size_t position_;
};

/// Apex amp's Properties for an opt level (None in Apex = nullopt here).
struct apex_properties {
  std::string_view opt_level;
  bool enabled = true;
  std::optional<dtype> cast_model_type;
  bool patch_torch_functions = false;
  std::optional<bool> keep_batchnorm_fp32;
  std::optional<bool> master_weights;
  /// loss_scale "dynamic" (else the static loss_scale_value).
  bool dynamic_loss_scale = false;
  double loss_scale_value = 1.0;

  friend bool operator==(const apex_properties& a, const apex_properties& b) noexcept {
    return a.opt_level == b.opt_level && a.enabled == b.enabled && a.cast_model_type == b.cast_model_type &&
           a.patch_torch_functions == b.patch_torch_functions && a.keep_batchnorm_fp32 == b.keep_batchnorm_fp32 &&
           a.master_weights == b.master_weights && a.dynamic_loss_scale == b.dynamic_loss_scale &&
           detail::exact_eq(a.loss_scale_value, b.loss_scale_value);
  }
  friend bool operator!=(const apex_properties& a, const apex_properties& b) noexcept { return !(a == b); }
};

/// How a policy scales the loss.
enum class loss_scale_kind : unsigned char { none, fixed, dynamic };

/// A mixed-precision policy. See the top of this header.
struct precision_policy {
  dtype param = dtype::float32();
  dtype compute = dtype::float32();
  dtype output = dtype::float32();

  loss_scale_kind loss_scale = loss_scale_kind::none;
  /// The scale when loss_scale is fixed.
  double fixed_loss_scale = 1.0;
  bool master_weights = false;
  bool keep_batchnorm_fp32 = false;
  /// Per-op casting (autocast op lists) decides the compute type (Apex O1).
  bool autocast = false;
  /// "mixed_float16", "mixed_bfloat16", "O0".."O3", or empty (a jmp policy).
  std::string_view preset = {};
  /// Apex's Properties, for "O0".."O3".
  std::optional<apex_properties> apex = std::nullopt;

  /// jmp's Policy.cast_to_param: floating values of x to param, the rest unchanged.
  template <class A>
  detail::cast_result_t<A&&> cast_to_param(A&& x) const {
    return cast_to(param, std::forward<A>(x));
  }
  template <class A>
  detail::cast_result_t<A&&> cast_to_compute(A&& x) const {
    return cast_to(compute, std::forward<A>(x));
  }
  template <class A>
  detail::cast_result_t<A&&> cast_to_output(A&& x) const {
    return cast_to(output, std::forward<A>(x));
  }
  /// jmp's Policy.with_output_dtype (the result is a plain jmp policy when the output changes).
  precision_policy with_output_dtype(dtype t) const {
    precision_policy p = *this;
    if (t != output) p.preset = {};
    p.output = t;
    return p;
  }

  /// The preset's name, or jmp's "p=..,c=..,o=.." (see the top of this header).
  std::string to_string() const {
    if (!preset.empty()) return std::string(preset);
    return "p=" + short_name(param) + ",c=" + short_name(compute) + ",o=" + short_name(output);
  }

  friend bool operator==(const precision_policy& a, const precision_policy& b) noexcept {
    return a.param == b.param && a.compute == b.compute && a.output == b.output && a.loss_scale == b.loss_scale &&
           detail::exact_eq(a.fixed_loss_scale, b.fixed_loss_scale) && a.master_weights == b.master_weights &&
           a.keep_batchnorm_fp32 == b.keep_batchnorm_fp32 && a.autocast == b.autocast && a.preset == b.preset &&
           a.apex == b.apex;
  }
  friend bool operator!=(const precision_policy& a, const precision_policy& b) noexcept { return !(a == b); }

 private:
  static std::string short_name(dtype t) {
    if (t == dtype::bfloat16()) return "bf16";
    if (t == dtype::float16()) return "f16";
    if (t == dtype::float32()) return "full";
    if (t == dtype::float64()) return "f64";
    return std::string(t.name());
  }
};

namespace detail {

[[noreturn]] inline void policy_error(const std::string& what, std::string_view token, std::size_t position) {
  throw precision_policy_error("mixprec::precision_policy: " + what, std::string(token), position);
}

inline std::string quoted(std::string_view s) { return quote_input(s); }
/// The whole policy text in a message: "text" truncated (detail/quote_input.hpp).
inline std::string in_text(std::string_view s) { return " in " + quote_input(s, '"'); }

/// jmp's parse_dtype; nullopt for an unknown name.
inline std::optional<dtype> policy_dtype(std::string_view name, dtype half_dtype) noexcept {
  if (name == "half") return half_dtype;
  if (name == "bf16" || name == "bfloat16") return dtype::bfloat16();
  if (name == "f16" || name == "float16") return dtype::float16();
  if (name == "full" || name == "f32" || name == "float32") return dtype::float32();
  if (name == "f64" || name == "float64") return dtype::float64();
  return std::nullopt;
}

inline dtype policy_dtype_or_throw(std::string_view name, std::string_view input, std::size_t position,
                                   dtype half_dtype) {
  if (std::optional<dtype> t = policy_dtype(name, half_dtype)) return *t;
  policy_error("unknown dtype " + quoted(name) + in_text(input) +
                   " (expected full, half, f32, float32, f16, float16, bf16, bfloat16, f64 or float64)",
               name, position);
}

inline precision_policy apex_preset(std::string_view level) {
  precision_policy p;
  apex_properties a;
  a.opt_level = level;
  if (level == "O0") {
    p.preset = "O0";
    a.cast_model_type = dtype::float32();
    a.master_weights = false;
    a.loss_scale_value = 1.0;
  } else if (level == "O1") {
    p.preset = "O1";
    a.patch_torch_functions = true;
    a.dynamic_loss_scale = true;
    p.compute = p.output = dtype::float16();
    p.autocast = true;
  } else if (level == "O2") {
    p.preset = "O2";
    a.cast_model_type = dtype::float16();
    a.keep_batchnorm_fp32 = true;
    a.master_weights = true;
    a.dynamic_loss_scale = true;
    p.param = p.compute = dtype::float16();
  } else {  // O3
    p.preset = "O3";
    a.cast_model_type = dtype::float16();
    a.keep_batchnorm_fp32 = false;
    a.master_weights = false;
    a.loss_scale_value = 1.0;
    p.param = p.compute = dtype::float16();
  }
  p.loss_scale = a.dynamic_loss_scale ? loss_scale_kind::dynamic : loss_scale_kind::fixed;
  p.fixed_loss_scale = a.loss_scale_value;
  p.master_weights = a.master_weights.value_or(false);
  p.keep_batchnorm_fp32 = a.keep_batchnorm_fp32.value_or(false);
  p.apex = a;
  return p;
}

}  // namespace detail

/// Parses a policy (see the top of this header). half_dtype is what "half" means: float16
/// (default) or bfloat16 (jmp on TPU); another value throws std::invalid_argument.
inline precision_policy parse_precision_policy(std::string_view text, dtype half_dtype = dtype::float16()) {
  if (half_dtype != dtype::float16() && half_dtype != dtype::bfloat16()) {
    throw std::invalid_argument("mixprec::parse_precision_policy: half_dtype must be float16 or bfloat16, not " +
                                std::string(half_dtype.name()));
  }
  precision_policy p;
  if (text == "mixed_float16" || text == "mixed_bfloat16") {
    const bool f16 = text == "mixed_float16";
    p.compute = p.output = f16 ? dtype::float16() : dtype::bfloat16();
    p.loss_scale = f16 ? loss_scale_kind::dynamic : loss_scale_kind::none;
    p.preset = f16 ? "mixed_float16" : "mixed_bfloat16";
    return p;
  }
  if (text == "O0" || text == "O1" || text == "O2" || text == "O3") return detail::apex_preset(text);

  if (text.find('=') == std::string_view::npos) {
    if (std::optional<dtype> t = detail::policy_dtype(text, half_dtype)) {
      p.param = p.compute = p.output = *t;
      return p;
    }
    detail::policy_error("unknown precision policy " + detail::quoted(text) +
                             " (expected a dtype name such as bf16, full or half, a key=value list such as "
                             "p=f32,c=bf16,o=f32, mixed_float16, mixed_bfloat16 or O0..O3)",
                         text, 0);
  }

  std::optional<dtype> param, compute, output;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view part = text.substr(start, comma == std::string_view::npos ? text.size() - start : comma - start);
    const std::size_t eq = part.find('=');
    if (eq == std::string_view::npos || part.find('=', eq + 1) != std::string_view::npos) {
      detail::policy_error("malformed part " + detail::quoted(part) + detail::in_text(text) +
                               " (expected exactly one key=value, e.g. p=f32,c=bf16,o=f32)",
                           part, start);
    }
    const std::string_view key = part.substr(0, eq);
    const std::string_view value = part.substr(eq + 1);
    const dtype t = detail::policy_dtype_or_throw(value, text, start + eq + 1, half_dtype);
    if (key == "p" || key == "params") {
      param = t;
    } else if (key == "c" || key == "compute") {
      compute = t;
    } else if (key == "o" || key == "output") {
      output = t;
    } else {
      detail::policy_error("unknown key " + detail::quoted(key) + detail::in_text(text) +
                               " (expected params, compute or output, or p, c, o)",
                           key, start);
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  p.param = param.value_or(dtype::float32());
  p.compute = compute.value_or(p.param);
  p.output = output.value_or(p.compute);
  return p;
}

}  // namespace mixprec

#endif  // MIXPREC_PRECISION_POLICY_HPP
