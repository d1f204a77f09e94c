// SPDX-License-Identifier: MIT
// Error messages quote caller input truncated (detail/quote_input.hpp): a 10 MB key, name or
// literal gives a what() of a few hundred bytes that still shows the start of the input and its
// length.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include <mixprec/autocast.hpp>
#include <mixprec/autocast_ops.hpp>
#include <mixprec/detail/json.hpp>
#include <mixprec/detail/quote_input.hpp>
#include <mixprec/grad_scaler.hpp>
#include <mixprec/matmul_precision.hpp>
#include <mixprec/precision_policy.hpp>

namespace {

const std::size_t big = 10u * 1000u * 1000u;  // 10 MB

template <class Fn>
std::string what_of(Fn f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

/// The message is short, quotes the first 64 bytes and names the length.
void check_truncated(const std::string& msg, const std::string& head64) {
  CAPTURE(msg.substr(0, 300));
  CHECK(msg.size() < 400);
  CHECK(msg.find(head64) != std::string::npos);
  CHECK(msg.find(head64 + std::string(1, head64.back())) == std::string::npos);  // not one byte more
  CHECK(msg.find("... (" + std::to_string(big) + " bytes)") != std::string::npos);
}

}  // namespace

TEST_CASE("quote_input: whole up to 64 bytes, else 64 bytes (UTF-8 boundary) and the length") {
  using mixprec::detail::quote_input;
  CHECK(quote_input("abc") == "'abc'");
  CHECK(quote_input(std::string(64, 'x')) == "'" + std::string(64, 'x') + "'");
  CHECK(quote_input(std::string(65, 'x')) == "'" + std::string(64, 'x') + "'... (65 bytes)");
  CHECK(quote_input("abc", '"') == "\"abc\"");
  // 63 ASCII bytes then a 2-byte character straddling the limit: cut before it.
  const std::string s = std::string(63, 'a') + "\xc3\xa9" + "zz";
  CHECK(quote_input(s) == "'" + std::string(63, 'a') + "'... (67 bytes)");
}

TEST_CASE("grad_scaler::load_state_dict: a 10 MB key or literal") {
  mixprec::grad_scaler s;
  const std::string key(big, 'k');
  check_truncated(what_of([&] { s.load_state_dict("{\"" + key + "\": 1}"); }), "\"" + std::string(64, 'k'));
  const std::string tail = R"("growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 2000, "_growth_tracker": 0})";
  const std::string digits = "1" + std::string(big - 1, '0');  // 10^(big-1): beyond double
  check_truncated(what_of([&] { s.load_state_dict("{\"scale\": " + digits + ", " + tail); }),
                  "1" + std::string(63, '0'));
  check_truncated(what_of([&] { s.load_state_dict("{\"" + key + "\": 1, \"" + key + "\": 2}"); }),
                  "\"" + std::string(64, 'k'));  // duplicate key (JSON reader)
}

TEST_CASE("matmul precision, precision policy and autocast op names: 10 MB names") {
  const std::string name(big, 'n');
  check_truncated(what_of([&] { mixprec::set_float32_matmul_precision(name); }), "'" + std::string(64, 'n'));
  check_truncated(what_of([&] { (void)mixprec::parse_precision_policy(name); }), "'" + std::string(64, 'n'));
  check_truncated(what_of([&] { (void)mixprec::parse_precision_policy("p=" + name); }), "'" + std::string(64, 'n'));
  mixprec::custom_autocast_ops ops(mixprec::autocast_ops_cuda);
  std::string with_comma = name;
  with_comma[100] = ',';
  check_truncated(what_of([&] { ops.set(with_comma, mixprec::cast_policy::fp32); }), "'" + std::string(64, 'n'));
}
