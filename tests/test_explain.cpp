// SPDX-License-Identifier: MIT
// explain(): the fields, class, exact decimal (checked against MPFR's exact printing), ulp,
// neighbours and conversion errors.
#include <doctest/doctest.h>

#include <mpfr.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>

#include <mixprec/explain.hpp>
#include <mixprec/mixprec.hpp>

namespace {

/// The exact decimal expansion of a double by MPFR, without trailing zeros after the point.
std::string mpfr_exact(double d) {
  mpfr_t x;
  mpfr_init2(x, 64);
  mpfr_set_d(x, d, MPFR_RNDN);
  char buf[2048];
  mpfr_snprintf(buf, sizeof buf, "%.1100Rf", x);
  mpfr_clear(x);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  return s;
}

}  // namespace

TEST_CASE_TEMPLATE("exact decimals, ulps and neighbours of every value", T, mixprec::half, mixprec::bfloat16,
                   mixprec::float8_e4m3fn, mixprec::float8_e8m0fnu, mixprec::float4_e2m1fn) {
  using F = typename T::format_type;
  int bad = 0;
  for (std::uint64_t c = 0; c < (std::uint64_t{1} << F::bits); c += (F::bits > 8 ? 7 : 1)) {
    const T x = T::from_bits(static_cast<typename T::storage_type>(c));
    const auto e = mixprec::explain(x);
    if (!mixprec::isfinite(x)) {
      bad += e.exact != e.shortest || !e.ulp.empty();
      continue;
    }
    bad += e.exact != mpfr_exact(static_cast<double>(x));
    bad += e.ulp != mpfr_exact(static_cast<double>(mixprec::ulp(x)));
    const std::string fields = e.sign + e.exponent + e.mantissa;
    std::string want;
    for (int i = F::bits - 1; i >= 0; --i) want += ((c >> i) & 1u) != 0 ? '1' : '0';
    bad += fields != want;
    if (!e.above.empty()) {
      bad += e.above != mpfr_exact(static_cast<double>(mixprec::nextafter(x, std::numeric_limits<T>::max())));
    }
    if (bad != 0) {
      MESSAGE("first disagreement at code ", c, ": exact ", e.exact, " vs ", mpfr_exact(static_cast<double>(x)));
      break;
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("explain reports the class, fields and neighbours") {
  const auto e = mixprec::explain(mixprec::half::from_bits(0x0001));
  CHECK(e.kind == "subnormal");
  CHECK(e.sign == "0");
  CHECK(e.exponent == "00000");
  CHECK(e.mantissa == "0000000001");
  CHECK(e.exact == "0.000000059604644775390625");  // 2^-24
  CHECK(e.below == "0");
  CHECK(e.above == "0.00000011920928955078125");  // 2^-23
  const auto u = mixprec::explain(mixprec::float8_e8m0fnu(0.25f));
  CHECK(u.sign.empty());
  CHECK(u.mantissa.empty());
  CHECK(u.exponent == "01111101");
  CHECK(mixprec::explain(std::numeric_limits<mixprec::half>::infinity()).kind == "infinity");
  CHECK(mixprec::explain(std::numeric_limits<mixprec::half>::quiet_NaN()).kind == "NaN");
  CHECK(mixprec::explain(mixprec::bfloat16(-0.0f)).kind == "zero");
  CHECK(mixprec::explain(mixprec::bfloat16(1.0f)).kind == "normal");
  std::ostringstream os;
  os << mixprec::explain(mixprec::bfloat16(1.0f));
  CHECK(os.str().find("0 01111111 0000000") != std::string::npos);
}

TEST_CASE("explain of a conversion gives the stored value and the rounding error") {
  const auto c = mixprec::explain<mixprec::bfloat16>(0.1);
  CHECK(c.source == mpfr_exact(0.1));
  CHECK(c.stored.exact == mpfr_exact(static_cast<double>(mixprec::bfloat16(0.1))));
  const double stored = static_cast<double>(mixprec::bfloat16(0.1));
  CHECK(c.abs_error == stored - 0.1);
  CHECK(c.rel_error == doctest::Approx((stored - 0.1) / 0.1).epsilon(1e-15));
  CHECK(c.ulp_error == (stored - 0.1) / 0x1p-11);  // bfloat16's ulp in [2^-4, 2^-3)
  CHECK(std::fabs(c.ulp_error) <= 0.5);
  const auto d = mixprec::explain<mixprec::bfloat16>(0.1, mixprec::rounding::toward_zero);
  CHECK(d.mode == "toward_zero");
  CHECK(d.abs_error <= 0);
  CHECK(d.ulp_error > -1);
  // Printed without rounding: the absolute error exactly, the quotients so that they read back.
  std::ostringstream os;
  os << c;
  const std::string text = os.str();
  const std::string line = text.substr(text.find("  error     "));
  std::istringstream fields(line);
  std::string word, abs, rel, ulps;
  fields >> word >> abs >> word >> rel >> word >> ulps;
  CHECK(abs == mpfr_exact(stored - 0.1));
  CHECK(abs.size() > 40);
  CHECK(std::strtod(rel.c_str(), nullptr) == c.rel_error);
  CHECK(std::strtod(ulps.c_str(), nullptr) == c.ulp_error);
  CHECK(text.find("  exact     " + mpfr_exact(stored) + "\n") != std::string::npos);
}

TEST_CASE("explain of a conversion: overflow and NaN have infinite or undefined errors, never 0") {
  const double inf = std::numeric_limits<double>::infinity();
  auto c = mixprec::explain<mixprec::half>(1e300);  // overflow to inf
  CHECK(c.abs_error == inf);
  CHECK(c.rel_error == inf);
  CHECK(c.ulp_error == inf);
  std::ostringstream os;
  os << c;
  CHECK(os.str().find("  error     infinite absolute, infinite relative, infinite ulp\n") != std::string::npos);
  c = mixprec::explain<mixprec::half>(-1e300);
  CHECK(c.rel_error == -inf);
  c = mixprec::explain<mixprec::half>(std::numeric_limits<double>::quiet_NaN());
  CHECK(std::isnan(c.rel_error));
  CHECK(std::isnan(c.ulp_error));
  os.str("");
  os << c;
  CHECK(os.str().find("  error     undefined (NaN) absolute, undefined (NaN) relative, undefined (NaN) ulp\n") !=
        std::string::npos);
  c = mixprec::explain<mixprec::float8_e4m3fn>(1e6);  // overflow to NaN: no infinity in the format
  CHECK(std::isnan(c.rel_error));
  c = mixprec::explain<mixprec::half>(inf);  // inf stored as inf: no error
  CHECK(c.abs_error == 0);
  CHECK(c.rel_error == 0);
  CHECK(c.ulp_error == 0);
  c = mixprec::explain<mixprec::half>(inf, mixprec::rounding::toward_zero);  // inf is exact: stays inf
  CHECK(c.rel_error == 0);
  c = mixprec::explain<mixprec::float4_e2m1fn>(inf);  // no infinity: clamped to 6
  CHECK(c.stored.exact == "6");
  CHECK(c.abs_error == -inf);
  CHECK(std::isnan(c.rel_error));
  c = mixprec::explain<mixprec::half>(1e5, mixprec::rounding::toward_zero);  // clamped to 65504: finite error
  CHECK(c.rel_error == doctest::Approx((65504.0 - 1e5) / 1e5));
  c = mixprec::explain<mixprec::half>(0.0);
  CHECK(c.rel_error == 0);
}

TEST_CASE("explain prints the value line exactly") {
  std::ostringstream os;
  os << mixprec::explain(mixprec::half::from_bits(0x0001));  // 2^-24
  CHECK(os.str().rfind("float16 value 5.9604644775390625e-08 (about 6e-08)\n", 0) == 0);
  os.str("");
  os << mixprec::explain(mixprec::float6_e2m3fn(0.125f));
  CHECK(os.str().rfind("float6_e2m3fn value 0.125\n", 0) == 0);
}

TEST_CASE("the explanations' texts as public functions: exact_decimal, exact_value_text, error texts") {
  // Python: str(decimal.Decimal(0.1)), Decimal(1/3); MPFR's exact printing for the rest.
  CHECK(mixprec::exact_decimal(0.1) == "0.1000000000000000055511151231257827021181583404541015625");
  CHECK(mixprec::exact_decimal(1.0 / 3.0) == "0.333333333333333314829616256247390992939472198486328125");
  CHECK(mixprec::exact_decimal(65504.0) == "65504");
  CHECK(mixprec::exact_decimal(-0.0) == "-0");
  CHECK(mixprec::exact_decimal(std::numeric_limits<double>::max()) == mpfr_exact(std::numeric_limits<double>::max()));
  CHECK(mixprec::exact_decimal(std::numeric_limits<double>::denorm_min()) ==
        mpfr_exact(std::numeric_limits<double>::denorm_min()));
  CHECK(mixprec::exact_decimal(0.1f) == mpfr_exact(static_cast<double>(0.1f)));
  CHECK(mixprec::exact_decimal(mixprec::half(0.1f)) == "0.0999755859375");  // 0x2e66 = 1638 * 2^-14
  CHECK(mixprec::exact_decimal(std::numeric_limits<mixprec::half>::denorm_min()) == "0.000000059604644775390625");

  const mixprec::value_explanation tiny = mixprec::explain(std::numeric_limits<mixprec::half>::denorm_min());
  CHECK(mixprec::exact_value_text(tiny) == "5.9604644775390625e-08 (about 6e-08)");
  CHECK(mixprec::exact_value_text(tiny) == mixprec::exact_value_text(std::numeric_limits<mixprec::half>::denorm_min()));
  CHECK(mixprec::exact_value_text(mixprec::explain(mixprec::half(0.125f))) == "0.125");

  // 0.1 in bfloat16: stored 0.10009765625 (0x3dcd), error 0.10009765625 - 0.1 exactly (a double).
  const auto c = mixprec::explain<mixprec::bfloat16>(0.1);
  CHECK(c.stored.exact == "0.10009765625");
  CHECK(mixprec::abs_error_text(c.abs_error) == mpfr_exact(0.10009765625 - 0.1));
  CHECK(mixprec::abs_error_text(-0.0001220703125) == "-0.0001220703125");
  CHECK(mixprec::abs_error_text(std::numeric_limits<double>::infinity()) == "infinite");
  CHECK(mixprec::abs_error_text(-std::numeric_limits<double>::infinity()) == "-infinite");
  CHECK(mixprec::abs_error_text(std::numeric_limits<double>::quiet_NaN()) == "undefined (NaN)");
  CHECK(mixprec::error_quotient_text(0.5) == "0.5");
  CHECK(mixprec::error_quotient_text(1e-05) == "1e-05");
  CHECK(mixprec::error_quotient_text(1.0 / 3.0) == "0.3333333333333333");  // Python: repr(1/3)
  CHECK(mixprec::error_quotient_text(-std::numeric_limits<double>::infinity()) == "-infinite");
  CHECK(mixprec::error_quotient_text(std::numeric_limits<double>::quiet_NaN()) == "undefined (NaN)");
  // The printed explanation uses them.
  std::ostringstream os;
  os << c;
  CHECK(os.str().find("  error     " + mixprec::abs_error_text(c.abs_error) + " absolute, " +
                      mixprec::error_quotient_text(c.rel_error) + " relative, " +
                      mixprec::error_quotient_text(c.ulp_error) + " ulp\n") != std::string::npos);
}
