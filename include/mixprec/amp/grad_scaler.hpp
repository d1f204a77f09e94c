// SPDX-License-Identifier: MIT
// mixprec/amp/grad_scaler.hpp — torch.amp.GradScaler for user-defined optimizers: scale the loss,
// unscale and check the gradients, skip steps with inf/NaN gradients, update the scale, and
// save/restore its state as JSON.
//
// Contract: an optimizer is any type with gradients() (a range of gradient_ref: spans of half,
// bfloat16, float or double over its own storage, unscaled in place) and step(). The scaler keeps
// PyTorch's per-optimizer stages (READY / UNSCALED / STEPPED) and throws scaler_error with
// PyTorch's message on misuse; unscaling rounds v * inv_scale once to the gradient's type; an
// error changes nothing. The stage table, the unscale rule and the deliberate differences from
// PyTorch (FP16 gradients allowed, stricter load_state_dict): docs/pages/loss-scale-presets.md#grad_scaler.
//
//   mixprec::grad_scaler scaler;                        // PyTorch's defaults
//   backward(scaler.scale(loss));                       // your backward pass
//   scaler.step(opt);                                   // skipped when a gradient is inf/NaN
//   scaler.update();
#ifndef MIXPREC_GRAD_SCALER_HPP
#define MIXPREC_GRAD_SCALER_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/amp/grad_scaler.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/json.hpp"
#include "../kernels/reduce.hpp"
#include "../kernels/unscale.hpp"
#include "loss_scale.hpp"
#include "../core/types.hpp"

namespace mixprec {

/// Every error of grad_scaler: misuse of the stage machine, bad gradients, bad state dicts.
class scaler_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The element type of a gradient.
enum class grad_dtype : unsigned char {
  fp16,  ///< mixprec::half
  bf16,  ///< mixprec::bfloat16
  fp32,  ///< float
  fp64   ///< double
};

namespace detail {
template <class T>
struct grad_dtype_of;
template <>
struct grad_dtype_of<half> : std::integral_constant<grad_dtype, grad_dtype::fp16> {};
template <>
struct grad_dtype_of<bfloat16> : std::integral_constant<grad_dtype, grad_dtype::bf16> {};
template <>
struct grad_dtype_of<float> : std::integral_constant<grad_dtype, grad_dtype::fp32> {};
template <>
struct grad_dtype_of<double> : std::integral_constant<grad_dtype, grad_dtype::fp64> {};

template <class T, class = void>
struct is_grad_element : std::false_type {};
template <class T>
struct is_grad_element<T, std::void_t<decltype(grad_dtype_of<T>::value)>> : std::true_type {};

template <class C, class = void>
struct is_grad_container : std::false_type {};
template <class C>
struct is_grad_container<C, std::void_t<decltype(std::declval<C&>().data()), decltype(std::declval<C&>().size())>>
    : std::integral_constant<bool,
                             std::is_pointer<decltype(std::declval<C&>().data())>::value &&
                                 is_grad_element<std::remove_pointer_t<decltype(std::declval<C&>().data())>>::value> {};
}  // namespace detail

class gradient_ref;

namespace detail {
template <class Opt, class = void>
struct is_optimizer : std::false_type {};
template <class Opt>
struct is_optimizer<
    Opt, std::void_t<decltype(std::declval<Opt&>().step()), decltype(std::begin(std::declval<Opt&>().gradients())),
                     decltype(std::end(std::declval<Opt&>().gradients()))>> : std::true_type {};
}  // namespace detail

/// A mutable view of one parameter's gradient (pointer, element count, element type), or no
/// gradient at all (default-constructed).
class gradient_ref {
 public:
  /// No gradient (PyTorch's grad None).
  gradient_ref() noexcept = default;
  /// The size elements from data on (T: half, bfloat16, float or double).
  template <class T, std::enable_if_t<detail::is_grad_element<T>::value, int> = 0>
  gradient_ref(T* data, std::size_t size) noexcept
      : data_(data), size_(size), dtype_(detail::grad_dtype_of<T>::value), present_(true) {}
  /// Any contiguous container of half, bfloat16, float or double with data() and size().
  template <class C,
            std::enable_if_t<detail::is_grad_container<C>::value && !std::is_same<C, gradient_ref>::value, int> = 0>
  gradient_ref(C& c) noexcept  // NOLINT(google-explicit-constructor)
      : gradient_ref(c.data(), static_cast<std::size_t>(c.size())) {}

  bool has_value() const noexcept { return present_; }  ///< False for "no gradient"
  grad_dtype dtype() const noexcept { return dtype_; }  ///< The element type
  std::size_t size() const noexcept { return size_; }   ///< Number of elements
  void* data() const noexcept { return data_; }         ///< The first element (type: dtype())

 private:
  void* data_ = nullptr;
  std::size_t size_ = 0;
  grad_dtype dtype_ = grad_dtype::fp32;
  bool present_ = false;
};

/// PyTorch's per-optimizer stages.
enum class optimizer_stage : unsigned char {
  ready,     ///< Since the last update(): neither unscaled nor stepped
  unscaled,  ///< unscale(opt) was called
  stepped    ///< step(opt) was called
};

/// The gradient scaler. Construct it from a loss_scale_config (default: PyTorch's GradScaler).
class grad_scaler {
 public:
  /// All-reduce of found_inf across data-parallel ranks (MAX or SUM): given this rank's value
  /// (0 or 1 per optimizer), returns the reduced one. Called once per optimizer per iteration
  /// inside unscale(), so that every rank skips the same steps; update() then sums the reduced
  /// values. Every rank must unscale the same optimizers in the same order.
  using found_inf_reducer = std::function<float(float)>;

  /// Throws std::invalid_argument when cfg is invalid. A disabled scaler's step() just calls
  /// opt.step() and its other methods do nothing (PyTorch's enabled=False).
  explicit grad_scaler(const loss_scale_config& cfg = loss_scale_config::pytorch(), bool enabled = true)
      : scale_(cfg), enabled_(enabled) {}

  /// Whether the scaler is enabled (PyTorch's enabled).
  bool is_enabled() const noexcept { return enabled_; }

  /// The current scale as PyTorch's get_scale() reports it (a Python float): the scale widened
  /// to double, or 1.0 when disabled.
  double get_scale() const noexcept { return enabled_ ? scale_.scale64() : 1.0; }
  /// Clean steps since the last growth or overflow (0 when disabled).
  std::int64_t growth_tracker() const noexcept { return enabled_ ? scale_.growth_tracker() : 0; }
  /// The underlying state machine.
  const dynamic_loss_scale& loss_scale() const noexcept { return scale_; }

  /// Sets the all-reduce hook (empty: none).
  void set_found_inf_reducer(found_inf_reducer reducer) { reducer_ = std::move(reducer); }
  /// Whether unscale() accepts FP16 gradients (default true; PyTorch's GradScaler: false).
  void allow_fp16_gradients(bool allow) noexcept { allow_fp16_ = allow; }

  /// loss * scale, as PyTorch's outputs * scale: a float or lower-precision loss is multiplied by
  /// the float32 scale in float and rounded once to its type; a double loss in double. The loss
  /// is returned unchanged when disabled. A 0-dim half/bfloat16 loss differs from PyTorch:
  /// docs/pages/loss-scale-presets.md ("Differences from PyTorch, on purpose").
  template <class T>
  T scale(T loss) const {
    static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value || is_mixprec_float<T>::value,
                  "grad_scaler::scale takes float, double or a mixprec type");
    if (!enabled_) return loss;
    if constexpr (std::is_same<T, double>::value) {
      return loss * static_cast<double>(scale_.scale());
    } else if constexpr (std::is_same<T, float>::value) {
      return loss * scale_.scale();
    } else {
      return T(static_cast<float>(loss) * scale_.scale());
    }
  }

  /// Unscales opt's gradients in place and records whether any was inf/NaN (PyTorch's unscale_).
  template <class Opt>
  void unscale(Opt& opt) {
    check_optimizer<Opt>();
    if (!enabled_) return;
    state& st = states_[key(opt)];
    if (st.stage == optimizer_stage::unscaled) {
      throw scaler_error("unscale_() has already been called on this optimizer since the last update().");
    }
    if (st.stage == optimizer_stage::stepped) throw scaler_error("unscale_() is being called after step().");
    auto&& range = opt.gradients();  // kept alive while its gradients are used
    unscale_grads(refs(range), st);
  }

  /// Unscales opt's gradients if unscale() was not called, then calls opt.step() unless an
  /// inf/NaN gradient was found. Returns whether opt.step() was called.
  template <class Opt>
  bool step(Opt& opt) {
    check_optimizer<Opt>();
    if (!enabled_) {
      opt.step();
      return true;
    }
    state& st = states_[key(opt)];
    if (st.stage == optimizer_stage::stepped) {
      throw scaler_error("step() has already been called since the last update().");
    }
    if (st.stage == optimizer_stage::ready) {
      auto&& range = opt.gradients();
      const std::vector<gradient_ref> grads = refs(range);
      if (!any_present(grads)) throw scaler_error("No inf checks were recorded for this optimizer.");
      unscale_grads(grads, st);
    }
    if (!st.has_checks) throw scaler_error("No inf checks were recorded for this optimizer.");
    const bool found = !detail::exact_eq(st.found_inf, 0.0f);
    if (!found) opt.step();
    st.stage = optimizer_stage::stepped;
    return !found;
  }

  /// Updates the scale from every optimizer's found_inf of this iteration (summed), then
  /// returns every optimizer to READY. Throws scaler_error "No inf checks were recorded prior to
  /// update." when no optimizer recorded one, and passes on loss_scale_error (DeepSpeed's error
  /// at the floor); both change nothing.
  void update() {
    if (!enabled_) return;
    float total = 0.0f;
    bool any = false;
    for (const auto& kv : states_) {
      if (kv.second.has_checks) {
        any = true;
        total += kv.second.found_inf;
      }
    }
    if (!any) throw scaler_error("No inf checks were recorded prior to update.");
    scale_.update(!detail::exact_eq(total, 0.0f));
    states_.clear();
  }

  /// Sets the scale directly (rounded to the scale's type; the growth tracker is kept) and
  /// returns every optimizer to READY. Throws scaler_error, changing nothing, unless the rounded
  /// scale is positive and finite.
  void update(double new_scale) {
    if (!enabled_) return;
    try {
      scale_.set_scale(new_scale);
    } catch (const std::invalid_argument& e) {
      throw scaler_error(e.what());
    }
    states_.clear();
  }

  /// The stage of opt in this iteration.
  template <class Opt>
  optimizer_stage stage(const Opt& opt) const {
    const auto it = states_.find(static_cast<const void*>(&opt));
    return it == states_.end() ? optimizer_stage::ready : it->second.stage;
  }

  /// The state as JSON text with PyTorch's keys ("scale", "growth_factor", "backoff_factor",
  /// "growth_interval", "_growth_tracker") and, where the config uses them, "min_scale",
  /// "max_scale", "hysteresis", "_hysteresis_tracker", "check_after_unscale". Numbers print
  /// so that they read back bit-exact; an infinite scale (reachable by unguarded rules) prints as
  /// Infinity, as Python's json does. "{}" when disabled, as PyTorch.
  std::string state_dict() const {
    if (!enabled_) return "{}";
    using detail::json::number_text;
    const loss_scale_config& c = scale_.config();
    std::string s = "{\"scale\": " + number_text(scale_.scale64());
    s += ", \"growth_factor\": " + number_text(c.growth_factor);
    s += ", \"backoff_factor\": " + number_text(c.backoff_factor);
    s += ", \"growth_interval\": " + std::to_string(c.growth_interval);
    s += ", \"_growth_tracker\": " + std::to_string(scale_.growth_tracker());
    if (c.min_scale > 0.0) s += ", \"min_scale\": " + number_text(c.min_scale);
    if (std::isfinite(c.max_scale)) s += ", \"max_scale\": " + number_text(c.max_scale);
    if (c.hysteresis != 1 || scale_.hysteresis_tracker() != 1) {
      s += ", \"hysteresis\": " + std::to_string(c.hysteresis);
      s += ", \"_hysteresis_tracker\": " + std::to_string(scale_.hysteresis_tracker());
    }
    if (c.check_after_unscale) s += ", \"check_after_unscale\": true";
    s += "}";
    return s;
  }

  /// Restores a state_dict(): PyTorch's five keys are required; an option the document leaves
  /// out is off, so that the document is the whole state (the scaler's rule itself is kept).
  /// Throws scaler_error naming the problem, changing nothing, for malformed JSON, an unknown or
  /// wrongly typed key or an inconsistent state (growth_factor <= 1, a negative scale, ...); an
  /// empty object throws PyTorch's "The source state dict is empty, ..." error. Does nothing when
  /// disabled.
  void load_state_dict(const std::string& text) {
    if (!enabled_) return;
    namespace json = detail::json;
    json::value doc;
    try {
      doc = json::parse(text);
    } catch (const json::parse_error& e) {
      fail(std::string("invalid JSON: ") + e.what());
    }
    if (doc.type != json::kind::object) fail(std::string("expected a JSON object, got ") + json::kind_name(doc.type));
    if (doc.keys.empty()) {
      throw scaler_error(
          "The source state dict is empty, possibly because it was saved from a disabled instance of GradScaler.");
    }
    // The document is the whole state: an option it leaves out is off.
    loss_scale_config c = scale_.config();
    c.min_scale = 0.0;
    c.max_scale = std::numeric_limits<double>::infinity();
    c.hysteresis = 1;
    c.check_after_unscale = false;
    double scale = 0.0;
    std::int64_t tracker = 0;
    std::int64_t hyst = 1;
    for (std::size_t i = 0; i < doc.keys.size(); ++i) {
      const std::string& k = doc.keys[i];
      const json::value& v = doc.items[i];
      if (k == "scale") {
        scale = number(k, v);
      } else if (k == "growth_factor") {
        c.growth_factor = number(k, v);
      } else if (k == "backoff_factor") {
        c.backoff_factor = number(k, v);
      } else if (k == "growth_interval") {
        c.growth_interval = integer(k, v);
      } else if (k == "_growth_tracker") {
        tracker = integer(k, v);
      } else if (k == "min_scale") {
        c.min_scale = number(k, v);
      } else if (k == "max_scale") {
        c.max_scale = number(k, v);
        if (!std::isfinite(c.max_scale)) fail("\"max_scale\" must be finite (leave the key out for no cap)");
      } else if (k == "hysteresis") {
        c.hysteresis = integer(k, v);
      } else if (k == "_hysteresis_tracker") {
        hyst = integer(k, v);
      } else if (k == "check_after_unscale") {
        if (v.type != json::kind::boolean) wrong_type(k, "a boolean", v);
        c.check_after_unscale = v.boolean;
      } else {
        fail("unknown key " + json::quote_key(k));
      }
    }
    auto has = [&doc](const char* k) { return std::find(doc.keys.begin(), doc.keys.end(), k) != doc.keys.end(); };
    for (const char* k : {"scale", "growth_factor", "backoff_factor", "growth_interval", "_growth_tracker"}) {
      if (!has(k)) fail(std::string("missing key \"") + k + "\"");
    }
    if (has("hysteresis") != has("_hysteresis_tracker")) {
      fail("\"hysteresis\" and \"_hysteresis_tracker\" must be given together");
    }
    try {
      dynamic_loss_scale candidate(c, scale, tracker, hyst);
      scale_ = candidate;
    } catch (const std::invalid_argument& e) {
      fail(std::string("inconsistent state: ") + e.what());
    }
  }

 private:
  struct state {
    optimizer_stage stage = optimizer_stage::ready;
    bool has_checks = false;
    float found_inf = 0.0f;
  };

  dynamic_loss_scale scale_;
  bool enabled_;
  bool allow_fp16_ = true;
  found_inf_reducer reducer_;
  std::map<const void*, state> states_;

  template <class Opt>
  static constexpr void check_optimizer() noexcept {
    static_assert(detail::is_optimizer<Opt>::value,
                  "mixprec::grad_scaler: an optimizer needs gradients() (a range of values convertible to "
                  "mixprec::gradient_ref) and step()");
  }

  template <class Opt>
  static const void* key(const Opt& opt) noexcept {
    return static_cast<const void*>(&opt);
  }

  template <class Range>
  static std::vector<gradient_ref> refs(Range&& range) {
    std::vector<gradient_ref> out;
    for (auto&& g : range) out.push_back(gradient_ref(g));
    return out;
  }

  static bool any_present(const std::vector<gradient_ref>& grads) noexcept {
    for (const auto& g : grads) {
      if (g.has_value()) return true;
    }
    return false;
  }

  [[noreturn]] static void fail(const std::string& msg) { throw scaler_error("load_state_dict: " + msg); }
  /// A number literal from the document, truncated for a message (detail/quote_input.hpp).
  static std::string literal(const std::string& text) {
    return std::string(detail::input_head(text)) + detail::input_tail_note(text);
  }
  [[noreturn]] static void wrong_type(const std::string& k, const char* expected, const detail::json::value& v) {
    fail(detail::json::quote_key(k) + " must be " + expected + ", got " + detail::json::kind_name(v.type) +
         (v.type == detail::json::kind::number ? " " + literal(v.text) : std::string()));
  }
  static double number(const std::string& k, const detail::json::value& v) {
    if (v.type != detail::json::kind::number) wrong_type(k, "a number", v);
    double d = 0;
    if (!detail::json::to_double(v.text, d))
      fail(detail::json::quote_key(k) + " = " + literal(v.text) + " is out of the range of double");
    return d;
  }
  static std::int64_t integer(const std::string& k, const detail::json::value& v) {
    if (v.type != detail::json::kind::number || !detail::json::is_integer_literal(v.text)) {
      wrong_type(k, "an integer", v);
    }
    std::int64_t n = 0;
    if (!detail::json::to_int64(v.text, n))
      fail(detail::json::quote_key(k) + " = " + literal(v.text) + " is out of the range of int64");
    return n;
  }

  /// Checks every gradient first (so that an error changes nothing), then unscales them all.
  void unscale_grads(const std::vector<gradient_ref>& grads, state& st) {
    for (const auto& g : grads) {
      if (!g.has_value()) continue;
      if (g.data() == nullptr && g.size() != 0)
        throw scaler_error("a gradient has a null data pointer and a non-zero size");
      if (g.dtype() == grad_dtype::fp16 && !allow_fp16_) throw scaler_error("Attempting to unscale FP16 gradients.");
    }
    const float inv = scale_.inv_scale();
    const bool after = scale_.config().check_after_unscale;
    bool any = false;
    bool found = false;
    for (const auto& g : grads) {
      if (!g.has_value()) continue;
      any = true;
      switch (g.dtype()) {
        case grad_dtype::fp16:
          found |= unscale_span(static_cast<half*>(g.data()), g.size(), inv, after);
          break;
        case grad_dtype::bf16:
          found |= unscale_span(static_cast<bfloat16*>(g.data()), g.size(), inv, after);
          break;
        case grad_dtype::fp32:
          found |= unscale_span(static_cast<float*>(g.data()), g.size(), inv, after);
          break;
        case grad_dtype::fp64:
          found |= unscale_span(static_cast<double*>(g.data()), g.size(), inv, after);
          break;
      }
    }
    st.has_checks = any;
    st.found_inf = found ? 1.0f : 0.0f;
    st.stage = optimizer_stage::unscaled;
    // A throwing reducer leaves the gradients unscaled and the stage UNSCALED with the local value.
    if (any && reducer_) st.found_inf = reducer_(st.found_inf);
  }

  template <class T>
  static bool unscale_span(T* p, std::size_t n, float inv, bool check_after) {
    // The fused kernel (kernels/unscale.hpp): check on the scaled value, multiply unless inv == 1.
    const span<T> g(p, n);
    bool found = unscale_and_check(exec::par, g, inv);
    // check_after_unscale: also flag a non-finite unscaled value (amax is inf or NaN then).
    if (check_after && n != 0) {
      const auto m = amax(exec::par, g);
      if (detail::is_nan_value(m - m)) found = true;  // m - m is NaN exactly when m is inf or NaN
    }
    return found;
  }
};

}  // namespace mixprec

#endif  // MIXPREC_GRAD_SCALER_HPP
