// SPDX-License-Identifier: MIT
// runtime_format.hpp — user-defined formats at run time, for the Python binding only.
//
// mixprec::format<E, M, Enc, Pad, Bias, Signed> is a compile-time description; Python users name a
// format at run time (mixprec.format(5, 10)). rt_format holds the same fields as run-time values, and
// rt_unpack / rt_pack are mixprec::detail::unpack / pack (include/mixprec/detail/convert.hpp) line for
// line with F::x replaced by f.x: the same one rounding from an exact value, every mode and policy.
// The pytest suite checks them bit for bit against every built-in format (every code decoded, a
// float32/float64 battery encoded in every mode) and against an exact Fraction reference.
//   rt_format f = rt_format::make(5, 10, mixprec::encoding::ieee, 15, true);   // float16's layout
//   std::uint64_t code = rt_pack(f, detail::unpack<float32_format>(bits), rounding::upward, overflow::ieee, 0);
#ifndef MIXPREC_PYTHON_RUNTIME_FORMAT_HPP
#define MIXPREC_PYTHON_RUNTIME_FORMAT_HPP

#include <cstdint>
#include <stdexcept>
#include <string>

#include <mixprec/charconv.hpp>
#include <mixprec/mixprec.hpp>

namespace mixprec_py {

using mixprec::encoding;
using mixprec::overflow;
using mixprec::rounding;
using mixprec::detail::low_mask;
using mixprec::detail::unpacked;
using mixprec::detail::value_class;

/// A binary floating-point format described at run time (no padding bits: the code is the storage).
struct rt_format {
  int exponent_bits = 0;
  int mantissa_bits = 0;
  encoding enc = encoding::ieee;
  int bias = 0;
  bool is_signed = true;
  // Derived, as in mixprec::format.
  int bits = 0;
  bool has_nan = false;
  bool has_signed_zero = false;
  std::uint64_t mantissa_mask = 0, exponent_field_max = 0, magnitude_mask = 0, sign_mask = 0, max_code = 0;
  int emin = 0, emax = 0, qmin = 0;

  /// The format, or std::invalid_argument when mixprec::format would reject it (its static_asserts)
  /// or when its values are not all float64 values (from_bits returns float64).
  static rt_format make(int e, int m, encoding enc, int bias, bool is_signed) {
    auto fail = [](const std::string& why) { throw std::invalid_argument("invalid format: " + why); };
    if (e < 1 || e > 11) fail("exponent bits must be in [1, 11]");
    if (m < 0 || m > 52) fail("mantissa bits must be in [0, 52]");
    if (enc == encoding::ieee && m < 1) fail("the ieee encoding needs a mantissa bit");
    if (enc == encoding::exponent_only && (m != 0 || is_signed)) {
      fail("the exponent_only encoding has no mantissa bits and no sign");
    }
    if (enc == encoding::fnuz && !is_signed) fail("the fnuz encoding needs a sign bit (its NaN is -0)");
    if (bias <= -2048 || bias >= 2048) fail("the exponent bias must be in (-2048, 2048)");
    rt_format f;
    f.exponent_bits = e;
    f.mantissa_bits = m;
    f.enc = enc;
    f.bias = bias;
    f.is_signed = is_signed;
    f.bits = (is_signed ? 1 : 0) + e + m;
    f.has_nan = enc != encoding::finite;
    f.has_signed_zero = is_signed && (enc == encoding::ieee || enc == encoding::fn || enc == encoding::finite);
    f.mantissa_mask = low_mask(m);
    f.exponent_field_max = low_mask(e);
    f.magnitude_mask = low_mask(e + m);
    f.sign_mask = is_signed ? (std::uint64_t{1} << (e + m)) : 0;
    f.max_code = enc == encoding::ieee ? (f.exponent_field_max << m) - 1
                 : (enc == encoding::fn || enc == encoding::exponent_only) ? f.magnitude_mask - 1
                                                                            : f.magnitude_mask;
    f.emin = enc == encoding::exponent_only ? -bias : 1 - bias;
    f.emax = static_cast<int>(f.max_code >> m) - bias;
    f.qmin = f.emin - m;
    if (!(f.qmin <= 0 && f.emax >= 0)) fail("the format must represent 1 (bias out of range)");
    if (f.max_code < 1) fail("the format must have a non-zero finite value besides its smallest");
    if (f.emax > 1023 || f.qmin < -1074) fail("its values must be float64 values (emax <= 1023, qmin >= -1074)");
    return f;
  }

  /// detail::wide_twin<F>: format<11, M, finite> (rounds like f inside a binade; used by parsing).
  rt_format wide_twin() const {
    rt_format g = *this;
    g.exponent_bits = 11;
    g.enc = encoding::finite;
    g.bias = 1023;
    g.is_signed = true;
    g.bits = 12 + mantissa_bits;
    g.has_nan = false;
    g.has_signed_zero = true;
    g.exponent_field_max = low_mask(11);
    g.magnitude_mask = low_mask(11 + mantissa_bits);
    g.sign_mask = std::uint64_t{1} << (11 + mantissa_bits);
    g.max_code = g.magnitude_mask;
    g.emin = 1 - 1023;
    g.emax = static_cast<int>(g.max_code >> mantissa_bits) - 1023;
    g.qmin = g.emin - mantissa_bits;
    return g;
  }
};

/// detail::unpack for a run-time format (bits above the code are ignored).
inline unpacked rt_unpack(const rt_format& f, std::uint64_t code) noexcept {
  const int M = f.mantissa_bits;
  const bool sign = (code & f.sign_mask) != 0;
  const std::uint64_t mag = code & f.magnitude_mask;
  const std::uint64_t field = mag >> M;
  const std::uint64_t mant = mag & f.mantissa_mask;
  switch (f.enc) {
    case encoding::ieee:
      if (field == f.exponent_field_max) {
        if (mant == 0) return {value_class::infinite, sign, false, 0, 0};
        const bool quiet = ((mant >> (M - 1)) & 1u) != 0;
        const std::uint64_t payload = mant & low_mask(M - 1);
        return {value_class::nan, sign, quiet, 0, M > 1 ? payload << (64 - (M - 1)) : 0};
      }
      break;
    case encoding::fn:
      if (mag == f.magnitude_mask) return {value_class::nan, sign, true, 0, 0};
      break;
    case encoding::fnuz:
      if ((code & (f.sign_mask | f.magnitude_mask)) == f.sign_mask) return {value_class::nan, true, true, 0, 0};
      break;
    case encoding::exponent_only:
      if (mag == f.magnitude_mask) return {value_class::nan, false, true, 0, 0};
      return {value_class::finite, false, false, static_cast<int>(mag) - f.bias, std::uint64_t{1} << 63};
    case encoding::finite: break;
  }
  if (field == 0) {
    if (mant == 0) return {value_class::zero, sign, false, 0, 0};
    const int lz = mixprec::detail::clz64(mant);
    return {value_class::finite, sign, false, f.qmin + 63 - lz, mant << lz};
  }
  const std::uint64_t integer = mant | (std::uint64_t{1} << M);
  return {value_class::finite, sign, false, static_cast<int>(field) - f.bias, integer << (63 - M)};
}

inline std::uint64_t rt_nan_code(const rt_format& f, const unpacked& u) noexcept {
  const int M = f.mantissa_bits;
  switch (f.enc) {
    case encoding::ieee: {
      const std::uint64_t payload = M > 1 ? (u.sig >> (64 - (M - 1))) : 0;
      return (u.sign ? f.sign_mask : 0) | (f.exponent_field_max << M) | (std::uint64_t{1} << (M - 1)) | payload;
    }
    case encoding::fn: return (u.sign ? f.sign_mask : 0) | f.magnitude_mask;
    case encoding::fnuz: return f.sign_mask;
    case encoding::exponent_only: return f.magnitude_mask;
    case encoding::finite: break;
  }
  return f.max_code;  // no NaN: positive max finite
}

inline std::uint64_t rt_overflow_code(const rt_format& f, bool sign, bool round_away, overflow policy) noexcept {
  const std::uint64_t s = sign ? f.sign_mask : 0;
  if (f.enc == encoding::exponent_only) {
    return (round_away && policy == overflow::ieee) ? f.magnitude_mask : f.max_code;
  }
  if (!round_away || policy == overflow::saturate || f.enc == encoding::finite) return s | f.max_code;
  if (f.enc == encoding::ieee) return s | (f.exponent_field_max << f.mantissa_bits);
  return rt_nan_code(f, unpacked{value_class::nan, sign, true, 0, 0});
}

/// detail::pack for a run-time format: the code of u rounded once (random_bits: stochastic only).
inline std::uint64_t rt_pack(const rt_format& f, const unpacked& u, rounding mode, overflow policy,
                             std::uint32_t random_bits) noexcept {
  const int M = f.mantissa_bits;
  if (u.cls == value_class::nan) return rt_nan_code(f, u);
  if (!f.is_signed && u.sign && u.cls != value_class::zero) {
    return f.has_nan ? rt_nan_code(f, unpacked{value_class::nan, false, true, 0, 0}) : 0;
  }
  if (f.enc == encoding::exponent_only && u.cls == value_class::zero) return f.magnitude_mask;
  if (u.cls == value_class::infinite) return rt_overflow_code(f, u.sign, true, policy);
  if (u.cls == value_class::zero) return f.has_signed_zero && u.sign ? f.sign_mask : 0;

  const std::uint64_t s = u.sign ? f.sign_mask : 0;
  bool round_away = false;
  switch (mode) {
    case rounding::nearest_even:
    case rounding::nearest_away:
    case rounding::stochastic: round_away = true; break;
    case rounding::upward: round_away = !u.sign; break;
    case rounding::downward: round_away = u.sign; break;
    case rounding::toward_zero:
    case rounding::to_odd: round_away = false; break;
  }
  if (u.exp > f.emax) return rt_overflow_code(f, u.sign, round_away, policy);
  if (f.enc == encoding::exponent_only && u.exp < f.emin) return 0;

  const int e = u.exp < f.emin ? f.emin : u.exp;
  const int shift = 63 - M + (e - u.exp);
  std::uint64_t integer = 0;
  std::uint64_t rem = 0;
  bool low_sticky = false;
  if (shift < 64) {
    integer = u.sig >> shift;
    rem = u.sig << (64 - shift);  // shift >= 11
  } else {
    rem = shift >= 128 ? 0 : (u.sig >> (shift - 64));
    low_sticky = true;
  }
  if (shift == 64) low_sticky = false;
  const bool half = (rem >> 63) != 0;
  const bool sticky = (rem << 1) != 0 || low_sticky;
  bool increment = false;
  switch (mode) {
    case rounding::nearest_even: increment = half && (sticky || (integer & 1u) != 0); break;
    case rounding::nearest_away: increment = half; break;
    case rounding::toward_zero: break;
    case rounding::upward: increment = !u.sign && (half || sticky); break;
    case rounding::downward: increment = u.sign && (half || sticky); break;
    case rounding::to_odd: integer |= (half || sticky) ? 1u : 0u; break;
    case rounding::stochastic: increment = (rem >> 32) + random_bits >= (std::uint64_t{1} << 32); break;
  }
  integer += increment ? 1u : 0u;
  std::uint64_t code = integer + (static_cast<std::uint64_t>(e - f.emin) << M);
  if (f.enc == encoding::exponent_only) code -= 1;
  if (code > f.max_code) return rt_overflow_code(f, u.sign, round_away, policy);
  if (!f.has_signed_zero && code == 0) return 0;
  return s | code;
}

// --- from_chars' range rules and to_chars' shortest text (charconv.hpp) for a run-time format ---

/// detail::one_code<F>.
inline std::uint64_t rt_one_code(const rt_format& f) noexcept {
  return rt_pack(f, unpacked{value_class::finite, false, false, 0, std::uint64_t{1} << 63}, rounding::nearest_even,
                 overflow::ieee, 0);
}

/// detail::rounded_offset_in_binade<F>.
inline std::uint64_t rt_rounded_offset_in_binade(const rt_format& f, const unpacked& u, rounding mode) noexcept {
  const rt_format g = f.wide_twin();
  unpacked v = u;
  v.exp = 0;
  const std::uint64_t c = rt_pack(g, v, mode, overflow::saturate, 0) & g.magnitude_mask;
  return c - rt_one_code(g);
}

/// detail::beyond_max<F>.
inline bool rt_beyond_max(const rt_format& f, const unpacked& u, rounding mode) noexcept {
  if (u.exp != f.emax) return u.exp > f.emax;
  const std::uint64_t top =
      rt_pack(f, unpacked{value_class::finite, false, false, f.emax, std::uint64_t{1} << 63}, rounding::nearest_even,
              overflow::ieee, 0) &
      f.magnitude_mask;
  return top + rt_rounded_offset_in_binade(f, u, mode) > f.max_code;
}

/// detail::below_min<F>.
inline bool rt_below_min(const rt_format& f, const unpacked& u, rounding mode) noexcept {
  if (u.exp >= f.emin) return false;
  if (u.exp < f.emin - 1) return true;
  return rt_rounded_offset_in_binade(f, u, mode) != (std::uint64_t{1} << f.mantissa_bits);
}

/// detail::round_parsed<F>: the code, and false where from_chars reports result_out_of_range.
inline bool rt_round_parsed(const rt_format& f, const unpacked& u, rounding mode, overflow policy,
                            std::uint64_t& code) noexcept {
  code = 0;
  if (u.cls == value_class::nan) {
    if (!f.has_nan) return false;
    code = rt_pack(f, u, mode, policy, 0);
    return true;
  }
  if (!f.is_signed && u.sign && u.cls != value_class::zero) return false;
  if (f.enc == encoding::exponent_only && u.cls == value_class::zero) return false;
  if (u.cls == value_class::infinite) {
    if (f.enc == encoding::ieee || policy == overflow::saturate) {
      code = rt_pack(f, u, mode, policy, 0);
      return true;
    }
    return false;
  }
  if (u.cls == value_class::zero) {
    code = rt_pack(f, u, mode, policy, 0);
    return true;
  }
  if (rt_beyond_max(f, u, mode)) {
    if (policy == overflow::saturate) {
      code = rt_pack(f, u, mode, overflow::saturate, 0);
      return true;
    }
    return false;
  }
  if (f.enc == encoding::exponent_only) {
    if (rt_below_min(f, u, mode)) return false;
    code = rt_pack(f, u, mode, policy, 0);
    return true;
  }
  code = rt_pack(f, u, mode, policy, 0);
  return (code & f.magnitude_mask) != 0;  // underflow to zero: out of range
}

/// detail::reads_back_as<F>.
inline bool rt_reads_back_as(const rt_format& f, std::uint64_t x, int s, bool sign, std::uint64_t code) noexcept {
  const int lz = mixprec::detail::clz64(x);
  const unpacked u{value_class::finite, sign, false, s + 63 - lz, x << lz};
  std::uint64_t got = 0;
  return rt_round_parsed(f, u, rounding::nearest_even, overflow::ieee, got) && got == code;
}

/// detail::describe<F>: what printing needs to know about the value of code.
inline mixprec::detail::number_info rt_describe_number(const rt_format& f, std::uint64_t code) noexcept {
  const int M = f.mantissa_bits;
  const unpacked u = rt_unpack(f, code);
  mixprec::detail::number_info n{};
  n.cls = u.cls;
  n.negative = u.sign;
  n.mant_bits = M;
  if (u.cls != value_class::finite) return n;
  const int e = u.exp < f.emin ? f.emin : u.exp;
  n.q = e - M;
  n.m = u.sig >> (63 - M + (e - u.exp));
  n.hex_normal = u.exp >= f.emin;
  n.hex_exp = e;
  const bool has_subnormals = f.enc != encoding::exponent_only;
  const bool half_below = n.m == (std::uint64_t{1} << M) && (u.exp > f.emin || !has_subnormals);
  n.low_gap = half_below ? 1 : 2;
  const std::uint64_t canonical = rt_pack(f, u, rounding::nearest_even, overflow::ieee, 0);
  n.low_inclusive = rt_reads_back_as(f, 4 * n.m - static_cast<std::uint64_t>(n.low_gap), n.q - 2, u.sign, canonical);
  n.high_inclusive = rt_reads_back_as(f, 4 * n.m + 2, n.q - 2, u.sign, canonical);
  return n;
}

/// to_chars' shortest round-trip text of code (as mixprec::to_chars for a built-in format).
inline std::string rt_to_string(const rt_format& f, std::uint64_t code) {
  const mixprec::detail::number_info n = rt_describe_number(f, code);
  mixprec::detail::text_buffer t;
  mixprec::detail::format_number(t, n, mixprec::detail::float_style::plain, -1, false);
  std::string s;
  s.append(t.head, t.head_len);
  s.append(t.zeros, '0');
  s.append(t.tail, t.tail_len);
  return s;
}

}  // namespace mixprec_py

#endif  // MIXPREC_PYTHON_RUNTIME_FORMAT_HPP
