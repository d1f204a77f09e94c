// SPDX-License-Identifier: MIT
// mixprec/kernels/softmax.hpp — softmax, log_softmax, their backward passes and cross-entropy,
// row-wise, computed in float (in double for double input), one source for exec::seq, exec::par
// and exec::cuda.
//
//   softmax(policy, x, y, rows, cols)                    y = exp(x - max) / sum(exp(x - max))
//   log_softmax(policy, x, y, rows, cols)                y = (x - max) - log(sum(exp(x - max)))
//   softmax_backward(policy, y, dy, dx, rows, cols)      dx = y * (dy - sum(dy * y))
//   log_softmax_backward(policy, y, dy, dx, rows, cols)  dx = dy - exp(y) * sum(dy)   (y: log-probs)
//   cross_entropy(policy, logits, targets, rows, cols)   mean over rows of -log_softmax(logits)[target]
//   cross_entropy_backward(policy, logits, targets, rows, cols, dlogits, grad_output = 1)
//                                                        dlogits = grad_output * (softmax - onehot) / rows
//
// Contract: rows contiguous rows of cols elements, float, double or any mixprec type, in place
// allowed. Every step is one IEEE operation in a fixed order, with mixprec's own exp and log, so
// the bits are the same under every policy, thread count and device (nvcc without fast math).
// Bad sizes or null pointers throw std::invalid_argument, a bad target std::out_of_range.
// The exact formulas, exp/log, accuracy, NaN rules: docs/pages/kernels-reference.md#softmax-and-cross-entropy.
//
//   std::vector<mixprec::half> x = {1, 2, 3}, y(3);
//   mixprec::softmax(mixprec::exec::seq, x.data(), y.data(), 1, 3);  // y ~ {0.0900, 0.2448, 0.6650}
#ifndef MIXPREC_KERNELS_SOFTMAX_HPP
#define MIXPREC_KERNELS_SOFTMAX_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/kernels/softmax.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "../core/basic_float.hpp"
#include "../core/config.hpp"
#include "../core/detail/ieee_ops.hpp"
#include "../core/detail/type_traits.hpp"
#include "exec.hpp"
#include "../core/round_to.hpp"

namespace mixprec {
namespace detail {
namespace softmax_impl {

/// float, or double when any of T is double.
template <class... T>
using acc_t = compute_type_t<T...>;

using ieee::div_rn;
using ieee::fma_rn;
using ieee::mul_rn;

MIXPREC_HD inline double floor_exact(double x) noexcept {
#if defined(__CUDA_ARCH__)
  return ::floor(x);
#else
  return std::floor(x);
#endif
}

MIXPREC_HD inline double from_bits64(std::uint64_t b) noexcept { return float_traits<double>::from_bits(b); }
MIXPREC_HD inline std::uint64_t to_bits64(double x) noexcept { return float_traits<double>::to_bits(x); }
/// 2^j for -1022 <= j <= 1023.
MIXPREC_HD inline double pow2(int j) noexcept {
  return from_bits64(static_cast<std::uint64_t>(j + 1023) << 52);
}

/// a * b + c with two roundings (never fused: the same bits everywhere, and no call to a
/// software fma on hosts without one).
MIXPREC_HD inline double madd(double a, double b, double c) noexcept { return mul_rn(a, b) + c; }

/// e^x in double, within 1 ulp; the same bits on every host and device.
MIXPREC_HD inline double exp_det(double x) noexcept {
  if (is_nan_value(x)) return x;
  if (x > 709.8) return from_bits64(0x7ff0000000000000ull);  // e^709.79 > DBL_MAX
  if (x < -746.0) return 0.0;                                 // below half the smallest subnormal
  const double kd = floor_exact(madd(x, 1.4426950408889634, 0.5));  // round(x / ln 2), |k| <= 1077
  // Cody-Waite: ln2_hi has 32 significant bits, so kd * ln2_hi and x - kd * ln2_hi are exact.
  const double ln2_hi = 6.93147180369123816490e-01;
  const double ln2_lo = 1.90821492927058770002e-10;
  const double r = (x - mul_rn(kd, ln2_hi)) - mul_rn(kd, ln2_lo);  // |r| <= ln(2)/2 + tiny
  // Taylor polynomial of degree 13 (truncation < 2^-60 on |r| <= 0.35), Horner.
  double p = 1.6059043836821613e-10;     // 1/13!
  p = madd(p, r, 2.08767569878681e-09);  // 1/12!
  p = madd(p, r, 2.505210838544172e-08);
  p = madd(p, r, 2.755731922398589e-07);
  p = madd(p, r, 2.7557319223985893e-06);
  p = madd(p, r, 2.48015873015873e-05);
  p = madd(p, r, 0.0001984126984126984);
  p = madd(p, r, 0.001388888888888889);
  p = madd(p, r, 0.008333333333333333);
  p = madd(p, r, 0.041666666666666664);
  p = madd(p, r, 0.16666666666666666);
  p = madd(p, r, 0.5);
  p = madd(p, r, 1.0);
  p = madd(p, r, 1.0);
  // p * 2^k in two steps (k in [-1077, 1025]): the first product is exact, the second rounds
  // once (to a subnormal, zero or infinity where the result goes there).
  const int k = static_cast<int>(kd);
  const int k1 = k / 2;
  return mul_rn(mul_rn(p, pow2(k1)), pow2(k - k1));
}

/// ln x in double, within 1 ulp; the same bits on every host and device.
MIXPREC_HD inline double log_det(double x) noexcept {
  if (is_nan_value(x)) return x;
  if (x < 0) return from_bits64(0x7ff8000000000000ull);
  if (exact_eq(x, 0.0)) return -from_bits64(0x7ff0000000000000ull);
  std::uint64_t b = to_bits64(x);
  if (b >= 0x7ff0000000000000ull) return x;  // +inf
  int e = 0;
  if (b < 0x0010000000000000ull) {  // subnormal: scale into the normal range (exact)
    b = to_bits64(mul_rn(x, 18014398509481984.0));  // 2^54
    e = -54;
  }
  e += static_cast<int>(b >> 52) - 1023;
  b = (b & 0x000fffffffffffffull) | 0x3ff0000000000000ull;  // m in [1, 2)
  if (b > 0x3ff6a09e667f3bcdull) {                          // m > sqrt(2): m / 2, e + 1
    b -= 0x0010000000000000ull;
    e += 1;
  }
  const double f = from_bits64(b) - 1.0;  // exact (Sterbenz), f in [-0.293, 0.415)
  const double s = div_rn(f, 2.0 + f);     // |s| <= 0.1716
  const double z = mul_rn(s, s);
  // R(z) = z * P(z), P(z) = sum 2 / (2i + 1) z^(i-1), i = 1..11 (truncation < 2^-62 relative).
  double q = 0.08695652173913043;  // 2/23
  q = madd(q, z, 0.09523809523809523);
  q = madd(q, z, 0.10526315789473684);
  q = madd(q, z, 0.11764705882352941);
  q = madd(q, z, 0.13333333333333333);
  q = madd(q, z, 0.15384615384615385);
  q = madd(q, z, 0.18181818181818182);
  q = madd(q, z, 0.2222222222222222);
  q = madd(q, z, 0.2857142857142857);
  q = madd(q, z, 0.4);
  q = madd(q, z, 0.6666666666666666);
  // log(1 + f) = f - f^2/2 + s (f^2/2 + R)   (2s = f - s f)
  const double hfsq = mul_rn(mul_rn(0.5, f), f);
  const double t = mul_rn(s, madd(z, q, hfsq)) - hfsq;
  const double lp = f + t;
  const double ed = static_cast<double>(e);
  const double ln2_hi = 6.93147180369123816490e-01;  // 32 significant bits: e * ln2_hi is exact
  const double ln2_lo = 1.90821492927058770002e-10;
  return mul_rn(ed, ln2_hi) + (mul_rn(ed, ln2_lo) + lp);
}

template <class A, class T>
MIXPREC_HD inline A acc(T x) noexcept {
  return static_cast<A>(x);
}

/// v rounded to U (nearest even).
template <class U, class A>
MIXPREC_HD inline U out(A v) noexcept {
  if constexpr (std::is_same<U, A>::value) {
    return v;
  } else if constexpr (std::is_same<U, float>::value || std::is_same<U, double>::value) {
    return static_cast<U>(v);  // float -> double exact; double -> float nearest even
  } else {
    return U(v);
  }
}

template <class A, class T>
MIXPREC_HD inline A row_max(const T* x, std::size_t cols) noexcept {
  A m = acc<A>(x[0]);
  for (std::size_t j = 1; j < cols; ++j) {
    const A v = acc<A>(x[j]);
    if (v > m || is_nan_value(v)) m = v;
  }
  return m;
}

template <class A, class T>
MIXPREC_HD inline double diff(const T* x, std::size_t j, A m) noexcept {
  return static_cast<double>(acc<A>(x[j])) - static_cast<double>(m);
}

template <class A, class T>
MIXPREC_HD inline A exp_sum(const T* x, std::size_t cols, A m) noexcept {
  A s = A(0);
  for (std::size_t j = 0; j < cols; ++j) s = s + static_cast<A>(exp_det(diff<A>(x, j, m)));
  return s;
}

/// softmax of each row; with Onehot, cross_entropy_backward's c * (softmax - onehot(target)).
template <class A, class T, class U, bool Onehot = false>
struct softmax_rows {
  const T* x;
  U* y;
  std::size_t cols;
  const std::int32_t* targets = nullptr;  // Onehot only
  A c = A(1);                             // Onehot only
  MIXPREC_HD void row(std::size_t r) const noexcept {
    const T* xr = x + r * cols;
    U* yr = y + r * cols;
    const std::size_t t = Onehot ? static_cast<std::size_t>(targets[r]) : 0;
    const A m = row_max<A>(xr, cols);
    const A s = exp_sum<A>(xr, cols, m);
    for (std::size_t j = 0; j < cols; ++j) {
      const A p = div_rn(static_cast<A>(exp_det(diff<A>(xr, j, m))), s);
      if constexpr (Onehot) {
        yr[j] = out<U>(mul_rn(j == t ? p - A(1) : p, c));
      } else {
        yr[j] = out<U>(p);
      }
    }
  }
};

/// log(sum(exp(x - m))) over a row, m its maximum.
template <class A, class T>
MIXPREC_HD inline double log_sum_exp(const T* xr, std::size_t cols, A m) noexcept {
  return log_det(static_cast<double>(exp_sum<A>(xr, cols, m)));
}

template <class A, class T, class U>
struct log_softmax_rows {
  const T* x;
  U* y;
  std::size_t cols;
  MIXPREC_HD void row(std::size_t r) const noexcept {
    const T* xr = x + r * cols;
    U* yr = y + r * cols;
    const A m = row_max<A>(xr, cols);
    const double l = log_sum_exp(xr, cols, m);
    for (std::size_t j = 0; j < cols; ++j) yr[j] = out<U>(static_cast<A>(diff<A>(xr, j, m) - l));
  }
};

/// softmax_backward (y: probabilities) or, with Log, log_softmax_backward (y: log-probabilities).
template <class A, class T, class G, class U, bool Log>
struct backward_rows {
  const T* y;
  const G* dy;
  U* dx;
  std::size_t cols;
  MIXPREC_HD void row(std::size_t r) const noexcept {
    const T* yr = y + r * cols;
    const G* gr = dy + r * cols;
    U* dr = dx + r * cols;
    A t = A(0);
    for (std::size_t j = 0; j < cols; ++j) t = Log ? t + acc<A>(gr[j]) : fma_rn(acc<A>(gr[j]), acc<A>(yr[j]), t);
    for (std::size_t j = 0; j < cols; ++j) {
      if constexpr (Log) {
        const A ey = static_cast<A>(exp_det(static_cast<double>(acc<A>(yr[j]))));
        dr[j] = out<U>(fma_rn(-ey, t, acc<A>(gr[j])));
      } else {
        dr[j] = out<U>(mul_rn(acc<A>(yr[j]), acc<A>(gr[j]) - t));
      }
    }
  }
};

template <class A, class T>
struct cross_entropy_rows {
  const T* x;
  const std::int32_t* targets;
  A* loss;
  std::size_t cols;
  MIXPREC_HD void row(std::size_t r) const noexcept {
    const T* xr = x + r * cols;
    const A m = row_max<A>(xr, cols);
    loss[r] = static_cast<A>(log_sum_exp(xr, cols, m) - diff<A>(xr, static_cast<std::size_t>(targets[r]), m));
  }
};

/// Calls rows.row(r) for each row of a block.
template <class Rows>
struct each_row {
  Rows rows;
  MIXPREC_HD void operator()(std::size_t begin, std::size_t end) const noexcept {
    for (std::size_t r = begin; r < end; ++r) rows.row(r);
  }
};

/// Rows per block on the host (about 16384 elements per block); one row per device thread.
inline std::size_t host_rows_per_block(std::size_t cols) noexcept {
  return cols >= 16384 ? 1 : 16384 / (cols == 0 ? 1 : cols);
}

/// Runs the row kernel f over rows rows of cols elements.
template <class Policy, class F>
void for_each_row_block(Policy policy, std::size_t rows, std::size_t cols, F f) {
  static_assert(exec::is_execution_policy<Policy>::value, "mixprec softmax kernels: not an execution policy");
  if (rows == 0 || cols == 0) return;
#if defined(__CUDACC__)
  if constexpr (std::is_same<Policy, exec::cuda_policy>::value) {
    for_each_block(policy, rows, 1, each_row<F>{f});
    return;
  } else
#endif
  {
    for_each_block(policy, rows, host_rows_per_block(cols), each_row<F>{f});
  }
}

inline void check_shape(const char* what, std::size_t rows, std::size_t cols,
                        std::initializer_list<const void*> pointers) {
  if (cols != 0 && rows > std::numeric_limits<std::size_t>::max() / cols) {
    throw std::invalid_argument(std::string("mixprec::") + what + ": rows * cols overflows (" + std::to_string(rows) +
                                " x " + std::to_string(cols) + ")");
  }
  if (rows != 0 && cols != 0) {
    for (const void* p : pointers) {
      if (p == nullptr) throw std::invalid_argument(std::string("mixprec::") + what + ": null pointer");
    }
  }
}

template <class Policy>
void check_targets(Policy policy, const char* what, const std::int32_t* targets, std::size_t rows, std::size_t cols) {
  if (rows == 0) return;
  if (targets == nullptr) throw std::invalid_argument(std::string("mixprec::") + what + ": null targets");
  const std::int32_t* t = targets;
  std::vector<std::int32_t> host;
#if defined(__CUDACC__)
  if constexpr (std::is_same<Policy, exec::cuda_policy>::value) {
    host.resize(rows);
    cuda_check(cudaMemcpyAsync(host.data(), targets, rows * sizeof(std::int32_t), cudaMemcpyDeviceToHost, policy.stream),
               "cudaMemcpyAsync");
    cuda_check(cudaStreamSynchronize(policy.stream), "cudaStreamSynchronize");
    t = host.data();
  }
#endif
  (void)policy;
  for (std::size_t r = 0; r < rows; ++r) {
    if (t[r] < 0 || static_cast<std::size_t>(t[r]) >= cols) {
      throw std::out_of_range(std::string("mixprec::") + what + ": target " + std::to_string(t[r]) + " of row " +
                              std::to_string(r) + " is outside [0, " + std::to_string(cols) + ")");
    }
  }
}

}  // namespace softmax_impl
}  // namespace detail

/// y = softmax(x) over each row (exact formula: docs/pages/kernels-reference.md).
template <class Policy, class T, class U>
void softmax(Policy policy, const T* x, U* y, std::size_t rows, std::size_t cols) {
  namespace si = detail::softmax_impl;
  si::check_shape("softmax", rows, cols, {x, y});
  using A = si::acc_t<T>;
  si::for_each_row_block(policy, rows, cols, si::softmax_rows<A, T, U>{x, y, cols});
}

/// y = log_softmax(x) over each row.
template <class Policy, class T, class U>
void log_softmax(Policy policy, const T* x, U* y, std::size_t rows, std::size_t cols) {
  namespace si = detail::softmax_impl;
  si::check_shape("log_softmax", rows, cols, {x, y});
  using A = si::acc_t<T>;
  si::for_each_row_block(policy, rows, cols, si::log_softmax_rows<A, T, U>{x, y, cols});
}

/// dx = y * (dy - sum(dy * y)) over each row (y: the softmax output).
template <class Policy, class T, class G, class U>
void softmax_backward(Policy policy, const T* y, const G* dy, U* dx, std::size_t rows, std::size_t cols) {
  namespace si = detail::softmax_impl;
  si::check_shape("softmax_backward", rows, cols, {y, dy, dx});
  using A = si::acc_t<T, G>;
  si::for_each_row_block(policy, rows, cols, si::backward_rows<A, T, G, U, false>{y, dy, dx, cols});
}

/// dx = dy - exp(y) * sum(dy) over each row (y: the log_softmax output).
template <class Policy, class T, class G, class U>
void log_softmax_backward(Policy policy, const T* y, const G* dy, U* dx, std::size_t rows, std::size_t cols) {
  namespace si = detail::softmax_impl;
  si::check_shape("log_softmax_backward", rows, cols, {y, dy, dx});
  using A = si::acc_t<T, G>;
  si::for_each_row_block(policy, rows, cols, si::backward_rows<A, T, G, U, true>{y, dy, dx, cols});
}

/// The mean over rows of -log_softmax(logits)[target]: float (double for double logits); NaN
/// when rows == 0. Under exec::cuda this synchronizes the stream.
template <class Policy, class T>
auto cross_entropy(Policy policy, const T* logits, const std::int32_t* targets, std::size_t rows, std::size_t cols) {
  namespace si = detail::softmax_impl;
  using A = si::acc_t<T>;
  si::check_shape("cross_entropy", rows, cols, {logits});
  si::check_targets(policy, "cross_entropy", targets, rows, cols);
  if (rows == 0) return std::numeric_limits<A>::quiet_NaN();
  std::vector<A> loss(rows);
#if defined(__CUDACC__)
  if constexpr (std::is_same<Policy, exec::cuda_policy>::value) {
    A* dev = nullptr;
    detail::cuda_check(cudaMallocAsync(reinterpret_cast<void**>(&dev), rows * sizeof(A), policy.stream),
                       "cudaMallocAsync");
    si::for_each_row_block(policy, rows, cols, si::cross_entropy_rows<A, T>{logits, targets, dev, cols});
    detail::cuda_check(cudaMemcpyAsync(loss.data(), dev, rows * sizeof(A), cudaMemcpyDeviceToHost, policy.stream),
                       "cudaMemcpyAsync");
    detail::cuda_check(cudaFreeAsync(dev, policy.stream), "cudaFreeAsync");
    detail::cuda_check(cudaStreamSynchronize(policy.stream), "cudaStreamSynchronize");
  } else
#endif
  {
    si::for_each_row_block(policy, rows, cols, si::cross_entropy_rows<A, T>{logits, targets, loss.data(), cols});
  }
  double total = 0.0;
  for (std::size_t r = 0; r < rows; ++r) total = total + static_cast<double>(loss[r]);
  return static_cast<A>(total / static_cast<double>(rows));
}

/// dlogits = grad_output * (softmax(logits) - onehot(target)) / rows.
template <class Policy, class T, class U>
void cross_entropy_backward(Policy policy, const T* logits, const std::int32_t* targets, std::size_t rows,
                            std::size_t cols, U* dlogits, float grad_output = 1.0f) {
  namespace si = detail::softmax_impl;
  using A = si::acc_t<T>;
  si::check_shape("cross_entropy_backward", rows, cols, {logits, dlogits});
  si::check_targets(policy, "cross_entropy_backward", targets, rows, cols);
  if (rows == 0) return;
  const A c = static_cast<A>(static_cast<double>(grad_output) / static_cast<double>(rows));
  si::for_each_row_block(policy, rows, cols, si::softmax_rows<A, T, U, true>{logits, dlogits, cols, targets, c});
}

}  // namespace mixprec

#endif  // MIXPREC_KERNELS_SOFTMAX_HPP
