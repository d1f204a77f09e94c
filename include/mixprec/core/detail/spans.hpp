// SPDX-License-Identifier: MIT
// mixprec/core/detail/spans.hpp — turning kernel arguments (mixprec::span, std::span, containers with
// data() and size(), pointer/size pairs) into mixprec::span.
#ifndef MIXPREC_DETAIL_SPANS_HPP
#define MIXPREC_DETAIL_SPANS_HPP

#include <cstddef>
#include <type_traits>
#include <utility>

#include "../span.hpp"

namespace mixprec {
namespace detail {

template <class C, class = void>
struct is_contiguous : std::false_type {};
template <class C>
struct is_contiguous<C, std::void_t<decltype(std::declval<C&>().data()), decltype(std::declval<C&>().size())>>
    : std::is_pointer<decltype(std::declval<C&>().data())> {};

/// The element type a contiguous argument views (const kept).
template <class C>
using element_of = std::remove_pointer_t<decltype(std::declval<C&>().data())>;

/// Any contiguous argument as a mixprec::span of its (possibly const) elements.
template <class C>
constexpr span<element_of<C>> as_span(C&& c) noexcept {
  return span<element_of<C>>(c.data(), static_cast<std::size_t>(c.size()));
}

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_SPANS_HPP
