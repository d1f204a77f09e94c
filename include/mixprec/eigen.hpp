// SPDX-License-Identifier: MIT
// mixprec/eigen.hpp — mixprec types as Eigen scalars: Eigen::NumTraits<mixprec::basic_float<F>>.
//
// Optional integration: not included by mixprec.hpp. Written for and tested with Eigen 3.4
// (3.3 or later is required); it includes <Eigen/Core> itself, mixprec/mixprec.hpp and
// mixprec/io.hpp. After
//
//   #include <mixprec/eigen.hpp>
//   #include <Eigen/Dense>          // or any other Eigen module, before or after
//
// Eigen::Matrix<mixprec::bfloat16, Eigen::Dynamic, Eigen::Dynamic> (and every other mixprec
// type) supports what Eigen's own float does without SIMD: expressions, products (every step
// rounded to the scalar type: each multiply and each add rounds once, there is no fused
// multiply-add), reductions (sum, norm, squaredNorm, maxCoeff...), Random(), isApprox, and
// cast<>() to and from float/double/other mixprec types (Eigen's cast is a static_cast, which
// uses mixprec's explicit converting constructors and conversion operators; conversions to a
// mixprec type round once to nearest-even). Decompositions checked with bfloat16 and half:
// partialPivLu / lu(), fullPivLu, llt, ldlt, householderQr, colPivHouseholderQr,
// fullPivHouseholderQr, completeOrthogonalDecomposition, jacobiSvd, bdcSvd, determinant(),
// inverse(). Known limits (Eigen's, not mixprec's):
//   - Eigen's algorithms assume float's exponent range. In half (max 65504) and the FP8
//     formats intermediate results overflow sooner: JacobiSVD / BDCSVD give wrong results for
//     half (the 2x2 Jacobi step squares t/d; Eigen::half fails the same way), and
//     determinant() overflows easily. bfloat16 has float's range and does not have this issue.
//   - SelfAdjointEigenSolver / Tridiagonalization do not compile: Eigen assigns an int to a
//     coefficient (coeffRef(i) = 1), and mixprec's constructors are explicit.
//
// What Eigen finds where:
//   - abs, sqrt, isfinite, isnan, isinf, floor, exp, log, ... : by argument-dependent lookup in
//     namespace mixprec (mixprec/math.hpp, arithmetic.hpp, classify.hpp); Eigen's numext
//     functions call them unqualified. sqrt is correctly rounded; see math.hpp for the others.
//   - std::numeric_limits<T>: mixprec/limits.hpp.
//   - Mixing two scalar types in one expression (bfloat16 * float matrices) is deliberately not
//     enabled (no ScalarBinaryOpTraits): convert with cast<>(), as mixprec asks for scalars.
//   - Printing (std::cout << matrix, matrix.format(...)): mixprec/io.hpp's operator<<, included
//     here: each element is printed as the double of the same value under the stream's settings,
//     so the precision Eigen sets applies as for float (FullPrecision: NumTraits::digits10(),
//     2 for bfloat16, as Eigen 3.4 uses digits10 for float and double too).
//
// The order in which Eigen accumulates products and sums depends on the expression and the
// sizes (blocked GEMM kernels, unrolled tree reductions for small fixed sizes, sequential loops
// otherwise): the results are those of ordinary floating-point code in T, with the usual
// n * eps error bounds, not bit-identical to any particular loop in general.
//
// NumTraits<basic_float<F>>:
//   Real = NonInteger = Literal = Nested = basic_float<F>; IsComplex = 0, IsInteger = 0,
//   IsSigned = F::is_signed (0 only for float8_e8m0fnu), RequireInitialization = 0 (the type is
//   trivially copyable: Eigen may move it with memcpy and leave new storage uninitialized, as
//   for float: coefficients hold garbage until assigned),
//   ReadCost = 1, AddCost = MulCost = MIXPREC_EIGEN_ARITHMETIC_COST (default 4: emulated
//   arithmetic converts both operands and rounds the result; the costs steer Eigen's unrolling
//   and temporaries, not correctness);
//   epsilon() = finfo<T>::eps (2^-M), dummy_precision() = min(8 * eps, 1/2) (half: 2^-7,
//   bfloat16: 2^-4, tf32: 2^-7, FP8 and smaller: 1/2), highest() = numeric_limits::max(),
//   lowest() = numeric_limits::lowest(), infinity()/quiet_NaN() = numeric_limits's (+0 where
//   the format has no infinity/NaN, as the standard asks), digits(), digits10(),
//   min_exponent(), max_exponent() = numeric_limits's.
// Eigen::internal::random_impl<basic_float<F>> (Random()): uniform in [-1, 1] (or [x, y]),
//   computed in double from std::rand() and rounded once to T.
#ifndef MIXPREC_EIGEN_HPP
#define MIXPREC_EIGEN_HPP

#include <Eigen/Core>
#include <cstdlib>
#include <limits>

#include "io.hpp"
#include "mixprec.hpp"

#if !EIGEN_VERSION_AT_LEAST(3, 3, 0)
#error "mixprec/eigen.hpp needs Eigen 3.3 or later (tested with 3.4)"
#endif

#ifndef MIXPREC_EIGEN_ARITHMETIC_COST
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

template <class F>
struct NumTraits<mixprec::basic_float<F>> : GenericNumTraits<mixprec::basic_float<F>> {
  typedef mixprec::basic_float<F> Real;
  typedef mixprec::basic_float<F> NonInteger;
  typedef mixprec::basic_float<F> Literal;
  typedef mixprec::basic_float<F> Nested;

  enum {
    IsComplex = 0,
    IsInteger = 0,
    IsSigned = F::is_signed ? 1 : 0,
    RequireInitialization = 0,
    ReadCost = 1,
    AddCost = MIXPREC_EIGEN_ARITHMETIC_COST,
    MulCost = MIXPREC_EIGEN_ARITHMETIC_COST
  };

  EIGEN_DEVICE_FUNC EIGEN_CONSTEXPR static inline Real epsilon() { return mixprec::finfo<Real>::eps; }
  EIGEN_DEVICE_FUNC EIGEN_CONSTEXPR static inline Real dummy_precision() {
    return mixprec::detail::eigen_dummy_precision<Real>();
  }
  EIGEN_DEVICE_FUNC EIGEN_CONSTEXPR static inline Real highest() { return (std::numeric_limits<Real>::max)(); }
  EIGEN_DEVICE_FUNC EIGEN_CONSTEXPR static inline Real lowest() { return std::numeric_limits<Real>::lowest(); }
  EIGEN_DEVICE_FUNC EIGEN_CONSTEXPR static inline Real infinity() { return std::numeric_limits<Real>::infinity(); }
  EIGEN_DEVICE_FUNC EIGEN_CONSTEXPR static inline Real quiet_NaN() { return std::numeric_limits<Real>::quiet_NaN(); }
  EIGEN_DEVICE_FUNC EIGEN_CONSTEXPR static inline int digits() { return std::numeric_limits<Real>::digits; }
  EIGEN_DEVICE_FUNC EIGEN_CONSTEXPR static inline int digits10() { return std::numeric_limits<Real>::digits10; }
  EIGEN_DEVICE_FUNC EIGEN_CONSTEXPR static inline int min_exponent() { return std::numeric_limits<Real>::min_exponent; }
  EIGEN_DEVICE_FUNC EIGEN_CONSTEXPR static inline int max_exponent() { return std::numeric_limits<Real>::max_exponent; }
};

namespace internal {

/// Random(): uniform in [x, y] computed in double from std::rand() and rounded once to T
/// (Eigen's generic version computes T(RAND_MAX), which overflows half and the smaller formats).
/// Without bounds: [-1, 1], as for float ([smallest positive value, 1] for the unsigned
/// float8_e8m0fnu).
template <class F>
struct random_impl<mixprec::basic_float<F>> {
  typedef mixprec::basic_float<F> Scalar;
  static inline Scalar run(const Scalar& x, const Scalar& y) {
    const double u = static_cast<double>(std::rand()) / static_cast<double>(RAND_MAX);
    const double lo = static_cast<double>(x), hi = static_cast<double>(y);
    return Scalar(lo + (hi - lo) * u);
  }
  static inline Scalar run() {
    return run(F::is_signed ? Scalar(-1) : std::numeric_limits<Scalar>::lowest(), Scalar(1));
  }
};

}  // namespace internal
}  // namespace Eigen

#endif  // MIXPREC_EIGEN_HPP
