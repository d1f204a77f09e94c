// SPDX-License-Identifier: MIT
// mixprec/detail/fast_float32.hpp — the two hottest conversions written with 32-bit integer
// operations: float -> F in round-to-nearest-even, and F -> float (exact).
//
// They compute the same function as the generic converter (detail/convert.hpp) for the formats
// they accept, which tests/exhaustive checks over all 2^32 floats; anything they do not cover
// (NaN, infinity, other modes, formats whose range does not sit inside float's) goes to the
// generic path.
#ifndef MIXPREC_DETAIL_FAST_FLOAT32_HPP
#define MIXPREC_DETAIL_FAST_FLOAT32_HPP

#include <cstdint>

#include "convert.hpp"

namespace mixprec {
namespace detail {

/// F's normal range lies inside float's, F has no exotic encoding, and its storage fits in 32 bits.
template <class F>
constexpr bool float32_compatible = F::enc != encoding::exponent_only && F::exponent_bits <= 8 &&
                                    F::emin >= -126 && F::emax <= 127 && F::storage_bits <= 32;

/// F is float's layout with a shorter mantissa: 8 exponent bits, bias 127, IEEE infinities and
/// NaNs (bfloat16, tf32, and user formats such as format<8, 3>). Its codes are the leading bits
/// of float's: narrowing is one rounding addition on the whole pattern, widening a shift.
template <class F>
constexpr bool float32_layout = float32_compatible<F> && F::enc == encoding::ieee && F::exponent_bits == 8 &&
                                F::bias == 127 && F::is_signed;

/// float -> F in nearest-even takes the fast path.
template <class F>
constexpr bool fast_from_float32 = float32_compatible<F> && F::mantissa_bits <= 22;

/// F -> float takes the fast path: F's subnormals are float subnormals of the same layout
/// (emin == -126) or float normals (qmin >= -126).
template <class F>
constexpr bool fast_to_float32 =
    float32_compatible<F> && F::mantissa_bits <= 23 && (F::emin == -126 || F::qmin >= -126);

/// (v + half-ulp, ties to even) >> s for 1 <= s; v < 2^24.
MIXPREC_HD constexpr std::uint32_t shift_right_rne(std::uint32_t v, int s) noexcept {
  if (s >= 25) return 0;  // v < 2^24 <= half an ulp
  return (v + ((std::uint32_t{1} << (s - 1)) - 1) + ((v >> s) & 1u)) >> s;
}

/// The float -> F cases off the hot path: NaN, infinity, overflow, results below F's normals.
template <class F>
MIXPREC_HD MIXPREC_NOINLINE constexpr typename F::storage_type float32_to_rne_slow(std::uint32_t bits,
                                                                                  overflow policy) noexcept {
  const bool negative = (bits >> 31) != 0;
  const std::uint32_t a = bits & 0x7fffffffu;
  if (a >= 0x7f800000u) return pack<F>(unpack<float32_format>(bits), rounding::nearest_even, policy);
  if (a >= static_cast<std::uint32_t>(F::emin + 127) << 23) {
    return storage_of<F>(overflow_code<F>(negative, true, policy));  // the hot path's range excludes the rest
  }
  // Below F's smallest normal: round the float's integer significand to F's quantum.
  const int eb = static_cast<int>(a >> 23);
  const std::uint32_t mant = (a & 0x7fffffu) | (eb != 0 ? 0x800000u : 0u);
  const std::uint64_t code = shift_right_rne(mant, F::qmin + 150 - (eb != 0 ? eb : 1));
  if (!F::has_signed_zero && code == 0) return 0;
  return storage_of<F>((negative ? F::sign_mask : 0) | code);
}

/// float -> F, nearest-even. The common case (a normal result, no overflow) is one unsigned range
/// test and one addition that rebiases the exponent and rounds: adding just under half an ulp
/// plus the last kept bit rounds to nearest-even, and a carry runs into the exponent field.
template <class F>
MIXPREC_HD constexpr typename F::storage_type float32_to_rne(std::uint32_t bits, overflow policy) noexcept {
  static_assert(fast_from_float32<F>, "format not covered by the fast path");
  constexpr int M = F::mantissa_bits;
  constexpr int shift = 23 - M;
  constexpr std::uint32_t half_minus_one = (std::uint32_t{1} << (shift - 1)) - 1;
  constexpr std::uint32_t rebias = static_cast<std::uint32_t>(127 - F::bias) << 23;
  // Float bit patterns (magnitudes) whose result is normal and finite: [lo, hi).
  constexpr std::uint32_t lo = F::emin == -126 ? 0u : static_cast<std::uint32_t>(F::emin + 127) << 23;
  constexpr std::uint32_t max_bits = static_cast<std::uint32_t>(F::max_code << shift) + rebias;
  constexpr std::uint32_t hi = max_bits + half_minus_one + 1 + ((F::max_code & 1u) != 0 ? 0u : 1u);
  if constexpr (float32_layout<F>) {
    // One addition on the whole pattern, sign included (the carry cannot reach bit 31), rounds
    // normals, float subnormals (F's subnormals, same layout), infinity, and overflow (the carry
    // runs into the infinity code). Only NaN leaves the hot path; with overflow::saturate,
    // overflow and infinity do too. `bits << 1` is the magnitude without a mask.
    const std::uint32_t twice = bits << 1;
    if (twice < (policy == overflow::ieee ? 0xff000001u : hi << 1)) {
      return static_cast<typename F::storage_type>(((bits + half_minus_one + ((bits >> shift) & 1u)) >> shift)
                                                   << F::padding_bits);
    }
    return float32_to_rne_slow<F>(bits, policy);
  }
  const std::uint32_t a = bits & 0x7fffffffu;
  if (a - lo < hi - lo) {
    // (With float's exponent range, lo = 0 and float subnormals take this path too: they are
    // F's subnormals with the same layout.)
    const std::uint32_t code = (a - rebias + half_minus_one + ((a >> shift) & 1u)) >> shift;
    constexpr int sign_shift = 31 - (F::exponent_bits + M);
    const std::uint32_t sign = F::has_signed_zero || code != 0 ? (bits & 0x80000000u) >> sign_shift : 0u;
    return static_cast<typename F::storage_type>((sign | code) << F::padding_bits);
  }
  return float32_to_rne_slow<F>(bits, policy);
}

/// The F -> float cases off the hot path: zero, subnormals, infinity, NaN.
template <class F>
MIXPREC_HD MIXPREC_NOINLINE constexpr std::uint32_t to_float32_bits_slow(typename F::storage_type storage) noexcept {
  constexpr int M = F::mantissa_bits;
  const std::uint64_t code = code_of<F>(storage);
  const std::uint64_t mag = code & F::magnitude_mask;
  const std::uint32_t s = (code & F::sign_mask) != 0 ? 0x80000000u : 0u;
  if (mag >> M == 0 && !(F::enc == encoding::fnuz && code == F::sign_mask)) {
    const auto mant = static_cast<std::uint32_t>(mag);
    if (mant == 0) return s;
    if constexpr (F::emin == -126) {
      return s | (mant << (23 - M));  // float subnormal with the same layout
    } else {
      const int msb = 63 - clz64(mant);
      const auto e = static_cast<std::uint32_t>(F::qmin + msb + 127);
      return s | (e << 23) | ((mant << (23 - msb)) & 0x7fffffu);
    }
  }
  return pack<float32_format>(unpack<F>(storage), rounding::nearest_even, overflow::ieee);  // Inf, NaN
}

/// F -> float, exact.
///
/// Formats with float's layout (float32_layout: bfloat16, tf32) widen by a shift, NaNs
/// included: a signalling NaN stays signalling with its payload, the bit extension that
/// PyTorch, ml_dtypes, CUDA (__bfloat162float), Eigen and TensorFlow perform. Every other format
/// takes IEEE 754 convertFormat's rule, a NaN comes out quiet (as F16C's vcvtph2ps does for
/// half). For the rest the common case (a normal number) is one unsigned range test, a shift
/// and an add, in 32-bit arithmetic.
template <class F>
MIXPREC_HD constexpr std::uint32_t to_float32_bits(typename F::storage_type storage) noexcept {
  static_assert(fast_to_float32<F>, "format not covered by the fast path");
  constexpr int M = F::mantissa_bits;
  const std::uint32_t code = static_cast<std::uint32_t>(storage) >> F::padding_bits;
  if constexpr (float32_layout<F>) {
    return code << (23 - M);
  } else {
    constexpr int up = 23 - M;  // F's mantissa field to float's
    // F's normal codes, magnitude shifted to float's field: [lo, lo + span). With float's
    // exponent range (emin == -126) F's subnormals are float subnormals and take this path too.
    constexpr std::uint32_t lo = (F::emin == -126 ? 1u : std::uint32_t{1} << M) << up;
    constexpr std::uint32_t span = ((static_cast<std::uint32_t>(F::max_code) + 1u) << up) - lo;
    constexpr std::uint32_t rebias = static_cast<std::uint32_t>(127 - F::bias) << 23;
    constexpr int sign_shift = 31 - (F::exponent_bits + M);
    const std::uint32_t em = (code & static_cast<std::uint32_t>(F::magnitude_mask)) << up;
    if (em - lo < span) {
      return ((code & static_cast<std::uint32_t>(F::sign_mask)) << sign_shift) | (em + rebias);
    }
    return to_float32_bits_slow<F>(storage);
  }
}

/// F -> float as IEEE 754 convertFormat: to_float32_bits with a NaN made quiet (the same for
/// every format but those of float's layout, whose signalling NaNs to_float32_bits keeps).
template <class F>
MIXPREC_HD constexpr std::uint32_t to_float32_bits_quiet(typename F::storage_type storage) noexcept {
  const std::uint32_t r = to_float32_bits<F>(storage);
  if constexpr (float32_layout<F>) {
    return (r & 0x7fffffffu) > 0x7f800000u ? r | 0x400000u : r;
  } else {
    return r;
  }
}

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_FAST_FLOAT32_HPP
