// SPDX-License-Identifier: MIT
// mixprec._core: the C++ side of the Python package (nanobind). Thin: every number comes from
// the headers in include/mixprec/ (the bulk convert kernel, explain, to_chars/from_chars,
// finfo). The Python layer (python/mixprec/__init__.py) checks arguments and adapts arrays.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/vector.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <mixprec/autocast_ops.hpp>
#include <mixprec/charconv.hpp>
#include <mixprec/explain.hpp>
#include <mixprec/format_names.hpp>
#include <mixprec/loss_scale.hpp>
#include <mixprec/kernels/convert.hpp>
#include <mixprec/kernels/pack.hpp>
#include <mixprec/packed.hpp>
#include <mixprec/mixprec.hpp>


namespace nb = nanobind;

namespace mixprec_py {
void bind_gemm(nb::module_& m);           // gemm.cpp
void bind_block_scaling(nb::module_& m);  // block.cpp
}  // namespace mixprec_py

namespace {

/// Calls f(T{}) for the built-in format named name; throws std::invalid_argument otherwise.
template <class Fn>
void with_format(const std::string& name, Fn&& f) {
  if (!mixprec::visit_format(name, f)) {
    throw std::invalid_argument("unknown format " + mixprec::detail::quote_input(name));
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
mixprec::rng_kind parse_generator(int g) {
  const auto k = static_cast<mixprec::rng_kind>(g);
  if (g < 0 || !mixprec::is_valid(k)) throw std::invalid_argument("invalid generator");
  return k;
}

template <class Storage>
nb::ndarray<nb::numpy, Storage, nb::ndim<1>> owned_array(Storage* data, std::size_t n) {
  nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<Storage*>(p); });
  return nb::ndarray<nb::numpy, Storage, nb::ndim<1>>(data, {n}, owner);
}

/// src (float or double, contiguous, 1-D view of any array) rounded into format: the codes.
template <class S>
nb::object to_bits(nb::ndarray<const S, nb::ndim<1>, nb::c_contig, nb::device::cpu> src, const std::string& format,
                   int mode, int policy, std::uint64_t seed, std::uint64_t offset, bool fast, int generator) {
  const auto m = parse_mode(mode);
  const auto p = parse_overflow(policy);
  const auto g = parse_generator(generator);
  nb::object result;
  with_format(format, [&](auto tag) {
    using T = decltype(tag);
    using U = typename T::storage_type;
    static_assert(sizeof(T) == sizeof(U), "a mixprec value is its storage");
    const std::size_t n = src.shape(0);
    T* out = new T[n];
    try {
      nb::gil_scoped_release release;
      if (fast) {  // the bulk kernel: x86 fast paths (FP8/FP6/FP4, half, bfloat16) on the thread pool
        mixprec::convert(mixprec::exec::par, mixprec::span<const S>(src.data(), n), mixprec::span<T>(out, n), m, p,
                         seed, offset, g);
      } else {  // the portable element loop the fast paths are checked against (tests)
        const mixprec::sr_rng rng(g, seed);
        for (std::size_t i = 0; i < n; ++i) out[i] = mixprec::detail::convert_element<T>(src.data()[i], m, p, rng, offset + i);
      }
    } catch (...) {
      delete[] out;
      throw;
    }
    // The codes, as the unsigned integers numpy sees (T is standard-layout: its one member).
    result = nb::cast(owned_array<U>(reinterpret_cast<U*>(out), n));
  });
  return result;
}

/// out[i] = double(in[i]) exactly for i < n, whatever MXCSR's DAZ says (float subnormals, e.g.
/// bfloat16's and e8m0's 2^-127, from their integer significands); NaNs as the hardware widens them.
inline void widen_exact(const float* in, double* out, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t u;
    std::memcpy(&u, &in[i], sizeof u);
    const std::uint32_t a = u & 0x7fffffffu;
    double w = static_cast<double>(in[i]);
    if (a - 1u < 0x007fffffu) {  // subnormal: a * 2^-149, both exact, the sign ORed in
      std::uint64_t bits;
      const double m = static_cast<double>(static_cast<std::int32_t>(a)) * 0x1p-149;
      std::memcpy(&bits, &m, sizeof bits);
      bits |= static_cast<std::uint64_t>(u >> 31) << 63;
      std::memcpy(&w, &bits, sizeof w);
    }
    out[i] = w;
  }
}

/// out[i] = the value of code in[i] for i in [0, n) (codes known to fit the format): mixprec::convert
/// to float (the C++ bulk path: simd/decode.hpp for one-byte formats, vcvtph2ps and shifts for half
/// and bfloat16), widened exactly, where every value of T is a float; else convert to double.
template <class T>
void decode(const T* in, double* out, std::size_t n) {
  using F = typename T::format_type;
  if constexpr (F::emax <= 127 && F::emin - F::mantissa_bits >= -149 && F::mantissa_bits <= 23) {
    constexpr std::size_t chunk = 1024;
    float buf[chunk];
    for (std::size_t b = 0; b < n; b += chunk) {
      const std::size_t k = n - b < chunk ? n - b : chunk;
      mixprec::convert(mixprec::exec::seq, mixprec::span<const T>(in + b, k), mixprec::span<float>(buf, k));
      widen_exact(buf, out + b, k);
    }
  } else {
    mixprec::convert(mixprec::exec::seq, mixprec::span<const T>(in, n), mixprec::span<double>(out, n));
  }
}

/// src rounded into format and decoded, in one pass over the thread pool: the values (float64)
/// that from_bits(to_bits(src)) gives, with the same random bits (element i: offset + i).
template <class S>
nb::object round_values(nb::ndarray<const S, nb::ndim<1>, nb::c_contig, nb::device::cpu> src,
                        const std::string& format, int mode, int policy, std::uint64_t seed, std::uint64_t offset,
                        int generator) {
  const auto m = parse_mode(mode);
  const auto p = parse_overflow(policy);
  const auto g = parse_generator(generator);
  nb::object result;
  with_format(format, [&](auto tag) {
    using T = decltype(tag);
    constexpr std::size_t chunk = 4096;  // codes of one step, in L1
    const std::size_t n = src.shape(0);
    double* out = new double[n];
    const S* in = src.data();
    {
      nb::gil_scoped_release release;
      mixprec::detail::for_each_range(mixprec::exec::par, n, [=](std::size_t begin, std::size_t end) {
        T codes[chunk];
        for (std::size_t b = begin; b < end; b += chunk) {
          // the bulk kernel (its x86 fast paths), then the decode while the codes are in cache
          const std::size_t k = end - b < chunk ? end - b : chunk;
          mixprec::convert(mixprec::exec::seq, mixprec::span<const S>(in + b, k), mixprec::span<T>(codes, k), m, p,
                           seed, offset + b, g);
          decode(codes, out + b, k);
        }
      });
    }
    result = nb::cast(owned_array<double>(out, n));
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
    if constexpr (T::format_type::storage_bits < 8 * sizeof(U)) {
      for (std::size_t i = 0; i < n; ++i) {
        if ((in[i] >> T::format_type::storage_bits) != 0) {
          throw std::invalid_argument("code " + std::to_string(in[i]) + " at index " + std::to_string(i) +
                                      " does not fit " + format);
        }
      }
    }
    double* out = new double[n];
    {
      nb::gil_scoped_release release;
      const T* t = reinterpret_cast<const T*>(in);
      mixprec::detail::for_each_range(mixprec::exec::par, n,
                                      [=](std::size_t b, std::size_t e) { decode(t + b, out + b, e - b); });
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

/// A built-in format's layout: (exponent bits, mantissa bits, encoding, bias, signed, padding bits).
nb::tuple layout(const std::string& format) {
  nb::tuple t;
  with_format(format, [&](auto tag) {
    using F = typename decltype(tag)::format_type;
    t = nb::make_tuple(F::exponent_bits, F::mantissa_bits, static_cast<int>(F::enc), F::bias, F::is_signed,
                       F::padding_bits);
  });
  return t;
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

// --- user-defined formats: mixprec::format_desc, through the library's one codec ---

/// The user format (E, M, encoding, bias, signed) as the library's run-time description, checked
/// by format<...>'s rules (format_desc::invalid_reason) and, since from_bits returns float64, that
/// its values are float64 values. std::invalid_argument (ValueError) otherwise.
mixprec::format_desc make_rt(int e, int m, int enc, int bias, bool is_signed) {
  if (enc < 0 || enc > static_cast<int>(mixprec::encoding::exponent_only)) {
    throw std::invalid_argument("invalid encoding");
  }
  const auto en = static_cast<mixprec::encoding>(enc);
  if (const char* why = mixprec::format_desc::invalid_reason(e, m, en, 0, bias, is_signed)) {
    throw std::invalid_argument(std::string("invalid format: ") + why);
  }
  const auto f = mixprec::format_desc::make(e, m, en, 0, bias, is_signed);
  if (f.max_code < 1) throw std::invalid_argument("invalid format: it needs a non-zero finite value besides its smallest");
  if (f.emax > 1023 || f.qmin < -1074) {
    throw std::invalid_argument("invalid format: its values must be float64 values (emax <= 1023, qmin >= -1074)");
  }
  return f;
}

/// Calls f(U{}) with U the unsigned integer of f's width (8, 16, 32 or 64 bits).
template <class Fn>
void with_width(const mixprec::format_desc& f, Fn&& fn) {
  if (f.bits <= 8) {
    fn(std::uint8_t{});
  } else if (f.bits <= 16) {
    fn(std::uint16_t{});
  } else if (f.bits <= 32) {
    fn(std::uint32_t{});
  } else {
    fn(std::uint64_t{});
  }
}

/// The derived constants of a user format (raises ValueError for one mixprec::format would reject).
nb::dict rt_describe(int e, int m, int enc, int bias, bool is_signed) {
  const auto f = make_rt(e, m, enc, bias, is_signed);
  nb::dict d;
  d["bits"] = f.bits;
  d["emin"] = f.emin;
  d["emax"] = f.emax;
  d["qmin"] = f.qmin;
  d["max_code"] = f.max_code;
  d["sign_mask"] = f.sign_mask;
  d["magnitude_mask"] = f.magnitude_mask;
  d["has_nan"] = f.has_nan;
  d["has_infinity"] = f.enc == mixprec::encoding::ieee;
  d["has_signed_zero"] = f.has_signed_zero;
  d["storage_bits"] = f.bits <= 8 ? 8 : f.bits <= 16 ? 16 : f.bits <= 32 ? 32 : 64;
  return d;
}

/// src rounded into a user format: the codes (unsigned integers of the format's width).
template <class S>
nb::object rt_to_bits(nb::ndarray<const S, nb::ndim<1>, nb::c_contig, nb::device::cpu> src, int e, int m, int enc,
                      int bias, bool is_signed, int mode, int policy, std::uint64_t seed, std::uint64_t offset,
                      int generator) {
  const auto f = make_rt(e, m, enc, bias, is_signed);
  const auto md = parse_mode(mode);
  const auto p = parse_overflow(policy);
  const auto g = parse_generator(generator);
  using SF = std::conditional_t<std::is_same<S, float>::value, mixprec::float32_format, mixprec::float64_format>;
  using SU = typename SF::storage_type;
  nb::object result;
  with_width(f, [&](auto tag) {
    using U = decltype(tag);
    const std::size_t n = src.shape(0);
    U* out = new U[n];
    const S* in = src.data();
    {
      nb::gil_scoped_release release;
      const mixprec::sr_rng rng(g, seed);
      mixprec::for_each_index(mixprec::exec::par, n, [=](std::size_t i) {
        SU bits;
        std::memcpy(&bits, in + i, sizeof bits);
        const auto u = mixprec::detail::decode_bits<SF>(bits);
        const std::uint32_t r = md == mixprec::rounding::stochastic ? rng(offset + i) : 0u;
        out[i] = static_cast<U>(mixprec::detail::encode(f, u, md, p, r));
      });
    }
    result = nb::cast(owned_array<U>(out, n));
  });
  return result;
}

/// Codes of a user format to float64 (exact: make_rt admits only formats whose values are doubles).
nb::object rt_from_bits(nb::ndarray<nb::ndim<1>, nb::c_contig, nb::device::cpu> codes, int e, int m, int enc,
                        int bias, bool is_signed) {
  const auto f = make_rt(e, m, enc, bias, is_signed);
  nb::object result;
  with_width(f, [&](auto tag) {
    using U = decltype(tag);
    if (codes.dtype() != nb::dtype<U>()) {
      throw std::invalid_argument("codes of this format must be uint" + std::to_string(8 * sizeof(U)));
    }
    const std::size_t n = codes.shape(0);
    const U* in = static_cast<const U*>(codes.data());
    for (std::size_t i = 0; i < n; ++i) {
      if (f.bits < 64 && (static_cast<std::uint64_t>(in[i]) >> f.bits) != 0) {
        throw std::invalid_argument("code " + std::to_string(in[i]) + " at index " + std::to_string(i) +
                                    " does not fit the format's " + std::to_string(f.bits) + " bits");
      }
    }
    double* out = new double[n];
    {
      nb::gil_scoped_release release;
      using D = mixprec::float64_format;
      mixprec::for_each_index(mixprec::exec::par, n, [=](std::size_t i) {
        const auto bits = mixprec::detail::encode_bits<D>(mixprec::detail::decode(f, in[i]), mixprec::rounding::nearest_even,
                                                   mixprec::overflow::ieee, 0);
        std::memcpy(out + i, &bits, sizeof(double));
      });
    }
    result = nb::cast(owned_array<double>(out, n));
  });
  return result;
}

/// Text read once into a user format (explain's grammar: strtod's, the whole text): the code.
std::uint64_t rt_from_string(const std::string& text, int e, int m, int enc, int bias, bool is_signed, int mode,
                             int policy) {
  const auto f = make_rt(e, m, enc, bias, is_signed);
  const auto md = parse_mode(mode);
  const auto p = parse_overflow(policy);
  if (md == mixprec::rounding::stochastic) throw std::invalid_argument("rounding='stochastic' is not for text");
  bool neg = false;
  std::string_view body;
  std::chars_format fmt{};
  mixprec::detail::exact_value u{};
  const char* end = nullptr;
  if (!mixprec::detail::split_number_text(text, neg, body, fmt) ||
      !mixprec::detail::scan_float(body.data(), body.data() + body.size(), fmt, u, end) ||
      end != body.data() + body.size()) {
    throw std::invalid_argument("not a number: " + mixprec::detail::quote_input(text));
  }
  u.sign = neg;
  return mixprec::detail::encode(f, u, md, p, 0);
}

/// Shortest round-trip text of a code of a user format.
std::string rt_code_to_string(std::uint64_t code, int e, int m, int enc, int bias, bool is_signed) {
  const auto f = make_rt(e, m, enc, bias, is_signed);
  if (f.bits < 64 && (code >> f.bits) != 0) throw std::invalid_argument("code does not fit the format");
  const mixprec::detail::number_info n = mixprec::detail::describe(f, code);
  mixprec::detail::text_buffer t;
  mixprec::detail::emit_number(t, n, mixprec::detail::float_style::plain, -1, false);
  std::string text(t.head, t.head_len);
  text.append(t.zeros, '0');
  text.append(t.tail, t.tail_len);
  return text;
}

// --- packed FP4/FP6 (packed.hpp, kernels/pack.hpp) ---

using bytes1d = nb::ndarray<const std::uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

nb::object bytes_array(std::uint8_t* data, std::size_t n) { return nb::cast(owned_array<std::uint8_t>(data, n)); }

/// Codes (one per byte) of a built-in format of at most 8 bits packed with mixprec::pack_elements.
nb::object pack_codes(bytes1d codes, const std::string& format) {
  nb::object result;
  with_format(format, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (mixprec::is_packable<T>::value) {
      const std::size_t n = codes.shape(0);
      const std::uint8_t* in = codes.data();
      for (std::size_t i = 0; i < n; ++i) {
        if ((in[i] >> T::format_type::bits) != 0) {
          throw std::invalid_argument("code " + std::to_string(in[i]) + " at index " + std::to_string(i) +
                                      " does not fit " + format);
        }
      }
      const std::size_t bytes = mixprec::packed_bytes<T>(n);
      auto* out = new std::uint8_t[bytes == 0 ? 1 : bytes];
      {
        nb::gil_scoped_release release;
        mixprec::pack_elements(mixprec::exec::par, mixprec::span<const T>(reinterpret_cast<const T*>(in), n),
                               mixprec::span<std::uint8_t>(out, bytes));
      }
      result = bytes_array(out, bytes);
    } else {
      throw std::invalid_argument(format + " is not a format of at most 8 bits (nothing to pack)");
    }
  });
  return result;
}

/// n codes of a built-in format unpacked from packed bytes (mixprec::unpack_elements).
nb::object unpack_codes(bytes1d packed, std::size_t n, const std::string& format) {
  nb::object result;
  with_format(format, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (mixprec::is_packable<T>::value) {
      if (packed.shape(0) != mixprec::packed_bytes<T>(n)) {
        throw std::invalid_argument(std::to_string(n) + " elements of " + format + " need " +
                                    std::to_string(mixprec::packed_bytes<T>(n)) + " bytes, got " +
                                    std::to_string(packed.shape(0)));
      }
      auto* out = new std::uint8_t[n == 0 ? 1 : n];
      {
        nb::gil_scoped_release release;
        mixprec::unpack_elements(mixprec::exec::par, mixprec::span<const std::uint8_t>(packed.data(), packed.shape(0)),
                                 mixprec::span<T>(reinterpret_cast<T*>(out), n));
      }
      result = bytes_array(out, n);
    } else {
      throw std::invalid_argument(format + " is not a format of at most 8 bits (nothing to unpack)");
    }
  });
  return result;
}

/// The same for any width b in [1, 8] (user formats): packed.hpp's LSB-first bit stream.
nb::object pack_bits(bytes1d codes, unsigned b) {
  if (b < 1 || b > 8) throw std::invalid_argument("packing needs a format of 1 to 8 bits");
  const std::size_t n = codes.shape(0);
  const std::size_t bytes = n / 8 * b + (n % 8 * b + 7) / 8;
  auto* out = new std::uint8_t[bytes == 0 ? 1 : bytes]();
  const std::uint8_t* in = codes.data();
  for (std::size_t i = 0; i < n; ++i) {
    if ((in[i] >> b) != 0) {
      delete[] out;
      throw std::invalid_argument("code " + std::to_string(in[i]) + " at index " + std::to_string(i) +
                                  " does not fit " + std::to_string(b) + " bits");
    }
    const std::size_t bit = i / 8 * b * 8 + i % 8 * b;
    const unsigned s = static_cast<unsigned>(bit % 8);
    const unsigned v = static_cast<unsigned>(in[i]) << s;
    out[bit / 8] = static_cast<std::uint8_t>(out[bit / 8] | (v & 0xFFu));
    if (s + b > 8) out[bit / 8 + 1] = static_cast<std::uint8_t>(out[bit / 8 + 1] | (v >> 8));
  }
  return bytes_array(out, bytes);
}

nb::object unpack_bits(bytes1d packed, std::size_t n, unsigned b) {
  if (b < 1 || b > 8) throw std::invalid_argument("packing needs a format of 1 to 8 bits");
  const std::size_t bytes = n / 8 * b + (n % 8 * b + 7) / 8;
  if (packed.shape(0) != bytes) {
    throw std::invalid_argument(std::to_string(n) + " elements of " + std::to_string(b) + " bits need " +
                                std::to_string(bytes) + " bytes, got " + std::to_string(packed.shape(0)));
  }
  auto* out = new std::uint8_t[n == 0 ? 1 : n];
  const std::uint8_t* p = packed.data();
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t bit = i / 8 * b * 8 + i % 8 * b;
    const unsigned s = static_cast<unsigned>(bit % 8);
    unsigned w = p[bit / 8];
    if (s + b > 8) w |= static_cast<unsigned>(p[bit / 8 + 1]) << 8;
    out[i] = static_cast<std::uint8_t>((w >> s) & ((1u << b) - 1u));
  }
  return bytes_array(out, n);
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
  m.def("format_aliases", [] {  // format_names.hpp's table: (alias, canonical name)
    std::vector<std::pair<std::string, std::string>> v;
    for (const mixprec::format_alias& a : mixprec::builtin_format_aliases) v.emplace_back(a.alias, a.canonical);
    return v;
  });
  m.def("canonical_format_name", [](const std::string& name) { return std::string(mixprec::canonical_format_name(name)); },
        nb::arg("name"));
  m.def("to_bits_f32", &to_bits<float>, nb::arg("src"), nb::arg("format"), nb::arg("mode"), nb::arg("policy"),
        nb::arg("seed"), nb::arg("offset"), nb::arg("fast") = true, nb::arg("generator") = 0);
  m.def("to_bits_f64", &to_bits<double>, nb::arg("src"), nb::arg("format"), nb::arg("mode"), nb::arg("policy"),
        nb::arg("seed"), nb::arg("offset"), nb::arg("fast") = true, nb::arg("generator") = 0);
  mixprec_py::bind_gemm(m);
  mixprec_py::bind_block_scaling(m);
  m.def("set_num_threads", [](unsigned n) { mixprec::set_num_threads(n); }, nb::arg("n"));
  m.def("num_threads", [] { return mixprec::num_threads(); });
  m.def("round_f32", &round_values<float>, nb::arg("src"), nb::arg("format"), nb::arg("mode"), nb::arg("policy"),
        nb::arg("seed"), nb::arg("offset"), nb::arg("generator") = 0);
  m.def("round_f64", &round_values<double>, nb::arg("src"), nb::arg("format"), nb::arg("mode"), nb::arg("policy"),
        nb::arg("seed"), nb::arg("offset"), nb::arg("generator") = 0);
  m.def("from_bits", &from_bits, nb::arg("codes"), nb::arg("format"));
  m.def("finfo", &finfo, nb::arg("format"));
  m.def("layout", &layout, nb::arg("format"));
  m.def("explain_text", &explain_text);
  m.def("explain_code", &explain_code);
  m.def("code_to_string", &code_to_string);
  m.def("code_from_string", &code_from_string);
  m.def("autocast_table", &autocast_table);
  m.def("rt_describe", &rt_describe);
  m.def("rt_to_bits_f32", &rt_to_bits<float>, nb::arg("src"), nb::arg("e"), nb::arg("m"), nb::arg("enc"),
        nb::arg("bias"), nb::arg("is_signed"), nb::arg("mode"), nb::arg("policy"), nb::arg("seed"), nb::arg("offset"),
        nb::arg("generator") = 0);
  m.def("rt_to_bits_f64", &rt_to_bits<double>, nb::arg("src"), nb::arg("e"), nb::arg("m"), nb::arg("enc"),
        nb::arg("bias"), nb::arg("is_signed"), nb::arg("mode"), nb::arg("policy"), nb::arg("seed"), nb::arg("offset"),
        nb::arg("generator") = 0);
  m.def("rt_from_bits", &rt_from_bits);
  m.def("rt_from_string", &rt_from_string);
  m.def("rt_code_to_string", &rt_code_to_string);
  m.def("pack_codes", &pack_codes);
  m.def("unpack_codes", &unpack_codes);
  m.def("pack_bits", &pack_bits);
  m.def("unpack_bits", &unpack_bits);
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
