// SPDX-License-Identifier: MIT
// mixprec/core/span.hpp — mixprec::span: std::span under C++20, a minimal stand-in under C++17.
//
// Contract: under C++20 (when <span> exists) mixprec::span IS std::span; under C++17 a small class
// with std::span's construction rules for (pointer, size), C arrays, std::array and contiguous
// containers, plus span<T> -> span<const T>; usable in device code.
//
//   std::vector<mixprec::half> v(8);
//   mixprec::span<const mixprec::half> s = v;  // s.size() == 8
#ifndef MIXPREC_SPAN_HPP
#define MIXPREC_SPAN_HPP

#include <cstddef>
#include <type_traits>
#include <utility>

#include "config.hpp"

#if __cplusplus >= 202002L && defined(__has_include)
#if __has_include(<span>)
#include <span>
#if defined(__cpp_lib_span) && __cpp_lib_span >= 202002L && !defined(__CUDACC__)
#define MIXPREC_STD_SPAN 1
#endif
#endif
#endif

namespace mixprec {

#if defined(MIXPREC_STD_SPAN)

/// std::span<T> (C++20).
template <class T>
using span = std::span<T>;

#else

/// A view of `size()` contiguous elements of T (C++17 stand-in for std::span<T>, dynamic extent).
template <class T>
class span {
 public:
  using element_type = T;               ///< T, const included
  using value_type = std::remove_cv_t<T>;  ///< T without const/volatile
  using size_type = std::size_t;        ///< std::size_t
  using pointer = T*;                   ///< T*
  using reference = T&;                 ///< T&
  using iterator = T*;                  ///< A plain pointer

  /// Empty: data() is null, size() 0.
  constexpr span() noexcept = default;
  /// The `size` elements from `data` on.
  MIXPREC_HD constexpr span(T* data, std::size_t size) noexcept : data_(data), size_(size) {}
  /// All N elements of the C array a.
  template <std::size_t N>
  MIXPREC_HD constexpr span(T (&a)[N]) noexcept : data_(a), size_(N) {}  // NOLINT
  /// Any contiguous container whose data() converts to T* (std::vector, std::array, ...).
  template <class C,
            class = std::enable_if_t<
                !std::is_same<std::remove_cv_t<std::remove_reference_t<C>>, span>::value &&
                std::is_convertible<decltype(std::declval<C&>().data()), T*>::value &&
                std::is_convertible<decltype(std::declval<C&>().size()), std::size_t>::value>>
  constexpr span(C&& c) noexcept  // NOLINT(google-explicit-constructor)
      : data_(c.data()), size_(static_cast<std::size_t>(c.size())) {}
  /// `span<U>` -> `span<const U>`.
  template <class U, class = std::enable_if_t<std::is_convertible<U (*)[], T (*)[]>::value>>
  MIXPREC_HD constexpr span(const span<U>& s) noexcept : data_(s.data()), size_(s.size()) {}  // NOLINT

  /// Pointer to the first element.
  MIXPREC_HD constexpr T* data() const noexcept { return data_; }
  /// Number of elements.
  MIXPREC_HD constexpr std::size_t size() const noexcept { return size_; }
  /// size() * sizeof(T).
  MIXPREC_HD constexpr std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
  /// size() == 0.
  MIXPREC_HD constexpr bool empty() const noexcept { return size_ == 0; }
  /// Element i; i < size() is the caller's duty (unchecked).
  MIXPREC_HD constexpr T& operator[](std::size_t i) const noexcept { return data_[i]; }
  /// data().
  MIXPREC_HD constexpr T* begin() const noexcept { return data_; }
  /// data() + size().
  MIXPREC_HD constexpr T* end() const noexcept { return data_ + size_; }
  /// The `count` elements from `offset` on; offset + count <= size() is the caller's duty.
  MIXPREC_HD constexpr span subspan(std::size_t offset, std::size_t count) const noexcept {
    return span(data_ + offset, count);
  }
  /// The first `count` elements; count <= size() is the caller's duty.
  MIXPREC_HD constexpr span first(std::size_t count) const noexcept { return span(data_, count); }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

#endif

}  // namespace mixprec

#endif  // MIXPREC_SPAN_HPP
