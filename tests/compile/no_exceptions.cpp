// SPDX-License-Identifier: MIT
// The numeric core compiled with -fno-exceptions (CTest "compile_no_exceptions_core"): it
// builds and gives the right values. Exits non-zero on a wrong value.
#include <mixprec/mixprec.hpp>

#include <cstdio>
#include <cstring>
#include <sstream>

#if MIXPREC_HAS_EXCEPTIONS
#error "this test must be compiled with -fno-exceptions"
#endif

namespace {
int failures = 0;
void check(bool ok, const char* what) {
  std::printf("%s: %s\n", ok ? "ok  " : "FAIL", what);
  if (!ok) ++failures;
}
}  // namespace

int main() {
  using mixprec::half;
  const half third(1.0f / 3);
  check(third.bits() == 0x3555, "half(1/3).bits() == 0x3555");
  check(mixprec::round_to<half>(1.0 / 3, mixprec::rounding::upward).bits() == 0x3556, "round_to upward");
  check(mixprec::sqrt(half(4.0f)).bits() == 0x4000, "sqrt(half(4)) == 2");
  check((half(1.5f) + half(2.25f)).bits() == 0x4380, "1.5 + 2.25 == 3.75");
  char buf[32] = {};
  const auto r = mixprec::to_chars(buf, buf + sizeof buf - 1, mixprec::bfloat16(3.140625f));
  check(r.ec == std::errc{} && std::strcmp(buf, "3.14") == 0, "to_chars(bfloat16(3.140625)) == \"3.14\" (shortest round trip)");
  half parsed;
  const char text[] = "1.00048828125000000000000001";
  const auto p = mixprec::from_chars(text, text + sizeof text - 1, parsed);
  check(p.ec == std::errc{} && parsed.bits() == 0x3c01, "from_chars rounds once");
  std::ostringstream os;
  os << half(0.5f);
  check(os.str() == "0.5", "operator<<");
  check(mixprec::finfo<half>::eps == half(0.0009765625f), "finfo<half>::eps");
  return failures == 0 ? 0 : 1;
}
