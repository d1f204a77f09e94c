// SPDX-License-Identifier: MIT
// examples/wasm/explorer.cpp — the format explorer of the documentation site, compiled to
// WebAssembly by scripts/docs (Emscripten): the same headers, the same single rounding.
//
// Exported C functions (each returns JSON in a buffer valid until the next call):
//   mp_formats()                          ["float16", "bfloat16", ...]: every built-in format
//   mp_aliases()                          {"half": "float16", ...}: mixprec/format_names.hpp
//   mp_explain(format, text, mode, ovf)   text (a number, as strtod reads it) read ONCE into format
//   mp_bits(format, bits)                 what a bit pattern (unsigned integer) means
//   mp_list(format)                       every value of a format of 8 bits or fewer
// format: a name or an alias; the answers' "format" is the name. mode: 0 nearest_even,
// 1 nearest_away, 2 toward_zero, 3 upward, 4 downward, 5 to_odd; ovf: 0 ieee, 1 saturate.
// Errors: {"error": "..."}. Numbers: NaN is null, infinities "inf"/"-inf"; "value" (the stored
// value as a sentence states it: exact, with a short form beside it when long) and
// "*_error_text" (exact absolute error, "infinite", "undefined (NaN)") are what to show.
// Also builds natively (c++ -std=c++17 -Iinclude examples/wasm/explorer.cpp; CTest's
// explorer_native) for a check: no arguments print mp_explain("float16", "0.1", 0, 0); else
//   explorer_native formats | aliases | explain FORMAT TEXT | bits FORMAT N | list FORMAT
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

#include <mixprec/explain.hpp>
#include <mixprec/format_names.hpp>
#include <mixprec/mixprec.hpp>
#include <mixprec/text/json.hpp>

namespace {

std::string out;

/// s as a JSON string literal.
std::string quoted(std::string_view s) { return mixprec::json::quote(s); }

std::string number(double v) {
  if (std::isnan(v)) return "null";
  if (v > 1.7e308 || v < -1.7e308) return v > 0 ? "\"inf\"" : "\"-inf\"";
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

std::string value_json(const mixprec::value_explanation& e) {
  return "{\"bits\":" + std::to_string(e.bits) + ",\"storage_bits\":" + std::to_string(e.storage_bits) +
         ",\"sign\":" + quoted(e.sign) + ",\"exponent\":" + quoted(e.exponent) + ",\"mantissa\":" + quoted(e.mantissa) +
         ",\"kind\":" + quoted(e.kind) + ",\"exact\":" + quoted(e.exact) + ",\"shortest\":" + quoted(e.shortest) +
         ",\"value\":" + quoted(mixprec::exact_value_text(e)) +
         ",\"ulp\":" + quoted(e.ulp) + ",\"below\":" + quoted(e.below) + ",\"above\":" + quoted(e.above) + "}";
}


/// The absolute error as the text explanation prints it (exact; "infinite"; "undefined (NaN)";
/// "about -1e400 (beyond double)" for a finite text beyond double stored as a finite value).
std::string error_text(const mixprec::text_explanation& c) {
  if (std::isinf(c.abs_error) && c.stored.kind != "infinity" && std::isfinite(c.rel_error)) {
    const std::string mag = c.source[0] == '+' || c.source[0] == '-' ? c.source.substr(1) : c.source;
    return "about " + std::string(c.abs_error < 0 ? "-" : "") + mag + " (beyond double)";
  }
  return mixprec::abs_error_text(c.abs_error);
}

const char* error(const std::string& what) {
  out = "{\"error\":" + quoted(what) + "}";
  return out.c_str();
}

}  // namespace

extern "C" {

const char* mp_formats() {
  out = "[";
  for (std::string_view n : mixprec::builtin_format_names) out += (out.size() > 1 ? ",\"" : "\"") + std::string(n) + "\"";
  out += "]";
  return out.c_str();
}

const char* mp_aliases() {
  out = "{";
  for (const auto& a : mixprec::builtin_format_aliases) {
    out += (out.size() > 1 ? "," : "") + quoted(std::string(a.alias)) + ":" + quoted(std::string(a.canonical));
  }
  out += "}";
  return out.c_str();
}

const char* mp_explain(const char* format, const char* text, int mode, int ovf) {
  if (mode < 0 || mode > 5) return error("rounding mode must be 0..5");
  if (ovf < 0 || ovf > 1) return error("overflow must be 0 (ieee) or 1 (saturate)");
  try {
    const bool known = mixprec::visit_format(format, [&](auto tag) {
      using T = decltype(tag);
      const auto c = mixprec::explain<T>(text, static_cast<mixprec::rounding>(mode), static_cast<mixprec::overflow>(ovf));
      out = "{\"format\":" + quoted(mixprec::finfo<T>::name) + ",\"stored\":" + value_json(c.stored) +
            ",\"abs_error\":" + number(c.abs_error) + ",\"rel_error\":" + number(c.rel_error) +
            ",\"ulp_error\":" + number(c.ulp_error) + ",\"abs_error_text\":" + quoted(error_text(c)) +
            ",\"rel_error_text\":" + quoted(mixprec::error_quotient_text(c.rel_error)) +
            ",\"ulp_error_text\":" + quoted(mixprec::error_quotient_text(c.ulp_error)) + ",\"range\":" +
            quoted(c.range) + ",\"why\":" + quoted(c.why) + "}";
    });
    if (!known) return error(std::string("unknown format ") + format);
  } catch (const std::exception& e) {
    return error(e.what());
  }
  return out.c_str();
}

const char* mp_bits(const char* format, double bits) {
  const bool known = mixprec::visit_format(format, [&](auto tag) {
    using T = decltype(tag);
    using F = typename T::format_type;
    double whole = 0;
    if (!(bits >= 0) || bits >= 4294967296.0 || std::fpclassify(std::modf(bits, &whole)) != FP_ZERO) {
      error("bits must be an unsigned integer");
      return;
    }
    const auto b = static_cast<std::uint64_t>(bits);
    if ((b >> F::storage_bits) != 0 || (b & ((std::uint64_t{1} << F::padding_bits) - 1)) != 0) {
      error("the bit pattern does not fit the format");
      return;
    }
    out = "{\"format\":" + quoted(mixprec::finfo<T>::name) + ",\"stored\":" +
          value_json(mixprec::explain(T::from_bits(static_cast<typename T::storage_type>(b)))) + "}";
  });
  if (!known) return error(std::string("unknown format ") + format);
  return out.c_str();
}

const char* mp_list(const char* format) {
  bool small = true;
  std::string body;
  const bool known = mixprec::visit_format(format, [&](auto tag) {
    using T = decltype(tag);
    using F = typename T::format_type;
    if (F::storage_bits > 8) {
      small = false;
      return;
    }
    for (unsigned b = 0; b < (1u << (F::storage_bits > 8 ? 0 : F::storage_bits)); ++b) {
      const T x = T::from_bits(static_cast<typename T::storage_type>(b));
      const auto e = mixprec::explain(x);
      if (!body.empty()) body += ",";
      body += "{\"bits\":" + std::to_string(b) + ",\"value\":" + number(static_cast<double>(x)) + ",\"exact\":" +
              quoted(e.exact) + ",\"kind\":" + quoted(e.kind) + "}";
    }
  });
  if (!known) return error(std::string("unknown format ") + format);
  if (!small) return error("listing takes formats of 8 bits or fewer");
  out = "[" + body + "]";
  return out.c_str();
}

}  // extern "C"

int main(int argc, char** argv) {
#ifndef __EMSCRIPTEN__
  const std::string cmd = argc > 1 ? argv[1] : "";
  const char* r = nullptr;
  if (argc == 1) {
    r = mp_explain("float16", "0.1", 0, 0);
  } else if (cmd == "formats" && argc == 2) {
    r = mp_formats();
  } else if (cmd == "aliases" && argc == 2) {
    r = mp_aliases();
  } else if (cmd == "explain" && argc == 4) {
    r = mp_explain(argv[2], argv[3], 0, 0);
  } else if (cmd == "bits" && argc == 4) {
    r = mp_bits(argv[2], std::strtod(argv[3], nullptr));
  } else if (cmd == "list" && argc == 3) {
    r = mp_list(argv[2]);
  } else {
    std::fputs("usage: explorer_native [formats | aliases | explain FORMAT TEXT | bits FORMAT N | list FORMAT]\n", stderr);
    return 2;
  }
  std::puts(r);
  return std::strncmp(r, "{\"error\"", 8) == 0 ? 1 : 0;
#else
  (void)argc;
  (void)argv;
  return 0;
#endif
}
