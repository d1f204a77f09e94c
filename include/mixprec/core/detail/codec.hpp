// SPDX-License-Identifier: MIT
// mixprec/core/detail/codec.hpp — the codec: the one generic converter.
//
// Every conversion in mixprec goes through two steps, written once over a format description
// type (format<...> at compile time, format_desc at run time):
//   decode: a code of any format (or an integer) -> its exact value, as sign, exponent and a
//           64-bit significand (no information is lost: every format has at most 53 significant
//           bits, every integer at most 64);
//   encode: an exact value -> the nearest code of the target format under a rounding mode and an
//           overflow policy. This is the only place where rounding happens, so every conversion
//           rounds exactly once, whatever the source.
// decode_bits<F> / encode_bits<F> are decode / encode on stored bit patterns of a format type F.
#ifndef MIXPREC_CORE_DETAIL_CODEC_HPP
#define MIXPREC_CORE_DETAIL_CODEC_HPP

#include <cstdint>
#include <type_traits>

#include "../format.hpp"
#include "../rounding.hpp"
#include "bits.hpp"

namespace mixprec {
namespace detail {

enum class value_class : unsigned char { zero, finite, infinite, nan };

/// An exact value. For finite values: (-1)^sign * sig * 2^(exp - 63), with bit 63 of sig set,
/// so the value lies in [2^exp, 2^(exp+1)). For NaN: sig holds the payload bits below the quiet
/// bit, left-aligned, and quiet tells whether the quiet bit was set.
struct exact_value {
  value_class cls;
  bool sign;
  bool quiet;
  int exp;
  std::uint64_t sig;
};

template <class F>
MIXPREC_HD constexpr std::uint64_t code_of(typename F::storage_type storage) noexcept {
  return static_cast<std::uint64_t>(storage) >> F::padding_bits;
}

template <class F>
MIXPREC_HD constexpr typename F::storage_type storage_of(std::uint64_t code) noexcept {
  return static_cast<typename F::storage_type>(code << F::padding_bits);
}

// The codec. D is a format description type: a format<...> (its members are constants, so each
// branch on them folds away) or format_desc (the same members, known at run time). Both go
// through the same lines; f is passed by reference and only read.

/// The exact value of code (the storage shifted right by the padding) in format f. Bits above
/// the code are ignored.
template <class D>
MIXPREC_HD constexpr exact_value decode(const D& f, std::uint64_t code) noexcept {
  const int M = f.mantissa_bits;
  const bool sign = (code & f.sign_mask) != 0;
  const std::uint64_t mag = code & f.magnitude_mask;
  const std::uint64_t field = mag >> M;
  const std::uint64_t mant = mag & f.mantissa_mask;

  if (f.enc == encoding::ieee) {
    if (field == f.exponent_field_max) {
      if (mant == 0) return {value_class::infinite, sign, false, 0, 0};
      const bool quiet = ((mant >> ((M - 1) & 63)) & 1u) != 0;
      const std::uint64_t payload = mant & low_mask(M - 1);
      return {value_class::nan, sign, quiet, 0, M > 1 ? payload << ((64 - (M - 1)) & 63) : 0};
    }
  } else if (f.enc == encoding::fn) {
    if (mag == f.magnitude_mask) return {value_class::nan, sign, true, 0, 0};
  } else if (f.enc == encoding::fnuz) {
    // The one NaN is the negative-zero pattern; it decodes to a NaN with the sign bit set, as in
    // ml_dtypes (float(0x80) is -NaN).
    if (code == f.sign_mask) return {value_class::nan, true, true, 0, 0};
  } else if (f.enc == encoding::exponent_only) {
    if (mag == f.magnitude_mask) return {value_class::nan, false, true, 0, 0};
    return {value_class::finite, false, false, static_cast<int>(mag) - f.bias, std::uint64_t{1} << 63};
  }
  if (field == 0) {
    if (mant == 0) return {value_class::zero, sign, false, 0, 0};
    const int lz = clz64(mant);
    return {value_class::finite, sign, false, f.qmin + 63 - lz, mant << lz};
  }
  const std::uint64_t integer = mant | (std::uint64_t{1} << M);
  return {value_class::finite, sign, false, static_cast<int>(field) - f.bias, integer << (63 - M)};
}

/// Decodes an integer exactly.
template <class I>
MIXPREC_HD constexpr exact_value decode_integer(I value) noexcept {
  static_assert(std::is_integral<I>::value, "integer expected");
  bool sign = false;
  std::uint64_t mag = 0;
  if constexpr (std::is_signed<I>::value) {
    // Negate in 64-bit unsigned arithmetic: no overflow for the most negative value, and no
    // promotion of narrow types to int.
    const auto wide = static_cast<std::uint64_t>(static_cast<std::int64_t>(value));
    sign = value < 0;
    mag = sign ? std::uint64_t{0} - wide : wide;
  } else {
    mag = static_cast<std::uint64_t>(value);
  }
  if (mag == 0) return {value_class::zero, false, false, 0, 0};
  const int lz = clz64(mag);
  return {value_class::finite, sign, false, 63 - lz, mag << lz};
}

/// The code of the NaN that u (a NaN) becomes in format f.
template <class D>
MIXPREC_HD constexpr std::uint64_t nan_code(const D& f, const exact_value& u) noexcept {
  const int M = f.mantissa_bits;
  if (f.enc == encoding::ieee) {
    // Quiet NaN, sign and leading payload bits kept (x86 F16C/AVX-512 behaviour).
    const std::uint64_t payload = M > 1 ? (u.sig >> ((64 - (M - 1)) & 63)) : 0;
    return (u.sign ? f.sign_mask : 0) | (f.exponent_field_max << M) | (std::uint64_t{1} << ((M - 1) & 63)) |
           payload;
  } else if (f.enc == encoding::fn) {
    return (u.sign ? f.sign_mask : 0) | f.magnitude_mask;
  } else if (f.enc == encoding::fnuz) {
    return f.sign_mask;
  } else if (f.enc == encoding::exponent_only) {
    return f.magnitude_mask;
  } else {
    return f.max_code;  // no NaN: positive max finite, as CUDA's FP4/FP6 conversions do
  }
}

/// The code for a value too large for f (infinite inputs included; round_away tells whether
/// the rounding direction points away from zero).
template <class D>
MIXPREC_HD constexpr std::uint64_t overflow_code(const D& f, bool sign, bool round_away, overflow policy) noexcept {
  const std::uint64_t s = sign ? f.sign_mask : 0;
  if (f.enc == encoding::exponent_only) {
    return (round_away && policy == overflow::ieee) ? f.magnitude_mask : f.max_code;
  }
  if (!round_away || policy == overflow::saturate || f.enc == encoding::finite) return s | f.max_code;
  if (f.enc == encoding::ieee) return s | (f.exponent_field_max << f.mantissa_bits);
  return nan_code(f, exact_value{value_class::nan, sign, true, 0, 0});
}

/// The code of the exact value u rounded once to format f in mode under policy (random_bits:
/// rounding::stochastic only). The only place where mixprec rounds.
template <class D>
MIXPREC_HD constexpr std::uint64_t encode(const D& f, const exact_value& u, rounding mode, overflow policy,
                                          std::uint32_t random_bits = 0) noexcept {
  const int M = f.mantissa_bits;
  if (u.cls == value_class::nan) return nan_code(f, u);

  if (!f.is_signed) {
    // No sign: negative values other than -0 have no representation (NaN, or 0 without NaN).
    if (u.sign && u.cls != value_class::zero) {
      return f.has_nan ? nan_code(f, exact_value{value_class::nan, false, true, 0, 0}) : 0;
    }
  }
  if (f.enc == encoding::exponent_only) {
    // No zero: zero has no representation either.
    if (u.cls == value_class::zero) return f.magnitude_mask;
  }
  if (u.cls == value_class::infinite) return overflow_code(f, u.sign, true, policy);
  if (u.cls == value_class::zero) return f.has_signed_zero && u.sign ? f.sign_mask : 0;

  const std::uint64_t s = u.sign ? f.sign_mask : 0;
  bool round_away = false;  // the direction in which the mode rounds an overflowing value
  switch (mode) {
    case rounding::nearest_even:
    case rounding::nearest_away:
    case rounding::stochastic: round_away = true; break;
    case rounding::upward: round_away = !u.sign; break;
    case rounding::downward: round_away = u.sign; break;
    case rounding::toward_zero:
    case rounding::to_odd: round_away = false; break;
  }
  if (u.exp > f.emax) return overflow_code(f, u.sign, round_away, policy);

  if (f.enc == encoding::exponent_only) {
    // No subnormals: everything below the smallest value clamps to it.
    if (u.exp < f.emin) return 0;
  }

  // Quantum exponent q of the result; the significand integer is sig >> shift.
  const int e = u.exp < f.emin ? f.emin : u.exp;
  const int shift = 63 - M + (e - u.exp);
  std::uint64_t integer = 0;
  std::uint64_t rem = 0;  // discarded bits, left-aligned: rem / 2^64 is the fraction of an ulp
  bool low_sticky = false;
  if (shift < 64) {
    integer = u.sig >> shift;
    rem = u.sig << ((64 - shift) & 63);  // shift >= 11, so 64 - shift <= 53
  } else {
    rem = shift >= 128 ? 0 : (u.sig >> ((shift - 64) & 63));
    low_sticky = true;  // sig is non-zero and some of its bits fell below rem
  }
  if (shift == 64) low_sticky = false;
  const bool half = (rem >> 63) != 0;
  const bool sticky = (rem << 1) != 0 || low_sticky;
  bool increment = false;
  switch (mode) {
    case rounding::nearest_even: increment = half && (sticky || (integer & 1u) != 0); break;
    case rounding::nearest_away: increment = half; break;
    case rounding::toward_zero: break;
    case rounding::upward: increment = !u.sign && (half || sticky); break;
    case rounding::downward: increment = u.sign && (half || sticky); break;
    case rounding::to_odd: integer |= (half || sticky) ? 1u : 0u; break;
    case rounding::stochastic: increment = (rem >> 32) + random_bits >= (std::uint64_t{1} << 32); break;
  }
  integer += increment ? 1u : 0u;

  // Adding the biased exponent lets a carry out of the mantissa move into the exponent field.
  std::uint64_t code = integer + (static_cast<std::uint64_t>(e - f.emin) << M);
  if (f.enc == encoding::exponent_only) code -= 1;  // the exponent field numbers normals from 0, not 1
  if (code > f.max_code) return overflow_code(f, u.sign, round_away, policy);
  if (!f.has_signed_zero && code == 0) return 0;
  return s | code;
}

/// decode for a format type F and a stored bit pattern (padding included).
template <class F>
MIXPREC_HD constexpr exact_value decode_bits(typename F::storage_type storage) noexcept {
  return decode(F{}, code_of<F>(storage));
}

/// encode for a format type F, as a stored bit pattern (padding included).
template <class F>
MIXPREC_HD constexpr typename F::storage_type encode_bits(const exact_value& u, rounding mode, overflow policy,
                                                   std::uint32_t random_bits = 0) noexcept {
  return storage_of<F>(encode(F{}, u, mode, policy, random_bits));
}

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_CORE_DETAIL_CODEC_HPP
