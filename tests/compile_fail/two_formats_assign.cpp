// expect: two different mixprec types do not mix implicitly
// SPDX-License-Identifier: MIT
// README Drop-in: nor assign with an operator.
#include <mixprec/mixprec.hpp>
#include <vector>
using mixprec::half;
using mixprec::bfloat16;
void f(half x, bfloat16 b) {
  x += b;
  (void)x;
  (void)b;
}
