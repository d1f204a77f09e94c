// SPDX-License-Identifier: MIT
// mixprec/core/basic_float.hpp — the value type over a format, and the traits that let every
// conversion treat float, double and mixprec types alike.
// Contract: a basic_float holds exactly one bit pattern of its format; it converts like C++23's
// std::float16_t (see basic_float), rounding once to nearest-even.
//
//   mixprec::half h = 1;                       // implicit from int
//   auto b = mixprec::half::from_bits(0x3555); // 0.333251953125
#ifndef MIXPREC_BASIC_FLOAT_HPP
#define MIXPREC_BASIC_FLOAT_HPP

#include <cstdint>
#include <type_traits>

#include "detail/codec.hpp"
#include "detail/fast_float32.hpp"
#include "detail/to_integer.hpp"
#include "format.hpp"
#include "rounding.hpp"

namespace mixprec {

template <class Format>
class basic_float;

/// Tells whether T is a mixprec value type.
template <class T>
struct is_mixprec_float : std::false_type {};
/// True for every basic_float.
template <class F>
struct is_mixprec_float<basic_float<F>> : std::true_type {};

/// float_traits<T>: the format of T and how to reach its bits; defined for float, double and
/// every basic_float.
template <class T>
struct float_traits;

namespace detail {
/// float_traits of a standard floating type T of format Format, bits in Storage.
template <class T, class Format, class Storage>
struct standard_float_traits {
  using format_type = Format;    ///< The format
  using storage_type = Storage;  ///< The bit pattern's type
  /// The bit pattern of x.
  MIXPREC_HD static MIXPREC_CONSTEXPR_BIT_CAST storage_type to_bits(T x) noexcept { return bit_cast<storage_type>(x); }
  /// The T whose bit pattern is b.
  MIXPREC_HD static MIXPREC_CONSTEXPR_BIT_CAST T from_bits(storage_type b) noexcept { return bit_cast<T>(b); }
};
}  // namespace detail

/// float: binary32, bits in a std::uint32_t.
template <>
struct float_traits<float> : detail::standard_float_traits<float, float32_format, std::uint32_t> {};
/// double: binary64, bits in a std::uint64_t.
template <>
struct float_traits<double> : detail::standard_float_traits<double, float64_format, std::uint64_t> {};

/// basic_float<F>: format F, bits as F::storage_type.
template <class F>
struct float_traits<basic_float<F>> {
  using format_type = F;                          ///< The format
  using storage_type = typename F::storage_type;  ///< The bit pattern's type
  /// x.bits().
  MIXPREC_HD static constexpr storage_type to_bits(basic_float<F> x) noexcept { return x.bits(); }
  /// basic_float<F>::from_bits(b).
  MIXPREC_HD static constexpr basic_float<F> from_bits(storage_type b) noexcept {
    return basic_float<F>::from_bits(b);
  }
};

/// Tells whether T is float, double or a mixprec type.
template <class T>
struct is_binary_float
    : std::integral_constant<bool, std::is_same<T, float>::value || std::is_same<T, double>::value ||
                                       is_mixprec_float<T>::value> {};

namespace detail {

/// The exact value of x: a float, double, mixprec value or integer.
template <class S>
MIXPREC_HD constexpr exact_value decode_value(S x) noexcept {
  if constexpr (std::is_integral<S>::value) {
    return decode_integer(x);
  } else {
    static_assert(is_binary_float<S>::value,
                  "mixprec converts from float, double, integers and mixprec types");
    using Tr = float_traits<S>;
    return decode_bits<typename Tr::format_type>(Tr::to_bits(x));
  }
}

/// Rounds x once to the bits of target type T.
template <class T, class S>
MIXPREC_HD constexpr typename float_traits<T>::storage_type round_bits(S x, rounding mode, overflow policy,
                                                                       std::uint32_t random_bits) noexcept {
  using F = typename float_traits<T>::format_type;
  if constexpr (std::is_same<S, float>::value && fast_from_float32<F>) {
    if (mode == rounding::nearest_even) return float32_to_rne<F>(float_traits<float>::to_bits(x), policy);
  }
  if constexpr (std::is_same<T, float>::value && is_mixprec_float<S>::value) {
    // Widening to float is exact in every mode; the same bits as static_cast<float>(x).
    if constexpr (fast_to_float32<typename float_traits<S>::format_type>) {
      return to_float32_bits<typename float_traits<S>::format_type>(x.bits());
    }
  }
  return encode_bits<F>(decode_value(x), mode, policy, random_bits);
}

}  // namespace detail

namespace detail {

/// Whether every value of format F (NaN and infinities included) is a value of format G, so that
/// converting F to G is exact.
template <class F, class G>
constexpr bool holds_all_values = F::mantissa_bits <= G::mantissa_bits && F::emax <= G::emax &&
                                  F::qmin >= G::qmin && (!F::has_nan || G::has_nan) &&
                                  (!F::has_infinity || G::has_infinity) &&
                                  (F::is_signed <= G::is_signed);

/// The standard floating type a format widens to implicitly: the narrowest of float and double
/// that holds all its values (C++23's conversion-rank rule), or none.
enum class widening : unsigned char { to_float, to_double, none };
template <class F>
constexpr widening widening_of = holds_all_values<F, float32_format>   ? widening::to_float
                                 : holds_all_values<F, float64_format> ? widening::to_double
                                                                       : widening::none;

template <class F>
MIXPREC_HD MIXPREC_CONSTEXPR_BIT_CAST float to_float(typename F::storage_type bits) noexcept {
  if constexpr (fast_to_float32<F>) {
    return float_traits<float>::from_bits(to_float32_bits<F>(bits));
  } else {
    return float_traits<float>::from_bits(encode_bits<float32_format>(decode_bits<F>(bits), rounding::nearest_even, overflow::ieee));
  }
}

template <class F>
MIXPREC_HD MIXPREC_CONSTEXPR_BIT_CAST double to_double(typename F::storage_type bits) noexcept {
  if constexpr (fast_to_float32<F>) {
    // (Quiet first: a double NaN is always quiet, also in constant evaluation.)
    return static_cast<double>(float_traits<float>::from_bits(to_float32_bits_quiet<F>(bits)));
  } else {
    return float_traits<double>::from_bits(encode_bits<float64_format>(decode_bits<F>(bits), rounding::nearest_even, overflow::ieee));
  }
}

/// The conversions of basic_float<F> to float, double and long double: implicit to the type
/// widening_of<F> names (and through it to every wider one), explicit (rounding to
/// nearest-even) otherwise. Base classes because C++17 has no explicit(bool).
template <class F>
struct conversions_base {
  MIXPREC_HD explicit MIXPREC_CONSTEXPR_BIT_CAST operator long double() const noexcept {
    return static_cast<long double>(to_double<F>(bits()));
  }

 protected:
  MIXPREC_HD constexpr typename F::storage_type bits() const noexcept {
    return static_cast<const basic_float<F>&>(*this).bits();
  }
};

template <class F, widening W = widening_of<F>>
struct float_conversions : conversions_base<F> {  // widening::none
  MIXPREC_HD explicit MIXPREC_CONSTEXPR_BIT_CAST operator float() const noexcept { return to_float<F>(this->bits()); }
  MIXPREC_HD explicit MIXPREC_CONSTEXPR_BIT_CAST operator double() const noexcept { return to_double<F>(this->bits()); }
};

template <class F>
struct float_conversions<F, widening::to_float> : conversions_base<F> {
  MIXPREC_HD MIXPREC_CONSTEXPR_BIT_CAST operator float() const noexcept { return to_float<F>(this->bits()); }
  MIXPREC_HD explicit MIXPREC_CONSTEXPR_BIT_CAST operator double() const noexcept { return to_double<F>(this->bits()); }
};

template <class F>
struct float_conversions<F, widening::to_double> : conversions_base<F> {
  MIXPREC_HD explicit MIXPREC_CONSTEXPR_BIT_CAST operator float() const noexcept { return to_float<F>(this->bits()); }
  MIXPREC_HD MIXPREC_CONSTEXPR_BIT_CAST operator double() const noexcept { return to_double<F>(this->bits()); }
};

}  // namespace detail

/// A floating-point number of format Format, stored in Format::storage_type. It converts like
/// C++23's std::float16_t / std::bfloat16_t: implicitly from integers and to a standard type that
/// holds every value, explicitly otherwise; into Format with one rounding to nearest-even, to
/// integers truncating (the rules: docs/pages/semantics.md).
///
///   mixprec::half h = 1;              // implicit from int
///   float f = h * 2.5f;               // half op float is float
///   int i = static_cast<int>(h / 3);  // 0: truncated
template <class Format>
class basic_float : public detail::float_conversions<Format> {
  static_assert(is_format<Format>::value, "basic_float needs a mixprec::format");

 public:
  using format_type = Format;                          ///< The format (e.g. binary16_format)
  using storage_type = typename Format::storage_type;  ///< Unsigned integer holding the bits

  /// +0 (2^-127 for e8m0fnu, which has no zero).
  constexpr basic_float() noexcept = default;

  /// x rounded once to nearest-even under overflow::ieee.
  MIXPREC_HD explicit MIXPREC_CONSTEXPR_BIT_CAST basic_float(float x) noexcept
      : bits_(detail::round_bits<basic_float>(x, rounding::nearest_even, overflow::ieee, 0)) {}
  /// x rounded once to nearest-even, as from float.
  MIXPREC_HD explicit MIXPREC_CONSTEXPR_BIT_CAST basic_float(double x) noexcept
      : bits_(detail::round_bits<basic_float>(x, rounding::nearest_even, overflow::ieee, 0)) {}
  /// Implicit, like the conversion of an integer to float (bool gives 0 or 1).
  template <class I, std::enable_if_t<std::is_integral<I>::value, int> = 0>
  MIXPREC_HD constexpr basic_float(I x) noexcept  // NOLINT(google-explicit-constructor)
      : bits_(detail::round_bits<basic_float>(x, rounding::nearest_even, overflow::ieee, 0)) {}
  /// The exact value of x rounded once to nearest-even (no double rounding through float).
  template <class F2, std::enable_if_t<!std::is_same<F2, Format>::value, int> = 0>
  MIXPREC_HD explicit constexpr basic_float(basic_float<F2> x) noexcept
      : bits_(detail::round_bits<basic_float>(x, rounding::nearest_even, overflow::ieee, 0)) {}

  /// The value whose bit pattern is b. Bits beyond the format's width, and the padding bits of
  /// tf32, are cleared.
  MIXPREC_HD static constexpr basic_float from_bits(storage_type b) noexcept {
    basic_float r;
    r.bits_ = static_cast<storage_type>(
        b & detail::low_mask(Format::storage_bits) & ~detail::low_mask(Format::padding_bits));
    return r;
  }
  /// The bit pattern (the padding bits of tf32 are 0).
  MIXPREC_HD constexpr storage_type bits() const noexcept { return bits_; }

  /// False for +-0, true otherwise (NaN included).
  MIXPREC_HD explicit constexpr operator bool() const noexcept {
    return detail::decode_bits<Format>(bits_).cls != detail::value_class::zero;
  }
  /// Truncates toward zero; out of range saturates to I's min or max, NaN gives 0.
  template <class I, std::enable_if_t<std::is_integral<I>::value && !std::is_same<I, bool>::value, int> = 0>
  MIXPREC_HD explicit constexpr operator I() const noexcept {
    return detail::round_to_integer<I>(detail::decode_bits<Format>(bits_), rounding::toward_zero, 0);
  }

 private:
  storage_type bits_ = 0;
};

}  // namespace mixprec

#endif  // MIXPREC_BASIC_FLOAT_HPP
