// SPDX-License-Identifier: MIT
// mixprec/kernels/pack.hpp — bulk packing of FP4 (two per byte) and FP6 (four per three bytes).
//
//   mixprec::pack_elements(policy, src, dst);     // src: T values; dst: packed_bytes<T>(src.size()) bytes
//   mixprec::unpack_elements(policy, src, dst);   // src: packed_bytes<T>(dst.size()) bytes; dst: T values
//
// T: a mixprec type of at most 8 bits (float4_e2m1fn, float6_e2m3fn, ...), in mixprec/packed.hpp's
// layout; src and dst: mixprec::span or any contiguous container, bytes std::uint8_t. Contract:
// the same bytes under every policy; a size that does not match throws std::invalid_argument with
// nothing written. Layout, padding and exec::cuda rules: docs/pages/formats.md ("Packed FP4 and FP6").
#ifndef MIXPREC_KERNELS_PACK_HPP
#define MIXPREC_KERNELS_PACK_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/kernels/pack.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "../core/detail/spans.hpp"
#include "exec.hpp"
#include "../core/packed.hpp"

namespace mixprec {
namespace detail {

/// Elements per group and bytes per group: the smallest run of elements that fills whole bytes
/// (FP4: 2 in 1 byte, FP6: 4 in 3 bytes).
template <class T>
struct pack_group {
  static constexpr unsigned bits = T::format_type::bits;
  static constexpr unsigned elements = bits % 8 == 0 ? 1u : bits % 4 == 0 ? 2u : bits % 2 == 0 ? 4u : 8u;
  static constexpr unsigned bytes = bits * elements / 8;
};

template <class T>
struct pack_body {
  const T* src;
  std::uint8_t* dst;
  std::size_t n;       // elements
  std::size_t bytes;   // packed bytes

  MIXPREC_HD void operator()(std::size_t begin, std::size_t end) const noexcept {
    using G = pack_group<T>;
    for (std::size_t g = begin; g < end; ++g) {
      const std::size_t e0 = g * G::elements;
      std::uint64_t w = 0;
      for (unsigned k = 0; k < G::elements && e0 + k < n; ++k) {
        w |= (static_cast<std::uint64_t>(src[e0 + k].bits()) & ((1u << G::bits) - 1u)) << (k * G::bits);
      }
      const std::size_t b0 = g * G::bytes;
      for (unsigned k = 0; k < G::bytes && b0 + k < bytes; ++k) dst[b0 + k] = static_cast<std::uint8_t>(w >> (8 * k));
    }
  }
};

template <class T>
struct unpack_body {
  const std::uint8_t* src;
  T* dst;
  std::size_t n;
  std::size_t bytes;

  MIXPREC_HD void operator()(std::size_t begin, std::size_t end) const noexcept {
    using G = pack_group<T>;
    for (std::size_t g = begin; g < end; ++g) {
      const std::size_t b0 = g * G::bytes;
      std::uint64_t w = 0;
      for (unsigned k = 0; k < G::bytes && b0 + k < bytes; ++k) w |= static_cast<std::uint64_t>(src[b0 + k]) << (8 * k);
      const std::size_t e0 = g * G::elements;
      for (unsigned k = 0; k < G::elements && e0 + k < n; ++k) {
        dst[e0 + k] = T::from_bits(static_cast<typename T::storage_type>((w >> (k * G::bits)) & ((1u << G::bits) - 1u)));
      }
    }
  }
};

}  // namespace detail

/// Packs src (mixprec values of at most 8 bits) into dst (packed_bytes<T>(src.size()) bytes).
template <class Policy, class Src, class Dst>
void pack_elements(Policy policy, Src&& src, Dst&& dst) {
  static_assert(exec::is_execution_policy<Policy>::value, "mixprec::pack_elements: the first argument is an execution policy");
  const auto s = detail::as_span(src);
  const auto d = detail::as_span(dst);
  using T = std::remove_const_t<typename decltype(s)::element_type>;
  static_assert(is_packable<T>::value, "mixprec::pack_elements: the source must hold a mixprec type of at most 8 bits");
  static_assert(std::is_same<typename decltype(d)::element_type, std::uint8_t>::value,
                "mixprec::pack_elements: the destination must hold std::uint8_t");
  const std::size_t bytes = packed_bytes<T>(s.size());
  if (d.size() != bytes) {
    throw std::invalid_argument("mixprec::pack_elements: " + std::to_string(s.size()) + " elements need " +
                                std::to_string(bytes) + " bytes, the destination has " + std::to_string(d.size()));
  }
  using G = detail::pack_group<T>;
  const std::size_t groups = s.size() / G::elements + (s.size() % G::elements != 0 ? 1 : 0);
  detail::for_each_range(policy, groups, detail::pack_body<T>{s.data(), d.data(), s.size(), bytes});
}

/// Unpacks src (packed_bytes<T>(dst.size()) bytes) into dst (mixprec values of at most 8 bits).
template <class Policy, class Src, class Dst>
void unpack_elements(Policy policy, Src&& src, Dst&& dst) {
  static_assert(exec::is_execution_policy<Policy>::value, "mixprec::unpack_elements: the first argument is an execution policy");
  const auto s = detail::as_span(src);
  const auto d = detail::as_span(dst);
  using T = typename decltype(d)::element_type;
  static_assert(!std::is_const<T>::value, "mixprec::unpack_elements: the destination is const");
  static_assert(is_packable<T>::value, "mixprec::unpack_elements: the destination must hold a mixprec type of at most 8 bits");
  static_assert(std::is_same<std::remove_const_t<typename decltype(s)::element_type>, std::uint8_t>::value,
                "mixprec::unpack_elements: the source must hold std::uint8_t");
  const std::size_t bytes = packed_bytes<T>(d.size());
  if (s.size() != bytes) {
    throw std::invalid_argument("mixprec::unpack_elements: " + std::to_string(d.size()) + " elements need " +
                                std::to_string(bytes) + " bytes, the source has " + std::to_string(s.size()));
  }
  using G = detail::pack_group<T>;
  const std::size_t groups = d.size() / G::elements + (d.size() % G::elements != 0 ? 1 : 0);
  detail::for_each_range(policy, groups, detail::unpack_body<T>{s.data(), d.data(), d.size(), bytes});
}

}  // namespace mixprec

#endif  // MIXPREC_KERNELS_PACK_HPP
