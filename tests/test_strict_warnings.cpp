// SPDX-License-Identifier: MIT
// Every public header in one user translation unit, compiled (tests/CMakeLists.txt,
// tests/meson.build) with -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow
// -Wdouble-promotion -Wfloat-equal -Wold-style-cast -Werror and mixprec on -I (not -isystem):
// the headers, and the templates instantiated below, must not warn in user code. The checks
// assert a few real values so that the instantiations are used.
#include <mixprec/amp.hpp>
#include <mixprec/float.hpp>
#include <mixprec/kernels.hpp>
#include <mixprec/mixprec.hpp>
#include <mixprec/std_format.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

using mixprec::bfloat16;
using mixprec::half;
using mixprec::span;

namespace {

struct toy_optimizer {
  std::vector<float> g32{1.0f, 2.0f};
  std::vector<half> g16{half(4.0f)};
  std::vector<bfloat16> gbf{bfloat16(8.0f)};
  std::vector<double> g64{16.0};
  int steps = 0;
  std::vector<mixprec::gradient_ref> gradients() { return {g32, g16, gbf, g64}; }
  void step() { ++steps; }
};

}  // namespace

TEST_CASE("drop-in conversions and mixed operators") {
  half h = 1;
  CHECK(h == 1.0f);
  CHECK(h != 2.0);
  CHECK(h == 1);
  CHECK(h < 3);
  CHECK(1 <= h);
  CHECK(h >= 0.5f);
  const float f = h;
  const double d = h * 2.0;
  h += 2.5;
  h *= 2;
  h -= 1u;
  h /= 2.0f;
  CHECK(f > 0.0f);
  CHECK(d > 1.0);
  CHECK(static_cast<int>(h) == 3);  // (1 + 2.5) * 2 - 1 = 6, / 2 = 3
  CHECK(mixprec::round_to_integral(half(2.5f), mixprec::rounding::nearest_even).bits() == 0x4000);
  CHECK(mixprec::to_integer<long>(half(-2.5f), mixprec::rounding::downward) == -3L);
  if (h) CHECK(static_cast<bool>(h));
}

TEST_CASE("core: arithmetic, math, text") {
  const half a(1.5f);
  const half b(2.25f);
  CHECK((a + b).bits() == 0x4380);
  CHECK(mixprec::sqrt(half(4.0f)).bits() == 0x4000);
  CHECK(mixprec::fma(a, b, a).bits() == mixprec::round_to<half>(1.5 * 2.25 + 1.5).bits());
  CHECK(mixprec::isnan(std::numeric_limits<half>::quiet_NaN()));
  CHECK(mixprec::nextafter(half(1.0f), half(2.0f)).bits() == 0x3c01);
  std::ostringstream os;
  os << bfloat16(0.5f);
  CHECK(os.str() == "0.5");
  half parsed;
  std::istringstream is("0.25");
  is >> parsed;
  CHECK(parsed.bits() == 0x3400);
  CHECK(mixprec::explain(half(1.0f)).kind == "normal");
  CHECK(mixprec::explain<half>(0.1, mixprec::rounding::nearest_even).ulp_error == doctest::Approx(-0.4).epsilon(0.01));
}

TEST_CASE("kernels: convert, reduce, softmax, optimizers, gemm, unscale") {
  std::vector<float> f{1.0f, -3.0f, 0.5f, 2.0f};
  std::vector<half> h(f.size());
  mixprec::convert(mixprec::exec::seq, f, h);
  CHECK(h[1].bits() == 0xc200);
  CHECK(static_cast<double>(mixprec::amax(mixprec::exec::par(2), span<const half>(h))) == doctest::Approx(3.0));
  CHECK(static_cast<double>(mixprec::sum(mixprec::exec::seq, span<const half>(h))) == doctest::Approx(0.5));
  CHECK(static_cast<double>(mixprec::dot(mixprec::exec::seq, span<const half>(h), span<const float>(f))) ==
        doctest::Approx(14.25));
  mixprec::axpy(mixprec::exec::seq, 2.0, span<const float>(f), span<float>(f));
  mixprec::scale(mixprec::exec::seq, 0.5, span<float>(f));
  CHECK(f[0] >= 1.5f);
  CHECK(f[0] <= 1.5f);

  std::vector<half> y(h.size());
  mixprec::softmax(mixprec::exec::seq, h.data(), y.data(), 1, h.size());
  mixprec::log_softmax(mixprec::exec::seq, h.data(), y.data(), 1, h.size());
  const std::int32_t target = 3;
  const auto ce = mixprec::cross_entropy(mixprec::exec::seq, h.data(), &target, 1, h.size());
  CHECK(static_cast<double>(ce) > 0.0);

  std::vector<half> p{half(1.0f)}, m{half(0.0f)}, v{half(0.0f)};
  const std::vector<half> g{half(0.5f)};
  mixprec::sgd_options so;
  so.momentum = 0.9f;
  mixprec::sgd_step(mixprec::exec::seq, span<half>(p), span<const half>(g), span<half>(m), 1, so);
  mixprec::adam_step(mixprec::exec::seq, span<half>(p), span<const half>(g), span<half>(m), span<half>(v), 1,
                     mixprec::adam_options{});
  mixprec::adamw_step(mixprec::exec::seq, span<half>(p), span<const half>(g), span<half>(m), span<half>(v), 2,
                      mixprec::adam_options{});
  CHECK(static_cast<float>(p[0]) < 1.0f);

  const half A[4] = {half(1.0f), half(2.0f), half(3.0f), half(4.0f)};
  float C[4] = {};
  mixprec::gemm<float>(mixprec::exec::seq, mixprec::transpose::none, mixprec::transpose::none, 2, 2, 2, 1.0f, A, 2,
                       A, 2, 0.0f, C, 2);
  CHECK(C[0] >= 7.0f);
  CHECK(C[0] <= 7.0f);

  std::vector<float> grads{2.0f, 4.0f};
  CHECK_FALSE(mixprec::unscale_and_check(mixprec::exec::seq, grads, 0.5f));
  float s = 65536.0f;
  std::int32_t tracker = 0;
  mixprec::update_scale(s, tracker, 1.0f, 2.0, 0.5, 2000);
  CHECK(s <= 32768.0f);
  CHECK(s >= 32768.0f);
}

TEST_CASE("amp: grad_scaler, loss scaling, fp8 and MX scaling, autocast") {
  mixprec::grad_scaler scaler;
  toy_optimizer opt;
  CHECK(scaler.step(opt));
  scaler.update();
  CHECK(opt.steps == 1);
  CHECK(scaler.get_scale() >= 65536.0);
  CHECK(scaler.get_scale() <= 65536.0);
  CHECK(scaler.state_dict().find("65536") != std::string::npos);

  mixprec::dynamic_loss_scale dls(mixprec::loss_scale_config::pytorch());
  dls.update(true);
  CHECK(dls.inv_scale() > 0.0f);

  CHECK(mixprec::current_scale(448.0f, 448.0f, mixprec::current_scaling_config{}) > 0.0f);
  CHECK(mixprec::mx_shared_scale<mixprec::float8_e4m3fn>(1.0f, mixprec::mx_scale_rule{}).bits() != 0xff);

  mixprec::autocast_scope scope(mixprec::device_kind::cuda);
  CHECK(mixprec::autocast_type("linear", 1.0f) == mixprec::dtype::float16());
  CHECK(mixprec::parse_precision_policy("mixed_float16") == mixprec::parse_precision_policy("mixed_float16"));
}
