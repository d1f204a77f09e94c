// SPDX-License-Identifier: MIT
// libFuzzer target for parse_precision_policy (include/mixprec/precision_policy.hpp). For every
// input (taken as the whole policy string) and both meanings of "half" (float16, bfloat16):
//   - it never crashes, leaks or hits undefined behaviour (ASan + UBSan), and throws nothing but
//     precision_policy_error;
//   - acceptance, the three types, and for a rejection the kind of error, the token and its
//     offset agree with a second, independently written parser of the same grammar (jmp's
//     get_policy, Keras' and Apex's names) below;
//   - a rejection names its token: token() is the input's text at position(), and what() quotes
//     it;
//   - an accepted policy writes a string (to_string) that parses back to the same policy.
// Any disagreement prints the input and aborts.
//
// Build and run with scripts/fuzz (MIXPREC_FUZZ_TARGET=precision_policy); the seed corpus is
// tests/fuzz/corpus/precision_policy, the dictionary tests/fuzz/precision_policy.dict. Without
// libFuzzer (any compiler), -DMIXPREC_FUZZ_STANDALONE builds a main() that runs the target once on
// each file named on the command line.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include <mixprec/precision_policy.hpp>

namespace {

using mixprec::dtype;

[[noreturn]] void fail(const char* what, const std::string& input) {
  std::fprintf(stderr, "fuzz_precision_policy: %s\ninput (%zu bytes): \"", what, input.size());
  for (char ch : input) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      std::fputc(c, stderr);
    } else {
      std::fprintf(stderr, "\\x%02x", c);
    }
  }
  std::fprintf(stderr, "\"\n");
  std::abort();
}

// ---- the reference parser ------------------------------------------------------------------
struct reference_result {
  bool ok = false;
  dtype param, compute, output;
  std::string kind;  // "unknown dtype", "unknown key", "malformed part", "unknown precision policy"
  std::string token;
  std::size_t position = 0;
};

bool dtype_named(const std::string& name, dtype half_dtype, dtype& out) {
  static const char* const names[] = {"bf16", "bfloat16", "f16", "float16", "full", "f32", "float32", "f64", "float64"};
  const dtype types[] = {dtype::bfloat16(), dtype::bfloat16(), dtype::float16(), dtype::float16(), dtype::float32(),
                         dtype::float32(),  dtype::float32(),  dtype::float64(), dtype::float64()};
  if (name == "half") {
    out = half_dtype;
    return true;
  }
  for (std::size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
    if (name == names[i]) {
      out = types[i];
      return true;
    }
  }
  return false;
}

reference_result reference_parse(const std::string& s, dtype half_dtype) {
  reference_result r;
  auto accept = [&r](dtype p, dtype c, dtype o) {
    r.ok = true;
    r.param = p;
    r.compute = c;
    r.output = o;
    return r;
  };
  auto reject = [&r](const char* kind, std::string token, std::size_t pos) {
    r.kind = kind;
    r.token = std::move(token);
    r.position = pos;
    return r;
  };
  const dtype f16 = dtype::float16(), bf16 = dtype::bfloat16(), f32 = dtype::float32();
  if (s == "mixed_float16") return accept(f32, f16, f16);
  if (s == "mixed_bfloat16") return accept(f32, bf16, bf16);
  if (s == "O0") return accept(f32, f32, f32);
  if (s == "O1") return accept(f32, f16, f16);
  if (s == "O2" || s == "O3") return accept(f16, f16, f32);
  bool has_equals = false;
  for (char c : s) has_equals = has_equals || c == '=';
  if (!has_equals) {
    dtype t;
    if (dtype_named(s, half_dtype, t)) return accept(t, t, t);
    return reject("unknown precision policy", s, 0);
  }
  // Split on every comma, remembering where each part starts.
  std::vector<std::string> parts(1);
  std::vector<std::size_t> starts(1, 0);
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == ',') {
      parts.emplace_back();
      starts.push_back(i + 1);
    } else {
      parts.back() += s[i];
    }
  }
  bool have_p = false, have_c = false, have_o = false;
  dtype p, c, o;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const std::string& part = parts[k];
    std::size_t equals = 0, at = 0;
    for (std::size_t i = 0; i < part.size(); ++i) {
      if (part[i] == '=') {
        if (equals == 0) at = i;
        ++equals;
      }
    }
    if (equals != 1) return reject("malformed part", part, starts[k]);
    const std::string key(part, 0, at), value(part, at + 1);
    dtype t;
    if (!dtype_named(value, half_dtype, t)) return reject("unknown dtype", value, starts[k] + at + 1);
    if (key == "p" || key == "params") {
      p = t;
      have_p = true;
    } else if (key == "c" || key == "compute") {
      c = t;
      have_c = true;
    } else if (key == "o" || key == "output") {
      o = t;
      have_o = true;
    } else {
      return reject("unknown key", key, starts[k]);
    }
  }
  if (!have_p) p = f32;
  if (!have_c) c = p;
  if (!have_o) o = c;
  return accept(p, c, o);
}
// ---------------------------------------------------------------------------------------------

bool known(dtype t) {
  return t == dtype::float16() || t == dtype::bfloat16() || t == dtype::float32() || t == dtype::float64();
}

void check(const std::string& input, dtype half_dtype) {
  const reference_result ref = reference_parse(input, half_dtype);
  mixprec::precision_policy p;
  try {
    p = mixprec::parse_precision_policy(input, half_dtype);
  } catch (const mixprec::precision_policy_error& e) {
    if (ref.ok) fail("rejected, the reference accepts", input);
    if (e.token() != ref.token || e.position() != ref.position) fail("token or position differ from the reference", input);
    if (e.position() > input.size() || input.compare(e.position(), e.token().size(), e.token()) != 0) {
      fail("token() is not the input's text at position()", input);
    }
    const std::string what = e.what();
    if (what.find(ref.kind) == std::string::npos) fail("another kind of error than the reference's", input);
    if (e.token().find('\0') == std::string::npos && what.find(mixprec::detail::quote_input(e.token())) == std::string::npos) {
      fail("what() does not quote the token (truncated as detail::quote_input does)", input);
    }
    return;
  } catch (const std::exception& e) {
    fail(e.what(), input);
  } catch (...) {
    fail("unknown exception", input);
  }
  if (!ref.ok) fail("accepted, the reference rejects", input);
  if (p.param != ref.param || p.compute != ref.compute || p.output != ref.output) fail("types differ from the reference", input);
  if (!known(p.param) || !known(p.compute) || !known(p.output)) fail("a type outside f16/bf16/f32/f64", input);
  const std::string text = p.to_string();
  mixprec::precision_policy back;
  try {
    back = mixprec::parse_precision_policy(text, half_dtype);
  } catch (const std::exception& e) {
    fail(("to_string() does not parse back: " + text + ": " + e.what()).c_str(), input);
  }
  if (back != p) fail(("to_string() parses to another policy: " + text).c_str(), input);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  check(input, dtype::float16());
  check(input, dtype::bfloat16());
  return 0;
}

#ifdef MIXPREC_FUZZ_STANDALONE
int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::FILE* f = std::fopen(argv[i], "rb");
    if (f == nullptr) {
      std::fprintf(stderr, "cannot open %s\n", argv[i]);
      return 2;
    }
    std::string buf;
    char tmp[4096];
    std::size_t n;
    while ((n = std::fread(tmp, 1, sizeof tmp, f)) > 0) buf.append(tmp, n);
    std::fclose(f);
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(buf.data()), buf.size());
  }
  std::printf("fuzz_precision_policy: %d input(s) ok\n", argc - 1);
  return 0;
}
#endif
