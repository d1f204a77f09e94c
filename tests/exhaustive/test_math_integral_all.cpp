// SPDX-License-Identifier: MIT
// round_to_integral and to_integer over every value of the formats that tests/test_math_integral.cpp
// leaves out (tf32's 2^19 values among them), in every rounding mode, against MPFR.
#define MIXPREC_MATH_INTEGRAL_EXHAUSTIVE 1
#include "../test_math_integral.cpp"
