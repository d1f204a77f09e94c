// mixprec — libFuzzer target for from_chars (and to_chars through round trips).
// SPDX-License-Identifier: MIT
//
// Build and run with scripts/fuzz (clang++ -fsanitize=fuzzer,address,undefined). Input: the
// first byte picks the chars_format (bits 0-1: general, fixed, scientific, hex) and the rounding
// mode (bits 2-3: nearest-even, toward zero, upward, downward); the rest is the text.
//
// For each of several types, it checks:
//   - no crash, leak or undefined behaviour (the sanitizers);
//   - the pattern ends where libstdc++'s std::from_chars(double) ends it (same grammar), and
//     invalid_argument exactly when std::from_chars says so;
//   - on an error the value is untouched; on invalid_argument ptr == first;
//   - on success (and on out of range) the outcome equals the reference: MPFR at the format's
//     precision and exponent range (when built with MIXPREC_FUZZ_HAVE_MPFR=1), otherwise an
//     own reference: std::from_chars to double, then one rounding, skipped when the double
//     lands exactly on a midpoint of the format (the only place where that path can be wrong);
//   - on success the value printed (shortest, and in the input's style) reads back identically.
// Any disagreement prints the input and aborts.
#include <mixprec/mixprec.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <system_error>
#include <vector>

#if MIXPREC_FUZZ_HAVE_MPFR
#include <mpfr.h>
#endif

namespace {

using cf = std::chars_format;
using mixprec::overflow;
using mixprec::rounding;
namespace detail = mixprec::detail;

template <class T>
using format_of = typename mixprec::float_traits<T>::format_type;

template <class T>
std::uint64_t code_of(T x) {
  return detail::code_of<format_of<T>>(mixprec::float_traits<T>::to_bits(x));
}
template <class T>
detail::exact_value exact_of(T x) {
  return detail::decode_bits<format_of<T>>(mixprec::float_traits<T>::to_bits(x));
}
template <class T>
bool same(T a, T b) {
  const detail::exact_value ua = exact_of(a);
  const detail::exact_value ub = exact_of(b);
  if (ua.cls == detail::value_class::nan || ub.cls == detail::value_class::nan) {
    return ua.cls == ub.cls && ua.sign == ub.sign;
  }
  return code_of(a) == code_of(b);
}

std::string g_input;  // for messages

[[noreturn]] void fail(const char* type, const char* what, const std::string& detail_text) {
  std::fprintf(stderr, "\nfuzz_from_chars: %s: %s\n  %s\n  input: \"", type, what, detail_text.c_str());
  for (const char c : g_input) {
    if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
      std::fputc(c, stderr);
    } else {
      std::fprintf(stderr, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
    }
  }
  std::fprintf(stderr, "\"\n");
  std::abort();
}

/// The expected outcome: out of range, or a value (NaN: any NaN with this sign).
struct expected {
  bool known;  // false: the reference cannot decide (own reference on a midpoint)
  bool in_range;
  double value;
};

#if MIXPREC_FUZZ_HAVE_MPFR
/// text with an exponent beyond +-10^7 replaced by +-10^7. mpfr_strtofr (MPFR 4.2) mishandles
/// exponents beyond 2^63 (it reads 2e-99000000000009000084 as +Inf); with at most 4096
/// characters of input, the clamped value still lies far outside every format's range, on the
/// same side, so every rounding gives the same result.
std::string clamp_exponent(const std::string& text, bool hex) {
  const std::size_t at = text.find_last_of(hex ? "pP" : "eE");
  if (at == std::string::npos) return text;
  std::size_t digits = at + 1;
  if (digits < text.size() && (text[digits] == '+' || text[digits] == '-')) ++digits;
  std::size_t k = digits;
  while (k < text.size() && text[k] == '0') ++k;  // leading zeros do not count
  if (text.size() - k <= 7) return text;
  return text.substr(0, digits) + "10000000";
}

/// MPFR's result for the finite number text (whole, in from_chars' grammar).
template <class T>
expected reference(const std::string& token, bool hex, rounding mode) {
  using F = format_of<T>;
  constexpr int M = F::mantissa_bits;
  const std::string text = clamp_exponent(token, hex);
  const std::string s = hex ? (text[0] == '-' ? "-0x" + text.substr(1) : "0x" + text) : text;
  const int base = hex ? 16 : 10;
  if constexpr (M == 0) {  // e8m0fnu: powers of two, ties away; no zero, no negatives
    mpfr_t x;
    mpfr_init2(x, 64);
    char* end = nullptr;
    const int t = mpfr_strtofr(x, s.c_str(), &end, base, MPFR_RNDZ);
    if (*end != '\0') fail("e8m0", "MPFR did not read the whole number", s);
    expected e{true, false, 0.0};
    if (mpfr_sgn(x) > 0) {
      const long ex = static_cast<long>(mpfr_get_exp(x)) - 1;
      bool up = false;
      if (mode == rounding::nearest_even) up = mpfr_cmp_ui_2exp(x, 3, ex - 1) >= 0;
      if (mode == rounding::upward) up = t != 0 || mpfr_cmp_ui_2exp(x, 1, ex) > 0;
      const long r = ex + (up ? 1 : 0);
      if (r >= F::emin && r <= F::emax) e = {true, true, std::ldexp(1.0, static_cast<int>(r))};
    }
    mpfr_clear(x);
    return e;
  } else {
    const mpfr_exp_t old_emin = mpfr_get_emin();
    const mpfr_exp_t old_emax = mpfr_get_emax();
    mpfr_set_emin(F::qmin + 1);
    mpfr_set_emax(F::emax + 3);
    const mpfr_rnd_t rnd = mode == rounding::toward_zero ? MPFR_RNDZ
                           : mode == rounding::upward    ? MPFR_RNDU
                           : mode == rounding::downward  ? MPFR_RNDD
                                                         : MPFR_RNDN;
    mpfr_t x;
    mpfr_init2(x, M + 1);
    char* end = nullptr;
    int t = mpfr_strtofr(x, s.c_str(), &end, base, rnd);
    if (*end != '\0') fail("mpfr", "MPFR did not read the whole number", s);
    t = mpfr_subnormalize(x, t, rnd);
    const double v = mpfr_get_d(x, MPFR_RNDN);
    mpfr_clear(x);
    mpfr_set_emin(old_emin);
    mpfr_set_emax(old_emax);
    const double mx = static_cast<double>(std::numeric_limits<T>::max());
    if (v == 0 && t != 0) return {true, false, 0.0};
    if (std::isinf(v) || std::fabs(v) > mx) return {true, false, 0.0};
    if (v == 0 && !F::has_signed_zero) return {true, true, 0.0};
    return {true, true, v};
  }
}
#else
/// Own reference: the double nearest to the text, rounded once to T. Sound except where the
/// double is exactly a midpoint of T (or T's overflow/underflow threshold), where the text may
/// lie on either side of it: those are skipped. Needs T narrower than double.
template <class T>
expected reference(const std::string& text, bool hex, rounding mode) {
  using F = format_of<T>;
  double d = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), d, hex ? cf::hex : cf::general);
  if (r.ec != std::errc{} || mode != rounding::nearest_even || F::mantissa_bits == 0 ||
      std::is_same<T, double>::value) {
    return {false, false, 0.0};
  }
  if (std::is_same<T, float>::value) {  // std::from_chars<float> is itself correctly rounded
    float f = 0;
    const auto rf = std::from_chars(text.data(), text.data() + text.size(), f, hex ? cf::hex : cf::general);
    if (rf.ec == std::errc::result_out_of_range) return {true, false, 0.0};
    return {true, true, static_cast<double>(f)};
  }
  const T lo = mixprec::round_to<T>(std::fabs(d), rounding::toward_zero, overflow::saturate);
  const double l = static_cast<double>(lo);
  const double q = std::ldexp(1.0, std::max(std::ilogb(l == 0 ? 1e-300 : l), F::emin) - F::mantissa_bits);
  if (std::fabs(d) == l + q / 2) return {false, false, 0.0};  // a midpoint: undecidable here
  const T t = mixprec::round_to<T>(d);
  const double v = static_cast<double>(t);
  const double mx = static_cast<double>(std::numeric_limits<T>::max());
  if (std::fabs(d) > mx + q / 2 || std::isinf(v) || std::isnan(v)) return {true, false, 0.0};
  if (v == 0 && d != 0) return {true, false, 0.0};
  return {true, true, v};
}
#endif

template <class T>
void check(const char* name, const char* first, const char* last, cf fmt, rounding mode) {
  using F = format_of<T>;
  const std::uint64_t sentinel = F::max_code >> 1;
  T v = detail::from_code<T>(sentinel);
  const std::from_chars_result r = mixprec::from_chars(first, last, v, mode, overflow::ieee, fmt);

  // The grammar: as std::from_chars for double (libstdc++ 12 reads "p+-" in hex as an exponent
  // sign, wrongly: skipped).
  double d = 0;
  const std::from_chars_result rs = std::from_chars(first, last, d, fmt);
  const bool std_quirk = fmt == cf::hex && last - r.ptr > 2 && (*r.ptr == 'p' || *r.ptr == 'P') &&
                         (r.ptr[1] == '+' || r.ptr[1] == '-') && (r.ptr[2] == '+' || r.ptr[2] == '-');
  if (!std_quirk) {
    if ((r.ec == std::errc::invalid_argument) != (rs.ec == std::errc::invalid_argument)) {
      fail(name, "invalid_argument disagrees with std::from_chars", "");
    }
    if (rs.ec != std::errc::invalid_argument && r.ptr != rs.ptr) {
      fail(name, "the end of the number disagrees with std::from_chars",
           "mixprec " + std::to_string(r.ptr - first) + ", std " + std::to_string(rs.ptr - first));
    }
  }
  if (r.ec == std::errc::invalid_argument) {
    if (r.ptr != first) fail(name, "invalid_argument with ptr != first", "");
    if (code_of(v) != sentinel) fail(name, "invalid_argument changed the value", "");
    return;
  }
  if (r.ec != std::errc{} && r.ec != std::errc::result_out_of_range) fail(name, "unexpected errc", "");
  if (r.ec == std::errc::result_out_of_range && code_of(v) != sentinel) {
    fail(name, "result_out_of_range changed the value", "");
  }

  const std::string token(first, r.ptr);
  const std::size_t body = token[0] == '-' ? 1u : 0u;
  const char c0 = static_cast<char>(token[body] | 0x20);
  if (c0 == 'i' || c0 == 'n') {  // inf, infinity, nan, nan(...)
    const bool nan = c0 == 'n';
    const bool ok = nan ? F::has_nan : F::has_infinity;
    if ((r.ec == std::errc{}) != ok) fail(name, "inf/nan availability", token);
    if (ok) {
      const detail::exact_value u = exact_of(v);
      if (nan && u.cls != detail::value_class::nan) fail(name, "nan did not give a NaN", token);
      if (!nan && (u.cls != detail::value_class::infinite || u.sign != (body == 1))) {
        fail(name, "inf did not give the infinity", token);
      }
    }
  } else {
    const expected e = reference<T>(token, fmt == cf::hex, mode);
    if (e.known) {
      if (e.in_range != (r.ec == std::errc{})) {
        fail(name, "range disagrees with the reference",
             std::string(e.in_range ? "reference: in range " : "reference: out of range ") + token);
      }
      if (e.in_range) {
        const double got = static_cast<double>(v);
        if (!(got == e.value && std::signbit(got) == std::signbit(e.value))) {
          char buf[128];
          std::snprintf(buf, sizeof buf, "got %a, reference %a", got, e.value);
          fail(name, "value disagrees with the reference", buf);
        }
      }
    }
  }

  if (r.ec == std::errc{}) {
    // Printing the value and reading it back gives it again (shortest and in the input's style).
    char buf[2048];
    const std::to_chars_result p1 = mixprec::to_chars(buf, buf + sizeof buf, v);
    if (p1.ec != std::errc{}) fail(name, "to_chars failed", "");
    T w = detail::from_code<T>(sentinel);
    const std::from_chars_result q1 = mixprec::from_chars(buf, p1.ptr, w);
    if (q1.ec != std::errc{} || q1.ptr != p1.ptr || !same(v, w)) {
      fail(name, "shortest text does not read back", std::string(buf, p1.ptr));
    }
    const std::to_chars_result p2 = mixprec::to_chars(buf, buf + sizeof buf, v, fmt);
    if (p2.ec != std::errc{}) fail(name, "to_chars(fmt) failed", "");
    w = detail::from_code<T>(sentinel);
    const std::from_chars_result q2 = mixprec::from_chars(buf, p2.ptr, w, fmt);
    if (q2.ec != std::errc{} || q2.ptr != p2.ptr || !same(v, w)) {
      fail(name, "text in the input's style does not read back", std::string(buf, p2.ptr));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const cf fmts[] = {cf::general, cf::fixed, cf::scientific, cf::hex};
  static const rounding modes[] = {rounding::nearest_even, rounding::toward_zero, rounding::upward,
                                   rounding::downward};
  const cf fmt = fmts[data[0] & 3u];
  const rounding mode = modes[(data[0] >> 2) & 3u];
  // An exact-size copy, so that AddressSanitizer sees any read past the end.
  std::vector<char> text(data + 1, data + size);
  const char* first = text.data();
  const char* last = text.data() + text.size();
  g_input.assign(first, last);
  check<mixprec::half>("half", first, last, fmt, mode);
  check<mixprec::bfloat16>("bfloat16", first, last, fmt, mode);
  check<mixprec::tf32>("tf32", first, last, fmt, mode);
  check<mixprec::float8_e4m3fn>("float8_e4m3fn", first, last, fmt, mode);
  check<mixprec::float8_e5m2>("float8_e5m2", first, last, fmt, mode);
  check<mixprec::float8_e4m3fnuz>("float8_e4m3fnuz", first, last, fmt, mode);
  check<mixprec::float8_e5m2fnuz>("float8_e5m2fnuz", first, last, fmt, mode);
  check<mixprec::float8_e8m0fnu>("float8_e8m0fnu", first, last, fmt, mode);
  check<mixprec::float6_e3m2fn>("float6_e3m2fn", first, last, fmt, mode);
  check<mixprec::float4_e2m1fn>("float4_e2m1fn", first, last, fmt, mode);
  check<float>("float", first, last, fmt, mode);
  check<double>("double", first, last, fmt, mode);
  return 0;
}
