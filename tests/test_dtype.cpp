// SPDX-License-Identifier: MIT
// mixprec::dtype on mixprec::format_desc: a floating dtype holds its format's description, gives
// it back (desc()) and is made from one (dtype::of(desc), named as the built-in format it
// describes); equality compares the description, never the name; all of it at compile time.
// Expected layouts are numpy's / ml_dtypes' finfo (nexp, nmant, bits) and the OCP FP8 spec.
#include <doctest/doctest.h>

#include <cstdint>
#include <string_view>

#include <mixprec/core/dtype.hpp>
#include <mixprec/core/format.hpp>
#include <mixprec/core/types.hpp>

using mixprec::dtype;
using mixprec::dtype_v;
using mixprec::encoding;
using mixprec::format_desc;

// Compile time: the description in, the description out, the built-in name found.
static_assert(dtype::of(format_desc::make(5, 10)) == dtype::float16(), "");
static_assert(dtype::of(format_desc::make(8, 7)).name() == std::string_view("bfloat16"), "");
static_assert(dtype::of(format_desc::make(8, 23)).name() == std::string_view("float32"), "");
static_assert(dtype::of(format_desc::make(11, 52)) == dtype::float64(), "");
static_assert(dtype::of(format_desc::make(4, 3, encoding::fn)).name() == std::string_view("float8_e4m3fn"), "");
static_assert(dtype::float16().desc() == mixprec::half::format_type::desc, "");
static_assert(dtype_v<mixprec::tf32>.desc() == format_desc::make(8, 10, encoding::ieee, 13), "");
static_assert(dtype_v<mixprec::tf32>.bits() == 19 && dtype_v<mixprec::tf32>.padding_bits() == 13, "");
static_assert(dtype_v<int>.desc() == format_desc{}, "");  // no description for an integer type

TEST_CASE("dtype::of(format_desc) and desc() round-trip every built-in floating type") {
  const dtype all[] = {dtype_v<float>,
                       dtype_v<double>,
                       dtype_v<mixprec::half>,
                       dtype_v<mixprec::bfloat16>,
                       dtype_v<mixprec::tf32>,
                       dtype_v<mixprec::float8_e4m3fn>,
                       dtype_v<mixprec::float8_e5m2>,
                       dtype_v<mixprec::float8_e4m3fnuz>,
                       dtype_v<mixprec::float8_e5m2fnuz>,
                       dtype_v<mixprec::float8_e8m0fnu>,
                       dtype_v<mixprec::float6_e2m3fn>,
                       dtype_v<mixprec::float6_e3m2fn>,
                       dtype_v<mixprec::float4_e2m1fn>,
                       dtype_v<mixprec::float8_e3m4>,
                       dtype_v<mixprec::float8_e4m3>,
                       dtype_v<mixprec::float8_e4m3b11fnuz>,
                       dtype_v<mixprec::float4_e1m2>,
                       dtype_v<mixprec::float8_ue4m3>,
                       dtype_v<mixprec::float8_ue5m3>};
  for (const dtype& t : all) {
    CAPTURE(t.name());
    const dtype back = dtype::of(t.desc());
    CHECK(back == t);
    CHECK(back.name() == t.name());
    CHECK(back.bits() == t.desc().bits);
    CHECK(back.is_signed() == t.desc().is_signed);
  }
  // Fields as numpy / ml_dtypes finfo state them (nexp, nmant, bits) and the OCP FP8 spec.
  CHECK(dtype::float32().exponent_bits() == 8);
  CHECK(dtype::float32().mantissa_bits() == 23);
  CHECK(dtype::float32().emin() == -126);
  CHECK(dtype::float32().emax() == 127);
  CHECK(dtype_v<mixprec::float8_e4m3fn>.emax() == 8);  // max 448 = 1.75 * 2^8
  CHECK(dtype_v<mixprec::float8_e4m3fnuz>.bias() == 8);
  CHECK(dtype_v<mixprec::float8_e8m0fnu>.enc() == encoding::exponent_only);
  CHECK(!dtype_v<mixprec::float8_ue4m3>.is_signed());
  CHECK(dtype_v<mixprec::float8_ue4m3>.bits() == 7);
}

TEST_CASE("a format that is no built-in one: its own name; equality is the description's") {
  const format_desc e3m3 = format_desc::make(3, 3);  // 7-bit IEEE-style, no built-in type
  const dtype a = dtype::of(e3m3);
  CHECK(a.name() == "custom");
  CHECK(a.is_floating_point());
  CHECK(a.bits() == 7);
  CHECK(a.emax() == 3);  // all-ones exponent is inf/NaN: largest exponent field 6, bias 3
  const dtype b = dtype::of(e3m3, "my_e3m3");
  CHECK(b.name() == "my_e3m3");
  CHECK(a == b);  // the same description, two names: one dtype
  CHECK(dtype::of(format_desc::make(3, 3, encoding::fn)) != a);  // another encoding
  CHECK(dtype::of(format_desc::make(3, 3, encoding::ieee, 0, 4, true)) != a);  // another bias
  CHECK(a.fits_in(dtype::float16()));
  CHECK(mixprec::promote_types(a, dtype::bfloat16()) == dtype::bfloat16());
  CHECK(mixprec::promote_types(a, dtype_v<mixprec::float8_e4m3fn>) == dtype_v<mixprec::float8_e4m3fn>);
}

TEST_CASE("integers, bool and undefined are not floating and have no description") {
  CHECK(dtype_v<std::int32_t>.name() == "int32");
  CHECK(dtype_v<std::int32_t>.bits() == 32);
  CHECK(dtype_v<std::int32_t>.is_signed());
  CHECK(!dtype_v<std::uint8_t>.is_signed());
  CHECK(dtype_v<std::uint8_t> != dtype_v<std::int8_t>);
  CHECK(dtype_v<bool>.bits() == 8);
  CHECK(dtype_v<bool> != dtype_v<std::uint8_t>);
  CHECK(dtype_v<int>.exponent_bits() == 0);
  CHECK(dtype().name() == "undefined");
  CHECK(dtype().bits() == 0);
  CHECK(dtype() == dtype());
  CHECK(dtype() != dtype::float32());
}

TEST_CASE("dtype::of(desc, name): a null name reads as \"custom\"") {
  const dtype t = dtype::of(format_desc::make(6, 9), nullptr);
  CHECK(t.name() == std::string_view("custom"));
  CHECK(dtype::of(format_desc::make(6, 9), "e6m9").name() == std::string_view("e6m9"));
  CHECK(dtype::of(format_desc::make(5, 10), nullptr) == dtype::float16());
}
