// mixprec — operator<< and operator>>; std::formatter / fmt::formatter where available.
// SPDX-License-Identifier: MIT
#include <mixprec/io.hpp>
#include <mixprec/mixprec.hpp>
#include <mixprec/std_format.hpp>  // declares nothing without <format>

// CI's libc++ job defines this, so that a standard library without <format> fails loudly
// instead of skipping the std::format test.
#if defined(MIXPREC_TEST_REQUIRE_STD_FORMAT) && !(defined(__cpp_lib_format) && __cpp_lib_format >= 201907L)
#error "MIXPREC_TEST_REQUIRE_STD_FORMAT: this standard library has no usable <format>"
#endif

#include <doctest/doctest.h>

#include "formats_list.hpp"
#include "io_oracle.hpp"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <locale>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#if defined(__has_include)
#if __has_include(<fmt/format.h>)
#define FMT_HEADER_ONLY
#include <fmt/xchar.h>
#include <mixprec/fmt.hpp>
#define MIXPREC_TEST_HAVE_FMT 1
#endif
#endif

namespace {

using mixprec::bfloat16;
using mixprec::half;

template <class T>
std::string out(T x, std::ios_base::fmtflags flags = {}, std::streamsize precision = 6, int width = 0,
                char fill = ' ') {
  std::ostringstream os;
  os.flags(flags);
  os.precision(precision);
  os.fill(fill);
  os.width(width);
  os << x;
  CHECK(os.width() == 0);
  return os.str();
}

template <class T>
bool same(T a, T b) {
  const auto ua = mixprec::detail::decode_bits<typename T::format_type>(a.bits());
  const auto ub = mixprec::detail::decode_bits<typename T::format_type>(b.bits());
  if (ua.cls == mixprec::detail::value_class::nan || ub.cls == mixprec::detail::value_class::nan) {
    return ua.cls == ub.cls && ua.sign == ub.sign;
  }
  return a.bits() == b.bits();
}

TEST_CASE("operator<< prints as the stream prints the double of the same value") {
  CHECK(out(mixprec::float8_e4m3fn(2.75f)) == "2.75");
  CHECK(out(bfloat16(3.140625f)) == "3.14062");  // std::cout << 3.140625
  CHECK(out(half(0.1f)) == "0.0999756");         // 0.0999755859375, 6 significant digits
  CHECK(out(half(0.1f), {}, 3) == "0.1");
  CHECK(out(half(0.1f), {}, 17) == "0.0999755859375");
  CHECK(out(half(0.1f), {}, 0) == "0.1");  // %.0g is %.1g
  CHECK(out(half(0.1f), {}, -1) == "0.0999756");
  CHECK(out(half(1.0f / 3.0f), std::ios_base::fixed, 2) == "0.33");
  CHECK(out(half(1.0f / 3.0f), std::ios_base::scientific, 3) == "3.333e-01");
  CHECK(out(half(3.0f)) == "3");
  CHECK(out(half(-0.0f)) == "-0");
  CHECK(out(half(65504.0f)) == "65504");
  CHECK(out(half(65504.0f), {}, 4) == "6.55e+04");
  CHECK(out(bfloat16(1e10f)) == "9.99922e+09");  // 9999220736
  CHECK(out(mixprec::tf32(0.1f)) == "0.0999756");
  CHECK(out(mixprec::tf32(0.1f), {}, std::numeric_limits<mixprec::tf32>::max_digits10) == "0.099976");
  CHECK(out(std::numeric_limits<half>::infinity()) == "inf");
  CHECK(out(-std::numeric_limits<half>::quiet_NaN()) == "-nan");
  CHECK(out(std::numeric_limits<half>::quiet_NaN()) == "nan");
  CHECK(out(mixprec::float8_e4m3fnuz::from_bits(0x80)) == "-nan");  // its one NaN has the sign bit
  CHECK(out(mixprec::float8_e8m0fnu::from_bits(0xFF)) == "nan");
  CHECK(out(mixprec::float8_e8m0fnu::from_bits(0)) == "5.87747e-39");
  CHECK(out(half(3.0f), std::ios_base::showpos) == "+3");
  CHECK(out(half(3.0f), std::ios_base::showpoint) == "3.00000");
  CHECK(out(half(3.0f), {}, 6, 5) == "    3");
  CHECK(out(half(-3.0f), std::ios_base::left, 6, 5, '*') == "-3***");
  CHECK(out(half(-3.0f), std::ios_base::internal, 6, 5, '*') == "-***3");
  CHECK(out(half(1e-7f), std::ios_base::uppercase) == "1.19209E-07");
  CHECK(out(half(-3.0f), std::ios_base::internal | std::ios_base::fixed | std::ios_base::scientific, 6, 12, '_') ==
        "-___0x1.8p+1");
  CHECK(out(half(3.0f), std::ios_base::internal | std::ios_base::fixed | std::ios_base::scientific, 6, 12, '_') ==
        "0x____1.8p+1");
  CHECK(out(half(3.0f), std::ios_base::hex | std::ios_base::oct) == "3");  // basefield: ignored
  CHECK(out(half(3.0f), std::ios_base::fixed | std::ios_base::scientific) == "0x1.8p+1");
  CHECK(out(half(-3.0f), std::ios_base::fixed | std::ios_base::scientific | std::ios_base::uppercase) ==
        "-0X1.8P+1");
  // hexfloat is double's %a: a half subnormal is a normal double
  CHECK(out(std::numeric_limits<half>::denorm_min(), std::ios_base::fixed | std::ios_base::scientific) == "0x1p-24");
  // std::setprecision(max_digits10) gives text that reads back.
  std::ostringstream os;
  os << std::setprecision(std::numeric_limits<half>::max_digits10) << half(0.1f);
  CHECK(os.str() == "0.099976");
}

TEST_CASE_TEMPLATE("operator<< of every value under a grid of stream settings is the double's text", T, half,
                   bfloat16, mixprec::tf32, mixprec::float8_e4m3fn, mixprec::float8_e5m2, mixprec::float8_e4m3fnuz,
                   mixprec::float8_e5m2fnuz, mixprec::float8_e8m0fnu, mixprec::float6_e2m3fn, mixprec::float6_e3m2fn,
                   mixprec::float4_e2m1fn, reftest::e3m4, reftest::e6m9fn) {
  // Every code, each under several settings (all of them for the formats of at most 8 bits,
  // 5 for 16 bits, 1 for tf32's 2^19 codes); tests/exhaustive/test_io_exhaustive.cpp runs
  // every setting on every half and bfloat16.
  const std::vector<iotest::settings> grid = iotest::grid();
  const ref::format& f = reftest::ref_of<T>();
  constexpr int pad = reftest::pad_of<T>();
  const std::uint64_t codes = std::uint64_t{1} << ref::total_bits(f);
  const std::size_t per_code = codes <= 256 ? grid.size() : codes <= 65536 ? 5 : 1;
  std::ostringstream mine;
  std::ostringstream theirs;
  long failures = 0;
  std::size_t k = 0;
  for (std::uint64_t c = 0; c < codes; ++c) {
    const T x = T::from_bits(static_cast<typename T::storage_type>(c << pad));
    const double d = ref::decode(f, c);
    for (std::size_t i = 0; i < per_code; ++i) {
      const std::string why = iotest::compare(mine, theirs, x, d, grid[k++ % grid.size()]);
      if (!why.empty() && ++failures <= 10) FAIL_CHECK(why);
    }
  }
  CHECK(failures == 0);
  CHECK(k >= grid.size());  // every setting was used
}

TEST_CASE("operator<< on formats whose values are not all doubles: mixprec's exact printf") {
  // 11 exponent bits without infinity: the largest binade is beyond double's range.
  using wide_fn = mixprec::basic_float<mixprec::format<11, 10, mixprec::encoding::fn>>;
  using wide_fnuz = mixprec::basic_float<mixprec::format<11, 52, mixprec::encoding::fnuz>>;  // 2^-1075
  static_assert(!mixprec::detail::values_fit_double<wide_fn::format_type>, "");
  static_assert(!mixprec::detail::values_fit_double<wide_fnuz::format_type>, "");
  static_assert(mixprec::detail::values_fit_double<mixprec::basic_float<mixprec::format<11, 52>>::format_type>, "");
  CHECK(out(wide_fn::from_bits(0xFFC00)) == "1");
  CHECK(out(wide_fn::from_bits(0x1FFFFE)) == "3.59188e+308");  // 1.998046875 * 2^1024
  CHECK(out(wide_fn::from_bits(0x1FFFFF)) == "nan");
  CHECK(out(wide_fn::from_bits(0x1FFFFE), std::ios_base::uppercase | std::ios_base::showpos, 3, 12, '*') ==
        "**+3.59E+308");
  CHECK(out(wide_fn::from_bits(0xFFC00), std::ios_base::fixed | std::ios_base::scientific) == "0x1p+0");
  CHECK(out(wide_fnuz::from_bits(1), std::ios_base::scientific, 3) == "2.470e-324");
  CHECK(out(wide_fnuz::from_bits(std::uint64_t{1} << 63)) == "-nan");
  // The same text as the long double of the same value, where long double holds them (x86, AArch64).
  if (std::numeric_limits<long double>::digits >= 53 && std::numeric_limits<long double>::max_exponent > 1025 &&
      std::numeric_limits<long double>::min_exponent < -1075) {
    const std::vector<iotest::settings> grid = iotest::grid();
    std::ostringstream mine;
    std::ostringstream theirs;
    long failures = 0;
    std::size_t k = 0;
    for (std::uint32_t c = 0; c < (1u << 22); c += 97) {
      const wide_fn x = wide_fn::from_bits(c);
      const std::uint32_t e = (c >> 10) & 0x7FFu;
      const std::uint32_t m = c & 0x3FFu;
      const bool neg = ((c >> 21) & 1u) != 0;
      if (e == 0x7FF && m == 0x3FF) continue;  // NaN
      long double v = e == 0 ? std::ldexp(static_cast<long double>(m), 1 - 1023 - 10)
                             : std::ldexp(static_cast<long double>(m + 1024u), static_cast<int>(e) - 1023 - 10);
      if (neg) v = -v;
      iotest::settings s = grid[k++ % grid.size()];
      if ((s.flags & std::ios_base::floatfield) == (std::ios_base::fixed | std::ios_base::scientific)) {
        continue;  // %La has long double's own hex layout
      }
      const std::string a = iotest::print(mine, x, s);
      const std::string b = iotest::print(theirs, v, s);
      if (s.grouping_locale) continue;  // no digit grouping on this path (documented)
      if (a != b && ++failures <= 10) FAIL_CHECK(c << ": " << a << " vs long double " << b);
    }
    CHECK(failures == 0);
  }
}

TEST_CASE("wide streams and the locale's decimal point") {
  std::wostringstream w;
  w << half(1.5f) << L' ' << std::scientific << std::setprecision(2) << half(-0.25f);
  CHECK(w.str() == L"1.5 -2.50e-01");

  struct comma : std::numpunct<char> {
    char do_decimal_point() const override { return ','; }
  };
  const std::locale loc(std::locale::classic(), new comma);
  std::ostringstream os;
  os.imbue(loc);
  os << half(1.5f) << ' ' << std::fixed << std::setprecision(2) << half(0.25f);
  CHECK(os.str() == "1,5 0,25");
  std::istringstream is("2,5");
  is.imbue(loc);
  half v(0.0f);
  is >> v;
  CHECK(!is.fail());
  CHECK(static_cast<float>(v) == 2.5f);
}

TEST_CASE("operator>> reads numbers in every spelling") {
  std::istringstream is("1.5 -2.25e1\t+7 0x1.8p1 -0X.8P-2 inf -INFINITY nan -nan(abc_1) .5 5. 1e-2");
  half a[12] = {};
  for (half& x : a) is >> x;
  CHECK(!is.fail());
  CHECK(is.eof());
  const float expect[] = {1.5f, -22.5f, 7.0f, 3.0f, -0.125f, INFINITY, -INFINITY};
  for (int i = 0; i < 7; ++i) CHECK(static_cast<float>(a[i]) == expect[i]);
  CHECK(std::isnan(static_cast<float>(a[7])));
  CHECK(!std::signbit(static_cast<float>(a[7])));
  CHECK(std::isnan(static_cast<float>(a[8])));
  CHECK(std::signbit(static_cast<float>(a[8])));
  CHECK(static_cast<float>(a[9]) == 0.5f);
  CHECK(static_cast<float>(a[10]) == 5.0f);
  CHECK(a[11].bits() == half(0.01f).bits());

  // Reading stops at the first character that cannot continue the number.
  std::istringstream s2("1.5abc 2,5");
  half x(0.0f);
  s2 >> x;
  CHECK(!s2.fail());
  CHECK(static_cast<float>(x) == 1.5f);
  CHECK(s2.get() == 'a');
  CHECK(!s2.eof());
  // Correct rounding of long text (the tie 1 + 2^-11 plus a little: rounds up).
  std::istringstream s3("1.00048828125000000000000000000000000001");
  s3 >> x;
  CHECK(x.bits() == 0x3C01u);
}

TEST_CASE("operator>> on malformed or out-of-range text sets failbit and leaves the value") {
  const char* const bad[] = {"abc", "-", "+", ".", "-.", "1e", "1e+", "0x", "0x.", "0xp1", "infin", "in", "na",
                             "nan(", "nan(a b)", "--1", "+-1", "e5", "", "  ", "1e99", "-1e99", "1e-99", "0x1p99"};
  for (const char* text : bad) {
    std::istringstream is(text);
    half x(42.0f);
    is >> x;
    CHECK_MESSAGE(is.fail(), text);
    CHECK_MESSAGE(static_cast<float>(x) == 42.0f, text);
  }
  // Formats without infinity or NaN.
  {
    std::istringstream is("inf");
    mixprec::float8_e4m3fn x(2.0f);
    is >> x;
    CHECK(is.fail());
    CHECK(static_cast<float>(x) == 2.0f);
  }
  {
    std::istringstream is("nan");
    mixprec::float4_e2m1fn x(2.0f);
    is >> x;
    CHECK(is.fail());
    CHECK(static_cast<float>(x) == 2.0f);
  }
  // eofbit: set at the end of input, not before.
  {
    std::istringstream is("2.5");
    half x(0.0f);
    is >> x;
    CHECK(!is.fail());
    CHECK(is.eof());
    is.clear();
    is >> x;  // nothing left
    CHECK(is.fail());
    CHECK(static_cast<float>(x) == 2.5f);
  }
  // noskipws: leading white space is not a number.
  {
    std::istringstream is(" 1");
    is >> std::noskipws;
    half x(3.0f);
    is >> x;
    CHECK(is.fail());
    CHECK(static_cast<float>(x) == 3.0f);
  }
  // A failed stream reads nothing.
  {
    std::istringstream is("1");
    is.setstate(std::ios_base::failbit);
    half x(3.0f);
    is >> x;
    CHECK(static_cast<float>(x) == 3.0f);
  }
}

struct boom {};  // what the stream buffers below throw

/// Reads text; underflow (and so uflow) throws once position throw_at is reached.
struct throwing_input : std::streambuf {
  std::string text;
  std::size_t pos = 0;
  std::size_t throw_at;
  throwing_input(std::string t, std::size_t at) : text(std::move(t)), throw_at(at) {}
  int_type underflow() override {
    if (pos >= throw_at) throw boom{};
    return pos < text.size() ? traits_type::to_int_type(text[pos]) : traits_type::eof();
  }
  int_type uflow() override {
    const int_type c = underflow();
    if (!traits_type::eq_int_type(c, traits_type::eof())) ++pos;
    return c;
  }
};

/// Accepts throw_at characters, then overflow throws.
struct throwing_output : std::streambuf {
  std::size_t n = 0;
  std::size_t throw_at;
  explicit throwing_output(std::size_t at) : throw_at(at) {}
  int_type overflow(int_type c) override {
    if (n >= throw_at) throw boom{};
    ++n;
    return traits_type::not_eof(c);
  }
};

/// What a formatted extraction did: the state, and which exception escaped (0 none, 1 boom,
/// 2 ios_base::failure).
struct outcome {
  std::ios_base::iostate state;
  int thrown;
  bool operator==(const outcome& o) const { return state == o.state && thrown == o.thrown; }
};

template <class V>
outcome read_with(const std::string& text, std::size_t throw_at, std::ios_base::iostate mask, V& v) {
  throwing_input buf(text, throw_at);
  std::istream is(&buf);
  is.exceptions(mask);
  int thrown = 0;
  try {
    is >> v;
  } catch (const boom&) {
    thrown = 1;
  } catch (const std::ios_base::failure&) {
    thrown = 2;
  }
  return {is.rdstate(), thrown};
}

TEST_CASE("operator>>: an exception from the stream buffer sets badbit, rethrown only if exceptions() has badbit") {
  using b = std::ios_base;
  const b::iostate masks[] = {b::goodbit, b::failbit, b::eofbit, b::badbit, b::badbit | b::failbit};
  const char* const texts[] = {"12.5e3 ", "  7", "-0.25"};  // (libstdc++'s double reads no "inf")
  for (const char* text : texts) {
    for (std::size_t at = 0; at <= std::string(text).size() + 1; ++at) {
      for (const auto mask : masks) {
        half x(42.0f);
        double d = 42.0;
        const outcome mine = read_with(text, at, mask, x);
        const outcome theirs = read_with(text, at, mask, d);  // the standard library's double
        INFO(std::string(text) << " throw at " << at << " mask " << mask);
        CHECK(mine.state == theirs.state);
        CHECK(mine.thrown == theirs.thrown);
        const std::size_t start = std::string(text).find_first_not_of(' ');
        if (at > start && at < std::string(text).size()) {  // thrown after the sentry, within the number
          CHECK(mine.state == b::badbit);
          CHECK(mine.thrown == ((mask & b::badbit) != 0 ? 1 : 0));
          CHECK(static_cast<float>(x) == 42.0f);  // unchanged
        }
      }
    }
  }
}

TEST_CASE("operator<<: an exception from the stream buffer sets badbit, rethrown only if exceptions() has badbit") {
  using wide_fn = mixprec::basic_float<mixprec::format<11, 10, mixprec::encoding::fn>>;  // mixprec's own path
  using b = std::ios_base;
  for (std::size_t at = 0; at < 3; ++at) {
    for (const auto mask : {b::goodbit, b::failbit, b::badbit}) {
      auto run = [&](auto v) {
        throwing_output buf(at);
        std::ostream os(&buf);
        os.exceptions(mask);
        int thrown = 0;
        try {
          os << v;
        } catch (const boom&) {
          thrown = 1;
        } catch (const std::ios_base::failure&) {
          thrown = 2;
        }
        return outcome{os.rdstate(), thrown};
      };
      INFO("throw at " << at << " mask " << mask);
      const outcome theirs = run(-1.5);
      CHECK((theirs.state & b::badbit) != 0);
      CHECK(run(half(-1.5f)) == theirs);
      CHECK(run(wide_fn::from_bits(0x2FF600)) == theirs);  // -1.5
    }
  }
}

TEST_CASE_TEMPLATE("every value survives operator<< then operator>>", T, half, bfloat16, mixprec::float8_e4m3fn,
                   mixprec::float8_e5m2fnuz, mixprec::float8_e8m0fnu, mixprec::float4_e2m1fn) {
  constexpr int nbits = T::format_type::storage_bits;
  std::stringstream ss;
  ss << std::setprecision(std::numeric_limits<T>::max_digits10);
  for (std::uint64_t c = 0; c < (std::uint64_t{1} << nbits); ++c) {
    ss << T::from_bits(static_cast<typename T::storage_type>(c)) << '\n';
  }
  long failures = 0;
  for (std::uint64_t c = 0; c < (std::uint64_t{1} << nbits); ++c) {
    const T x = T::from_bits(static_cast<typename T::storage_type>(c));
    T y = T::from_bits(0);
    ss >> y;
    if ((ss.fail() || !same(x, y)) && ++failures <= 10) FAIL_CHECK("code " << c);
  }
  CHECK(failures == 0);
}

// The expected texts are printf's %g (6 digits) of the exact values, worked by hand:
// half: resolution = 10^-3 rounded to half = 1049 * 2^-20 = 0.00100040435791015625, max =
// 65504, eps = 2^-10 = 0.0009765625 (a tie at 6 digits, to even: 0.000976562), tiny = 2^-14 =
// 6.103515625e-05. float: resolution = float(1e-6) = 9.99999997e-07, max = 3.4028234664e+38,
// eps = 2^-23 = 1.1920928955e-07, tiny = 2^-126 = 1.1754943508e-38. bfloat16: resolution =
// 10^-2 rounded = 164 * 2^-14 = 0.010009765625, max = 255 * 2^120 = 3.3895313893e+38, eps =
// 2^-7. float8_e4m3fn: resolution = 10^-1 rounded = 13 * 2^-7 = 0.1015625 (a tie: 0.101562),
// max = 448, eps = 2^-3, tiny = 2^-6.
const char* const finfo_half_text =
    "finfo(resolution=0.0010004, min=-65504, max=65504, eps=0.000976562, smallest_normal=6.10352e-05, "
    "tiny=6.10352e-05, dtype=float16)";
const char* const finfo_float_text =
    "finfo(resolution=1e-06, min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, smallest_normal=1.17549e-38, "
    "tiny=1.17549e-38, dtype=float32)";
const char* const finfo_bfloat16_text =
    "finfo(resolution=0.0100098, min=-3.38953e+38, max=3.38953e+38, eps=0.0078125, smallest_normal=1.17549e-38, "
    "tiny=1.17549e-38, dtype=bfloat16)";
const char* const finfo_e4m3_text =
    "finfo(resolution=0.101562, min=-448, max=448, eps=0.125, smallest_normal=0.015625, tiny=0.015625, "
    "dtype=float8_e4m3fn)";
// half under precision 3 (%.3g) and under %.2e.
const char* const finfo_half_3g =
    "finfo(resolution=0.001, min=-6.55e+04, max=6.55e+04, eps=0.000977, smallest_normal=6.1e-05, tiny=6.1e-05, "
    "dtype=float16)";
const char* const finfo_half_2e =
    "finfo(resolution=1.00e-03, min=-6.55e+04, max=6.55e+04, eps=9.77e-04, smallest_normal=6.10e-05, "
    "tiny=6.10e-05, dtype=float16)";

TEST_CASE("dtype prints its name as a string; finfo prints torch.finfo's repr") {
  using mixprec::dtype;
  CHECK(out(dtype::float16()) == "float16");
  CHECK(out(dtype::bfloat16()) == "bfloat16");
  CHECK(out(mixprec::dtype_v<mixprec::float8_e4m3fn>) == "float8_e4m3fn");
  CHECK(out(dtype::of<std::int32_t>()) == "int32");
  CHECK(out(dtype()) == "undefined");
  CHECK(out(dtype::bfloat16(), {}, 6, 10) == "  bfloat16");  // width and fill apply, as to a string
  CHECK(out(dtype::bfloat16(), std::ios_base::left, 6, 10, '*') == "bfloat16**");
  std::wostringstream ws;
  ws << dtype::float64() << L'|' << mixprec::finfo<mixprec::float8_e4m3fn>();
  CHECK(ws.str() == L"float64|finfo(resolution=0.101562, min=-448, max=448, eps=0.125, smallest_normal=0.015625, "
                    L"tiny=0.015625, dtype=float8_e4m3fn)");

  CHECK(out(mixprec::finfo<half>()) == finfo_half_text);
  CHECK(out(mixprec::finfo<float>()) == finfo_float_text);
  CHECK(out(mixprec::finfo<bfloat16>()) == finfo_bfloat16_text);
  CHECK(out(mixprec::finfo<mixprec::float8_e4m3fn>()) == finfo_e4m3_text);
  CHECK(out(mixprec::finfo<half>(), {}, 3) == finfo_half_3g);  // the stream's precision applies to each value
  CHECK(out(mixprec::finfo<half>(), std::ios_base::scientific, 2) == finfo_half_2e);
  CHECK(out(mixprec::finfo<half>(), {}, 6, 200) == finfo_half_text);  // width: reset, not applied
}

#if (defined(__cpp_lib_format) && __cpp_lib_format >= 201907L) || defined(MIXPREC_TEST_HAVE_FMT)
/// For every value of T: format(x) ("{}") is the shortest round-trip text, the same as
/// mixprec::to_chars(first, last, x) (test_charconv checks that text is the shortest) and reads
/// back as x. Returns the number of failures.
template <class T, class Format>
long braces_are_shortest(Format format) {
  const std::uint64_t codes = std::uint64_t{1} << T::format_type::bits;
  long failures = 0;
  for (std::uint64_t c = 0; c < codes; ++c) {
    const T x = T::from_bits(static_cast<typename T::storage_type>(c << T::format_type::padding_bits));
    char buf[64];
    const auto r = mixprec::to_chars(buf, buf + sizeof buf, x);
    const std::string expected(buf, r.ptr);
    const std::string text = format(x);
    T back = T::from_bits(0);
    const char* first = text.data();
    const auto p = mixprec::from_chars(first, first + text.size(), back);
    const bool ok = text == expected && p.ec == std::errc{} && p.ptr == first + text.size() && same(x, back);
    if (!ok && ++failures <= 10) FAIL_CHECK("code " << c << ": \"" << text << "\", to_chars \"" << expected << "\"");
  }
  return failures;
}

#endif

#if defined(__cpp_lib_format) && __cpp_lib_format >= 201907L
TEST_CASE("std::format") {
  CHECK(std::format("{}", half(0.1f)) == "0.1");
  // "{}" is the shortest round-trip text (as for float), not operator<<'s 6 digits
  CHECK(std::format("{}", bfloat16(3.140625f)) == "3.14");
  CHECK(std::format("{}", mixprec::float8_e4m3fn(2.75f)) == "2.8");
  CHECK(std::format("{}", 3.140625f) == "3.140625");
  CHECK(std::format("{:.5f}", bfloat16(3.140625f)) == "3.14062");
  auto f = [](auto x) { return std::format("{}", x); };
  CHECK(braces_are_shortest<half>(f) == 0);
  CHECK(braces_are_shortest<bfloat16>(f) == 0);
  CHECK(braces_are_shortest<mixprec::float8_e4m3fn>(f) == 0);
  CHECK(braces_are_shortest<mixprec::float8_e5m2fnuz>(f) == 0);
  CHECK(braces_are_shortest<mixprec::float8_e8m0fnu>(f) == 0);
  CHECK(braces_are_shortest<mixprec::float4_e2m1fn>(f) == 0);
  CHECK(std::format("{:.3f}", half(0.1f)) == "0.100");
  CHECK(std::format("{:>8}", half(-1.5f)) == "    -1.5");
  CHECK(std::format("{:*^9.2e}", half(1.5f)) == "1.50e+00*");
  CHECK(std::format("{:+#a}", half(3.0f)) == "+1.8p+1");
  CHECK(std::format("{:08.3}", half(-3.0f)) == "-0000003");
  CHECK(std::format("{:{}.{}f}", half(2.5f), 7, 2) == "   2.50");
  CHECK(std::format(L"{}", half(0.5f)) == L"0.5");
}

TEST_CASE("std::format of dtype and finfo") {
  using mixprec::dtype;
  CHECK(std::format("{}", dtype::bfloat16()) == "bfloat16");
  CHECK(std::format("{:>10}|{:*<10}|{:.5}", dtype::bfloat16(), dtype::float16(), dtype::bfloat16()) ==
        "  bfloat16|float16***|bfloa");
  CHECK(std::format("{}", dtype()) == "undefined");
  CHECK(std::format(L"{:^9}", dtype::float32()) == L" float32 ");
  // "{}" is operator<<'s text (not the shortest round trip: half's max would be 65500)
  CHECK(std::format("{}", mixprec::finfo<half>()) == finfo_half_text);
  CHECK(std::format("{}", mixprec::finfo<float>()) == finfo_float_text);
  CHECK(std::format("{}", mixprec::finfo<bfloat16>()) == finfo_bfloat16_text);
  CHECK(std::format("{}", mixprec::finfo<mixprec::float8_e4m3fn>()) == finfo_e4m3_text);
  CHECK(std::format("{:.3}", mixprec::finfo<half>()) == finfo_half_3g);
  CHECK(std::format("{:.{}e}", mixprec::finfo<half>(), 2) == finfo_half_2e);
  CHECK(std::format("{:+.0f}", mixprec::finfo<mixprec::float8_e4m3fn>()) ==
        "finfo(resolution=+0, min=-448, max=+448, eps=+0, smallest_normal=+0, tiny=+0, dtype=float8_e4m3fn)");
  CHECK(std::format(L"{:.1}", mixprec::finfo<mixprec::float8_e4m3fn>()) ==
        L"finfo(resolution=0.1, min=-4e+02, max=4e+02, eps=0.1, smallest_normal=0.02, tiny=0.02, dtype=float8_e4m3fn)");
  const mixprec::finfo<half> fi;
  CHECK_THROWS_AS((void)std::vformat("{:d}", std::make_format_args(fi)), std::format_error);
}
#endif

#ifdef MIXPREC_TEST_HAVE_FMT
TEST_CASE("fmt::format") {
  CHECK(fmt::format("{}", half(0.1f)) == "0.1");
  // "{}" is the shortest round-trip text (as for float), not operator<<'s 6 digits
  CHECK(fmt::format("{}", bfloat16(3.140625f)) == "3.14");
  CHECK(fmt::format("{}", mixprec::float8_e4m3fn(2.75f)) == "2.8");
  CHECK(fmt::format("{}", 3.140625f) == "3.140625");
  auto f = [](auto x) { return fmt::format("{}", x); };
  CHECK(braces_are_shortest<half>(f) == 0);
  CHECK(braces_are_shortest<bfloat16>(f) == 0);
  CHECK(braces_are_shortest<mixprec::float8_e4m3fn>(f) == 0);
  CHECK(braces_are_shortest<mixprec::float8_e5m2fnuz>(f) == 0);
  CHECK(braces_are_shortest<mixprec::float8_e8m0fnu>(f) == 0);
  CHECK(braces_are_shortest<mixprec::float4_e2m1fn>(f) == 0);
  CHECK(fmt::format("{}", bfloat16(1e10f)) == "1e+10");
  CHECK(fmt::format("{:.3f}", half(0.1f)) == "0.100");
  CHECK(fmt::format("{:.3}", half(0.1f)) == "0.1");
  CHECK(fmt::format("{:#.3}", half(0.1f)) == "0.100");
  CHECK(fmt::format("{:>8}", half(-1.5f)) == "    -1.5");
  CHECK(fmt::format("{:<8}|", half(-1.5f)) == "-1.5    |");
  CHECK(fmt::format("{:*^9.2e}", half(1.5f)) == "1.50e+00*");  // floor(pad / 2) before
  CHECK(fmt::format("{:*^10.2e}", half(1.5f)) == "*1.50e+00*");
  CHECK(fmt::format("{:+#a}", half(3.0f)) == "+0x1.8p+1");  // {fmt} prints 0x for 'a'
  CHECK(fmt::format("{:A}", half(-3.0f)) == "-0X1.8P+1");
  CHECK(fmt::format("{:010a}", half(-3.0f)) == "-00x1.8p+1");  // as {fmt} 9 pads a double
  CHECK(fmt::format("{: }", half(3.0f)) == " 3");
  CHECK(fmt::format("{:08.3}", half(-3.0f)) == "-0000003");
  CHECK(fmt::format("{:08}", -std::numeric_limits<half>::infinity()) == "    -inf");
  CHECK(fmt::format("{:6}", std::numeric_limits<half>::quiet_NaN()) == "   nan");
  CHECK(fmt::format("{:{}.{}f}", half(2.5f), 7, 2) == "   2.50");
  CHECK(fmt::format("{0:{1}.{2}f}", half(2.5f), 7, 2) == "   2.50");
  CHECK(fmt::format("{:G}", std::numeric_limits<half>::quiet_NaN()) == "NAN");
  CHECK(fmt::format("{:\u00e9>4}", half(1.0f)) == "\u00e9\u00e9\u00e91");
  CHECK(fmt::format(L"{}", half(0.5f)) == L"0.5");
  // The same spec gives the same text as for the double holding the same real, where the text
  // depends only on the real (a type, or a precision).
  std::mt19937 rng(3);
  // ("{:#.4g}" is left out: {fmt} 9 prints 1093.0 for the double 1093, mixprec prints C's 1093.)
  const char* const specs[] = {"{:.0f}", "{:.3e}", "{:+.5g}", "{:#.6g}", "{:12.2f}", "{:<10.1e}", "{:^11.3}",
                               "{:010.4f}", "{:.3a}", "{:#.0f}", "{:#.0e}", "{:E}", "{:F}", "{:+012a}", "{:a}"};
  long failures = 0;
  for (std::uint32_t code = 0; code < 65536; code += 7) {
    const half x = half::from_bits(static_cast<std::uint16_t>(code));
    const auto u = mixprec::detail::decode_bits<half::format_type>(x.bits());
    const char* spec = specs[rng() % (sizeof specs / sizeof specs[0])];
    if (u.cls == mixprec::detail::value_class::nan || u.cls == mixprec::detail::value_class::infinite) {
      continue;  // {fmt} 9 left-aligns a padded double inf or nan; mixprec right-aligns as std::format
    }
    if (std::string(spec).find('a') != std::string::npos && u.cls == mixprec::detail::value_class::finite &&
        u.exp < half::format_type::emin) {
      continue;  // hex layout of subnormals differs between the types
    }
    const std::string mine = fmt::format(fmt::runtime(spec), x);
    const std::string theirs = fmt::format(fmt::runtime(spec), static_cast<double>(x));
    if (mine != theirs && ++failures <= 10) FAIL_CHECK(spec << ": " << mine << " vs double " << theirs);
  }
  CHECK(failures == 0);
  CHECK_THROWS_AS((void)fmt::format(fmt::runtime("{:d}"), half(1.0f)), fmt::format_error);
  CHECK_THROWS_AS((void)fmt::format(fmt::runtime("{:.}"), half(1.0f)), fmt::format_error);
  CHECK_THROWS_AS((void)fmt::format(fmt::runtime("{:{}}"), half(1.0f), 1.5), fmt::format_error);
}

TEST_CASE("fmt::format of dtype and finfo") {
  using mixprec::dtype;
  CHECK(fmt::format("{}", dtype::bfloat16()) == "bfloat16");
  CHECK(fmt::format("{:>10}|{:*<10}|{:.5}", dtype::bfloat16(), dtype::float16(), dtype::bfloat16()) ==
        "  bfloat16|float16***|bfloa");
  CHECK(fmt::format("{}", dtype()) == "undefined");
  CHECK(fmt::format(L"{:^9}", dtype::float32()) == L" float32 ");
  CHECK(fmt::format("{}", mixprec::finfo<half>()) == finfo_half_text);
  CHECK(fmt::format("{}", mixprec::finfo<float>()) == finfo_float_text);
  CHECK(fmt::format("{}", mixprec::finfo<bfloat16>()) == finfo_bfloat16_text);
  CHECK(fmt::format("{}", mixprec::finfo<mixprec::float8_e4m3fn>()) == finfo_e4m3_text);
  CHECK(fmt::format("{:.3}", mixprec::finfo<half>()) == finfo_half_3g);
  CHECK(fmt::format("{:.{}e}", mixprec::finfo<half>(), 2) == finfo_half_2e);
  CHECK(fmt::format("{:+.0f}", mixprec::finfo<mixprec::float8_e4m3fn>()) ==
        "finfo(resolution=+0, min=-448, max=+448, eps=+0, smallest_normal=+0, tiny=+0, dtype=float8_e4m3fn)");
  CHECK(fmt::format(L"{:.1}", mixprec::finfo<mixprec::float8_e4m3fn>()) ==
        L"finfo(resolution=0.1, min=-4e+02, max=4e+02, eps=0.1, smallest_normal=0.02, tiny=0.02, dtype=float8_e4m3fn)");
  CHECK_THROWS_AS((void)fmt::format(fmt::runtime("{:d}"), mixprec::finfo<half>()), fmt::format_error);
}
#endif

}  // namespace

TEST_CASE("rounding and overflow values print their names") {
  using mixprec::overflow;
  using mixprec::rounding;
  const std::pair<rounding, const char*> modes[] = {
      {rounding::nearest_even, "nearest_even"}, {rounding::nearest_away, "nearest_away"},
      {rounding::toward_zero, "toward_zero"},   {rounding::upward, "upward"},
      {rounding::downward, "downward"},         {rounding::to_odd, "to_odd"},
      {rounding::stochastic, "stochastic"}};
  for (const auto& m : modes) {
    CHECK(std::string(mixprec::to_string(m.first)) == m.second);
    std::ostringstream os;
    os << m.first;
    CHECK(os.str() == m.second);
  }
  static_assert(mixprec::to_string(rounding::upward)[0] == 'u', "to_string is constexpr");
  CHECK(std::string(mixprec::to_string(overflow::ieee)) == "ieee");
  CHECK(std::string(mixprec::to_string(overflow::saturate)) == "saturate");
  std::wostringstream ws;
  ws << overflow::saturate << L' ' << rounding::to_odd;
  CHECK(ws.str() == L"saturate to_odd");
  CHECK(std::string(mixprec::to_string(static_cast<rounding>(7))) == "invalid");
  CHECK(std::string(mixprec::to_string(static_cast<overflow>(2))) == "invalid");
}
