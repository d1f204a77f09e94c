// SPDX-License-Identifier: MIT
// mixprec/core/detail/bits.hpp — bit casts, leading-zero counts and unsigned storage selection.
#ifndef MIXPREC_DETAIL_BITS_HPP
#define MIXPREC_DETAIL_BITS_HPP

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../config.hpp"

namespace mixprec {
namespace detail {

template <class To, class From>
MIXPREC_HD MIXPREC_CONSTEXPR_BIT_CAST To bit_cast(const From& from) noexcept {
  static_assert(sizeof(To) == sizeof(From), "bit_cast needs equal sizes");
#if defined(MIXPREC_BIT_CAST_BUILTIN)
  return __builtin_bit_cast(To, from);
#elif defined(MIXPREC_BIT_CAST_STD)
  return std::bit_cast<To>(from);
#else
  To to;
  std::memcpy(&to, &from, sizeof(To));
  return to;
#endif
}

/// Number of leading zero bits of a non-zero 64-bit value.
MIXPREC_HD constexpr int clz64(std::uint64_t x) noexcept {
#if defined(__GNUC__) || defined(__clang__) || defined(__CUDA_ARCH__)
  return __builtin_clzll(x);  // nvcc: clz.b64 in device code, and usable in constant expressions
#else
  int n = 0;
  for (int step = 32; step > 0; step /= 2) {
    if ((x >> (64 - step)) == 0) {
      n += step;
      x <<= step;
    }
  }
  return n;
#endif
}

/// The smallest standard unsigned integer type with at least Bits bits.
template <int Bits>
using uint_least_t = std::conditional_t<
    (Bits <= 8), std::uint8_t,
    std::conditional_t<(Bits <= 16), std::uint16_t,
                       std::conditional_t<(Bits <= 32), std::uint32_t, std::uint64_t>>>;

/// 2^n - 1 for 0 <= n <= 64.
MIXPREC_HD constexpr std::uint64_t low_mask(int n) noexcept {
  return n >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << n) - 1);
}

/// a == b for float or double, as intended: an exact comparison (false when either is NaN),
/// spelled without == so that user code compiled with -Wfloat-equal stays quiet.
template <class T>
MIXPREC_HD constexpr bool exact_eq(T a, T b) noexcept {
  return a <= b && a >= b;
}
/// x != x for float or double (true exactly for NaN), without -Wfloat-equal.
template <class T>
MIXPREC_HD constexpr bool is_nan_value(T x) noexcept {
  return !(x <= x);
}

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_BITS_HPP
