// SPDX-License-Identifier: MIT
// mixprec/kernels/detail/simd_round.hpp — float -> bfloat16 / tf32 (float's layout, shorter
// mantissa), nearest-even or ties away, on the bits of a vector of floats, as float bits: written
// once over simd/'s vector traits (vec512, vec256), host only, for the optimizer steps
// (detail/simd_optim.hpp) and GEMM's input rounding (gemm/detail/vec.hpp).
// Contract: lane by lane, the float bits of round_to<bfloat16 or tf32>(x): NaNs quieted with sign
// and leading payload kept, a carry past the largest finite value gives infinity; integer adds
// and an unordered compare only, so MXCSR.DAZ/FTZ change nothing.
//   const V::vi r = detail::simd_round::nearest<V, 16>(V::f_bits(x));  // bfloat16 as float bits
#ifndef MIXPREC_KERNELS_DETAIL_SIMD_ROUND_HPP
#define MIXPREC_KERNELS_DETAIL_SIMD_ROUND_HPP

#include <cstdint>

#include "../../simd/vec_avx2.hpp"
#include "../../simd/vec_avx512.hpp"

#if defined(MIXPREC_SIMD_AVX2)
namespace mixprec {
namespace detail {
namespace simd_round {

/// u plus just under half an ulp of the format that drops float's last Drop bits, plus the last
/// kept bit (ties to even) or plus half an ulp (Away: ties away): its bits above the last Drop are
/// the rounding of u, for a u that is not NaN (or a quiet NaN whose low Drop bits are zero).
template <class V, int Drop, bool Away = false>
typename V::vi sum(typename V::vi u) noexcept {
  constexpr std::uint32_t half_ulp = 1u << (Drop - 1);
  if constexpr (Away) {
    return V::add(u, V::set1(half_ulp));
  } else if constexpr (!V::has_mask_registers) {  // masks are lanes: the bit's value
    return V::add(V::add(u, V::set1(half_ulp - 1u)), V::and_(V::template srli<Drop>(u), V::set1(1u)));
  } else {  // mask registers: a masked add
    return V::add_one_if(V::test(u, V::set1(1u << Drop)), V::add(u, V::set1(half_ulp - 1u)));
  }
}

/// The float bits u rounded to the format that drops float's last Drop bits (16: bfloat16, 13:
/// tf32), ties to even (or away: Away), as float bits with those Drop bits zero; NaNs quieted.
template <class V, int Drop, bool Away = false>
typename V::vi nearest(typename V::vi u) noexcept {
  const typename V::vi keep = V::set1(~((1u << Drop) - 1u));
  const typename V::vi quiet = V::and_(V::or_(u, V::set1(0x00400000u)), keep);
  return V::select(V::f_nan(V::f_from_bits(u)), quiet, V::and_(sum<V, Drop, Away>(u), keep));
}

}  // namespace simd_round
}  // namespace detail
}  // namespace mixprec
#endif  // MIXPREC_SIMD_AVX2

#endif  // MIXPREC_KERNELS_DETAIL_SIMD_ROUND_HPP
