// SPDX-License-Identifier: MIT
// mixprec/core/round_to.hpp — conversions with a chosen rounding mode and overflow policy.
// Contract: one rounding from the exact value of x to T, in any mode (rounding.hpp); invalid
// mode/policy values throw std::invalid_argument (trap on a device) except on the noexcept
// random-bits path, where they give an unspecified value.
//
//   mixprec::round_to<mixprec::half>(1.0 / 3, mixprec::rounding::upward)            // 0x3556
//   mixprec::round_to<mixprec::float8_e4m3fn>(1000.0f, mixprec::rounding::nearest_even,
//                                             mixprec::overflow::saturate)          // 448
#ifndef MIXPREC_ROUND_TO_HPP
#define MIXPREC_ROUND_TO_HPP

#include <cstdint>
#include <stdexcept>

#include "basic_float.hpp"

namespace mixprec {

/// Rounds x (float, double, any integer, or any mixprec type) to T (float, double or a mixprec
/// type) in ONE rounding from the exact value of x, never through an intermediate type.
/// random_bits is used only when mode is rounding::stochastic (see round_to(x, random_bits)).
/// Unchecked (the hot path): invalid mode or policy values give an unspecified value.
template <class T, class S>
MIXPREC_HD constexpr T round_to(S x, rounding mode, overflow policy, std::uint32_t random_bits) noexcept {
  return float_traits<T>::from_bits(detail::round_bits<T>(x, mode, policy, random_bits));
}

namespace detail {

/// A caller error in a rounding argument: std::invalid_argument(what) on the host, a trap on a
/// device (or without exceptions).
[[noreturn]] MIXPREC_HD inline void rounding_argument_error(const char* what) {
#if defined(__CUDA_ARCH__)
  (void)what;
  __trap();
#elif MIXPREC_HAS_EXCEPTIONS
  throw std::invalid_argument(what);
#else
  (void)what;
  __builtin_trap();
#endif
}

/// rounding::stochastic without random bits, and an invalid mode (see is_valid in
/// rounding.hpp), are caller errors: std::invalid_argument on the host, a trap on a device.
MIXPREC_HD constexpr void require_random_bits(rounding mode) {
  if (!is_valid(mode)) rounding_argument_error("mixprec: invalid rounding value (not a rounding enumerator)");
  if (mode == rounding::stochastic) {
    rounding_argument_error("mixprec: rounding::stochastic needs random bits (pass them as the last argument)");
  }
}

/// An invalid overflow policy is a caller error, reported as require_random_bits does.
MIXPREC_HD constexpr void require_valid(overflow policy) {
  if (!is_valid(policy)) rounding_argument_error("mixprec: invalid overflow value (not an overflow enumerator)");
}

}  // namespace detail

/// Rounds x to T in one rounding. rounding::stochastic needs random bits: it is rejected here
/// (see detail::require_random_bits); call round_to(x, random_bits). Invalid mode or policy
/// values (see is_valid in rounding.hpp): std::invalid_argument.
template <class T, class S>
MIXPREC_HD constexpr T round_to(S x, rounding mode = rounding::nearest_even, overflow policy = overflow::ieee) {
  detail::require_random_bits(mode);
  detail::require_valid(policy);
  return round_to<T>(x, mode, policy, 0);
}

/// Stochastic rounding: x rounds away from zero with probability equal to its distance from the
/// value toward zero, in ulps, truncated to 32 fractional bits, decided by random_bits (uniform
/// 32-bit random input). The same bits give the same result on host and device.
template <class T, class S>
MIXPREC_HD constexpr T round_to(S x, std::uint32_t random_bits, overflow policy = overflow::ieee) noexcept {
  return round_to<T>(x, rounding::stochastic, policy, random_bits);
}

}  // namespace mixprec

#endif  // MIXPREC_ROUND_TO_HPP
