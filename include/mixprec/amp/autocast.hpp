// SPDX-License-Identifier: MIT
// mixprec/amp/autocast.hpp — PyTorch's autocast as a policy library for your own operators.
//
// Contract: an operator asks "for this op, with these arguments, under the current autocast
// state, in what type do I compute?" and gets PyTorch's answer (the op's cast_policy from the
// tables of autocast_ops.hpp, applied to the arguments' types). The state is thread-local and
// set by RAII scopes (torch.autocast) that must end in reverse order (else std::terminate);
// casts of mixprec::weight(x) to the autocast dtype are cached until the outermost scope ends.
// Like PyTorch's, autocast covers the forward pass only. Every rule (state, scopes, eligibility,
// each policy, promote errors, the compute type, the weight cache): docs/pages/autocast-reference.md.
//
//   mixprec::autocast_scope scope(mixprec::device_kind::cuda);      // enabled, float16
//   mixprec::autocast_type("linear", x, w, b);   // float16 for float x, w, b
//   std::cout << mixprec::autocast_type("linear", x, w, b);   // "float16": a dtype streams its name
//   auto [xc, wc, bc] = mixprec::autocast_cast("linear", x, mixprec::weight(w), mixprec::weight(b));
//   xc.visit([&](auto xs) { ... });               // xs: span<const half> here
#ifndef MIXPREC_AUTOCAST_HPP
#define MIXPREC_AUTOCAST_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/amp/autocast.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <cstddef>
#include <cstdio>
#include <exception>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "autocast_ops.hpp"
#include "../kernels/cast_result.hpp"
#include "../core/detail/quote_input.hpp"
#include "../core/dtype.hpp"
#include "../core/span.hpp"

namespace mixprec {

/// The device kinds autocast distinguishes.
enum class device_kind : unsigned char {
  cpu,  ///< torch.autocast("cpu"): default dtype bfloat16, table autocast_ops_cpu
  cuda  ///< torch.autocast("cuda"): default dtype float16, table autocast_ops_cuda
};

/// "cpu" or "cuda".
constexpr std::string_view to_string(device_kind d) noexcept { return d == device_kind::cpu ? "cpu" : "cuda"; }

/// Writes to_string(d) as a string is written:  std::cout << device_kind::cpu;  // cpu
template <class CharT, class Traits>
std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os, device_kind d) {
  return os << (d == device_kind::cpu ? "cpu" : "cuda");
}

/// PyTorch's default autocast dtype of a device: cuda float16, cpu bfloat16.
constexpr dtype default_autocast_dtype(device_kind d) noexcept {
  return d == device_kind::cpu ? dtype::bfloat16() : dtype::float16();
}

/// The built-in op table of a device.
constexpr const autocast_op_table& builtin_autocast_ops(device_kind d) noexcept {
  return d == device_kind::cpu ? autocast_ops_cpu : autocast_ops_cuda;
}

/// Whether autocast may cast a value of type t: floating and not float64.
constexpr bool is_autocast_eligible(dtype t) noexcept { return t.is_floating_point() && t != dtype::float64(); }

/// Thrown for a banned op, and for promote arguments without a valid widest type. Nothing has
/// changed when it is thrown.
class autocast_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A model parameter (a leaf tensor) for autocast_cast: its casts to the autocast dtype may be
/// cached (docs/pages/autocast-reference.md). Made by mixprec::weight(x).
template <class T>
class autocast_weight {
  static_assert(is_binary_float<T>::value, "mixprec::weight: the elements are float, double or a mixprec type");

 public:
  /// Marks values as a parameter (not copied: they must outlive every use).
  constexpr explicit autocast_weight(span<const T> values) noexcept : values_(values) {}
  /// The parameter's elements.
  constexpr span<const T> values() const noexcept { return values_; }

 private:
  span<const T> values_;
};

/// Marks x (a span, contiguous container or C array of a floating type) as a parameter.
template <class C>
auto weight(const C& x) noexcept {
  static_assert(detail::is_float_tensor_arg<const C&>, "mixprec::weight: x is a floating tensor (span, container)");
  using T = typename detail::float_tensor_traits<detail::arg_t<C>>::element;
  return autocast_weight<T>(detail::float_tensor_traits<detail::arg_t<C>>::view(x));
}

/// torch.autocast's arguments. A default member keeps the device's current setting.
struct autocast_options {
  device_kind device = device_kind::cuda;  ///< The device whose state the scope sets
  bool enabled = true;                     ///< Autocast on (false: a disabled region)
  /// The autocast dtype: float16 or bfloat16; undefined keeps the device's current one.
  dtype fast_dtype = {};
  /// nullopt keeps the current setting.
  std::optional<bool> cache_enabled = std::nullopt;
  /// The op table; nullptr keeps the device's current one (at first the built-in table). It must
  /// outlive the scope.
  const autocast_op_table* ops = nullptr;
};

/// A snapshot of the state of one device (see autocast_settings_of).
struct autocast_settings {
  device_kind device = device_kind::cuda;             ///< The device described
  bool enabled = false;                               ///< Whether autocast is on for it
  dtype fast_dtype = dtype::float16();                ///< Its autocast dtype (float16 or bfloat16)
  const autocast_op_table* ops = &autocast_ops_cuda;  ///< Its op table (never null)
  bool cache_enabled = true;                          ///< Whether weight casts are cached (per thread)
};

namespace detail {

struct autocast_device_state {
  bool enabled;
  dtype fast;
  const autocast_op_table* ops;
};

struct autocast_cache_key {
  const void* data;
  std::size_t size;
  bool to_bfloat16;
  friend bool operator<(const autocast_cache_key& a, const autocast_cache_key& b) noexcept {
    return std::tie(a.data, a.size, a.to_bfloat16) < std::tie(b.data, b.size, b.to_bfloat16);
  }
};

struct autocast_thread_state {
  autocast_device_state device[2] = {{false, dtype::bfloat16(), &autocast_ops_cpu},
                                     {false, dtype::float16(), &autocast_ops_cuda}};
  device_kind current = device_kind::cuda;
  bool cache_enabled = true;
  int nesting = 0;
  std::map<autocast_cache_key, std::shared_ptr<const void>> cache;
};

inline autocast_thread_state& autocast_state() noexcept {
  thread_local autocast_thread_state state;
  return state;
}

inline std::size_t device_index(device_kind d) {
  if (d != device_kind::cpu && d != device_kind::cuda) {
    throw std::invalid_argument("mixprec::autocast: invalid device_kind value " +
                                std::to_string(static_cast<unsigned>(d)));
  }
  return d == device_kind::cpu ? 0 : 1;
}

}  // namespace detail

namespace detail {
/// A scope ended out of order or on another thread: a message on stderr, then std::terminate.
[[noreturn]] inline void autocast_scope_order_violation(int depth, int nesting, bool other_thread) noexcept {
  std::fprintf(stderr,
               "mixprec::autocast_scope: scopes must end in reverse order of construction, on the thread that "
               "made them (a scope opened at depth %d ended %s); terminating\n",
               depth, other_thread ? "on another thread" : (nesting > depth ? "while a later scope is open"
                                                                            : "after an earlier scope"));
  std::fflush(stderr);
  std::terminate();
}
}  // namespace detail

/// An autocast region (torch.autocast): sets one device's state, restores it when destroyed.
/// Scopes end in reverse order on their own thread (else std::terminate); not copyable or
/// movable; the outermost one clears the weight cache (docs/pages/autocast-reference.md).
class autocast_scope {
 public:
  /// Enabled, keeping the device's current dtype (initially cuda float16, cpu bfloat16).
  explicit autocast_scope(device_kind device) : autocast_scope(make(device, true, dtype())) {}
  /// Enabled with fast_dtype (float16 or bfloat16, else std::invalid_argument).
  autocast_scope(device_kind device, dtype fast_dtype) : autocast_scope(make(device, true, fast_dtype)) {}
  /// enabled = false: a disabled region (nested inside an enabled one, it switches autocast off).
  autocast_scope(device_kind device, bool enabled) : autocast_scope(make(device, enabled, dtype())) {}
  /// Everything at once; std::invalid_argument for a dtype other than float16/bfloat16 or an
  /// invalid device value (nothing changes then).
  explicit autocast_scope(const autocast_options& o) {
    const std::size_t d = detail::device_index(o.device);
    if (o.fast_dtype.is_defined() && o.fast_dtype != dtype::float16() && o.fast_dtype != dtype::bfloat16()) {
      throw std::invalid_argument("mixprec::autocast_scope: the autocast dtype must be float16 or bfloat16, not " +
                                  std::string(o.fast_dtype.name()));
    }
    detail::autocast_thread_state& s = detail::autocast_state();
    device_ = o.device;
    saved_ = s.device[d];
    saved_cache_enabled_ = s.cache_enabled;
    saved_current_ = s.current;
    s.device[d].enabled = o.enabled;
    if (o.fast_dtype.is_defined()) s.device[d].fast = o.fast_dtype;
    if (o.ops != nullptr) s.device[d].ops = o.ops;
    if (o.cache_enabled) s.cache_enabled = *o.cache_enabled;
    s.current = o.device;
    depth_ = ++s.nesting;
    state_ = &s;
  }
  autocast_scope(const autocast_scope&) = delete;
  autocast_scope& operator=(const autocast_scope&) = delete;
  ~autocast_scope() {
    detail::autocast_thread_state& s = detail::autocast_state();
    if (&s != state_ || s.nesting != depth_) detail::autocast_scope_order_violation(depth_, s.nesting, &s != state_);
    s.device[device_ == device_kind::cpu ? 0 : 1] = saved_;
    s.cache_enabled = saved_cache_enabled_;
    s.current = saved_current_;
    if (--s.nesting == 0) s.cache.clear();
  }

  /// The device this scope set.
  device_kind device() const noexcept { return device_; }

 private:
  static autocast_options make(device_kind device, bool enabled, dtype fast) {
    autocast_options o;
    o.device = device;
    o.enabled = enabled;
    o.fast_dtype = fast;
    return o;
  }

  device_kind device_ = device_kind::cuda;
  detail::autocast_device_state saved_{};
  bool saved_cache_enabled_ = true;
  device_kind saved_current_ = device_kind::cuda;
  int depth_ = 0;
  const detail::autocast_thread_state* state_ = nullptr;  // the constructing thread's state
};

/// The device of the innermost scope of this thread (cuda outside every scope).
inline device_kind autocast_device() noexcept { return detail::autocast_state().current; }
/// Whether autocast is enabled for device on this thread.
inline bool is_autocast_enabled(device_kind device) {
  return detail::autocast_state().device[detail::device_index(device)].enabled;
}
/// Whether autocast is enabled for the current device.
inline bool is_autocast_enabled() { return is_autocast_enabled(autocast_device()); }
/// The autocast dtype of device on this thread (float16 or bfloat16), enabled or not.
inline dtype autocast_dtype(device_kind device) {
  return detail::autocast_state().device[detail::device_index(device)].fast;
}
/// The autocast dtype of the current device.
inline dtype autocast_dtype() { return autocast_dtype(autocast_device()); }
/// The op table in force for device on this thread.
inline const autocast_op_table& autocast_ops(device_kind device) {
  return *detail::autocast_state().device[detail::device_index(device)].ops;
}
/// The op table in force for the current device.
inline const autocast_op_table& autocast_ops() { return autocast_ops(autocast_device()); }
/// torch.is_autocast_cache_enabled().
inline bool is_autocast_cache_enabled() noexcept { return detail::autocast_state().cache_enabled; }
/// How many autocast scopes are open on this thread.
inline int autocast_nesting() noexcept { return detail::autocast_state().nesting; }
/// Entries in this thread's weight cache.
inline std::size_t autocast_cache_size() noexcept { return detail::autocast_state().cache.size(); }
/// Empties this thread's weight cache (torch.clear_autocast_cache()).
inline void clear_autocast_cache() noexcept { detail::autocast_state().cache.clear(); }

/// The state of device on this thread.
inline autocast_settings autocast_settings_of(device_kind device) {
  const detail::autocast_thread_state& s = detail::autocast_state();
  const detail::autocast_device_state& d = s.device[detail::device_index(device)];
  return autocast_settings{device, d.enabled, d.fast, d.ops, s.cache_enabled};
}

/// The policy the table in force for device gives op (whether autocast is enabled or not).
inline cast_policy autocast_policy(device_kind device, std::string_view op) { return autocast_ops(device).find(op); }
/// The policy the table in force for the current device gives op.
inline cast_policy autocast_policy(std::string_view op) { return autocast_policy(autocast_device(), op); }

/// What autocast does to one call.
struct autocast_decision {
  device_kind device = device_kind::cuda;  ///< The device whose state decided
  bool enabled = false;                    ///< Whether autocast was on (off: nothing is cast)
  /// The table's policy for the op (also when disabled).
  cast_policy policy = cast_policy::unlisted;
  /// The autocast dtype of the device.
  dtype fast_dtype = dtype::float16();
  /// The type eligible arguments are cast to; undefined when nothing is cast.
  dtype target = {};
  /// The compute (and result) type; undefined when no argument is floating.
  dtype compute = {};

  /// Whether an argument of type t is cast.
  constexpr bool casts(dtype t) const noexcept { return target.is_defined() && is_autocast_eligible(t) && t != target; }
  /// The type an argument of type t has after the casts.
  constexpr dtype converted(dtype t) const noexcept { return casts(t) ? target : t; }
};

namespace detail {

inline std::string dtype_list(const dtype* types, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    if (!is_autocast_eligible(types[i])) continue;
    if (!out.empty()) out += ", ";
    out += types[i].name();
  }
  return out;
}

/// The rules of docs/pages/autocast-reference.md, over the run-time types of the arguments (undefined for
/// a non-tensor argument).
inline autocast_decision autocast_decide_types(const autocast_settings& s, std::string_view op, const dtype* types,
                                               std::size_t n) {
  (void)device_index(s.device);
  const autocast_op_table& table = s.ops != nullptr ? *s.ops : builtin_autocast_ops(s.device);
  const autocast_op* entry = table.entry(op);
  autocast_decision d;
  d.device = s.device;
  d.enabled = s.enabled;
  d.policy = entry != nullptr ? entry->policy : cast_policy::unlisted;
  d.fast_dtype = s.fast_dtype;
  if (s.enabled) {
    switch (d.policy) {
      case cast_policy::lower_precision: d.target = s.fast_dtype; break;
      case cast_policy::fp32: d.target = dtype::float32(); break;
      case cast_policy::fp32_set_opt_dtype:
      case cast_policy::fp32_append_dtype:
        for (std::size_t i = 0; i < n; ++i) {
          if (types[i].is_floating_point()) {
            if (is_autocast_eligible(types[i])) d.target = dtype::float32();
            break;
          }
        }
        break;
      case cast_policy::promote: {
        bool any = false, has_half = false, has_bf16 = false;
        for (std::size_t i = 0; i < n; ++i) {
          if (!is_autocast_eligible(types[i])) continue;
          any = true;
          has_half = has_half || types[i] == dtype::float16();
          has_bf16 = has_bf16 || types[i] == dtype::bfloat16();
        }
        if (!any) break;
        const std::string prefix = "mixprec::autocast: op " + detail::quote_input(op) + " (promote, " +
                                   std::string(to_string(s.device)) + " autocast dtype " +
                                   std::string(s.fast_dtype.name()) + ") with arguments " + dtype_list(types, n);
        if (has_half && has_bf16) {
          throw autocast_error(prefix +
                               ": float16 together with bfloat16 is an error (PyTorch: \"Unexpected floating "
                               "ScalarType in at::autocast::prioritize\")");
        }
        dtype widest;
        for (std::size_t i = 0; i < n && !widest.is_defined(); ++i) {
          if (!is_autocast_eligible(types[i])) continue;
          bool holds_all = true;
          for (std::size_t j = 0; j < n; ++j) {
            if (is_autocast_eligible(types[j]) && !types[j].fits_in(types[i])) holds_all = false;
          }
          if (holds_all) widest = types[i];
        }
        if (!widest.is_defined() || !s.fast_dtype.fits_in(widest)) {
          throw autocast_error(prefix +
                               ": no argument type holds the others and the autocast dtype (PyTorch: \"Unexpected "
                               "floating ScalarType in at::autocast::prioritize\")");
        }
        // Casts go to float16, bfloat16 or float32 (PyTorch's dtypes): a widest type that is none of
        // them (tf32, a float8 alone with the autocast dtype fitting in it, a user format) gives
        // float32, which holds every eligible type.
        d.target = (widest == dtype::float16() || widest == dtype::bfloat16() || widest == dtype::float32())
                       ? widest
                       : dtype::float32();
        break;
      }
      case cast_policy::banned:
        if (entry != nullptr && !entry->advice.empty()) throw autocast_error(std::string(entry->advice));
        throw autocast_error("mixprec::autocast: op " + detail::quote_input(op) + " is banned under " +
                             std::string(to_string(s.device)) + " autocast");
      case cast_policy::unlisted: break;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!types[i].is_floating_point()) continue;
    const dtype t = d.converted(types[i]);
    d.compute = d.compute.is_defined() ? promote_types(d.compute, t) : t;
  }
  return d;
}

template <class A>
struct is_autocast_weight : std::false_type {};
template <class T>
struct is_autocast_weight<autocast_weight<T>> : std::true_type {};

/// The run-time type of an autocast argument (weights included).
template <class A>
dtype autocast_arg_dtype(const A& a) noexcept {
  if constexpr (is_autocast_weight<A>::value) {
    (void)a;
    return dtype::of<typename std::remove_cv_t<std::remove_reference_t<decltype(a.values())>>::value_type>();
  } else {
    return arg_dtype(a);
  }
}

template <class A, class = void>
struct autocast_result_impl {
  using type = cast_result_t<A>;
};
template <class A>
struct autocast_result_impl<A, std::enable_if_t<is_autocast_weight<arg_t<A>>::value>> {
  using type = cast_tensor<typename std::remove_const_t<
      typename std::remove_reference_t<decltype(std::declval<arg_t<A>>().values())>::element_type>>;
};
/// What autocast_cast returns for an argument of type A (A&& as forwarded).
template <class A>
using autocast_result_t = typename autocast_result_impl<A>::type;

template <class U>
cast_tensor<float> cached_weight_cast(span<const float> w) {
  autocast_thread_state& s = autocast_state();
  const autocast_cache_key key{w.data(), w.size(), std::is_same<U, bfloat16>::value};
  const auto it = s.cache.find(key);
  if (it != s.cache.end()) {
    return cast_tensor<float>(std::static_pointer_cast<const std::vector<U>>(it->second), true);
  }
  std::shared_ptr<const std::vector<U>> data = converted_copy<U>(w);
  s.cache.emplace(key, data);
  return cast_tensor<float>(std::move(data), true);
}

template <class A>
autocast_result_t<A&&> autocast_convert(const autocast_decision& d, const autocast_settings& s, A&& a) {
  if constexpr (is_autocast_weight<arg_t<A>>::value) {
    const auto values = a.values();
    using T = std::remove_const_t<typename decltype(values)::element_type>;
    const dtype from = dtype::of<T>();
    if (!d.casts(from)) return cast_tensor<T>(values);
    if constexpr (std::is_same<T, float>::value) {
      if (s.cache_enabled && d.target == s.fast_dtype && autocast_state().nesting > 0) {
        if (d.target == dtype::float16()) return cached_weight_cast<half>(values);
        return cached_weight_cast<bfloat16>(values);
      }
    }
    return convert_tensor(d.target, values);
  } else if constexpr (is_dtype_arg<A&&>) {
    return d.converted(a);
  } else if constexpr (is_float_scalar_arg<A&&>) {
    const auto x = static_cast<arg_t<A>>(a);
    if (!d.casts(dtype::of<arg_t<A>>())) return cast_value<arg_t<A>>(x);
    return convert_scalar(d.target, x);
  } else if constexpr (is_float_tensor_arg<A&&>) {
    const auto values = float_tensor_traits<arg_t<A>>::view(a);
    using T = typename float_tensor_traits<arg_t<A>>::element;
    if (!d.casts(dtype::of<T>())) return cast_tensor<T>(values);
    return convert_tensor(d.target, values);
  } else {
    (void)d;
    (void)s;
    return std::forward<A>(a);
  }
}

template <class... Args>
autocast_decision autocast_decide_args(const autocast_settings& s, std::string_view op, const Args&... args) {
  const dtype types[sizeof...(Args) + 1] = {autocast_arg_dtype(args)..., dtype()};
  return autocast_decide_types(s, op, types, sizeof...(Args));
}

}  // namespace detail

/// What autocast does to op with these arguments under settings s (no thread state involved).
template <class... Args>
autocast_decision autocast_decide(const autocast_settings& s, std::string_view op, const Args&... args) {
  return detail::autocast_decide_args(s, op, args...);
}
/// ... under this thread's state for device.
template <class... Args>
autocast_decision autocast_decide(device_kind device, std::string_view op, const Args&... args) {
  return detail::autocast_decide_args(autocast_settings_of(device), op, args...);
}
/// ... under this thread's state for the current device.
template <class... Args>
autocast_decision autocast_decide(std::string_view op, const Args&... args) {
  return detail::autocast_decide_args(autocast_settings_of(autocast_device()), op, args...);
}

/// The compute type of op with these arguments (values, or dtypes standing for tensors) under
/// this thread's state for the current device. autocast_error for banned ops and invalid promote
/// arguments (docs/pages/autocast-reference.md).
template <class... Args>
dtype autocast_type(std::string_view op, const Args&... args) {
  return autocast_decide(op, args...).compute;
}
/// ... for device.
template <class... Args>
dtype autocast_type(device_kind device, std::string_view op, const Args&... args) {
  return autocast_decide(device, op, args...).compute;
}

/// The arguments converted as autocast converts them for op on device: a std::tuple with,
/// per argument, a cast_value / cast_tensor (tensors), the converted dtype (dtype arguments) or
/// the argument itself (anything else); cast_result.hpp describes the results.
template <class... Args>
std::tuple<detail::autocast_result_t<Args&&>...> autocast_cast(device_kind device, std::string_view op,
                                                              Args&&... args) {
  const autocast_settings s = autocast_settings_of(device);
  const autocast_decision d = detail::autocast_decide_args(s, op, args...);
  return std::tuple<detail::autocast_result_t<Args&&>...>(detail::autocast_convert(d, s, std::forward<Args>(args))...);
}
/// autocast_cast for the current device.
template <class... Args>
std::tuple<detail::autocast_result_t<Args&&>...> autocast_cast(std::string_view op, Args&&... args) {
  return autocast_cast(autocast_device(), op, std::forward<Args>(args)...);
}

}  // namespace mixprec

#endif  // MIXPREC_AUTOCAST_HPP
