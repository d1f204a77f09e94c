// SPDX-License-Identifier: MIT
// mixprec/mixprec.hpp — everything mixprec offers, in one include.
//
// Layers (each uses only those above it):
//   format.hpp, rounding.hpp, detail/   format description and the one rounding core
//   basic_float.hpp, types.hpp          the value type and the built-in formats
//   round_to.hpp, random.hpp            conversions in every rounding mode
//   classify.hpp, finfo.hpp, limits.hpp classification and limits
//   charconv.hpp, io.hpp, hash.hpp      text (to_chars, from_chars, streams) and std::hash
//   arithmetic.hpp                      operators, comparisons, + - * / fma sqrt in any mode
//   math.hpp                            <cmath>-style functions and ulp
//   loss_scale.hpp, grad_scaler.hpp     loss scaling: presets, GradScaler, JSON state dicts
//   fp8_scaling.hpp, mx.hpp             FP8 delayed/current scaling, MX block quantization
//   dtype.hpp, cast_result.hpp          types as run-time values, run-time-typed conversions
//   autocast_ops.hpp, autocast.hpp      autocast: PyTorch's op tables, thread-local scopes
//   precision_policy.hpp                jmp / Keras / Apex precision policies
//
// Optional integrations, included on request only: std_format.hpp (std::formatter, where
// <format> exists) and fmt.hpp (fmt::formatter, needs {fmt}).
#ifndef MIXPREC_MIXPREC_HPP
#define MIXPREC_MIXPREC_HPP

#include "version.hpp"
#include "config.hpp"
#include "format.hpp"
#include "rounding.hpp"
#include "basic_float.hpp"
#include "types.hpp"
#include "round_to.hpp"
#include "random.hpp"
#include "classify.hpp"
#include "finfo.hpp"
#include "limits.hpp"
#include "charconv.hpp"
#include "io.hpp"
#include "hash.hpp"
#include "arithmetic.hpp"
#include "math.hpp"
#include "explain.hpp"
#include "loss_scale.hpp"
#include "grad_scaler.hpp"
#include "fp8_scaling.hpp"
#include "mx.hpp"
#include "dtype.hpp"
#include "cast_result.hpp"
#include "autocast_ops.hpp"
#include "autocast.hpp"
#include "precision_policy.hpp"

#endif  // MIXPREC_MIXPREC_HPP
