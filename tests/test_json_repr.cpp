// SPDX-License-Identifier: MIT
// detail::json::format_double (the number printer of grad_scaler::state_dict) writes Python's
// repr(float) exactly: checked on ~9200 doubles against tests/golden/python_float_repr.txt, which
// tests/golden/gen_float_repr.py wrote from Python's own repr.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include <mixprec/detail/json.hpp>
#include <mixprec/grad_scaler.hpp>

#ifndef MIXPREC_TEST_DATA_DIR
#error "MIXPREC_TEST_DATA_DIR must name the tests/golden directory (a string literal)"
#endif

using mixprec::detail::json::format_double;

TEST_CASE("format_double: Python's notation switches") {
  CHECK(format_double(1e16) == "1e+16");  // fixed notation ("10000000000000000.0") before the fix
  CHECK(format_double(1.5e16) == "1.5e+16");
  CHECK(format_double(1e21) == "1e+21");
  CHECK(format_double(9999999999999998.0) == "9999999999999998.0");
  CHECK(format_double(1e-05) == "1e-05");
  CHECK(format_double(1.5e-05) == "1.5e-05");
  CHECK(format_double(0.0001) == "0.0001");
  CHECK(format_double(123.0) == "123.0");
  CHECK(format_double(65536.0) == "65536.0");
  CHECK(format_double(-0.0) == "-0.0");
  CHECK(format_double(5e-324) == "5e-324");
  CHECK(format_double(1e100) == "1e+100");
}

TEST_CASE("format_double equals Python's repr on the golden vectors") {
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
    const std::string got = format_double(x);
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
