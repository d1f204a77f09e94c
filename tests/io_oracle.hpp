// SPDX-License-Identifier: MIT
// tests/io_oracle.hpp — operator<< checked against the standard library printing a double: the
// same value (decoded from the bits by ref::decode, not by mixprec) printed on an identically
// configured std::ostringstream must give the same text, under a grid of stream settings.
#ifndef MIXPREC_TESTS_IO_ORACLE_HPP
#define MIXPREC_TESTS_IO_ORACLE_HPP

#include <mixprec/io.hpp>

#include <cstddef>
#include <cstdint>
#include <ios>
#include <locale>
#include <sstream>
#include <string>
#include <vector>

namespace iotest {

/// One stream configuration.
struct settings {
  std::ios_base::fmtflags flags;
  std::streamsize precision;
  std::streamsize width;
  bool grouping_locale;  // ',' as decimal point, '.' groups of 3
};

/// A numpunct with a comma decimal point and digit grouping (as de_DE, without needing it).
struct grouping_punct : std::numpunct<char> {
  char do_decimal_point() const override { return ','; }
  char do_thousands_sep() const override { return '.'; }
  std::string do_grouping() const override { return "\3"; }
};

inline const std::locale& grouping_locale() {
  static const std::locale loc(std::locale::classic(), new grouping_punct);
  return loc;
}

/// floatfield x precision x other flags x width/adjustment (+ the locale on a share): 1000
/// settings. every_width = false: each (floatfield, precision, flags) once, with the
/// width/adjustment taking its 5 variants in turn (200 settings).
inline std::vector<settings> grid(bool every_width = true) {
  using b = std::ios_base;
  const b::fmtflags fields[] = {b::fmtflags{}, b::fixed, b::scientific, b::fixed | b::scientific};
  const std::streamsize precisions[] = {-1, 0, 1, 2, 3, 4, 6, 9, 17, 40};
  const b::fmtflags others[] = {b::fmtflags{}, b::showpos, b::uppercase, b::showpoint,
                                b::showpos | b::uppercase | b::showpoint};
  struct adjust {
    b::fmtflags flag;
    std::streamsize width;
  };
  const adjust adjusts[] = {{b::fmtflags{}, 0}, {b::right, 14}, {b::left, 14}, {b::internal, 14}, {b::internal, 60}};
  std::vector<settings> g;
  std::size_t i = 0;
  for (const auto f : fields) {
    for (const auto p : precisions) {
      for (const auto o : others) {
        if (every_width) {
          for (const auto a : adjusts) g.push_back({f | o | a.flag, p, a.width, (i++ % 7) == 3});
        } else {
          const adjust a = adjusts[g.size() % 5];
          g.push_back({f | o | a.flag, p, a.width, (i++ % 7) == 3});
        }
      }
    }
  }
  return g;
}

template <class V>
std::string print(std::ostringstream& os, V v, const settings& s) {
  os.str(std::string());
  os.clear();
  const std::locale& loc = s.grouping_locale ? grouping_locale() : std::locale::classic();
  if (os.getloc() != loc) os.imbue(loc);
  os.flags(s.flags);
  os.precision(s.precision);
  os.width(s.width);
  os.fill('_');
  os << v;
  if (os.width() != 0) return "<width not reset>";
  return os.str();
}

/// Compares operator<< of x with the standard library's text for the double d (the same value)
/// under s. Returns "" when they agree, else a description.
template <class T>
std::string compare(std::ostringstream& mine, std::ostringstream& theirs, T x, double d, const settings& s) {
  const std::string a = print(mine, x, s);
  const std::string b = print(theirs, d, s);
  if (a == b) return std::string();
  std::ostringstream m;
  m << "bits 0x" << std::hex << static_cast<std::uint64_t>(x.bits()) << std::dec << " flags 0x" << std::hex
    << static_cast<unsigned>(s.flags) << std::dec << " precision " << s.precision << " width " << s.width
    << (s.grouping_locale ? " grouping locale" : "") << ": \"" << a << "\" vs double \"" << b << "\"";
  return m.str();
}

}  // namespace iotest

#endif  // MIXPREC_TESTS_IO_ORACLE_HPP
