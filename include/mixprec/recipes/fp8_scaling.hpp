// SPDX-License-Identifier: MIT
// mixprec/recipes/fp8_scaling.hpp — per-tensor FP8 scaling factors: Transformer Engine's delayed scaling
// (amax history) and current scaling (this tensor's amax).
//
// Contract: bit-identical to TE's kernels (amax_and_scale_update, compute_scale_from_amax):
// scale = fp8_max * 2^-margin / amax in float when amax is finite and positive; otherwise the
// previous scale (delayed) or 1 (current); an infinite scale becomes FLT_MAX. The history roll,
// the NaN rules and every option: docs/pages/fp8-scaling.md.
//
//   mixprec::delayed_scaling ds({0, mixprec::fp8_format::hybrid, 16});
//   ds.record_amax(3.5f);
//   ds.update();                                      // scale 128, scale_inv 1/128
//   mixprec::current_scale(3.5f, 448.0f);             // 128
#ifndef MIXPREC_FP8_SCALING_HPP
#define MIXPREC_FP8_SCALING_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/recipes/fp8_scaling.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "../core/basic_float.hpp"
#include "../core/detail/bits.hpp"
#include "../core/round_to.hpp"
#include "detail/simd_block_scaling.hpp"

namespace mixprec {

/// TE's recipe.Format: E4M3 everywhere, E5M2 everywhere, or HYBRID (E4M3 forward, E5M2 backward).
enum class fp8_format : unsigned char {
  e4m3,   ///< E4M3 (max 448) in both passes
  e5m2,   ///< E5M2 (max 57344) in both passes
  hybrid  ///< E4M3 forward, E5M2 backward
};
/// Which pass a scaled tensor belongs to (selects the format under HYBRID).
enum class fp8_tensor_role : unsigned char {
  forward,  ///< Activations and weights
  backward  ///< Gradients
};
/// How delayed scaling reduces the amax history.
enum class amax_compute_algo : unsigned char {
  max,         ///< fmax over the whole history window (NaN entries ignored)
  most_recent  ///< The step just recorded
};

/// The largest finite value of the FP8 format used for role: 448 (E4M3) or 57344 (E5M2).
constexpr float fp8_max(fp8_format format, fp8_tensor_role role = fp8_tensor_role::forward) noexcept {
  return format == fp8_format::e4m3 || (format == fp8_format::hybrid && role == fp8_tensor_role::forward) ? 448.0f
                                                                                                          : 57344.0f;
}

/// max |x| over n values, as TE's amax kernel computes it: fmax from 0, so NaN values are ignored
/// and an infinity gives inf. T: float, double or a mixprec type (converted exactly to float;
/// doubles are rounded to float first). float data takes the x86 vector loop where compiled in
/// (the same value: a maximum does not depend on the order).
template <class T>
float amax_of(const T* data, std::size_t n) {
  if (data == nullptr && n != 0) throw std::invalid_argument("mixprec::amax_of: null data with a non-zero size");
  float m = 0.0f;
  std::size_t i = 0;
  if constexpr (std::is_same<T, float>::value) {
    const std::size_t body = n - n % 16;
    if (body != 0 && detail::amax_at(detail::simd_best_level, data, body, m)) i = body;
  }
  for (; i < n; ++i) {
    float v;
    if constexpr (std::is_same<T, double>::value) {
      v = round_to<float>(data[i]);
    } else {
      v = static_cast<float>(data[i]);
    }
    m = std::fmax(m, std::fabs(v));
  }
  return m;
}

/// TE DelayedScaling(margin, fp8_format, amax_history_len, amax_compute_algo).
struct delayed_scaling_config {
  /// Scale down by 2^margin (TE's margin is an int); in [-64, 64] here.
  int margin = 0;
  fp8_format format = fp8_format::hybrid;           ///< Which FP8 format(s)
  std::size_t amax_history_len = 1024;              ///< History slots, >= 1
  amax_compute_algo algo = amax_compute_algo::max;  ///< How the history is reduced

  /// Throws std::invalid_argument naming the bad field.
  void validate() const {
    if (amax_history_len < 1)
      throw std::invalid_argument("mixprec::delayed_scaling_config: amax_history_len must be >= 1");
    if (margin < -64 || margin > 64) {
      throw std::invalid_argument("mixprec::delayed_scaling_config: margin must be in [-64, 64] (got " +
                                  std::to_string(margin) + ")");
    }
  }
};

/// The delayed-scaling state of one tensor: amax history, scale and scale_inv.
class delayed_scaling {
 public:
  /// Throws std::invalid_argument when cfg is invalid.
  explicit delayed_scaling(const delayed_scaling_config& cfg = {}, fp8_tensor_role role = fp8_tensor_role::forward)
      : cfg_((cfg.validate(), cfg)),
        scaled_max_(static_cast<float>(std::ldexp(static_cast<double>(fp8_max(cfg.format, role)), -cfg.margin))),
        history_(cfg.amax_history_len, 0.0f) {}

  /// Folds an amax into the current slot as TE's kernels do (fmax: a NaN amax is ignored).
  void record_amax(float amax) noexcept { history_[0] = std::fmax(history_[0], amax); }
  /// Overwrites the current slot (e.g. with an amax reduced across ranks, or a NaN).
  void set_current_amax(float amax) noexcept { history_[0] = amax; }
  /// record_amax(amax_of(data, n)).
  template <class T>
  void observe(const T* data, std::size_t n) {
    record_amax(amax_of(data, n));
  }

  /// Rolls the history and computes the new scale (docs/pages/fp8-scaling.md); returns it.
  float update() noexcept {
    const std::size_t len = history_.size();
    const float last = history_[0];
    float amax = 0.0f;
    std::vector<float>& h = history_;
    // In place: slot i takes slot i + 1 (ascending i reads each slot before overwriting it).
    for (std::size_t i = 0; i < len; ++i) {
      const float a = i + 1 < len ? h[i + 1] : last;
      amax = std::fmax(amax, a);
      h[i] = i > 0 ? a : 0.0f;
    }
    if (cfg_.algo == amax_compute_algo::most_recent) amax = last;
    float s = scale_;
    if (std::isfinite(amax) && amax > 0.0f) s = scaled_max_ / amax;
    if (std::isinf(s)) s = std::numeric_limits<float>::max();
    scale_ = s;
    scale_inv_ = 1.0f / s;
    return s;
  }

  float scale() const noexcept { return scale_; }          ///< The scale (1 before the first update)
  float scale_inv() const noexcept { return scale_inv_; }  ///< 1 / scale() in float
  /// fp8_max * 2^-margin, the target for the window's amax.
  float scaled_max() const noexcept { return scaled_max_; }
  /// TE's layout: [0] the current step's amax, [len - 1] the previous step's, [1] the oldest.
  const std::vector<float>& amax_history() const noexcept { return history_; }
  /// The configuration.
  const delayed_scaling_config& config() const noexcept { return cfg_; }

 private:
  delayed_scaling_config cfg_;
  float scaled_max_;
  std::vector<float> history_;
  float scale_ = 1.0f;
  float scale_inv_ = 1.0f;
};

/// TE Float8CurrentScaling options (QuantizationConfig amax_epsilon, force_pow_2_scales).
struct current_scaling_config {
  /// amax below epsilon is raised to epsilon (>= 0, finite).
  float epsilon = 0.0f;
  /// Round the scale down to a power of two.
  bool power_of_two = false;
  /// The scale used when fp8_max / amax overflows (TE: the input type's max, FLT_MAX for float).
  float value_for_inf = std::numeric_limits<float>::max();
};

/// The current-scaling factor for a tensor whose max |x| is amax (docs/pages/fp8-scaling.md).
/// Throws std::invalid_argument for a negative amax, a non-positive or non-finite fp8_max, or an
/// invalid config.
inline float current_scale(float amax, float fp8_max_value, const current_scaling_config& cfg = {}) {
  if (amax < 0.0f) throw std::invalid_argument("mixprec::current_scale: amax must not be negative");
  if (!(fp8_max_value > 0.0f) || !std::isfinite(fp8_max_value)) {
    throw std::invalid_argument("mixprec::current_scale: fp8_max must be positive and finite");
  }
  if (!(cfg.epsilon >= 0.0f) || !std::isfinite(cfg.epsilon)) {
    throw std::invalid_argument("mixprec::current_scale: epsilon must be >= 0 and finite");
  }
  if (!(cfg.value_for_inf > 0.0f) || !std::isfinite(cfg.value_for_inf)) {
    throw std::invalid_argument("mixprec::current_scale: value_for_inf must be positive and finite");
  }
  if (amax < cfg.epsilon) amax = cfg.epsilon;
  if (std::isinf(amax) || detail::exact_eq(amax, 0.0f) || std::isnan(amax)) return 1.0f;
  float s = fp8_max_value / amax;
  if (std::isinf(s)) s = cfg.value_for_inf;
  if (cfg.power_of_two) s = detail::bit_cast<float>(detail::bit_cast<std::uint32_t>(s) & 0xFF800000u);
  return s;
}

}  // namespace mixprec

#endif  // MIXPREC_FP8_SCALING_HPP
