// SPDX-License-Identifier: MIT
// mixprec/amp/loss_scale.hpp — loss-scale state machines: the dynamic scale of PyTorch's GradScaler
// and of the other frameworks (presets), a static scale and no scale.
//
// Contract: dynamic_loss_scale::update(found_inf) applies one rule that reproduces, bit for bit,
// PyTorch, Keras, tf-keras, jmp, Apex, DeepSpeed and Megatron (loss_scale_config's presets):
// an overflow resets the growth tracker and, unless hysteresis absorbs it, backs the scale off
// (then floors it); growth_interval clean steps in a row grow it (capped, and kept only when
// finite where the rule guards growth); products are rounded as the framework rounds them. The
// rule, each framework's literal rule and every preset as a table: docs/pages/loss-scale-presets.md.
//
//   mixprec::dynamic_loss_scale s(mixprec::loss_scale_config::deepspeed());
//   s.update(true);   // hysteresis 2 absorbs the first overflow: scale stays 65536
//   s.update(true);   // backs off: 32768
#ifndef MIXPREC_LOSS_SCALE_HPP
#define MIXPREC_LOSS_SCALE_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/amp/loss_scale.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "detail/json.hpp"
#include "../core/round_to.hpp"

namespace mixprec {

/// Thrown by dynamic_loss_scale::update when the rule asks for an error at the floor (DeepSpeed's
/// raise_error_at_min_scale). Nothing has changed when it is thrown.
class loss_scale_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// How the scale is stored and how its products with the factors are rounded.
enum class scale_arithmetic : unsigned char {
  /// PyTorch (_amp_update_scale_): float32 scale; scale * factor computed in double with the
  /// factor as given (a double), rounded once to float32.
  float32_via_double,
  /// Keras, tf-keras, jmp, Megatron: float32 scale, factors and floor/cap rounded to float32,
  /// every product or quotient rounded to float32.
  float32,
  /// Apex, DeepSpeed: the scale is a Python float (double); products in double.
  float64
};

/// How hysteresis (several consecutive overflows before backing off) counts.
enum class hysteresis_rule : unsigned char {
  /// DeepSpeed DynamicLossScaler (delayed_shift): an overflow backs off when delayed_shift == 1
  /// or the counter is 1, otherwise decrements the counter (which therefore never goes below 1);
  /// refilled at growth, or at every clean step with consecutive_hysteresis.
  deepspeed,
  /// Megatron DynamicGradScaler: every overflow decrements the counter, and backs off once it is
  /// <= 0 (it keeps going negative); refilled only at growth.
  megatron
};

/// The parameters of a dynamic loss scale. The presets reproduce each framework's rule; the
/// default-constructed config is pytorch(). validate() checks it.
struct loss_scale_config {
  double init_scale = 65536.0;   ///< The first scale (rounded to the storage type)
  double growth_factor = 2.0;    ///< Growth multiplies by it; > 1 and finite
  double backoff_factor = 0.5;   ///< Backoff multiplies by it (unless backoff_divides); in (0, 1)
  /// Clean steps between growths, 1 .. 2^31 - 1.
  std::int64_t growth_interval = 2000;

  /// The scale's storage type and the rounding of its products.
  scale_arithmetic arithmetic = scale_arithmetic::float32_via_double;
  /// Back off by scale / growth_factor (Keras, tf-keras, jmp, Apex, DeepSpeed) instead of
  /// scale * backoff_factor (PyTorch, Megatron); backoff_factor must then be 1 / growth_factor.
  bool backoff_divides = false;
  /// Keep the old scale when the grown one is not finite (PyTorch, tf-keras, jmp).
  bool guard_growth = true;
  /// Floor after a backoff: scale = max(scale, min_scale); 0 means none. (Not applied by
  /// update(new_scale) or by a loaded state, as in the frameworks.)
  double min_scale = 0.0;
  /// Cap after a growth: scale = min(scale, max_scale) (Apex); infinity means none.
  double max_scale = std::numeric_limits<double>::infinity();
  /// Consecutive overflows before a backoff (DeepSpeed delayed_shift, Megatron hysteresis);
  /// 1 means none.
  std::int64_t hysteresis = 1;
  /// How the hysteresis counter counts (matters only when hysteresis > 1).
  hysteresis_rule hysteresis_kind = hysteresis_rule::deepspeed;
  /// DeepSpeed consecutive_hysteresis: refill the hysteresis counter at every clean step.
  bool consecutive_hysteresis = false;
  /// DeepSpeed raise_error_at_min_scale: an overflow that would back off while the scale equals
  /// min_scale (0 when there is no floor) throws loss_scale_error instead.
  bool error_at_floor = false;
  /// grad_scaler only: also flag a gradient whose unscaled value is not finite (closes the
  /// 0 * inf hole of PyTorch issues 99640 / 96755: a zero scale gives inv_scale = inf and
  /// 0 * inf = NaN, which PyTorch's check, made before the multiply, misses).
  bool check_after_unscale = false;

  /// torch.amp.GradScaler: 2^16, x2 / x0.5 every 2000 clean steps, float32 via double, growth
  /// guarded, no floor (docs/pages/loss-scale-presets.md has every preset's rules).
  static loss_scale_config pytorch() { return loss_scale_config{}; }

  /// Keras 3 LossScaleOptimizer: 2^15, x2 / 2 every 2000, float32, unguarded, no floor.
  static loss_scale_config keras() {
    loss_scale_config c;
    c.init_scale = 32768.0;
    c.arithmetic = scale_arithmetic::float32;
    c.backoff_divides = true;
    c.guard_growth = false;
    return c;
  }

  /// tf-keras _DynamicLossScaleState: keras() with growth guarded and floor 1.
  static loss_scale_config tf_keras() {
    loss_scale_config c = keras();
    c.guard_growth = true;
    c.min_scale = 1.0;
    return c;
  }

  /// jmp DynamicLossScale: keras() with growth guarded and floor 1 (jmp has no default initial
  /// scale; it suggests 2^15).
  static loss_scale_config jmp() { return tf_keras(); }

  /// Apex amp LossScaler: 2^16, x2 / 2 every 2000, float64, cap 2^24, no floor, unguarded.
  static loss_scale_config apex() {
    loss_scale_config c;
    c.arithmetic = scale_arithmetic::float64;
    c.backoff_divides = true;
    c.guard_growth = false;
    c.max_scale = 16777216.0;
    return c;
  }

  /// DeepSpeed DynamicLossScaler with its config defaults: 2^16, x2 / 2 every 1000, float64,
  /// floor 1, hysteresis 2 (deepspeed rule), unguarded, error_at_floor off.
  static loss_scale_config deepspeed() {
    loss_scale_config c;
    c.growth_interval = 1000;
    c.arithmetic = scale_arithmetic::float64;
    c.backoff_divides = true;
    c.guard_growth = false;
    c.min_scale = 1.0;
    c.hysteresis = 2;
    c.hysteresis_kind = hysteresis_rule::deepspeed;
    return c;
  }

  /// Megatron-LM DynamicGradScaler with its defaults: 2^32, x2 / x0.5 every 1000, float32,
  /// floor 1, hysteresis 2 (megatron rule), unguarded.
  static loss_scale_config megatron() {
    loss_scale_config c;
    c.init_scale = 4294967296.0;
    c.growth_interval = 1000;
    c.arithmetic = scale_arithmetic::float32;
    c.guard_growth = false;
    c.min_scale = 1.0;
    c.hysteresis = 2;
    c.hysteresis_kind = hysteresis_rule::megatron;
    return c;
  }

  /// Throws std::invalid_argument naming the first bad field. PyTorch's two checks keep its
  /// messages; the bounds PyTorch leaves unchecked are checked here too.
  void validate() const {
    using detail::json::number_text;
    auto bad = [](const std::string& m) { throw std::invalid_argument("mixprec::loss_scale_config: " + m); };
    if (!(growth_factor > 1.0)) bad("The growth factor must be > 1.0.");
    if (!(backoff_factor < 1.0)) bad("The backoff factor must be < 1.0.");
    if (!std::isfinite(growth_factor)) bad("growth_factor must be finite (got " + number_text(growth_factor) + ")");
    if (!(backoff_factor > 0.0)) bad("backoff_factor must be > 0 (got " + number_text(backoff_factor) + ")");
    if (arithmetic == scale_arithmetic::float32 &&
        !(round_to<float>(growth_factor) > 1.0f && round_to<float>(backoff_factor) < 1.0f &&
          round_to<float>(backoff_factor) > 0.0f)) {
      bad("growth_factor " + number_text(growth_factor) + " / backoff_factor " + number_text(backoff_factor) +
          " leave (0, 1) / (1, inf) when rounded to float32");
    }
    if (growth_interval < 1 || growth_interval > std::numeric_limits<std::int32_t>::max()) {
      bad("growth_interval must be in [1, 2147483647] (got " + std::to_string(growth_interval) + ")");
    }
    if (backoff_divides && !detail::exact_eq(backoff_factor, 1.0 / growth_factor)) {
      bad("this rule backs off by dividing by growth_factor, so backoff_factor must be 1 / growth_factor (got " +
          number_text(backoff_factor) + " with growth_factor " + number_text(growth_factor) + ")");
    }
    if (!(init_scale > 0.0) || !std::isfinite(init_scale)) {
      bad("init_scale must be positive and finite (got " + number_text(init_scale) + ")");
    }
    if (!representable(init_scale)) {
      bad("init_scale " + number_text(init_scale) + " is not a positive finite value of the scale's type");
    }
    if (!(min_scale >= 0.0) || !std::isfinite(min_scale)) {
      bad("min_scale must be >= 0 and finite (got " + number_text(min_scale) + ")");
    }
    if (min_scale > 0.0 && !representable(min_scale)) {
      bad("min_scale " + number_text(min_scale) + " is not a positive finite value of the scale's type");
    }
    if (!(max_scale > 0.0)) bad("max_scale must be > 0 (infinity for no cap) (got " + number_text(max_scale) + ")");
    if (std::isfinite(max_scale) && !representable(max_scale)) {
      bad("max_scale " + number_text(max_scale) + " is not a positive finite value of the scale's type");
    }
    if (min_scale > max_scale) {
      bad("min_scale " + number_text(min_scale) + " exceeds max_scale " + number_text(max_scale));
    }
    if (hysteresis < 1 || hysteresis > std::numeric_limits<std::int32_t>::max()) {
      bad("hysteresis must be in [1, 2147483647] (got " + std::to_string(hysteresis) + ")");
    }
  }

  /// x rounded to the scale's storage type (float or double).
  double to_storage(double x) const noexcept {
    return arithmetic == scale_arithmetic::float64 ? x : static_cast<double>(round_to<float>(x));
  }

 private:
  /// A positive value that stays positive and finite in the scale's storage type.
  bool representable(double x) const noexcept {
    const double s = to_storage(x);
    return s > 0.0 && std::isfinite(s);
  }
};

/// The dynamic loss scale: a pure state machine (scale, growth tracker, hysteresis counter)
/// driven by update(found_inf).
class dynamic_loss_scale {
 public:
  /// Lowest hysteresis counter accepted in a loaded state (Megatron's goes negative).
  static constexpr std::int64_t min_hysteresis_tracker = -(std::int64_t{1} << 62);

  /// Throws std::invalid_argument when cfg is invalid (see loss_scale_config::validate).
  explicit dynamic_loss_scale(const loss_scale_config& cfg = loss_scale_config::pytorch()) : cfg_(cfg) {
    cfg_.validate();
    scale_ = cfg_.to_storage(cfg_.init_scale);
    hyst_ = cfg_.hysteresis;
  }

  /// A scale in the given state. Throws std::invalid_argument (naming the field) when the
  /// config is invalid or the state inconsistent with it: scale negative or NaN (or infinite
  /// where the rule guards or caps growth, or beyond the storage type's range), tracker outside
  /// [0, growth_interval), hysteresis counter above hysteresis (or below 1 for DeepSpeed's rule,
  /// or below min_hysteresis_tracker).
  dynamic_loss_scale(const loss_scale_config& cfg, double scale, std::int64_t growth_tracker,
                     std::int64_t hysteresis_tracker)
      : cfg_(cfg) {
    cfg_.validate();
    scale_ = checked_state_scale(cfg_, scale);
    auto bad = [](const std::string& m) { throw std::invalid_argument("mixprec::dynamic_loss_scale: " + m); };
    if (growth_tracker < 0 || growth_tracker >= cfg_.growth_interval) {
      bad("_growth_tracker " + std::to_string(growth_tracker) +
          " is not in [0, growth_interval = " + std::to_string(cfg_.growth_interval) + ")");
    }
    const std::int64_t lo = cfg_.hysteresis_kind == hysteresis_rule::deepspeed ? 1 : min_hysteresis_tracker;
    if (hysteresis_tracker < lo || hysteresis_tracker > cfg_.hysteresis) {
      bad("_hysteresis_tracker " + std::to_string(hysteresis_tracker) + " is not in [" + std::to_string(lo) +
          ", hysteresis = " + std::to_string(cfg_.hysteresis) + "]");
    }
    tracker_ = growth_tracker;
    hyst_ = hysteresis_tracker;
  }

  /// One step of the rule (docs/pages/loss-scale-presets.md). found_inf: an inf/NaN gradient was seen.
  /// Throws loss_scale_error, changing nothing, when error_at_floor is set and an overflow would
  /// back off while the scale equals min_scale.
  void update(bool found_inf) {
    double scale = scale_;
    std::int64_t tracker = tracker_;
    std::int64_t hyst = hyst_;
    if (found_inf) {
      tracker = 0;
      bool back_off;
      if (cfg_.hysteresis_kind == hysteresis_rule::deepspeed) {
        back_off = cfg_.hysteresis == 1 || hyst == 1;
        if (!back_off) --hyst;
      } else {
        if (hyst > min_hysteresis_tracker) --hyst;
        back_off = hyst <= 0;
      }
      if (back_off) {
        const double floor = floor_value();
        if (cfg_.error_at_floor && detail::exact_eq(scale, floor)) {
          throw loss_scale_error("Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.");
        }
        scale = backoff(scale);
        if (floor > 0.0 && !(scale >= floor)) scale = floor;
      }
    } else {
      if (cfg_.hysteresis_kind == hysteresis_rule::deepspeed && cfg_.consecutive_hysteresis) hyst = cfg_.hysteresis;
      if (tracker + 1 == cfg_.growth_interval) {
        tracker = 0;
        hyst = cfg_.hysteresis;
        double grown = grow(scale);
        const double cap = cap_value();
        if (grown > cap) grown = cap;
        if (!cfg_.guard_growth || std::isfinite(grown)) scale = grown;
      } else {
        ++tracker;
      }
    }
    scale_ = scale;
    tracker_ = tracker;
    hyst_ = hyst;
  }

  /// The scale as float32 (rounded from double for the float64 rules).
  float scale() const noexcept { return round_to<float>(scale_); }
  /// The scale in its storage type, widened to double (exact).
  double scale64() const noexcept { return scale_; }
  /// float(1.0 / double(scale())), as PyTorch computes it: +inf for a zero scale, 0 for +inf.
  float inv_scale() const noexcept {
    const double s = static_cast<double>(scale());
    if (detail::exact_eq(s, 0.0)) return std::numeric_limits<float>::infinity();
    return round_to<float>(1.0 / s);
  }
  /// Clean steps since the last growth or overflow (modulo growth_interval).
  std::int64_t growth_tracker() const noexcept { return tracker_; }
  /// The hysteresis counter (hysteresis when full; see hysteresis_rule).
  std::int64_t hysteresis_tracker() const noexcept { return hyst_; }
  /// The (validated) configuration.
  const loss_scale_config& config() const noexcept { return cfg_; }

  /// Sets the scale (PyTorch's update(new_scale)), rounded to the storage type; trackers are
  /// kept. Throws std::invalid_argument, changing nothing, unless the rounded value is positive
  /// and finite.
  void set_scale(double new_scale) {
    const double s = cfg_.to_storage(new_scale);
    if (!(s > 0.0) || !std::isfinite(s) || !std::isfinite(new_scale)) {
      throw std::invalid_argument(
          "update(new_scale): new_scale must be a positive finite value of the scale's type (got " +
          detail::json::number_text(new_scale) + ")");
    }
    scale_ = s;
  }

  /// The scale a loaded state may hold under cfg (rounded to the storage type); throws
  /// std::invalid_argument when it cannot be reached: negative, NaN, beyond the storage range,
  /// or infinite where growth is guarded or capped.
  static double checked_state_scale(const loss_scale_config& cfg, double scale) {
    using detail::json::number_text;
    auto bad = [](const std::string& m) { throw std::invalid_argument("mixprec::dynamic_loss_scale: " + m); };
    if (std::isnan(scale) || std::signbit(scale)) bad("scale must be >= 0 (got " + number_text(scale) + ")");
    if (std::isinf(scale)) {
      if (cfg.guard_growth || std::isfinite(cfg.max_scale)) {
        bad("scale is infinite, which this rule cannot reach (it guards or caps growth)");
      }
      return scale;
    }
    const double s = cfg.to_storage(scale);
    if (!std::isfinite(s)) bad("scale " + number_text(scale) + " overflows float32");
    if (detail::exact_eq(s, 0.0) && !detail::exact_eq(scale, 0.0)) bad("scale " + number_text(scale) + " underflows float32 to 0");
    return s;
  }

 private:
  loss_scale_config cfg_;
  double scale_ = 0.0;
  std::int64_t tracker_ = 0;
  std::int64_t hyst_ = 1;

  double floor_value() const noexcept { return cfg_.min_scale > 0.0 ? cfg_.to_storage(cfg_.min_scale) : 0.0; }
  double cap_value() const noexcept {
    return std::isfinite(cfg_.max_scale) ? cfg_.to_storage(cfg_.max_scale) : std::numeric_limits<double>::infinity();
  }

  /// s * f (s / f with divide) in the framework's arithmetic; every path rounds once from the
  /// exact result (a float32 product or quotient computed in double and rounded to float is
  /// correctly rounded, since 53 >= 2 * 24 + 2).
  double times(double s, double f, bool divide = false) const noexcept {
    const auto op = [divide](double a, double b) { return divide ? a / b : a * b; };
    switch (cfg_.arithmetic) {
      case scale_arithmetic::float32_via_double:
        return static_cast<double>(round_to<float>(op(s, f)));
      case scale_arithmetic::float32:
        return static_cast<double>(round_to<float>(op(s, static_cast<double>(round_to<float>(f)))));
      case scale_arithmetic::float64:
        return op(s, f);
    }
    return s;
  }
  double backoff(double s) const noexcept {
    return cfg_.backoff_divides ? times(s, cfg_.growth_factor, true) : times(s, cfg_.backoff_factor);
  }
  double grow(double s) const noexcept { return times(s, cfg_.growth_factor); }
};

/// A fixed scale with the dynamic scale's interface: update does nothing.
class static_loss_scale {
 public:
  /// Throws std::invalid_argument unless scale is positive and finite in float32.
  explicit static_loss_scale(double scale = 1.0) : scale_(round_to<float>(scale)) {
    if (!(scale_ > 0.0f) || !std::isfinite(scale_) || !std::isfinite(scale)) {
      throw std::invalid_argument(
          "mixprec::static_loss_scale: the scale must be a positive finite float32 value (got " +
          detail::json::number_text(scale) + ")");
    }
  }
  void update(bool /*found_inf*/) noexcept {}  ///< Does nothing
  float scale() const noexcept { return scale_; }  ///< The scale (float32)
  double scale64() const noexcept { return static_cast<double>(scale_); }  ///< The scale widened to double
  /// 1 / scale rounded to float32.
  float inv_scale() const noexcept { return round_to<float>(1.0 / static_cast<double>(scale_)); }
  std::int64_t growth_tracker() const noexcept { return 0; }  ///< Always 0

 private:
  float scale_;
};

/// No scaling (scale 1) with the dynamic scale's interface, e.g. for bf16 training.
class no_loss_scale {
 public:
  void update(bool /*found_inf*/) noexcept {}         ///< Does nothing
  float scale() const noexcept { return 1.0f; }        ///< 1
  double scale64() const noexcept { return 1.0; }      ///< 1
  float inv_scale() const noexcept { return 1.0f; }    ///< 1
  std::int64_t growth_tracker() const noexcept { return 0; }  ///< Always 0
};

}  // namespace mixprec

#endif  // MIXPREC_LOSS_SCALE_HPP
