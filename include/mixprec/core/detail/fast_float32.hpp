// SPDX-License-Identifier: MIT
// mixprec/core/detail/fast_float32.hpp — the two hottest conversions written with 32-bit integer
// operations: float -> F in round-to-nearest-even, and F -> float (exact).
//
// They compute the same function as the generic converter (detail/convert.hpp) for the formats
// they accept, which tests/exhaustive checks over all 2^32 floats; anything they do not cover
// (NaN, infinity, other modes, formats whose range does not sit inside float's) goes to the
// generic path.
#ifndef MIXPREC_DETAIL_FAST_FLOAT32_HPP
#define MIXPREC_DETAIL_FAST_FLOAT32_HPP

#include <cstdint>

#include "codec.hpp"

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

/// float -> F in nearest-even takes the fast path. (Not for formats without mantissa bits:
/// their ties go to the generic converter's rule; not for unsigned formats, whose negative
/// values go to NaN there.)
template <class F>
constexpr bool fast_from_float32 =
    float32_compatible<F> && F::is_signed && F::mantissa_bits >= 1 && F::mantissa_bits <= 22;

/// F -> float takes the fast path: F's subnormals are float subnormals of the same layout
/// (emin == -126) or float normals (qmin >= -126).
template <class F>
constexpr bool fast_to_float32 =
    float32_compatible<F> && F::mantissa_bits <= 23 && (F::emin == -126 || F::qmin >= -126);

/// (v + half-ulp, ties to even) >> s for 1 <= s; v < 2^24. Shifts of 25 and more give 0 (v is
/// below half an ulp), computed without a branch by clamping s.
MIXPREC_HD constexpr std::uint32_t shift_right_rne(std::uint32_t v, int s) noexcept {
  s = s < 25 ? s : 25;
  return (v + ((std::uint32_t{1} << (s - 1)) - 1) + ((v >> s) & 1u)) >> s;
}

/// NaN and infinity to F, through the generic converter (kept out of line).
template <class F>
MIXPREC_HD MIXPREC_NOINLINE constexpr typename F::storage_type float32_special_to(std::uint32_t bits,
                                                                                 overflow policy) noexcept {
  return encode_bits<F>(decode_bits<float32_format>(bits), rounding::nearest_even, policy);
}

/// float -> F beyond F's finite range: NaN, infinity and overflow.
template <class F>
MIXPREC_HD constexpr typename F::storage_type float32_to_rne_overflow(std::uint32_t bits, overflow policy) noexcept {
  if ((bits & 0x7fffffffu) >= 0x7f800000u) return float32_special_to<F>(bits, policy);
  return storage_of<F>(overflow_code(F{}, (bits >> 31) != 0, true, policy));
}

/// float -> F, nearest-even. The common case (a normal result, no overflow) is two compares and
/// one addition that rebiases the exponent and rounds: adding just under half an ulp plus the
/// last kept bit rounds to nearest-even, and a carry runs into the exponent field.
template <class F>
MIXPREC_HD constexpr typename F::storage_type float32_to_rne(std::uint32_t bits, overflow policy) noexcept {
  static_assert(fast_from_float32<F>, "format not covered by the fast path");
  using storage = typename F::storage_type;
  constexpr int M = F::mantissa_bits;
  constexpr int shift = 23 - M;
  constexpr std::uint32_t half_minus_one = (std::uint32_t{1} << (shift - 1)) - 1;
  constexpr std::uint32_t rebias = static_cast<std::uint32_t>(127 - F::bias) << 23;
  // Float bit patterns (magnitudes) below which the result is finite: hi (the first that rounds
  // past max).
  constexpr std::uint32_t max_bits = static_cast<std::uint32_t>(F::max_code << shift) + rebias;
  constexpr std::uint32_t hi = max_bits + half_minus_one + 1 + ((F::max_code & 1u) != 0 ? 0u : 1u);
  if constexpr (float32_layout<F>) {
    // One addition on the whole pattern, sign included (the carry cannot reach bit 31), rounds
    // normals, float subnormals (F's subnormals, same layout), infinity, and overflow (the carry
    // runs into the infinity code). Only NaN leaves the hot path; with overflow::saturate,
    // overflow and infinity do too. `bits << 1` is the magnitude without a mask.
    const std::uint32_t twice = bits << 1;
    if (MIXPREC_LIKELY(twice < (policy == overflow::ieee ? 0xff000001u : hi << 1))) {
      return static_cast<storage>(((bits + half_minus_one + ((bits >> shift) & 1u)) >> shift) << F::padding_bits);
    }
    return float32_to_rne_overflow<F>(bits, policy);
  } else {
    // F's smallest normal, as a float pattern (> 0: F's exponent range is narrower than float's).
    constexpr std::uint32_t lo = static_cast<std::uint32_t>(F::emin + 127) << 23;
    constexpr int sign_shift = 31 - (F::exponent_bits + M);
    const std::uint32_t a = bits & 0x7fffffffu;
    // Tests in the order overflow/infinity/NaN, normal, below normal: on data that mixes them
    // unpredictably, two branches of skewed odds mispredict less than one test for "normal"
    // (bench/README.md, data set "wide"); on predictable data the extra compare costs ~nothing.
    if (MIXPREC_UNLIKELY(a >= hi)) return float32_to_rne_overflow<F>(bits, policy);
    std::uint32_t code = 0;
    if (MIXPREC_LIKELY(a >= lo)) {
      code = (a - rebias + half_minus_one + ((a >> shift) & 1u)) >> shift;
    } else {
      // Below F's smallest normal: round the float's integer significand to F's quantum. Float
      // subnormals lie below half of F's smallest subnormal and round to 0: giving them a
      // leading bit and exponent 0 still shifts them out entirely (shift >= 25, mant < 2^24).
      static_assert(F::qmin + 149 >= 25, "F's exponent range is narrower than float's here");
      code = shift_right_rne((a & 0x7fffffu) | 0x800000u, F::qmin + 150 - static_cast<int>(a >> 23));
    }
    const std::uint32_t sign = F::has_signed_zero || code != 0 ? (bits & 0x80000000u) >> sign_shift : 0u;
    return static_cast<storage>((sign | code) << F::padding_bits);
  }
}

/// A NaN of F to float, through the generic converter (kept out of line).
template <class F>
MIXPREC_HD MIXPREC_NOINLINE constexpr std::uint32_t nan_to_float32_bits(typename F::storage_type storage) noexcept {
  return encode_bits<float32_format>(decode_bits<F>(storage), rounding::nearest_even, overflow::ieee);
}

/// F -> float, exact. Formats with float's layout (float32_layout: bfloat16, tf32) widen by a
/// shift, NaNs included (a signalling NaN stays signalling, as in PyTorch, ml_dtypes, CUDA and
/// Eigen); every other format takes IEEE 754 convertFormat's rule, a NaN comes out quiet.
template <class F>
MIXPREC_HD constexpr std::uint32_t to_float32_bits(typename F::storage_type storage) noexcept {
  static_assert(fast_to_float32<F>, "format not covered by the fast path");
  constexpr int M = F::mantissa_bits;
  const std::uint32_t code = static_cast<std::uint32_t>(storage) >> F::padding_bits;
  if constexpr (float32_layout<F>) {
    return code << (23 - M);
  } else {
    constexpr int up = 23 - M;  // F's mantissa field to float's
    // Magnitudes shifted to float's field: F's normals are [lo, top). (Formats with float's
    // exponent range are float32_layout; the others have 7 exponent bits at most.)
    static_assert(F::emin > -126, "F's exponent range is narrower than float's here");
    // Tests in the order infinity/NaN, normal, subnormal/zero: on data that mixes them
    // unpredictably, two branches of skewed odds mispredict less than one test for "normal".
    constexpr std::uint32_t lo = std::uint32_t{1} << (M + up);
    constexpr std::uint32_t top = (static_cast<std::uint32_t>(F::max_code) + 1u) << up;
    constexpr std::uint32_t rebias = static_cast<std::uint32_t>(127 - F::bias) << 23;
    constexpr int sign_shift = 31 - (F::exponent_bits + M);
    const std::uint32_t em = (code & static_cast<std::uint32_t>(F::magnitude_mask)) << up;
    const std::uint32_t sign = (code & static_cast<std::uint32_t>(F::sign_mask)) << sign_shift;
    if (MIXPREC_UNLIKELY(em >= top)) {  // (not for formats whose largest code is finite)
      if (F::enc == encoding::ieee && em == top) return sign | 0x7f800000u;  // infinity
      return nan_to_float32_bits<F>(storage);
    }
    if (MIXPREC_LIKELY(em >= lo)) return sign | (em + rebias);
    if constexpr (F::enc == encoding::fnuz) {
      if (code == static_cast<std::uint32_t>(F::sign_mask)) return nan_to_float32_bits<F>(storage);
    }
    // Zero or subnormal: mant * 2^qmin, normalized (a float normal, since qmin >= -126 here).
    const std::uint32_t mant = em >> up;
    const int msb = 63 - clz64(mant | 1u);
    const auto e = static_cast<std::uint32_t>(F::qmin + msb + 127);
    return sign | (((e << 23) | ((mant << (23 - msb)) & 0x7fffffu)) & (0u - static_cast<std::uint32_t>(mant != 0)));
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
