// SPDX-License-Identifier: MIT
// mixprec/text/detail/format_spec.hpp — the std-format-spec of C++20 [format.string.std] for
// floating-point arguments (fill, align, sign, #, 0, width, precision, L, type), parsed once and
// applied to a value's text; shared by std::formatter (interop/std_format.hpp) and fmt::formatter
// (interop/fmt.hpp), and kept out of the translation units that only print or parse.
#ifndef MIXPREC_TEXT_DETAIL_FORMAT_SPEC_HPP
#define MIXPREC_TEXT_DETAIL_FORMAT_SPEC_HPP

#include <cstddef>
#include <string>
#include <type_traits>

#include "../../core/finfo.hpp"
#include "../charconv.hpp"

namespace mixprec {
namespace detail {

template <class CharT>
struct float_format_spec {
  CharT fill[4] = {CharT(' '), CharT(), CharT(), CharT()};  // one code point
  int fill_len = 1;
  char align = '\0';  // '<', '>', '^' or none
  char sign = '-';    // '-', '+' or ' '
  bool alt = false;   // '#'
  bool zero = false;  // '0'
  bool locale = false;  // 'L' (accepted; the text is not localized)
  int width = 0;
  int precision = -1;
  long long width_arg = -1;  // argument id of a dynamic width, or -1
  long long precision_arg = -1;
  char type = '\0';  // one of "aAeEfFgG", or none
};

template <class CharT>
constexpr bool is_ascii_digit(CharT c) noexcept {
  return c >= CharT('0') && c <= CharT('9');
}

/// Parses [it, end) up to its '}' into s. next_arg() gives the next automatic argument id,
/// check_arg(id) checks a manual one, fail(message) reports an error (throws).
template <class CharT, class It, class NextArg, class CheckArg, class Fail>
constexpr It parse_float_format_spec(It it, It end, float_format_spec<CharT>& s, NextArg next_arg,
                                     CheckArg check_arg, Fail fail) {
  auto is_align = [](CharT c) { return c == CharT('<') || c == CharT('>') || c == CharT('^'); };
  auto parse_int = [&](long long& v) {
    v = 0;
    while (it != end && is_ascii_digit(*it)) {
      v = v * 10 + static_cast<long long>(*it - CharT('0'));
      if (v > 2147483647LL) fail("number too large in the format spec");
      ++it;
    }
  };
  auto parse_dynamic = [&](long long& id) {  // after '{'
    if (it != end && is_ascii_digit(*it)) {
      parse_int(id);
      check_arg(id);
    } else {
      id = next_arg();
    }
    if (it == end || *it != CharT('}')) fail("invalid dynamic width or precision in the format spec");
    ++it;
  };
  auto accept = [&](char c) {  // consumes c if it is next
    if (it == end || *it != CharT(c)) return false;
    ++it;
    return true;
  };
  auto parse_count = [&](int& value, long long& arg) {  // a number, or {arg-id} (after '{')
    if (it != end && is_ascii_digit(*it)) {
      long long v = 0;
      parse_int(v);
      value = static_cast<int>(v);
    } else if (accept('{')) {
      parse_dynamic(arg);
    } else {
      return false;
    }
    return true;
  };
  if (it == end || *it == CharT('}')) return it;

  // [[fill] align]: the fill is one code point (UTF-8 or UTF-16 where CharT has that width).
  int cp = 1;
  if constexpr (sizeof(CharT) == 1) {
    const auto u = static_cast<unsigned char>(*it);
    cp = u < 0x80u ? 1 : (u >> 5) == 0x6u ? 2 : (u >> 4) == 0xEu ? 3 : (u >> 3) == 0x1Eu ? 4 : 1;
  } else if constexpr (sizeof(CharT) == 2) {
    const auto u = static_cast<unsigned>(*it);
    cp = (u >= 0xD800u && u <= 0xDBFFu) ? 2 : 1;
  }
  if (end - it > cp && is_align(it[cp])) {
    if (*it == CharT('{') || *it == CharT('}')) fail("invalid fill character in the format spec");
    for (int i = 0; i < cp; ++i) s.fill[i] = it[i];
    s.fill_len = cp;
    s.align = static_cast<char>(it[cp]);
    it += cp + 1;
  } else if (is_align(*it)) {
    s.align = static_cast<char>(*it);
    ++it;
  }
  if (it != end && (*it == CharT('+') || *it == CharT('-') || *it == CharT(' '))) {
    s.sign = static_cast<char>(*it);
    ++it;
  }
  s.alt = accept('#');
  s.zero = accept('0');
  parse_count(s.width, s.width_arg);
  if (accept('.') && !parse_count(s.precision, s.precision_arg)) fail("missing precision in the format spec");
  s.locale = accept('L');
  if (it != end && *it != CharT('}')) {
    const CharT t = *it;
    if (t == CharT('a') || t == CharT('A') || t == CharT('e') || t == CharT('E') || t == CharT('f') ||
        t == CharT('F') || t == CharT('g') || t == CharT('G')) {
      s.type = static_cast<char>(t);
      ++it;
    } else {
      fail("invalid type for a floating-point argument");
    }
  }
  if (it != end && *it != CharT('}')) fail("invalid format spec for a floating-point argument");
  return it;
}

/// Writes value formatted per s (width and precision already resolved) to out. hex_prefix:
/// types 'a' and 'A' print "0x" / "0X" after the sign ({fmt} does; std::format does not).
template <class CharT, class T, class Out>
Out write_float_formatted(Out out, T value, const float_format_spec<CharT>& s, int width, int precision,
                          bool hex_prefix = false) {
  float_text_options o;
  o.alt = s.alt;
  o.precision = precision;
  switch (s.type) {
    case 'a':
    case 'A': o.style = float_style::hex; break;
    case 'e':
    case 'E': o.style = float_style::scientific; break;
    case 'f':
    case 'F': o.style = float_style::fixed; break;
    case 'g':
    case 'G': o.style = float_style::general; break;
    default: o.style = precision < 0 ? float_style::plain : float_style::general; break;
  }
  if (o.precision < 0 && s.type != '\0' && o.style != float_style::hex) o.precision = 6;
  o.upper = s.type == 'A' || s.type == 'E' || s.type == 'F' || s.type == 'G';
  o.plus = s.sign == '+' ? '+' : s.sign == ' ' ? ' ' : '\0';
  std::string text = float_text(value, o);

  using F = typename float_traits<T>::format_type;
  const value_class cls = decode_bits<F>(float_traits<T>::to_bits(value)).cls;
  const bool finite = cls == value_class::finite || cls == value_class::zero;
  const std::size_t sign_len = (!text.empty() && (text[0] == '-' || text[0] == '+' || text[0] == ' ')) ? 1u : 0u;
  const std::size_t prefix_len = sign_len;  // zeros from '0' go after the sign (before "0x", as {fmt})
  if (hex_prefix && o.style == float_style::hex && finite) text.insert(sign_len, o.upper ? "0X" : "0x");
  const std::size_t len = text.size();
  const std::size_t pad = width > 0 && static_cast<std::size_t>(width) > len ? static_cast<std::size_t>(width) - len : 0u;
  auto put_text = [&out](const char* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) *out++ = static_cast<CharT>(p[i]);
  };
  auto put_fill = [&out, &s](std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      for (int k = 0; k < s.fill_len; ++k) *out++ = s.fill[k];
    }
  };
  if (s.zero && s.align == '\0' && finite) {
    put_text(text.data(), prefix_len);
    for (std::size_t i = 0; i < pad; ++i) *out++ = CharT('0');
    put_text(text.data() + prefix_len, len - prefix_len);
    return out;
  }
  const char align = s.align == '\0' ? '>' : s.align;
  const std::size_t before = align == '<' ? 0u : align == '^' ? pad / 2 : pad;
  if (s.zero && s.align == '\0') {  // inf and nan: "0" pads with spaces
    for (std::size_t i = 0; i < before; ++i) *out++ = CharT(' ');
  } else {
    put_fill(before);
  }
  put_text(text.data(), len);
  put_fill(pad - before);
  return out;
}

/// The work of std::formatter and fmt::formatter for basic_float<F> and finfo<T>: the float
/// spec (parse), one value written under it (write; dynamic width and precision read from the
/// arguments), finfo's repr (write_finfo). Api is what differs between the two libraries: fail
/// (throws its format_error), check_arg_id, visit (an argument through a visitor), hex_prefix.
template <class CharT, class Api>
class float_spec_formatter {
 public:
  /// Parses [[fill]align][sign][#][0][width][.precision][L][type]; the library's format_error if
  /// invalid.
  template <class ParseContext>
  constexpr auto parse(ParseContext& ctx) -> decltype(ctx.begin()) {
    return parse_float_format_spec(
        ctx.begin(), ctx.end(), spec_, [&ctx]() { return static_cast<long long>(ctx.next_arg_id()); },
        [&ctx](long long id) { Api::check_arg_id(ctx, id); }, [](const char* message) { Api::fail(message); });
  }

  /// Writes x (float, double or a mixprec type) to out under the parsed spec; default_precision
  /// where the spec has no type and no precision (-1: the shortest round-trip text).
  template <class T, class Out, class FormatContext>
  Out write(Out out, T x, FormatContext& ctx, int default_precision = -1) const {
    const int width = spec_.width_arg >= 0 ? dynamic_value(ctx, spec_.width_arg) : spec_.width;
    int precision = spec_.precision_arg >= 0 ? dynamic_value(ctx, spec_.precision_arg) : spec_.precision;
    if (precision < 0 && spec_.precision_arg < 0 && spec_.type == '\0') precision = default_precision;
    return write_float_formatted(out, x, spec_, width, precision, Api::hex_prefix);
  }

  /// finfo<T>'s repr (finfo_repr) to ctx.out(), each value under the spec (no type and no
  /// precision: precision 6, the text of operator<<).
  template <class T, class FormatContext>
  auto write_finfo(FormatContext& ctx) const -> decltype(ctx.out()) {
    auto out = ctx.out();
    finfo_repr<T>(
        [&out](const char* s) {
          while (*s != '\0') *out++ = static_cast<CharT>(*s++);
        },
        [&](T v) { out = write(out, v, ctx, 6); });
    return out;
  }

 private:
  template <class FormatContext>
  static int dynamic_value(FormatContext& ctx, long long id) {
    return Api::visit(ctx, id, [](auto v) -> int {
      using A = decltype(v);
      if constexpr (std::is_integral<A>::value && !std::is_same<A, bool>::value && !std::is_same<A, CharT>::value) {
        if constexpr (std::is_signed<A>::value) {
          if (v < 0) Api::fail("negative width or precision");
        }
        if (static_cast<unsigned long long>(v) > 2147483647ULL) Api::fail("width or precision too large");
        return static_cast<int>(v);
      } else {
        Api::fail("width or precision is not an integer");
        return 0;
      }
    });
  }

  float_format_spec<CharT> spec_;
};

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_TEXT_DETAIL_FORMAT_SPEC_HPP
