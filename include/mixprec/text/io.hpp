// SPDX-License-Identifier: MIT
// mixprec/text/io.hpp — stream output and input for every mixprec type.
//
// Contract: operator<< prints x exactly as the stream prints the double of the same value (every
// flag, precision, width and the locale apply; formats whose values are not all doubles use
// mixprec's exact printer). operator>> reads the longest prefix of a number (sign, decimal, hex,
// inf, nan) and rounds it once to nearest-even (from_chars); a bad or out-of-range number sets
// failbit and leaves x unchanged. Stream-buffer exceptions set badbit, rethrown only if
// exceptions() asks. rounding / overflow print their names. finfo<T>() prints as torch.finfo's
// repr, each value as operator<< prints it (the stream's precision and float flags apply).
// Details: docs/pages/streams.md.
//
//   std::cout << mixprec::bfloat16(3.140625f);             // 3.14062 (as std::cout << 3.140625)
//   std::cout << std::setprecision(3) << std::fixed << mixprec::half(0.1f);  // 0.100
//   std::cout << mixprec::finfo<mixprec::half>();
//   // finfo(resolution=0.0010004, min=-65504, max=65504, eps=0.000976562,
//   //       smallest_normal=6.10352e-05, tiny=6.10352e-05, dtype=float16)   (one line)
#ifndef MIXPREC_IO_HPP
#define MIXPREC_IO_HPP

#include <charconv>
#include <cstddef>
#include <ios>
#include <istream>
#if !defined(__GLIBCXX__)
#include <locale>  // std::use_facet, ctype, numpunct; libstdc++'s <istream>/<ostream> declare them, and its
#endif             // full <locale> (time, money, messages facets) would only add compile time (bench/README.md)
#include <ostream>
#include <string>
#include <system_error>

#include "../core/basic_float.hpp"
#include "charconv.hpp"
#include "../core/finfo.hpp"

namespace mixprec {
namespace detail {

/// Recognizes, one character at a time, the prefixes of the numbers operator>> reads.
class number_token_reader {
 public:
  /// Appends c if the token stays a prefix of some number; returns false (token unchanged)
  /// otherwise.
  bool push(char c) {
    const char l = ascii_lower(c);
    switch (state_) {
      case st::start:
        if (c == '+' || c == '-') return take(c, st::sign);
        return body(c, l);
      case st::sign: return body(c, l);
      case st::zero:
        if (l == 'x') return take(c, st::hex_start);
        return decimal_after_digit(c, l, st::int_digits);
      case st::int_digits: return decimal_after_digit(c, l, st::int_digits);
      case st::point_only:
        if (is_digit(c)) return take(c, st::frac_digits);
        return false;
      case st::frac_digits: return decimal_after_digit(c, l, st::frac_digits);
      case st::exp_mark:
        if (c == '+' || c == '-') return take(c, st::exp_sign);
        if (is_digit(c)) return take(c, st::exp_digits);
        return false;
      case st::exp_sign:
      case st::exp_digits:
        if (is_digit(c)) return take(c, st::exp_digits);
        return false;
      case st::hex_start:
        if (hex_digit_value(c) >= 0) return take(c, st::hex_int);
        if (c == '.') return take(c, st::hex_point_only);
        return false;
      case st::hex_int:
        if (hex_digit_value(c) >= 0) return take(c, st::hex_int);
        if (c == '.') return take(c, st::hex_frac);
        if (l == 'p') return take(c, st::exp_mark);
        return false;
      case st::hex_point_only:
        if (hex_digit_value(c) >= 0) return take(c, st::hex_frac);
        return false;
      case st::hex_frac:
        if (hex_digit_value(c) >= 0) return take(c, st::hex_frac);
        if (l == 'p') return take(c, st::exp_mark);
        return false;
      case st::word:
      case st::inf_word: {
        const std::string w = word_ + l;
        if (is_prefix(w, "nan")) return take_word(c, l, w.size() == 3 ? st::nan_word : st::word);
        if (is_prefix(w, "infinity")) return take_word(c, l, w.size() >= 3 ? st::inf_word : st::word);
        return false;
      }
      case st::nan_word:
        if (c == '(') return take(c, st::nan_paren);
        return false;
      case st::nan_paren:
        if (is_nan_char(c)) return take(c, st::nan_paren);
        if (c == ')') return take(c, st::done);
        return false;
      case st::done: return false;
    }
    return false;
  }

  /// Whether the token read so far is a whole number.
  bool complete() const {
    switch (state_) {
      case st::zero:
      case st::int_digits:
      case st::frac_digits:
      case st::exp_digits:
      case st::hex_int:
      case st::hex_frac:
      case st::nan_word:
      case st::done: return true;
      case st::inf_word: return word_ == "inf" || word_ == "infinity";
      default: return false;
    }
  }
  bool hex() const { return hex_; }
  const std::string& text() const { return text_; }

 private:
  enum class st : unsigned char {
    start, sign, zero, int_digits, point_only, frac_digits, exp_mark, exp_sign, exp_digits,
    hex_start, hex_int, hex_point_only, hex_frac, word, inf_word, nan_word, nan_paren, done
  };

  static bool is_prefix(const std::string& w, const char* word) {
    return std::char_traits<char>::length(word) >= w.size() && w.compare(0, w.size(), word, w.size()) == 0;
  }
  bool take(char c, st next) {
    text_.push_back(c);
    state_ = next;
    if (next == st::hex_start) hex_ = true;
    return true;
  }
  bool take_word(char c, char l, st next) {
    word_.push_back(l);
    return take(c, next);
  }
  bool body(char c, char l) {
    if (c == '0') return take(c, st::zero);
    if (is_digit(c)) return take(c, st::int_digits);
    if (c == '.') return take(c, st::point_only);
    if (l == 'i' || l == 'n') return take_word(c, l, st::word);
    return false;
  }
  bool decimal_after_digit(char c, char l, st digits_state) {
    if (is_digit(c)) return take(c, digits_state);
    if (c == '.' && digits_state == st::int_digits) return take(c, st::frac_digits);
    if (l == 'e') return take(c, st::exp_mark);
    return false;
  }

  st state_ = st::start;
  bool hex_ = false;
  std::string text_;
  std::string word_;
};

/// The precision of a stream as to_chars takes it (negative: printf's default 6).
inline int stream_precision(std::streamsize p) noexcept {
  if (p < 0) return 6;
  return p > 2147483647 ? 2147483647 : static_cast<int>(p);
}

/// Whether every value of F is a double (finite values: multiples of 2^qmin below 2^(emax+1)
/// with at most 53 significant bits).
template <class F>
constexpr bool values_fit_double = F::emax <= 1023 && F::qmin >= -1074 && F::mantissa_bits <= 52;

/// The double holding exactly the value of bits (F: values_fit_double). NaN keeps its sign.
template <class F>
inline double exact_double(typename F::storage_type bits) noexcept {
  static_assert(values_fit_double<F>, "the format has values that are not doubles");
  return float_traits<double>::from_bits(encode_bits<float64_format>(decode_bits<F>(bits), rounding::nearest_even, overflow::ieee));
}

/// For stream operators: calls f() and returns true; if an exception escapes from it (the stream
/// buffer or the locale), sets badbit without throwing ios_base::failure, then rethrows the
/// exception if exceptions() has badbit, else returns false.
template <class Stream, class Fn>
bool call_setting_badbit(Stream& s, Fn f) {
#if MIXPREC_HAS_EXCEPTIONS
  try {
    f();
  } catch (...) {
    if ((s.exceptions() & std::ios_base::badbit) == 0) {
      s.setstate(std::ios_base::badbit);  // cannot throw: badbit is not in exceptions()
      return false;
    }
    try {
      s.setstate(std::ios_base::badbit);  // sets badbit, then throws ios_base::failure
    } catch (const std::ios_base::failure&) {
    }
    throw;  // the exception from f
  }
#else
  (void)s;
  f();
#endif
  return true;
}

/// Writes x with the stream's formatting (formats whose values are not all doubles).
template <class CharT, class Traits, class F>
void write_exact_float(std::basic_ostream<CharT, Traits>& os, basic_float<F> x) {
  const std::ios_base::fmtflags flags = os.flags();
  const std::ios_base::fmtflags field = flags & std::ios_base::floatfield;
  float_text_options o;
  bool hexfloat = false;
  o.style = float_style::general;  // defaultfloat: %.<precision>g
  o.precision = stream_precision(os.precision());
  if (field == std::ios_base::fixed) {
    o.style = float_style::fixed;
  } else if (field == std::ios_base::scientific) {
    o.style = float_style::scientific;
  } else if (field == (std::ios_base::fixed | std::ios_base::scientific)) {
    o.style = float_style::hex;  // %a: no precision
    o.precision = -1;
    hexfloat = true;
  }
  o.alt = (flags & std::ios_base::showpoint) != 0;
  // uppercase: %E, %A, %G; fixed is always %f (the standard's table for num_put), so "inf".
  o.upper = (flags & std::ios_base::uppercase) != 0 && field != std::ios_base::fixed;
  if ((flags & std::ios_base::showpos) != 0) o.plus = '+';
  std::string s = float_text(x, o);

  // Where the fill goes for std::internal: after the sign, or else after "0x" (as libstdc++).
  const std::size_t sign = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1u : 0u;
  std::size_t prefix = sign;
  const value_class cls = decode_bits<F>(x.bits()).cls;
  if (hexfloat && (cls == value_class::finite || cls == value_class::zero)) {
    s.insert(sign, o.upper ? "0X" : "0x");
    if (sign == 0) prefix = 2;
  }

  const std::ctype<CharT>& ct = std::use_facet<std::ctype<CharT>>(os.getloc());
  const CharT point = std::use_facet<std::numpunct<CharT>>(os.getloc()).decimal_point();
  std::basic_string<CharT, Traits> text;
  text.reserve(s.size());
  for (char c : s) text.push_back(c == '.' ? point : ct.widen(c));

  const std::streamsize width = os.width();
  if (width > 0 && static_cast<std::size_t>(width) > text.size()) {
    const std::size_t pad = static_cast<std::size_t>(width) - text.size();
    const std::ios_base::fmtflags adjust = flags & std::ios_base::adjustfield;
    const std::size_t at = adjust == std::ios_base::left       ? text.size()
                           : adjust == std::ios_base::internal ? prefix
                                                               : 0u;
    text.insert(at, pad, os.fill());
  }
  os.width(0);
  if (os.rdbuf()->sputn(text.data(), static_cast<std::streamsize>(text.size())) !=
      static_cast<std::streamsize>(text.size())) {
    os.setstate(std::ios_base::badbit);
  }
}

}  // namespace detail

/// Writes x as os writes the double of the same value (docs/pages/streams.md).
template <class CharT, class Traits, class F>
std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os, basic_float<F> x) {
  if constexpr (detail::values_fit_double<F>) {
    return os << detail::exact_double<F>(x.bits());
  } else {
    const typename std::basic_ostream<CharT, Traits>::sentry ok(os);
    if (ok) detail::call_setting_badbit(os, [&] { detail::write_exact_float(os, x); });
    return os;
  }
}

namespace detail {

/// operator>>'s work after the sentry: reads a number into x, returns the state to set.
template <class CharT, class Traits, class F>
std::ios_base::iostate read_float(std::basic_istream<CharT, Traits>& is, basic_float<F>& x) {
  std::ios_base::iostate state = std::ios_base::goodbit;
  const std::ctype<CharT>& ct = std::use_facet<std::ctype<CharT>>(is.getloc());
  const CharT point = std::use_facet<std::numpunct<CharT>>(is.getloc()).decimal_point();
  detail::number_token_reader reader;
  std::basic_streambuf<CharT, Traits>* sb = is.rdbuf();
  typename Traits::int_type ch = sb->sgetc();
  for (;;) {
    if (Traits::eq_int_type(ch, Traits::eof())) {
      state |= std::ios_base::eofbit;
      break;
    }
    const CharT c = Traits::to_char_type(ch);
    const char n = Traits::eq(c, point) ? '.' : ct.narrow(c, '\0');
    if (n == '\0' || !reader.push(n)) break;
    ch = sb->snextc();
  }
  const std::string& tok = reader.text();
  bool good = reader.complete();
  if (good) {
    const char* first = tok.data();
    const char* last = tok.data() + tok.size();
    std::string hex_text;
    basic_float<F> v = x;
    std::from_chars_result r{};
    if (*first == '+') ++first;
    if (reader.hex()) {
      // drop "0x" after the sign: from_chars reads hex digits without a prefix
      hex_text.assign(first, last);
      const std::size_t at = hex_text[0] == '-' ? 1u : 0u;
      hex_text.erase(at, 2);
      r = from_chars(hex_text.data(), hex_text.data() + hex_text.size(), v, std::chars_format::hex);
      good = r.ec == std::errc{} && r.ptr == hex_text.data() + hex_text.size();
    } else {
      r = from_chars(first, last, v);
      good = r.ec == std::errc{} && r.ptr == last;
    }
    if (good) x = v;
  }
  if (!good) state |= std::ios_base::failbit;
  return state;
}

}  // namespace detail

/// Reads a number and rounds it once to nearest-even; on failure sets failbit, x unchanged.
template <class CharT, class Traits, class F>
std::basic_istream<CharT, Traits>& operator>>(std::basic_istream<CharT, Traits>& is, basic_float<F>& x) {
  const typename std::basic_istream<CharT, Traits>::sentry ok(is);
  std::ios_base::iostate state = std::ios_base::goodbit;
  // After an exception: badbit only, x unchanged.
  if (ok && detail::call_setting_badbit(is, [&] { state = detail::read_float(is, x); })) is.setstate(state);
  return is;
}

/// Prints the enumerator's name (to_string): std::cout << rounding::upward  // "upward"
template <class CharT, class Traits>
std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os, rounding r) {
  return os << to_string(r);
}
/// Prints the enumerator's name (to_string): "ieee" or "saturate".
template <class CharT, class Traits>
std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os, overflow p) {
  return os << to_string(p);
}

/// Writes the limits of T as torch.finfo's repr, in one line:
///   finfo(resolution=R, min=M, max=X, eps=E, smallest_normal=S, tiny=S, dtype=NAME)
/// Each value is written as operator<< writes a T (the stream's precision, float flags and
/// locale apply; by default %g with 6 digits, as torch prints them); NAME is finfo<T>::name.
/// resolution is the member, 10^-precision rounded to T (half: 0.0010004). The stream's width
/// is reset and not applied.
///   std::cout << mixprec::finfo<float>();
///   // finfo(resolution=1e-06, min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07,
///   //       smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=float32)
template <class CharT, class Traits, class T>
std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os, const finfo<T>&) {
  os.width(0);
  detail::finfo_repr<T>([&os](const char* s) { os << s; }, [&os](T v) { os << v; });
  return os;
}

}  // namespace mixprec

#endif  // MIXPREC_IO_HPP
