// SPDX-License-Identifier: MIT
// mixprec/kernels/cast_result.hpp — conversions whose target type is decided at run time.
//
// Contract: cast_to(target, x) converts every floating value of x (scalars to cast_value<T>,
// spans / contiguous containers / C arrays to cast_tensor<T>) to target, one rounding to
// nearest-even each; a dtype argument gives the dtype it converts to; anything else passes
// through unchanged. A result holds a std::variant over T, half, bfloat16, float and double, so
// visit() calls a generic lambda with the static type held. Unconverted tensors are views of the
// caller's data; converted ones co-own their copy (docs/pages/autocast-reference.md#cast-results).
//
//   auto v = mixprec::cast_to(mixprec::dtype::bfloat16(), 3.14159f);   // cast_value<float>
//   v.as<mixprec::bfloat16>(); // the converted value (std::invalid_argument for another type)
//   std::vector<float> w = ...;
//   auto t = mixprec::cast_to(mixprec::dtype::float16(), w);             // cast_tensor<float>
//   t.visit([](auto s) { my_kernel(s); });   // s: span<const half> here
#ifndef MIXPREC_CAST_RESULT_HPP
#define MIXPREC_CAST_RESULT_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/kernels/cast_result.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "../core/detail/spans.hpp"
#include "../core/dtype.hpp"
#include "exec.hpp"
#include "convert.hpp"
#include "../core/round_to.hpp"
#include "../core/span.hpp"
#include "../core/types.hpp"

namespace mixprec {
namespace detail {

template <class T, class... Ts>
struct type_in : std::disjunction<std::is_same<T, Ts>...> {};

template <class V, class... Ts>
struct unique_variant_impl {
  using type = V;
};
template <class... Us, class T, class... Ts>
struct unique_variant_impl<std::variant<Us...>, T, Ts...>
    : unique_variant_impl<std::conditional_t<type_in<T, Us...>::value, std::variant<Us...>, std::variant<Us..., T>>,
                          Ts...> {};
/// std::variant of Ts with the repeated types removed (first occurrence kept).
template <class... Ts>
using unique_variant = typename unique_variant_impl<std::variant<>, Ts...>::type;

template <class T, class V>
struct variant_has;
template <class T, class... Us>
struct variant_has<T, std::variant<Us...>> : type_in<T, Us...> {};

template <class T>
struct type_tag {
  using type = T;
};

struct converted_tag {};

/// Calls f(type_tag<U>{}) with U the static type of target: half, bfloat16, float or double.
template <class F>
decltype(auto) with_cast_target(dtype target, const char* who, F&& f) {
  if (target == dtype::float16()) return std::forward<F>(f)(type_tag<half>{});
  if (target == dtype::bfloat16()) return std::forward<F>(f)(type_tag<bfloat16>{});
  if (target == dtype::float32()) return std::forward<F>(f)(type_tag<float>{});
  if (target == dtype::float64()) return std::forward<F>(f)(type_tag<double>{});
  throw std::invalid_argument(std::string(who) + ": cannot convert to " + std::string(target.name()) +
                              " (the targets are float16, bfloat16, float32 and float64)");
}

/// A floating tensor argument: a contiguous container / span of a floating type, or a C array.
template <class A, class = void>
struct float_tensor_traits : std::false_type {};
template <class A>
struct float_tensor_traits<A, std::enable_if_t<is_contiguous<A>::value>>
    : std::integral_constant<bool, is_binary_float<std::remove_cv_t<element_of<A>>>::value> {
  using element = std::remove_cv_t<element_of<A>>;
  static span<const element> view(const A& a) noexcept {
    return span<const element>(a.data(), static_cast<std::size_t>(a.size()));
  }
};
template <class T, std::size_t N>
struct float_tensor_traits<T[N], void> : std::integral_constant<bool, is_binary_float<std::remove_cv_t<T>>::value> {
  using element = std::remove_cv_t<T>;
  static span<const element> view(const T (&a)[N]) noexcept { return span<const element>(a, N); }
};

template <class A>
using arg_t = std::remove_cv_t<std::remove_reference_t<A>>;

template <class A>
constexpr bool is_float_scalar_arg = is_binary_float<arg_t<A>>::value;
template <class A>
constexpr bool is_float_tensor_arg = float_tensor_traits<arg_t<A>>::value;
template <class A>
constexpr bool is_dtype_arg = std::is_same<arg_t<A>, dtype>::value;

/// What passes through unchanged: an lvalue as a const reference, an rvalue by value.
template <class A>
using passthrough_t = std::conditional_t<std::is_lvalue_reference<A>::value, const std::remove_reference_t<A>&,
                                         std::remove_cv_t<std::remove_reference_t<A>>>;

}  // namespace detail

/// A floating scalar after a run-time-typed conversion: holds T (unchanged) or the converted value.
template <class T>
class cast_value {
  static_assert(is_binary_float<T>::value, "mixprec::cast_value<T>: T is float, double or a mixprec type");

 public:
  using original_type = T;  ///< The argument's type
  /// The types it may hold (T, half, bfloat16, float, double; repeats removed).
  using variant_type = detail::unique_variant<T, half, bfloat16, float, double>;

  /// The argument unchanged.
  explicit cast_value(T original) noexcept : v_(std::in_place_type<T>, original) {}
  /// A converted value (U one of half, bfloat16, float, double).
  template <class U>
  cast_value(detail::converted_tag, U value) noexcept : v_(std::in_place_type<U>, value), converted_(true) {}

  /// The type held.
  dtype type() const noexcept {
    return std::visit([](auto x) { return dtype::of<decltype(x)>(); }, v_);
  }
  /// Whether a conversion happened (false: the argument is held as it was).
  bool converted() const noexcept { return converted_; }
  /// The value as U, which must be the type held (else std::invalid_argument naming both).
  template <class U>
  U as() const {
    if constexpr (detail::variant_has<U, variant_type>::value) {
      if (const U* p = std::get_if<U>(&v_)) return *p;
    }
    throw std::invalid_argument("mixprec::cast_value: holds " + std::string(type().name()) + ", not " +
                                std::string(dtype::of<U>().name()));
  }
  /// The value held, rounded once to U (exact when U is wider).
  template <class U>
  U to() const {
    return std::visit([](auto x) { return round_to<U>(x); }, v_);
  }
  /// f(x) with x of the static type held.
  template <class F>
  decltype(auto) visit(F&& f) const {
    return std::visit(std::forward<F>(f), v_);
  }
  /// The variant itself.
  const variant_type& variant() const noexcept { return v_; }

 private:
  variant_type v_;
  bool converted_ = false;
};

/// A floating tensor after a run-time-typed conversion: a view of the argument (unchanged) or of
/// a converted copy, which it co-owns.
template <class T>
class cast_tensor {
  static_assert(is_binary_float<T>::value, "mixprec::cast_tensor<T>: T is float, double or a mixprec type");

 public:
  using original_type = T;  ///< The argument's element type
  /// span<const U> for U in T, half, bfloat16, float, double (repeats removed).
  using variant_type = detail::unique_variant<span<const T>, span<const half>, span<const bfloat16>,
                                              span<const float>, span<const double>>;

  /// The argument unchanged (a view: the caller's data must outlive *this).
  explicit cast_tensor(span<const T> original) noexcept : v_(std::in_place_type<span<const T>>, original) {}
  /// A converted copy (U one of half, bfloat16, float, double); from_cache: it came from the
  /// autocast weight cache.
  template <class U>
  cast_tensor(std::shared_ptr<const std::vector<U>> data, bool from_cache) noexcept
      : v_(std::in_place_type<span<const U>>, span<const U>(data->data(), data->size())),
        storage_(std::move(data)),
        converted_(true),
        cached_(from_cache) {}

  /// The element type held.
  dtype type() const noexcept {
    return std::visit([](auto s) { return dtype::of<typename decltype(s)::value_type>(); }, v_);
  }
  /// Number of elements.
  std::size_t size() const noexcept {
    return std::visit([](auto s) { return s.size(); }, v_);
  }
  /// Whether a conversion happened (false: a view of the argument).
  bool converted() const noexcept { return converted_; }
  /// The conversion was taken from (or stored in) the autocast weight cache.
  bool from_cache() const noexcept { return cached_; }
  /// The elements as span<const U>; U must be the type held (else std::invalid_argument).
  template <class U>
  span<const U> as() const {
    if constexpr (detail::variant_has<span<const U>, variant_type>::value) {
      if (const span<const U>* p = std::get_if<span<const U>>(&v_)) return *p;
    }
    throw std::invalid_argument("mixprec::cast_tensor: holds " + std::string(type().name()) + ", not " +
                                std::string(dtype::of<U>().name()));
  }
  /// The elements rounded once to U, as a new vector.
  template <class U>
  std::vector<U> to_vector() const {
    return std::visit(
        [](auto s) {
          std::vector<U> out(s.size());
          convert(exec::seq, s, out);
          return out;
        },
        v_);
  }
  /// f(s) with s a span<const U> of the static type held.
  template <class F>
  decltype(auto) visit(F&& f) const {
    return std::visit(std::forward<F>(f), v_);
  }
  /// The variant itself.
  const variant_type& variant() const noexcept { return v_; }

 private:
  variant_type v_;
  std::shared_ptr<const void> storage_;
  bool converted_ = false;
  bool cached_ = false;
};

namespace detail {

template <class A, class = void>
struct cast_result_impl {
  using type = passthrough_t<A>;
};
template <class A>
struct cast_result_impl<A, std::enable_if_t<is_float_scalar_arg<A>>> {
  using type = cast_value<arg_t<A>>;
};
template <class A>
struct cast_result_impl<A, std::enable_if_t<is_float_tensor_arg<A>>> {
  using type = cast_tensor<typename float_tensor_traits<arg_t<A>>::element>;
};
template <class A>
struct cast_result_impl<A, std::enable_if_t<is_dtype_arg<A>>> {
  using type = dtype;
};

/// The result type of cast_to / autocast_cast for an argument of type A (A&& as forwarded).
template <class A>
using cast_result_t = typename cast_result_impl<A>::type;

/// The run-time type of an argument: its floating dtype, the dtype it is, or undefined.
template <class A>
dtype arg_dtype(const A& a) noexcept {
  if constexpr (is_dtype_arg<const A&>) {
    return a;
  } else if constexpr (is_float_scalar_arg<const A&>) {
    return dtype::of<arg_t<A>>();
  } else if constexpr (is_float_tensor_arg<const A&>) {
    return dtype::of<typename float_tensor_traits<arg_t<A>>::element>();
  } else {
    (void)a;
    return dtype();
  }
}

/// x converted to target (known to be half/bfloat16/float/double) unless it already has that type.
template <class T>
cast_value<T> convert_scalar(dtype target, T x) {
  if (dtype::of<T>() == target) return cast_value<T>(x);
  return with_cast_target(target, "mixprec::cast_to", [&](auto tag) {
    using U = typename decltype(tag)::type;
    return cast_value<T>(converted_tag{}, round_to<U>(x));
  });
}

template <class U, class T>
std::shared_ptr<const std::vector<U>> converted_copy(span<const T> x) {
  auto out = std::make_shared<std::vector<U>>(x.size());
  convert(exec::seq, x, *out);
  return out;
}

template <class T>
cast_tensor<T> convert_tensor(dtype target, span<const T> x) {
  if (dtype::of<T>() == target) return cast_tensor<T>(x);
  return with_cast_target(target, "mixprec::cast_to", [&](auto tag) {
    using U = typename decltype(tag)::type;
    return cast_tensor<T>(converted_copy<U>(x), false);
  });
}

/// Converts one argument to target when it is floating (every floating type, double included).
template <class A>
cast_result_t<A&&> cast_floating_to(dtype target, A&& a) {
  if constexpr (is_dtype_arg<A&&>) {
    return a.is_floating_point() ? target : a;
  } else if constexpr (is_float_scalar_arg<A&&>) {
    return convert_scalar(target, static_cast<arg_t<A>>(a));
  } else if constexpr (is_float_tensor_arg<A&&>) {
    return convert_tensor(target, float_tensor_traits<arg_t<A>>::view(a));
  } else {
    return std::forward<A>(a);
  }
}

inline void check_cast_target(dtype target, const char* who) {
  with_cast_target(target, who, [](auto) { return 0; });
}

}  // namespace detail

/// x converted to target when x is floating (double included), else x unchanged. target must be
/// float16, bfloat16, float32 or float64 (else std::invalid_argument); a tensor already of target
/// is not copied (the result views the caller's data).
template <class A>
detail::cast_result_t<A&&> cast_to(dtype target, A&& x) {
  detail::check_cast_target(target, "mixprec::cast_to");
  return detail::cast_floating_to(target, std::forward<A>(x));
}

}  // namespace mixprec

#endif  // MIXPREC_CAST_RESULT_HPP
