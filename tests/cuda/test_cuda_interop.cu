// mixprec — mixprec/cuda.hpp: bit-exact conversions to and from __half, __nv_bfloat16,
// __nv_fp8_e4m3 and __nv_fp8_e5m2, on the host and in device code.
// SPDX-License-Identifier: MIT
//
// A standalone CUDA program (no doctest). For every bit pattern of half, bfloat16,
// float8_e4m3fn and float8_e5m2 it checks, on the host (always) and in a kernel (when a CUDA
// device exists):
//   - mixprec -> CUDA -> mixprec (to_cuda, from_cuda) gives the pattern back;
//   - CUDA -> mixprec -> CUDA (CUDA's own bit constructors __ushort_as_half,
//     __ushort_as_bfloat16, __nv_fp8_*::__x; from_cuda, to_cuda; CUDA's own bit accessors)
//     gives the pattern back;
//   - the raw forms (to_cuda_raw, from_cuda_raw) agree;
//   - CUDA's own conversion to float (__half2float, __bfloat162float, __nv_cvt_fp8_to_halfraw +
//     __half2float) of to_cuda(x) equals float(x) computed by mixprec, or both are NaN.
// The device results must also equal the host results bit for bit.
//
// The host checks always run. Without a CUDA device it then prints
// "SKIPPED: no CUDA device (device checks)" and "test_cuda_interop: N passed, 0 failed, 1 skipped"
// and exits 77, CTest's skip (1 when a host check failed). With one it prints
// "test_cuda_interop: N passed, M failed" and exits 1 when M > 0.
//
// Development switch: compiled with -DMIXPREC_CUDA_TEST_EMULATE the "device" side runs on the
// host (no GPU needed; checks the harness only); MIXPREC_CUDA_TEST_INJECT=1 in the environment
// then corrupts one device result per check, to see failures reported.
#include <mixprec/cuda.hpp>
#include <mixprec/mixprec.hpp>

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

namespace mp = mixprec;

namespace {

// ---------------------------------------------------------------------------------------------
// CUDA's own view of the bits and of the value (independent of mixprec/cuda.hpp).
// ---------------------------------------------------------------------------------------------

MIXPREC_HD __half cuda_from_bits(__half*, unsigned b) { return __ushort_as_half(static_cast<unsigned short>(b)); }
MIXPREC_HD __nv_bfloat16 cuda_from_bits(__nv_bfloat16*, unsigned b) {
  return __ushort_as_bfloat16(static_cast<unsigned short>(b));
}
MIXPREC_HD __nv_fp8_e4m3 cuda_from_bits(__nv_fp8_e4m3*, unsigned b) {
  __nv_fp8_e4m3 c;
  c.__x = static_cast<__nv_fp8_storage_t>(b);
  return c;
}
MIXPREC_HD __nv_fp8_e5m2 cuda_from_bits(__nv_fp8_e5m2*, unsigned b) {
  __nv_fp8_e5m2 c;
  c.__x = static_cast<__nv_fp8_storage_t>(b);
  return c;
}

MIXPREC_HD unsigned cuda_bits(__half c) { return __half_as_ushort(c); }
MIXPREC_HD unsigned cuda_bits(__nv_bfloat16 c) { return __bfloat16_as_ushort(c); }
MIXPREC_HD unsigned cuda_bits(__nv_fp8_e4m3 c) { return c.__x; }
MIXPREC_HD unsigned cuda_bits(__nv_fp8_e5m2 c) { return c.__x; }

MIXPREC_HD float cuda_to_float(__half c) { return __half2float(c); }
MIXPREC_HD float cuda_to_float(__nv_bfloat16 c) { return __bfloat162float(c); }
MIXPREC_HD float cuda_to_float(__nv_fp8_e4m3 c) {
  return __half2float(__half(__nv_cvt_fp8_to_halfraw(c.__x, __NV_E4M3)));
}
MIXPREC_HD float cuda_to_float(__nv_fp8_e5m2 c) {
  return __half2float(__half(__nv_cvt_fp8_to_halfraw(c.__x, __NV_E5M2)));
}

MIXPREC_HD std::uint32_t float_bits(float x) { return mp::float_traits<float>::to_bits(x); }

template <class T>
constexpr std::size_t pattern_count() {
  return std::size_t{1} << (8 * sizeof(typename T::storage_type));
}

/// For pattern i of T: the four results compared with the host and with the expectations.
template <class T>
struct interop_op {
  std::uint32_t* round_trip;  // bits of from_cuda(to_cuda(T::from_bits(i)))
  std::uint32_t* reverse;     // CUDA's bits of to_cuda(from_cuda(CUDA value with bits i))
  std::uint32_t* raw;         // bits of from_cuda_raw/to_cuda_raw round trips, or ~0u on disagreement
  std::uint32_t* cuda_float;  // bits of CUDA's conversion of to_cuda(T::from_bits(i)) to float

  MIXPREC_HD void operator()(std::size_t i) const {
    using C = mp::cuda_type_t<T>;
    static_assert(std::is_same<mp::mixprec_type_t<C>, T>::value, "cuda_type_t and mixprec_type_t disagree");
    const auto b = static_cast<typename T::storage_type>(i);
    const T x = T::from_bits(b);
    const C c = mp::to_cuda(x);
    round_trip[i] = mp::from_cuda(c).bits();
    reverse[i] = cuda_bits(mp::to_cuda(mp::from_cuda(cuda_from_bits(static_cast<C*>(nullptr), b))));
    cuda_float[i] = float_bits(cuda_to_float(c));
    raw[i] = raw_bits(x);
  }

  MIXPREC_HD static std::uint32_t raw_bits(T x) {
    if constexpr (sizeof(typename T::storage_type) == 2) {
      const auto r = mp::to_cuda_raw(x);
      if (r.x != cuda_bits(mp::to_cuda(x))) return ~0u;
      return mp::from_cuda_raw(r).bits();
    } else {
      const __nv_fp8_storage_t s = mp::to_cuda_raw(x);
      if (s != cuda_bits(mp::to_cuda(x))) return ~0u;
      return T::from_bits(s).bits();
    }
  }
};

// ---------------------------------------------------------------------------------------------
// Running an operation on the device and on the host.
// ---------------------------------------------------------------------------------------------

template <class Op>
__global__ void for_each_kernel(Op op, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) op(i);
}

bool g_cuda_error = false;

bool cuda_ok(cudaError_t e, const char* what, int line) {
  if (e == cudaSuccess) return true;
  std::printf("CUDA error at line %d (%s): %s\n", line, what, cudaGetErrorString(e));
  g_cuda_error = true;
  return false;
}
#define CUDA_OK(expr) cuda_ok((expr), #expr, __LINE__)

#if defined(MIXPREC_CUDA_TEST_EMULATE)
constexpr bool kEmulate = true;
#else
constexpr bool kEmulate = false;
#endif

/// A buffer of n uint32 on the device (on the host when emulating).
class device_buffer {
 public:
  explicit device_buffer(std::size_t n) : n_(n) {
    if (kEmulate) {
      host_.resize(n);
      ptr_ = host_.data();
    } else if (!CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&ptr_), n * sizeof(std::uint32_t)))) {
      ptr_ = nullptr;
    }
  }
  ~device_buffer() {
    if (!kEmulate && ptr_ != nullptr) cudaFree(ptr_);
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  std::uint32_t* get() const { return ptr_; }
  bool download(std::vector<std::uint32_t>& v) const {
    v.assign(n_, 0u);
    if (ptr_ == nullptr) return false;
    if (kEmulate) {
      std::memcpy(v.data(), ptr_, n_ * sizeof(std::uint32_t));
      return true;
    }
    return CUDA_OK(cudaMemcpy(v.data(), ptr_, n_ * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  }

 private:
  std::size_t n_;
  std::uint32_t* ptr_ = nullptr;
  std::vector<std::uint32_t> host_;
};

template <class Op>
bool run_on_device(const Op& op, std::size_t n) {
  if (kEmulate) {
    for (std::size_t i = 0; i < n; ++i) op(i);
    return true;
  }
  const unsigned threads = 256;
  const auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
  for_each_kernel<<<blocks, threads>>>(op, n);
  return CUDA_OK(cudaGetLastError()) && CUDA_OK(cudaDeviceSynchronize());
}

bool inject_failures() {
  if (!kEmulate) return false;
  const char* s = std::getenv("MIXPREC_CUDA_TEST_INJECT");
  return s != nullptr && std::strcmp(s, "1") == 0;
}

// ---------------------------------------------------------------------------------------------
// Bookkeeping.
// ---------------------------------------------------------------------------------------------

int g_passed = 0;
int g_failed = 0;
constexpr int kMaxReported = 5;

void record(bool ok, const char* what) {
  if (ok) {
    ++g_passed;
  } else {
    ++g_failed;
    std::printf("FAILED: %s\n", what);
  }
}

struct results {
  std::vector<std::uint32_t> round_trip, reverse, raw, cuda_float;
  explicit results(std::size_t n) : round_trip(n), reverse(n), raw(n), cuda_float(n) {}
};

/// Checks the host results of T against the expectations.
template <class T>
void check_host(const results& r) {
  const char* name = mp::finfo<T>::name;
  const std::size_t n = r.round_trip.size();
  std::size_t bad_rt = 0, bad_rev = 0, bad_raw = 0, bad_value = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (r.round_trip[i] != i && ++bad_rt <= kMaxReported) {
      std::printf("  %s 0x%zx: mixprec -> CUDA -> mixprec gives 0x%x\n", name, i, r.round_trip[i]);
    }
    if (r.reverse[i] != i && ++bad_rev <= kMaxReported) {
      std::printf("  %s 0x%zx: CUDA -> mixprec -> CUDA gives 0x%x\n", name, i, r.reverse[i]);
    }
    if (r.raw[i] != i && ++bad_raw <= kMaxReported) {
      std::printf("  %s 0x%zx: raw round trip gives 0x%x\n", name, i, r.raw[i]);
    }
    const float mine = static_cast<float>(T::from_bits(static_cast<typename T::storage_type>(i)));
    const float theirs = mp::float_traits<float>::from_bits(r.cuda_float[i]);
    const bool same = std::isnan(mine) ? std::isnan(theirs) : float_bits(mine) == r.cuda_float[i];
    if (!same && ++bad_value <= kMaxReported) {
      std::printf("  %s 0x%zx: mixprec %.9g, CUDA %.9g\n", name, i, static_cast<double>(mine),
                  static_cast<double>(theirs));
    }
  }
  char what[256];
  std::snprintf(what, sizeof what, "%s (host): mixprec -> CUDA -> mixprec, %zu of %zu patterns changed", name, bad_rt,
                n);
  record(bad_rt == 0, what);
  std::snprintf(what, sizeof what, "%s (host): CUDA -> mixprec -> CUDA, %zu of %zu patterns changed", name, bad_rev, n);
  record(bad_rev == 0, what);
  std::snprintf(what, sizeof what, "%s (host): to_cuda_raw/from_cuda_raw, %zu of %zu patterns wrong", name, bad_raw, n);
  record(bad_raw == 0, what);
  std::snprintf(what, sizeof what, "%s (host): CUDA's float value differs from mixprec's for %zu of %zu patterns", name,
                bad_value, n);
  record(bad_value == 0, what);
}

template <class T>
void check_type(bool device) {
  const std::size_t n = pattern_count<T>();
  results host(n);
  const interop_op<T> hop{host.round_trip.data(), host.reverse.data(), host.raw.data(), host.cuda_float.data()};
  for (std::size_t i = 0; i < n; ++i) hop(i);
  check_host<T>(host);
  if (!device) return;

  device_buffer d_rt(n), d_rev(n), d_raw(n), d_float(n);
  results dev(n);
  const bool ran = run_on_device(interop_op<T>{d_rt.get(), d_rev.get(), d_raw.get(), d_float.get()}, n) &&
                   d_rt.download(dev.round_trip) && d_rev.download(dev.reverse) && d_raw.download(dev.raw) &&
                   d_float.download(dev.cuda_float);
  if (ran && inject_failures()) dev.cuda_float[n / 3] ^= 1u;
  const char* name = mp::finfo<T>::name;
  std::size_t bad = 0;
  for (std::size_t i = 0; ran && i < n; ++i) {
    const bool same = dev.round_trip[i] == host.round_trip[i] && dev.reverse[i] == host.reverse[i] &&
                      dev.raw[i] == host.raw[i] && dev.cuda_float[i] == host.cuda_float[i];
    if (!same && ++bad <= kMaxReported) {
      std::printf("  %s 0x%zx: device (0x%x 0x%x 0x%x 0x%08x), host (0x%x 0x%x 0x%x 0x%08x)\n", name, i,
                  dev.round_trip[i], dev.reverse[i], dev.raw[i], dev.cuda_float[i], host.round_trip[i], host.reverse[i],
                  host.raw[i], host.cuda_float[i]);
    }
  }
  char what[256];
  std::snprintf(what, sizeof what, "%s (device): %zu of %zu patterns differ from the host%s", name, bad, n,
                ran ? "" : " (the device did not run)");
  record(ran && bad == 0, what);
}

}  // namespace

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  bool device = true;
  if (!kEmulate) {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
      std::printf("SKIPPED: no CUDA device (device checks) (cudaGetDeviceCount: %s, %d device(s))\n",
                  e == cudaSuccess ? "success" : cudaGetErrorString(e), e == cudaSuccess ? count : 0);
      device = false;
    } else {
      cudaDeviceProp prop{};
      if (CUDA_OK(cudaGetDeviceProperties(&prop, 0))) {
        std::printf("device 0: %s (compute capability %d.%d)\n", prop.name, prop.major, prop.minor);
      }
    }
  } else {
    std::printf("EMULATION: the \"device\" side runs on the host (MIXPREC_CUDA_TEST_EMULATE)\n");
  }

  check_type<mp::half>(device);
  check_type<mp::bfloat16>(device);
  check_type<mp::float8_e4m3fn>(device);
  check_type<mp::float8_e5m2>(device);

  if (g_cuda_error) std::printf("note: CUDA errors occurred (see above)\n");
  if (device) {
    std::printf("test_cuda_interop: %d passed, %d failed\n", g_passed, g_failed);
  } else {
    std::printf("test_cuda_interop: %d passed, %d failed, 1 skipped\n", g_passed, g_failed);
  }
  if (g_failed != 0) return 1;
  return device ? 0 : 77;  // the host checks passed, the device ones were skipped: CTest reports a skip
}
