// SPDX-License-Identifier: MIT
// mixprec/kernels/reduce.hpp — amax, sum, dot (fixed summation order), axpy, scale.
//
//   amax(policy, x), sum<Acc = float>(policy, x), dot<Acc = float>(policy, x, y)
//   axpy(policy, alpha, x, y), scale(policy, alpha, x)    each element rounded once to its type
//
// Contract: sum and dot add in one fixed order (docs/pages/kernels-reference.md#reductions, with
// each function's result), so the bits are the same under every policy and thread count, host or
// device. Inputs widen exactly to Acc; x and y of unequal size throw std::invalid_argument. Under
// exec::cuda the data is device memory.
//
//   float s = mixprec::sum(mixprec::exec::par, std::vector<mixprec::half>(10000, mixprec::half(1)));  // 10000
#ifndef MIXPREC_KERNELS_REDUCE_HPP
#define MIXPREC_KERNELS_REDUCE_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/kernels/reduce.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <cmath>
#include <limits>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "../core/detail/bits.hpp"
#include "../core/detail/spans.hpp"
#include "../core/detail/type_traits.hpp"
#include "exec.hpp"
#include "../core/round_to.hpp"
#include "../core/types.hpp"

namespace mixprec {

/// Elements per reduction block of sum and dot.
constexpr std::size_t reduce_block = 4096;
/// Lanes per block (element i goes to lane i % reduce_lanes).
constexpr std::size_t reduce_lanes = 16;

namespace detail {


/// x widened exactly to A.
template <class A, class T>
MIXPREC_HD constexpr A widen(T x) noexcept {
  return static_cast<A>(x);
}

/// One fused multiply-add in A (float, double or long double; one rounding on host and device).
template <class A>
MIXPREC_HD inline A fused(A a, A b, A c) noexcept {
#if defined(__CUDA_ARCH__)
  return ::fma(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

/// Step 3 of the order: the pairwise combination of 16 lanes.
template <class A>
MIXPREC_HD constexpr A combine_lanes(A* l) noexcept {
  for (std::size_t w = reduce_lanes / 2; w >= 2; w /= 2) {
    for (std::size_t j = 0; j < w; ++j) l[j] = l[j] + l[j + w];
  }
  return l[0] + l[1];
}

/// The blocks of sum (Dot false: l + x[i]) and dot (Dot true: fma(x[i], y[i], l)): element i
/// goes to lane i % reduce_lanes.
template <class A, class T, class U = T, bool Dot = false>
struct lanes_block {
  const T* x;
  const U* y;  // Dot only
  MIXPREC_HD A add(A l, std::size_t i) const noexcept {
    if constexpr (Dot) {
      return fused(widen<A>(x[i]), widen<A>(y[i]), l);
    } else {
      return l + widen<A>(x[i]);
    }
  }
  MIXPREC_HD A operator()(std::size_t begin, std::size_t end) const noexcept {
    A l[reduce_lanes] = {};
    std::size_t i = begin;
    for (; i + reduce_lanes <= end; i += reduce_lanes) {
      for (std::size_t j = 0; j < reduce_lanes; ++j) l[j] = add(l[j], i + j);
    }
    const std::size_t rest = end - i;  // < reduce_lanes
    for (std::size_t j = 0; j < rest && j < reduce_lanes; ++j) l[j] = add(l[j], i + j);
    return combine_lanes(l);
  }
  /// Lane j of the block alone (the device computes the lanes in parallel).
  MIXPREC_HD A lane(std::size_t begin, std::size_t end, std::size_t j) const noexcept {
    A l = A(0);
    for (std::size_t i = begin + j; i < end; i += reduce_lanes) l = add(l, i);
    return l;
  }
};

/// NaN-propagating maximum of |x| over a block. float, double, half and bfloat16: |x| orders as
/// its bits with the sign cleared, and a NaN's exceed infinity's; 16 independent lanes (32 for
/// the 16-bit types; they vectorise).
template <class A, class T>
struct amax_block {
  const T* x;
  static constexpr bool by_bits = (std::is_same<T, A>::value && (std::is_same<T, float>::value ||
                                                                  std::is_same<T, double>::value)) ||
                                  std::is_same<T, half>::value || std::is_same<T, bfloat16>::value;
  using U = std::conditional_t<sizeof(T) == 2, std::uint16_t,
                               std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>;
  /// v's bits (half and bfloat16 through bits(), which vectorises where bit_cast does not).
  MIXPREC_HD static U bits(T v) noexcept {
    if constexpr (sizeof(T) == 2) {
      return v.bits();
    } else {
      return detail::bit_cast<U>(v);
    }
  }
  MIXPREC_HD A operator()(std::size_t begin, std::size_t end) const noexcept {
    if constexpr (by_bits) {
      constexpr std::size_t lanes = sizeof(T) == 2 ? 32 : 16;
      constexpr U mag = static_cast<U>(static_cast<U>(~U(0)) >> 1);
      constexpr U inf = static_cast<U>(std::is_same<T, half>::value       ? 0x7c00u
                                       : std::is_same<T, bfloat16>::value ? 0x7f80u
                                       : std::is_same<T, float>::value    ? 0x7f800000u
                                                                          : 0x7ff0000000000000ull);
      U lane[lanes] = {};
      std::size_t i = begin;
      for (; i + lanes <= end; i += lanes) {
        for (std::size_t k = 0; k < lanes; ++k) {
          const U b = static_cast<U>(bits(x[i + k]) & mag);
          lane[k] = b > lane[k] ? b : lane[k];
        }
      }
      for (; i < end; ++i) {
        const U b = static_cast<U>(bits(x[i]) & mag);
        lane[0] = b > lane[0] ? b : lane[0];
      }
      U m = 0;
      for (std::size_t k = 0; k < lanes; ++k) m = lane[k] > m ? lane[k] : m;
      return m > inf ? widen<A>(detail::bit_cast<float>(0x7fc00000u)) : widen<A>(detail::bit_cast<T>(m));
    } else {
      return strided(begin, end, 1);
    }
  }
  /// The maximum over elements begin + j, begin + j + 16, ... (NaN as above); any grouping of the
  /// elements gives the same result as operator().
  MIXPREC_HD A lane(std::size_t begin, std::size_t end, std::size_t j) const noexcept {
    return strided(begin + j, end, reduce_lanes);
  }
  /// The maximum over elements first, first + step, ... before end, compared in A.
  MIXPREC_HD A strided(std::size_t first, std::size_t end, std::size_t step) const noexcept {
    A m = A(0);
    bool nan = false;
    for (std::size_t i = first; i < end; i += step) {
      const A v = widen<A>(x[i]);
      const A a = v < A(0) ? -v : v;
      nan = nan || is_nan_value(v);
      m = a > m ? a : m;
    }
    return nan ? widen<A>(detail::bit_cast<float>(0x7fc00000u)) : m;
  }
};

template <class A>
struct add_op {
  MIXPREC_HD A operator()(A a, A b) const noexcept { return a + b; }
};
template <class A>
struct max_nan_op {
  MIXPREC_HD A operator()(A a, A b) const noexcept { return is_nan_value(a) ? a : is_nan_value(b) ? b : (a > b ? a : b); }
};

#if defined(__CUDACC__)
/// The device form of the blocks: 16 threads per block of reduce_block elements, thread j
/// computing lane j, then the lanes combined by shuffles in combine_lanes' order (w = 8, 4, 2, 1:
/// lane j with lane j + w), so each partial has the host's bits.
template <class A, class Block, class Combine>
__global__ void reduce_lanes_kernel(Block block, Combine combine, std::size_t n, std::size_t nblocks, A* partials) {
  const std::size_t g = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t b = g / reduce_lanes;
  const unsigned j = threadIdx.x % reduce_lanes;
  A v = A(0);
  if (b < nblocks) {
    const std::size_t begin = b * reduce_block;
    v = block.lane(begin, n - begin < reduce_block ? n : begin + reduce_block, j);
  }
  for (unsigned w = reduce_lanes / 2; w >= 1; w /= 2) v = combine(v, __shfl_down_sync(0xffffffffu, v, w, reduce_lanes));
  if (j == 0 && b < nblocks) partials[b] = v;
}
#endif

template <class A, class Block>
struct store_partial {
  Block block;
  A* partials;
  MIXPREC_HD void operator()(std::size_t begin, std::size_t end) const noexcept {
    partials[begin / reduce_block] = block(begin, end);
  }
};

/// Step 4: per-block partials in parallel, then combined in block order.
template <class A, class Policy, class Block, class Combine>
A reduce_blocks(Policy policy, std::size_t n, Block block, Combine combine, A init) {
  if (n == 0) return init;
  const std::size_t nblocks = (n + reduce_block - 1) / reduce_block;
  std::vector<A> partials(nblocks);
#if defined(__CUDACC__)
  if constexpr (std::is_same<Policy, exec::cuda_policy>::value) {
    A* dev = nullptr;
    cuda_check(cudaMallocAsync(reinterpret_cast<void**>(&dev), nblocks * sizeof(A), policy.stream), "cudaMallocAsync");
    const unsigned threads = 256;
    const std::size_t grid = (nblocks * reduce_lanes + threads - 1) / threads;
    reduce_lanes_kernel<A><<<static_cast<unsigned>(grid), threads, 0, policy.stream>>>(block, combine, n, nblocks, dev);
    cuda_check(cudaGetLastError(), "kernel launch");
    cuda_check(cudaMemcpyAsync(partials.data(), dev, nblocks * sizeof(A), cudaMemcpyDeviceToHost, policy.stream),
               "cudaMemcpyAsync");
    cuda_check(cudaFreeAsync(dev, policy.stream), "cudaFreeAsync");
    cuda_check(cudaStreamSynchronize(policy.stream), "cudaStreamSynchronize");
  } else
#endif
  {
    for_each_block(policy, n, reduce_block, store_partial<A, Block>{block, partials.data()});
  }
  A r = partials[0];
  for (std::size_t b = 1; b < nblocks; ++b) r = combine(r, partials[b]);
  return r;
}

template <class X, class Y>
void require_same_size(const char* what, const X& x, const Y& y) {
  if (x.size() != y.size()) {
    throw std::invalid_argument(std::string("mixprec::") + what + ": sizes differ (" + std::to_string(x.size()) +
                                " and " + std::to_string(y.size()) + ")");
  }
}

template <class A, class T, class Y>
struct axpy_body {
  A alpha;
  const T* x;
  Y* y;
  MIXPREC_HD void operator()(std::size_t begin, std::size_t end) const noexcept {
    for (std::size_t i = begin; i < end; ++i) {
      y[i] = round_to<Y>(fused(alpha, widen<A>(x[i]), widen<A>(y[i])), rounding::nearest_even, overflow::ieee, 0u);
    }
  }
};

template <class A, class T>
struct scale_body {
  A alpha;
  T* x;
  MIXPREC_HD void operator()(std::size_t begin, std::size_t end) const noexcept {
    for (std::size_t i = begin; i < end; ++i) {
      x[i] = round_to<T>(alpha * widen<A>(x[i]), rounding::nearest_even, overflow::ieee, 0u);
    }
  }
};

}  // namespace detail

/// max |x[i]| (NaN if any element is NaN; 0 when empty).
template <class Policy, class X>
auto amax(Policy policy, X&& x) {
  const auto s = detail::as_span(x);
  using T = std::remove_const_t<typename decltype(s)::element_type>;
  using A = detail::compute_type_t<T>;
  return detail::reduce_blocks<A>(policy, s.size(), detail::amax_block<A, T>{s.data()}, detail::max_nan_op<A>{}, A(0));
}

/// The sum of x in Acc, in the documented order.
template <class Acc = float, class Policy, class X>
Acc sum(Policy policy, X&& x) {
  const auto s = detail::as_span(x);
  using T = std::remove_const_t<typename decltype(s)::element_type>;
  return detail::reduce_blocks<Acc>(policy, s.size(), detail::lanes_block<Acc, T>{s.data(), nullptr}, detail::add_op<Acc>{}, Acc(0));
}

/// The dot product of x and y in Acc, in the documented order (fused multiply-adds).
template <class Acc = float, class Policy, class X, class Y>
Acc dot(Policy policy, X&& x, Y&& y) {
  const auto sx = detail::as_span(x);
  const auto sy = detail::as_span(y);
  detail::require_same_size("dot", sx, sy);
  using T = std::remove_const_t<typename decltype(sx)::element_type>;
  using U = std::remove_const_t<typename decltype(sy)::element_type>;
  return detail::reduce_blocks<Acc>(policy, sx.size(), detail::lanes_block<Acc, T, U, true>{sx.data(), sy.data()},
                                    detail::add_op<Acc>{}, Acc(0));
}

/// y = alpha * x + y (one fused multiply-add in float, or double when x or y is double; then one
/// rounding to y's type).
template <class Policy, class X, class Y>
void axpy(Policy policy, double alpha, X&& x, Y&& y) {
  const auto sx = detail::as_span(x);
  const auto sy = detail::as_span(y);
  detail::require_same_size("axpy", sx, sy);
  using T = std::remove_const_t<typename decltype(sx)::element_type>;
  using V = typename decltype(sy)::element_type;
  static_assert(!std::is_const<V>::value, "mixprec::axpy: y is const");
  using A = detail::compute_type_t<T, V>;
  detail::for_each_range(policy, sx.size(), detail::axpy_body<A, T, V>{static_cast<A>(alpha), sx.data(), sy.data()});
}

/// x = alpha * x (in float, or double for double x; one rounding to x's type).
template <class Policy, class X>
void scale(Policy policy, double alpha, X&& x) {
  const auto sx = detail::as_span(x);
  using T = typename decltype(sx)::element_type;
  static_assert(!std::is_const<T>::value, "mixprec::scale: x is const");
  using A = detail::compute_type_t<T>;
  detail::for_each_range(policy, sx.size(), detail::scale_body<A, T>{static_cast<A>(alpha), sx.data()});
}

}  // namespace mixprec

#endif  // MIXPREC_KERNELS_REDUCE_HPP
