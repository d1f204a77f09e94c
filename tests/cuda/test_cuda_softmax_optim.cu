// mixprec — softmax / cross-entropy and optimizer kernels: exec::cuda gives the same bits as
// exec::seq on the host.
// SPDX-License-Identifier: MIT
//
// A standalone CUDA program (no doctest). Inputs are prepared on the host; each kernel runs with
// exec::seq on host copies and with exec::cuda on managed copies, and the results are compared
// bit for bit (NaN payloads excepted): softmax, log_softmax, both backward passes,
// cross_entropy (value) and its gradient; adam_step / adamw_step / sgd_step on float master
// weights with a half model copy and on half / bfloat16 parameters, nearest-even and stochastic
// rounding.
//
// Without a CUDA device it prints "SKIPPED: no CUDA device" and
// "test_cuda_softmax_optim: 0 passed, 0 failed, 1 skipped" and exits 0. With one it prints
// "test_cuda_softmax_optim: N passed, M failed" and exits 1 when M > 0.
#include <mixprec/kernels/optim.hpp>
#include <mixprec/kernels/softmax.hpp>
#include <mixprec/mixprec.hpp>

#include <cuda_runtime.h>

#include "harness.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace mp = mixprec;

namespace {

using cuda_harness::bits_of;
using cuda_harness::managed;
using cuda_harness::report;
using cuda_harness::sync;

template <class T>
bool same(const std::vector<T>& a, const std::vector<T>& b) {
  return cuda_harness::same(a, b, true);  // any two NaNs count as equal
}

template <class T>
std::vector<T> values(std::size_t n, std::uint32_t seed, double lo_exp, double hi_exp, double specials = 0.0) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> e(lo_exp, hi_exp), u(0.0, 1.0);
  std::vector<T> v(n);
  for (auto& x : v) {
    double d = std::pow(10.0, e(g)) * (u(g) < 0.5 ? -1.0 : 1.0);
    const double r = u(g);
    if (r < specials / 3) d = 0.0;
    else if (r < specials * 2 / 3) d = -INFINITY;
    x = mp::round_to<T>(d);
  }
  return v;
}

void check_softmax() {
  const std::size_t rows = 300, cols = 131;
  const std::size_t n = rows * cols;
  std::vector<float> x = values<float>(n, 1, -2, 1.5, 0.02);
  x[5 * cols + 3] = NAN;       // a NaN row
  x[7 * cols + 9] = INFINITY;  // a +inf row
  std::vector<mp::half> dy = values<mp::half>(n, 2, -3, 0.5);
  std::vector<std::int32_t> t(rows);
  for (std::size_t r = 0; r < rows; ++r) t[r] = static_cast<std::int32_t>((r * 37) % cols);
  managed<float> dx_in(x);
  managed<mp::half> ddy(dy);
  managed<std::int32_t> dt(t);

  std::vector<mp::half> y(n);
  std::vector<float> ly(n), g1(n);
  std::vector<mp::bfloat16> g2(n);
  std::vector<float> dl(n);
  mp::softmax(mp::exec::seq, x.data(), y.data(), rows, cols);
  mp::log_softmax(mp::exec::seq, x.data(), ly.data(), rows, cols);
  mp::softmax_backward(mp::exec::seq, y.data(), dy.data(), g1.data(), rows, cols);
  mp::log_softmax_backward(mp::exec::seq, ly.data(), dy.data(), g2.data(), rows, cols);
  mp::cross_entropy_backward(mp::exec::seq, x.data(), t.data(), rows, cols, dl.data(), 0.5f);
  std::vector<float> xf = x;  // finite rows only for the loss
  xf[5 * cols + 3] = 0.0f;
  xf[7 * cols + 9] = 0.0f;
  managed<float> dxf(xf);
  const float loss = mp::cross_entropy(mp::exec::seq, xf.data(), t.data(), rows, cols);

  managed<mp::half> d_y(n);
  managed<float> d_ly(n), d_g1(n), d_dl(n);
  managed<mp::bfloat16> d_g2(n);
  mp::softmax(mp::exec::cuda, dx_in.p, d_y.p, rows, cols);
  mp::log_softmax(mp::exec::cuda, dx_in.p, d_ly.p, rows, cols);
  sync();
  mp::softmax_backward(mp::exec::cuda, d_y.p, ddy.p, d_g1.p, rows, cols);
  mp::log_softmax_backward(mp::exec::cuda, d_ly.p, ddy.p, d_g2.p, rows, cols);
  mp::cross_entropy_backward(mp::exec::cuda, dx_in.p, dt.p, rows, cols, d_dl.p, 0.5f);
  const float d_loss = mp::cross_entropy(mp::exec::cuda, dxf.p, dt.p, rows, cols);
  sync();
  report("softmax float -> half", same(y, d_y.vec()));
  report("log_softmax float -> float", same(ly, d_ly.vec()));
  report("softmax_backward", same(g1, d_g1.vec()));
  report("log_softmax_backward -> bfloat16", same(g2, d_g2.vec()));
  report("cross_entropy_backward", same(dl, d_dl.vec()));
  report("cross_entropy", bits_of(loss) == bits_of(d_loss));

  std::vector<double> xd(n);
  for (std::size_t i = 0; i < n; ++i) xd[i] = static_cast<double>(xf[i]) * 1.25;
  managed<double> dxd(xd);
  std::vector<double> yd(n);
  managed<double> d_yd(n);
  mp::log_softmax(mp::exec::seq, xd.data(), yd.data(), rows, cols);
  mp::log_softmax(mp::exec::cuda, dxd.p, d_yd.p, rows, cols);
  sync();
  report("log_softmax double", same(yd, d_yd.vec()));
  report("cross_entropy double", bits_of(mp::cross_entropy(mp::exec::seq, xd.data(), t.data(), rows, cols)) ==
                                     bits_of(mp::cross_entropy(mp::exec::cuda, dxd.p, dt.p, rows, cols)));
}

template <class W, class G, class S, class M>
void check_adam(const char* what, bool decoupled, const mp::update_rounding& ur) {
  const std::size_t n = 50001;
  std::vector<W> p = values<W>(n, 10, -2, 0.5);
  std::vector<S> m(n), v(n);
  std::vector<M> copy(n);
  managed<W> dp(p);
  managed<S> dm(m), dv(v);
  managed<M> dc(copy);
  mp::adam_options o;
  o.weight_decay = 0.01f;
  for (std::int64_t step = 1; step <= 3; ++step) {
    const std::vector<G> g = values<G>(n, 20 + static_cast<std::uint32_t>(step), -9, 1, 0.01);
    managed<G> dg(g);
    mp::update_rounding r = ur;
    r.offset += static_cast<std::uint64_t>(step) * n;
    if (decoupled) {
      mp::adamw_step(mp::exec::seq, mp::span<W>(p), mp::span<const G>(g), mp::span<S>(m), mp::span<S>(v), step, o, r,
                     mp::span<M>(copy));
      mp::adamw_step(mp::exec::cuda, dp.span(), mp::span<const G>(dg.p, n), dm.span(), dv.span(), step, o, r,
                     dc.span());
    } else {
      mp::adam_step(mp::exec::seq, mp::span<W>(p), mp::span<const G>(g), mp::span<S>(m), mp::span<S>(v), step, o, r,
                    mp::span<M>(copy));
      mp::adam_step(mp::exec::cuda, dp.span(), mp::span<const G>(dg.p, n), dm.span(), dv.span(), step, o, r,
                    dc.span());
    }
    sync();
  }
  report(what, same(p, dp.vec()) && same(m, dm.vec()) && same(v, dv.vec()) && same(copy, dc.vec()));
}

template <class W, class G, class S, class M>
void check_sgd(const char* what, const mp::sgd_options& o, const mp::update_rounding& ur) {
  const std::size_t n = 50001;
  std::vector<W> p = values<W>(n, 30, -2, 0.5);
  std::vector<S> b(n);
  std::vector<M> copy(n);
  managed<W> dp(p);
  managed<S> db(b);
  managed<M> dc(copy);
  for (std::int64_t step = 1; step <= 3; ++step) {
    const std::vector<G> g = values<G>(n, 40 + static_cast<std::uint32_t>(step), -6, 1);
    managed<G> dg(g);
    mp::sgd_step(mp::exec::seq, mp::span<W>(p), mp::span<const G>(g), mp::span<S>(b), step, o, ur,
                 mp::span<M>(copy));
    mp::sgd_step(mp::exec::cuda, dp.span(), mp::span<const G>(dg.p, n), db.span(), step, o, ur, dc.span());
    sync();
  }
  report(what, same(p, dp.vec()) && same(b, db.vec()) && same(copy, dc.vec()));
}

void run_all() {
  check_softmax();
  const mp::update_rounding rne{};
  const mp::update_rounding sr{mp::rounding::stochastic, 99, 3};
  check_adam<float, float, float, mp::half>("adam float master, half copy", false, rne);
  check_adam<mp::half, mp::half, mp::half, mp::half>("adam half (regular, eps underflow)", false, rne);
  check_adam<mp::bfloat16, mp::bfloat16, mp::bfloat16, float>("adamw bfloat16, stochastic", true, sr);
  check_adam<float, float, float, mp::bfloat16>("adamw float master, bfloat16 copy", true, rne);
  mp::sgd_options o;
  o.momentum = 0.9f;
  o.weight_decay = 1e-3f;
  check_sgd<float, float, float, mp::half>("sgd momentum float master", o, rne);
  o.nesterov = true;
  check_sgd<mp::half, mp::half, mp::half, mp::half>("sgd nesterov half, stochastic", o, sr);
}

}  // namespace

int main() { return cuda_harness::run("test_cuda_softmax_optim", run_all); }
