// SPDX-License-Identifier: MIT
// Includes the header named by -DMIXPREC_TEST_HEADER=<mixprec/....hpp>: the CTest tests
// "compile_*" (tests/CMakeLists.txt) compile it with flags that mixprec must reject with one
// readable #error (-std=c++14, -ffast-math, -fno-exceptions for the ML layer and kernels), or
// accept (-ffast-math with -DMIXPREC_ALLOW_FAST_MATH).
#include MIXPREC_TEST_HEADER

int main() { return 0; }
