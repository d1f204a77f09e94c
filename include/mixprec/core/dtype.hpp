// SPDX-License-Identifier: MIT
// mixprec/core/dtype.hpp — a scalar type as a run-time value (torch.dtype / jnp.dtype for C++).
//
//   mixprec::dtype t = mixprec::dtype::of<mixprec::half>();     // or mixprec::dtype_v<half>
//   t.name();                  // "float16"
//   t == mixprec::dtype::float16();
//   mixprec::promote_types(dtype::float16(), dtype::bfloat16());   // float32, as torch.promote_types
//   std::cout << t;            // float16 (operator<< writes name(); fmt.hpp / std_format.hpp format it)
//
// Autocast and precision policies decide types at run time (a thread-local autocast dtype, a
// policy parsed from a string), so they need types as values. A dtype identifies:
//   - a floating format by its fields (exponent bits, mantissa bits, encoding, padding bits,
//     bias, sign bit):
//     float, double and every mixprec::basic_float; dtype::of<float>() == dtype::float32();
//   - an integer type by its width and signedness ("int32", "uint8", ...), and bool;
//   - "undefined" (the default-constructed value): no type, e.g. no floating argument.
// Names are those of mixprec::finfo (numpy/ml_dtypes spelling): "float16", "bfloat16", "tf32",
// "float32", "float64", "float8_e4m3fn", ...
//
// Decisions:
//   - Equality compares the description, never the name: two spellings of one format are
//     one dtype.
//   - fits_in(a, b) is "every finite value of a is a value of b" (mantissa and exponent range;
//     infinities/NaN are not considered). promote_types(a, b) is the narrower-into-wider
//     answer when one fits in the other, else the first of float32, float64 that holds both
//     (float16 with bfloat16 gives float32, as torch.promote_types does). Floating types only;
//     anything else gives undefined.
//   - Everything is constexpr and usable in device code.
#ifndef MIXPREC_DTYPE_HPP
#define MIXPREC_DTYPE_HPP

#include <iosfwd>  // operator<< is declared for any basic_ostream; <ostream> comes from the caller
#include <string_view>
#include <type_traits>

#include "finfo.hpp"
#include "types.hpp"

namespace mixprec {

/// What kind of scalar a dtype describes.
enum class dtype_kind : unsigned char { undefined, boolean, integer, floating };

/// A scalar type as a value. See the top of this header.
class dtype {
 public:
  /// The undefined dtype ("undefined").
  constexpr dtype() noexcept = default;

  /// The dtype of T: float, double, a mixprec type, bool or an integer type.
  template <class T>
  MIXPREC_HD static constexpr dtype of() noexcept {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same<U, bool>::value) {
      return dtype(dtype_kind::boolean, 8, false, 0, 0, encoding::ieee, 0, 0, 0, 0, "bool");
    } else if constexpr (std::is_integral<U>::value) {
      return dtype(dtype_kind::integer, static_cast<unsigned char>(sizeof(U) * 8), std::is_signed<U>::value, 0, 0,
                   encoding::ieee, 0, 0, 0, 0, integer_name(sizeof(U) * 8, std::is_signed<U>::value));
    } else {
      static_assert(is_binary_float<U>::value,
                    "mixprec::dtype::of<T>: T must be float, double, a mixprec type, bool or an integer type");
      using F = typename float_traits<U>::format_type;
      return dtype(dtype_kind::floating, static_cast<unsigned char>(F::bits), F::is_signed,
                   static_cast<unsigned char>(F::exponent_bits), static_cast<unsigned char>(F::mantissa_bits), F::enc,
                   static_cast<unsigned char>(F::padding_bits), F::bias, F::emin, F::emax,
                   detail::format_name<F>::value);
    }
  }

  /// The dtypes of half, bfloat16, float and double.
  MIXPREC_HD static constexpr dtype float16() noexcept { return of<half>(); }
  MIXPREC_HD static constexpr dtype bfloat16() noexcept { return of<mixprec::bfloat16>(); }  ///< of<bfloat16>()
  MIXPREC_HD static constexpr dtype float32() noexcept { return of<float>(); }   ///< of<float>()
  MIXPREC_HD static constexpr dtype float64() noexcept { return of<double>(); }  ///< of<double>()

  MIXPREC_HD constexpr dtype_kind kind() const noexcept { return kind_; }  ///< floating, integer, boolean or undefined
  /// Whether this names a type (a default dtype does not).
  MIXPREC_HD constexpr bool is_defined() const noexcept { return kind_ != dtype_kind::undefined; }
  /// Whether this is a floating-point type (float, double or a mixprec format).
  MIXPREC_HD constexpr bool is_floating_point() const noexcept { return kind_ == dtype_kind::floating; }
  MIXPREC_HD constexpr bool is_signed() const noexcept { return signed_; }  ///< whether values can be negative
  /// Width of the format (tf32: 19; int32: 32; bool: 8); 0 when undefined.
  MIXPREC_HD constexpr int bits() const noexcept { return bits_; }
  /// Floating only (0 otherwise): field widths, encoding, always-zero low storage bits.
  MIXPREC_HD constexpr int exponent_bits() const noexcept { return exponent_bits_; }
  MIXPREC_HD constexpr int mantissa_bits() const noexcept { return mantissa_bits_; }  ///< mantissa bits
  MIXPREC_HD constexpr encoding enc() const noexcept { return enc_; }  ///< the encoding of the special values
  MIXPREC_HD constexpr int padding_bits() const noexcept { return padding_bits_; }  ///< zero bits below the code
  /// Floating only: the exponent bias.
  MIXPREC_HD constexpr int bias() const noexcept { return bias_; }
  /// Floating only: unbiased exponents of the smallest normal and of the largest finite value.
  MIXPREC_HD constexpr int emin() const noexcept { return emin_; }
  MIXPREC_HD constexpr int emax() const noexcept { return emax_; }  ///< exponent of the largest finite value

  /// "float16", "bfloat16", "float32", "int64", "bool", "undefined", ...
  constexpr std::string_view name() const noexcept { return std::string_view(name_); }

  /// Every finite value of *this is a value of other (both floating; false otherwise).
  MIXPREC_HD constexpr bool fits_in(dtype other) const noexcept {
    return is_floating_point() && other.is_floating_point() && mantissa_bits_ <= other.mantissa_bits_ &&
           emax_ <= other.emax_ && emin_ >= other.emin_ && (!signed_ || other.signed_);
  }

  /// Same kind, width, sign, fields, encoding, padding and bias.
  MIXPREC_HD friend constexpr bool operator==(dtype a, dtype b) noexcept {
    return a.kind_ == b.kind_ && a.bits_ == b.bits_ && a.signed_ == b.signed_ &&
           a.exponent_bits_ == b.exponent_bits_ && a.mantissa_bits_ == b.mantissa_bits_ && a.enc_ == b.enc_ &&
           a.padding_bits_ == b.padding_bits_ && a.bias_ == b.bias_;
  }
  MIXPREC_HD friend constexpr bool operator!=(dtype a, dtype b) noexcept { return !(a == b); }  ///< !(a == b)

 private:
  MIXPREC_HD constexpr dtype(dtype_kind k, unsigned char bits, bool is_signed, unsigned char e, unsigned char m,
                             encoding enc, unsigned char pad, int bias, int emin, int emax, const char* name) noexcept
      : kind_(k),
        bits_(bits),
        signed_(is_signed),
        exponent_bits_(e),
        mantissa_bits_(m),
        enc_(enc),
        padding_bits_(pad),
        bias_(bias),
        emin_(emin),
        emax_(emax),
        name_(name) {}

  MIXPREC_HD static constexpr const char* integer_name(std::size_t bits, bool is_signed) noexcept {
    return bits == 8    ? (is_signed ? "int8" : "uint8")
           : bits == 16 ? (is_signed ? "int16" : "uint16")
           : bits == 32 ? (is_signed ? "int32" : "uint32")
           : bits == 64 ? (is_signed ? "int64" : "uint64")
                        : (is_signed ? "int" : "uint");
  }

  dtype_kind kind_ = dtype_kind::undefined;
  unsigned char bits_ = 0;
  bool signed_ = false;
  unsigned char exponent_bits_ = 0;
  unsigned char mantissa_bits_ = 0;
  encoding enc_ = encoding::ieee;
  unsigned char padding_bits_ = 0;
  int bias_ = 0;
  int emin_ = 0;
  int emax_ = 0;
  const char* name_ = "undefined";
};

/// dtype::of<T>() as a variable.
template <class T>
inline constexpr dtype dtype_v = dtype::of<T>();

/// The type both a and b convert to without loss (floating only; see the top of this header).
MIXPREC_HD constexpr dtype promote_types(dtype a, dtype b) noexcept {
  if (!a.is_floating_point() || !b.is_floating_point()) return dtype();
  if (a.fits_in(b)) return b;
  if (b.fits_in(a)) return a;
  if (a.fits_in(dtype::float32()) && b.fits_in(dtype::float32())) return dtype::float32();
  if (a.fits_in(dtype::float64()) && b.fits_in(dtype::float64())) return dtype::float64();
  return dtype();
}

/// Writes t.name() as a string is written (width, fill and adjustment apply; wide streams widen
/// it). Declared for any std::basic_ostream without including the ostream header: the caller's stream
/// header brings the character output it uses.
///   std::ostringstream s;  s << std::setw(10) << mixprec::dtype::bfloat16() << '|';  // "  bfloat16|"
template <class CharT, class Traits>
std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os, dtype t) {
  return os << t.name().data();  // name() views a NUL-terminated literal or constant
}

}  // namespace mixprec

#endif  // MIXPREC_DTYPE_HPP
