// expect: conversion from .* to non-scalar type|no viable conversion from
// SPDX-License-Identifier: MIT
// README Drop-in: converting between formats is explicit.
#include <mixprec/mixprec.hpp>
#include <vector>
using mixprec::half;
using mixprec::bfloat16;
void f(half x, bfloat16 b) {
  half y = b; (void)y;
  (void)x;
  (void)b;
}
