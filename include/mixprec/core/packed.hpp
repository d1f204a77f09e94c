// SPDX-License-Identifier: MIT
// mixprec/core/packed.hpp — sub-byte storage: FP4 two per byte, FP6 four per three bytes.
//
// Layout: with b = T::format_type::bits (4 for float4_*, 6 for float6_*; any width from 1 to 8
// works), element i occupies bits [b*i, b*i + b) of the LSB-first bit stream of the bytes (byte k
// holds stream bits 8k..8k+7). So
//   FP4: element 2j is the LOW nibble of byte j, element 2j+1 the HIGH nibble;
//   FP6: elements 4j..4j+3 are the 24-bit little-endian word e0 | e1 << 6 | e2 << 12 | e3 << 18
//        in bytes 3j, 3j+1, 3j+2.
// This is the element order of (checked against the CUDA 13.0 headers):
//   - CUDA's __nv_fp4x2_e2m1: __nv_cvt_float2_to_fp4x2(float2{x, y}) stores x in bits 3:0 and
//     y in bits 7:4; __nv_fp4x4_e2m1(float4{x, y, z, w}) holds them in bits 3:0, 7:4, 11:8,
//     15:12 of its 16-bit storage, i.e. bytes {y:x, w:z} in memory (cuda_fp4.hpp);
//   - PTX cvt.rn.satfinite.e2m1x2.f32 d, a, b: the FIRST source a goes to the HIGH nibble, so
//     element 0 is the second operand (cuda_fp4.hpp passes y, x);
//   - PyTorch's torch.float4_e2m1fn_x2 (test_matmul_cuda.py and torchao's pack_uint4:
//     data[1::2] << 4 | data[::2]).
// CUDA has no packed FP6 type (__nv_fp6x2_e2m3 / __nv_fp6x4_e2m3 keep one value per byte, in
// its low six bits); four per three bytes is the same LSB-first stream, as CUTLASS's sub-byte
// arrays store 6-bit elements.
//
//   std::uint8_t buf[mixprec::packed_bytes<mixprec::float4_e2m1fn>(2)];           // 1 byte
//   mixprec::packed_store(buf, 0, mixprec::float4_e2m1fn(1.0f));                  // low nibble 0x2
//   mixprec::packed_store(buf, 1, mixprec::float4_e2m1fn(-6.0f));                 // high nibble 0xF
//   // buf[0] == 0xF2, as __nv_fp4x2_e2m1(float2{1, -6}); packed_load<float4_e2m1fn>(buf, 1) == -6
//
// Bulk packing under an execution policy: mixprec/kernels/pack.hpp.
#ifndef MIXPREC_PACKED_HPP
#define MIXPREC_PACKED_HPP

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "basic_float.hpp"

namespace mixprec {

/// Whether T (a mixprec type of 1 to 8 bits without padding) can be stored packed.
template <class T>
struct is_packable : std::false_type {};
template <class F>
struct is_packable<basic_float<F>> : std::integral_constant<bool, F::bits <= 8 && F::padding_bits == 0> {};

/// Bytes that hold n packed elements of T: ceil(n * bits / 8).
template <class T>
MIXPREC_HD constexpr std::size_t packed_bytes(std::size_t n) noexcept {
  static_assert(is_packable<T>::value, "mixprec::packed_bytes: T must be a mixprec type of at most 8 bits");
  constexpr std::size_t b = T::format_type::bits;
  return n / 8 * b + (n % 8 * b + 7) / 8;  // without overflow for any n
}

/// Element i of the packed array at p.
template <class T>
MIXPREC_HD constexpr T packed_load(const std::uint8_t* p, std::size_t i) noexcept {
  static_assert(is_packable<T>::value, "mixprec::packed_load: T must be a mixprec type of at most 8 bits");
  constexpr unsigned b = T::format_type::bits;
  const std::size_t bit = i / 8 * b * 8 + i % 8 * b;  // b * i, without overflow
  const std::size_t k = bit / 8;
  const unsigned s = static_cast<unsigned>(bit % 8);
  unsigned w = p[k];
  if (s + b > 8) w |= static_cast<unsigned>(p[k + 1]) << 8;
  return T::from_bits(static_cast<typename T::storage_type>((w >> s) & ((1u << b) - 1u)));
}

/// Stores x as element i of the packed array at p; the other elements' bits are unchanged.
template <class T>
MIXPREC_HD constexpr void packed_store(std::uint8_t* p, std::size_t i, T x) noexcept {
  static_assert(is_packable<T>::value, "mixprec::packed_store: T must be a mixprec type of at most 8 bits");
  constexpr unsigned b = T::format_type::bits;
  const std::size_t bit = i / 8 * b * 8 + i % 8 * b;
  const std::size_t k = bit / 8;
  const unsigned s = static_cast<unsigned>(bit % 8);
  const unsigned mask = ((1u << b) - 1u) << s;
  const unsigned v = (static_cast<unsigned>(x.bits()) << s) & mask;
  p[k] = static_cast<std::uint8_t>((p[k] & ~mask) | v);
  if (s + b > 8) p[k + 1] = static_cast<std::uint8_t>((p[k + 1] & ~(mask >> 8)) | (v >> 8));
}

}  // namespace mixprec

#endif  // MIXPREC_PACKED_HPP
