// SPDX-License-Identifier: MIT
// The environment variables of the exhaustive tests: env_uint reads a positive integer (anything
// else is reported and ignored), exhaustive_stride() is MIXPREC_EXHAUSTIVE_STRIDE (development
// only: test every N-th pattern or chunk; default 1, all of them).
#ifndef MIXPREC_TESTS_EXHAUSTIVE_ENV_HPP
#define MIXPREC_TESTS_EXHAUSTIVE_ENV_HPP

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace exhaustive_env {

inline std::uint64_t env_uint(const char* name, std::uint64_t fallback) {
  const char* s = std::getenv(name);
  if (s == nullptr || *s == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s, &end, 10);
  if (end == s || *end != '\0' || v == 0) {
    std::fprintf(stderr, "ignoring %s='%s' (want a positive integer)\n", name, s);
    return fallback;
  }
  return static_cast<std::uint64_t>(v);
}

inline std::uint64_t exhaustive_stride() { return env_uint("MIXPREC_EXHAUSTIVE_STRIDE", 1); }

}  // namespace exhaustive_env

#endif  // MIXPREC_TESTS_EXHAUSTIVE_ENV_HPP
