// SPDX-License-Identifier: MIT
// mixprec/text/json.hpp, the public JSON reader and writers. number_text (the number printer of
// grad_scaler::state_dict) writes Python's repr(float) exactly: checked on ~9200 doubles against
// tests/golden/python_float_repr.txt, which tests/golden/gen_float_repr.py wrote from Python's own
// repr. parse (the accepted language and its errors), the exact number conversions and quote:
// expected texts are Python 3's json.dumps(..., ensure_ascii=False) / repr output, except that
// quote writes \b and \f as \u0008 and \u000c (json.dumps writes \b, \f; both are valid JSON).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include <mixprec/amp/detail/json.hpp>
#include <mixprec/core/detail/bits.hpp>
#include <mixprec/grad_scaler.hpp>
#include <mixprec/text/json.hpp>

#ifndef MIXPREC_TEST_DATA_DIR
#error "MIXPREC_TEST_DATA_DIR must name the tests/golden directory (a string literal)"
#endif

namespace json = mixprec::json;
using mixprec::json::number_text;

TEST_CASE("number_text: Python's notation switches") {
  CHECK(number_text(1e16) == "1e+16");  // fixed notation ("10000000000000000.0") before the fix
  CHECK(number_text(1.5e16) == "1.5e+16");
  CHECK(number_text(1e21) == "1e+21");
  CHECK(number_text(9999999999999998.0) == "9999999999999998.0");
  CHECK(number_text(1e-05) == "1e-05");
  CHECK(number_text(1.5e-05) == "1.5e-05");
  CHECK(number_text(0.0001) == "0.0001");
  CHECK(number_text(123.0) == "123.0");
  CHECK(number_text(65536.0) == "65536.0");
  CHECK(number_text(-0.0) == "-0.0");
  CHECK(number_text(5e-324) == "5e-324");
  CHECK(number_text(1e100) == "1e+100");
}

TEST_CASE("number_text equals Python's repr on the golden vectors") {
  std::ifstream in(std::string(MIXPREC_TEST_DATA_DIR) + "/python_float_repr.txt");
  REQUIRE(in.good());
  std::string line;
  int n = 0, bad = 0;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string hex, want;
    ls >> hex >> want;
    const std::uint64_t b = std::stoull(hex, nullptr, 16);
    double x = 0;
    std::memcpy(&x, &b, sizeof x);
    const std::string got = number_text(x);
    if (got != want && ++bad <= 10) CHECK_MESSAGE(got == want, hex << ": got " << got << ", Python " << want);
    ++n;
  }
  CHECK(n > 9000);
  CHECK(bad == 0);
}

TEST_CASE("grad_scaler::state_dict prints a scale of 2^56 as Python does (exponent form)") {
  mixprec::grad_scaler s;
  s.load_state_dict(
      "{\"scale\": 72057594037927936, \"growth_factor\": 2.0, \"backoff_factor\": 0.5, \"growth_interval\": 2000, "
      "\"_growth_tracker\": 0}");
  CHECK(s.state_dict() ==
        "{\"scale\": 7.205759403792794e+16, \"growth_factor\": 2.0, \"backoff_factor\": 0.5, \"growth_interval\": 2000, "
        "\"_growth_tracker\": 0}");
}

namespace {

/// The message parse throws for text ("" when it parses).
std::string parse_error_of(const std::string& text) {
  try {
    (void)json::parse(text);
  } catch (const json::parse_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("parse: a document's values, keys in order, numbers as their literal text") {
  const json::value d = json::parse(" {\"scale\": 65536.0, \"steps\": [1, -2e3, true, null], \"name\": \"f\\u00e9\"}\n");
  REQUIRE(d.type == json::kind::object);
  REQUIRE(d.keys.size() == 3);
  CHECK(d.keys[0] == "scale");
  CHECK(d.keys[1] == "steps");
  CHECK(d.keys[2] == "name");
  CHECK(d.items[0].type == json::kind::number);
  CHECK(d.items[0].text == "65536.0");
  const json::value& steps = d.items[1];
  REQUIRE(steps.type == json::kind::array);
  REQUIRE(steps.items.size() == 4);
  CHECK(steps.items[1].text == "-2e3");
  CHECK(steps.items[2].type == json::kind::boolean);
  CHECK(steps.items[2].boolean);
  CHECK(steps.items[3].type == json::kind::null);
  CHECK(d.items[2].type == json::kind::string);
  CHECK(d.items[2].text == "f\xc3\xa9");  // U+00E9 as UTF-8
  CHECK(json::parse("\"\\ud83d\\ude00\"").text == "\xf0\x9f\x98\x80");  // a surrogate pair: U+1F600
  CHECK(json::parse("[NaN, Infinity, -Infinity]").items[2].text == "-Infinity");  // Python's json.dumps literals
  CHECK(std::string(json::kind_name(json::kind::object)) == "an object");
  CHECK(std::string(json::kind_name(json::kind::number)) == "a number");
}

TEST_CASE("parse: what is not one strict JSON document throws parse_error at its offset") {
  CHECK(parse_error_of("[1, 2,]") == "offset 6: unexpected character ']'");
  CHECK(parse_error_of("{\"a\": 1, \"a\": 2}") == "offset 9: duplicate key \"a\"");
  CHECK(parse_error_of("01") == "offset 1: unexpected text after the JSON value");
  CHECK(parse_error_of("1 2") == "offset 2: unexpected text after the JSON value");
  CHECK(parse_error_of("\"\xc0\xaf\"") == "offset 1: invalid UTF-8 byte 0xc0");  // an overlong '/'
  CHECK(parse_error_of("// no comments\n1") == "offset 0: unexpected character '/'");
  CHECK(parse_error_of(std::string(static_cast<std::size_t>(json::max_depth), '[') +
                       std::string(static_cast<std::size_t>(json::max_depth), ']')) == "");
  CHECK(parse_error_of(std::string(static_cast<std::size_t>(json::max_depth) + 1, '[')) ==
        "offset 64: nesting deeper than 64");
}

TEST_CASE("to_int64, to_double: exact, and out of range is false (never saturated)") {
  std::int64_t n = 0;
  CHECK(json::is_integer_literal("-12"));
  CHECK(!json::is_integer_literal("12.0"));
  CHECK(!json::is_integer_literal("1e2"));
  CHECK(json::to_int64("-9223372036854775808", n));
  CHECK(n == std::numeric_limits<std::int64_t>::min());
  CHECK(!json::to_int64("9223372036854775808", n));  // 2^63
  CHECK(!json::to_int64("1.5", n));
  double d = 0;
  CHECK(json::to_double("0.1", d));
  CHECK(mixprec::detail::exact_eq(d, 0.1));
  CHECK(json::to_double("2.2250738585072011e-308", d));  // a hard halfway case: the subnormal below 2^-1022
  CHECK(mixprec::detail::exact_eq(d, 0x0.fffffffffffffp-1022));
  CHECK(json::to_double("-Infinity", d));
  CHECK((std::isinf(d) && d < 0));
  CHECK(json::to_double("NaN", d));
  CHECK(std::isnan(d));
  CHECK(!json::to_double("1e400", d));
  CHECK(!json::to_double("1e-400", d));
}

TEST_CASE("number_text is Python's repr(float); quote is a JSON string literal") {
  CHECK(json::number_text(65536.0) == "65536.0");
  CHECK(json::number_text(0.1) == "0.1");
  CHECK(json::number_text(-0.0) == "-0.0");
  CHECK(json::number_text(1e16) == "1e+16");
  CHECK(json::number_text(1e-05) == "1e-05");
  CHECK(json::number_text(72057594037927936.0) == "7.205759403792794e+16");  // 2^56
  CHECK(json::number_text(std::numeric_limits<double>::infinity()) == "Infinity");
  CHECK(json::number_text(std::numeric_limits<double>::quiet_NaN()) == "NaN");
  CHECK(json::quote("a\"b\\c\n\t\x01") == "\"a\\\"b\\\\c\\n\\t\\u0001\"");
  CHECK(json::quote("f\xc3\xa9") == "\"f\xc3\xa9\"");  // UTF-8 passes through
  // What number_text and quote write, parse reads back.
  const json::value back = json::parse("{" + json::quote("x\n") + ": " + json::number_text(1.0 / 3.0) + "}");
  double d = 0;
  CHECK(back.keys[0] == "x\n");
  CHECK(json::to_double(back.items[0].text, d));
  CHECK(mixprec::detail::exact_eq(d, 1.0 / 3.0));
}

TEST_CASE("amp's old names are the public functions") {
  CHECK(mixprec::detail::json::number_text(0.1) == json::number_text(0.1));
  CHECK(mixprec::detail::json::parse("[1]").items[0].text == "1");
  CHECK(mixprec::detail::json::quote_key(std::string(100, 'k')) ==
        "\"" + std::string(64, 'k') + "\"... (100 bytes)");
}
