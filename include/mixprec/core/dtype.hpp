// SPDX-License-Identifier: MIT
// mixprec/core/dtype.hpp — a scalar type as a run-time value (torch.dtype / jnp.dtype for C++).
//
// Contract: a dtype names a floating format by its format_desc (equality compares the
// description, never the name), an integer type, bool, or undefined; fits_in and promote_types
// answer as torch does, constexpr and usable in device code. The rules:
// docs/pages/formats.md ("Types as run-time values (dtype)").
//
//   mixprec::dtype t = mixprec::dtype::of<mixprec::half>();            // or mixprec::dtype_v<half>
//   t.name();                                                          // "float16"
//   mixprec::promote_types(dtype::float16(), dtype::bfloat16());       // float32
#ifndef MIXPREC_DTYPE_HPP
#define MIXPREC_DTYPE_HPP

#include <iosfwd>  // operator<< is declared for any basic_ostream; <ostream> comes from the caller
#include <string_view>
#include <type_traits>

#include "finfo.hpp"
#include "format.hpp"
#include "types.hpp"

namespace mixprec {

/// What kind of scalar a dtype describes.
enum class dtype_kind : unsigned char { undefined, boolean, integer, floating };

namespace detail {
/// The name of the built-in floating format (float, double or a types.hpp type) that d
/// describes; fallback when d describes none of them. (No pointer comparison: GCC's
/// -fsanitize=undefined does not fold one in a constant expression.)
template <class T, class... Rest>
MIXPREC_HD constexpr const char* builtin_float_name(const format_desc& d, const char* fallback) noexcept {
  using F = typename float_traits<T>::format_type;
  if (d == format_desc::make(F::exponent_bits, F::mantissa_bits, F::enc, F::padding_bits, F::bias, F::is_signed)) {
    return format_name<F>::value;
  }
  if constexpr (sizeof...(Rest) == 0) {
    return fallback;
  } else {
    return builtin_float_name<Rest...>(d, fallback);
  }
}
}  // namespace detail

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
      return dtype(dtype_kind::boolean, 8, false, "bool");
    } else if constexpr (std::is_integral<U>::value) {
      return dtype(dtype_kind::integer, static_cast<unsigned char>(sizeof(U) * 8), std::is_signed<U>::value,
                   integer_name(sizeof(U) * 8, std::is_signed<U>::value));
    } else {
      static_assert(is_binary_float<U>::value,
                    "mixprec::dtype::of<T>: T must be float, double, a mixprec type, bool or an integer type");
      using F = typename float_traits<U>::format_type;
      return dtype(format_desc::make(F::exponent_bits, F::mantissa_bits, F::enc, F::padding_bits, F::bias,
                                     F::is_signed),
                   detail::format_name<F>::value);
    }
  }

  /// The floating dtype that d describes (d must be a format: format_desc::invalid_reason gives
  /// nullptr). Named as the built-in format d describes ("float16", "float32", ...); a format that
  /// is none of them is named name (a string that outlives the dtype; default "custom"; null reads
  /// as "custom").
  ///   dtype::of(format_desc::make(8, 7)) == dtype::bfloat16()
  MIXPREC_HD static constexpr dtype of(const format_desc& d, const char* name = "custom") noexcept {
    return dtype(d, detail::builtin_float_name<float, double, half, mixprec::bfloat16, tf32, float8_e4m3fn,
                                               float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu,
                                               float6_e2m3fn, float6_e3m2fn, float4_e2m1fn, float8_e3m4, float8_e4m3,
                                               float8_e4m3b11fnuz, float4_e1m2, float8_ue4m3, float8_ue5m3>(
                         d, name != nullptr ? name : "custom"));
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
  /// Whether values can be negative.
  MIXPREC_HD constexpr bool is_signed() const noexcept { return is_floating_point() ? desc_.is_signed : signed_; }
  /// Width of the format (tf32: 19; int32: 32; bool: 8); 0 when undefined.
  MIXPREC_HD constexpr int bits() const noexcept { return is_floating_point() ? desc_.bits : bits_; }
  /// The description of a floating format (a default format_desc, every field 0, otherwise).
  MIXPREC_HD constexpr format_desc desc() const noexcept { return desc_; }
  /// Floating only (0 otherwise): field widths, encoding, always-zero low storage bits.
  MIXPREC_HD constexpr int exponent_bits() const noexcept { return desc_.exponent_bits; }
  MIXPREC_HD constexpr int mantissa_bits() const noexcept { return desc_.mantissa_bits; }  ///< mantissa bits
  MIXPREC_HD constexpr encoding enc() const noexcept { return desc_.enc; }  ///< the encoding of the special values
  MIXPREC_HD constexpr int padding_bits() const noexcept { return desc_.padding_bits; }  ///< zero bits below the code
  /// Floating only: the exponent bias.
  MIXPREC_HD constexpr int bias() const noexcept { return desc_.bias; }
  /// Floating only: unbiased exponents of the smallest normal and of the largest finite value.
  MIXPREC_HD constexpr int emin() const noexcept { return desc_.emin; }
  MIXPREC_HD constexpr int emax() const noexcept { return desc_.emax; }  ///< exponent of the largest finite value

  /// "float16", "bfloat16", "float32", "int64", "bool", "undefined", ...
  constexpr std::string_view name() const noexcept { return std::string_view(name_); }

  /// Every finite value of *this is a value of other (both floating; false otherwise).
  MIXPREC_HD constexpr bool fits_in(dtype other) const noexcept {
    return is_floating_point() && other.is_floating_point() && desc_.mantissa_bits <= other.desc_.mantissa_bits &&
           desc_.emax <= other.desc_.emax && desc_.emin >= other.desc_.emin &&
           (!desc_.is_signed || other.desc_.is_signed);
  }

  /// Same kind; integers and bool: the same width and sign; floating: the same description.
  MIXPREC_HD friend constexpr bool operator==(dtype a, dtype b) noexcept {
    return a.kind_ == b.kind_ && a.bits_ == b.bits_ && a.signed_ == b.signed_ && a.desc_ == b.desc_;
  }
  MIXPREC_HD friend constexpr bool operator!=(dtype a, dtype b) noexcept { return !(a == b); }  ///< !(a == b)

 private:
  MIXPREC_HD constexpr dtype(dtype_kind k, unsigned char bits, bool is_signed, const char* name) noexcept
      : kind_(k), bits_(bits), signed_(is_signed), name_(name) {}
  MIXPREC_HD constexpr dtype(const format_desc& d, const char* name) noexcept
      : kind_(dtype_kind::floating), desc_(d), name_(name) {}

  MIXPREC_HD static constexpr const char* integer_name(std::size_t bits, bool is_signed) noexcept {
    return bits == 8    ? (is_signed ? "int8" : "uint8")
           : bits == 16 ? (is_signed ? "int16" : "uint16")
           : bits == 32 ? (is_signed ? "int32" : "uint32")
           : bits == 64 ? (is_signed ? "int64" : "uint64")
                        : (is_signed ? "int" : "uint");
  }

  dtype_kind kind_ = dtype_kind::undefined;
  unsigned char bits_ = 0;  // integer and bool (floating: desc_.bits)
  bool signed_ = false;     // integer and bool (floating: desc_.is_signed)
  format_desc desc_{};      // floating (every field 0 otherwise)
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
