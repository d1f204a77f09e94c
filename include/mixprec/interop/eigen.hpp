// SPDX-License-Identifier: MIT
// mixprec/interop/eigen.hpp — mixprec types as Eigen scalars: Eigen::NumTraits<mixprec::basic_float<F>>.
//
// Optional (not included by mixprec.hpp); needs Eigen 3.3+ (tested with 3.4) and includes
// <Eigen/Core>, mixprec.hpp and io.hpp. Contract: Eigen matrices of any mixprec type behave like
// Eigen's float without SIMD, every multiply and add rounded once to the scalar type (no fused
// multiply-add); mixing scalar types needs cast<>(). Supported decompositions, known limits (half
// overflows in JacobiSVD/BDCSVD; SelfAdjointEigenSolver does not compile) and every NumTraits
// value: docs/pages/eigen.md.
//
//   #include <mixprec/eigen.hpp>
//   using M = Eigen::Matrix<mixprec::bfloat16, 4, 4>;
//   const M a = M::Random();
//   const M inv = a.partialPivLu().inverse();  // every step rounded to bfloat16
#ifndef MIXPREC_EIGEN_HPP
#define MIXPREC_EIGEN_HPP

#include <Eigen/Core>
#include <cstdlib>
#include <limits>

#include "../text/io.hpp"
#include "../mixprec.hpp"

#if !EIGEN_VERSION_AT_LEAST(3, 3, 0)
#error "mixprec/eigen.hpp needs Eigen 3.3 or later (tested with 3.4)"
#endif

#ifndef MIXPREC_EIGEN_ARITHMETIC_COST
/// Eigen's AddCost and MulCost of a mixprec scalar (steers unrolling, not results).
#define MIXPREC_EIGEN_ARITHMETIC_COST 4
#endif

namespace mixprec {
namespace detail {

/// min(8 * eps, 1/2) as a value of T: a power of two, exact in every format.
template <class T>
constexpr T eigen_dummy_precision() noexcept {
  constexpr int e = finfo<T>::machep + 3 < -1 ? finfo<T>::machep + 3 : -1;
  return pow2<T>(e);
}

}  // namespace detail
}  // namespace mixprec

namespace Eigen {

/// Eigen's traits of a mixprec scalar: costs MIXPREC_EIGEN_ARITHMETIC_COST (default 4), not
/// complex, trivially copyable (RequireInitialization = 0); limits from std::numeric_limits.
template <class F>
struct NumTraits<mixprec::basic_float<F>> : GenericNumTraits<mixprec::basic_float<F>> {
  typedef mixprec::basic_float<F> Real;        ///< The scalar itself
  typedef mixprec::basic_float<F> NonInteger;  ///< The scalar itself
  typedef mixprec::basic_float<F> Literal;     ///< The scalar itself
  typedef mixprec::basic_float<F> Nested;      ///< The scalar itself

  enum {
    IsComplex = 0,                              ///< Real
    IsInteger = 0,                              ///< Floating point
    IsSigned = F::is_signed ? 1 : 0,            ///< 0 only for float8_e8m0fnu
    RequireInitialization = 0,                  ///< Trivially copyable: Eigen may memcpy it, new storage is garbage until assigned
    ReadCost = 1,                               ///< As for float
    AddCost = MIXPREC_EIGEN_ARITHMETIC_COST,    ///< Emulated: both operands converted, result rounded
    MulCost = MIXPREC_EIGEN_ARITHMETIC_COST     ///< As AddCost
  };

  /// finfo<T>::eps, 2^-mantissa_bits.
  EIGEN_DEVICE_FUNC EIGEN_CONSTEXPR static inline Real epsilon() { return mixprec::finfo<Real>::eps; }
  /// min(8 * eps, 1/2): half and tf32 2^-7, bfloat16 2^-4, FP8 and smaller 1/2 (isApprox's tolerance).
  EIGEN_DEVICE_FUNC EIGEN_CONSTEXPR static inline Real dummy_precision() {
    return mixprec::detail::eigen_dummy_precision<Real>();
  }
  /// numeric_limits::max().
  EIGEN_DEVICE_FUNC EIGEN_CONSTEXPR static inline Real highest() { return (std::numeric_limits<Real>::max)(); }
  /// numeric_limits::lowest().
  EIGEN_DEVICE_FUNC EIGEN_CONSTEXPR static inline Real lowest() { return std::numeric_limits<Real>::lowest(); }
  /// numeric_limits::infinity() (+0 without infinity).
  EIGEN_DEVICE_FUNC EIGEN_CONSTEXPR static inline Real infinity() { return std::numeric_limits<Real>::infinity(); }
  /// numeric_limits::quiet_NaN() (+0 without NaN).
  EIGEN_DEVICE_FUNC EIGEN_CONSTEXPR static inline Real quiet_NaN() { return std::numeric_limits<Real>::quiet_NaN(); }
  /// numeric_limits::digits.
  EIGEN_DEVICE_FUNC EIGEN_CONSTEXPR static inline int digits() { return std::numeric_limits<Real>::digits; }
  /// numeric_limits::digits10 (the precision Eigen prints with FullPrecision).
  EIGEN_DEVICE_FUNC EIGEN_CONSTEXPR static inline int digits10() { return std::numeric_limits<Real>::digits10; }
  /// numeric_limits::min_exponent.
  EIGEN_DEVICE_FUNC EIGEN_CONSTEXPR static inline int min_exponent() { return std::numeric_limits<Real>::min_exponent; }
  /// numeric_limits::max_exponent.
  EIGEN_DEVICE_FUNC EIGEN_CONSTEXPR static inline int max_exponent() { return std::numeric_limits<Real>::max_exponent; }
};

namespace internal {

/// Random(): uniform in [x, y] computed in double from std::rand() and rounded once to T
/// (Eigen's generic version computes T(RAND_MAX), which overflows half and the smaller formats).
/// Without bounds: [-1, 1], as for float ([smallest positive value, 1] for the unsigned
/// float8_e8m0fnu).
template <class F>
struct random_impl<mixprec::basic_float<F>> {
  typedef mixprec::basic_float<F> Scalar;  ///< The scalar
  /// Uniform in [x, y], rounded once to Scalar.
  static inline Scalar run(const Scalar& x, const Scalar& y) {
    const double u = static_cast<double>(std::rand()) / static_cast<double>(RAND_MAX);
    const double lo = static_cast<double>(x), hi = static_cast<double>(y);
    return Scalar(lo + (hi - lo) * u);
  }
  /// Uniform in [-1, 1] ([lowest(), 1] for unsigned formats).
  static inline Scalar run() {
    return run(F::is_signed ? Scalar(-1) : std::numeric_limits<Scalar>::lowest(), Scalar(1));
  }
};

}  // namespace internal
}  // namespace Eigen

#endif  // MIXPREC_EIGEN_HPP
