// SPDX-License-Identifier: MIT
// std::numeric_limits for every format: the spec's facts, and full agreement with the standard
// library's own float and double limits when mixprec describes those formats.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include <mixprec/mixprec.hpp>

namespace {

template <class A, class B>
void same_limits() {
  using L = std::numeric_limits<A>;
  using S = std::numeric_limits<B>;
  CHECK(L::is_specialized == S::is_specialized);
  CHECK(L::is_signed == S::is_signed);
  CHECK(L::is_integer == S::is_integer);
  CHECK(L::is_exact == S::is_exact);
  CHECK(L::has_infinity == S::has_infinity);
  CHECK(L::has_quiet_NaN == S::has_quiet_NaN);
  CHECK(L::has_signaling_NaN == S::has_signaling_NaN);
  CHECK(L::has_denorm == S::has_denorm);
  CHECK(L::round_style == S::round_style);
  CHECK(L::is_iec559 == S::is_iec559);
  CHECK(L::is_bounded == S::is_bounded);
  CHECK(L::is_modulo == S::is_modulo);
  CHECK(L::digits == S::digits);
  CHECK(L::digits10 == S::digits10);
  CHECK(L::max_digits10 == S::max_digits10);
  CHECK(L::radix == S::radix);
  CHECK(L::min_exponent == S::min_exponent);
  CHECK(L::min_exponent10 == S::min_exponent10);
  CHECK(L::max_exponent == S::max_exponent);
  CHECK(L::max_exponent10 == S::max_exponent10);
  CHECK(L::tinyness_before == S::tinyness_before);
  CHECK(static_cast<B>(L::min()) == S::min());
  CHECK(static_cast<B>(L::lowest()) == S::lowest());
  CHECK(static_cast<B>(L::max()) == S::max());
  CHECK(static_cast<B>(L::epsilon()) == S::epsilon());
  CHECK(static_cast<B>(L::round_error()) == S::round_error());
  CHECK(static_cast<B>(L::infinity()) == S::infinity());
  CHECK(std::isnan(static_cast<B>(L::quiet_NaN())));
  CHECK(std::isnan(static_cast<B>(L::signaling_NaN())));
  CHECK(static_cast<B>(L::denorm_min()) == S::denorm_min());
}

}  // namespace

TEST_CASE("mixprec's float32 and float64 formats have the standard library's limits") {
  same_limits<mixprec::basic_float<mixprec::float32_format>, float>();
  same_limits<mixprec::basic_float<mixprec::float64_format>, double>();
}

TEST_CASE("numeric_limits digits and exponents of the built-in formats") {
  // digits = mantissa bits + 1 (CUTLASS gets half = 10 and bfloat16 = 7 wrong).
  CHECK(std::numeric_limits<mixprec::half>::digits == 11);
  CHECK(std::numeric_limits<mixprec::bfloat16>::digits == 8);
  CHECK(std::numeric_limits<mixprec::tf32>::digits == 11);
  CHECK(std::numeric_limits<mixprec::float8_e4m3fn>::digits == 4);
  CHECK(std::numeric_limits<mixprec::float8_e5m2>::digits == 3);
  CHECK(std::numeric_limits<mixprec::float8_e8m0fnu>::digits == 1);
  CHECK(std::numeric_limits<mixprec::float4_e2m1fn>::digits == 2);
  // IEEE binary16's published values.
  using H = std::numeric_limits<mixprec::half>;
  CHECK(H::digits10 == 3);
  CHECK(H::max_digits10 == 5);
  CHECK(H::min_exponent == -13);
  CHECK(H::max_exponent == 16);
  CHECK(H::min_exponent10 == -4);
  CHECK(H::max_exponent10 == 4);
  CHECK(H::is_iec559);
  using B = std::numeric_limits<mixprec::bfloat16>;
  CHECK(B::digits10 == 2);
  CHECK(B::max_digits10 == 4);
  CHECK(B::min_exponent10 == -37);
  CHECK(B::max_exponent10 == 38);
}

TEST_CASE("numeric_limits values: min is the smallest normal") {
  using H = std::numeric_limits<mixprec::half>;
  CHECK(H::min().bits() == 0x0400);
  CHECK(H::denorm_min().bits() == 0x0001);
  CHECK(H::lowest().bits() == 0xfbff);
  CHECK(H::max().bits() == 0x7bff);
  CHECK(H::epsilon().bits() == 0x1400);
  CHECK(H::round_error().bits() == 0x3800);
  CHECK(H::infinity().bits() == 0x7c00);
  CHECK(H::quiet_NaN().bits() == 0x7e00);
  CHECK(H::signaling_NaN().bits() == 0x7c01);
  using E4 = std::numeric_limits<mixprec::float8_e4m3fn>;
  CHECK_FALSE(E4::has_infinity);
  CHECK(E4::has_quiet_NaN);
  CHECK_FALSE(E4::has_signaling_NaN);
  CHECK_FALSE(E4::is_iec559);
  CHECK(E4::max().bits() == 0x7e);
  CHECK(E4::quiet_NaN().bits() == 0x7f);
  CHECK(E4::infinity().bits() == 0x00);  // meaningless without has_infinity: +0
  CHECK(E4::min().bits() == 0x08);
  CHECK(E4::denorm_min().bits() == 0x01);
  using E5 = std::numeric_limits<mixprec::float8_e5m2>;
  CHECK(E5::is_iec559);
  CHECK(E5::has_signaling_NaN);
  CHECK(E5::signaling_NaN().bits() == 0x7d);
  CHECK(E5::quiet_NaN().bits() == 0x7e);
  using Z = std::numeric_limits<mixprec::float8_e4m3fnuz>;
  CHECK(Z::quiet_NaN().bits() == 0x80);
  CHECK(Z::lowest().bits() == 0xff);
  CHECK(Z::max().bits() == 0x7f);
  using U = std::numeric_limits<mixprec::float8_e8m0fnu>;
  CHECK_FALSE(U::is_signed);
  CHECK(U::has_denorm == std::denorm_absent);
  CHECK(U::min().bits() == 0x00);
  CHECK(U::lowest().bits() == 0x00);
  CHECK(U::denorm_min().bits() == 0x00);
  CHECK(U::max().bits() == 0xfe);
  CHECK(U::quiet_NaN().bits() == 0xff);
  using F4 = std::numeric_limits<mixprec::float4_e2m1fn>;
  CHECK_FALSE(F4::has_quiet_NaN);
  CHECK(F4::max().bits() == 0x7);
  CHECK(F4::lowest().bits() == 0xf);
  using T32 = std::numeric_limits<mixprec::tf32>;
  CHECK(T32::max().bits() == 0x7f7fe000u);
  CHECK(T32::epsilon().bits() == 0x3a800000u);
  static_assert(std::numeric_limits<mixprec::bfloat16>::max().bits() == 0x7f7f, "constexpr");
}

TEST_CASE("numeric_limits of the formats with an explicit bias or without a sign") {
  // UE4M3 (CUTLASS float_ue4m3_t): no sign, bias 7, NaN 0x7F, max 448 = 0x7E, min normal 2^-6.
  using UE4 = std::numeric_limits<mixprec::float8_ue4m3>;
  CHECK_FALSE(UE4::is_signed);
  CHECK_FALSE(UE4::has_infinity);
  CHECK(UE4::has_quiet_NaN);
  CHECK(UE4::has_denorm == std::denorm_present);
  CHECK(UE4::digits == 4);
  CHECK(UE4::lowest().bits() == 0x00);  // 0: the smallest value of an unsigned format with a zero
  CHECK(UE4::min().bits() == 0x08);
  CHECK(static_cast<double>(UE4::min()) == 0x1p-6);
  CHECK(UE4::denorm_min().bits() == 0x01);
  CHECK(UE4::max().bits() == 0x7e);
  CHECK(static_cast<double>(UE4::max()) == 448.0);
  CHECK(UE4::quiet_NaN().bits() == 0x7f);
  CHECK(UE4::max_exponent == 9);
  CHECK(UE4::min_exponent == -5);
  // UE5M3: no sign, bias 15, NaN 0xFF, max 0xFE = 1.75 * 2^16.
  using UE5 = std::numeric_limits<mixprec::float8_ue5m3>;
  CHECK_FALSE(UE5::is_signed);
  CHECK(UE5::max().bits() == 0xfe);
  CHECK(static_cast<double>(UE5::max()) == 114688.0);
  CHECK(static_cast<double>(UE5::min()) == 0x1p-14);
  CHECK(static_cast<double>(UE5::denorm_min()) == 0x1p-17);
  CHECK(UE5::quiet_NaN().bits() == 0xff);
  // e4m3b11fnuz: bias 11 (ml_dtypes finfo: max 30, tiny 2^-10, smallest subnormal 2^-13).
  using B11 = std::numeric_limits<mixprec::float8_e4m3b11fnuz>;
  CHECK(static_cast<double>(B11::max()) == 30.0);
  CHECK(static_cast<double>(B11::min()) == 0x1p-10);
  CHECK(static_cast<double>(B11::denorm_min()) == 0x1p-13);
  CHECK(B11::quiet_NaN().bits() == 0x80);
  CHECK(B11::max_exponent == 5);
  // float4_e1m2: bias 0, values 0, 0.5, ..., 3.5; its smallest normal (2) is above 1.
  using E12 = std::numeric_limits<mixprec::float4_e1m2>;
  CHECK(E12::digits == 3);
  CHECK(static_cast<double>(E12::min()) == 2.0);
  CHECK(static_cast<double>(E12::denorm_min()) == 0.5);
  CHECK(static_cast<double>(E12::max()) == 3.5);
  CHECK(static_cast<double>(E12::lowest()) == -3.5);
  CHECK(static_cast<double>(E12::epsilon()) == 0.5);
  CHECK(E12::min_exponent == 2);
  CHECK(E12::max_exponent == 2);
}

TEST_CASE("unsigned formats: -0 is 0, other negative values NaN, in every mode") {
  using U = mixprec::float8_ue4m3;
  const mixprec::rounding modes[] = {mixprec::rounding::nearest_even, mixprec::rounding::toward_zero,
                                     mixprec::rounding::upward, mixprec::rounding::downward};
  for (const auto m : modes) {
    CHECK(mixprec::round_to<U>(-0.0f, m).bits() == 0x00);
    CHECK(mixprec::round_to<U>(-1e-30f, m).bits() == 0x7f);
    CHECK(mixprec::round_to<U>(-1.0, m, mixprec::overflow::saturate).bits() == 0x7f);
    CHECK(mixprec::round_to<U>(-INFINITY, m, mixprec::overflow::saturate).bits() == 0x7f);
  }
  CHECK(U(448.0f).bits() == 0x7e);
  CHECK(U(464.0f).bits() == 0x7e);  // the midpoint to the next binade step ties to even: 448
  CHECK(U(465.0f).bits() == 0x7f);  // beyond it: NaN (no Inf), as e4m3fn
  CHECK(mixprec::round_to<U>(1000.0f, mixprec::rounding::nearest_even, mixprec::overflow::saturate).bits() == 0x7e);
  // The codes of UE4M3 are those of e4m3fn's non-negative values (CUDA_R_8F_UE4M3 == CUDA_R_8F_E4M3).
  for (unsigned c = 0; c < 0x7f; ++c) {
    CHECK(static_cast<double>(U::from_bits(static_cast<std::uint8_t>(c))) ==
          static_cast<double>(mixprec::float8_e4m3fn::from_bits(static_cast<std::uint8_t>(c))));
  }
  CHECK(mixprec::isnan(U::from_bits(0x7f)));
  CHECK(U::from_bits(0xff).bits() == 0x7f);  // bit 7 is not part of the format
  // Negation and subtraction below zero give NaN; x - x is +0.
  CHECK(mixprec::isnan(-U(2.0f)));
  CHECK((-U(0.0f)).bits() == 0x00);
  CHECK(mixprec::isnan(U(1.0f) - U(2.0f)));
  CHECK((U(2.0f) - U(2.0f)).bits() == 0x00);
  CHECK(mixprec::nextafter(U(0.0f), U(1.0f)).bits() == 0x01);
  CHECK(mixprec::nextafter(U::from_bits(0x01), U(0.0f)).bits() == 0x00);
}
