// SPDX-License-Identifier: MIT
// mixprec/rounding.hpp — rounding modes and overflow policies of every conversion.
#ifndef MIXPREC_ROUNDING_HPP
#define MIXPREC_ROUNDING_HPP

#include "config.hpp"

namespace mixprec {

/// How an exact value that falls between two representable values is rounded.
///
/// - nearest_even: to the nearer neighbour, ties to the one with an even significand (IEEE 754
///   default). A format with no mantissa bits (e8m0fnu) has the significand 1 everywhere; its ties
///   go away from zero, as in ml_dtypes.
/// - nearest_away: to the nearer neighbour, ties away from zero (NVIDIA cvt.rna, used for TF32).
/// - toward_zero, upward, downward: IEEE 754 directed roundings.
/// - to_odd: truncate, then set the last significand bit if anything was discarded. Rounding
///   to odd at p+2 bits and then to nearest at p bits equals one rounding to p bits.
/// - stochastic: away from zero with probability equal to the distance from the value below
///   (in ulps, truncated to 32 fractional bits), using caller-supplied random bits.
enum class rounding : unsigned char {
  nearest_even,
  nearest_away,
  toward_zero,
  upward,
  downward,
  to_odd,
  stochastic
};

/// What happens to a value beyond the largest finite number of the target format.
///
/// - ieee: the IEEE 754 result. Modes that round away from zero give infinity; modes that round
///   toward zero give the largest finite value. Formats without infinity (fn, fnuz) give NaN
///   where IEEE would give infinity (as ml_dtypes and CUDA's __NV_NOSAT); infinite inputs give
///   NaN there too. Formats with neither infinity nor NaN (the MX element types) always clamp.
/// - saturate: clamp to +-max finite, infinite inputs included (CUDA's __NV_SATFINITE). NaN stays NaN
///   where the format has one.
enum class overflow : unsigned char { ieee, saturate };

}  // namespace mixprec

#endif  // MIXPREC_ROUNDING_HPP
