// expect: does not hold every value of the mixprec type
// SPDX-License-Identifier: MIT
// README Drop-in: a format float cannot hold does not mix with float.
#include <mixprec/mixprec.hpp>
void f(mixprec::basic_float<mixprec::format<11, 20>> w) {
  auto r = w + 1.0f;
  (void)r;
}
