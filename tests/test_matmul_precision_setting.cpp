// SPDX-License-Identifier: MIT
// set_float32_matmul_precision / float32_matmul_precision (matmul_precision.hpp): the default,
// every setting by name and by value, the getter's names, rejected names (PyTorch's three
// spellings only, case-sensitive) leaving the setting unchanged, the "high" mode, and that the
// setting is process-wide (a thread sees another thread's setting). The effect on GEMM results is
// tested with the GEMM kernel.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <thread>

#include <mixprec/matmul_precision.hpp>

using mixprec::float32_matmul_precision;
using mixprec::get_float32_matmul_precision;
using mixprec::matmul_high_mode;
using mixprec::matmul_precision;
using mixprec::set_float32_matmul_precision;

namespace {
/// Restores the process-wide settings at the end of a test case.
struct restore_settings {
  matmul_precision p = float32_matmul_precision();
  matmul_high_mode m = mixprec::float32_matmul_high_mode();
  ~restore_settings() {
    set_float32_matmul_precision(p);
    mixprec::set_float32_matmul_high_mode(m);
  }
};
}  // namespace

TEST_CASE("default: highest, tf32 rounded to nearest with ties away") {
  // Nothing in this executable changes the settings before this test case (doctest runs the
  // test cases of a file in order of appearance), and every test case restores them.
  CHECK(float32_matmul_precision() == matmul_precision::highest);
  CHECK(get_float32_matmul_precision() == "highest");
  CHECK(mixprec::float32_matmul_high_mode() == matmul_high_mode::tf32_nearest_away);
}

TEST_CASE("set by name, get by name and by value") {
  restore_settings restore;
  struct row {
    const char* name;
    matmul_precision value;
  };
  for (const row& r : {row{"high", matmul_precision::high}, row{"medium", matmul_precision::medium},
                       row{"highest", matmul_precision::highest}, row{"medium", matmul_precision::medium}}) {
    CAPTURE(r.name);
    set_float32_matmul_precision(r.name);
    CHECK(float32_matmul_precision() == r.value);
    CHECK(get_float32_matmul_precision() == r.name);
    CHECK(mixprec::to_string(r.value) == r.name);
    CHECK(mixprec::parse_matmul_precision(r.name) == r.value);
  }
  set_float32_matmul_precision(std::string("high"));  // std::string -> string_view overload
  CHECK(float32_matmul_precision() == matmul_precision::high);
  set_float32_matmul_precision(matmul_precision::highest);
  CHECK(get_float32_matmul_precision() == "highest");
}

TEST_CASE("unknown names throw std::invalid_argument naming them, and change nothing") {
  restore_settings restore;
  set_float32_matmul_precision("medium");
  for (const char* bad : {"HIGH", "Highest", "low", "", " high", "high ", "tf32", "bf16", "mediumm"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(set_float32_matmul_precision(bad),
                         ("mixprec: unknown float32 matmul precision '" + std::string(bad) +
                          "' (expected \"highest\", \"high\" or \"medium\")")
                             .c_str(),
                         std::invalid_argument);
    CHECK(float32_matmul_precision() == matmul_precision::medium);
  }
  CHECK_THROWS_AS(set_float32_matmul_precision(static_cast<const char*>(nullptr)), std::invalid_argument);
  CHECK(float32_matmul_precision() == matmul_precision::medium);
  CHECK_THROWS_AS((void)mixprec::parse_matmul_precision("x"), std::invalid_argument);
}

TEST_CASE("the high mode") {
  restore_settings restore;
  for (matmul_high_mode m : {matmul_high_mode::bf16x3, matmul_high_mode::tf32_nearest_even,
                             matmul_high_mode::tf32_nearest_away}) {
    mixprec::set_float32_matmul_high_mode(m);
    CHECK(mixprec::float32_matmul_high_mode() == m);
    CHECK(float32_matmul_precision() == matmul_precision::highest);  // independent settings
  }
}

TEST_CASE("process-wide: another thread's setting is seen here, and the other way round") {
  restore_settings restore;
  set_float32_matmul_precision("high");
  matmul_precision seen = matmul_precision::highest;
  std::thread t([&] {
    seen = float32_matmul_precision();
    set_float32_matmul_precision("medium");
    mixprec::set_float32_matmul_high_mode(matmul_high_mode::bf16x3);
  });
  t.join();
  CHECK(seen == matmul_precision::high);
  CHECK(float32_matmul_precision() == matmul_precision::medium);
  CHECK(mixprec::float32_matmul_high_mode() == matmul_high_mode::bf16x3);
}

TEST_CASE("matmul_precision_scope sets for its scope and restores the previous setting") {
  mixprec::set_float32_matmul_precision("high");
  {
    mixprec::matmul_precision_scope s("medium");
    CHECK(mixprec::get_float32_matmul_precision() == "medium");
    {
      mixprec::matmul_precision_scope inner(mixprec::matmul_precision::highest);
      CHECK(mixprec::float32_matmul_precision() == mixprec::matmul_precision::highest);
    }
    CHECK(mixprec::get_float32_matmul_precision() == "medium");
  }
  CHECK(mixprec::get_float32_matmul_precision() == "high");
  // A bad name throws from the constructor; nothing changed, nothing to restore.
  CHECK_THROWS_AS(mixprec::matmul_precision_scope("fast"), std::invalid_argument);
  CHECK_THROWS_AS(mixprec::matmul_precision_scope(static_cast<const char*>(nullptr)), std::invalid_argument);
  CHECK(mixprec::get_float32_matmul_precision() == "high");
  mixprec::set_float32_matmul_precision("highest");
}
