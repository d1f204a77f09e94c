// SPDX-License-Identifier: MIT
// explain<T>(std::string_view): the text is rounded ONCE into T (as from_chars, never through
// double), in every mode and overflow policy; strtod's grammar (sign, 0x hex, inf/infinity/nan in
// any case); out-of-range text explained (overflow / underflow / values the format lacks).
// Oracles: round_to<T>(double) on texts that are exact doubles (hex %a and exact decimals), and
// from_chars on long decimal texts.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

#include <mixprec/charconv.hpp>
#include <mixprec/explain.hpp>
#include <mixprec/mixprec.hpp>

using mixprec::bfloat16;
using mixprec::explain;
using mixprec::half;
using mixprec::overflow;
using mixprec::rounding;

namespace {
const rounding modes[] = {rounding::nearest_even, rounding::nearest_away, rounding::toward_zero,
                          rounding::upward,       rounding::downward,     rounding::to_odd};

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }
}  // namespace

TEST_CASE("explain(text): one rounding where double would round twice") {
  // 1 + 2^-11 is the midpoint between half's 1 and 1 + 2^-10; the text is just above it. Through
  // double (which holds 1 + 2^-11 exactly) the tie would go to even: 0x3c00.
  const auto e = explain<half>("1.00048828125000000000000001");
  CHECK(e.stored.bits == 0x3c01u);
  CHECK_FALSE(e.out_of_range);
  CHECK(e.range.empty());
  CHECK(explain<half>("1.00048828125").stored.bits == 0x3c00u);  // the tie itself: to even
  CHECK(explain<half>("1.00048828124999999999999999").stored.bits == 0x3c00u);
  CHECK(explain<half>("1.00048828125000000000000001", rounding::toward_zero).stored.bits == 0x3c00u);
  CHECK(e.abs_error == doctest::Approx(0.00048828125));
  CHECK(e.ulp_error == doctest::Approx(0.5));
}

TEST_CASE("explain(text): strtod's grammar") {
  CHECK(explain<half>("0x1.8p1").stored.bits == 0x4200u);  // 3
  CHECK(explain<half>("0X1.8P1").stored.bits == 0x4200u);
  CHECK(explain<half>("-0x1p-24").stored.bits == 0x8001u);  // -smallest subnormal
  CHECK(explain<half>("+0x10").stored.bits == 0x4c00u);     // 16, no exponent
  CHECK(explain<half>("0x.8").stored.bits == 0x3800u);      // 0.5
  CHECK(explain<half>("+1.5").stored.bits == 0x3e00u);
  CHECK(explain<half>(".5").stored.bits == 0x3800u);
  CHECK(explain<half>("-0").stored.bits == 0x8000u);
  CHECK(explain<half>("-Inf").stored.bits == 0xfc00u);
  CHECK(explain<half>("-infinity").stored.bits == 0xfc00u);
  CHECK(explain<half>("INFINITY").stored.bits == 0x7c00u);
  CHECK(explain<bfloat16>("+inf").stored.bits == 0x7f80u);
  CHECK(explain<half>("NaN").stored.kind == "NaN");
  CHECK(explain<half>("-nan(123)").stored.kind == "NaN");
  CHECK(explain<half>("-nan").stored.sign == "1");
  for (const char* bad : {"", "+", "-", "0x", "-0x", "1e", "--1", "+-1", "-+1", "1.0 ", " 1", "0x1.8p1x", "infx",
                          "in", "0x-1", "1,5", "e5", "."}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(explain<half>(bad), std::invalid_argument);
  }
  CHECK_THROWS_AS(explain<half>("1", rounding::stochastic), std::invalid_argument);
  CHECK_THROWS_AS(explain<half>("1", static_cast<rounding>(9)), std::invalid_argument);
  CHECK_THROWS_AS(explain<half>("1", rounding::nearest_even, static_cast<overflow>(5)), std::invalid_argument);
  try {  // the message quotes at most 64 bytes of the text
    (void)explain<half>(std::string(1000000, '1') + "x");
    CHECK(false);
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).size() < 200);
    CHECK(std::string(e.what()).find("(1000001 bytes)") != std::string::npos);
  }
}

TEST_CASE("explain(text): overflow, underflow and values the format lacks") {
  auto h = explain<half>("1e400");
  CHECK(h.stored.bits == 0x7c00u);
  CHECK(h.out_of_range);
  CHECK(starts_with(h.range, "overflow: positive"));
  CHECK(h.range.find("round_to gives inf") != std::string::npos);
  CHECK(h.abs_error == std::numeric_limits<double>::infinity());
  h = explain<half>("-1e400", rounding::toward_zero);
  CHECK(h.stored.bits == 0xfbffu);  // -65504: toward zero stops at the largest finite
  CHECK(starts_with(h.range, "overflow: negative"));
  h = explain<half>("65520");  // rounds (nearest) beyond 65504
  CHECK(h.stored.bits == 0x7c00u);
  CHECK(starts_with(h.range, "overflow"));
  h = explain<half>("65519.99");  // rounds down to 65504: in range
  CHECK(h.stored.bits == 0x7bffu);
  CHECK_FALSE(h.out_of_range);
  h = explain<half>("1e400", rounding::nearest_even, overflow::saturate);  // from_chars: success
  CHECK(h.stored.bits == 0x7bffu);
  CHECK_FALSE(h.out_of_range);
  h = explain<half>("1e-400");
  CHECK(h.stored.bits == 0x0000u);
  CHECK(starts_with(h.range, "underflow: positive"));
  h = explain<half>("-1e-400");
  CHECK(h.stored.bits == 0x8000u);
  CHECK(starts_with(h.range, "underflow: negative"));
  CHECK(h.range.find("round_to gives -0") != std::string::npos);
  h = explain<half>("1e-400", rounding::upward);  // rounds up to the smallest subnormal: in range
  CHECK(h.stored.bits == 0x0001u);
  CHECK_FALSE(h.out_of_range);
  auto f8 = explain<mixprec::float8_e4m3fn>("inf");
  CHECK(f8.stored.kind == "NaN");  // overflow::ieee: NaN where IEEE gives infinity
  CHECK(starts_with(f8.range, "not representable: float8_e4m3fn has no infinity"));
  f8 = explain<mixprec::float8_e4m3fn>("500");  // beyond 448: NaN under overflow::ieee
  CHECK(starts_with(f8.range, "overflow: positive"));
  auto e8 = explain<mixprec::float8_e8m0fnu>("0");
  CHECK(starts_with(e8.range, "not representable: float8_e8m0fnu has no zero"));
  e8 = explain<mixprec::float8_e8m0fnu>("1e-60");
  CHECK(starts_with(e8.range, "underflow"));
}

TEST_CASE_TEMPLATE("explain(text) of an exact double equals round_to<T>(double), every mode and policy", T, half,
                   bfloat16, mixprec::tf32, mixprec::float8_e4m3fn, mixprec::float8_e5m2, mixprec::float8_e8m0fnu,
                   mixprec::float4_e2m1fn) {
  std::mt19937_64 rng(13);
  std::uniform_int_distribution<int> exp_dist(-160, 160);
  for (int i = 0; i < 400; ++i) {
    // Values around every binade of the formats, with random low bits (ties and near-ties included).
    const std::uint64_t m = rng() >> 11;
    const int shift = static_cast<int>(rng() % 40);
    double d = std::ldexp(static_cast<double>(m >> shift), exp_dist(rng) - 53 + shift);
    if ((rng() & 1u) != 0) d = -d;
    char hex[64];
    std::snprintf(hex, sizeof hex, "%a", d);  // exact
    const std::string dec = mixprec::exact_decimal(d);  // exact, every digit
    for (rounding mode : modes) {
      for (overflow policy : {overflow::ieee, overflow::saturate}) {
        CAPTURE(hex);
        CAPTURE(static_cast<int>(mode));
        const auto want = mixprec::float_traits<T>::to_bits(mixprec::round_to<T>(d, mode, policy));
        CHECK(explain<T>(hex, mode, policy).stored.bits == want);
        CHECK(explain<T>(dec, mode, policy).stored.bits == want);
      }
    }
  }
}

TEST_CASE("explain(text) agrees with from_chars on long decimal texts, in range or not") {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 3000; ++i) {
    std::string s = (rng() & 1u) != 0 ? "-" : "";
    const int digits = 1 + static_cast<int>(rng() % 40);
    for (int k = 0; k < digits; ++k) s += static_cast<char>('0' + rng() % 10);
    s += "e" + std::to_string(static_cast<int>(rng() % 30) - 25);
    for (rounding mode : modes) {
      CAPTURE(s);
      half h = half(0.25f);
      const auto r = mixprec::from_chars(s.data(), s.data() + s.size(), h, mode);
      const auto e = explain<half>(s, mode);
      CHECK(e.out_of_range == (r.ec == std::errc::result_out_of_range));
      if (r.ec == std::errc{}) CHECK(e.stored.bits == h.bits());
      if (!e.out_of_range) {  // the stored value is round_to's: compare with a second from_chars mode
        half sat = half(0.25f);
        (void)mixprec::from_chars(s.data(), s.data() + s.size(), sat, mode, overflow::saturate);
        if (r.ec == std::errc{}) CHECK(sat.bits() == h.bits());
      }
    }
  }
}

TEST_CASE("explain(text).why: one line on NaN, infinity, clamping, underflow and subnormals") {
  using mixprec::overflow;
  using mixprec::rounding;
  using e4m3 = mixprec::float8_e4m3fn;
  auto why = [](auto tag, const char* text, rounding m = rounding::nearest_even, overflow p = overflow::ieee) {
    return mixprec::explain<decltype(tag)>(text, m, p).why;
  };
  const mixprec::half h{};
  CHECK(why(h, "0.1") == "");
  CHECK(why(h, "1e400") == "overflow: |x| > max 65504 and the mode rounds away from zero: inf");
  CHECK(why(h, "1e400", rounding::toward_zero) == "overflow: |x| > max 65504: clamped to 65504 (the mode rounds toward zero)");
  CHECK(why(e4m3{}, "500") == "overflow: |x| > max 448 and float8_e4m3fn has no infinity: NaN (overflow::saturate clamps)");
  CHECK(why(e4m3{}, "500", rounding::nearest_even, overflow::saturate) ==
        "overflow: |x| > max 448: clamped to 448 (overflow::saturate)");
  CHECK(why(e4m3{}, "450") == "|x| > max 448, but it rounds to 448 in this mode (no overflow)");  // 450 < 448 + 32/2
  CHECK(why(e4m3{}, "448") == "");
  CHECK(why(mixprec::float4_e2m1fn{}, "-100") ==
        "overflow: |x| > max 6: clamped to -6 (float4_e2m1fn has no infinity or NaN)");
  // half's smallest subnormal 2^-24 = 5.9604644775390625e-08 exactly; its shortest text is 6e-08
  CHECK(why(h, "1e-9") ==
        "underflow: |x| is below the smallest non-zero value 5.9604644775390625e-08 (about 6e-08) and rounds to 0");
  CHECK(why(h, "4e-8") == "underflow: |x| is below the smallest non-zero value 5.9604644775390625e-08 (about 6e-08) "
                          "and rounds up to it");  // > 2^-25
  // float6_e2m3fn's smallest subnormal is 2^0 * 2^-3 = 0.125 (bias 1); its shortest text is "0.1"
  CHECK(why(mixprec::float6_e2m3fn{}, "0.1") ==
        "underflow: |x| is below the smallest non-zero value 0.125 and rounds up to it");
  CHECK(why(h, "1e-7") == "subnormal: fewer significant bits, so a larger relative error");
  CHECK(why(h, "-nan") == "NaN in, NaN out");
  CHECK(why(h, "inf") == "inf in, inf out");
  CHECK(why(e4m3{}, "inf") == "inf in, and float8_e4m3fn has no infinity: NaN");
  CHECK(why(mixprec::float4_e2m1fn{}, "nan") == "NaN in, and float4_e2m1fn has no NaN: 6");
  CHECK(why(mixprec::float8_e8m0fnu{}, "0") == "float8_e8m0fnu has no zero and no negative values: NaN");
  CHECK(why(mixprec::float8_ue4m3{}, "-1") == "negative, and float8_ue4m3 has no negative values: NaN");
  CHECK(why(mixprec::float8_ue4m3{}, "-0") == "");  // -0 is the one zero
}

namespace {
std::string printed(const mixprec::text_explanation& e) {
  std::ostringstream os;
  os << e;
  return os.str();
}
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("exact_value_text: the exact decimal, with the shortest text beside it when long") {
  using mixprec::exact_value_text;
  CHECK(exact_value_text(mixprec::float6_e2m3fn(0.125f)) == "0.125");
  CHECK(exact_value_text(std::numeric_limits<half>::max()) == "65504");
  CHECK(exact_value_text(std::numeric_limits<half>::min()) == "0.00006103515625");  // 2^-14: 16 characters
  CHECK(exact_value_text(-half(0.0f)) == "-0");
  CHECK(exact_value_text(std::numeric_limits<half>::infinity()) == "inf");
  CHECK(exact_value_text(-std::numeric_limits<half>::infinity()) == "-inf");
  // 2^-24, 2^-23, 2^-126 (digits by hand / Python's decimal module)
  CHECK(exact_value_text(std::numeric_limits<half>::denorm_min()) == "5.9604644775390625e-08 (about 6e-08)");
  CHECK(exact_value_text(-std::numeric_limits<half>::denorm_min()) == "-5.9604644775390625e-08 (about -6e-08)");
  CHECK(exact_value_text(0x1p-23f) == "1.1920928955078125e-07 (about 1.1920929e-07)");
  CHECK(exact_value_text(std::numeric_limits<float>::min()) ==
        "1.1754943508222875079687365372222456778186655567720875215087517062784172594547271728515625e-38 "
        "(about 1.1754944e-38)");
  // bfloat16 max = 2^128 - 2^120 = 338953138925153547590470800371487866880
  CHECK(exact_value_text(std::numeric_limits<bfloat16>::max()) ==
        "3.3895313892515354759047080037148786688e+38 (about 3.39e+38)");
  CHECK(exact_value_text(1e22) == "1e+22");  // 10^22 is a double: exact and short at once
  CHECK(exact_value_text(123456789012345678.0) == "123456789012345680");  // 18 characters: exact as it stands
}

TEST_CASE("explain(text) states values exactly: the value line, range and why") {
  const std::string e2m3 = printed(explain<mixprec::float6_e2m3fn>("0.1"));
  CHECK(contains(e2m3, "float6_e2m3fn value 0.125\n"));  // not "0.1", the shortest text of 0.125 here
  const auto tiny = explain<half>("1e-9");
  CHECK(starts_with(tiny.range, "underflow: positive, not zero, but below the smallest float16, "
                                "5.9604644775390625e-08 (about 6e-08), once rounded; "));
  const auto big = explain<half>("1e400");
  CHECK(starts_with(big.range, "overflow: positive, beyond the largest finite float16, 65504, once rounded; "));
  CHECK(contains(printed(explain<half>("0.1")), "float16 value 0.0999755859375\n"));  // 1638 * 2^-14
}

TEST_CASE("explain(text): overflow and NaN have infinite or undefined errors, never 0") {
  const double inf = std::numeric_limits<double>::infinity();
  auto e = explain<half>("1e400");  // overflow to inf: infinitely far
  CHECK(e.abs_error == inf);
  CHECK(e.rel_error == inf);
  CHECK(e.ulp_error == inf);
  CHECK(contains(printed(e), "  error     infinite absolute, infinite relative, infinite ulp\n"));
  e = explain<half>("-70000");  // beyond 65520: to -inf
  CHECK(e.rel_error == -inf);
  CHECK(contains(printed(e), "  error     -infinite absolute, -infinite relative, -infinite ulp\n"));
  e = explain<half>("1e400", rounding::nearest_even, overflow::saturate);  // (65504 - 1e400) / 1e400 = -1 + tiny
  CHECK(e.stored.bits == 0x7bffu);
  CHECK(e.rel_error == -1.0);
  CHECK(contains(printed(e), "  error     about -1e400 absolute (beyond double), -1 relative, "));
  e = explain<half>("-1e400", rounding::toward_zero);  // -65504
  CHECK(e.rel_error == 1.0);
  e = explain<half>("nan");
  CHECK(std::isnan(e.rel_error));
  CHECK(std::isnan(e.ulp_error));
  CHECK(contains(printed(e), "undefined (NaN) relative, undefined (NaN) ulp\n"));
  e = explain<mixprec::float8_e4m3fn>("inf");  // stored NaN
  CHECK(std::isnan(e.rel_error));
  e = explain<mixprec::float8_e4m3fn>("500");  // overflow to NaN (no infinity)
  CHECK(std::isnan(e.rel_error));
  CHECK(contains(printed(e), "undefined (NaN) relative"));
  e = explain<mixprec::float4_e2m1fn>("inf");  // no infinity: clamped to 6, an undefined relative error
  CHECK(e.stored.exact == "6");
  CHECK(e.abs_error == -inf);
  CHECK(std::isnan(e.rel_error));
  CHECK(contains(printed(e), "  error     -infinite absolute, undefined (NaN) relative, undefined (NaN) ulp\n"));
  e = explain<half>("-inf");  // stored exactly: no error
  CHECK(e.abs_error == 0);
  CHECK(e.rel_error == 0);
  CHECK(e.ulp_error == 0);
  e = explain<half>("0");
  CHECK(e.rel_error == 0);
  e = explain<half>("1e-9");  // underflow to 0: all of it lost
  CHECK(e.rel_error == -1.0);
  e = explain<half>("0.5");
  CHECK(contains(printed(e), "  error     0 absolute, 0 relative, 0 ulp\n"));
}
