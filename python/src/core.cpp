// SPDX-License-Identifier: MIT
// mixprec._core: the C++ side of the Python package (nanobind). Thin: every number comes from
// the headers in include/mixprec/ (the bulk convert kernel, explain, to_chars/from_chars,
// finfo). The Python layer (python/mixprec/__init__.py) checks arguments and adapts arrays.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <mixprec/autocast_ops.hpp>
#include <mixprec/explain.hpp>
#include <mixprec/format_names.hpp>
#include <mixprec/loss_scale.hpp>
#include <mixprec/kernels/convert.hpp>
#include <mixprec/mixprec.hpp>

namespace nb = nanobind;

namespace {

/// Calls f(T{}) for the built-in format named name; throws std::invalid_argument otherwise.
template <class Fn>
void with_format(const std::string& name, Fn&& f) {
  if (!mixprec::visit_format(name, f)) {
    throw std::invalid_argument("unknown format '" + mixprec::detail::quote_input(name) + "'");
  }
}


mixprec::rounding parse_mode(int m) {
  const auto r = static_cast<mixprec::rounding>(m);
  if (!mixprec::is_valid(r)) throw std::invalid_argument("invalid rounding mode");
  return r;
}
mixprec::overflow parse_overflow(int p) {
  const auto o = static_cast<mixprec::overflow>(p);
  if (!mixprec::is_valid(o)) throw std::invalid_argument("invalid overflow policy");
  return o;
}

template <class Storage>
nb::ndarray<nb::numpy, Storage, nb::ndim<1>> owned_array(Storage* data, std::size_t n) {
  nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<Storage*>(p); });
  return nb::ndarray<nb::numpy, Storage, nb::ndim<1>>(data, {n}, owner);
}

/// src (float or double, contiguous, 1-D view of any array) rounded into format: the codes.
template <class S>
nb::object to_bits(nb::ndarray<const S, nb::ndim<1>, nb::c_contig, nb::device::cpu> src, const std::string& format,
                   int mode, int policy, std::uint64_t seed, std::uint64_t offset) {
  const auto m = parse_mode(mode);
  const auto p = parse_overflow(policy);
  nb::object result;
  with_format(format, [&](auto tag) {
    using T = decltype(tag);
    using U = typename T::storage_type;
    static_assert(sizeof(T) == sizeof(U), "a mixprec value is its storage");
    const std::size_t n = src.shape(0);
    T* out = new T[n];
    try {
      nb::gil_scoped_release release;
      mixprec::convert(mixprec::exec::par, mixprec::span<const S>(src.data(), n), mixprec::span<T>(out, n), m, p,
                       seed, offset);
    } catch (...) {
      delete[] out;
      throw;
    }
    // The codes, as the unsigned integers numpy sees (T is standard-layout: its one member).
    result = nb::cast(owned_array<U>(reinterpret_cast<U*>(out), n));
  });
  return result;
}

/// Codes of format to float64 (exact for every built-in format).
nb::object from_bits(nb::ndarray<nb::ndim<1>, nb::c_contig, nb::device::cpu> codes, const std::string& format) {
  nb::object result;
  with_format(format, [&](auto tag) {
    using T = decltype(tag);
    using U = typename T::storage_type;
    if (codes.dtype() != nb::dtype<U>()) {
      throw std::invalid_argument("codes of " + format + " must be uint" + std::to_string(8 * sizeof(U)));
    }
    const std::size_t n = codes.shape(0);
    const U* in = static_cast<const U*>(codes.data());
    for (std::size_t i = 0; i < n; ++i) {
      if ((in[i] >> T::format_type::storage_bits) != 0 && T::format_type::storage_bits < 8 * sizeof(U)) {
        throw std::invalid_argument("code " + std::to_string(in[i]) + " at index " + std::to_string(i) +
                                    " does not fit " + format);
      }
    }
    double* out = new double[n];
    {
      nb::gil_scoped_release release;
      mixprec::convert(mixprec::exec::par, mixprec::span<const T>(reinterpret_cast<const T*>(in), n),
                       mixprec::span<double>(out, n));
    }
    result = nb::cast(owned_array<double>(out, n));
  });
  return result;
}

nb::dict finfo(const std::string& format) {
  nb::dict d;
  with_format(format, [&](auto tag) {
    using T = decltype(tag);
    using I = mixprec::finfo<T>;
    d["name"] = std::string(I::name);
    d["bits"] = I::bits;
    d["nmant"] = I::nmant;
    d["nexp"] = I::nexp;
    d["machep"] = I::machep;
    d["negep"] = I::negep;
    d["minexp"] = I::minexp;
    d["maxexp"] = I::maxexp;
    d["precision"] = I::precision;
    d["eps"] = static_cast<double>(I::eps);
    d["epsneg"] = static_cast<double>(I::epsneg);
    d["max"] = static_cast<double>(I::max);
    d["min"] = static_cast<double>(I::min);
    d["tiny"] = static_cast<double>(I::tiny);
    d["smallest_normal"] = static_cast<double>(I::smallest_normal);
    d["smallest_subnormal"] = static_cast<double>(I::smallest_subnormal);
    d["resolution"] = static_cast<double>(I::resolution);
    d["storage_bits"] = static_cast<int>(8 * sizeof(typename T::storage_type));
    d["has_infinity"] = std::numeric_limits<T>::has_infinity;
    d["has_nan"] = std::numeric_limits<T>::has_quiet_NaN;
  });
  return d;
}

std::string explain_text(const std::string& text, const std::string& format, int mode, int policy) {
  std::string s;
  with_format(format, [&](auto tag) {
    using T = decltype(tag);
    std::ostringstream os;
    os << mixprec::explain<T>(text, parse_mode(mode), parse_overflow(policy));
    s = os.str();
  });
  return s;
}

std::string explain_code(std::uint64_t code, const std::string& format) {
  std::string s;
  with_format(format, [&](auto tag) {
    using T = decltype(tag);
    using F = typename T::format_type;
    if ((code >> F::storage_bits) != 0 || (code & mixprec::detail::low_mask(F::padding_bits)) != 0) {
      throw std::invalid_argument("code " + std::to_string(code) + " does not fit " + format);
    }
    std::ostringstream os;
    os << mixprec::explain(T::from_bits(static_cast<typename T::storage_type>(code)));
    s = os.str();
  });
  return s;
}

/// Shortest round-trip text of a code.
std::string code_to_string(std::uint64_t code, const std::string& format) {
  std::string s;
  with_format(format, [&](auto tag) {
    using T = decltype(tag);
    using F = typename T::format_type;
    if ((code >> F::storage_bits) != 0) throw std::invalid_argument("code does not fit " + format);
    char buf[128];
    const auto r = mixprec::to_chars(buf, buf + sizeof buf, T::from_bits(static_cast<typename T::storage_type>(code)));
    s.assign(buf, r.ptr);
  });
  return s;
}

/// Text read once into format (from_chars in mode/policy): the code. Out-of-range text gives the
/// rounded result as round_to would (the Python layer says so); malformed text raises.
std::uint64_t code_from_string(const std::string& text, const std::string& format, int mode, int policy) {
  std::uint64_t code = 0;
  with_format(format, [&](auto tag) {
    using T = decltype(tag);
    const auto e = mixprec::explain<T>(text, parse_mode(mode), parse_overflow(policy));  // strtod grammar, once
    code = e.stored.bits;
  });
  return code;
}

/// An autocast op table as {op name: policy name}.
nb::dict autocast_table(const std::string& which) {
  const mixprec::autocast_op_table* t = which == "cpu"              ? &mixprec::autocast_ops_cpu
                                        : which == "cuda"           ? &mixprec::autocast_ops_cuda
                                        : which == "cpu_effective"  ? &mixprec::autocast_ops_cpu_effective
                                        : which == "cuda_effective" ? &mixprec::autocast_ops_cuda_effective
                                                                    : nullptr;
  if (t == nullptr) {
    throw std::invalid_argument("unknown autocast table '" + mixprec::detail::quote_input(which) +
                                "'; one of cpu, cuda, cpu_effective, cuda_effective");
  }
  nb::dict d;
  for (const mixprec::autocast_op& e : t->effective_entries()) {
    d[std::string(e.name).c_str()] = std::string(mixprec::to_string(e.policy));
  }
  return d;
}

mixprec::loss_scale_config preset(const std::string& name) {
  using C = mixprec::loss_scale_config;
  if (name == "pytorch") return C::pytorch();
  if (name == "keras") return C::keras();
  if (name == "tf_keras") return C::tf_keras();
  if (name == "jmp") return C::jmp();
  if (name == "apex") return C::apex();
  if (name == "deepspeed") return C::deepspeed();
  if (name == "megatron") return C::megatron();
  throw std::invalid_argument("unknown loss-scale preset '" + mixprec::detail::quote_input(name) +
                              "'; one of pytorch, keras, tf_keras, jmp, apex, deepspeed, megatron");
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "mixprec's C++ core (see the mixprec package for the documented API)";
  m.def("formats", [] {
    std::vector<std::string> names;
    for (std::string_view n : mixprec::builtin_format_names) names.emplace_back(n);
    return names;
  });
  m.def("to_bits_f32", &to_bits<float>, nb::arg("src"), nb::arg("format"), nb::arg("mode"), nb::arg("policy"),
        nb::arg("seed"), nb::arg("offset"));
  m.def("to_bits_f64", &to_bits<double>, nb::arg("src"), nb::arg("format"), nb::arg("mode"), nb::arg("policy"),
        nb::arg("seed"), nb::arg("offset"));
  m.def("from_bits", &from_bits, nb::arg("codes"), nb::arg("format"));
  m.def("finfo", &finfo, nb::arg("format"));
  m.def("explain_text", &explain_text);
  m.def("explain_code", &explain_code);
  m.def("code_to_string", &code_to_string);
  m.def("code_from_string", &code_from_string);
  m.def("autocast_table", &autocast_table);
  nb::class_<mixprec::dynamic_loss_scale>(m, "DynamicLossScale")
      .def("__init__", [](mixprec::dynamic_loss_scale* self, const std::string& name) {
        new (self) mixprec::dynamic_loss_scale(preset(name));
      }, nb::arg("preset") = "pytorch")
      .def("update", &mixprec::dynamic_loss_scale::update, nb::arg("found_inf"))
      .def_prop_ro("scale", &mixprec::dynamic_loss_scale::scale64)
      .def_prop_ro("growth_tracker", &mixprec::dynamic_loss_scale::growth_tracker)
      .def_prop_ro("hysteresis_tracker", &mixprec::dynamic_loss_scale::hysteresis_tracker);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const mixprec::loss_scale_error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
  m.attr("version") = MIXPREC_VERSION_STRING;
}
