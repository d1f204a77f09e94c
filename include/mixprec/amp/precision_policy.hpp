// SPDX-License-Identifier: MIT
// mixprec/amp/precision_policy.hpp — jmp / Keras / Apex mixed-precision policies: which type the
// parameters are stored in, which type computations run in, which type results are given in.
//
// Contract: parse_precision_policy accepts Keras names (mixed_float16, mixed_bfloat16), Apex opt
// levels (O0..O3, with Apex's Properties) and jmp strings ("bf16", "p=f32,c=bf16,o=f32"), exactly
// as those libraries do; anything else throws precision_policy_error naming the bad token.
// to_string() parses back to the same policy. Grammar and every preset's values:
// docs/pages/precision-policy.md.
//
//   auto p = mixprec::parse_precision_policy("params=float32,compute=bfloat16,output=float32");
//   auto xc = p.cast_to_compute(x);   // x's floating values in bfloat16 (cast_result.hpp)
//   p.to_string();                    // "p=full,c=bf16,o=full" (jmp's spelling)
//   mixprec::parse_precision_policy("O2").apex->master_weights;   // true
#ifndef MIXPREC_PRECISION_POLICY_HPP
#define MIXPREC_PRECISION_POLICY_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/amp/precision_policy.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "../kernels/cast_result.hpp"
#include "../core/detail/quote_input.hpp"
#include "../core/dtype.hpp"

namespace mixprec {

/// A rejected policy string: what() names the bad token; token() and position() locate it.
class precision_policy_error : public std::invalid_argument {
 public:
  /// what() is the message; token is the rejected text, position its offset in the input.
  precision_policy_error(const std::string& what, std::string token, std::size_t position)
      : std::invalid_argument(what), token_(std::move(token)), position_(position) {}
  /// The rejected token ('' for an empty part).
  const std::string& token() const noexcept { return token_; }
  /// The token's offset in the policy text.
  std::size_t position() const noexcept { return position_; }

 private:
  std::string token_;
  std::size_t position_;
};

/// Apex amp's Properties for an opt level (None in Apex = nullopt here).
struct apex_properties {
  std::string_view opt_level;                 ///< "O0".."O3"
  bool enabled = true;                        ///< Always true for O0..O3
  std::optional<dtype> cast_model_type;       ///< Type the model is cast to (None for O1)
  bool patch_torch_functions = false;         ///< Per-op casting from op lists (O1)
  std::optional<bool> keep_batchnorm_fp32;    ///< Batchnorm kept float32 (O2 true, O3 false)
  std::optional<bool> master_weights;         ///< float32 master copy of the weights (O2)
  /// loss_scale "dynamic" (else the static loss_scale_value).
  bool dynamic_loss_scale = false;
  double loss_scale_value = 1.0;              ///< The static loss scale (1.0 for O0 and O3)

  /// Member-wise equality (the loss scale compared exactly).
  friend bool operator==(const apex_properties& a, const apex_properties& b) noexcept {
    return a.opt_level == b.opt_level && a.enabled == b.enabled && a.cast_model_type == b.cast_model_type &&
           a.patch_torch_functions == b.patch_torch_functions && a.keep_batchnorm_fp32 == b.keep_batchnorm_fp32 &&
           a.master_weights == b.master_weights && a.dynamic_loss_scale == b.dynamic_loss_scale &&
           detail::exact_eq(a.loss_scale_value, b.loss_scale_value);
  }
  /// !(a == b).
  friend bool operator!=(const apex_properties& a, const apex_properties& b) noexcept { return !(a == b); }
};

/// How a policy scales the loss.
enum class loss_scale_kind : unsigned char {
  none,   ///< No loss scaling (jmp policies, mixed_bfloat16)
  fixed,  ///< A constant scale, precision_policy::fixed_loss_scale (Apex O0, O3)
  dynamic ///< A dynamic scaler (mixed_float16, Apex O1, O2)
};

/// A mixed-precision policy: storage, compute and output types plus the preset's properties
/// (docs/pages/precision-policy.md); a jmp policy has only the three types.
struct precision_policy {
  dtype param = dtype::float32();    ///< Type the parameters are stored in
  dtype compute = dtype::float32();  ///< Type computations run in
  dtype output = dtype::float32();   ///< Type results are given in

  /// none, fixed (fixed_loss_scale) or dynamic (loss_scale.hpp's presets).
  loss_scale_kind loss_scale = loss_scale_kind::none;
  /// The scale when loss_scale is fixed.
  double fixed_loss_scale = 1.0;
  bool master_weights = false;       ///< A float32 master copy of low-precision parameters
  bool keep_batchnorm_fp32 = false;  ///< Batchnorm parameters stay float32
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
  /// jmp's Policy.cast_to_compute: floating values of x to compute, the rest unchanged.
  template <class A>
  detail::cast_result_t<A&&> cast_to_compute(A&& x) const {
    return cast_to(compute, std::forward<A>(x));
  }
  /// jmp's Policy.cast_to_output: floating values of x to output, the rest unchanged.
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

  /// The preset's name, or jmp's "p=..,c=..,o=.." with the first names full, f16, bf16, f64;
  /// parses back to the same policy.
  std::string to_string() const {
    if (!preset.empty()) return std::string(preset);
    return "p=" + short_name(param) + ",c=" + short_name(compute) + ",o=" + short_name(output);
  }

  /// Member-wise equality (fixed_loss_scale compared exactly).
  friend bool operator==(const precision_policy& a, const precision_policy& b) noexcept {
    return a.param == b.param && a.compute == b.compute && a.output == b.output && a.loss_scale == b.loss_scale &&
           detail::exact_eq(a.fixed_loss_scale, b.fixed_loss_scale) && a.master_weights == b.master_weights &&
           a.keep_batchnorm_fp32 == b.keep_batchnorm_fp32 && a.autocast == b.autocast && a.preset == b.preset &&
           a.apex == b.apex;
  }
  /// !(a == b).
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

/// Parses a Keras, Apex or jmp policy (docs/pages/precision-policy.md); throws
/// precision_policy_error for anything else. half_dtype is what "half" means: float16
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
