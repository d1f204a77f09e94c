// expect: conversion from .double. to non-scalar type|no viable conversion from 'double'
// SPDX-License-Identifier: MIT
// README Drop-in: narrowing from double is explicit, as for std::float16_t.
#include <mixprec/mixprec.hpp>
#include <vector>
using mixprec::half;
using mixprec::bfloat16;
void f(half x, bfloat16 b) {
  half y = 0.1; (void)y;
  (void)x;
  (void)b;
}
