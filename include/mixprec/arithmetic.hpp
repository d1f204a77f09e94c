// SPDX-License-Identifier: MIT
// mixprec/arithmetic.hpp — operators, comparisons and correctly rounded + - * / sqrt fma.
//
// Semantics
// - Two values of the same mixprec type: + - * / give the exact result rounded once to that
//   type (nearest-even); comparisons are IEEE's (NaN unordered, +0 == -0).
// - With float, double or long double: the mixprec value converts (exactly) to the standard
//   type and the result has that type, as for C++23's extended floating-point types.
// - With an integer: the integer converts to the mixprec type (rounded to nearest-even), as an
//   integer converts to float in C++; the result is the mixprec type.
// - Two different mixprec types never combine implicitly: convert one explicitly.
// - Formats without infinity: where IEEE gives +-inf (overflow, x/0), fn and fnuz formats give
//   NaN and the MX element types +-max (see mixprec::overflow). NaN operands propagate (the
//   first NaN, made quiet); invalid operations (inf - inf, 0 * inf, 0/0, sqrt(-1)) give the
//   positive quiet NaN.
// - add/sub/mul/div/fma/sqrt(x, ..., rounding, overflow) round in any mode; fma rounds once.
//
// How: formats of at most 11 significant bits compute in float, those of at most 25 in double
// (rounding the correctly rounded float/double result again is exact when the intermediate
// has at least 2p+2 bits); all others, and every mode but nearest-even, use exact integer
// arithmetic (detail/soft.hpp). Both assume the default floating-point environment (no
// flush-to-zero, no -ffast-math).
#ifndef MIXPREC_ARITHMETIC_HPP
#define MIXPREC_ARITHMETIC_HPP

#include <cstdint>
#include <type_traits>

#include "basic_float.hpp"
#include "detail/soft.hpp"
#include "detail/values.hpp"
#include "round_to.hpp"

namespace mixprec {
namespace detail {

enum class op : unsigned char { add, sub, mul, div };

template <class F>
constexpr bool arith_in_float = fast_to_float32<F> && fast_from_float32<F> && F::mantissa_bits + 1 <= 11 &&
                                F::qmin >= -149 + (F::mantissa_bits + 1) + 2;
template <class F>
constexpr bool arith_in_double = F::enc != encoding::exponent_only && F::mantissa_bits + 1 <= 25 &&
                                 F::exponent_bits <= 10;

template <class W>
MIXPREC_HD constexpr W apply(op o, W a, W b) noexcept {
  switch (o) {
    case op::add: return a + b;
    case op::sub: return a - b;
    case op::mul: return a * b;
    case op::div: return a / b;
  }
  return a;
}

MIXPREC_HD constexpr unpacked soft_op(op o, const unpacked& a, const unpacked& b, rounding mode) noexcept {
  switch (o) {
    case op::add: return soft_add(a, b, mode);
    case op::sub: return soft_add(a, negated(b), mode);
    case op::mul: return soft_mul(a, b);
    case op::div: return soft_div(a, b);
  }
  return a;
}

/// a op b in the wide type W (float or double), rounded to F.
template <class F, class W>
MIXPREC_HD constexpr basic_float<F> wide_op(op o, basic_float<F> a, basic_float<F> b) noexcept {
  const W wa = static_cast<W>(a), wb = static_cast<W>(b);
  if (is_nan_value(wa)) return basic_float<F>(wa);  // NaN operands propagate, quieted
  if (is_nan_value(wb)) return basic_float<F>(wb);
  const W r = apply(o, wa, wb);
  if (is_nan_value(r)) {  // invalid operation: the positive quiet NaN (+max in formats without NaN)
    return basic_float<F>::from_bits(pack<F>(default_nan(), rounding::nearest_even, overflow::ieee));
  }
  return basic_float<F>(r);
}

template <class F>
MIXPREC_HD constexpr basic_float<F> binary(op o, basic_float<F> a, basic_float<F> b, rounding mode, overflow policy,
                                           std::uint32_t random_bits) noexcept {
  if (mode == rounding::nearest_even && policy == overflow::ieee) {
    if constexpr (arith_in_float<F>) {
      return wide_op<F, float>(o, a, b);
    } else if constexpr (arith_in_double<F>) {
      return wide_op<F, double>(o, a, b);
    }
  }
  return basic_float<F>::from_bits(
      pack<F>(soft_op(o, unpack<F>(a.bits()), unpack<F>(b.bits()), mode), mode, policy, random_bits));
}

/// Order key: a signed integer that sorts like the value (NaNs excluded).
template <class F>
MIXPREC_HD constexpr std::int64_t order_key(typename F::storage_type bits) noexcept {
  const std::uint64_t code = code_of<F>(bits);
  const auto mag = static_cast<std::int64_t>(code & F::magnitude_mask);
  return (code & F::sign_mask) != 0 ? -mag : mag;
}

template <class F>
MIXPREC_HD constexpr bool is_nan_bits(typename F::storage_type bits) noexcept {
  return unpack<F>(bits).cls == value_class::nan;
}

template <class T>
struct is_standard_float
    : std::integral_constant<bool, std::is_same<T, float>::value || std::is_same<T, double>::value ||
                                       std::is_same<T, long double>::value> {};
template <class T>
struct is_plain_integer
    : std::integral_constant<bool, std::is_integral<T>::value && !std::is_same<T, bool>::value> {};

/// x as float, double or long double: through double, which holds every format exactly, so
/// this rounds at most once.
template <class S, class F>
MIXPREC_HD constexpr S to_standard(basic_float<F> x) noexcept {
  return static_cast<S>(static_cast<double>(x));
}

}  // namespace detail

// ---- same-type arithmetic ---------------------------------------------------------------

template <class F>
MIXPREC_HD constexpr basic_float<F> operator+(basic_float<F> a, basic_float<F> b) noexcept {
  return detail::binary(detail::op::add, a, b, rounding::nearest_even, overflow::ieee, 0);
}
template <class F>
MIXPREC_HD constexpr basic_float<F> operator-(basic_float<F> a, basic_float<F> b) noexcept {
  return detail::binary(detail::op::sub, a, b, rounding::nearest_even, overflow::ieee, 0);
}
template <class F>
MIXPREC_HD constexpr basic_float<F> operator*(basic_float<F> a, basic_float<F> b) noexcept {
  return detail::binary(detail::op::mul, a, b, rounding::nearest_even, overflow::ieee, 0);
}
template <class F>
MIXPREC_HD constexpr basic_float<F> operator/(basic_float<F> a, basic_float<F> b) noexcept {
  return detail::binary(detail::op::div, a, b, rounding::nearest_even, overflow::ieee, 0);
}
template <class F>
MIXPREC_HD constexpr basic_float<F> operator+(basic_float<F> a) noexcept {
  return a;
}
/// Negation flips the sign bit; in fnuz formats 0 and NaN stay as they are; in the unsigned
/// e8m0fnu every negation is NaN.
template <class F>
MIXPREC_HD constexpr basic_float<F> operator-(basic_float<F> a) noexcept {
  const std::uint64_t code = detail::code_of<F>(a.bits());
  if constexpr (F::enc == encoding::exponent_only) {
    return detail::from_code<basic_float<F>>(F::magnitude_mask);
  } else if constexpr (F::enc == encoding::fnuz) {
    if ((code & F::magnitude_mask) == 0) return a;
  }
  return detail::from_code<basic_float<F>>(code ^ F::sign_mask);
}

template <class F>
MIXPREC_HD constexpr basic_float<F>& operator+=(basic_float<F>& a, basic_float<F> b) noexcept {
  return a = a + b;
}
template <class F>
MIXPREC_HD constexpr basic_float<F>& operator-=(basic_float<F>& a, basic_float<F> b) noexcept {
  return a = a - b;
}
template <class F>
MIXPREC_HD constexpr basic_float<F>& operator*=(basic_float<F>& a, basic_float<F> b) noexcept {
  return a = a * b;
}
template <class F>
MIXPREC_HD constexpr basic_float<F>& operator/=(basic_float<F>& a, basic_float<F> b) noexcept {
  return a = a / b;
}
template <class F>
MIXPREC_HD constexpr basic_float<F>& operator++(basic_float<F>& a) noexcept {
  return a = a + basic_float<F>(1);
}
template <class F>
MIXPREC_HD constexpr basic_float<F>& operator--(basic_float<F>& a) noexcept {
  return a = a - basic_float<F>(1);
}
template <class F>
MIXPREC_HD constexpr basic_float<F> operator++(basic_float<F>& a, int) noexcept {
  const basic_float<F> old = a;
  ++a;
  return old;
}
template <class F>
MIXPREC_HD constexpr basic_float<F> operator--(basic_float<F>& a, int) noexcept {
  const basic_float<F> old = a;
  --a;
  return old;
}

// ---- comparisons --------------------------------------------------------------------------

template <class F>
MIXPREC_HD constexpr bool operator==(basic_float<F> a, basic_float<F> b) noexcept {
  return !detail::is_nan_bits<F>(a.bits()) && !detail::is_nan_bits<F>(b.bits()) &&
         detail::order_key<F>(a.bits()) == detail::order_key<F>(b.bits());
}
template <class F>
MIXPREC_HD constexpr bool operator!=(basic_float<F> a, basic_float<F> b) noexcept {
  return !(a == b);
}
template <class F>
MIXPREC_HD constexpr bool operator<(basic_float<F> a, basic_float<F> b) noexcept {
  return !detail::is_nan_bits<F>(a.bits()) && !detail::is_nan_bits<F>(b.bits()) &&
         detail::order_key<F>(a.bits()) < detail::order_key<F>(b.bits());
}
template <class F>
MIXPREC_HD constexpr bool operator>(basic_float<F> a, basic_float<F> b) noexcept {
  return b < a;
}
template <class F>
MIXPREC_HD constexpr bool operator<=(basic_float<F> a, basic_float<F> b) noexcept {
  return a < b || a == b;
}
template <class F>
MIXPREC_HD constexpr bool operator>=(basic_float<F> a, basic_float<F> b) noexcept {
  return b < a || a == b;
}

// ---- mixed with standard floating types: the result is the standard type ------------------

#define MIXPREC_MIXED_OP(OP)                                                                       \
  template <class F, class S, std::enable_if_t<detail::is_standard_float<S>::value, int> = 0>     \
  MIXPREC_HD constexpr auto operator OP(basic_float<F> a, S b) noexcept {                         \
    return detail::to_standard<S>(a) OP b;                                                         \
  }                                                                                                \
  template <class F, class S, std::enable_if_t<detail::is_standard_float<S>::value, int> = 0>     \
  MIXPREC_HD constexpr auto operator OP(S a, basic_float<F> b) noexcept {                         \
    return a OP detail::to_standard<S>(b);                                                         \
  }                                                                                                \
  template <class F, class I, std::enable_if_t<detail::is_plain_integer<I>::value, int> = 0>      \
  MIXPREC_HD constexpr auto operator OP(basic_float<F> a, I b) noexcept {                         \
    return a OP basic_float<F>(b);                                                                 \
  }                                                                                                \
  template <class F, class I, std::enable_if_t<detail::is_plain_integer<I>::value, int> = 0>      \
  MIXPREC_HD constexpr auto operator OP(I a, basic_float<F> b) noexcept {                         \
    return basic_float<F>(a) OP b;                                                                 \
  }
MIXPREC_MIXED_OP(+)
MIXPREC_MIXED_OP(-)
MIXPREC_MIXED_OP(*)
MIXPREC_MIXED_OP(/)
MIXPREC_MIXED_OP(==)
MIXPREC_MIXED_OP(!=)
MIXPREC_MIXED_OP(<)
MIXPREC_MIXED_OP(<=)
MIXPREC_MIXED_OP(>)
MIXPREC_MIXED_OP(>=)
#undef MIXPREC_MIXED_OP

/// x op= y with a standard floating or integer y: x = T(x op y), as for built-in types.
#define MIXPREC_MIXED_ASSIGN(OP)                                                                   \
  template <class F, class S,                                                                     \
            std::enable_if_t<detail::is_standard_float<S>::value || detail::is_plain_integer<S>::value, int> = 0> \
  MIXPREC_HD constexpr basic_float<F>& operator OP##=(basic_float<F>& a, S b) noexcept {          \
    return a = basic_float<F>(a OP b);                                                             \
  }
MIXPREC_MIXED_ASSIGN(+)
MIXPREC_MIXED_ASSIGN(-)
MIXPREC_MIXED_ASSIGN(*)
MIXPREC_MIXED_ASSIGN(/)
#undef MIXPREC_MIXED_ASSIGN

// ---- arithmetic in any rounding mode ------------------------------------------------------

#define MIXPREC_DIRECTED(NAME, OP)                                                                  \
  template <class F>                                                                                \
  MIXPREC_HD constexpr basic_float<F> NAME(basic_float<F> x, basic_float<F> y, rounding mode,      \
                                           overflow policy, std::uint32_t random_bits) noexcept {  \
    return detail::binary(detail::op::OP, x, y, mode, policy, random_bits);                         \
  }                                                                                                 \
  template <class F>                                                                                \
  MIXPREC_HD constexpr basic_float<F> NAME(basic_float<F> x, basic_float<F> y,                     \
                                           rounding mode = rounding::nearest_even,                 \
                                           overflow policy = overflow::ieee) {                     \
    detail::require_random_bits(mode);                                                              \
    return detail::binary(detail::op::OP, x, y, mode, policy, 0);                                   \
  }
/// add/sub/mul/div(x, y[, rounding[, overflow[, random_bits]]]): one rounding in any mode.
MIXPREC_DIRECTED(add, add)
MIXPREC_DIRECTED(sub, sub)
MIXPREC_DIRECTED(mul, mul)
MIXPREC_DIRECTED(div, div)
#undef MIXPREC_DIRECTED

/// x * y + z with a single rounding.
template <class F>
MIXPREC_HD constexpr basic_float<F> fma(basic_float<F> x, basic_float<F> y, basic_float<F> z, rounding mode,
                                        overflow policy, std::uint32_t random_bits) noexcept {
  using detail::unpack;
  return basic_float<F>::from_bits(detail::pack<F>(
      detail::soft_fma(unpack<F>(x.bits()), unpack<F>(y.bits()), unpack<F>(z.bits()), mode), mode, policy,
      random_bits));
}
template <class F>
MIXPREC_HD constexpr basic_float<F> fma(basic_float<F> x, basic_float<F> y, basic_float<F> z,
                                        rounding mode = rounding::nearest_even, overflow policy = overflow::ieee) {
  detail::require_random_bits(mode);
  return fma(x, y, z, mode, policy, 0);
}

/// The correctly rounded square root (sqrt(-0) = -0, sqrt(x < 0) = NaN).
template <class F>
MIXPREC_HD constexpr basic_float<F> sqrt(basic_float<F> x, rounding mode, overflow policy,
                                         std::uint32_t random_bits) noexcept {
  return basic_float<F>::from_bits(
      detail::pack<F>(detail::soft_sqrt(detail::unpack<F>(x.bits())), mode, policy, random_bits));
}
template <class F>
MIXPREC_HD constexpr basic_float<F> sqrt(basic_float<F> x, rounding mode = rounding::nearest_even,
                                         overflow policy = overflow::ieee) {
  detail::require_random_bits(mode);
  return sqrt(x, mode, policy, 0);
}

}  // namespace mixprec

#endif  // MIXPREC_ARITHMETIC_HPP
