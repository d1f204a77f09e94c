// SPDX-License-Identifier: MIT
// finfo against the tables of ../shared/spec/formats.md (ml_dtypes' finfo, numpy's for half).
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <type_traits>

#include <mixprec/mixprec.hpp>

namespace {

struct expected_finfo {
  const char* name;
  int bits, nexp, nmant, machep, negep, minexp, maxexp, precision;
  double eps, epsneg, resolution, max, min, tiny, smallest_subnormal;
};

template <class T>
void check(const expected_finfo& e) {
  using fi = mixprec::finfo<T>;
  const std::string name = e.name;
  CAPTURE(name);
  CHECK(std::strcmp(fi::name, e.name) == 0);
  CHECK(fi::bits == e.bits);
  CHECK(fi::nexp == e.nexp);
  CHECK(fi::iexp == e.nexp);
  CHECK(fi::nmant == e.nmant);
  CHECK(fi::machep == e.machep);
  CHECK(fi::negep == e.negep);
  CHECK(fi::minexp == e.minexp);
  CHECK(fi::maxexp == e.maxexp);
  CHECK(fi::precision == e.precision);
  CHECK(static_cast<double>(fi::eps) == e.eps);
  CHECK(static_cast<double>(fi::epsneg) == e.epsneg);
  CHECK(static_cast<double>(fi::resolution) == e.resolution);
  CHECK(static_cast<double>(fi::max) == e.max);
  CHECK(static_cast<double>(fi::min) == e.min);
  CHECK(static_cast<double>(fi::tiny) == e.tiny);
  CHECK(static_cast<double>(fi::smallest_normal) == e.tiny);
  CHECK(static_cast<double>(fi::smallest_subnormal) == e.smallest_subnormal);
}

}  // namespace

// The spec's tables, typed in (resolution: the stored value ml_dtypes reports).
TEST_CASE("finfo of every built-in format equals ml_dtypes / numpy") {
  // clang-format off
  check<mixprec::bfloat16>({"bfloat16", 16, 8, 7, -7, -8, -126, 128, 2, 0x1p-7, 0x1p-8, 0.010009765625, 0x1.fep127, -0x1.fep127, 0x1p-126, 0x1p-133});
  check<mixprec::half>({"float16", 16, 5, 10, -10, -11, -14, 16, 3, 0x1p-10, 0x1p-11, 0.0010004043579101562, 65504, -65504, 0x1p-14, 0x1p-24});
  check<mixprec::float8_e4m3fn>({"float8_e4m3fn", 8, 4, 3, -3, -4, -6, 9, 1, 0.125, 0.0625, 0.1015625, 448, -448, 0x1p-6, 0x1p-9});
  check<mixprec::float8_e5m2>({"float8_e5m2", 8, 5, 2, -2, -3, -14, 16, 1, 0.25, 0.125, 0.09375, 57344, -57344, 0x1p-14, 0x1p-16});
  check<mixprec::float8_e4m3fnuz>({"float8_e4m3fnuz", 8, 4, 3, -3, -4, -7, 8, 1, 0.125, 0.0625, 0.1015625, 240, -240, 0x1p-7, 0x1p-10});
  check<mixprec::float8_e5m2fnuz>({"float8_e5m2fnuz", 8, 5, 2, -2, -3, -15, 16, 1, 0.25, 0.125, 0.09375, 57344, -57344, 0x1p-15, 0x1p-17});
  check<mixprec::float8_e8m0fnu>({"float8_e8m0fnu", 8, 8, 0, 0, -1, -127, 128, 1, 1, 0.5, 0.125, 0x1p127, 0x1p-127, 0x1p-127, 0x1p-127});
  check<mixprec::float6_e2m3fn>({"float6_e2m3fn", 6, 2, 3, -3, -3, 0, 3, 0, 0.125, 0.125, 1.0, 7.5, -7.5, 1.0, 0.125});
  check<mixprec::float6_e3m2fn>({"float6_e3m2fn", 6, 3, 2, -2, -3, -2, 5, 0, 0.25, 0.125, 1.0, 28, -28, 0.25, 0.0625});
  check<mixprec::float4_e2m1fn>({"float4_e2m1fn", 4, 2, 1, -1, -1, 0, 3, 0, 0.5, 0.5, 1.0, 6, -6, 1.0, 0.5});
  check<mixprec::float8_e3m4>({"float8_e3m4", 8, 3, 4, -4, -5, -2, 4, 1, 0.0625, 0.03125, 0.09375, 15.5, -15.5, 0.25, 0x1p-6});
  check<mixprec::float8_e4m3>({"float8_e4m3", 8, 4, 3, -3, -4, -6, 8, 1, 0.125, 0.0625, 0.1015625, 240, -240, 0x1p-6, 0x1p-9});
  check<mixprec::float8_e4m3b11fnuz>({"float8_e4m3b11fnuz", 8, 4, 3, -3, -4, -10, 5, 1, 0.125, 0.0625, 0.1015625, 30, -30, 0x1p-10, 0x1p-13});
  // Not in ml_dtypes, derived by hand from the definitions (types.hpp): numpy's rules, min = the
  // smallest value for unsigned formats (0), precision floor(-log10(eps)) (at least 1 for 8 bits).
  check<mixprec::float8_ue4m3>({"float8_ue4m3", 7, 4, 3, -3, -4, -6, 9, 0, 0.125, 0.0625, 1.0, 448, 0, 0x1p-6, 0x1p-9});
  check<mixprec::float8_ue5m3>({"float8_ue5m3", 8, 5, 3, -3, -4, -14, 17, 1, 0.125, 0.0625, 0.1015625, 114688, 0, 0x1p-14, 0x1p-17});
  check<mixprec::float4_e1m2>({"float4_e1m2", 4, 1, 2, -1, -1, 1, 2, 0, 0.5, 0.5, 1.0, 3.5, -3.5, 2.0, 0.5});
  // tf32 (no ml_dtypes type): 1/8/10, the range of float with half's precision.
  check<mixprec::tf32>({"tf32", 19, 8, 10, -10, -11, -126, 128, 3, 0x1p-10, 0x1p-11, 0.0010004043579101562, 0x1.ffcp127, -0x1.ffcp127, 0x1p-126, 0x1p-136});
  // numpy.finfo(float32) and numpy.finfo(float64).
  check<float>({"float32", 32, 8, 23, -23, -24, -126, 128, 6, 0x1p-23, 0x1p-24, static_cast<double>(1e-6f), 0x1.fffffep127, -0x1.fffffep127, 0x1p-126, 0x1p-149});
  check<double>({"float64", 64, 11, 52, -52, -53, -1022, 1024, 15, 0x1p-52, 0x1p-53, 1e-15, 0x1.fffffffffffffp1023, -0x1.fffffffffffffp1023, 0x1p-1022, 0x1p-1074});
  // clang-format on
}

TEST_CASE("finfo of user-defined formats and ml_dtypes-style names") {
  using e3m4 = mixprec::basic_float<mixprec::format<3, 4>>;
  using e6m9fn = mixprec::basic_float<mixprec::format<6, 9, mixprec::encoding::fn>>;
  // ml_dtypes.finfo(float8_e3m4): eps 0.0625, max 15.5, tiny 0.25, smallest_subnormal 0.015625.
  check<e3m4>({"float8_e3m4", 8, 3, 4, -4, -5, -2, 4, 1, 0.0625, 0.03125, 0.09375, 15.5, -15.5, 0.25, 0x1p-6});
  check<e6m9fn>({"float16_e6m9fn", 16, 6, 9, -9, -10, -30, 33, 2, 0x1p-9, 0x1p-10, 655.0 / 65536, 0x1.ffp32, -0x1.ffp32, 0x1p-30, 0x1p-39});
  // An explicit bias and no sign bit show in the name: "b<bias>" (when not the default), "ue".
  using e5m2b11 = mixprec::basic_float<mixprec::format<5, 2, mixprec::encoding::ieee, 0, 11>>;
  using ue3m3b2 = mixprec::basic_float<mixprec::format<3, 3, mixprec::encoding::ieee, 0, 2, false>>;
  CHECK(std::string(mixprec::finfo<e5m2b11>::name) == "float8_e5m2b11");
  CHECK(std::string(mixprec::finfo<ue3m3b2>::name) == "float6_ue3m3b2");
  CHECK(std::string(mixprec::finfo<mixprec::basic_float<mixprec::format<4, 3, mixprec::encoding::fnuz, 0, 3>>>::name) ==
        "float8_e4m3b3fnuz");
  CHECK(std::string(mixprec::finfo<mixprec::basic_float<mixprec::format<1, 3, mixprec::encoding::finite, 0, -1>>>::name) ==
        "float5_e1m3b-1fn");
  // A bias spelled out equal to the default is the same type.
  static_assert(std::is_same<mixprec::format<4, 3, mixprec::encoding::fnuz, 0, 8>, mixprec::format<4, 3, mixprec::encoding::fnuz>>::value, "");
  static_assert(std::is_same<mixprec::format<5, 10, mixprec::encoding::ieee, 0, 15, true>, mixprec::format<5, 10>>::value, "");
}

TEST_CASE("finfo members are constant expressions") {
  static_assert(mixprec::finfo<mixprec::half>::max.bits() == 0x7bff, "");
  static_assert(mixprec::finfo<mixprec::bfloat16>::eps.bits() == 0x3c00, "");
  static_assert(mixprec::finfo<mixprec::float8_e4m3fn>::smallest_subnormal.bits() == 0x01, "");
  static_assert(mixprec::finfo<mixprec::float8_e8m0fnu>::min.bits() == 0x00, "");
  CHECK(mixprec::finfo<mixprec::tf32>::max.bits() == 0x7f7fe000u);
}

TEST_CASE("dtype keeps the bias and the sign bit") {
  using mixprec::dtype;
  using mixprec::dtype_v;
  static_assert(dtype_v<mixprec::float8_e4m3b11fnuz> != dtype_v<mixprec::float8_e4m3fnuz>, "bias differs");
  static_assert(dtype_v<mixprec::float8_e4m3b11fnuz>.bias() == 11 && dtype_v<mixprec::float8_e4m3fnuz>.bias() == 8, "");
  static_assert(dtype_v<mixprec::float8_e4m3b11fnuz>.emin() == -10 && dtype_v<mixprec::float8_e4m3b11fnuz>.emax() == 4, "");
  static_assert(dtype_v<mixprec::float8_ue4m3> != dtype_v<mixprec::float8_e4m3fn>, "sign differs");
  static_assert(!dtype_v<mixprec::float8_ue4m3>.is_signed() && dtype_v<mixprec::float8_ue4m3>.bits() == 7, "");
  static_assert(dtype_v<mixprec::float8_ue4m3>.fits_in(dtype_v<mixprec::float8_e4m3fn>), "");
  static_assert(!dtype_v<mixprec::float8_e4m3fn>.fits_in(dtype_v<mixprec::float8_ue4m3>), "");
  static_assert(dtype_v<mixprec::float4_e1m2>.emin() == 1 && dtype_v<mixprec::float4_e1m2>.emax() == 1, "");
  CHECK(dtype_v<mixprec::float8_ue5m3>.name() == "float8_ue5m3");
  CHECK(dtype_v<mixprec::float8_e4m3b11fnuz>.name() == "float8_e4m3b11fnuz");
}
