// SPDX-License-Identifier: MIT
// mixprec/core/detail/quote_input.hpp — quoting untrusted input in error messages, truncated.
//
// Every what() that quotes text from the caller (a key, a name, a policy string, a number
// literal) quotes at most quote_limit bytes of it, so a 10 MB key gives a short message:
//   quote_input("abc")                -> 'abc'
//   quote_input(std::string(1e7,'k')) -> 'kkkk...k'... (10000000 bytes)     (64 k's)
// The cut falls on a UTF-8 character boundary.
#ifndef MIXPREC_DETAIL_QUOTE_INPUT_HPP
#define MIXPREC_DETAIL_QUOTE_INPUT_HPP

#include <cstddef>
#include <string>
#include <string_view>

namespace mixprec {
namespace detail {

/// The most bytes of caller input an error message quotes.
inline constexpr std::size_t quote_limit = 64;

/// The part of s a message quotes: all of it, or its first quote_limit bytes cut back to a
/// UTF-8 character boundary.
inline std::string_view input_head(std::string_view s) noexcept {
  if (s.size() <= quote_limit) return s;
  std::size_t n = quote_limit;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0u) == 0x80u) --n;
  return s.substr(0, n);
}

/// "" when input_head(s) is all of s, else "... (N bytes)" with N = s.size().
inline std::string input_tail_note(std::string_view s) {
  if (s.size() <= quote_limit) return std::string();
  return "... (" + std::to_string(s.size()) + " bytes)";
}

/// input_head(s) between q's, then input_tail_note(s): 'abc' or 'abc...'... (N bytes).
inline std::string quote_input(std::string_view s, char q = '\'') {
  std::string out(1, q);
  out += input_head(s);
  out += q;
  out += input_tail_note(s);
  return out;
}

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_QUOTE_INPUT_HPP
