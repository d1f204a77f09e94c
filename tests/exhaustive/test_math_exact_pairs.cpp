// SPDX-License-Identifier: MIT
// The two-argument functions on every pair of the other 8-bit formats, and every half and
// bfloat16 x against 272 y values, in threads (see tests/test_math_exact.cpp).
#define MIXPREC_MATH_EXACT_EXHAUSTIVE 1
#include "../test_math_exact.cpp"
