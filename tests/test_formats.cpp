// SPDX-License-Identifier: MIT
// Every bit pattern of every format: decoding against the independent reference, exact
// round trips through float and double, classification.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "formats_list.hpp"

namespace {

template <class T>
std::uint64_t pattern_count() {
  return std::uint64_t{1} << T::format_type::bits;
}
template <class T>
T from_code(std::uint64_t code) {
  return T::from_bits(static_cast<typename T::storage_type>(code << reftest::pad_of<T>()));
}
template <class T>
std::uint64_t code_of(T x) {
  return static_cast<std::uint64_t>(x.bits()) >> reftest::pad_of<T>();
}

}  // namespace

TEST_CASE_TEMPLATE("every pattern decodes to the reference value", T, MIXPREC_ALL_FORMATS) {
  const ref::format& f = reftest::ref_of<T>();
  std::uint64_t bad = 0;
  for (std::uint64_t c = 0; c < pattern_count<T>(); ++c) {
    const T x = from_code<T>(c);
    const double expect = ref::decode(f, c);
    const double as_double = static_cast<double>(x);
    const double as_float = static_cast<double>(static_cast<float>(x));
    if (!ref::same(as_double, expect) || !ref::same(as_float, expect)) {
      if (++bad <= 5) MESSAGE(std::string(f.name), " code ", c, ": expected ", expect, " got ", as_double);
    }
  }
  CHECK(bad == 0);
}

TEST_CASE_TEMPLATE("every pattern round-trips through float and double", T, MIXPREC_ALL_FORMATS) {
  using F = typename T::format_type;
  std::uint64_t bad = 0;
  for (std::uint64_t c = 0; c < pattern_count<T>(); ++c) {
    const T x = from_code<T>(c);
    std::uint64_t expect = c;
    // IEEE NaNs come back quiet (the documented quieting); all other patterns exactly.
    if (F::enc == mixprec::encoding::ieee && mixprec::isnan(x)) {
      expect |= std::uint64_t{1} << (F::mantissa_bits - 1);
    }
    const std::uint64_t via_float = code_of(T(static_cast<float>(x)));
    const std::uint64_t via_double = code_of(T(static_cast<double>(x)));
    if (via_float != expect || via_double != expect) {
      if (++bad <= 5) MESSAGE("code ", c, " -> ", via_float, " / ", via_double);
    }
  }
  CHECK(bad == 0);
}

TEST_CASE_TEMPLATE("classification matches the decoded value", T, MIXPREC_ALL_FORMATS) {
  const ref::format& f = reftest::ref_of<T>();
  std::uint64_t bad = 0;
  for (std::uint64_t c = 0; c < pattern_count<T>(); ++c) {
    const T x = from_code<T>(c);
    const double v = ref::decode(f, c);
    const bool sub = v != 0 && std::fabs(v) < f.min_normal;
    const int cls = std::isnan(v) ? FP_NAN : std::isinf(v) ? FP_INFINITE : v == 0 ? FP_ZERO : sub ? FP_SUBNORMAL : FP_NORMAL;
    const bool ok = mixprec::isnan(x) == std::isnan(v) && mixprec::isinf(x) == std::isinf(v) &&
                    mixprec::isfinite(x) == std::isfinite(v) && mixprec::isnormal(x) == (cls == FP_NORMAL) &&
                    mixprec::issubnormal(x) == sub && mixprec::fpclassify(x) == cls &&
                    (std::isnan(v) || mixprec::signbit(x) == std::signbit(v));
    if (!ok && ++bad <= 5) MESSAGE(std::string(f.name), " code ", c);
  }
  CHECK(bad == 0);
}

TEST_CASE("classification is found by argument-dependent lookup") {
  const mixprec::half h = mixprec::half::from_bits(0x7c00);
  CHECK(isinf(h));
  CHECK_FALSE(isnan(h));
  CHECK(isfinite(mixprec::bfloat16(1.0f)));
  CHECK(issubnormal(mixprec::half::from_bits(0x0001)));
  CHECK(fpclassify(mixprec::float8_e4m3fn::from_bits(0x7f)) == FP_NAN);
  CHECK(signbit(mixprec::float8_e5m2::from_bits(0x80)));
}

TEST_CASE("storage types and field widths") {
  CHECK(sizeof(mixprec::half) == 2);
  CHECK(sizeof(mixprec::bfloat16) == 2);
  CHECK(sizeof(mixprec::tf32) == 4);
  CHECK(sizeof(mixprec::float8_e4m3fn) == 1);
  CHECK(sizeof(mixprec::float6_e2m3fn) == 1);
  CHECK(sizeof(mixprec::float4_e2m1fn) == 1);
  // tf32 is a float bit pattern with the low 13 mantissa bits zero.
  const float x = 1.0f + 0x1p-10f + 0x1p-12f;
  CHECK(mixprec::tf32(x).bits() == (mixprec::detail::bit_cast<std::uint32_t>(1.0f + 0x1p-10f)));
  // from_bits clears what lies outside the format.
  CHECK(mixprec::tf32::from_bits(0x3f801fffu).bits() == 0x3f800000u);
  CHECK(mixprec::float4_e2m1fn::from_bits(0xf3).bits() == 0x03);
  CHECK(mixprec::float6_e3m2fn::from_bits(0xff).bits() == 0x3f);
}

TEST_CASE("constexpr conversions") {
  static_assert(mixprec::half(1.0f / 3).bits() == 0x3555, "");
  static_assert(mixprec::bfloat16(3.0).bits() == 0x4040, "");
  static_assert(mixprec::float8_e4m3fn(448.0f).bits() == 0x7e, "");
  static_assert(static_cast<float>(mixprec::half::from_bits(0x3c00)) == 1.0f, "");
  static_assert(mixprec::round_to<mixprec::float8_e5m2>(1e9, mixprec::rounding::toward_zero).bits() == 0x7b, "");
  static_assert(mixprec::round_to<mixprec::half>(70000, mixprec::rounding::nearest_even,
                                                 mixprec::overflow::saturate).bits() == 0x7bff, "");
  CHECK(true);
}

TEST_CASE("issubnormal for float and double") {
  CHECK(mixprec::issubnormal(std::numeric_limits<float>::denorm_min()));
  CHECK_FALSE(mixprec::issubnormal(std::numeric_limits<float>::min()));
  CHECK_FALSE(mixprec::issubnormal(0.0f));
  CHECK(mixprec::issubnormal(-std::numeric_limits<double>::denorm_min()));
  CHECK_FALSE(mixprec::issubnormal(-0.0));
}

namespace {

std::uint32_t float_bits(float x) { return mixprec::detail::bit_cast<std::uint32_t>(x); }
std::uint64_t double_bits(double x) { return mixprec::detail::bit_cast<std::uint64_t>(x); }

// Formats whose fields are float's leading bits (8 exponent bits, bias 127, IEEE specials),
// decided from the reference description rather than from the library's own trait.
template <class T>
bool has_float_layout() {
  const ref::format& f = reftest::ref_of<T>();
  return f.exp_bits == 8 && f.kind == ref::specials::ieee && f.bias == 127;
}

}  // namespace

TEST_CASE_TEMPLATE("widening NaNs: bit extension for float's layout, quiet otherwise; round_to<float> agrees", T,
                   MIXPREC_ALL_FORMATS) {
  using F = typename T::format_type;
  const bool layout = has_float_layout<T>();
  std::uint64_t bad = 0, nans = 0;
  for (std::uint64_t c = 0; c < pattern_count<T>(); ++c) {
    const T x = from_code<T>(c);
    const std::uint32_t f = float_bits(static_cast<float>(x));
    const std::uint64_t d = double_bits(static_cast<double>(x));
    bool ok = true;
    // round_to<float> is exact, so the same bits in every mode (stochastic with any random bits).
    for (auto mode : {mixprec::rounding::nearest_even, mixprec::rounding::nearest_away, mixprec::rounding::toward_zero,
                      mixprec::rounding::upward, mixprec::rounding::downward, mixprec::rounding::to_odd}) {
      ok = ok && float_bits(mixprec::round_to<float>(x, mode)) == f;
    }
    ok = ok && float_bits(mixprec::round_to<float>(x, 0x9e3779b9u)) == f;
    if (std::isnan(ref::decode(reftest::ref_of<T>(), c))) {
      ++nans;
      const std::uint64_t sign = F::is_signed && F::enc != mixprec::encoding::fnuz ? (c >> (F::bits - 1)) & 1u : 0u;
      ok = ok && (f & 0x7fffffffu) > 0x7f800000u && (d & 0x7fffffffffffffffu) > 0x7ff0000000000000u;
      if (F::enc != mixprec::encoding::fnuz) ok = ok && (f >> 31) == sign && (d >> 63) == sign;
      ok = ok && ((d >> 51) & 1u) == 1u;  // a double NaN is always quiet
      if (layout) {
        ok = ok && f == static_cast<std::uint32_t>(c << (23 - F::mantissa_bits));  // the code's bits, then zeros
      } else {
        ok = ok && ((f >> 22) & 1u) == 1u;  // quiet
      }
    } else if (layout) {
      ok = ok && f == static_cast<std::uint32_t>(c << (23 - F::mantissa_bits));  // every value: a shift
    }
    if (!ok && ++bad <= 5) MESSAGE(std::string(reftest::ref_of<T>().name), " code ", c, " -> float ", f, ", double ", d);
  }
  CHECK(bad == 0);
  if (F::has_nan) CHECK(nans > 0);
}

TEST_CASE("widening NaNs: vectors from ml_dtypes 0.6 and F16C") {
  // ml_dtypes: bfloat16(...).astype(float32) keeps the bits (signalling NaNs too), astype(float64) quiets.
  CHECK(float_bits(static_cast<float>(mixprec::bfloat16::from_bits(0x7f81))) == 0x7f810000u);
  CHECK(float_bits(static_cast<float>(mixprec::bfloat16::from_bits(0xff81))) == 0xff810000u);
  CHECK(float_bits(static_cast<float>(mixprec::bfloat16::from_bits(0x7fa0))) == 0x7fa00000u);
  CHECK(double_bits(static_cast<double>(mixprec::bfloat16::from_bits(0x7f81))) == 0x7ff8200000000000u);
  CHECK(double_bits(static_cast<double>(mixprec::bfloat16::from_bits(0xff81))) == 0xfff8200000000000u);
  CHECK(double_bits(mixprec::round_to<double>(mixprec::bfloat16::from_bits(0x7f81))) == 0x7ff8200000000000u);
  // tf32 and a user format of float's layout (e8m3) widen the same way.
  CHECK(float_bits(static_cast<float>(mixprec::tf32::from_bits(0x7f802000u))) == 0x7f802000u);
  using e8m3 = mixprec::basic_float<mixprec::format<8, 3>>;
  static_assert(mixprec::detail::float32_layout<e8m3::format_type>, "");
  CHECK(float_bits(static_cast<float>(e8m3::from_bits(0x7f9))) == 0x7f900000u);
  // half: quiet, sign and payload kept (F16C's vcvtph2ps; numpy would keep 0x7f802000).
  CHECK(float_bits(static_cast<float>(mixprec::half::from_bits(0x7c01))) == 0x7fc02000u);
  CHECK(float_bits(static_cast<float>(mixprec::half::from_bits(0xfd01))) == 0xffe02000u);
  // Narrowing a signalling NaN quiets it (IEEE 754 convertFormat), also for bfloat16.
  CHECK(mixprec::bfloat16(static_cast<float>(mixprec::bfloat16::from_bits(0x7f81))).bits() == 0x7fc1);
#if defined(MIXPREC_BIT_CAST_BUILTIN) || defined(MIXPREC_BIT_CAST_STD)
  static_assert(mixprec::detail::bit_cast<std::uint32_t>(static_cast<float>(mixprec::bfloat16::from_bits(0x7f81))) ==
                    0x7f810000u,
                "");
  static_assert(mixprec::detail::bit_cast<std::uint64_t>(static_cast<double>(mixprec::bfloat16::from_bits(0x7f81))) ==
                    0x7ff8200000000000u,
                "");
#endif
}
