// SPDX-License-Identifier: MIT
// mixprec/kernels/unscale.hpp — the fused unscale + non-finite check of PyTorch's
// _amp_foreach_non_finite_check_and_unscale_, and the loss-scale update of _amp_update_scale_.
//
//   bool found = unscale_and_check(policy, grads..., inv_scale);
//   update_scale(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval)
//
// Contract: grads (spans or contiguous containers of float, double or mixprec types) become
// round_T(x * inv_scale), computed in float (double for double), nearest even; found is whether any
// element was inf or NaN BEFORE the multiply (every element is processed); under exec::cuda it is
// a device_flag that stays on the device. update_scale is PyTorch's rule, __host__ __device__.
// Exact rules, NaN payloads, errors: docs/pages/kernels-reference.md#unscale-and-the-loss-scale-update.
//
//   std::vector<mixprec::half> g = {1, 2};
//   bool inf = mixprec::unscale_and_check(mixprec::exec::seq, g, 0.5f);   // false; g = {0.5, 1}
#ifndef MIXPREC_KERNELS_UNSCALE_HPP
#define MIXPREC_KERNELS_UNSCALE_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/kernels/unscale.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../core/detail/spans.hpp"
#include "../core/detail/type_traits.hpp"
#include "exec.hpp"
#include "../core/round_to.hpp"

#include "../simd/vec_avx2.hpp"
#include "../simd/vec_avx512.hpp"

namespace mixprec {
namespace detail {

/// How far ahead the vector unscale loops prefetch (bytes).
constexpr std::uintptr_t unscale_prefetch_bytes = 4096;

#if defined(MIXPREC_SIMD_AVX2)
/// The vector path of unscale_block (float gradients), written once over the traits V: one pass;
/// the non-finite test keeps the largest exponent field seen (an integer max, no dependency through
/// a mask register), which is all ones exactly when some element was inf or NaN. x * inv in the
/// vector unit is the same IEEE product, rounded to nearest even, as the scalar loop computes.
template <class V>
bool unscale_floats(float* p, std::size_t begin, std::size_t end, float inv_scale) noexcept {
  using vi = typename V::vi;
  using vf = typename V::vf;
  constexpr std::size_t N = V::N, W = N * sizeof(float);  // W: the bytes of one vector
  const vf inv = V::f_set1(inv_scale);
  const bool one = exact_eq(inv_scale, 1.0f);
  const vi exp_mask = V::set1(0x7f800000u);
  vi e0 = V::zero(), e1 = V::zero();
  std::size_t i = begin;
  // With lane masks, the first and last vectors are masked (masked-off lanes load 0): a head up to
  // a vector boundary, so that no load or store of the loop splits a cache line (large vectors
  // start 16 bytes past a page; bench/README.md has the measurement). Otherwise a scalar tail.
  auto masked = [&](std::size_t k) {
    if constexpr (V::has_masked_tail) {
      const auto m = V::first(k);
      const vi v = V::load_z(p + i, m);
      e0 = V::max_u(e0, V::and_(v, exp_mask));
      if (!one) V::store_m(p + i, V::f_bits(V::f_mul(V::f_from_bits(v), inv)), m);
    }
  };
  if constexpr (V::has_masked_tail) {
    std::size_t head = (W - reinterpret_cast<std::uintptr_t>(p + i) % W) % W / sizeof(float);
    if (head > end - i) head = end - i;
    if (head != 0) masked(head);
    i += head;
  }
  for (; i + 2 * N <= end; i += 2 * N) {  // two vectors a step
    // 4 KiB ahead into L1, one prefetch per cache line of the step (integer arithmetic: the
    // address may lie past the end; prefetches neither change values nor fault; bench/README.md)
    const std::uintptr_t pf = reinterpret_cast<std::uintptr_t>(p + i) + unscale_prefetch_bytes;
    _mm_prefetch(reinterpret_cast<const char*>(pf), _MM_HINT_T0);
    if constexpr (2 * W > 64) _mm_prefetch(reinterpret_cast<const char*>(pf + 64), _MM_HINT_T0);
    const vf v0 = V::f_load(p + i), v1 = V::f_load(p + i + N);
    e0 = V::max_u(e0, V::and_(V::f_bits(v0), exp_mask));
    e1 = V::max_u(e1, V::and_(V::f_bits(v1), exp_mask));
    if (!one) {
      V::f_store(p + i, V::f_mul(v0, inv));
      V::f_store(p + i + N, V::f_mul(v1, inv));
    }
  }
  bool found = false;
  if constexpr (V::has_masked_tail) {
    for (; i < end; i += N) masked(end - i);
  } else {
    for (; i < end; ++i) {  // the last < 2N: the scalar form
      const float v = p[i];
      found = found || is_nan_value(v - v);
      if (!one) p[i] = v * inv_scale;
    }
  }
  return V::any(V::eq(V::max_u(e0, e1), exp_mask)) || found;
}
#endif

/// The unscale pass over one block of one gradient; returns whether a non-finite value was seen.
template <class T>
struct unscale_block {
  T* x;
  float inv_scale;

  MIXPREC_HD bool operator()(std::size_t begin, std::size_t end) const noexcept {
    using A = compute_type_t<T>;
#if defined(MIXPREC_SIMD_AVX512)
    if constexpr (std::is_same<T, float>::value) return unscale_floats<simd::vec512>(x, begin, end, inv_scale);
#elif defined(MIXPREC_SIMD_AVX2)
    if constexpr (std::is_same<T, float>::value) return unscale_floats<simd::vec256>(x, begin, end, inv_scale);
#endif
    const A inv = static_cast<A>(inv_scale);
    const bool one = exact_eq(inv_scale, 1.0f);
    bool found = false;
    for (std::size_t i = begin; i < end; ++i) {
      const A v = static_cast<A>(x[i]);
      found = found || is_nan_value(v - v);  // v - v is NaN exactly when v is inf or NaN
      x[i] = round_to<T>(one ? v : v * inv, rounding::nearest_even, overflow::ieee, 0u);
    }
    return found;
  }
};

template <class C>
auto as_grad_span(C&& c) {
  auto s = as_span(c);
  using T = typename decltype(s)::element_type;
  static_assert(!std::is_const<T>::value, "mixprec::unscale_and_check: gradients are updated in place (not const)");
  static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value || is_mixprec_float<T>::value,
                "mixprec::unscale_and_check: gradients of float, double or a mixprec type");
  return s;
}

template <class T>
bool unscale_one(exec::sequenced_policy p, span<T> g, float inv_scale) {
  bool found = false;
  for_each_block(p, g.size(), elementwise_grain,
                 [&](std::size_t b, std::size_t e) { found = unscale_block<T>{g.data(), inv_scale}(b, e) || found; });
  return found;
}

template <class T>
bool unscale_one(exec::parallel_policy p, span<T> g, float inv_scale) {
  std::atomic<bool> found{false};
  for_each_block(p, g.size(), elementwise_grain, [&](std::size_t b, std::size_t e) {
    if (unscale_block<T>{g.data(), inv_scale}(b, e)) found.store(true, std::memory_order_relaxed);
  });
  return found.load();
}

template <class Policy, class Tuple, std::size_t... I>
bool unscale_all(Policy p, Tuple& grads, float inv_scale, std::index_sequence<I...>) {
  bool found = false;
  // Every gradient is processed (no short-circuit).
  ((found = unscale_one(p, as_grad_span(std::get<I>(grads)), inv_scale) || found), ...);
  return found;
}

#if defined(__CUDACC__)
template <class T>
struct unscale_device_body {
  T* x;
  float inv_value;
  const float* inv_ptr;  // when not null: the device inv_scale
  float* found_inf;
  __device__ void operator()(std::size_t begin, std::size_t end) const noexcept {
    if (unscale_block<T>{x, inv_ptr != nullptr ? *inv_ptr : inv_value}(begin, end)) *found_inf = 1.0f;
  }
};
#endif

}  // namespace detail

/// Unscales every gradient in place and reports whether any element was inf/NaN (see the top).
/// Arguments: the policy, one or more gradients, then inv_scale.
template <class Policy, class... Args, std::enable_if_t<exec::is_host_policy<Policy>::value, int> = 0>
bool unscale_and_check(Policy policy, Args&&... args) {
  static_assert(sizeof...(Args) >= 2, "mixprec::unscale_and_check(policy, grads..., inv_scale)");
  auto all = std::forward_as_tuple(args...);
  constexpr std::size_t last = sizeof...(Args) - 1;
  using Inv = std::remove_cv_t<std::remove_reference_t<std::tuple_element_t<last, decltype(all)>>>;
  static_assert(std::is_same<Inv, float>::value, "mixprec::unscale_and_check: the last argument is inv_scale (a float)");
  const float inv = std::get<last>(all);
  return detail::unscale_all(policy, all, inv, std::make_index_sequence<last>{});
}

/// PyTorch's loss-scale update on one (scale, growth_tracker) pair (see the top).
MIXPREC_HD inline void update_scale(float& scale, std::int32_t& growth_tracker, float found_inf, double growth_factor,
                                    double backoff_factor, std::int32_t growth_interval) noexcept {
  if (!detail::exact_eq(found_inf, 0.0f)) {
    scale = static_cast<float>(static_cast<double>(scale) * backoff_factor);
    growth_tracker = 0;
    return;
  }
  // Saturated (only reachable from a tracker at or past growth_interval): PyTorch's + 1 would
  // overflow int32, and the scale does not grow there anyway.
  if (growth_tracker == INT32_MAX) return;
  const std::int32_t successful = growth_tracker + 1;
  if (successful == growth_interval) {
    const float grown = static_cast<float>(static_cast<double>(scale) * growth_factor);
    if (!detail::is_nan_value(grown - grown)) scale = grown;  // finite
    growth_tracker = 0;
  } else {
    growth_tracker = successful;
  }
}

namespace detail {
/// Throws std::invalid_argument when growth_interval < 1 (see the top).
inline void check_growth_interval(std::int32_t growth_interval) {
  if (growth_interval < 1) {
    throw std::invalid_argument("mixprec::update_scale: growth_interval must be in [1, 2147483647] (got " +
                                std::to_string(growth_interval) + ")");
  }
}
}  // namespace detail

/// The same on data the policy can reach (host pointers for seq/par). Throws
/// std::invalid_argument, touching nothing, when growth_interval < 1.
template <class Policy, std::enable_if_t<exec::is_host_policy<Policy>::value, int> = 0>
void update_scale(Policy, float* scale, std::int32_t* growth_tracker, const float* found_inf, double growth_factor,
                  double backoff_factor, std::int32_t growth_interval) {
  detail::check_growth_interval(growth_interval);
  update_scale(*scale, *growth_tracker, *found_inf, growth_factor, backoff_factor, growth_interval);
}

#if defined(__CUDACC__)
/// A found_inf flag that lives on the device (see the top of the header).
class device_flag {
 public:
  explicit device_flag(cudaStream_t stream) : stream_(stream) {
    detail::cuda_check(cudaMallocAsync(reinterpret_cast<void**>(&p_), sizeof(float), stream_), "cudaMallocAsync");
    detail::cuda_check(cudaMemsetAsync(p_, 0, sizeof(float), stream_), "cudaMemsetAsync");
  }
  device_flag(const device_flag&) = delete;
  device_flag& operator=(const device_flag&) = delete;
  device_flag(device_flag&& o) noexcept : p_(o.p_), stream_(o.stream_) { o.p_ = nullptr; }
  device_flag& operator=(device_flag&&) = delete;
  ~device_flag() {
    if (p_ != nullptr) cudaFreeAsync(p_, stream_);
  }
  /// The device float (0 or 1).
  float* data() const noexcept { return p_; }
  /// Copies the flag to the host (synchronizes the stream).
  bool get() const {
    float h = 0.0f;
    detail::cuda_check(cudaMemcpyAsync(&h, p_, sizeof(float), cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync");
    detail::cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    return h != 0.0f;
  }
  explicit operator bool() const { return get(); }

 private:
  float* p_ = nullptr;
  cudaStream_t stream_;
};

namespace detail {
template <class Tuple, std::size_t... I>
void unscale_all_device(exec::cuda_policy p, Tuple& grads, float inv_value, const float* inv_ptr, float* flag,
                        std::index_sequence<I...>) {
  (
      [&] {
        auto g = as_grad_span(std::get<I>(grads));
        using T = typename decltype(g)::element_type;
        for_each_block(p, g.size(), 1, unscale_device_body<T>{g.data(), inv_value, inv_ptr, flag});
      }(),
      ...);
}

template <int = 0>
__global__ void update_scale_kernel(float* scale, std::int32_t* tracker, const float* found_inf, double growth,
                                           double backoff, std::int32_t interval) {
  update_scale(*scale, *tracker, *found_inf, growth, backoff, interval);
}
}  // namespace detail

/// Device version: gradients in device memory; inv_scale a float or a device const float*.
template <class... Args>
device_flag unscale_and_check(exec::cuda_policy policy, Args&&... args) {
  static_assert(sizeof...(Args) >= 2, "mixprec::unscale_and_check(policy, grads..., inv_scale)");
  auto all = std::forward_as_tuple(args...);
  constexpr std::size_t last = sizeof...(Args) - 1;
  using Inv = std::remove_cv_t<std::remove_reference_t<std::tuple_element_t<last, decltype(all)>>>;
  device_flag flag(policy.stream);
  float inv_value = 1.0f;
  const float* inv_ptr = nullptr;
  if constexpr (std::is_same<Inv, float>::value) {
    inv_value = std::get<last>(all);
  } else {
    static_assert(std::is_convertible<Inv, const float*>::value,
                  "mixprec::unscale_and_check: inv_scale is a float or a device const float*");
    inv_ptr = std::get<last>(all);
  }
  detail::unscale_all_device(policy, all, inv_value, inv_ptr, flag.data(), std::make_index_sequence<last>{});
  return flag;
}

/// update_scale on device data, in one device thread (no host synchronisation).
inline void update_scale(exec::cuda_policy policy, float* scale, std::int32_t* growth_tracker, const float* found_inf,
                         double growth_factor, double backoff_factor, std::int32_t growth_interval) {
  detail::check_growth_interval(growth_interval);
  detail::update_scale_kernel<><<<1, 1, 0, policy.stream>>>(scale, growth_tracker, found_inf, growth_factor,
                                                          backoff_factor, growth_interval);
  detail::cuda_check(cudaGetLastError(), "kernel launch");
}
#endif

}  // namespace mixprec

#endif  // MIXPREC_KERNELS_UNSCALE_HPP
