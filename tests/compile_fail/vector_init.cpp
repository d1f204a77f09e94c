// expect: explicit constructor|chosen constructor is explicit|narrowing|cannot be narrowed|no matching constructor
// SPDX-License-Identifier: MIT
// README Drop-in: list-initialization from float narrows, as for std::float16_t.
#include <mixprec/mixprec.hpp>
#include <vector>
using mixprec::half;
using mixprec::bfloat16;
void f(half x, bfloat16 b) {
  std::vector<half> v = {0.1f}; (void)v;
  (void)x;
  (void)b;
}
