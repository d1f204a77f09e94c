// SPDX-License-Identifier: MIT
// mixprec/core/format.hpp — describing a binary floating-point format by its fields and encoding:
// format_desc (one description, a value) and format<...> (the same, as a type).
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

/// One description of a binary floating-point format, usable at compile time (format<...>
/// derives every member from it) and at run time (Python's user formats, dtype): the fields
/// below, as values. The codec (detail::decode / detail::encode) is a template over the
/// description's type, so a format<...> and a format_desc round through the same code.
///   constexpr auto f16 = mixprec::format_desc::make(5, 10);   // f16.max_code == 0x7bff
///   mixprec::format_desc::invalid_reason(4, 0, mixprec::encoding::ieee)  // "the ieee encoding needs ..."
struct format_desc {
  int exponent_bits = 0;        ///< E
  int mantissa_bits = 0;        ///< M
  int padding_bits = 0;         ///< zero bits below the code in the storage (tf32: 13)
  encoding enc = encoding::ieee;  ///< how the special values are encoded
  bool is_signed = true;        ///< whether the code has a sign bit
  int bias = 0;                 ///< the exponent bias

  int bits = 0;                 ///< width of the format itself (tf32: 19), as numpy's finfo.bits
  int storage_bits = 0;         ///< bits of the stored value
  bool has_infinity = false;    ///< whether +-inf exist
  bool has_nan = false;         ///< whether a NaN exists
  bool has_signed_zero = false; ///< whether -0 exists
  bool has_zero = false;        ///< whether 0 exists (not in E8M0)
  bool has_subnormals = false;  ///< whether subnormals exist

  /// Masks over the code (the storage shifted right by padding_bits).
  std::uint64_t mantissa_mask = 0;
  std::uint64_t exponent_field_max = 0;  ///< all exponent bits set
  std::uint64_t magnitude_mask = 0;      ///< exponent and mantissa bits
  std::uint64_t sign_mask = 0;           ///< the sign bit (0: unsigned)
  std::uint64_t max_code = 0;            ///< magnitude code of the largest finite value
  int emin = 0;  ///< exponent (unbiased) of the smallest normal
  int emax = 0;  ///< exponent of the largest finite value
  int qmin = 0;  ///< exponent of the quantum of the smallest positive value (subnormal spacing)

  /// Why (E, M, enc, padding, bias, signed) is not a format, or nullptr when it is one. The rules
  /// are format<...>'s static_asserts.
  MIXPREC_HD static constexpr const char* invalid_reason(int e, int m, encoding enc = encoding::ieee, int padding = 0,
                                                         int bias = 0, bool is_signed = true) noexcept {
    if (e < 1 || e > 11) return "exponent bits must be in [1, 11]";
    if (m < 0 || m > 52) return "mantissa bits must be in [0, 52]";
    if (padding < 0) return "padding bits must be non-negative";
    if ((is_signed ? 1 : 0) + e + m + padding > 64) return "storage wider than 64 bits";
    if (enc == encoding::ieee && m < 1) return "the ieee encoding needs a mantissa bit";
    if (enc == encoding::exponent_only && m != 0) return "the exponent_only encoding has no mantissa bits";
    if (enc == encoding::exponent_only && is_signed) return "the exponent_only encoding is unsigned";
    if (enc == encoding::fnuz && !is_signed) return "the fnuz encoding needs a sign bit (its NaN is -0)";
    if (bias <= -2048 || bias >= 2048) return "the exponent bias must be in (-2048, 2048)";
    const format_desc f = derive(e, m, enc, padding, bias, is_signed);
    if (!(f.qmin <= 0 && f.emax >= 0)) return "the format must represent 1 (bias out of range)";
    return nullptr;
  }

  /// The description of (E, M, enc, padding, bias, signed); bias defaults to IEEE's
  /// 2^(E-1) - 1 (+1 for fnuz). Check invalid_reason first: an invalid tuple gives an
  /// unspecified description.
  MIXPREC_HD static constexpr format_desc make(int e, int m, encoding enc = encoding::ieee, int padding = 0) noexcept {
    return derive(e, m, enc, padding, detail::default_bias(e, enc), enc != encoding::exponent_only);
  }
  /// As make(e, m, enc, padding), with an explicit bias and sign.
  MIXPREC_HD static constexpr format_desc make(int e, int m, encoding enc, int padding, int bias,
                                               bool is_signed) noexcept {
    return derive(e, m, enc, padding, bias, is_signed);
  }

  /// The same format (every field equal).
  friend MIXPREC_HD constexpr bool operator==(const format_desc& a, const format_desc& b) noexcept {
    return a.exponent_bits == b.exponent_bits && a.mantissa_bits == b.mantissa_bits &&
           a.padding_bits == b.padding_bits && a.enc == b.enc && a.is_signed == b.is_signed && a.bias == b.bias;
  }
  /// Not the same format.
  friend MIXPREC_HD constexpr bool operator!=(const format_desc& a, const format_desc& b) noexcept {
    return !(a == b);
  }

 private:
  MIXPREC_HD static constexpr format_desc derive(int e, int m, encoding enc, int padding, int bias,
                                                 bool is_signed) noexcept {
    format_desc f;
    f.exponent_bits = e;
    f.mantissa_bits = m;
    f.padding_bits = padding;
    f.enc = enc;
    f.is_signed = is_signed;
    f.bias = bias;
    f.bits = (is_signed ? 1 : 0) + e + m;
    f.storage_bits = f.bits + padding;
    f.has_infinity = enc == encoding::ieee;
    f.has_nan = enc != encoding::finite;
    f.has_signed_zero = is_signed && (enc == encoding::ieee || enc == encoding::fn || enc == encoding::finite);
    f.has_zero = enc != encoding::exponent_only;
    f.has_subnormals = enc != encoding::exponent_only;
    f.mantissa_mask = detail::low_mask(m);
    f.exponent_field_max = detail::low_mask(e);
    f.magnitude_mask = detail::low_mask(e + m);
    f.sign_mask = is_signed ? (std::uint64_t{1} << (e + m)) : 0;
    f.max_code = enc == encoding::ieee ? (f.exponent_field_max << m) - 1
                 : (enc == encoding::fn || enc == encoding::exponent_only) ? f.magnitude_mask - 1
                                                                            : f.magnitude_mask;
    f.emin = enc == encoding::exponent_only ? -bias : 1 - bias;
    f.emax = static_cast<int>(f.max_code >> m) - bias;
    f.qmin = f.emin - m;
    return f;
  }
};

/// A binary floating-point format: ExpBits exponent bits, ManBits stored mantissa bits, an
/// encoding policy, PadBits always-zero low bits in the storage (tf32 keeps 13), the exponent
/// Bias (default: IEEE's 2^(E-1) - 1, +1 for fnuz), and whether there is a sign bit (default:
/// all encodings but exponent_only). Its members are those of its format_desc (desc), as
/// compile-time constants.
///
/// Unsigned formats (Signed = false) have no sign bit: bits above the code are ignored when read
/// and cleared by from_bits; -0 converts to their one zero, every other negative value to NaN (to 0
/// without NaN), in every mode (docs/pages/formats.md). fnuz needs a sign bit (its NaN is -0's code).
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

  /// The run-time description of this format (every member below is one of its fields).
  static constexpr format_desc desc = format_desc::make(ExpBits, ManBits, Enc, PadBits, Bias, Signed);

  static constexpr int exponent_bits = desc.exponent_bits;  ///< E
  static constexpr int mantissa_bits = desc.mantissa_bits;  ///< M
  static constexpr int padding_bits = desc.padding_bits;    ///< zero bits below the code in the storage (tf32: 13)
  static constexpr encoding enc = desc.enc;                 ///< how the special values are encoded

  static constexpr bool is_signed = desc.is_signed;  ///< whether the code has a sign bit
  /// Width of the format itself (tf32: 19), as numpy's finfo.bits reports it.
  static constexpr int bits = desc.bits;
  static constexpr int storage_bits = desc.storage_bits;  ///< bits of the stored value
  static_assert(storage_bits <= 64, "storage wider than 64 bits");
  using storage_type = detail::uint_least_t<storage_bits>;  ///< the unsigned integer that stores a value

  static constexpr bool has_infinity = desc.has_infinity;        ///< whether +-inf exist
  static constexpr bool has_nan = desc.has_nan;                  ///< whether a NaN exists
  static constexpr bool has_signed_zero = desc.has_signed_zero;  ///< whether -0 exists
  static constexpr bool has_zero = desc.has_zero;                ///< whether 0 exists (not in E8M0)
  static constexpr bool has_subnormals = desc.has_subnormals;    ///< whether subnormals exist

  static constexpr int bias = desc.bias;  ///< the exponent bias

  /// Masks over the code (the storage shifted right by PadBits).
  static constexpr std::uint64_t mantissa_mask = desc.mantissa_mask;
  static constexpr std::uint64_t exponent_field_max = desc.exponent_field_max;  ///< all exponent bits set
  static constexpr std::uint64_t magnitude_mask = desc.magnitude_mask;  ///< exponent and mantissa bits
  static constexpr std::uint64_t sign_mask = desc.sign_mask;  ///< the sign bit (0: unsigned)

  /// Magnitude code of the largest finite value.
  static constexpr std::uint64_t max_code = desc.max_code;
  /// Exponent (unbiased) of the smallest normal and of the largest finite value.
  static constexpr int emin = desc.emin;
  static constexpr int emax = desc.emax;  ///< exponent of the largest finite value
  /// Exponent of the quantum of the smallest positive value (subnormal spacing).
  static constexpr int qmin = desc.qmin;

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
