// SPDX-License-Identifier: MIT
// mixprec/core/rounding.hpp — rounding modes and overflow policies of every conversion.
// Contract: values outside the enumerators are invalid (is_valid); to_string names each one.
//
//   round_to<float8_e4m3fn>(1000.0f, rounding::upward, overflow::saturate)  // 448
#ifndef MIXPREC_ROUNDING_HPP
#define MIXPREC_ROUNDING_HPP

#include "config.hpp"

namespace mixprec {

/// How an exact value that falls between two representable values is rounded.
enum class rounding : unsigned char {
  nearest_even,  ///< To the nearer neighbour, ties to even significand (IEEE 754 default); e8m0fnu,
                 ///< whose significand is always 1, breaks ties away from zero, as ml_dtypes does.
  nearest_away,  ///< To the nearer neighbour, ties away from zero (NVIDIA cvt.rna, used for TF32).
  toward_zero,   ///< IEEE 754 directed rounding: truncation.
  upward,        ///< IEEE 754 directed rounding: toward +infinity.
  downward,      ///< IEEE 754 directed rounding: toward -infinity.
  to_odd,        ///< Truncate, then set the last significand bit if anything was discarded; to_odd
                 ///< at p+2 bits then nearest at p bits equals one rounding to p bits.
  stochastic     ///< Away from zero with probability equal to the distance from the value below
                 ///< (in ulps, truncated to 32 fractional bits), from caller-supplied random bits.
};

/// What happens to a value beyond the largest finite number of the target format.
enum class overflow : unsigned char {
  ieee,     ///< IEEE 754: modes rounding away from zero give infinity, modes rounding toward zero
            ///< the largest finite value. Formats without infinity (fn, fnuz) give NaN where IEEE
            ///< gives infinity (ml_dtypes, CUDA __NV_NOSAT), infinite inputs too; formats with
            ///< neither infinity nor NaN (the MX element types) always clamp.
  saturate  ///< Clamp to +-max finite, infinite inputs included (CUDA __NV_SATFINITE); NaN stays
            ///< NaN where the format has one.
};

/// Whether r / p names an enumerator (static_cast<rounding>(9) compiles but names none). The rule,
/// for rounding, overflow, matmul_precision and matmul_high_mode alike: every entry point with an
/// error channel rejects an invalid value and changes nothing (std::invalid_argument,
/// errc::invalid_argument from from_chars; a trap on a CUDA device); the noexcept overloads
/// taking random_bits do not check (some value of the target type, no undefined behaviour).
///   static_assert(!is_valid(static_cast<rounding>(7)));
MIXPREC_HD constexpr bool is_valid(rounding r) noexcept {
  return static_cast<unsigned>(r) <= static_cast<unsigned>(rounding::stochastic);
}
/// Whether p names an enumerator (the rule above).
MIXPREC_HD constexpr bool is_valid(overflow p) noexcept {
  return p == overflow::ieee || p == overflow::saturate;
}

/// The enumerator's name ("nearest_even", ..., "saturate"), or "invalid" for a value that names
/// none; io.hpp prints it with operator<<.   to_string(rounding::to_odd)  // "to_odd"
MIXPREC_HD constexpr const char* to_string(rounding r) noexcept {
  switch (r) {
    case rounding::nearest_even: return "nearest_even";
    case rounding::nearest_away: return "nearest_away";
    case rounding::toward_zero: return "toward_zero";
    case rounding::upward: return "upward";
    case rounding::downward: return "downward";
    case rounding::to_odd: return "to_odd";
    case rounding::stochastic: return "stochastic";
  }
  return "invalid";
}
/// The enumerator's name ("ieee" or "saturate"), or "invalid".
MIXPREC_HD constexpr const char* to_string(overflow p) noexcept {
  switch (p) {
    case overflow::ieee: return "ieee";
    case overflow::saturate: return "saturate";
  }
  return "invalid";
}

}  // namespace mixprec

#endif  // MIXPREC_ROUNDING_HPP
