// SPDX-License-Identifier: MIT
// Invalid enum values (an integer cast to rounding / overflow / matmul_precision /
// matmul_high_mode): the rule of rounding.hpp — every entry point with an error channel rejects
// them and changes nothing (std::invalid_argument, or errc::invalid_argument from from_chars).
#include <doctest/doctest.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include <mixprec/charconv.hpp>
#include <mixprec/kernels.hpp>
#include <mixprec/matmul_precision.hpp>
#include <mixprec/mixprec.hpp>

using mixprec::bfloat16;
using mixprec::half;
using mixprec::overflow;
using mixprec::rounding;

namespace {
const rounding bad_modes[] = {static_cast<rounding>(7), static_cast<rounding>(8), static_cast<rounding>(255)};
const overflow bad_policies[] = {static_cast<overflow>(2), static_cast<overflow>(255)};
}  // namespace

TEST_CASE("is_valid: exactly the enumerators") {
  static_assert(mixprec::is_valid(rounding::stochastic), "");
  static_assert(!mixprec::is_valid(static_cast<rounding>(7)), "");
  for (unsigned v = 0; v < 256; ++v) {
    CHECK(mixprec::is_valid(static_cast<rounding>(v)) == (v <= 6));
    CHECK(mixprec::is_valid(static_cast<overflow>(v)) == (v <= 1));
    CHECK(mixprec::is_valid(static_cast<mixprec::matmul_precision>(v)) == (v <= 2));
    CHECK(mixprec::is_valid(static_cast<mixprec::matmul_high_mode>(v)) == (v <= 2));
  }
}

TEST_CASE("from_chars: invalid rounding or overflow is errc::invalid_argument, value unchanged") {
  const char text[] = "1.5";
  for (rounding m : bad_modes) {
    half h = half(7);
    const auto r = mixprec::from_chars(text, text + 3, h, m);
    CHECK(r.ec == std::errc::invalid_argument);
    CHECK(r.ptr == text);
    CHECK(h.bits() == half(7).bits());
  }
  for (overflow p : bad_policies) {
    half h = half(7);
    const auto r = mixprec::from_chars(text, text + 3, h, rounding::nearest_even, p);
    CHECK(r.ec == std::errc::invalid_argument);
    CHECK(h.bits() == half(7).bits());
  }
  half h = half(7);  // valid values still work
  CHECK(mixprec::from_chars(text, text + 3, h, rounding::toward_zero, overflow::saturate).ec == std::errc{});
  CHECK(static_cast<float>(h) == 1.5f);
}

TEST_CASE("round_to and the rounding-mode arithmetic: std::invalid_argument") {
  for (rounding m : bad_modes) {
    CHECK_THROWS_AS(mixprec::round_to<half>(1.0 / 3, m), std::invalid_argument);
    CHECK_THROWS_AS(mixprec::round_to<bfloat16>(1.0f, m, overflow::ieee), std::invalid_argument);
    CHECK_THROWS_AS(mixprec::add(half(1), half(2), m), std::invalid_argument);
    CHECK_THROWS_AS(mixprec::fma(half(1), half(2), half(3), m), std::invalid_argument);
    CHECK_THROWS_AS(mixprec::sqrt(half(2), m), std::invalid_argument);
  }
  for (overflow p : bad_policies) {
    CHECK_THROWS_AS(mixprec::round_to<half>(1e10, rounding::nearest_even, p), std::invalid_argument);
    CHECK_THROWS_AS(mixprec::mul(half(1), half(2), rounding::upward, p), std::invalid_argument);
    CHECK_THROWS_AS(mixprec::fma(half(1), half(2), half(3), rounding::upward, p), std::invalid_argument);
    CHECK_THROWS_AS(mixprec::sqrt(half(2), rounding::upward, p), std::invalid_argument);
  }
  CHECK(static_cast<double>(mixprec::round_to<half>(1e10, rounding::nearest_even, overflow::saturate)) == 65504.0);
}

TEST_CASE("convert: std::invalid_argument, nothing written") {
  const std::vector<float> src{1.0f, 2.0f, 3.0f};
  std::vector<half> dst(3, half(9));
  for (rounding m : bad_modes) {
    CHECK_THROWS_AS(mixprec::convert(mixprec::exec::seq, src, dst, m), std::invalid_argument);
  }
  for (overflow p : bad_policies) {
    CHECK_THROWS_AS(mixprec::convert(mixprec::exec::seq, src, dst, rounding::nearest_even, p), std::invalid_argument);
  }
  for (const half& x : dst) CHECK(x.bits() == half(9).bits());
  mixprec::convert(mixprec::exec::seq, src, dst, rounding::upward, overflow::saturate);
  CHECK(static_cast<float>(dst[2]) == 3.0f);
}

TEST_CASE("gemm: invalid output rounding is std::invalid_argument, C unchanged") {
  const float A[1] = {2.0f}, B[1] = {3.0f};
  float C[1] = {5.0f};
  mixprec::gemm_options o;
  o.output_rounding = static_cast<rounding>(9);
  CHECK_THROWS_AS(mixprec::gemm(mixprec::exec::seq, mixprec::transpose::none, mixprec::transpose::none, 1, 1, 1, 1.0f,
                                A, 1, B, 1, 0.0f, C, 1, o),
                  std::invalid_argument);
  CHECK(C[0] == 5.0f);
}

TEST_CASE("optimizer steps: invalid update_rounding.mode is std::invalid_argument, nothing written") {
  std::vector<half> p{half(1), half(2)};
  const std::vector<float> g{0.5f, 0.25f};
  std::vector<float> m(2, 0.0f), v(2, 0.0f), buf(2, 0.0f);
  mixprec::update_rounding ur;
  ur.mode = static_cast<rounding>(200);
  CHECK_THROWS_AS(mixprec::adam_step(mixprec::exec::seq, mixprec::span<half>(p), mixprec::span<const float>(g),
                                     mixprec::span<float>(m), mixprec::span<float>(v), 1, mixprec::adam_options{}, ur),
                  std::invalid_argument);
  CHECK_THROWS_AS(mixprec::sgd_step(mixprec::exec::seq, mixprec::span<half>(p), mixprec::span<const float>(g),
                                    mixprec::span<float>(buf), 1, mixprec::sgd_options{}, ur),
                  std::invalid_argument);
  CHECK(static_cast<float>(p[0]) == 1.0f);
  CHECK(static_cast<float>(p[1]) == 2.0f);
}

TEST_CASE("matmul precision setters: std::invalid_argument, setting unchanged") {
  const auto p0 = mixprec::float32_matmul_precision();
  const auto m0 = mixprec::float32_matmul_high_mode();
  mixprec::set_float32_matmul_precision(mixprec::matmul_precision::high);
  CHECK_THROWS_AS(mixprec::set_float32_matmul_precision(static_cast<mixprec::matmul_precision>(3)),
                  std::invalid_argument);
  CHECK(mixprec::float32_matmul_precision() == mixprec::matmul_precision::high);
  CHECK(mixprec::to_string(static_cast<mixprec::matmul_precision>(3)) == "invalid");
  mixprec::set_float32_matmul_high_mode(mixprec::matmul_high_mode::bf16x3);
  CHECK_THROWS_AS(mixprec::set_float32_matmul_high_mode(static_cast<mixprec::matmul_high_mode>(3)),
                  std::invalid_argument);
  CHECK(mixprec::float32_matmul_high_mode() == mixprec::matmul_high_mode::bf16x3);
  mixprec::set_float32_matmul_precision(p0);
  mixprec::set_float32_matmul_high_mode(m0);
}
