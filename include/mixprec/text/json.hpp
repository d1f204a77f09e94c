// SPDX-License-Identifier: MIT
// mixprec/text/json.hpp — a small strict JSON reader and the JSON writers of numbers and strings:
// grad_scaler's state_dict / load_state_dict speak it, and so can a program that writes or reads
// back its own results (examples/precision_study).
//
// Contract: json::parse reads exactly one strict RFC 8259 document (plus Python's NaN, Infinity,
// -Infinity) or throws json::parse_error("offset N: ..."); numbers keep their literal text, which
// to_int64 / to_double convert exactly or report out of range (false); number_text writes a double
// as Python's repr does, quote a string literal. Needs C++ exceptions. Every rule:
// docs/pages/printing.md ("JSON").
//
//   const mixprec::json::value doc = mixprec::json::parse(R"({"scale": 65536.0, "steps": [1, 2]})");
//   double scale = 0;
//   mixprec::json::to_double(doc.items[0].text, scale);   // doc.keys[0] == "scale"; scale == 65536
//   "{" + mixprec::json::quote("loss") + ": " + mixprec::json::number_text(0.1) + "}"   // {"loss": 0.1}
#ifndef MIXPREC_TEXT_JSON_HPP
#define MIXPREC_TEXT_JSON_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/text/json.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "../core/detail/quote_input.hpp"

#if defined(__has_include)
#if __has_include(<charconv>)
#include <charconv>
#endif
#endif
#if !(defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L)
#include <locale>
#include <sstream>
#endif

namespace mixprec {
/// JSON text: the reader (parse, value) and the writers of numbers and strings. See mixprec/text/json.hpp.
namespace json {

/// What parse throws for text that is not one JSON document: what() is "offset N: <what is wrong>".
class parse_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;  ///< constructs from the message
};

/// The type of a JSON value.
enum class kind : unsigned char {
  null,     ///< null
  boolean,  ///< true or false (value::boolean)
  number,   ///< a number (value::text holds its literal)
  string,   ///< a string (value::text holds its decoded UTF-8)
  array,    ///< an array (value::items)
  object    ///< an object (value::keys[i] -> value::items[i])
};

/// "null", "a boolean", "a number", "a string", "an array" or "an object": k for an error message.
inline const char* kind_name(kind k) noexcept {
  const char* const names[] = {"null", "a boolean", "a number", "a string", "an array", "an object"};
  const auto i = static_cast<unsigned>(k);
  return i < 6 ? names[i] : "?";
}

/// A parsed JSON value. Numbers keep their literal text (also "NaN", "Infinity", "-Infinity");
/// strings their decoded UTF-8 text. An object's members are keys[i] -> items[i], in order.
struct value {
  kind type = kind::null;          ///< which of the members below hold the value
  bool boolean = false;            ///< a boolean's value
  std::string text;                ///< a number's literal text; a string's decoded UTF-8 text
  std::vector<std::string> keys;   ///< an object's keys, in document order
  std::vector<value> items;        ///< an array's elements; an object's values (items[i] for keys[i])
};

/// The deepest nesting of arrays and objects that parse accepts.
constexpr int max_depth = 64;

/// x as a JSON string literal (quotes and escapes added; UTF-8 passed through).
inline std::string quote(std::string_view x) {
  std::string out = "\"";
  static const char hex[] = "0123456789abcdef";
  for (const char ch : x) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
      case '\\':
        out += '\\';
        out += ch;
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace json

namespace detail {
namespace json_impl {

using ::mixprec::json::kind;
using ::mixprec::json::max_depth;
using ::mixprec::json::parse_error;
using ::mixprec::json::value;

/// Caller input (a key) for an error message: json::quote of at most quote_limit bytes of it,
/// with a note of what was left out (see core/detail/quote_input.hpp).
inline std::string quote_key(std::string_view x) { return ::mixprec::json::quote(input_head(x)) + input_tail_note(x); }

class parser {
 public:
  parser(const char* data, std::size_t size) : p_(data), n_(size) {}

  value parse_document() {
    value v;
    skip_ws();
    parse_value(v, 0);
    skip_ws();
    if (i_ != n_) fail("unexpected text after the JSON value");
    return v;
  }

 private:
  const char* p_;
  std::size_t n_;
  std::size_t i_ = 0;

  [[noreturn]] void fail(const std::string& msg) const {
    throw parse_error("offset " + std::to_string(i_) + ": " + msg);
  }
  bool at_end() const noexcept { return i_ >= n_; }
  unsigned char peek() const noexcept { return static_cast<unsigned char>(p_[i_]); }

  void skip_ws() noexcept {
    while (!at_end() && (p_[i_] == ' ' || p_[i_] == '\t' || p_[i_] == '\n' || p_[i_] == '\r')) ++i_;
  }
  bool accept(char c) noexcept {
    if (at_end() || p_[i_] != c) return false;
    ++i_;
    return true;
  }
  bool at_digit() const noexcept { return !at_end() && p_[i_] >= '0' && p_[i_] <= '9'; }
  /// One or more digits (else fail(what)).
  void digits(const char* what) {
    if (!at_digit()) fail(what);
    while (at_digit()) ++i_;
  }
  /// The literal lit, read as a value of kind k with text text.
  void literal(const char* lit, value& v, kind k, const char* text = "") {
    std::size_t n = 0;
    while (lit[n] != '\0') {
      if (i_ + n >= n_ || p_[i_ + n] != lit[n]) fail("invalid literal");
      ++n;
    }
    i_ += n;
    v.type = k;
    v.text = text;
  }

  void parse_value(value& v, int depth) {
    if (at_end()) fail("unexpected end of input, expected a value");
    const char c = p_[i_];
    switch (c) {
      case '{':
        parse_object(v, depth + 1);
        return;
      case '[':
        parse_array(v, depth + 1);
        return;
      case '"':
        v.type = kind::string;
        parse_string(v.text);
        return;
      case 't':
      case 'f':
        v.boolean = c == 't';
        literal(v.boolean ? "true" : "false", v, kind::boolean);
        return;
      case 'n':
        literal("null", v, kind::null);
        return;
      case 'N':
        literal("NaN", v, kind::number, "NaN");
        return;
      case 'I':
        literal("Infinity", v, kind::number, "Infinity");
        return;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          parse_number(v);
          return;
        }
        fail(std::string("unexpected character ") + describe(peek()));
    }
  }

  static std::string describe(unsigned char c) {
    if (c >= 0x21 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
    static const char hex[] = "0123456789abcdef";
    return std::string("0x") + hex[c >> 4] + hex[c & 15];
  }

  void parse_number(value& v) {
    const std::size_t start = i_;
    if (accept('-') && !at_end() && p_[i_] == 'I') return literal("Infinity", v, kind::number, "-Infinity");
    if (at_end()) fail("unexpected end of input in a number");
    if (!accept('0')) digits("invalid number");  // no leading zeros: "01" stops after the 0
    if (accept('.')) digits("invalid number: digits expected after '.'");
    if (accept('e') || accept('E')) {
      if (!accept('+')) accept('-');
      digits("invalid number: digits expected in the exponent");
    }
    v.type = kind::number;
    v.text.assign(p_ + start, i_ - start);
  }

  unsigned hex4() {
    unsigned u = 0;
    for (int k = 0; k < 4; ++k) {
      if (at_end()) fail("unexpected end of input in a \\u escape");
      const char c = p_[i_];
      unsigned d;
      if (c >= '0' && c <= '9') {
        d = static_cast<unsigned>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        d = static_cast<unsigned>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        d = static_cast<unsigned>(c - 'A' + 10);
      } else {
        fail("invalid \\u escape");
      }
      u = u * 16 + d;
      ++i_;
    }
    return u;
  }

  static void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  /// One UTF-8 encoded code point (not ASCII) copied to out; rejects overlong forms, surrogates
  /// and code points above U+10FFFF.
  void copy_utf8(std::string& out) {
    const unsigned char c0 = peek();
    int len;
    std::uint32_t cp;
    if (c0 >= 0xC2 && c0 <= 0xDF) {
      len = 2;
      cp = c0 & 0x1Fu;
    } else if (c0 >= 0xE0 && c0 <= 0xEF) {
      len = 3;
      cp = c0 & 0x0Fu;
    } else if (c0 >= 0xF0 && c0 <= 0xF4) {
      len = 4;
      cp = c0 & 0x07u;
    } else {
      fail("invalid UTF-8 byte " + describe(c0));
    }
    if (n_ - i_ < static_cast<std::size_t>(len)) fail("truncated UTF-8 sequence");
    for (int k = 1; k < len; ++k) {
      const unsigned char c = static_cast<unsigned char>(p_[i_ + static_cast<std::size_t>(k)]);
      if ((c & 0xC0) != 0x80) fail("invalid UTF-8 continuation byte");
      cp = (cp << 6) | (c & 0x3Fu);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000)) fail("overlong UTF-8 sequence");
    if (cp >= 0xD800 && cp <= 0xDFFF) fail("UTF-8 encoded surrogate");
    if (cp > 0x10FFFF) fail("UTF-8 code point above U+10FFFF");
    out.append(p_ + i_, static_cast<std::size_t>(len));
    i_ += static_cast<std::size_t>(len);
  }

  void parse_string(std::string& out) {
    ++i_;  // opening quote
    out.clear();
    for (;;) {
      if (at_end()) fail("unterminated string");
      const unsigned char c = peek();
      if (c == '"') {
        ++i_;
        return;
      }
      if (c < 0x20) fail("control character in a string");
      if (c == '\\') {
        ++i_;
        if (at_end()) fail("unterminated escape");
        const char e = p_[i_++];
        switch (e) {
          case '"':
          case '\\':
          case '/':
            out += e;
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'n':
            out += '\n';
            break;
          case 'r':
            out += '\r';
            break;
          case 't':
            out += '\t';
            break;
          case 'u': {
            std::uint32_t cp = hex4();
            if (cp >= 0xDC00 && cp <= 0xDFFF) fail("unpaired low surrogate in a \\u escape");
            if (cp >= 0xD800 && cp <= 0xDBFF) {
              if (!(i_ + 1 < n_ && p_[i_] == '\\' && p_[i_ + 1] == 'u'))
                fail("unpaired high surrogate in a \\u escape");
              i_ += 2;
              const std::uint32_t lo = hex4();
              if (lo < 0xDC00 || lo > 0xDFFF) fail("unpaired high surrogate in a \\u escape");
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            append_utf8(out, cp);
            break;
          }
          default:
            --i_;
            fail("invalid escape");
        }
        continue;
      }
      if (c < 0x80) {
        out += static_cast<char>(c);
        ++i_;
      } else {
        copy_utf8(out);
      }
    }
  }

  /// After '[' or '{' at depth: v becomes kind k; true when the container is empty (close read).
  bool open(value& v, kind k, char close, int depth) {
    if (depth > max_depth) fail("nesting deeper than " + std::to_string(max_depth));
    ++i_;
    v.type = k;
    skip_ws();
    return accept(close);
  }
  /// After an element of an array or object (in): true at its close, false after a ','.
  bool next_or_close(char close, const char* in) {
    skip_ws();
    if (at_end()) fail(std::string("unexpected end of input in ") + in);
    if (accept(',')) return false;
    if (accept(close)) return true;
    fail(std::string("expected ',' or '") + close + "'");
  }

  void parse_array(value& v, int depth) {
    if (open(v, kind::array, ']', depth)) return;
    do {
      skip_ws();
      v.items.emplace_back();
      parse_value(v.items.back(), depth);
    } while (!next_or_close(']', "an array"));
  }

  void parse_object(value& v, int depth) {
    if (open(v, kind::object, '}', depth)) return;
    std::set<std::string> seen;
    do {
      skip_ws();
      if (at_end() || p_[i_] != '"') fail("expected a string key");
      const std::size_t key_at = i_;
      std::string key;
      parse_string(key);
      if (!seen.insert(key).second) {
        i_ = key_at;
        fail("duplicate key " + quote_key(key));
      }
      skip_ws();
      if (!accept(':')) fail("expected ':'");
      skip_ws();
      v.keys.push_back(std::move(key));
      v.items.emplace_back();
      parse_value(v.items.back(), depth);
    } while (!next_or_close('}', "an object"));
  }
};

}  // namespace json_impl
}  // namespace detail

namespace json {

/// Parses one JSON document (see the top of this header for the accepted language); throws
/// parse_error.
inline value parse(std::string_view text) {
  return detail::json_impl::parser(text.data(), text.size()).parse_document();
}

/// True when a number literal has neither fraction nor exponent (and is not NaN/Infinity).
/// t must be a number literal as parse stores it in value::text (so are the next two functions'):
/// other text gives an unspecified answer.
inline bool is_integer_literal(std::string_view t) noexcept {
  if (t.empty() || t == "NaN" || t == "Infinity" || t == "-Infinity") return false;
  return t.find_first_of(".eE") == std::string_view::npos;
}

/// The integer value of an integer literal (value::text); false when it does not fit in int64.
inline bool to_int64(std::string_view t, std::int64_t& out) {
  if (!is_integer_literal(t)) return false;
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
  std::int64_t v = 0;
  const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  if (r.ec != std::errc() || r.ptr != t.data() + t.size()) return false;
  out = v;
  return true;
#else
  const bool neg = t[0] == '-';
  std::uint64_t mag = 0;
  const std::uint64_t limit = neg ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
  for (std::size_t k = neg ? 1 : 0; k < t.size(); ++k) {
    const auto d = static_cast<std::uint64_t>(t[k] - '0');
    if (mag > (limit - d) / 10) return false;
    mag = mag * 10 + d;
  }
  out = neg ? (mag == (std::uint64_t{1} << 63) ? std::numeric_limits<std::int64_t>::min()
                                               : -static_cast<std::int64_t>(mag))
            : static_cast<std::int64_t>(mag);
  return true;
#endif
}

/// The value of a number literal (value::text) correctly rounded to double (NaN, +-Infinity for those
/// literals); false when a finite literal overflows double or is a nonzero value below the
/// smallest subnormal double.
inline bool to_double(std::string_view t, double& out) {
  if (t == "NaN") {
    out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (t == "Infinity" || t == "-Infinity") {
    out = t[0] == '-' ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    return true;
  }
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
  double v = 0;
  const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  if (r.ec != std::errc() || r.ptr != t.data() + t.size()) return false;
  out = v;
  return true;
#else
  std::istringstream in{std::string(t)};
  in.imbue(std::locale::classic());
  double v = 0;
  in >> v;
  if (in.fail() || !std::isfinite(v)) return false;
  out = v;
  return true;
#endif
}

/// x as a JSON number, written as Python's repr(float) writes it: the shortest digits that read back as x (the nearest such
/// string), written "d.ddde+XX" (at least two exponent digits, no '.' for one digit) when the
/// decimal exponent is below -4 or at least 16, else fixed with at least one digit after the
/// point: "65536.0", "0.0001", "1e-05", "1e+16", "1.2345678901234568e+17", "5e-324"; NaN,
/// Infinity and -Infinity as Python's json writes them. Checked against Python's repr on the
/// vectors in tests/golden/python_float_repr.txt.
inline std::string number_text(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x < 0 ? "-Infinity" : "Infinity";
  // The shortest round-trip digits in scientific form, "-d.ddde-XX".
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  const std::string sci(buf, r.ptr);
#else
  std::string sci;
  for (int p = 0; p <= 17; ++p) {  // the first precision that reads back: the shortest, nearest
    std::ostringstream o;
    o.imbue(std::locale::classic());
    o.precision(p);
    o << std::scientific << x;
    sci = o.str();
    std::istringstream in(sci);
    in.imbue(std::locale::classic());
    double back = 0;
    in >> back;
    if (back == x) break;
  }
#endif
  const bool neg = sci[0] == '-';
  const std::size_t epos = sci.find('e');
  std::string digits;
  for (std::size_t i = neg ? 1 : 0; i < epos; ++i) {
    if (sci[i] != '.') digits += sci[i];
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int e = std::atoi(sci.c_str() + epos + 1);
  const int nd = static_cast<int>(digits.size());
  std::string out = neg ? "-" : "";
  if (e < -4 || e >= 16) {
    out += digits[0];
    if (nd > 1) out += "." + digits.substr(1);
    const int ae = e < 0 ? -e : e;
    out += e < 0 ? "e-" : "e+";
    if (ae < 10) out += '0';
    out += std::to_string(ae);
  } else if (e < 0) {
    out += "0." + std::string(static_cast<std::size_t>(-e - 1), '0') + digits;
  } else if (e + 1 >= nd) {
    out += digits + std::string(static_cast<std::size_t>(e + 1 - nd), '0') + ".0";
  } else {
    out += digits.substr(0, static_cast<std::size_t>(e + 1)) + "." + digits.substr(static_cast<std::size_t>(e + 1));
  }
  return out;
}

}  // namespace json
}  // namespace mixprec

#endif  // MIXPREC_TEXT_JSON_HPP
