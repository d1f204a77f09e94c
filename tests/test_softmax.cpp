// mixprec — softmax, log_softmax, their backward passes and cross-entropy
// (include/mixprec/kernels/softmax.hpp).
// SPDX-License-Identifier: MIT
//
// References: a straightforward long-double implementation of each formula (std::exp/std::log),
// compared within the error bound the float computation predicts; exact identities between the
// kernels (a half output is the float result rounded once, cross_entropy is the row-order mean of
// -log_softmax[target], cross_entropy_backward is (softmax - onehot) * grad_output / rows); the
// deterministic exp/log against the C library; policies (seq, par(1), par(2), par(3)) bit for
// bit; PyTorch's NaN/Inf behaviour; argument errors.
#include <mixprec/kernels/softmax.hpp>
#include <mixprec/mixprec.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using mixprec::bfloat16;
using mixprec::half;
namespace si = mixprec::detail::softmax_impl;
using ld = long double;

const float inf = std::numeric_limits<float>::infinity();
const float qnan = std::numeric_limits<float>::quiet_NaN();

template <class T>
std::uint64_t bits_of(T x) {
  return static_cast<std::uint64_t>(mixprec::float_traits<T>::to_bits(x));
}
template <class T>
bool same(T a, T b) {
  const double da = static_cast<double>(a), db = static_cast<double>(b);
  return bits_of(a) == bits_of(b) || (da != da && db != db);
}
template <class T>
bool all_same(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!same(a[i], b[i])) return false;
  }
  return true;
}

/// The distance in ulps between two finite doubles of the same sign.
std::int64_t ulps(double a, double b) {
  std::int64_t ia, ib;
  std::memcpy(&ia, &a, 8);
  std::memcpy(&ib, &b, 8);
  if (ia < 0) ia = std::numeric_limits<std::int64_t>::min() - ia;
  if (ib < 0) ib = std::numeric_limits<std::int64_t>::min() - ib;
  return ia > ib ? ia - ib : ib - ia;
}

template <class T>
std::vector<T> logits(std::size_t n, std::uint32_t seed, double scale) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> d(0.0, scale);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(mixprec::round_to<T>(d(gen)));
  return v;
}

std::vector<std::int32_t> targets_for(std::size_t rows, std::size_t cols, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<std::int32_t> t(rows);
  for (auto& x : t) x = static_cast<std::int32_t>(gen() % cols);
  return t;
}

// ---- long-double references ------------------------------------------------------------------

template <class T>
void ref_row(const T* x, std::size_t cols, std::vector<ld>& p, std::vector<ld>& logp) {
  ld m = static_cast<ld>(static_cast<double>(x[0]));
  for (std::size_t j = 1; j < cols; ++j) m = std::max(m, static_cast<ld>(static_cast<double>(x[j])));
  ld s = 0;
  for (std::size_t j = 0; j < cols; ++j) s += std::exp(static_cast<ld>(static_cast<double>(x[j])) - m);
  p.resize(cols);
  logp.resize(cols);
  for (std::size_t j = 0; j < cols; ++j) {
    const ld d = static_cast<ld>(static_cast<double>(x[j])) - m;
    p[j] = std::exp(d) / s;
    logp[j] = d - std::log(s);
  }
}

const ld u24 = std::ldexp(1.0L, -24);
const ld u53 = std::ldexp(1.0L, -53);

template <class T, class U>
void check_forward_against_reference(std::size_t rows, std::size_t cols, std::uint32_t seed, double scale) {
  CAPTURE(rows);
  CAPTURE(cols);
  const std::vector<T> x = logits<T>(rows * cols, seed, scale);
  std::vector<U> y(rows * cols), ly(rows * cols);
  mixprec::softmax(mixprec::exec::seq, x.data(), y.data(), rows, cols);
  mixprec::log_softmax(mixprec::exec::seq, x.data(), ly.data(), rows, cols);
  const bool dbl = std::is_same<T, double>::value;
  const ld u = dbl ? u53 : u24;
  // Absolute slack: the output type's smallest subnormal (results below it may flush to 0).
  const ld tiny = std::is_same<U, double>::value ? std::ldexp(1.0L, -1074) : std::ldexp(1.0L, -149);
  std::vector<ld> p, logp;
  std::size_t bad = 0;
  ld worst = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    ref_row(x.data() + r * cols, cols, p, logp);
    for (std::size_t j = 0; j < cols; ++j) {
      const ld got = static_cast<ld>(static_cast<double>(y[r * cols + j]));
      const ld tol = p[j] * (static_cast<ld>(cols) + 5) * u + tiny;
      const ld err = std::fabs(got - p[j]);
      if (p[j] > 1e-30L) worst = std::max(worst, err / (p[j] * u));
      bad += err <= tol ? 0 : 1;
      const ld lgot = static_cast<ld>(static_cast<double>(ly[r * cols + j]));
      const ld ltol = std::fabs(logp[j]) * 2 * u + (static_cast<ld>(cols) + 5) * u;
      bad += std::fabs(lgot - logp[j]) <= ltol ? 0 : 1;
    }
  }
  INFO("worst softmax error " << static_cast<double>(worst) << " units of 2^-" << (dbl ? 53 : 24));
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("softmax: deterministic exp and log against the C library") {
  std::mt19937_64 gen(1);
  std::uniform_real_distribution<double> big(-745.0, 709.7), small(-2.0, 2.0);
  std::int64_t worst_exp = 0, worst_log = 0;
  std::size_t float_mismatch = 0;
  for (int i = 0; i < 200000; ++i) {
    const double x = (i % 2 == 0) ? big(gen) : small(gen);
    const double e = si::exp_det(x), ref = std::exp(x);
    if (ref >= std::numeric_limits<double>::min()) worst_exp = std::max(worst_exp, ulps(e, ref));
    // As used by the float kernels: exp of a float difference, rounded to float.
    const double d = static_cast<double>(static_cast<float>(x / 8));
    float_mismatch += static_cast<float>(si::exp_det(d)) == static_cast<float>(std::exp(d)) ? 0 : 1;
    const double y = std::ldexp(0.5 + std::fabs(small(gen)) / 2.0, static_cast<int>(gen() % 2000) - 1000);
    worst_log = std::max(worst_log, ulps(si::log_det(y), std::log(y)));
  }
  MESSAGE("exp_det: worst " << worst_exp << " ulp; log_det: worst " << worst_log << " ulp; float exp: "
                            << float_mismatch << " of 200000 differ from the C library");
  CHECK(worst_exp <= 1);
  CHECK(worst_log <= 1);
  CHECK(float_mismatch <= 2);
  // Near 1 (log's cancellation) and on the subnormal range.
  for (double y : {1.0, 1.0 + 0x1p-52, 1.0 - 0x1p-53, 0.75, 1.4142135623730951, 1.4142135623730954, 2.0, 0.5,
                   4.9e-324, 1e-310, 1.7976931348623157e308}) {
    CAPTURE(y);
    CHECK(ulps(si::log_det(y), std::log(y)) <= 1);
  }
  for (double x : {-745.1, -744.0, -708.5, -1e-300, 0.0, 1e-10, 709.78}) {
    CAPTURE(x);
    CHECK(ulps(si::exp_det(x), std::exp(x)) <= 1);
  }
  CHECK(si::exp_det(0.0) == 1.0);
  CHECK(si::log_det(1.0) == 0.0);
  CHECK(si::exp_det(-std::numeric_limits<double>::infinity()) == 0.0);
  CHECK(si::exp_det(-746.0) == 0.0);
  CHECK(std::isinf(si::exp_det(710.0)));
  CHECK(std::isnan(si::exp_det(std::nan(""))));
  CHECK(si::log_det(0.0) == -std::numeric_limits<double>::infinity());
  CHECK(std::isnan(si::log_det(-1.0)));
  CHECK(std::isinf(si::log_det(std::numeric_limits<double>::infinity())));
  CHECK(std::isnan(si::log_det(std::nan(""))));
}

TEST_CASE("softmax, log_softmax: against a long-double reference") {
  check_forward_against_reference<float, float>(1, 1, 1, 1.0);
  check_forward_against_reference<float, float>(3, 7, 2, 3.0);
  check_forward_against_reference<float, float>(17, 33, 3, 10.0);
  check_forward_against_reference<float, float>(4, 1001, 4, 2.0);
  check_forward_against_reference<float, float>(2, 40000, 5, 1.0);
  check_forward_against_reference<float, float>(9, 5, 6, 60.0);  // gaps far beyond float's exp range
  check_forward_against_reference<half, float>(5, 129, 7, 4.0);
  check_forward_against_reference<bfloat16, double>(5, 64, 8, 4.0);
  check_forward_against_reference<double, double>(6, 333, 9, 5.0);
}

TEST_CASE("softmax: a low-precision output is the float result rounded once") {
  const std::size_t rows = 13, cols = 77;
  const std::vector<float> x = logits<float>(rows * cols, 11, 3.0);
  std::vector<float> y(rows * cols), ly(rows * cols);
  std::vector<half> yh(rows * cols), lyh(rows * cols);
  std::vector<bfloat16> yb(rows * cols);
  mixprec::softmax(mixprec::exec::seq, x.data(), y.data(), rows, cols);
  mixprec::softmax(mixprec::exec::seq, x.data(), yh.data(), rows, cols);
  mixprec::softmax(mixprec::exec::seq, x.data(), yb.data(), rows, cols);
  mixprec::log_softmax(mixprec::exec::seq, x.data(), ly.data(), rows, cols);
  mixprec::log_softmax(mixprec::exec::seq, x.data(), lyh.data(), rows, cols);
  for (std::size_t i = 0; i < rows * cols; ++i) {
    REQUIRE(bits_of(yh[i]) == bits_of(half(y[i])));
    REQUIRE(bits_of(yb[i]) == bits_of(bfloat16(y[i])));
    REQUIRE(bits_of(lyh[i]) == bits_of(half(ly[i])));
  }
  // In place (same array, same type) equals out of place.
  std::vector<float> z = x;
  mixprec::softmax(mixprec::exec::seq, z.data(), z.data(), rows, cols);
  CHECK(all_same(z, y));
  z = x;
  mixprec::log_softmax(mixprec::exec::par(2), z.data(), z.data(), rows, cols);
  CHECK(all_same(z, ly));
}

TEST_CASE("softmax backward passes: against a long-double reference") {
  for (std::size_t cols : {std::size_t{1}, std::size_t{7}, std::size_t{100}, std::size_t{1025}}) {
    CAPTURE(cols);
    const std::size_t rows = 5;
    const std::vector<float> x = logits<float>(rows * cols, 20, 2.0);
    const std::vector<float> dy = logits<float>(rows * cols, 21, 1.0);
    std::vector<float> y(rows * cols), ly(rows * cols), dx(rows * cols), ldx(rows * cols);
    mixprec::softmax(mixprec::exec::seq, x.data(), y.data(), rows, cols);
    mixprec::log_softmax(mixprec::exec::seq, x.data(), ly.data(), rows, cols);
    mixprec::softmax_backward(mixprec::exec::seq, y.data(), dy.data(), dx.data(), rows, cols);
    mixprec::log_softmax_backward(mixprec::exec::seq, ly.data(), dy.data(), ldx.data(), rows, cols);
    std::size_t bad = 0;
    for (std::size_t r = 0; r < rows; ++r) {
      ld dot = 0, sdy = 0, sabs = 0, sabs2 = 0;
      for (std::size_t j = 0; j < cols; ++j) {
        const std::size_t i = r * cols + j;
        dot += static_cast<ld>(dy[i]) * static_cast<ld>(y[i]);
        sabs += std::fabs(static_cast<ld>(dy[i]) * static_cast<ld>(y[i]));
        sdy += static_cast<ld>(dy[i]);
        sabs2 += std::fabs(static_cast<ld>(dy[i]));
      }
      for (std::size_t j = 0; j < cols; ++j) {
        const std::size_t i = r * cols + j;
        const ld ref = static_cast<ld>(y[i]) * (static_cast<ld>(dy[i]) - dot);
        // Error of the fused dot product (cols roundings) and of the two final operations.
        const ld tol = static_cast<ld>(y[i]) * (sabs * (static_cast<ld>(cols) + 1) * u24 +
                                                (std::fabs(static_cast<ld>(dy[i])) + std::fabs(dot)) * 2 * u24);
        bad += std::fabs(static_cast<ld>(dx[i]) - ref) <= tol ? 0 : 1;
        const ld ey = std::exp(static_cast<ld>(ly[i]));
        const ld lref = static_cast<ld>(dy[i]) - ey * sdy;
        const ld ltol = ey * sabs2 * (static_cast<ld>(cols) + 2) * u24 + std::fabs(lref) * u24;
        bad += std::fabs(static_cast<ld>(ldx[i]) - lref) <= ltol ? 0 : 1;
      }
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("cross_entropy: value and gradient") {
  for (std::size_t cols : {std::size_t{1}, std::size_t{2}, std::size_t{9}, std::size_t{1000}}) {
    for (std::size_t rows : {std::size_t{1}, std::size_t{3}, std::size_t{257}}) {
      CAPTURE(rows);
      CAPTURE(cols);
      const std::vector<float> x = logits<float>(rows * cols, 30, 4.0);
      const std::vector<std::int32_t> t = targets_for(rows, cols, 31);
      const float loss = mixprec::cross_entropy(mixprec::exec::seq, x.data(), t.data(), rows, cols);
      static_assert(std::is_same<decltype(loss), const float>::value, "float logits give a float loss");
      // Exactly the row-order mean of -log_softmax[target] (as documented).
      std::vector<float> ly(rows * cols);
      mixprec::log_softmax(mixprec::exec::seq, x.data(), ly.data(), rows, cols);
      double total = 0;
      for (std::size_t r = 0; r < rows; ++r) total += -static_cast<double>(ly[r * cols + static_cast<std::size_t>(t[r])]);
      CHECK(loss == static_cast<float>(total / static_cast<double>(rows)));
      // Against long double.
      std::vector<ld> p, logp;
      ld ref = 0;
      for (std::size_t r = 0; r < rows; ++r) {
        ref_row(x.data() + r * cols, cols, p, logp);
        ref -= logp[static_cast<std::size_t>(t[r])];
      }
      ref /= static_cast<ld>(rows);
      CHECK(std::fabs(static_cast<ld>(loss) - ref) <= (std::fabs(ref) * 2 + static_cast<ld>(cols) + 3) * u24);
      // The gradient: (softmax - onehot) * grad_output / rows, each step in float.
      const float go = 0.75f;
      std::vector<float> d(rows * cols), y(rows * cols);
      mixprec::cross_entropy_backward(mixprec::exec::seq, x.data(), t.data(), rows, cols, d.data(), go);
      mixprec::softmax(mixprec::exec::seq, x.data(), y.data(), rows, cols);
      const float c = static_cast<float>(0.75 / static_cast<double>(rows));
      std::size_t bad = 0;
      for (std::size_t r = 0; r < rows; ++r) {
        ref_row(x.data() + r * cols, cols, p, logp);
        for (std::size_t j = 0; j < cols; ++j) {
          const std::size_t i = r * cols + j;
          const bool hot = j == static_cast<std::size_t>(t[r]);
          bad += d[i] == (hot ? y[i] - 1.0f : y[i]) * c ? 0 : 1;
          const ld lref = (p[j] - (hot ? 1 : 0)) * 0.75L / static_cast<ld>(rows);
          bad += std::fabs(static_cast<ld>(d[i]) - lref) <= (p[j] * (static_cast<ld>(cols) + 5) + 2) * u24 * c ? 0 : 1;
        }
      }
      CHECK(bad == 0);
    }
  }
  // double logits: a double loss.
  const std::vector<double> xd = logits<double>(40, 32, 3.0);
  const std::vector<std::int32_t> td = targets_for(8, 5, 33);
  const double ld_loss = mixprec::cross_entropy(mixprec::exec::par(2), xd.data(), td.data(), 8, 5);
  std::vector<ld> p, logp;
  ld ref = 0;
  for (std::size_t r = 0; r < 8; ++r) {
    ref_row(xd.data() + r * 5, 5, p, logp);
    ref -= logp[static_cast<std::size_t>(td[r])];
  }
  CHECK(std::fabs(static_cast<ld>(ld_loss) - ref / 8) <= 20 * u53 * std::fabs(ref / 8));
}

TEST_CASE("softmax kernels: policies and thread counts agree bit for bit") {
  struct shape {
    std::size_t rows, cols;
  };
  for (shape s : {shape{5000, 7}, shape{3, 20000}, shape{41, 1500}}) {
    CAPTURE(s.rows);
    CAPTURE(s.cols);
    const std::size_t n = s.rows * s.cols;
    const std::vector<float> x = logits<float>(n, 40, 5.0);
    const std::vector<half> dy = logits<half>(n, 41, 1.0);
    const std::vector<std::int32_t> t = targets_for(s.rows, s.cols, 42);
    auto run = [&](auto pol, std::vector<half>& y, std::vector<float>& ly, std::vector<float>& dx,
                   std::vector<bfloat16>& ldx, std::vector<half>& dl, float& loss) {
      y.resize(n);
      ly.resize(n);
      dx.resize(n);
      ldx.resize(n);
      dl.resize(n);
      mixprec::softmax(pol, x.data(), y.data(), s.rows, s.cols);
      mixprec::log_softmax(pol, x.data(), ly.data(), s.rows, s.cols);
      mixprec::softmax_backward(pol, y.data(), dy.data(), dx.data(), s.rows, s.cols);
      mixprec::log_softmax_backward(pol, ly.data(), dy.data(), ldx.data(), s.rows, s.cols);
      mixprec::cross_entropy_backward(pol, x.data(), t.data(), s.rows, s.cols, dl.data(), 2.0f);
      loss = mixprec::cross_entropy(pol, x.data(), t.data(), s.rows, s.cols);
    };
    std::vector<half> y0, dl0;
    std::vector<float> ly0, dx0;
    std::vector<bfloat16> ldx0;
    float loss0 = 0;
    run(mixprec::exec::seq, y0, ly0, dx0, ldx0, dl0, loss0);
    for (unsigned threads : {1u, 2u, 3u}) {
      CAPTURE(threads);
      std::vector<half> y, dl;
      std::vector<float> ly, dx;
      std::vector<bfloat16> ldx;
      float loss = 0;
      run(mixprec::exec::par(threads), y, ly, dx, ldx, dl, loss);
      CHECK(all_same(y, y0));
      CHECK(all_same(ly, ly0));
      CHECK(all_same(dx, dx0));
      CHECK(all_same(ldx, ldx0));
      CHECK(all_same(dl, dl0));
      CHECK(bits_of(loss) == bits_of(loss0));
    }
  }
}

TEST_CASE("softmax kernels: NaN and infinity as PyTorch") {
  // Rows: a NaN; a +inf; -inf entries; all -inf; ordinary.
  const std::vector<float> x{1.0f, qnan, 2.0f,    //
                             1.0f, inf, 2.0f,     //
                             0.0f, -inf, 1.0f,    //
                             -inf, -inf, -inf,    //
                             0.0f, 0.0f, 0.0f};
  std::vector<float> y(15), ly(15);
  mixprec::softmax(mixprec::exec::seq, x.data(), y.data(), 5, 3);
  mixprec::log_softmax(mixprec::exec::seq, x.data(), ly.data(), 5, 3);
  for (std::size_t j = 0; j < 3; ++j) {
    CHECK(std::isnan(y[j]));
    CHECK(std::isnan(ly[j]));
    CHECK(std::isnan(y[3 + j]));
    CHECK(std::isnan(ly[3 + j]));
    CHECK(std::isnan(y[9 + j]));
    CHECK(std::isnan(ly[9 + j]));
  }
  // torch.softmax([0, -inf, 1]) = [0.2689, 0, 0.7311]; log_softmax = [-1.3133, -inf, -0.3133].
  CHECK(y[6] == doctest::Approx(0.26894142).epsilon(1e-7));
  CHECK(y[7] == 0.0f);
  CHECK(y[8] == doctest::Approx(0.73105858).epsilon(1e-7));
  CHECK(ly[6] == doctest::Approx(-1.31326169).epsilon(1e-7));
  CHECK(ly[7] == -inf);
  CHECK(ly[8] == doctest::Approx(-0.31326169).epsilon(1e-7));
  CHECK(y[12] == static_cast<float>(1.0 / 3.0));
  // cross_entropy: a -inf target logit gives +inf; a NaN row gives NaN.
  const std::vector<std::int32_t> t1{1};
  CHECK(mixprec::cross_entropy(mixprec::exec::seq, x.data() + 6, t1.data(), 1, 3) == inf);
  const std::vector<std::int32_t> t5{0, 0, 0, 0, 0};
  CHECK(std::isnan(mixprec::cross_entropy(mixprec::exec::seq, x.data(), t5.data(), 5, 3)));
  // Backward passes propagate NaN from dy.
  const std::vector<float> yy{0.25f, 0.75f}, dyy{1.0f, qnan};
  std::vector<float> dx(2);
  mixprec::softmax_backward(mixprec::exec::seq, yy.data(), dyy.data(), dx.data(), 1, 2);
  CHECK(std::isnan(dx[0]));
  CHECK(std::isnan(dx[1]));
}

TEST_CASE("softmax kernels: awkward sizes") {
  std::vector<float> sentinel(8, 42.0f), y = sentinel;
  const std::vector<float> x(8, 1.0f);
  // rows == 0 or cols == 0: nothing written.
  mixprec::softmax(mixprec::exec::seq, x.data(), y.data(), 0, 5);
  mixprec::log_softmax(mixprec::exec::par(2), x.data(), y.data(), 4, 0);
  mixprec::softmax_backward(mixprec::exec::seq, x.data(), x.data(), y.data(), 0, 3);
  mixprec::log_softmax_backward(mixprec::exec::seq, x.data(), x.data(), y.data(), 0, 3);
  mixprec::cross_entropy_backward(mixprec::exec::seq, x.data(), static_cast<const std::int32_t*>(nullptr), 0, 3,
                                  y.data());
  CHECK(y == sentinel);
  CHECK(std::isnan(mixprec::cross_entropy(mixprec::exec::seq, x.data(), static_cast<const std::int32_t*>(nullptr),
                                          0, 3)));
  // Null pointers are fine when there is nothing to do.
  mixprec::softmax(mixprec::exec::seq, static_cast<const float*>(nullptr), static_cast<float*>(nullptr), 0, 0);
  // One element: softmax 1, log_softmax 0, loss 0.
  mixprec::softmax(mixprec::exec::seq, x.data(), y.data(), 1, 1);
  CHECK(y[0] == 1.0f);
  mixprec::log_softmax(mixprec::exec::seq, x.data(), y.data(), 1, 1);
  CHECK(y[0] == 0.0f);
  const std::int32_t t0 = 0;
  CHECK(mixprec::cross_entropy(mixprec::exec::seq, x.data(), &t0, 1, 1) == 0.0f);
  // Equal logits in an odd-sized row: exactly uniform.
  mixprec::softmax(mixprec::exec::seq, x.data(), y.data(), 1, 7);
  for (std::size_t j = 0; j < 7; ++j) CHECK(y[j] == static_cast<float>(1.0 / 7.0));
}

TEST_CASE("softmax kernels: bad arguments throw and write nothing") {
  const std::vector<float> x = logits<float>(12, 50, 1.0);
  std::vector<float> d(12, 7.0f);
  const std::vector<float> d0 = d;
  const std::vector<std::int32_t> bad_high{0, 1, 4, 2};  // row 2 holds 4 >= cols
  const std::vector<std::int32_t> bad_neg{0, -1, 0, 0};
  try {
    (void)mixprec::cross_entropy(mixprec::exec::seq, x.data(), bad_high.data(), 4, 3);
    FAIL("no exception");
  } catch (const std::out_of_range& e) {
    const std::string what = e.what();
    CHECK(what.find("row 2") != std::string::npos);
    CHECK(what.find("target 4") != std::string::npos);
  }
  CHECK_THROWS_AS(
      mixprec::cross_entropy_backward(mixprec::exec::par(2), x.data(), bad_neg.data(), 4, 3, d.data()),
      std::out_of_range);
  CHECK_THROWS_AS(mixprec::cross_entropy_backward(mixprec::exec::seq, x.data(), bad_high.data(), 4, 3, d.data()),
                  std::out_of_range);
  CHECK(d == d0);
  // cols == 0 with rows: every target is outside [0, 0).
  const std::int32_t t0 = 0;
  CHECK_THROWS_AS((void)mixprec::cross_entropy(mixprec::exec::seq, x.data(), &t0, 1, 0), std::out_of_range);
  // rows * cols overflow, null pointers.
  const std::size_t huge = std::numeric_limits<std::size_t>::max() / 2;
  CHECK_THROWS_AS(mixprec::softmax(mixprec::exec::seq, x.data(), d.data(), huge, 3), std::invalid_argument);
  CHECK_THROWS_AS(mixprec::softmax(mixprec::exec::seq, static_cast<const float*>(nullptr), d.data(), 2, 3),
                  std::invalid_argument);
  CHECK_THROWS_AS(mixprec::cross_entropy_backward(mixprec::exec::seq, x.data(), static_cast<const std::int32_t*>(nullptr),
                                                  2, 3, d.data()),
                  std::invalid_argument);
  CHECK(d == d0);
}
