// SPDX-License-Identifier: MIT
// mixprec/kernels/optim.hpp — optimizer steps (SGD, Adam, AdamW) as one fused pass per parameter
// tensor, reproducing PyTorch's single-tensor implementations operation by operation, including
// the rounding of every intermediate tensor to its dtype.
//
//   sgd_step(policy, params, grads, momentum_buffer, step, sgd_options[, update_rounding[, model_copy]])
//   adam_step(policy, params, grads, exp_avg, exp_avg_sq, step, adam_options[, update_rounding[, model_copy]])
//   adamw_step(...the same as adam_step...)
//
// Contract: each PyTorch op computes in float (double if W, G or S is double) and rounds
// nearest-even to its tensor's dtype; only the final params write uses update_rounding; the same
// bits under every policy, thread count and SIMD path. Bad sizes, step < 1 or options PyTorch
// rejects throw std::invalid_argument before any write. Types, formulas, known differences, fast
// path: docs/pages/kernels-reference.md#optimizer-steps.
//
//   std::vector<float> p(n), g(n), m(n), v(n);  std::vector<mixprec::half> p16(n);  // master + fp16 copy
//   mixprec::adamw_step(mixprec::exec::par, mixprec::span<float>(p), mixprec::span<const float>(g),
//                       mixprec::span<float>(m), mixprec::span<float>(v), step, mixprec::adam_options{},
//                       {}, mixprec::span<mixprec::half>(p16));
#ifndef MIXPREC_KERNELS_OPTIM_HPP
#define MIXPREC_KERNELS_OPTIM_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/kernels/optim.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "../core/basic_float.hpp"
#include "../core/config.hpp"
#include "../core/detail/ieee_ops.hpp"
#include "detail/simd_optim.hpp"
#include "../core/detail/type_traits.hpp"
#include "exec.hpp"
#include "../core/random.hpp"
#include "../core/round_to.hpp"
#include "../core/rounding.hpp"
#include "../core/span.hpp"

namespace mixprec {

/// torch.optim.SGD's hyperparameters.
struct sgd_options {
  float lr = 0.01f;            ///< learning rate (>= 0)
  float momentum = 0.0f;       ///< momentum factor (>= 0; 0: no momentum buffer)
  float dampening = 0.0f;      ///< dampening of the momentum update
  float weight_decay = 0.0f;   ///< L2 penalty added to the gradient (>= 0)
  bool nesterov = false;       ///< Nesterov momentum (needs momentum > 0 and dampening 0)
};

/// torch.optim.Adam's / AdamW's hyperparameters (AdamW's PyTorch default weight_decay is 1e-2;
/// here the struct's value, 0, is the default for both).
struct adam_options {
  float lr = 1e-3f;           ///< learning rate (>= 0)
  float beta1 = 0.9f;         ///< decay of the first moment, in [0, 1)
  float beta2 = 0.999f;       ///< decay of the second moment, in [0, 1)
  float eps = 1e-8f;          ///< added to the denominator (>= 0), converted to the state type
  float weight_decay = 0.0f;  ///< Adam: added to the gradient; AdamW: decoupled decay (>= 0)
};

/// How the final write of the parameters rounds (docs/pages/kernels-reference.md, "Rounding of the update").
struct update_rounding {
  rounding mode = rounding::nearest_even;  ///< rounding of the final parameter write
  std::uint64_t seed = 0;    ///< rounding::stochastic: the generator's seed
  std::uint64_t offset = 0;  ///< rounding::stochastic: counter of element 0 (element i uses offset + i)
  rng_kind generator = rng_kind::splitmix64;  ///< rounding::stochastic: counter_rng or philox_rng
};

namespace detail {
namespace optim_impl {

template <class T>
constexpr bool is_double = std::is_same<std::remove_cv_t<T>, double>::value;

/// The compute type: double when any of T is double, else float.
template <class... T>
using opmath_t = compute_type_t<T...>;

/// PyTorch's promotion for the dtypes here.
template <class X, class Y>
using promote_t = std::conditional_t<std::is_same<X, Y>::value, X, opmath_t<X, Y>>;

using ieee::div_rn;
using ieee::fma_rn;
using ieee::mul_rn;
using ieee::sqrt_rn;

/// A Python scalar (a double) as an op computing in C sees it when it first converts the scalar
/// to dtype D (add's alpha, add_(scalar)): through float to D, as c10::Scalar::to<Half> does.
template <class C, class D>
C scalar_as(double x) {
  if constexpr (is_double<D>) {
    return static_cast<C>(x);
  } else if constexpr (std::is_same<D, float>::value) {
    return static_cast<C>(static_cast<float>(x));
  } else {
    return static_cast<C>(round_to<D>(static_cast<float>(x)));
  }
}

/// x rounded to T, nearest even.
template <class T, class C>
MIXPREC_HD inline T to(C x) noexcept {
  if constexpr (std::is_same<T, C>::value) {
    return x;
  } else if constexpr (std::is_same<T, float>::value || is_double<T>) {
    return static_cast<T>(x);
  } else {
    return round_to<T>(x, rounding::nearest_even, overflow::ieee, 0u);
  }
}

/// x rounded to T and read back in C (the value an op's result tensor holds).
template <class T, class C>
MIXPREC_HD inline C held(C x) noexcept {
  return static_cast<C>(to<T>(x));
}

/// The final write: x rounded to W with the update's mode.
template <class W, class C>
struct final_rounding {
  rounding mode;
  sr_rng rng;
  std::uint64_t offset;
  MIXPREC_HD W operator()(C x, std::size_t i) const noexcept {
    if constexpr (std::is_same<W, C>::value) {
      return x;  // already exact in W
    } else {
      if (mode == rounding::nearest_even) return to<W>(x);
      const std::uint32_t bits = mode == rounding::stochastic ? rng(offset + i) : 0u;
      return round_to<W>(x, mode, overflow::ieee, bits);
    }
  }
};

/// lerp's float weight w and w - 1, and which branch it takes.
template <class C>
struct lerp_weight {
  C w;
  C w_minus_1;
  bool small;
};
template <class C>
lerp_weight<C> make_lerp_weight(double weight) {
  const C w = static_cast<C>(weight);
  return {w, w - C(1), (w < C(0) ? -w : w) < C(0.5)};
}

template <class C>
MIXPREC_HD inline C lerp(C a, C b, const lerp_weight<C>& w) noexcept {
  const C d = b - a;
  return w.small ? fma_rn(w.w, d, a) : fma_rn(w.w_minus_1, d, b);
}

template <class C, class W, class G, class S, class M, bool Decoupled>
struct adam_body {
  using Gd = promote_t<G, W>;
  W* p;
  const G* g;
  S* m;
  S* v;
  M* copy;
  bool weight_decay;
  C wd_alpha;      // Adam: wd as add's alpha in Gd
  C decay;         // AdamW: 1 - lr * wd
  lerp_weight<C> beta1_weight;  // 1 - beta1
  C beta2;
  C one_minus_beta2;
  C bc2_sqrt;
  C eps;           // eps as S holds it
  C neg_step_size;
  final_rounding<W, C> final_round;
  bool simd;       // take the x86 fast path where it applies (detail/simd_optim.hpp)

  MIXPREC_HD void operator()(std::size_t begin, std::size_t end) const noexcept {
#if defined(MIXPREC_OPTIM_SIMD)
    if constexpr (simd_optim::supported<W, G, S>) {
      if (simd && simd_optim::mode_supported<W>(final_round.mode) &&
          (final_round.mode != rounding::stochastic || final_round.rng.kind() == rng_kind::splitmix64)) {
        begin = simd_optim::adam<Decoupled, W, M>(*this, begin, end);
      }
    }
#endif
    for (std::size_t i = begin; i < end; ++i) {
      C pc = static_cast<C>(p[i]);
      C gc = static_cast<C>(g[i]);
      if (weight_decay) {
        if constexpr (Decoupled) {
          pc = held<W>(mul_rn(pc, decay));
        } else {
          gc = held<Gd>(fma_rn(pc, wd_alpha, gc));
        }
      }
      const S m_new = to<S>(lerp(static_cast<C>(m[i]), gc, beta1_weight));
      const C v1 = held<S>(mul_rn(static_cast<C>(v[i]), beta2));
      const S v_new = to<S>(fma_rn(mul_rn(one_minus_beta2, gc), gc, v1));
      C d = held<S>(sqrt_rn(static_cast<C>(v_new)));
      d = held<S>(div_rn(d, bc2_sqrt));
      d = held<S>(d + eps);
      const W p_new = final_round(pc + div_rn(mul_rn(neg_step_size, static_cast<C>(m_new)), d), i);
      m[i] = m_new;
      v[i] = v_new;
      p[i] = p_new;
      if (copy != nullptr) copy[i] = round_to<M>(p_new, rounding::nearest_even, overflow::ieee, 0u);
    }
  }
};

template <class C, class W, class G, class S, class M>
struct sgd_body {
  using Gd = promote_t<G, W>;
  using Gn = promote_t<Gd, S>;
  W* p;
  const G* g;
  S* buf;
  M* copy;
  bool weight_decay;
  C wd_alpha;        // wd as add's alpha in Gd
  bool momentum;
  bool first;        // step == 1: the buffer is created from the gradient
  bool nesterov;
  C mu;              // buf.mul(momentum)
  C one_minus_tau;   // 1 - dampening as add's alpha in promote(S, Gd)
  C mu_alpha;        // momentum as add's alpha in Gn
  C neg_lr;          // -lr as add's alpha in promote(W, the update's dtype)
  final_rounding<W, C> final_round;
  bool simd;         // take the x86 fast path where it applies (detail/simd_optim.hpp)

  MIXPREC_HD void operator()(std::size_t begin, std::size_t end) const noexcept {
#if defined(MIXPREC_OPTIM_SIMD)
    if constexpr (simd_optim::supported<W, G, S>) {
      if (simd && simd_optim::mode_supported<W>(final_round.mode) &&
          (final_round.mode != rounding::stochastic || final_round.rng.kind() == rng_kind::splitmix64)) {
        begin = simd_optim::sgd<W, M>(*this, begin, end);
      }
    }
#endif
    for (std::size_t i = begin; i < end; ++i) {
      const C pc = static_cast<C>(p[i]);
      C gc = static_cast<C>(g[i]);
      if (weight_decay) gc = held<Gd>(fma_rn(pc, wd_alpha, gc));
      if (momentum) {
        C b;
        if (first) {
          b = held<S>(gc);
        } else {
          b = held<S>(mul_rn(static_cast<C>(buf[i]), mu));
          b = held<S>(fma_rn(gc, one_minus_tau, b));
        }
        buf[i] = to<S>(b);
        gc = nesterov ? held<Gn>(fma_rn(b, mu_alpha, gc)) : b;
      }
      const W p_new = final_round(fma_rn(gc, neg_lr, pc), i);
      p[i] = p_new;
      if (copy != nullptr) copy[i] = round_to<M>(p_new, rounding::nearest_even, overflow::ieee, 0u);
    }
  }
};

[[noreturn]] inline void fail(const char* what, const std::string& why) {
  throw std::invalid_argument(std::string("mixprec::") + what + ": " + why);
}

inline void check_size(const char* what, const char* name, std::size_t size, std::size_t n) {
  if (size != n) {
    fail(what, std::string(name) + " has " + std::to_string(size) + " elements, params " + std::to_string(n));
  }
}

inline void check_option(const char* what, bool ok, const char* name, float value) {
  if (!ok) fail(what, std::string("invalid ") + name + " " + std::to_string(value));
}

template <class W, class G, class S, class M>
void check_adam(const char* what, span<W> params, span<const G> grads, span<S> exp_avg, span<S> exp_avg_sq,
                std::int64_t step, const adam_options& o, span<M> model_copy) {
  const std::size_t n = params.size();
  check_size(what, "grads", grads.size(), n);
  check_size(what, "exp_avg", exp_avg.size(), n);
  check_size(what, "exp_avg_sq", exp_avg_sq.size(), n);
  if (!model_copy.empty()) check_size(what, "model_copy", model_copy.size(), n);
  if (step < 1) fail(what, "step must be >= 1 (got " + std::to_string(step) + ")");
  check_option(what, o.lr >= 0.0f, "learning rate", o.lr);
  check_option(what, o.eps >= 0.0f, "epsilon", o.eps);
  check_option(what, o.beta1 >= 0.0f && o.beta1 < 1.0f, "beta1", o.beta1);
  check_option(what, o.beta2 >= 0.0f && o.beta2 < 1.0f, "beta2", o.beta2);
  check_option(what, o.weight_decay >= 0.0f, "weight_decay", o.weight_decay);
}

template <class Policy, class W, class G, class S, class M, bool Decoupled>
void adam_impl(const char* what, Policy policy, span<W> params, span<const G> grads, span<S> exp_avg,
               span<S> exp_avg_sq, std::int64_t step, const adam_options& o, const update_rounding& ur,
               span<M> model_copy, bool simd = true) {
  static_assert(exec::is_execution_policy<Policy>::value, "mixprec optimizer steps: not an execution policy");
  static_assert(!std::is_const<W>::value && !std::is_const<S>::value && !std::is_const<M>::value,
                "mixprec optimizer steps: params, states and model_copy must be writable");
  check_adam(what, params, grads, exp_avg, exp_avg_sq, step, o, model_copy);
  if (!is_valid(ur.mode)) fail(what, "invalid update_rounding.mode value");
  if (!is_valid(ur.generator)) fail(what, "invalid update_rounding.generator value (splitmix64 or philox4x32_10)");
  using C = opmath_t<W, G, S>;
  using Gd = promote_t<G, W>;
  const double lr = static_cast<double>(o.lr), b1 = static_cast<double>(o.beta1), b2 = static_cast<double>(o.beta2),
               wd = static_cast<double>(o.weight_decay);
  const double stepd = static_cast<double>(step);
  const double bc1 = 1.0 - std::pow(b1, stepd);
  const double bc2 = 1.0 - std::pow(b2, stepd);
  const double step_size = lr / bc1;
  const double bc2_sqrt = std::pow(bc2, 0.5);  // Python's bias_correction2 ** 0.5
  adam_body<C, W, G, S, M, Decoupled> body{
      params.data(),
      grads.data(),
      exp_avg.data(),
      exp_avg_sq.data(),
      model_copy.empty() ? nullptr : model_copy.data(),
      !detail::exact_eq(wd, 0.0),
      scalar_as<C, Gd>(wd),
      static_cast<C>(1.0 - mul_rn(lr, wd)),
      make_lerp_weight<C>(1.0 - b1),
      static_cast<C>(b2),
      static_cast<C>(1.0 - b2),
      static_cast<C>(bc2_sqrt),
      scalar_as<C, S>(static_cast<double>(o.eps)),
      static_cast<C>(-step_size),
      final_rounding<W, C>{ur.mode, sr_rng(ur.generator, ur.seed), ur.offset},
      simd};
  detail::for_each_range(policy, params.size(), body);
}

template <class Policy, class W, class G, class S, class M>
void sgd_impl(Policy policy, span<W> params, span<const G> grads, span<S> momentum_buffer, std::int64_t step,
              const sgd_options& o, const update_rounding& ur, span<M> model_copy, bool simd = true) {
  namespace oi = detail::optim_impl;
  static_assert(exec::is_execution_policy<Policy>::value, "mixprec::sgd_step: not an execution policy");
  static_assert(!std::is_const<W>::value && !std::is_const<S>::value && !std::is_const<M>::value,
                "mixprec::sgd_step: params, momentum_buffer and model_copy must be writable");
  const char* what = "sgd_step";
  const std::size_t n = params.size();
  oi::check_size(what, "grads", grads.size(), n);
  if (!detail::exact_eq(o.momentum, 0.0f)) oi::check_size(what, "momentum_buffer", momentum_buffer.size(), n);
  if (!model_copy.empty()) oi::check_size(what, "model_copy", model_copy.size(), n);
  if (step < 1) oi::fail(what, "step must be >= 1 (got " + std::to_string(step) + ")");
  if (!is_valid(ur.mode)) oi::fail(what, "invalid update_rounding.mode value");
  if (!is_valid(ur.generator)) oi::fail(what, "invalid update_rounding.generator value (splitmix64 or philox4x32_10)");
  oi::check_option(what, o.lr >= 0.0f, "learning rate", o.lr);
  oi::check_option(what, o.momentum >= 0.0f, "momentum", o.momentum);
  oi::check_option(what, o.weight_decay >= 0.0f, "weight_decay", o.weight_decay);
  if (o.nesterov && (o.momentum <= 0.0f || !detail::exact_eq(o.dampening, 0.0f))) {
    oi::fail(what, "nesterov momentum requires a momentum and zero dampening");
  }
  using C = oi::opmath_t<W, G, S>;
  using Gd = oi::promote_t<G, W>;
  using Gn = oi::promote_t<Gd, S>;
  const double lr = static_cast<double>(o.lr), mu = static_cast<double>(o.momentum), tau = static_cast<double>(o.dampening),
               wd = static_cast<double>(o.weight_decay);
  const bool has_momentum = !detail::exact_eq(mu, 0.0);
  // The dtype of the update direction g in p.add(g, alpha=-lr) decides how -lr is rounded.
  const C neg_lr = !has_momentum ? oi::scalar_as<C, oi::promote_t<W, Gd>>(-lr)
                   : o.nesterov  ? oi::scalar_as<C, oi::promote_t<W, Gn>>(-lr)
                                 : oi::scalar_as<C, oi::promote_t<W, S>>(-lr);
  oi::sgd_body<C, W, G, S, M> body{params.data(),
                                   grads.data(),
                                   has_momentum ? momentum_buffer.data() : nullptr,
                                   model_copy.empty() ? nullptr : model_copy.data(),
                                   !detail::exact_eq(wd, 0.0),
                                   oi::scalar_as<C, Gd>(wd),
                                   has_momentum,
                                   step == 1,
                                   o.nesterov,
                                   static_cast<C>(mu),
                                   oi::scalar_as<C, Gn>(1.0 - tau),
                                   oi::scalar_as<C, Gn>(mu),
                                   neg_lr,
                                   oi::final_rounding<W, C>{ur.mode, sr_rng(ur.generator, ur.seed), ur.offset},
                                   simd};
  detail::for_each_range(policy, n, body);
}

}  // namespace optim_impl
}  // namespace detail

// grads: span<const G> or span<G> (only read).
/// One Adam step (torch.optim.Adam, L2 weight decay added to the gradient).
template <class Policy, class W, class G, class S, class M = W>
void adam_step(Policy policy, span<W> params, span<G> grads, span<S> exp_avg, span<S> exp_avg_sq, std::int64_t step,
               const adam_options& options, const update_rounding& ur = {}, span<M> model_copy = {}) {
  using Gv = std::remove_const_t<G>;
  detail::optim_impl::adam_impl<Policy, W, Gv, S, M, false>("adam_step", policy, params, span<const Gv>(grads), exp_avg,
                                                            exp_avg_sq, step, options, ur, model_copy);
}

/// One AdamW step (torch.optim.AdamW: decoupled weight decay p *= 1 - lr * weight_decay).
template <class Policy, class W, class G, class S, class M = W>
void adamw_step(Policy policy, span<W> params, span<G> grads, span<S> exp_avg, span<S> exp_avg_sq, std::int64_t step,
                const adam_options& options, const update_rounding& ur = {}, span<M> model_copy = {}) {
  using Gv = std::remove_const_t<G>;
  detail::optim_impl::adam_impl<Policy, W, Gv, S, M, true>("adamw_step", policy, params, span<const Gv>(grads), exp_avg,
                                                           exp_avg_sq, step, options, ur, model_copy);
}

/// One SGD step (torch.optim.SGD). With momentum == 0 the buffer is unused and may be empty.
template <class Policy, class W, class G, class S = W, class M = W>
void sgd_step(Policy policy, span<W> params, span<G> grads, span<S> momentum_buffer, std::int64_t step,
              const sgd_options& o, const update_rounding& ur = {}, span<M> model_copy = {}) {
  detail::optim_impl::sgd_impl(policy, params, span<const std::remove_const_t<G>>(grads), momentum_buffer, step, o, ur,
                               model_copy);
}

}  // namespace mixprec

#endif  // MIXPREC_KERNELS_OPTIM_HPP
