// expect: do not mix with long double
// SPDX-License-Identifier: MIT
// README Drop-in: long double is ill-formed (C++23 would give long double).
#include <mixprec/mixprec.hpp>
#include <vector>
using mixprec::half;
using mixprec::bfloat16;
void f(half x, bfloat16 b) {
  auto r = x * 1.0L; (void)r;
  (void)x;
  (void)b;
}
