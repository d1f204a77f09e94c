// SPDX-License-Identifier: MIT
// mixprec/float.hpp — the light include: the value types with their arithmetic and stream I/O,
// nothing else. The built-in formats (half, bfloat16, tf32, the FP8/FP6/FP4 and MX types) and
// basic_float for your own; construction and conversion with one rounding (round_to in every
// mode); the operators and comparisons, add/sub/mul/div/fma/sqrt in any rounding mode;
// operator<< and operator>> (io.hpp). No <cmath>: isnan/isinf/... are in classify.hpp.
//   #include <mixprec/float.hpp>
//   mixprec::half h = mixprec::half(1.5f) + mixprec::half(2.25f);  std::cout << h;  // 3.75
// For classification, <cmath>-style functions, limits and finfo, explain and std::hash:
// mixprec/mixprec.hpp (the numeric core). Compile cost: bench/README.md.
#ifndef MIXPREC_FLOAT_HPP
#define MIXPREC_FLOAT_HPP

#include "core/config.hpp"
#include "core/types.hpp"
#include "core/round_to.hpp"
#include "core/arithmetic.hpp"
#include "text/io.hpp"

#endif  // MIXPREC_FLOAT_HPP
