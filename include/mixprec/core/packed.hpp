// SPDX-License-Identifier: MIT
// mixprec/core/packed.hpp — sub-byte storage: FP4 two per byte, FP6 four per three bytes.
//
//   packed_bytes<T>(n), packed_load<T>(p, i), packed_store(p, i, x)   constexpr, host and device
//
// Contract: element i occupies bits [b*i, b*i + b) of the LSB-first bit stream of the bytes
// (b = T::format_type::bits): FP4 element 2j is the low nibble of byte j, as CUDA's
// __nv_fp4x2_e2m1 and PyTorch's float4_e2m1fn_x2. The layouts and their sources:
// docs/pages/formats.md ("Packed FP4 and FP6"); bulk packing: kernels/pack.hpp.
//
//   std::uint8_t buf[mixprec::packed_bytes<mixprec::float4_e2m1fn>(2)];  // 1 byte
//   mixprec::packed_store(buf, 0, mixprec::float4_e2m1fn(1.0f));         // low nibble 0x2
//   mixprec::packed_store(buf, 1, mixprec::float4_e2m1fn(-6.0f));        // buf[0] == 0xF2
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
