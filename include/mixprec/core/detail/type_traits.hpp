// SPDX-License-Identifier: MIT
// mixprec/core/detail/type_traits.hpp — small type utilities missing from C++17's <type_traits>.
//
//   detail::type_identity<T>, detail::type_identity_t<T>   (std::type_identity from C++20)
//
// type_identity_t<T> as a parameter type is a non-deduced context: gemm<float>(..., 1.0, ...)
// takes alpha's type from the accumulate type without a deduction conflict.
#ifndef MIXPREC_DETAIL_TYPE_TRAITS_HPP
#define MIXPREC_DETAIL_TYPE_TRAITS_HPP

#include "../config.hpp"

#include <type_traits>

namespace mixprec {
namespace detail {

/// The type the kernels compute in for arguments of types T...: double when any of them is
/// double, else float (PyTorch's "opmath" for the types mixprec has).
template <class... T>
using compute_type_t =
    std::conditional_t<(std::is_same<std::remove_cv_t<T>, double>::value || ...), double, float>;

template <class T>
struct type_identity {
  using type = T;
};
template <class T>
using type_identity_t = typename type_identity<T>::type;

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_TYPE_TRAITS_HPP
