// mixprec/eigen.hpp: mixprec types as Eigen scalars (Eigen 3.4).
// SPDX-License-Identifier: MIT
//
// Products and solves with dynamic bfloat16 and half matrices (n = 8):
//   - small-integer, diagonally dominant A and integer x, B: every intermediate value is an
//     integer of magnitude <= 256, so A * x, A * B and A.lazyProduct(B) are exact (equal to the
//     double result);
//   - random A, B, x (magnitudes in [1/2, 2), diagonal shifted by 2n): every element of A * B,
//     A * x and A.lazyProduct(B) is within gamma_n * sum_k |a_ik b_kj| of the exact (double)
//     value, gamma_n = n u / (1 - n u), u = finfo<T>::eps / 2 (any summation order);
//   - the summation order, bit for bit (every product and every sum rounded to T once):
//     A.lazyProduct(B) (dynamic) is row(i).cwiseProduct(col(j)).sum(), a left-to-right loop that
//     starts from a_i0 * b_0j; with Eigen 3.4, A * B for 8x8 dynamic matrices (the GEMM kernel
//     processes rows in pairs, accumulating k in order from 0) and A * x (GEMV, columns in
//     order) are the same as a plain loop "s = 0; for k: s = s + a_ik * b_kj", and a fixed-size
//     4x4 product (coefficient-based, unrolled reduction) sums the four products pairwise:
//     (p0 + p1) + (p2 + p3). [The GEMM kernel accumulates an odd leftover row in two
//     interleaved partial sums (even and odd k), so for odd sizes only the bound holds.]
//   - A.lu().solve(b) and A.partialPivLu().solve(b), b = A * x computed in T: the error is
//     within the bound that follows from the backward error of LU with partial pivoting and of
//     the two triangular solves, (A + dA) xhat = b, |dA| <= gamma_3n |L||U| (Higham, Accuracy
//     and Stability of Numerical Algorithms, Thm 9.4), and from b's own error db = b - A x:
//       ||xhat - x|| <= ||A^-1|| (||db|| + ||dA|| ||x||) / (1 - ||A^-1|| ||dA||)   (inf-norms),
//     i.e. about cond(A) * 3n * eps/2 relative; and the residual b - A xhat = dA xhat is at most
//     ||dA|| ||xhat|| (backward stability);
//   - norm() is the correctly rounded sqrt of squaredNorm(), and squaredNorm() is within
//     gamma_n * sum of squares;
//   - cast<bfloat16>() of a float matrix rounds each element as bfloat16(float) does, and
//     cast<float>() converts back exactly; cast between mixprec types;
//   - Random() gives values in [-1, 1]; NumTraits' members; FP8 matrices work too.
// Printing: Eigen lays out the text of mixprec/io.hpp's operator<< (included by eigen.hpp).
//
// Eigen's include directory: the build defines MIXPREC_TEST_HAVE_EIGEN=1 and adds it; without
// the definition the test looks for <Eigen/Core> on the include path and is skipped (doctest
// "skipped") when it is not there.
#include <doctest/doctest.h>

#if defined(MIXPREC_TEST_HAVE_EIGEN)
#define MIXPREC_TEST_EIGEN MIXPREC_TEST_HAVE_EIGEN
#elif defined(__has_include)
#if __has_include(<Eigen/Core>)
#define MIXPREC_TEST_EIGEN 1
#else
#define MIXPREC_TEST_EIGEN 0
#endif
#else
#define MIXPREC_TEST_EIGEN 0
#endif

#if MIXPREC_TEST_EIGEN

#include <mixprec/eigen.hpp>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>

namespace {

namespace mp = mixprec;

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <class T>
using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;

constexpr int kN = 8;

/// Eigen 3.4.x: the GEMM/GEMV/fixed-size summation orders described above were read from its
/// kernels and are checked bit for bit; other versions get the error bounds only.
#if EIGEN_VERSION_AT_LEAST(3, 4, 0) && !EIGEN_VERSION_AT_LEAST(3, 4, 90)
constexpr bool kKnownKernelOrder = true;
#else
constexpr bool kKnownKernelOrder = false;
#endif

/// Eigen unrolls the reduction of a fixed-size product coefficient (into a pairwise tree) when
/// Size * CoeffReadCost + (Size - 1) * AddCost <= EIGEN_UNROLLING_LIMIT (Eigen/src/Core/Redux.h);
/// otherwise it sums left to right. For the 4x4 product, with mixprec/eigen.hpp's costs:
template <class T>
constexpr bool unrolled_4x4_product() {
  using NT = Eigen::NumTraits<T>;
  return 4 * (2 * int(NT::ReadCost) + int(NT::MulCost)) + 3 * int(NT::AddCost) <= EIGEN_UNROLLING_LIMIT;
}

/// Unit roundoff u = eps / 2 and gamma_k = k u / (1 - k u).
template <class T>
double unit_roundoff() {
  return static_cast<double>(mp::finfo<T>::eps) / 2;
}
template <class T>
double gamma_n(int k) {
  const double ku = k * unit_roundoff<T>();
  REQUIRE(ku < 1);
  return ku / (1 - ku);
}

/// A deterministic generator (splitmix64).
struct splitmix {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }
  /// A value of T with magnitude in [1/2, 2) and a random sign (rounded to T): no product of two
  /// of them, and no sum, underflows.
  template <class T>
  T value() {
    const double m = 0.5 + 1.5 * uniform();
    return T((next() & 1) != 0 ? -m : m);
  }
};

template <class T>
Mat<T> random_matrix(splitmix& g, int rows, int cols) {
  Mat<T> m(rows, cols);
  for (int j = 0; j < cols; ++j) {
    for (int i = 0; i < rows; ++i) m(i, j) = g.value<T>();
  }
  return m;
}

/// Diagonally dominant, small integers: diagonal 8..12, off-diagonal -1, 0, 1.
template <class T>
Mat<T> integer_matrix(int n) {
  Mat<T> a(n, n);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) a(i, j) = i == j ? T(8 + i % 5) : T((i * 3 + j * 5 + 1) % 3 - 1);
  }
  return a;
}
/// Integers in [-8, 8].
template <class T>
Vec<T> integer_vector(int n) {
  Vec<T> x(n);
  for (int i = 0; i < n; ++i) x(i) = T((i * 7 + 3) % 17 - 8);
  return x;
}

template <class T>
Eigen::MatrixXd to_double(const Mat<T>& m) {
  return m.template cast<double>();
}

/// The plain loop: s = 0; for k: s = s + a_ik * b_kj (each operation rounded to T).
template <class T>
T loop_from_zero(const Mat<T>& a, const Mat<T>& b, Eigen::Index i, Eigen::Index j) {
  T s(0);
  for (Eigen::Index k = 0; k < a.cols(); ++k) s = s + a(i, k) * b(k, j);
  return s;
}
/// s = a_i0 * b_0j; for k >= 1: s = s + a_ik * b_kj.
template <class T>
T loop_from_first(const Mat<T>& a, const Mat<T>& b, Eigen::Index i, Eigen::Index j) {
  T s = a(i, 0) * b(0, j);
  for (Eigen::Index k = 1; k < a.cols(); ++k) s = s + a(i, k) * b(k, j);
  return s;
}

/// Checks every element of p (= a * b computed by Eigen) against the exact product: equal when
/// exact is set, else within gamma_n * sum |a_ik b_kj|. Returns the number of failures.
template <class T>
int check_product_bound(const Mat<T>& p, const Mat<T>& a, const Mat<T>& b, bool exact, const char* what) {
  const Eigen::MatrixXd ad = to_double(a), bd = to_double(b);
  const Eigen::MatrixXd ref = ad * bd;
  const Eigen::MatrixXd mag = ad.cwiseAbs() * bd.cwiseAbs();
  const double g = gamma_n<T>(static_cast<int>(a.cols()));
  int bad = 0;
  for (Eigen::Index j = 0; j < p.cols(); ++j) {
    for (Eigen::Index i = 0; i < p.rows(); ++i) {
      const double got = static_cast<double>(p(i, j));
      const double err = std::fabs(got - ref(i, j));
      const double bound = exact ? 0.0 : g * mag(i, j) * (1 + 1e-12);
      if (!(err <= bound)) {
        ++bad;
        if (bad <= 4) {
          INFO(what, " (", mp::finfo<T>::name, ") element (", i, ", ", j, "): got ", got, ", exact ", ref(i, j),
               ", error ", err, ", bound ", bound);
          CHECK(err <= bound);
        }
      }
    }
  }
  return bad;
}

/// Checks every element of p bit for bit against order(a, b, i, j).
template <class T, class Order>
int check_product_order(const Mat<T>& p, const Mat<T>& a, const Mat<T>& b, Order order, const char* what) {
  int bad = 0;
  for (Eigen::Index j = 0; j < p.cols(); ++j) {
    for (Eigen::Index i = 0; i < p.rows(); ++i) {
      const auto want = order(a, b, i, j).bits();
      if (p(i, j).bits() != want) {
        ++bad;
        if (bad <= 4) {
          INFO(what, " (", mp::finfo<T>::name, ") element (", i, ", ", j, "): got bits ", p(i, j).bits(),
               ", the loop gives ", want);
          CHECK(p(i, j).bits() == want);
        }
      }
    }
  }
  return bad;
}

/// The solve's error bound (see the top of the file), inf-norms, computed in double; also
/// stores cond_inf(A) and the bound gamma_3n ||L||U|| on ||dA||.
template <class T>
double solve_error_bound(const Mat<T>& a, const Vec<T>& x, const Vec<T>& b, const Eigen::PartialPivLU<Mat<T>>& lu,
                         double* cond, double* da) {
  const int n = static_cast<int>(a.rows());
  const Eigen::MatrixXd ad = to_double(a);
  const Eigen::MatrixXd ainv = ad.inverse();
  const double norm_ainv = ainv.cwiseAbs().rowwise().sum().maxCoeff();
  *cond = ad.cwiseAbs().rowwise().sum().maxCoeff() * norm_ainv;

  const Eigen::MatrixXd lu_d = to_double(Mat<T>(lu.matrixLU()));
  const Eigen::MatrixXd l = lu_d.triangularView<Eigen::UnitLower>();
  const Eigen::MatrixXd u = lu_d.triangularView<Eigen::Upper>();
  const double norm_lu = (l.cwiseAbs() * u.cwiseAbs()).rowwise().sum().maxCoeff();
  const double norm_da = gamma_n<T>(3 * n) * norm_lu;
  *da = norm_da;

  const Eigen::VectorXd xd = x.template cast<double>();
  const Eigen::VectorXd db = b.template cast<double>() - ad * xd;
  const double norm_db = db.cwiseAbs().maxCoeff();
  const double norm_x = xd.cwiseAbs().maxCoeff();

  const double shrink = 1 - norm_ainv * norm_da;
  REQUIRE(shrink > 0);
  return norm_ainv * (norm_db + norm_da * norm_x) / shrink * (1 + 1e-9);
}

template <class T>
void check_solve(const Mat<T>& a, const Vec<T>& x, const char* what) {
  const Vec<T> b = a * x;
  const Eigen::PartialPivLU<Mat<T>> lu(a);
  const Vec<T> xhat = lu.solve(b);
  const Vec<T> xhat_lu = a.lu().solve(b);
  const Vec<T> xhat_pp = a.partialPivLu().solve(b);
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    CHECK(xhat_lu(i).bits() == xhat(i).bits());
    CHECK(xhat_pp(i).bits() == xhat(i).bits());
  }
  double cond = 0, norm_da = 0;
  const double bound = solve_error_bound<T>(a, x, b, lu, &cond, &norm_da);
  const Eigen::VectorXd xhat_d = xhat.template cast<double>();
  const double err = (xhat_d - x.template cast<double>()).cwiseAbs().maxCoeff();
  INFO(what, " (", mp::finfo<T>::name, "): ||xhat - x|| = ", err, ", bound ", bound, " (cond_inf(A) = ", cond,
       ", ||x|| = ", static_cast<double>(x.cwiseAbs().maxCoeff()), ", eps = ", static_cast<double>(mp::finfo<T>::eps),
       ")");
  CHECK(err <= bound);
  // Backward error: the residual of the system actually solved, r = b - A xhat = dA xhat, exact
  // in double, is at most ||dA|| ||xhat||.
  const double residual = (b.template cast<double>() - a.template cast<double>() * xhat_d).cwiseAbs().maxCoeff();
  CHECK(residual <= norm_da * xhat_d.cwiseAbs().maxCoeff() * (1 + 1e-9));
}

/// The four-term pairwise sum (p0 + p1) + (p2 + p3) of the unrolled fixed-size product.
template <class T>
T pairwise4(const Mat<T>& a, const Mat<T>& b, Eigen::Index i, Eigen::Index j) {
  return (a(i, 0) * b(0, j) + a(i, 1) * b(1, j)) + (a(i, 2) * b(2, j) + a(i, 3) * b(3, j));
}

}  // namespace

TEST_CASE_TEMPLATE("Eigen NumTraits of mixprec types", T, mp::bfloat16, mp::half, mp::tf32, mp::float8_e4m3fn,
                   mp::float8_e5m2, mp::float8_e8m0fnu, mp::float4_e2m1fn) {
  using NT = Eigen::NumTraits<T>;
  static_assert(std::is_same<typename NT::Real, T>::value, "");
  static_assert(std::is_same<typename NT::NonInteger, T>::value, "");
  static_assert(std::is_same<typename NT::Literal, T>::value, "");
  static_assert(std::is_same<typename NT::Nested, T>::value, "");
  static_assert(NT::IsComplex == 0 && NT::IsInteger == 0 && NT::RequireInitialization == 0, "");
  static_assert(NT::IsSigned == (std::numeric_limits<T>::is_signed ? 1 : 0), "");
  static_assert(NT::ReadCost >= 1 && NT::AddCost >= 1 && NT::MulCost >= 1, "");
  CHECK(NT::epsilon().bits() == mp::finfo<T>::eps.bits());
  CHECK(NT::highest().bits() == std::numeric_limits<T>::max().bits());
  CHECK(NT::lowest().bits() == std::numeric_limits<T>::lowest().bits());
  CHECK(NT::infinity().bits() == std::numeric_limits<T>::infinity().bits());
  CHECK(NT::quiet_NaN().bits() == std::numeric_limits<T>::quiet_NaN().bits());
  CHECK(NT::digits() == std::numeric_limits<T>::digits);
  CHECK(NT::digits10() == std::numeric_limits<T>::digits10);
  CHECK(NT::min_exponent() == std::numeric_limits<T>::min_exponent);
  CHECK(NT::max_exponent() == std::numeric_limits<T>::max_exponent);
  const double eps = static_cast<double>(mp::finfo<T>::eps);
  CHECK(static_cast<double>(NT::dummy_precision()) == std::fmin(8 * eps, 0.5));
  CHECK(Eigen::NumTraits<T>::IsSigned == (std::is_same<T, mp::float8_e8m0fnu>::value ? 0 : 1));
}

TEST_CASE("Eigen NumTraits: values for half and bfloat16") {
  CHECK(static_cast<double>(Eigen::NumTraits<mp::half>::epsilon()) == 0x1p-10);
  CHECK(static_cast<double>(Eigen::NumTraits<mp::half>::dummy_precision()) == 0x1p-7);
  CHECK(static_cast<double>(Eigen::NumTraits<mp::half>::highest()) == 65504.0);
  CHECK(static_cast<double>(Eigen::NumTraits<mp::half>::lowest()) == -65504.0);
  CHECK(std::isinf(static_cast<double>(Eigen::NumTraits<mp::half>::infinity())));
  CHECK(std::isnan(static_cast<double>(Eigen::NumTraits<mp::half>::quiet_NaN())));
  CHECK(static_cast<double>(Eigen::NumTraits<mp::bfloat16>::epsilon()) == 0x1p-7);
  CHECK(static_cast<double>(Eigen::NumTraits<mp::bfloat16>::dummy_precision()) == 0x1p-4);
  CHECK(Eigen::NumTraits<mp::bfloat16>::digits10() == 2);
  CHECK(Eigen::NumTraits<mp::half>::digits10() == 3);
}

TEST_CASE_TEMPLATE("Eigen products, small integers: exact", T, mp::bfloat16, mp::half) {
  const Mat<T> a = integer_matrix<T>(kN);
  const Mat<T> b = a.transpose();
  const Vec<T> x = integer_vector<T>(kN);
  const Mat<T> xm = x;

  const Vec<T> ax = a * x;
  const Mat<T> axm = ax;
  CHECK(check_product_bound<T>(axm, a, xm, true, "A * x") == 0);
  const Mat<T> aa = a * a;
  CHECK(check_product_bound<T>(aa, a, a, true, "A * A") == 0);
  const Mat<T> ab = a * b;
  CHECK(check_product_bound<T>(ab, a, b, true, "A * B") == 0);
  const Mat<T> lazy = a.lazyProduct(b);
  CHECK(check_product_bound<T>(lazy, a, b, true, "A.lazyProduct(B)") == 0);
  // Exact results: the same bits as the plain loop (an exact sum does not depend on the order).
  CHECK(check_product_order<T>(ab, a, b, loop_from_zero<T>, "A * B") == 0);
  CHECK(check_product_order<T>(axm, a, xm, loop_from_zero<T>, "A * x") == 0);

  // Fixed sizes too.
  const Eigen::Matrix<T, kN, kN> af = a;
  const Eigen::Matrix<T, kN, 1> xf = x;
  const Eigen::Matrix<T, kN, 1> axf = af * xf;
  const Eigen::Matrix<T, kN, kN> aaf = af * af;
  for (Eigen::Index i = 0; i < kN; ++i) {
    CHECK(axf(i).bits() == ax(i).bits());
    for (Eigen::Index j = 0; j < kN; ++j) CHECK(aaf(i, j).bits() == aa(i, j).bits());
  }
}

TEST_CASE_TEMPLATE("Eigen products, random values: error bound and summation order", T, mp::bfloat16, mp::half) {
  splitmix g{std::is_same<T, mp::half>::value ? 11u : 7u};
  for (int trial = 0; trial < 20; ++trial) {
    CAPTURE(trial);
    const Mat<T> a = random_matrix<T>(g, kN, kN);
    const Mat<T> b = random_matrix<T>(g, kN, kN);
    const Mat<T> xm = random_matrix<T>(g, kN, 1);
    const Vec<T> x = xm;

    const Mat<T> ab = a * b;
    const Mat<T> lazy = a.lazyProduct(b);
    const Vec<T> ax = a * x;
    const Mat<T> axm = ax;
    CHECK(check_product_bound<T>(ab, a, b, false, "A * B") == 0);
    CHECK(check_product_bound<T>(lazy, a, b, false, "A.lazyProduct(B)") == 0);
    CHECK(check_product_bound<T>(axm, a, xm, false, "A * x") == 0);

    CHECK(check_product_order<T>(lazy, a, b, loop_from_first<T>, "A.lazyProduct(B)") == 0);
    if (kKnownKernelOrder) {
      CHECK(check_product_order<T>(ab, a, b, loop_from_zero<T>, "A * B (GEMM)") == 0);
      CHECK(check_product_order<T>(axm, a, xm, loop_from_zero<T>, "A * x (GEMV)") == 0);

      const Mat<T> a4 = random_matrix<T>(g, 4, 4), b4 = random_matrix<T>(g, 4, 4);
      const Eigen::Matrix<T, 4, 4> p4 = Eigen::Matrix<T, 4, 4>(a4) * Eigen::Matrix<T, 4, 4>(b4);
      if (unrolled_4x4_product<T>()) {
        CHECK(check_product_order<T>(Mat<T>(p4), a4, b4, pairwise4<T>, "fixed 4x4 A * B") == 0);
      } else {
        CHECK(check_product_order<T>(Mat<T>(p4), a4, b4, loop_from_first<T>, "fixed 4x4 A * B") == 0);
      }
    }
  }
}

TEST_CASE_TEMPLATE("Eigen LU solve", T, mp::bfloat16, mp::half) {
  SUBCASE("small integers") { check_solve<T>(integer_matrix<T>(kN), integer_vector<T>(kN), "integer A, x"); }
  SUBCASE("random, diagonally dominant") {
    splitmix g{std::is_same<T, mp::half>::value ? 5u : 3u};
    for (int trial = 0; trial < 20; ++trial) {
      CAPTURE(trial);
      Mat<T> a = random_matrix<T>(g, kN, kN);
      for (int i = 0; i < kN; ++i) a(i, i) = a(i, i) + T(2 * kN);
      const Vec<T> x = random_matrix<T>(g, kN, 1);
      check_solve<T>(a, x, "random A, x");
    }
  }
  SUBCASE("random, needs pivoting") {
    // A permuted diagonally dominant matrix: partial pivoting must swap rows back.
    splitmix g{std::is_same<T, mp::half>::value ? 9u : 13u};
    Mat<T> a = random_matrix<T>(g, kN, kN);
    for (int i = 0; i < kN; ++i) a(i, i) = a(i, i) + T(2 * kN);
    Eigen::PermutationMatrix<Eigen::Dynamic> perm(kN);
    for (int i = 0; i < kN; ++i) perm.indices()(i) = (i * 3 + 1) % kN;
    const Mat<T> pa = perm * a;
    const Vec<T> x = random_matrix<T>(g, kN, 1);
    const Eigen::PartialPivLU<Mat<T>> lu(pa);
    CHECK((lu.permutationP().indices().array() != Eigen::ArrayXi::LinSpaced(kN, 0, kN - 1)).any());
    check_solve<T>(pa, x, "permuted A");
  }
}

TEST_CASE_TEMPLATE("Eigen norm, sum, maxCoeff", T, mp::bfloat16, mp::half) {
  Vec<T> v = Vec<T>::Zero(kN);
  v(0) = T(3);
  v(5) = T(-4);
  CHECK(static_cast<double>(v.norm()) == 5.0);
  CHECK(static_cast<double>(v.squaredNorm()) == 25.0);
  CHECK(static_cast<double>(v.sum()) == -1.0);
  CHECK(static_cast<double>(v.maxCoeff()) == 3.0);
  CHECK(static_cast<double>(v.minCoeff()) == -4.0);
  CHECK(static_cast<double>(v.cwiseAbs().maxCoeff()) == 4.0);
  CHECK(static_cast<double>(v.template lpNorm<1>()) == 7.0);

  splitmix g{21};
  for (int trial = 0; trial < 20; ++trial) {
    const Vec<T> w = random_matrix<T>(g, kN, 1);
    const T sq = w.squaredNorm();
    CHECK(w.norm().bits() == mp::sqrt(sq).bits());
    const Eigen::VectorXd wd = w.template cast<double>();
    const double exact = wd.squaredNorm();
    CHECK(std::fabs(static_cast<double>(sq) - exact) <= gamma_n<T>(kN) * exact);
    const Mat<T> m = random_matrix<T>(g, kN, kN);
    CHECK(m.norm().bits() == mp::sqrt(m.squaredNorm()).bits());
    CHECK(w.isApprox(w));
    CHECK(!w.isApprox(Vec<T>(w * T(2))));
    CHECK(w.isApprox(Vec<T>(w * (T(1) + mp::finfo<T>::eps))));
  }
}

TEST_CASE_TEMPLATE("Eigen Random, Identity, Constant", T, mp::bfloat16, mp::half) {
  std::srand(12345);
  const Mat<T> r = Mat<T>::Random(kN, kN);
  bool all_equal = true;
  for (Eigen::Index j = 0; j < r.cols(); ++j) {
    for (Eigen::Index i = 0; i < r.rows(); ++i) {
      CHECK(mp::isfinite(r(i, j)));
      CHECK(static_cast<double>(r(i, j)) >= -1.0);
      CHECK(static_cast<double>(r(i, j)) <= 1.0);
      all_equal = all_equal && r(i, j) == r(0, 0);
    }
  }
  CHECK(!all_equal);
  CHECK(r.allFinite());
  CHECK(!r.hasNaN());
  const Mat<T> id = Mat<T>::Identity(3, 3);
  CHECK(static_cast<double>(id.sum()) == 3.0);
  CHECK(static_cast<double>(Mat<T>::Constant(2, 3, T(1.5)).sum()) == 9.0);
  const Mat<T> prod = r * Mat<T>::Identity(kN, kN);
  for (Eigen::Index j = 0; j < r.cols(); ++j) {
    for (Eigen::Index i = 0; i < r.rows(); ++i) CHECK(prod(i, j).bits() == r(i, j).bits());
  }
  Mat<T> nan = r;
  nan(2, 3) = std::numeric_limits<T>::quiet_NaN();
  CHECK(nan.hasNaN());
  CHECK(!nan.allFinite());
}

TEST_CASE("Eigen cast: float <-> bfloat16, bfloat16 <-> half, double") {
  Eigen::MatrixXf f(3, 4);
  f << 1.0f, -2.5f, 0.1f, 3.14159265f,            //
      1.00390625f, 1.01171875f, 65536.0f, -0.0f,  // 1 + 2^-8: a tie (to even: 1); 1 + 3 * 2^-8: a tie (up)
      1e-40f, 3.4e38f, -7.0f, 1e-3f;
  const Mat<mp::bfloat16> fb = f.cast<mp::bfloat16>();
  for (Eigen::Index j = 0; j < f.cols(); ++j) {
    for (Eigen::Index i = 0; i < f.rows(); ++i) {
      CHECK(fb(i, j).bits() == mp::bfloat16(f(i, j)).bits());
      CHECK(fb(i, j).bits() == mp::round_to<mp::bfloat16>(f(i, j), mp::rounding::nearest_even).bits());
    }
  }
  CHECK(static_cast<double>(fb(1, 0)) == 1.0);
  CHECK(static_cast<double>(fb(1, 1)) == 1.015625);
  CHECK(std::signbit(static_cast<double>(fb(1, 3))));

  const Eigen::MatrixXf back = fb.cast<float>();
  for (Eigen::Index j = 0; j < f.cols(); ++j) {
    for (Eigen::Index i = 0; i < f.rows(); ++i) CHECK(back(i, j) == static_cast<float>(fb(i, j)));
  }
  // Values of bfloat16 survive float -> bfloat16 -> float.
  const Eigen::MatrixXf again = back.cast<mp::bfloat16>().cast<float>();
  CHECK((again.array() == back.array()).all());

  const Eigen::MatrixXd d = fb.cast<double>();
  CHECK(d(0, 1) == -2.5);
  const Mat<mp::half> h = fb.cast<mp::half>();
  CHECK(h(0, 1).bits() == mp::half(-2.5f).bits());
  CHECK(h(1, 2).bits() == std::numeric_limits<mp::half>::infinity().bits());  // 65536 overflows half
  const Mat<mp::bfloat16> hb = h.cast<mp::bfloat16>();
  CHECK(hb(0, 0).bits() == mp::bfloat16(1.0f).bits());
}

TEST_CASE("Eigen with FP8 matrices") {
  using T = mp::float8_e4m3fn;
  Eigen::Matrix<T, 2, 2> m;
  m << T(1), T(2), T(3), T(4);
  const Eigen::Matrix<T, 2, 2> sq = m * m;  // 7 10 / 15 22: exact in e4m3fn
  CHECK(static_cast<double>(sq(0, 0)) == 7.0);
  CHECK(static_cast<double>(sq(0, 1)) == 10.0);
  CHECK(static_cast<double>(sq(1, 0)) == 15.0);
  CHECK(static_cast<double>(sq(1, 1)) == 22.0);
  std::srand(7);
  const Eigen::Matrix<T, 4, 4> r = Eigen::Matrix<T, 4, 4>::Random();
  CHECK(r.allFinite());
  CHECK(static_cast<double>(r.cwiseAbs().maxCoeff()) <= 1.0);
  const Mat<mp::float8_e5m2> d = Mat<float>::Constant(3, 3, 2.0f).cast<mp::float8_e5m2>();
  const Mat<mp::float8_e5m2> dd = d * d;  // 2*2 + 2*2 + 2*2 = 12, exact
  CHECK(dd.template cast<double>().sum() == 108.0);
}

TEST_CASE("Eigen printing (operator<< from mixprec/io.hpp)") {
  Eigen::Matrix<mp::bfloat16, 2, 3> m;
  m << mp::bfloat16(1), mp::bfloat16(-2.5), mp::bfloat16(0.1), mp::bfloat16(300), mp::bfloat16(1e-3), mp::bfloat16(4);
  // Eigen's layout: every element right-aligned to the widest one, " " between columns, "\n"
  // between rows; each element as operator<< prints it alone.
  std::string text[2][3];
  std::size_t width = 0;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      std::ostringstream one;
      one << m(i, j);
      text[i][j] = one.str();
      width = std::max(width, text[i][j].size());
    }
  }
  std::string want;
  for (int i = 0; i < 2; ++i) {
    if (i > 0) want += "\n";
    for (int j = 0; j < 3; ++j) {
      if (j > 0) want += " ";
      want += std::string(width - text[i][j].size(), ' ') + text[i][j];
    }
  }
  std::ostringstream os;
  os << m;
  CHECK(os.str() == want);
  CHECK(text[0][1] == "-2.5");
  CHECK(text[1][0] == "300");
  // FullPrecision: Eigen sets the precision to NumTraits::digits10() (2 for bfloat16), which
  // operator<< follows as for double.
  std::string want_full;
  std::size_t width_full = 0;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      std::ostringstream one;
      one.precision(std::numeric_limits<mp::bfloat16>::digits10);
      one << m(i, j);
      text[i][j] = one.str();
      width_full = std::max(width_full, text[i][j].size());
    }
  }
  for (int i = 0; i < 2; ++i) {
    if (i > 0) want_full += "\n";
    for (int j = 0; j < 3; ++j) {
      if (j > 0) want_full += " ";
      want_full += std::string(width_full - text[i][j].size(), ' ') + text[i][j];
    }
  }
  CHECK(text[1][0] == "3e+02");  // std::cout << std::setprecision(2) << 300.0
  std::ostringstream full;
  full << Mat<mp::bfloat16>(m).format(Eigen::FullPrecision);
  CHECK(full.str() == want_full);
}

#else  // !MIXPREC_TEST_EIGEN

TEST_CASE("Eigen integration (skipped: Eigen's headers are not on the include path)" * doctest::skip()) {}

#endif  // MIXPREC_TEST_EIGEN
