// SPDX-License-Identifier: MIT
// mixprec/core/finfo.hpp — machine limits in the style of numpy.finfo / ml_dtypes.finfo.
#ifndef MIXPREC_FINFO_HPP
#define MIXPREC_FINFO_HPP

#include <cstdint>

#include "detail/values.hpp"
#include "types.hpp"

namespace mixprec {
namespace detail {

struct name_buffer {
  char text[32];
};

MIXPREC_HD constexpr void append(name_buffer& b, int& n, const char* s) noexcept {
  while (*s != '\0') b.text[n++] = *s++;
}
MIXPREC_HD constexpr void append(name_buffer& b, int& n, int v) noexcept {
  if (v < 0) {
    b.text[n++] = '-';
    v = -v;
  }
  char digits[8] = {};
  int k = 0;
  do {
    digits[k++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v > 0);
  while (k > 0) b.text[n++] = digits[--k];
}

/// "float<bits>_[u]e<E>m<M>[b<bias>]<suffix>", the ml_dtypes naming scheme ("u": unsigned with
/// mantissa bits; "b<bias>" where the bias is not the default, as in float8_e4m3b11fnuz).
template <class F>
MIXPREC_HD constexpr name_buffer generated_name() noexcept {
  name_buffer b{};
  int n = 0;
  append(b, n, "float");
  append(b, n, F::bits);
  append(b, n, (!F::is_signed && F::enc != encoding::exponent_only) ? "_ue" : "_e");
  append(b, n, F::exponent_bits);
  append(b, n, "m");
  append(b, n, F::mantissa_bits);
  if (F::bias != default_bias(F::exponent_bits, F::enc)) {
    append(b, n, "b");
    append(b, n, F::bias);
  }
  switch (F::enc) {
    case encoding::ieee: break;
    case encoding::fn:
    case encoding::finite: append(b, n, "fn"); break;
    case encoding::fnuz: append(b, n, "fnuz"); break;
    case encoding::exponent_only: append(b, n, "fnu"); break;
  }
  b.text[n] = '\0';
  return b;
}

template <class F>
struct format_name {
  static constexpr name_buffer buffer = generated_name<F>();
  static constexpr const char* value = buffer.text;
};
template <>
struct format_name<format<5, 10>> {
  static constexpr const char* value = "float16";
};
template <>
struct format_name<format<8, 7>> {
  static constexpr const char* value = "bfloat16";
};
template <>
struct format_name<format<8, 10, encoding::ieee, 13>> {
  static constexpr const char* value = "tf32";
};
template <>
struct format_name<float4_e1m2::format_type> {  // ml_dtypes#281's name (the scheme would add "fn")
  static constexpr const char* value = "float4_e1m2";
};
template <>
struct format_name<float8_ue4m3::format_type> {  // CUTLASS/CUDA's name for 7 bits in a byte
  static constexpr const char* value = "float8_ue4m3";
};
template <>
struct format_name<float8_ue5m3::format_type> {
  static constexpr const char* value = "float8_ue5m3";
};
template <>
struct format_name<float32_format> {
  static constexpr const char* value = "float32";
};
template <>
struct format_name<float64_format> {
  static constexpr const char* value = "float64";
};

/// floor(k * log10(2)) for 0 <= k <= 2000.
MIXPREC_HD constexpr int floor_log10_pow2(int k) noexcept { return (k * 30103) / 100000; }

}  // namespace detail

/// Machine limits of T (any mixprec type, float or double), with the members and values of
/// numpy.finfo / ml_dtypes.finfo; values of the format are of type T, exponents int. For unsigned
/// formats min is the smallest value (0, or tiny for e8m0fnu); precision is at least 1 for every
/// 8-bit format (as ml_dtypes); a format without a built-in name is named
/// "float<bits>_[u]e<E>m<M>[b<bias>][fn|fnuz|fnu]". finfo<T>() prints as torch.finfo's repr:
///   std::cout << mixprec::finfo<mixprec::half>();  // finfo(resolution=0.0010004, min=-65504, ...)
template <class T>
struct finfo {
  using type = T;  ///< the type described
  using format_type = typename float_traits<T>::format_type;  ///< its mixprec::format

 private:
  using F = format_type;
  static constexpr std::uint64_t one = detail::one_code<F>();
  static constexpr int machep_ = detail::exponent_of_code<F>(
      detail::encode_bits<F>(detail::decode_value(static_cast<double>(detail::from_code<T>(one + 1)) - 1.0),
                      rounding::nearest_even, overflow::ieee) >>
      F::padding_bits);
  static constexpr int negep_ = detail::exponent_of_code<F>(
      detail::encode_bits<F>(detail::decode_value(1.0 - static_cast<double>(detail::from_code<T>(one - 1))),
                      rounding::nearest_even, overflow::ieee) >>
      F::padding_bits);
  static constexpr int precision_raw = detail::floor_log10_pow2(-machep_);

  static constexpr double pow10_neg(int p) noexcept {
    double d = 1.0;
    for (int i = 0; i < p; ++i) d *= 10.0;
    return 1.0 / d;
  }

 public:
  static constexpr const char* name = detail::format_name<F>::value;  ///< ml_dtypes-style name, e.g. "float8_e4m3fn"
  static constexpr int bits = F::bits;        ///< width of the format (sign, exponent, mantissa)
  static constexpr int nmant = F::mantissa_bits;  ///< mantissa bits
  static constexpr int nexp = F::exponent_bits;   ///< exponent bits
  static constexpr int iexp = F::exponent_bits;   ///< exponent bits (numpy's other name)
  static constexpr int machep = machep_;  ///< log2(eps)
  static constexpr int negep = negep_;    ///< log2(epsneg)
  static constexpr int minexp = F::emin;  ///< exponent of the smallest normal value
  static constexpr int maxexp = F::emax + 1;  ///< one more than the exponent of the largest value (numpy)
  static constexpr int precision = (F::bits == 8 && precision_raw < 1) ? 1 : precision_raw;  ///< floor(-log10(eps))

  static constexpr T eps = detail::pow2<T>(machep_);        ///< next value above 1, minus 1
  static constexpr T epsneg = detail::pow2<T>(negep_);     ///< 1 minus the value below 1
  static constexpr T max = detail::max_value<T>();         ///< largest finite value
  static constexpr T min = detail::lowest_value<T>();      ///< most negative finite value (numpy's min)
  static constexpr T tiny = detail::pow2<T>(F::emin);      ///< smallest positive normal value
  static constexpr T smallest_normal = tiny;               ///< the same as tiny
  static constexpr T smallest_subnormal = detail::smallest_subnormal<T>();  ///< smallest positive value
  /// 10^-precision, rounded to T
  static constexpr T resolution = float_traits<T>::from_bits(
      detail::round_bits<T>(pow10_neg(precision), rounding::nearest_even, overflow::ieee, 0));
};

// finfo<T>'s text: operator<< (io.hpp), fmt::formatter (fmt.hpp), std::formatter (std_format.hpp).
namespace detail {

/// torch.finfo's repr of finfo<T>, "finfo(resolution=R, min=M, max=X, eps=E, smallest_normal=S,
/// tiny=S, dtype=NAME)", told piece by piece: text(const char*) for the ASCII parts and the
/// name, value(T) for each value, in that order.
template <class T, class Text, class Value>
constexpr void finfo_repr(Text text, Value value) {
  using I = finfo<T>;
  const char* const labels[] = {"finfo(resolution=", ", min=", ", max=", ", eps=", ", smallest_normal=", ", tiny="};
  const T values[] = {I::resolution, I::min, I::max, I::eps, I::smallest_normal, I::tiny};
  for (int i = 0; i < 6; ++i) {
    text(labels[i]);
    value(values[i]);
  }
  text(", dtype=");
  text(I::name);
  text(")");
}

}  // namespace detail

}  // namespace mixprec

#endif  // MIXPREC_FINFO_HPP
