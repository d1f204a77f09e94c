// SPDX-License-Identifier: MIT
// mixprec/mixprec.hpp — the numeric core, in one include: the formats, conversions in every
// rounding mode, arithmetic, <cmath>-style functions, printing and parsing, limits, finfo,
// explain, hashing, and types as run-time values (dtype). It does not include the ML layer
// (mixprec/amp.hpp: autocast, precision policies, loss scaling, FP8/MX scaling) nor the
// kernels (mixprec/kernels.hpp): no thread pool, no JSON, no <thread>.
//   #include <mixprec/mixprec.hpp>
//   mixprec::half h = mixprec::sqrt(mixprec::half(2.0f));  std::cout << h;
//
// Layers (each uses only those above it):
//   format.hpp, rounding.hpp, detail/   format description and the one rounding core
//   basic_float.hpp, types.hpp          the value type and the built-in formats
//   round_to.hpp, random.hpp            conversions in every rounding mode
//   classify.hpp, finfo.hpp, limits.hpp classification and limits
//   charconv.hpp, io.hpp, hash.hpp      text (to_chars, from_chars, streams) and std::hash
//   arithmetic.hpp                      operators, comparisons, + - * / fma sqrt in any mode
//   math.hpp                            <cmath>-style functions and ulp
//   explain.hpp                         what a value is, bit by bit
//   dtype.hpp                           types as run-time values
//   packed.hpp                          FP4 two per byte, FP6 four per three bytes
//
// Lighter: mixprec/float.hpp (the types, their arithmetic and stream I/O only).
// Optional integrations, included on request only: std_format.hpp (std::formatter, where
// <format> exists), fmt.hpp (fmt::formatter, needs {fmt}), eigen.hpp, cuda.hpp.
#ifndef MIXPREC_MIXPREC_HPP
#define MIXPREC_MIXPREC_HPP

#include "version.hpp"
#include "core/config.hpp"
#include "core/format.hpp"
#include "core/rounding.hpp"
#include "core/basic_float.hpp"
#include "core/types.hpp"
#include "core/round_to.hpp"
#include "core/random.hpp"
#include "core/classify.hpp"
#include "core/finfo.hpp"
#include "core/limits.hpp"
#include "text/charconv.hpp"
#include "text/io.hpp"
#include "core/hash.hpp"
#include "core/arithmetic.hpp"
#include "math/cmath.hpp"
#include "text/explain.hpp"
#include "core/dtype.hpp"
#include "core/packed.hpp"

#endif  // MIXPREC_MIXPREC_HPP
