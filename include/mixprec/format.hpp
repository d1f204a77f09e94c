// SPDX-License-Identifier: MIT
// mixprec/format.hpp — describing a binary floating-point format by its fields and encoding.
#ifndef MIXPREC_FORMAT_HPP
#define MIXPREC_FORMAT_HPP

#include <cstdint>
#include <type_traits>

#include "detail/bits.hpp"

namespace mixprec {

/// How the special values are encoded.
enum class encoding : unsigned char {
  /// IEEE 754 style: an all-ones exponent field holds infinities (mantissa 0) and NaNs.
  ieee,
  /// "fn" (finite, NaN): no infinities; NaN only where exponent and mantissa are all ones
  /// (OCP FP8 E4M3). The all-ones exponent otherwise holds normal numbers.
  fn,
  /// "fnuz" (finite, NaN, unsigned zero): no infinities, no negative zero; the negative-zero
  /// pattern is the only NaN; the exponent bias is one higher than IEEE's.
  fnuz,
  /// No infinities and no NaN: every bit pattern is a number (the OCP MX element types).
  finite,
  /// Unsigned, exponent only (E8M0 "fnu"): 2^(code - bias), all-ones is NaN, no zero.
  exponent_only
};

namespace detail {
/// The exponent bias a format gets when none is given: IEEE's 2^(E-1) - 1, one more for fnuz.
MIXPREC_HD constexpr int default_bias(int exponent_bits, encoding enc) noexcept {
  return (1 << (exponent_bits - 1)) - 1 + (enc == encoding::fnuz ? 1 : 0);
}
}  // namespace detail

/// A binary floating-point format: ExpBits exponent bits, ManBits stored mantissa bits, an
/// encoding policy, PadBits always-zero low bits in the storage (tf32 keeps 13), the exponent
/// Bias (default: IEEE's 2^(E-1) - 1, +1 for fnuz), and whether there is a sign bit (default:
/// all encodings but exponent_only).
///
/// Unsigned formats (Signed = false) have no sign bit: the code is exponent and mantissa only,
/// in the low bits of the storage, and bits above it are ignored when read and cleared by
/// from_bits. They have one zero; -0 converts to it, and every other negative value (-inf
/// included) to NaN (to 0 where the format has no NaN), in every rounding mode and overflow
/// policy. The fnuz encoding needs a sign bit (its NaN is the -0 pattern).
///
///   using ue4m3 = format<4, 3, encoding::fn, 0, 7, false>;   // NVFP4's block scale, max 448
template <int ExpBits, int ManBits, encoding Enc = encoding::ieee, int PadBits = 0,
          int Bias = detail::default_bias(ExpBits, Enc), bool Signed = (Enc != encoding::exponent_only)>
struct format {
  static_assert(ExpBits >= 1 && ExpBits <= 11, "exponent bits must be in [1, 11]");
  static_assert(ManBits >= 0 && ManBits <= 52, "mantissa bits must be in [0, 52]");
  static_assert(PadBits >= 0, "padding bits must be non-negative");
  static_assert(Enc != encoding::ieee || ManBits >= 1, "IEEE encoding needs a mantissa bit");
  static_assert(Enc != encoding::exponent_only || ManBits == 0,
                "exponent-only encoding has no mantissa bits");
  static_assert(Enc != encoding::exponent_only || !Signed, "exponent-only encoding is unsigned");
  static_assert(Enc != encoding::fnuz || Signed, "fnuz encoding needs a sign bit (its NaN is -0)");
  static_assert(Bias > -2048 && Bias < 2048, "exponent bias must be in (-2048, 2048)");

  static constexpr int exponent_bits = ExpBits;  ///< E
  static constexpr int mantissa_bits = ManBits;  ///< M
  static constexpr int padding_bits = PadBits;   ///< zero bits below the code in the storage (tf32: 13)
  static constexpr encoding enc = Enc;           ///< how the special values are encoded

  static constexpr bool is_signed = Signed;      ///< whether the code has a sign bit
  /// Width of the format itself (tf32: 19), as numpy's finfo.bits reports it.
  static constexpr int bits = (is_signed ? 1 : 0) + ExpBits + ManBits;
  static constexpr int storage_bits = bits + PadBits;  ///< bits of the stored value
  static_assert(storage_bits <= 64, "storage wider than 64 bits");
  using storage_type = detail::uint_least_t<storage_bits>;  ///< the unsigned integer that stores a value

  static constexpr bool has_infinity = Enc == encoding::ieee;  ///< whether +-inf exist
  static constexpr bool has_nan = Enc != encoding::finite;     ///< whether a NaN exists
  /// whether -0 exists
  static constexpr bool has_signed_zero =
      Signed && (Enc == encoding::ieee || Enc == encoding::fn || Enc == encoding::finite);
  static constexpr bool has_zero = Enc != encoding::exponent_only;        ///< whether 0 exists (not in E8M0)
  static constexpr bool has_subnormals = Enc != encoding::exponent_only;  ///< whether subnormals exist

  static constexpr int bias = Bias;  ///< the exponent bias

  /// Masks over the code (the storage shifted right by PadBits).
  static constexpr std::uint64_t mantissa_mask = detail::low_mask(ManBits);
  static constexpr std::uint64_t exponent_field_max = detail::low_mask(ExpBits);  ///< all exponent bits set
  static constexpr std::uint64_t magnitude_mask = detail::low_mask(ExpBits + ManBits);  ///< exponent and mantissa bits
  static constexpr std::uint64_t sign_mask = is_signed ? (std::uint64_t{1} << (ExpBits + ManBits)) : 0;  ///< the sign bit (0: unsigned)

  /// Magnitude code of the largest finite value.
  static constexpr std::uint64_t max_code =
      Enc == encoding::ieee ? (exponent_field_max << ManBits) - 1
      : (Enc == encoding::fn || Enc == encoding::exponent_only) ? magnitude_mask - 1
                                                                  : magnitude_mask;
  /// Exponent (unbiased) of the smallest normal and of the largest finite value.
  static constexpr int emin = Enc == encoding::exponent_only ? -bias : 1 - bias;
  static constexpr int emax = static_cast<int>(max_code >> ManBits) - bias;  ///< exponent of the largest finite value
  /// Exponent of the quantum of the smallest positive value (subnormal spacing).
  static constexpr int qmin = emin - ManBits;

  /// 1 is a value (a normal or, as in float4_e1m2, a subnormal one).
  static_assert(qmin <= 0 && emax >= 0, "the format must represent 1");
};

/// Tells whether T is a mixprec::format.
template <class T>
struct is_format : std::false_type {};
template <int E, int M, encoding Enc, int P, int B, bool S>
struct is_format<format<E, M, Enc, P, B, S>> : std::true_type {};

/// The formats of the standard types, used to convert to and from float and double.
using float32_format = format<8, 23>;
using float64_format = format<11, 52>;  ///< double's format

}  // namespace mixprec

#endif  // MIXPREC_FORMAT_HPP
