// expect: two different mixprec types do not mix implicitly
// SPDX-License-Identifier: MIT
// README Drop-in: two mixprec formats never combine implicitly.
#include <mixprec/mixprec.hpp>
#include <vector>
using mixprec::half;
using mixprec::bfloat16;
void f(half x, bfloat16 b) {
  auto r = x + b; (void)r;
  (void)x;
  (void)b;
}
