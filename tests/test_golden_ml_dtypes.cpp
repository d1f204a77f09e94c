// mixprec — bit-for-bit cross-check against ml_dtypes, the reference Python implementation.
// SPDX-License-Identifier: MIT
//
// The golden vectors in tests/golden/*.golden are written by tests/golden/gen.py (layout and
// regeneration: tests/golden/README.md). Per format they hold
//   decode          every bit pattern -> float32 bits (ml_dtypes' astype(float32))
//   from_f32*       float32 inputs -> bits, round to nearest even (ml_dtypes' astype)
//   from_f64*       float64 inputs -> bits, rounded exactly once (computed by gen.py with
//                   fractions.Fraction; ml_dtypes itself double-rounds through float32)
// and mixprec must reproduce every one of them, except where it deliberately differs:
//   * NaN results are compared as "a NaN of the format with the same sign bit": the payload
//     policies differ (mixprec keeps the sign and the leading payload bits and sets the quiet
//     bit, like x86 F16C, so it quiets signaling NaNs when decoding float16; ml_dtypes returns
//     the canonical quiet NaN for bfloat16 and the float8 formats; numpy's float16 keeps
//     signaling NaNs signaling). Exception: decoding bfloat16 is compared bit for bit, NaNs
//     included, since both widen it to float32 by bit extension (signaling NaNs stay signaling).
//   * float6/float4 (no NaN) from a NaN input: mixprec gives +max like CUDA, ml_dtypes a zero
//     of the opposite sign (a leftover of its bit manipulation, not a policy): these inputs
//     are skipped and counted.
// float8_ue4m3, float8_ue5m3 and float4_e1m2 are not in ml_dtypes: their files hold the exact
// results only, computed by gen.py from the field definitions (EXACT_FORMATS there).
// A missing, truncated or corrupt golden file fails the test.
// Set MIXPREC_GOLDEN_VERBOSE=1 to print the number of vectors checked per format.
#include <mixprec/mixprec.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#ifndef MIXPREC_TEST_DATA_DIR
#error "MIXPREC_TEST_DATA_DIR must name the tests/golden directory (a string literal)"
#endif

namespace {

// --- reading the golden files -------------------------------------------------------------------

std::uint32_t crc32(const unsigned char* p, std::size_t n) {
  std::uint32_t c = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return ~c;
}

std::uint64_t read_le(const unsigned char* p, unsigned width) {
  std::uint64_t v = 0;
  for (unsigned i = 0; i < width; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return v;
}

struct section {
  unsigned in = 0;             // bytes per inline input (0: none inline)
  unsigned out = 0;            // bytes per output
  std::size_t count = 0;       // number of vectors
  std::string inputs;          // inline, index, random_f32 or random_f64
  std::size_t inputs_at = 0;   // offset of the inline inputs in golden_file::bytes
  std::size_t outputs_at = 0;  // offset of the outputs
};

struct golden_file {
  std::string path;
  std::string error;  // non-empty: the file cannot be used
  std::vector<unsigned char> bytes;
  std::map<std::string, section> sections;

  std::uint64_t output(const section& s, std::size_t i) const {
    return read_le(&bytes[s.outputs_at + i * s.out], s.out);
  }
};

const char* const regenerate_hint = " (regenerate with: python3 tests/golden/gen.py; see tests/golden/README.md)";

bool parse_line(const std::vector<unsigned char>& bytes, std::size_t& pos, std::string& line) {
  line.clear();
  while (pos < bytes.size() && bytes[pos] != '\n') line += static_cast<char>(bytes[pos++]);
  if (pos >= bytes.size()) return false;
  ++pos;
  return true;
}

// Parses the bytes of a golden file whose first line must be "mixprec-golden 1 <title>".
void parse_golden(golden_file& g, const std::string& title) {
  std::size_t pos = 0;
  std::string line;
  const std::string want = "mixprec-golden 1 " + title;
  if (!parse_line(g.bytes, pos, line) || line != want) {
    g.error = g.path + ": first line is not \"" + want + "\"" + regenerate_hint;
    return;
  }
  for (;;) {
    if (!parse_line(g.bytes, pos, line)) {
      g.error = g.path + ": truncated (no \"end\" line)" + regenerate_hint;
      return;
    }
    if (line == "end") break;
    std::istringstream ls(line);
    std::string word, name_;
    ls >> word >> name_;
    section s;
    std::string crc_text;
    bool ok = word == "section" && !name_.empty();
    int fields = 0;
    while (ok && ls >> word) {
      const std::size_t eq = word.find('=');
      if (eq == std::string::npos) {
        ok = false;
        break;
      }
      const std::string key = word.substr(0, eq), value = word.substr(eq + 1);
      if (key == "in") {
        s.in = static_cast<unsigned>(std::strtoul(value.c_str(), nullptr, 10));
      } else if (key == "out") {
        s.out = static_cast<unsigned>(std::strtoul(value.c_str(), nullptr, 10));
      } else if (key == "count") {
        s.count = static_cast<std::size_t>(std::strtoull(value.c_str(), nullptr, 10));
      } else if (key == "inputs") {
        s.inputs = value;
      } else if (key == "crc32") {
        crc_text = value;
      } else {
        continue;
      }
      ++fields;
    }
    if (!ok || fields != 5 || s.in > 8 || s.out > 8) {
      g.error = g.path + ": malformed section line \"" + line + "\"" + regenerate_hint;
      return;
    }
    const std::size_t size = s.count * (s.in + s.out);
    if (g.bytes.size() - pos < size) {
      g.error = g.path + ": truncated in section " + name_ + regenerate_hint;
      return;
    }
    char crc_hex[16];
    std::snprintf(crc_hex, sizeof crc_hex, "%08x", static_cast<unsigned>(crc32(&g.bytes[pos], size)));
    if (crc_text != crc_hex) {
      g.error = g.path + ": section " + name_ + " fails its CRC-32 check (corrupt)" + regenerate_hint;
      return;
    }
    s.inputs_at = pos;
    s.outputs_at = pos + s.count * s.in;
    pos += size;
    g.sections[name_] = s;
  }
  if (pos != g.bytes.size()) g.error = g.path + ": data after the \"end\" line" + regenerate_hint;
}

golden_file load_golden(const std::string& name, const std::string& title) {
  golden_file g;
  g.path = std::string(MIXPREC_TEST_DATA_DIR) + "/" + name + ".golden";
  std::ifstream f(g.path, std::ios::binary);
  if (!f) {
    g.error = "golden file " + g.path + " is missing or unreadable" + regenerate_hint;
    return g;
  }
  g.bytes.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  parse_golden(g, title);
  return g;
}

// The shared random inputs (random.golden), read once.
const golden_file& random_inputs() {
  static const golden_file g = [] {
    golden_file r = load_golden("random", "format=random");
    if (r.error.empty()) {
      const auto f32 = r.sections.find("random_f32"), f64 = r.sections.find("random_f64");
      if (f32 == r.sections.end() || f64 == r.sections.end() || f32->second.in != 4 || f64->second.in != 8 ||
          f32->second.inputs != "inline" || f64->second.inputs != "inline") {
        r.error = r.path + ": sections random_f32 (4-byte inputs) and random_f64 (8-byte inputs) expected";
      }
    }
    return r;
  }();
  return g;
}

// --- comparing ----------------------------------------------------------------------------------

float float_from_bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}
double double_from_bits(std::uint64_t b) {
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}
std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}
bool is_nan32(std::uint32_t b) { return (b & 0x7FFFFFFFu) > 0x7F800000u; }
bool is_nan64(std::uint64_t b) { return (b & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull; }

std::string hex(std::uint64_t v, int digits) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%0*llx", digits, static_cast<unsigned long long>(v));
  return buf;
}

// Collects the first few mismatches of a section for the failure message.
struct tally {
  std::size_t checked = 0, skipped = 0, mismatches = 0, nan_payload_differs = 0;
  std::string report;
  void mismatch(const std::string& what) {
    if (++mismatches <= 12) report += "\n  " + what;
  }
};

template <class T>
struct golden_checker {
  using F = typename T::format_type;
  using storage = typename T::storage_type;
  static constexpr int code_digits = F::bits > 8 ? 4 : 2;
  static constexpr std::uint64_t sign_bit = F::is_signed ? (std::uint64_t{1} << (F::bits - 1)) : 0;

  const char* name;
  const golden_file& g;
  std::vector<std::uint32_t> decoded;  // ml_dtypes' float32 bits of every code

  // Whether a code is a NaN, by ml_dtypes' own decoding.
  bool is_nan_code(std::uint64_t code) const { return code < decoded.size() && is_nan32(decoded[code]); }

  // The one NaN of an fnuz format (0x80) has no sign; mixprec decodes it as +NaN, ml_dtypes as
  // -NaN. Everywhere else a NaN's sign must survive.

  const section* find(const std::string& sec, unsigned in, std::size_t min_count, std::string& error) const {
    const auto it = g.sections.find(sec);
    if (it == g.sections.end()) {
      error = g.path + ": section " + sec + " is missing" + regenerate_hint;
      return nullptr;
    }
    const section& s = it->second;
    const unsigned out = sec == "decode" ? 4u : static_cast<unsigned>(sizeof(storage));
    if (s.out != out || s.count < min_count || (s.inputs == "inline" && s.in != in)) {
      error = g.path + ": section " + sec + " has out=" + std::to_string(s.out) + " count=" + std::to_string(s.count) +
              " (expected out=" + std::to_string(out) + " and at least " + std::to_string(min_count) + " vectors)" +
              regenerate_hint;
      return nullptr;
    }
    return &s;
  }

  // Input i of section s, as bits of width in (4: float, 8: double).
  bool input(const section& s, std::size_t i, unsigned in, std::uint64_t& x, std::string& error) const {
    if (s.inputs == "inline") {
      x = read_le(&g.bytes[s.inputs_at + i * in], in);
      return true;
    }
    const std::string want = in == 4 ? "random_f32" : "random_f64";
    const golden_file& r = random_inputs();
    if (s.inputs != want || !r.error.empty()) {
      error = r.error.empty() ? g.path + ": unexpected inputs=" + s.inputs : r.error;
      return false;
    }
    const section& rs = r.sections.at(want);
    if (rs.count != s.count) {
      error = g.path + ": " + want + " count differs from random.golden" + regenerate_hint;
      return false;
    }
    x = read_le(&r.bytes[rs.inputs_at + i * in], in);
    return true;
  }

  tally check_decode(const section& s) const {
    tally t;
    for (std::size_t i = 0; i < s.count; ++i) {
      const auto want = static_cast<std::uint32_t>(g.output(s, i));
      const std::uint32_t got = bits_of(static_cast<float>(T::from_bits(static_cast<storage>(i))));
      ++t.checked;
      if (mixprec::detail::float32_layout<typename T::format_type>) {
        // bfloat16 widens by bit extension in both, signalling NaNs included: every bit counts.
        if (got == want) continue;
      } else if (is_nan32(want)) {
        // Payload policies differ: a NaN with the same sign is enough.
        if (is_nan32(got) && (got >> 31) == (want >> 31)) {
          if (got != want) ++t.nan_payload_differs;
          continue;
        }
      } else if (got == want) {
        continue;
      }
      t.mismatch(std::string(name) + " decode " + hex(i, code_digits) + ": expected float32 " + hex(want, 8) +
                 ", got " + hex(got, 8));
    }
    return t;
  }

  // Checks one section of from_f32* (in = 4) or from_f64* (in = 8).
  tally check_encode(const std::string& sec, const section& s, unsigned in, std::string& error) const {
    tally t;
    for (std::size_t i = 0; i < s.count; ++i) {
      std::uint64_t x = 0;
      if (!input(s, i, in, x, error)) return t;
      const bool input_nan = in == 4 ? is_nan32(static_cast<std::uint32_t>(x)) : is_nan64(x);
      if (input_nan && !F::has_nan) {
        // MX element types have no NaN: mixprec gives +max (like CUDA), ml_dtypes a meaningless
        // value. Deliberately not compared.
        ++t.skipped;
        continue;
      }
      const std::uint64_t want = g.output(s, i);
      const T value = in == 4 ? T(float_from_bits(static_cast<std::uint32_t>(x))) : T(double_from_bits(x));
      const std::uint64_t got = value.bits();
      ++t.checked;
      if (is_nan_code(want)) {
        // Payload policies differ: a NaN of the format with the same sign bit is enough.
        if (is_nan_code(got) && (got & sign_bit) == (want & sign_bit)) {
          if (got != want) ++t.nan_payload_differs;
          continue;
        }
      } else if (got == want) {
        continue;
      }
      t.mismatch(std::string(name) + " " + sec + "[" + std::to_string(i) + "]: input " + hex(x, in == 4 ? 8 : 16) +
                 " (" +
                 std::to_string(in == 4 ? static_cast<double>(float_from_bits(static_cast<std::uint32_t>(x)))
                                        : double_from_bits(x)) +
                 ") expected " + hex(want, code_digits) + ", got " + hex(got, code_digits));
    }
    return t;
  }
};

struct expected_section {
  const char* name;
  unsigned in;  // input width: 0 decode, 4 float, 8 double
  std::size_t min_count;
};

template <class T>
void check_against_ml_dtypes(const char* name) {
  using F = typename T::format_type;
  static_assert(F::bits <= 16, "golden vectors exist for formats of at most 16 bits");
  const golden_file g = load_golden(name, std::string("format=") + name + " bits=" + std::to_string(F::bits));
  if (!g.error.empty()) FAIL(g.error);

  golden_checker<T> c{name, g, {}};
  std::string error;
  const std::size_t patterns = std::size_t{1} << F::bits;
  const section* dec = c.find("decode", 0, patterns, error);
  if (dec == nullptr) FAIL(error);
  if (dec->count != patterns || dec->inputs != "index") {
    FAIL(g.path << ": decode must cover all " << patterns << " bit patterns" << regenerate_hint);
  }
  for (std::size_t i = 0; i < patterns; ++i) c.decoded.push_back(static_cast<std::uint32_t>(g.output(*dec, i)));

  std::string summary = std::string(name) + ":";
  {
    const tally t = c.check_decode(*dec);
    summary += " decode " + std::to_string(t.checked);
    if (t.nan_payload_differs != 0) summary += " (NaN payload differs: " + std::to_string(t.nan_payload_differs) + ")";
    CHECK_MESSAGE(t.mismatches == 0, t.mismatches << " mismatches in " << std::string(name) << " decode:" << t.report);
  }
  const expected_section sections[] = {
      {"from_f32", 4, 100}, {"from_f32_range", 4, 10000}, {"from_f32_bits", 4, 10000},
      {"from_f64", 8, 100}, {"from_f64_range", 8, 1000},  {"from_f64_bits", 8, 1000},
  };
  for (const expected_section& e : sections) {
    const section* s = c.find(e.name, e.in, e.min_count, error);
    if (s == nullptr) FAIL(error);
    const tally t = c.check_encode(e.name, *s, e.in, error);
    if (!error.empty()) FAIL(error);
    summary += std::string(", ") + e.name + " " + std::to_string(t.checked);
    if (t.skipped != 0) summary += " (NaN inputs skipped: " + std::to_string(t.skipped) + ")";
    if (t.nan_payload_differs != 0) summary += " (NaN payload differs: " + std::to_string(t.nan_payload_differs) + ")";
    CHECK_MESSAGE(t.mismatches == 0, t.mismatches << " mismatches in " << std::string(name) << " "
                                                  << std::string(e.name) << ":" << t.report);
  }
  const char* verbose = std::getenv("MIXPREC_GOLDEN_VERBOSE");
  if (verbose != nullptr && *verbose != '\0' && *verbose != '0') MESSAGE(summary);
}

}  // namespace

TEST_CASE("ml_dtypes golden: bfloat16") { check_against_ml_dtypes<mixprec::bfloat16>("bfloat16"); }
TEST_CASE("ml_dtypes golden: float16 (numpy)") { check_against_ml_dtypes<mixprec::half>("float16"); }
TEST_CASE("ml_dtypes golden: float8_e4m3fn") { check_against_ml_dtypes<mixprec::float8_e4m3fn>("float8_e4m3fn"); }
TEST_CASE("ml_dtypes golden: float8_e5m2") { check_against_ml_dtypes<mixprec::float8_e5m2>("float8_e5m2"); }
TEST_CASE("ml_dtypes golden: float8_e4m3fnuz") { check_against_ml_dtypes<mixprec::float8_e4m3fnuz>("float8_e4m3fnuz"); }
TEST_CASE("ml_dtypes golden: float8_e5m2fnuz") { check_against_ml_dtypes<mixprec::float8_e5m2fnuz>("float8_e5m2fnuz"); }
TEST_CASE("ml_dtypes golden: float8_e8m0fnu") { check_against_ml_dtypes<mixprec::float8_e8m0fnu>("float8_e8m0fnu"); }
TEST_CASE("ml_dtypes golden: float8_e3m4 (IEEE)") { check_against_ml_dtypes<mixprec::float8_e3m4>("float8_e3m4"); }
TEST_CASE("ml_dtypes golden: float8_e4m3 (IEEE)") { check_against_ml_dtypes<mixprec::float8_e4m3>("float8_e4m3"); }
TEST_CASE("ml_dtypes golden: float8_e4m3b11fnuz") {
  check_against_ml_dtypes<mixprec::float8_e4m3b11fnuz>("float8_e4m3b11fnuz");
}
// Not in ml_dtypes: gen.py computes these from the field definitions alone (EXACT_FORMATS).
TEST_CASE("exact golden: float8_ue4m3") { check_against_ml_dtypes<mixprec::float8_ue4m3>("float8_ue4m3"); }
TEST_CASE("exact golden: float8_ue5m3") { check_against_ml_dtypes<mixprec::float8_ue5m3>("float8_ue5m3"); }
TEST_CASE("exact golden: float4_e1m2") { check_against_ml_dtypes<mixprec::float4_e1m2>("float4_e1m2"); }
TEST_CASE("ml_dtypes golden: float6_e2m3fn") { check_against_ml_dtypes<mixprec::float6_e2m3fn>("float6_e2m3fn"); }
TEST_CASE("ml_dtypes golden: float6_e3m2fn") { check_against_ml_dtypes<mixprec::float6_e3m2fn>("float6_e3m2fn"); }
TEST_CASE("ml_dtypes golden: float4_e2m1fn") { check_against_ml_dtypes<mixprec::float4_e2m1fn>("float4_e2m1fn"); }

TEST_CASE("ml_dtypes golden: a missing file fails with a clear message") {
  const golden_file g = load_golden("no_such_format", "format=no_such_format bits=8");
  CHECK(g.error.find("missing") != std::string::npos);
  CHECK(g.error.find("gen.py") != std::string::npos);
}

TEST_CASE("ml_dtypes golden: a truncated or corrupt file fails with a clear message") {
  const std::string title = "format=float4_e2m1fn bits=4";
  const golden_file good = load_golden("float4_e2m1fn", title);
  REQUIRE_MESSAGE(good.error.empty(), good.error);
  for (const std::size_t cut : {std::size_t{1}, std::size_t{4}, std::size_t{100}, good.bytes.size() / 2}) {
    golden_file g;
    g.path = good.path;
    g.bytes.assign(good.bytes.begin(), good.bytes.end() - static_cast<std::ptrdiff_t>(cut));
    parse_golden(g, title);
    CHECK_MESSAGE(g.error.find("truncated") != std::string::npos, "cut " << cut << ": " << g.error);
  }
  golden_file flipped;
  flipped.path = good.path;
  flipped.bytes = good.bytes;
  flipped.bytes[flipped.bytes.size() - 10] ^= 1u;  // an output byte of the last section
  parse_golden(flipped, title);
  CHECK(flipped.error.find("CRC-32") != std::string::npos);
}
