// Shared pieces of the tests/cuda programs: pass/fail counting, bit patterns, managed buffers,
// synchronisation, and the main() that skips cleanly without a CUDA device.
// SPDX-License-Identifier: MIT
#ifndef MIXPREC_TESTS_CUDA_HARNESS_HPP
#define MIXPREC_TESTS_CUDA_HARNESS_HPP

#include <mixprec/mixprec.hpp>
#include <mixprec/span.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace cuda_harness {

inline int g_passed = 0;
inline int g_failed = 0;

inline void report(const std::string& what, bool ok) {
  if (ok) {
    ++g_passed;
  } else {
    ++g_failed;
    std::printf("FAILED: %s\n", what.c_str());
  }
}

/// The bit pattern of a float, double or mixprec value.
template <class T>
std::uint64_t bits_of(const T& x) {
  return static_cast<std::uint64_t>(mixprec::float_traits<T>::to_bits(x));
}

template <class T>
bool is_nan(const T& x) {
  const double d = static_cast<double>(x);
  return d != d;
}

/// Equal bit for bit; with nan_equal, any two NaNs also count as equal. On a mismatch it prints
/// the count and the first three differing elements (index, host bits, device bits).
template <class T>
bool same(const std::vector<T>& a, const std::vector<T>& b, bool nan_equal = false) {
  if (a.size() != b.size()) {
    std::printf("  sizes differ: %zu vs %zu\n", a.size(), b.size());
    return false;
  }
  std::size_t bad = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (bits_of(a[i]) != bits_of(b[i]) && !(nan_equal && is_nan(a[i]) && is_nan(b[i]))) {
      if (++bad <= 3)
        std::printf("  element %zu: %#llx vs %#llx\n", i, static_cast<unsigned long long>(bits_of(a[i])),
                    static_cast<unsigned long long>(bits_of(b[i])));
    }
  }
  if (bad != 0) std::printf("  %zu of %zu elements differ\n", bad, a.size());
  return bad == 0;
}

/// A managed buffer (reachable from host and device).
template <class T>
struct managed {
  T* p = nullptr;
  std::size_t n = 0;
  explicit managed(std::size_t count) : n(count) {
    if (cudaMallocManaged(reinterpret_cast<void**>(&p), (count == 0 ? 1 : count) * sizeof(T)) != cudaSuccess) {
      std::printf("cudaMallocManaged failed\n");
      std::exit(2);
    }
  }
  explicit managed(const std::vector<T>& v) : managed(v.size()) {
    if (!v.empty()) std::memcpy(static_cast<void*>(p), v.data(), v.size() * sizeof(T));
  }
  managed(const managed&) = delete;
  managed& operator=(const managed&) = delete;
  ~managed() { cudaFree(p); }
  mixprec::span<T> span() const { return mixprec::span<T>(p, n); }
  std::vector<T> vec() const { return std::vector<T>(p, p + n); }
};

inline void sync() {
  if (cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("cudaDeviceSynchronize failed\n");
    std::exit(2);
  }
}

/// main(): prints "SKIPPED: no CUDA device" and "<name>: 0 passed, 0 failed, 1 skipped" and exits
/// 77 without a device (CTest's SKIP_RETURN_CODE: reported as skipped, never as passed); else runs run_all and prints "<name>: N passed, M failed" (exit 1 if M > 0).
inline int run(const char* name, void (*run_all)()) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::printf("SKIPPED: no CUDA device (cudaGetDeviceCount: %s, %d device(s))\n", cudaGetErrorString(e), count);
    std::printf("%s: 0 passed, 0 failed, 1 skipped\n", name);
    return 77;
  }
  run_all();
  std::printf("%s: %d passed, %d failed\n", name, g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}

}  // namespace cuda_harness

#endif  // MIXPREC_TESTS_CUDA_HARNESS_HPP
