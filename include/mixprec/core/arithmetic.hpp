// SPDX-License-Identifier: MIT
// mixprec/core/arithmetic.hpp — operators, comparisons and correctly rounded + - * / sqrt fma.
//
// Contract: + - * / on one mixprec type give the exact result rounded once (nearest-even), and
// add/sub/mul/div/fma/sqrt(x, ..., rounding, overflow) in any mode; comparisons are IEEE's. Mixed
// operands follow C++23's extended floating types (an integer converts to the mixprec type, float
// and double take the result); two different mixprec types are ill-formed. Overflow in formats
// without infinity, NaN propagation, how each format computes: docs/pages/math.md.
//
//   mixprec::half a(1.0f), b(3.0f);
//   mixprec::half q = a / b;                                    // 0x3555: the quotient rounded once
//   auto up = mixprec::div(a, b, mixprec::rounding::upward);    // 0x3556
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

MIXPREC_HD constexpr exact_value soft_op(op o, const exact_value& a, const exact_value& b, rounding mode) noexcept {
  switch (o) {
    case op::add: return soft_add(a, b, mode);
    case op::sub: return soft_add(a, isnan(b) ? b : negated(b), mode);  // a NaN keeps its sign
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
    return basic_float<F>::from_bits(encode_bits<F>(default_nan(), rounding::nearest_even, overflow::ieee));
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
      encode_bits<F>(soft_op(o, decode_bits<F>(a.bits()), decode_bits<F>(b.bits()), mode), mode, policy, random_bits));
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
  return decode_bits<F>(bits).cls == value_class::nan;
}

}  // namespace detail

// ---- same-type arithmetic ---------------------------------------------------------------

/// a + b rounded once to nearest-even (IEEE overflow and NaN rules of the format), e.g.
/// half(1) + half(0x1p-11) == half(1) (a tie, to even).
template <class F>
MIXPREC_HD constexpr basic_float<F> operator+(basic_float<F> a, basic_float<F> b) noexcept {
  return detail::binary(detail::op::add, a, b, rounding::nearest_even, overflow::ieee, 0);
}
/// a - b rounded once to nearest-even.
template <class F>
MIXPREC_HD constexpr basic_float<F> operator-(basic_float<F> a, basic_float<F> b) noexcept {
  return detail::binary(detail::op::sub, a, b, rounding::nearest_even, overflow::ieee, 0);
}
/// a * b rounded once to nearest-even.
template <class F>
MIXPREC_HD constexpr basic_float<F> operator*(basic_float<F> a, basic_float<F> b) noexcept {
  return detail::binary(detail::op::mul, a, b, rounding::nearest_even, overflow::ieee, 0);
}
/// a / b rounded once to nearest-even (x/0 is +-inf, or what overflow gives where the format
/// has no infinity; 0/0 is NaN).
template <class F>
MIXPREC_HD constexpr basic_float<F> operator/(basic_float<F> a, basic_float<F> b) noexcept {
  return detail::binary(detail::op::div, a, b, rounding::nearest_even, overflow::ieee, 0);
}
/// Unary plus: a unchanged (bits included).
template <class F>
MIXPREC_HD constexpr basic_float<F> operator+(basic_float<F> a) noexcept {
  return a;
}
/// Negation flips the sign bit; in fnuz formats 0 and NaN stay as they are; in the unsigned
/// e8m0fnu every negation is NaN; in other unsigned formats -0 is 0, -NaN is NaN and every
/// other negation is NaN (0 where the format has no NaN).
template <class F>
MIXPREC_HD constexpr basic_float<F> operator-(basic_float<F> a) noexcept {
  const std::uint64_t code = detail::code_of<F>(a.bits());
  if constexpr (F::enc == encoding::exponent_only) {
    return detail::from_code<basic_float<F>>(F::magnitude_mask);
  } else if constexpr (!F::is_signed) {
    const detail::value_class c = detail::decode_bits<F>(a.bits()).cls;
    if (c == detail::value_class::zero || c == detail::value_class::nan) return a;
    return detail::from_code<basic_float<F>>(F::has_nan ? detail::nan_code(F{}, detail::exact_value{
                                                               detail::value_class::nan, false, true, 0, 0})
                                                         : 0);
  } else if constexpr (F::enc == encoding::fnuz) {
    if ((code & F::magnitude_mask) == 0) return a;
  }
  return detail::from_code<basic_float<F>>(code ^ F::sign_mask);
}

/// a = a + b; returns a.
template <class F>
MIXPREC_HD constexpr basic_float<F>& operator+=(basic_float<F>& a, basic_float<F> b) noexcept {
  return a = a + b;
}
/// a = a - b; returns a.
template <class F>
MIXPREC_HD constexpr basic_float<F>& operator-=(basic_float<F>& a, basic_float<F> b) noexcept {
  return a = a - b;
}
/// a = a * b; returns a.
template <class F>
MIXPREC_HD constexpr basic_float<F>& operator*=(basic_float<F>& a, basic_float<F> b) noexcept {
  return a = a * b;
}
/// a = a / b; returns a.
template <class F>
MIXPREC_HD constexpr basic_float<F>& operator/=(basic_float<F>& a, basic_float<F> b) noexcept {
  return a = a / b;
}
/// Pre-increment: a = a + 1 (rounded); returns a.
template <class F>
MIXPREC_HD constexpr basic_float<F>& operator++(basic_float<F>& a) noexcept {
  return a = a + basic_float<F>(1);
}
/// Pre-decrement: a = a - 1 (rounded); returns a.
template <class F>
MIXPREC_HD constexpr basic_float<F>& operator--(basic_float<F>& a) noexcept {
  return a = a - basic_float<F>(1);
}
/// Post-increment: a = a + 1 (rounded); returns the old a.
template <class F>
MIXPREC_HD constexpr basic_float<F> operator++(basic_float<F>& a, int) noexcept {
  const basic_float<F> old = a;
  ++a;
  return old;
}
/// Post-decrement: a = a - 1 (rounded); returns the old a.
template <class F>
MIXPREC_HD constexpr basic_float<F> operator--(basic_float<F>& a, int) noexcept {
  const basic_float<F> old = a;
  --a;
  return old;
}

// ---- comparisons --------------------------------------------------------------------------

/// IEEE equality: false if either is NaN; +0 == -0.
template <class F>
MIXPREC_HD constexpr bool operator==(basic_float<F> a, basic_float<F> b) noexcept {
  return !detail::is_nan_bits<F>(a.bits()) && !detail::is_nan_bits<F>(b.bits()) &&
         detail::order_key<F>(a.bits()) == detail::order_key<F>(b.bits());
}
/// !(a == b): true if either is NaN.
template <class F>
MIXPREC_HD constexpr bool operator!=(basic_float<F> a, basic_float<F> b) noexcept {
  return !(a == b);
}
/// IEEE less-than: false if either is NaN; -0 < +0 is false.
template <class F>
MIXPREC_HD constexpr bool operator<(basic_float<F> a, basic_float<F> b) noexcept {
  return !detail::is_nan_bits<F>(a.bits()) && !detail::is_nan_bits<F>(b.bits()) &&
         detail::order_key<F>(a.bits()) < detail::order_key<F>(b.bits());
}
/// b < a: false if either is NaN.
template <class F>
MIXPREC_HD constexpr bool operator>(basic_float<F> a, basic_float<F> b) noexcept {
  return b < a;
}
/// a < b || a == b: false if either is NaN.
template <class F>
MIXPREC_HD constexpr bool operator<=(basic_float<F> a, basic_float<F> b) noexcept {
  return a < b || a == b;
}
/// b < a || a == b: false if either is NaN.
template <class F>
MIXPREC_HD constexpr bool operator>=(basic_float<F> a, basic_float<F> b) noexcept {
  return b < a || a == b;
}

// ---- mixed operands: C++23's rules for extended floating types (P1467) ----------------------
//
// basic_float<F> op integer      -> basic_float<F> (the integer converts, rounded to nearest-even)
// basic_float<F> op float/double -> that standard type, when it holds every value of F (exact)
// anything else (two different mixprec types, long double, a standard type too narrow for F)
//                                -> ill-formed, with one static_assert naming the fix.

namespace detail {

template <class T>
constexpr bool is_mixprec_v = is_mixprec_float<T>::value;

/// Whether `a op b` is a mixed operation handled below: one side a mixprec type, the other an
/// arithmetic type or a different mixprec type.
template <class A, class B>
constexpr bool is_mixed_pair = (is_mixprec_v<A> && (std::is_arithmetic<B>::value ||
                                                    (is_mixprec_v<B> && !std::is_same<A, B>::value))) ||
                               (is_mixprec_v<B> && std::is_arithmetic<A>::value);

template <class A, class B>
struct mix {
  using mixprec_type = std::conditional_t<is_mixprec_v<A>, A, B>;
  using other_type = std::conditional_t<is_mixprec_v<A>, B, A>;
  static constexpr bool two_formats = is_mixprec_v<A> && is_mixprec_v<B>;
  static constexpr bool with_long_double = std::is_same<other_type, long double>::value;
  static constexpr bool with_integer = std::is_integral<other_type>::value;
  static constexpr bool with_standard = std::is_same<other_type, float>::value ||
                                        std::is_same<other_type, double>::value;
  static constexpr bool standard_holds = [] {
    if constexpr (with_standard) {
      return holds_all_values<typename mixprec_type::format_type, typename float_traits<other_type>::format_type>;
    } else {
      return false;
    }
  }();
  static constexpr bool ok = with_integer || standard_holds;
  /// The type both operands convert to (the mixprec type where the pair is ill-formed).
  using type = std::conditional_t<standard_holds, other_type, mixprec_type>;

  MIXPREC_HD static constexpr void check() noexcept {
    static_assert(!two_formats,
                  "mixprec: two different mixprec types do not mix implicitly; convert one of them "
                  "explicitly (T(x)), or both to float");
    static_assert(!with_long_double,
                  "mixprec: mixprec types do not mix with long double; convert explicitly "
                  "(static_cast<long double>(x) or static_cast<double>(y))");
    static_assert(two_formats || with_long_double || ok,
                  "mixprec: this standard floating type does not hold every value of the mixprec "
                  "type; convert one operand explicitly");
  }
};

template <class A, class B>
using mixed_t = typename mix<A, B>::type;

/// x converted to the common type T of a mixed operation (T{} where the pair is ill-formed, so
/// that the static_assert stays the only error).
template <class T, class A, class B, class X>
MIXPREC_HD constexpr T mix_operand(X x) noexcept {
  if constexpr (std::is_same<X, T>::value) {
    return x;
  } else if constexpr (mix<A, B>::ok) {
    return static_cast<T>(x);
  } else {
    return T{};
  }
}

}  // namespace detail

/// a + b for a mixprec type and an arithmetic type (see above for the result type).
template <class A, class B, std::enable_if_t<detail::is_mixed_pair<A, B>, int> = 0>
MIXPREC_HD constexpr detail::mixed_t<A, B> operator+(A a, B b) noexcept {
  using T = detail::mixed_t<A, B>;
  detail::mix<A, B>::check();
  return detail::mix_operand<T, A, B>(a) + detail::mix_operand<T, A, B>(b);
}
/// a - b for a mixprec type and an arithmetic type.
template <class A, class B, std::enable_if_t<detail::is_mixed_pair<A, B>, int> = 0>
MIXPREC_HD constexpr detail::mixed_t<A, B> operator-(A a, B b) noexcept {
  using T = detail::mixed_t<A, B>;
  detail::mix<A, B>::check();
  return detail::mix_operand<T, A, B>(a) - detail::mix_operand<T, A, B>(b);
}
/// a * b for a mixprec type and an arithmetic type.
template <class A, class B, std::enable_if_t<detail::is_mixed_pair<A, B>, int> = 0>
MIXPREC_HD constexpr detail::mixed_t<A, B> operator*(A a, B b) noexcept {
  using T = detail::mixed_t<A, B>;
  detail::mix<A, B>::check();
  return detail::mix_operand<T, A, B>(a) * detail::mix_operand<T, A, B>(b);
}
/// a / b for a mixprec type and an arithmetic type.
template <class A, class B, std::enable_if_t<detail::is_mixed_pair<A, B>, int> = 0>
MIXPREC_HD constexpr detail::mixed_t<A, B> operator/(A a, B b) noexcept {
  using T = detail::mixed_t<A, B>;
  detail::mix<A, B>::check();
  return detail::mix_operand<T, A, B>(a) / detail::mix_operand<T, A, B>(b);
}
/// a == b for a mixprec type and an arithmetic type, compared in their common type (exact).
template <class A, class B, std::enable_if_t<detail::is_mixed_pair<A, B>, int> = 0>
MIXPREC_HD constexpr bool operator==(A a, B b) noexcept {
  using T = detail::mixed_t<A, B>;
  detail::mix<A, B>::check();
  return detail::exact_eq(detail::mix_operand<T, A, B>(a), detail::mix_operand<T, A, B>(b));
}
/// a != b for a mixprec type and an arithmetic type.
template <class A, class B, std::enable_if_t<detail::is_mixed_pair<A, B>, int> = 0>
MIXPREC_HD constexpr bool operator!=(A a, B b) noexcept {
  return !(a == b);
}
/// a < b for a mixprec type and an arithmetic type.
template <class A, class B, std::enable_if_t<detail::is_mixed_pair<A, B>, int> = 0>
MIXPREC_HD constexpr bool operator<(A a, B b) noexcept {
  using T = detail::mixed_t<A, B>;
  detail::mix<A, B>::check();
  return detail::mix_operand<T, A, B>(a) < detail::mix_operand<T, A, B>(b);
}
/// a > b for a mixprec type and an arithmetic type.
template <class A, class B, std::enable_if_t<detail::is_mixed_pair<A, B>, int> = 0>
MIXPREC_HD constexpr bool operator>(A a, B b) noexcept {
  return b < a;
}
/// a <= b for a mixprec type and an arithmetic type.
template <class A, class B, std::enable_if_t<detail::is_mixed_pair<A, B>, int> = 0>
MIXPREC_HD constexpr bool operator<=(A a, B b) noexcept {
  using T = detail::mixed_t<A, B>;
  detail::mix<A, B>::check();
  return detail::mix_operand<T, A, B>(a) <= detail::mix_operand<T, A, B>(b);
}
/// a >= b for a mixprec type and an arithmetic type.
template <class A, class B, std::enable_if_t<detail::is_mixed_pair<A, B>, int> = 0>
MIXPREC_HD constexpr bool operator>=(A a, B b) noexcept {
  return b <= a;
}

/// x += y for an arithmetic y: x = T(x + y), as for built-in types.
template <class F, class B, std::enable_if_t<detail::is_mixed_pair<basic_float<F>, B>, int> = 0>
MIXPREC_HD constexpr basic_float<F>& operator+=(basic_float<F>& a, B b) noexcept {
  return a = static_cast<basic_float<F>>(a + b);
}
/// x -= y for an arithmetic y: x = T(x - y).
template <class F, class B, std::enable_if_t<detail::is_mixed_pair<basic_float<F>, B>, int> = 0>
MIXPREC_HD constexpr basic_float<F>& operator-=(basic_float<F>& a, B b) noexcept {
  return a = static_cast<basic_float<F>>(a - b);
}
/// x *= y for an arithmetic y: x = T(x * y).
template <class F, class B, std::enable_if_t<detail::is_mixed_pair<basic_float<F>, B>, int> = 0>
MIXPREC_HD constexpr basic_float<F>& operator*=(basic_float<F>& a, B b) noexcept {
  return a = static_cast<basic_float<F>>(a * b);
}
/// x /= y for an arithmetic y: x = T(x / y).
template <class F, class B, std::enable_if_t<detail::is_mixed_pair<basic_float<F>, B>, int> = 0>
MIXPREC_HD constexpr basic_float<F>& operator/=(basic_float<F>& a, B b) noexcept {
  return a = static_cast<basic_float<F>>(a / b);
}

// ---- arithmetic in any rounding mode ------------------------------------------------------

/// x + y rounded once with `mode` and `policy`; random_bits: 32 uniform bits for stochastic.
template <class F>
MIXPREC_HD constexpr basic_float<F> add(basic_float<F> x, basic_float<F> y, rounding mode, overflow policy,
                                        std::uint32_t random_bits) noexcept {
  return detail::binary(detail::op::add, x, y, mode, policy, random_bits);
}
/// x + y rounded once with `mode` (not stochastic: use the overload above) and `policy`; an
/// invalid mode or policy: std::invalid_argument.
/// E.g. add(half(1), half(0x1p-11), rounding::upward) == half(1) + half(0x1p-10).
template <class F>
MIXPREC_HD constexpr basic_float<F> add(basic_float<F> x, basic_float<F> y, rounding mode = rounding::nearest_even,
                                        overflow policy = overflow::ieee) {
  detail::require_random_bits(mode);
  detail::require_valid(policy);
  return detail::binary(detail::op::add, x, y, mode, policy, 0);
}
/// x - y rounded once with `mode` and `policy`; random_bits: 32 uniform bits for stochastic.
template <class F>
MIXPREC_HD constexpr basic_float<F> sub(basic_float<F> x, basic_float<F> y, rounding mode, overflow policy,
                                        std::uint32_t random_bits) noexcept {
  return detail::binary(detail::op::sub, x, y, mode, policy, random_bits);
}
/// x - y rounded once with `mode` (not stochastic: use the overload above) and `policy`; an
/// invalid mode or policy: std::invalid_argument.
template <class F>
MIXPREC_HD constexpr basic_float<F> sub(basic_float<F> x, basic_float<F> y, rounding mode = rounding::nearest_even,
                                        overflow policy = overflow::ieee) {
  detail::require_random_bits(mode);
  detail::require_valid(policy);
  return detail::binary(detail::op::sub, x, y, mode, policy, 0);
}
/// x * y rounded once with `mode` and `policy`; random_bits: 32 uniform bits for stochastic.
template <class F>
MIXPREC_HD constexpr basic_float<F> mul(basic_float<F> x, basic_float<F> y, rounding mode, overflow policy,
                                        std::uint32_t random_bits) noexcept {
  return detail::binary(detail::op::mul, x, y, mode, policy, random_bits);
}
/// x * y rounded once with `mode` (not stochastic: use the overload above) and `policy`; an
/// invalid mode or policy: std::invalid_argument.
template <class F>
MIXPREC_HD constexpr basic_float<F> mul(basic_float<F> x, basic_float<F> y, rounding mode = rounding::nearest_even,
                                        overflow policy = overflow::ieee) {
  detail::require_random_bits(mode);
  detail::require_valid(policy);
  return detail::binary(detail::op::mul, x, y, mode, policy, 0);
}
/// x / y rounded once with `mode` and `policy`; random_bits: 32 uniform bits for stochastic.
template <class F>
MIXPREC_HD constexpr basic_float<F> div(basic_float<F> x, basic_float<F> y, rounding mode, overflow policy,
                                        std::uint32_t random_bits) noexcept {
  return detail::binary(detail::op::div, x, y, mode, policy, random_bits);
}
/// x / y rounded once with `mode` (not stochastic: use the overload above) and `policy`; an
/// invalid mode or policy: std::invalid_argument. E.g. div(half(1), half(3), rounding::upward) ==
/// half(0.33349609375), where nearest-even gives 0.333251953125.
template <class F>
MIXPREC_HD constexpr basic_float<F> div(basic_float<F> x, basic_float<F> y, rounding mode = rounding::nearest_even,
                                        overflow policy = overflow::ieee) {
  detail::require_random_bits(mode);
  detail::require_valid(policy);
  return detail::binary(detail::op::div, x, y, mode, policy, 0);
}

/// x * y + z with a single rounding.
template <class F>
MIXPREC_HD constexpr basic_float<F> fma(basic_float<F> x, basic_float<F> y, basic_float<F> z, rounding mode,
                                        overflow policy, std::uint32_t random_bits) noexcept {
  using detail::decode_bits;
  return basic_float<F>::from_bits(detail::encode_bits<F>(
      detail::soft_fma(decode_bits<F>(x.bits()), decode_bits<F>(y.bits()), decode_bits<F>(z.bits()), mode), mode, policy,
      random_bits));
}
/// x * y + z with a single rounding in `mode` (not stochastic: pass random bits to the
/// overload above); invalid mode or policy: std::invalid_argument, e.g.
/// fma(x, y, z, rounding::toward_zero).
template <class F>
MIXPREC_HD constexpr basic_float<F> fma(basic_float<F> x, basic_float<F> y, basic_float<F> z,
                                        rounding mode = rounding::nearest_even, overflow policy = overflow::ieee) {
  detail::require_random_bits(mode);
  detail::require_valid(policy);
  return fma(x, y, z, mode, policy, 0);
}

/// The correctly rounded square root (sqrt(-0) = -0, sqrt(x < 0) = NaN).
template <class F>
MIXPREC_HD constexpr basic_float<F> sqrt(basic_float<F> x, rounding mode, overflow policy,
                                         std::uint32_t random_bits) noexcept {
  return basic_float<F>::from_bits(
      detail::encode_bits<F>(detail::soft_sqrt(detail::decode_bits<F>(x.bits())), mode, policy, random_bits));
}
/// The square root rounded once in `mode` (not stochastic: pass random bits to the overload
/// above); invalid mode or policy: std::invalid_argument. sqrt(half(2)) == half(1.4140625).
template <class F>
MIXPREC_HD constexpr basic_float<F> sqrt(basic_float<F> x, rounding mode = rounding::nearest_even,
                                         overflow policy = overflow::ieee) {
  detail::require_random_bits(mode);
  detail::require_valid(policy);
  return sqrt(x, mode, policy, 0);
}

}  // namespace mixprec

#endif  // MIXPREC_ARITHMETIC_HPP
