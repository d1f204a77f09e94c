// SPDX-License-Identifier: MIT
// Shared helpers of the kernel tests: bit patterns of any floating type, the policies to compare,
// awkward sizes, and deterministic inputs that include every class of value.
#ifndef MIXPREC_TESTS_KERNEL_TEST_UTIL_HPP
#define MIXPREC_TESTS_KERNEL_TEST_UTIL_HPP

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <mixprec/mixprec.hpp>
#include <mixprec/kernels.hpp>

namespace ktest {

template <class T>
std::uint64_t bits_of(const T& x) {
  if constexpr (mixprec::is_mixprec_float<T>::value) {
    return static_cast<std::uint64_t>(x.bits());
  } else if constexpr (sizeof(T) == 4) {
    std::uint32_t u;
    std::memcpy(&u, &x, 4);
    return u;
  } else {
    std::uint64_t u;
    std::memcpy(&u, &x, 8);
    return u;
  }
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (bits_of(a[i]) != bits_of(b[i])) return false;
  }
  return true;
}

/// Sizes around the vector widths (8, 16), the reduction block (4096) and the element-wise
/// block (16384).
inline const std::vector<std::size_t>& awkward_sizes() {
  static const std::vector<std::size_t> s = {0, 1, 2, 7, 15, 16, 17, 31, 33, 100, 4095, 4096, 4097, 16383, 16385, 40000};
  return s;
}

/// Floats of every class: random bit patterns (NaNs, infinities, subnormals included) mixed
/// with ordinary values of moderate size.
inline std::vector<float> mixed_floats(std::size_t n, std::uint64_t seed, bool specials = true) {
  std::mt19937_64 g(seed);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (specials && i % 3 == 0) {
      const std::uint32_t u = static_cast<std::uint32_t>(g());
      std::memcpy(&v[i], &u, 4);
    } else {
      v[i] = normal(g);
    }
    if (i % 5 == 1) {
      // Exact ties (and neighbours) of bfloat16 and of half's normal range.
      std::uint32_t u;
      std::memcpy(&u, &v[i], 4);
      const std::uint32_t tweak = static_cast<std::uint32_t>(g() % 3) - 1u;  // -1, 0, +1
      u = (i % 10 == 1) ? ((u & ~0xffffu) | 0x8000u) + tweak : ((u & ~0x1fffu) | 0x1000u) + tweak;
      std::memcpy(&v[i], &u, 4);
    }
  }
  return v;
}

inline std::vector<double> mixed_doubles(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> normal(0.0, 1000.0);
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 3 == 0) {
      // Random sign and exponent near half's range, random mantissa: many values near ties.
      const std::uint64_t mant = g() & ((std::uint64_t{1} << 52) - 1);
      const std::uint64_t exp = 1023 - 30 + g() % 50;
      const std::uint64_t u = (g() & (std::uint64_t{1} << 63)) | (exp << 52) | mant;
      std::memcpy(&v[i], &u, 8);
    } else if (i % 3 == 1) {
      const std::uint64_t u = g();
      std::memcpy(&v[i], &u, 8);
    } else {
      v[i] = normal(g);
    }
  }
  return v;
}

#if defined(MIXPREC_SIMD_X86)
/// Restores MXCSR (rounding mode, FTZ, DAZ) as it was on construction, for tests that change it.
struct csr_guard {
  unsigned saved = _mm_getcsr();
  csr_guard() = default;
  csr_guard(const csr_guard&) = delete;
  csr_guard& operator=(const csr_guard&) = delete;
  ~csr_guard() { _mm_setcsr(saved); }
};
#endif

}  // namespace ktest

#endif
