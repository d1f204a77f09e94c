// mixprec — device code gives the same bits as host code, for every built-in format.
// SPDX-License-Identifier: MIT
//
// A standalone CUDA program (no doctest). For every built-in format and every rounding mode,
// stochastic included (random bits from mixprec::counter_rng), and both overflow policies, it
// converts a large set of float and double inputs on the device and on the host and compares
// the bits; it decodes every bit pattern of every format (every tf32 code) to float and double
// and classifies it on both sides; and it evaluates finfo, numeric_limits, the classification
// functions, the constructors and round_to on a single device thread and on the host.
//
// Inputs: a strided sweep of the float bit patterns (every 4099th pattern), special values,
// the values, midpoints and midpoints +-1 ulp of neighbouring values of every format (as float
// and as double), and random doubles (raw bit patterns and values with exponents in
// [-160, 160]).
//
// Without a CUDA device it prints "SKIPPED: no CUDA device" and
// "test_cuda_formats: 0 passed, 0 failed, 1 skipped" and exits 77 (CTest: skipped). With one it prints
// "test_cuda_formats: N passed, M failed" and exits 1 when M > 0.
//
// Development switch: compiled with -DMIXPREC_CUDA_TEST_EMULATE the "device" side runs on the
// host (no GPU needed; checks the harness only); MIXPREC_CUDA_TEST_INJECT=1 in the environment
// then corrupts one device result per check, to see failures reported.
#include <mixprec/mixprec.hpp>
// Each header on its own as well (all of them must compile in device code).
#include <mixprec/basic_float.hpp>
#include <mixprec/classify.hpp>
#include <mixprec/config.hpp>
#include <mixprec/finfo.hpp>
#include <mixprec/format.hpp>
#include <mixprec/limits.hpp>
#include <mixprec/random.hpp>
#include <mixprec/round_to.hpp>
#include <mixprec/rounding.hpp>
#include <mixprec/types.hpp>
#include <mixprec/version.hpp>

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

namespace mp = mixprec;

namespace {

// ---------------------------------------------------------------------------------------------
// Operations, run element by element on the device and on the host (the same code).
// ---------------------------------------------------------------------------------------------

constexpr std::uint64_t kSeed = 0x5eed0f11c0ffee01ull;

MIXPREC_HD std::uint32_t bits_of(float x) { return mp::float_traits<float>::to_bits(x); }
MIXPREC_HD std::uint64_t bits_of(double x) { return mp::float_traits<double>::to_bits(x); }

/// out[i] = bits of in[i] rounded to T in mode/policy (stochastic: bits of counter_rng(seed)(i)).
template <class T, class S>
struct convert_op {
  const S* in;
  std::uint32_t* out;
  mp::rounding mode;
  mp::overflow policy;
  std::uint64_t seed;

  MIXPREC_HD void operator()(std::size_t i) const {
    const S x = in[i];
    std::uint32_t r = 0;
    if (mode == mp::rounding::stochastic) {
      const mp::counter_rng rng(seed);
      if ((i & 1u) != 0) {
        r = mp::round_stochastic<T>(x, rng, i, policy).bits();
      } else {
        r = mp::round_to<T>(x, rng(i), policy).bits();
      }
    } else if (i % 3 == 0) {
      // The random bits are ignored by the deterministic modes.
      r = mp::round_to<T>(x, mode, policy, static_cast<std::uint32_t>(i * 0x9E3779B9u)).bits();
    } else {
      r = mp::round_to<T>(x, mode, policy).bits();
    }
    out[i] = r;
  }
};

/// The i-th bit pattern of T tested by decode_op: every pattern of the storage for 8- and
/// 16-bit storage (float6/float4: the unused high bits too), every code for tf32 (with junk in
/// the padding bits, which from_bits clears).
template <class T>
MIXPREC_HD typename T::storage_type pattern_of(std::size_t i) {
  using F = typename T::format_type;
  using U = typename T::storage_type;
  if constexpr (F::padding_bits > 0) {
    return static_cast<U>((static_cast<std::uint64_t>(i) << F::padding_bits) |
                          (static_cast<std::uint64_t>(i) * 0x9E3779B9u & mp::detail::low_mask(F::padding_bits)));
  } else {
    return static_cast<U>(i);
  }
}
template <class T>
constexpr std::size_t pattern_count() {
  using F = typename T::format_type;
  return F::padding_bits > 0 ? std::size_t{1} << F::bits : std::size_t{1} << (8 * sizeof(typename T::storage_type));
}

/// isnan, isinf, isfinite, isnormal, issubnormal, signbit and fpclassify of v, as bits.
template <class T>
MIXPREC_HD std::uint32_t class_bits(T v) {
  std::uint32_t c = 0;
  c |= mp::isnan(v) ? 1u : 0u;
  c |= mp::isinf(v) ? 2u : 0u;
  c |= mp::isfinite(v) ? 4u : 0u;
  c |= mp::isnormal(v) ? 8u : 0u;
  c |= (mp::issubnormal)(v) ? 16u : 0u;
  c |= mp::signbit(v) ? 32u : 0u;
  c |= static_cast<std::uint32_t>(mp::fpclassify(v) & 0xff) << 8;
  return c;
}

/// Decodes pattern i of T to float and double, and classifies it.
template <class T>
struct decode_op {
  std::uint32_t* out_float;
  std::uint64_t* out_double;
  std::uint32_t* out_class;

  MIXPREC_HD void operator()(std::size_t i) const {
    const T v = T::from_bits(pattern_of<T>(i));
    out_float[i] = bits_of(static_cast<float>(v));
    out_double[i] = bits_of(static_cast<double>(v));
    out_class[i] = class_bits(v);
  }
};

/// Collects values as 64-bit words.
struct sink {
  std::uint64_t* out;
  int capacity;
  int n;
  MIXPREC_HD void put(std::int64_t v) { put_u(static_cast<std::uint64_t>(v)); }
  MIXPREC_HD void put_u(std::uint64_t v) {
    if (n < capacity) out[n] = v;
    ++n;
  }
};

constexpr int kApiWords = 1024;

/// finfo, numeric_limits, classification, constructors and round_to in every mode and policy:
/// one thread; out[0] is the number of words written after it.
template <class T>
struct api_op {
  std::uint64_t* out;

  template <class V>
  MIXPREC_HD static void put_value(sink& s, V v) {
    s.put(static_cast<std::int64_t>(v.bits()));
    s.put(static_cast<std::int64_t>(class_bits(v)));
  }

  MIXPREC_HD void operator()(std::size_t) const {
    using F = typename T::format_type;
    using L = std::numeric_limits<T>;
    using I = mp::finfo<T>;
    sink s{out + 1, kApiWords - 1, 0};

    // format
    s.put(F::exponent_bits);
    s.put(F::mantissa_bits);
    s.put(F::padding_bits);
    s.put(static_cast<int>(F::enc));
    s.put(F::bits);
    s.put(F::storage_bits);
    s.put(F::bias);
    s.put(F::emin);
    s.put(F::emax);
    s.put(F::qmin);
    s.put_u(F::max_code);
    s.put(F::has_infinity);
    s.put(F::has_nan);
    s.put(F::has_signed_zero);
    s.put(F::has_zero);
    s.put(F::has_subnormals);
    s.put(F::is_signed);
    s.put(mp::is_format<F>::value);
    s.put(mp::is_mixprec_float<T>::value);
    s.put(mp::is_binary_float<T>::value);

    // finfo
    s.put(I::bits);
    s.put(I::nmant);
    s.put(I::nexp);
    s.put(I::iexp);
    s.put(I::machep);
    s.put(I::negep);
    s.put(I::minexp);
    s.put(I::maxexp);
    s.put(I::precision);
    put_value(s, I::eps);
    put_value(s, I::epsneg);
    put_value(s, I::max);
    put_value(s, I::min);
    put_value(s, I::tiny);
    put_value(s, I::smallest_normal);
    put_value(s, I::smallest_subnormal);
    put_value(s, I::resolution);

    // numeric_limits
    s.put(L::is_specialized);
    s.put(L::is_signed);
    s.put(L::is_integer);
    s.put(L::is_exact);
    s.put(L::has_infinity);
    s.put(L::has_quiet_NaN);
    s.put(L::has_signaling_NaN);
    s.put(static_cast<int>(L::has_denorm));
    s.put(L::has_denorm_loss);
    s.put(static_cast<int>(L::round_style));
    s.put(L::is_iec559);
    s.put(L::is_bounded);
    s.put(L::is_modulo);
    s.put(L::digits);
    s.put(L::digits10);
    s.put(L::max_digits10);
    s.put(L::radix);
    s.put(L::min_exponent);
    s.put(L::min_exponent10);
    s.put(L::max_exponent);
    s.put(L::max_exponent10);
    s.put(L::traps);
    s.put(L::tinyness_before);
    put_value(s, L::min());
    put_value(s, L::lowest());
    put_value(s, L::max());
    put_value(s, L::epsilon());
    put_value(s, L::round_error());
    put_value(s, L::infinity());
    put_value(s, L::quiet_NaN());
    put_value(s, L::signaling_NaN());
    put_value(s, L::denorm_min());

    // constructors and conversions
    const T a(1.5f);
    const T b(-2.25);
    const T c(3);
    const T d(-7LL);
    const T e(static_cast<unsigned char>(200));
    const T f(mp::bfloat16(0.3f));
    const T g(mp::half(-0.1f));
    const T z{};
    put_value(s, a);
    put_value(s, b);
    put_value(s, c);
    put_value(s, d);
    put_value(s, e);
    put_value(s, f);
    put_value(s, g);
    put_value(s, z);
    s.put_u(bits_of(static_cast<float>(a)));
    s.put_u(bits_of(static_cast<double>(b)));
    s.put_u(bits_of(static_cast<float>(L::max())));
    s.put_u(bits_of(static_cast<double>(L::denorm_min())));
    s.put_u(mp::float_traits<T>::to_bits(mp::float_traits<T>::from_bits(static_cast<typename T::storage_type>(~0u))));

    // round_to in every mode and policy, from float, double, integers and mixprec types
    const double inputs[] = {1.0 / 3.0, -2.0 / 3.0, 1e-3, -7.25e-5, 0.5, 1e30, -1e30, 6.0e4, 500.0, 3.0e-39,
                             1e-300, -0.0, static_cast<double>(L::max()) * 1.0625, static_cast<double>(L::denorm_min()) * 0.75};
    const mp::rounding modes[] = {mp::rounding::nearest_even, mp::rounding::nearest_away, mp::rounding::toward_zero,
                                  mp::rounding::upward,       mp::rounding::downward,     mp::rounding::to_odd};
    const mp::overflow policies[] = {mp::overflow::ieee, mp::overflow::saturate};
    const mp::counter_rng rng(kSeed);
    s.put_u(rng.key());
    s.put_u(rng.bits64(12345));
    s.put_u(rng(12345));
    for (const mp::overflow p : policies) {
      for (const double x : inputs) {
        for (const mp::rounding m : modes) {
          s.put(static_cast<std::int64_t>(mp::round_to<T>(x, m, p).bits()));
          s.put(static_cast<std::int64_t>(mp::round_to<T>(static_cast<float>(x), m, p).bits()));
        }
        s.put(static_cast<std::int64_t>(mp::round_to<T>(x, rng(7), p).bits()));
        s.put(static_cast<std::int64_t>(mp::round_stochastic<T>(x, rng, 8, p).bits()));
      }
      for (const mp::rounding m : modes) {
        s.put(static_cast<std::int64_t>(mp::round_to<T>(123456789, m, p).bits()));
        s.put(static_cast<std::int64_t>(mp::round_to<T>(-17, m, p).bits()));
        s.put(static_cast<std::int64_t>(mp::round_to<T>(~0ull, m, p).bits()));
        s.put(static_cast<std::int64_t>(mp::round_to<T>(mp::half::from_bits(0x3555), m, p).bits()));
        s.put(static_cast<std::int64_t>(mp::round_to<T>(mp::float8_e5m2::from_bits(0x7b), m, p).bits()));
      }
    }
    s.put_u(bits_of(mp::round_to<float>(L::max())));
    s.put_u(bits_of(mp::round_to<double>(L::lowest(), mp::rounding::toward_zero)));
    s.put(static_cast<std::int64_t>(mp::round_to<mp::half>(L::epsilon(), mp::rounding::upward).bits()));
    out[0] = static_cast<std::uint64_t>(s.n);
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

/// A buffer of n T on the device (on the host when emulating).
template <class T>
class device_buffer {
 public:
  explicit device_buffer(std::size_t n) : n_(n) {
    if (kEmulate) {
      host_.resize(n);
      ptr_ = host_.data();
    } else if (!CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&ptr_), n * sizeof(T) + 1))) {
      ptr_ = nullptr;
    }
  }
  ~device_buffer() {
    if (!kEmulate && ptr_ != nullptr) cudaFree(ptr_);
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  T* get() const { return ptr_; }
  bool upload(const std::vector<T>& v) {
    if (ptr_ == nullptr) return false;
    if (kEmulate) {
      std::memcpy(ptr_, v.data(), v.size() * sizeof(T));
      return true;
    }
    return CUDA_OK(cudaMemcpy(ptr_, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  bool download(std::vector<T>& v) const {
    v.assign(n_, T{});
    if (ptr_ == nullptr) return false;
    if (kEmulate) {
      std::memcpy(v.data(), ptr_, n_ * sizeof(T));
      return true;
    }
    return CUDA_OK(cudaMemcpy(v.data(), ptr_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
  }

 private:
  std::size_t n_;
  T* ptr_ = nullptr;
  std::vector<T> host_;
};

/// Runs op(i) for i in [0, n) on the device (on the host when emulating); false on a CUDA error.
template <class Op>
bool run_on_device(const Op& op, std::size_t n) {
  if (kEmulate) {
    for (std::size_t i = 0; i < n; ++i) op(i);
    return true;
  }
  const std::size_t threads = 256;
  std::size_t blocks = (n + threads - 1) / threads;
  if (blocks > 8192) blocks = 8192;
  if (blocks == 0) blocks = 1;
  for_each_kernel<<<static_cast<unsigned>(blocks), static_cast<unsigned>(threads)>>>(op, n);
  return CUDA_OK(cudaGetLastError()) && CUDA_OK(cudaDeviceSynchronize());
}

template <class Op>
void run_on_host(const Op& op, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) op(i);
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

const char* mode_name(mp::rounding m) {
  switch (m) {
    case mp::rounding::nearest_even: return "nearest_even";
    case mp::rounding::nearest_away: return "nearest_away";
    case mp::rounding::toward_zero: return "toward_zero";
    case mp::rounding::upward: return "upward";
    case mp::rounding::downward: return "downward";
    case mp::rounding::to_odd: return "to_odd";
    case mp::rounding::stochastic: return "stochastic";
  }
  return "?";
}
const char* policy_name(mp::overflow p) { return p == mp::overflow::ieee ? "ieee" : "saturate"; }

template <class... Ts>
struct type_list {};
using all_types = type_list<mp::half, mp::bfloat16, mp::tf32, mp::float8_e4m3fn, mp::float8_e5m2, mp::float8_e4m3fnuz,
                            mp::float8_e5m2fnuz, mp::float8_e8m0fnu, mp::float6_e2m3fn, mp::float6_e3m2fn,
                            mp::float4_e2m1fn>;
template <class... Ts, class Fn>
void for_each_type(type_list<Ts...>, Fn&& fn) {
  (fn(static_cast<Ts*>(nullptr)), ...);
}

// ---------------------------------------------------------------------------------------------
// Inputs.
// ---------------------------------------------------------------------------------------------

struct splitmix {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

float float_from_bits(std::uint32_t b) { return mp::float_traits<float>::from_bits(b); }
double double_from_bits(std::uint64_t b) { return mp::float_traits<double>::from_bits(b); }

void add_around(std::vector<float>& floats, std::vector<double>& doubles, double a, double b) {
  const double mid = (a + b) / 2;  // exact: every built-in format has at most 11 significant bits
  for (const int sign : {1, -1}) {
    const double vals[] = {a, mid, std::nextafter(mid, 0.0), std::nextafter(mid, 2 * b)};
    for (const double v : vals) {
      doubles.push_back(sign * v);
      const float fv = static_cast<float>(v);
      if (static_cast<double>(fv) == v) floats.push_back(sign > 0 ? fv : -fv);
    }
    const float fmid = static_cast<float>(mid);
    if (static_cast<double>(fmid) == mid) {
      const float below = std::nextafter(fmid, 0.0f);
      const float above = std::nextafter(fmid, 2 * fmid);
      floats.push_back(sign > 0 ? below : -below);
      floats.push_back(sign > 0 ? above : -above);
    }
  }
}

/// Values, midpoints and midpoints +-1 ulp of consecutive positive values of T, both signs,
/// up to the midpoint between the largest value and the next power-of-two step above it.
template <class T>
void add_neighbourhood(std::vector<float>& floats, std::vector<double>& doubles) {
  using F = typename T::format_type;
  auto value = [](std::uint64_t code) {
    return static_cast<double>(T::from_bits(mp::detail::storage_of<F>(code)));
  };
  const std::uint64_t step = F::bits > 16 ? 37 : 1;  // tf32: every 37th code
  for (std::uint64_t code = 0; code < F::max_code; code += step) {
    add_around(floats, doubles, value(code), value(code + 1));
  }
  const double top = value(F::max_code);
  const double above_top = F::enc == mp::encoding::exponent_only ? 2 * top : 2 * top - value(F::max_code - 1);
  add_around(floats, doubles, top, above_top);
}

void make_inputs(std::vector<float>& floats, std::vector<double>& doubles) {
  // Strided sweep of the float bit patterns.
  const std::uint64_t stride = 4099;
  for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32); b += stride) {
    floats.push_back(float_from_bits(static_cast<std::uint32_t>(b)));
  }
  // Special values.
  const std::uint32_t specials[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
                                    0x7f800001u, 0xff800001u, 0x7fbfffffu, 0x7fffffffu, 0xffffffffu, 0x7f7fffffu,
                                    0xff7fffffu, 0x00000001u, 0x80000001u, 0x00800000u, 0x80800000u, 0x007fffffu,
                                    0x3f800000u, 0xbf800000u, 0x477fe000u, 0x477ff000u, 0x477fefffu, 0x43e00000u,
                                    0x43e80000u, 0x43f00000u, 0x47600000u, 0x47700000u, 0x476fffffu, 0x437f0000u};
  for (const std::uint32_t b : specials) {
    floats.push_back(float_from_bits(b));
    doubles.push_back(static_cast<double>(float_from_bits(b)));
  }
  const std::uint64_t dspecials[] = {0x7ff8000000000000ull, 0xfff0000000000001ull, 0x7ff0000000000000ull,
                                     0x0000000000000001ull, 0x8010000000000000ull, 0x7fefffffffffffffull,
                                     0x36a0000000000000ull, 0x369fffffffffffffull, 0x36a0000000000001ull};
  for (const std::uint64_t b : dspecials) doubles.push_back(double_from_bits(b));

  for_each_type(all_types{}, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    add_neighbourhood<T>(floats, doubles);
  });

  splitmix rng{0x0123456789abcdefull};
  for (int i = 0; i < (1 << 18); ++i) doubles.push_back(double_from_bits(rng.next()));
  for (int i = 0; i < (1 << 19); ++i) {
    const std::uint64_t r = rng.next();
    const int e = static_cast<int>(r % 321) - 160;
    const std::uint64_t mant = rng.next() & ((std::uint64_t{1} << 52) - 1);
    const double m = double_from_bits(0x3ff0000000000000ull | mant);
    doubles.push_back(std::ldexp((r >> 20 & 1) != 0 ? -m : m, e));
  }
}

// ---------------------------------------------------------------------------------------------
// The checks.
// ---------------------------------------------------------------------------------------------

template <class T, class S>
void check_conversions(const std::vector<S>& in, const device_buffer<S>& d_in, device_buffer<std::uint32_t>& d_out,
                       const char* src_name) {
  const mp::rounding modes[] = {mp::rounding::nearest_even, mp::rounding::nearest_away, mp::rounding::toward_zero,
                                mp::rounding::upward,       mp::rounding::downward,     mp::rounding::to_odd,
                                mp::rounding::stochastic};
  const mp::overflow policies[] = {mp::overflow::ieee, mp::overflow::saturate};
  const std::size_t n = in.size();
  std::vector<std::uint32_t> host(n);
  std::vector<std::uint32_t> dev;
  for (const mp::rounding m : modes) {
    for (const mp::overflow p : policies) {
      const convert_op<T, S> dop{d_in.get(), d_out.get(), m, p, kSeed};
      const bool ran = run_on_device(dop, n) && d_out.download(dev);
      const convert_op<T, S> hop{in.data(), host.data(), m, p, kSeed};
      run_on_host(hop, n);
      if (ran && inject_failures()) dev[n / 2] ^= 1u;
      std::size_t bad = 0;
      if (ran) {
        for (std::size_t i = 0; i < n; ++i) {
          if (dev[i] == host[i]) continue;
          if (++bad <= kMaxReported) {
            std::printf("  %s <- %s, %s, %s: input 0x%0*llx (%.17g): device 0x%x, host 0x%x\n", mp::finfo<T>::name,
                        src_name, mode_name(m), policy_name(p), static_cast<int>(2 * sizeof(S)),
                        static_cast<unsigned long long>(bits_of(in[i])), static_cast<double>(in[i]), dev[i], host[i]);
          }
        }
      }
      char what[256];
      std::snprintf(what, sizeof what, "%s <- %s, %s, %s: %zu of %zu differ%s", mp::finfo<T>::name, src_name,
                    mode_name(m), policy_name(p), bad, n, ran ? "" : " (the device did not run)");
      record(ran && bad == 0, what);
    }
  }
}

template <class T>
void check_decoding() {
  const std::size_t n = pattern_count<T>();
  device_buffer<std::uint32_t> d_f(n);
  device_buffer<std::uint64_t> d_d(n);
  device_buffer<std::uint32_t> d_c(n);
  std::vector<std::uint32_t> h_f(n), h_c(n), g_f, g_c;
  std::vector<std::uint64_t> h_d(n), g_d;
  const bool ran = run_on_device(decode_op<T>{d_f.get(), d_d.get(), d_c.get()}, n) && d_f.download(g_f) &&
                   d_d.download(g_d) && d_c.download(g_c);
  run_on_host(decode_op<T>{h_f.data(), h_d.data(), h_c.data()}, n);
  if (ran && inject_failures()) g_c[1] ^= 4u;

  std::size_t bad_f = 0, bad_d = 0, bad_c = 0, bad_consistency = 0;
  for (std::size_t i = 0; ran && i < n; ++i) {
    const auto pattern = static_cast<unsigned long long>(pattern_of<T>(i));
    if (g_f[i] != h_f[i] && ++bad_f <= kMaxReported) {
      std::printf("  %s 0x%llx -> float: device 0x%08x, host 0x%08x\n", mp::finfo<T>::name, pattern, g_f[i], h_f[i]);
    }
    if (g_d[i] != h_d[i] && ++bad_d <= kMaxReported) {
      std::printf("  %s 0x%llx -> double: device 0x%016llx, host 0x%016llx\n", mp::finfo<T>::name, pattern,
                  static_cast<unsigned long long>(g_d[i]), static_cast<unsigned long long>(h_d[i]));
    }
    if (g_c[i] != h_c[i] && ++bad_c <= kMaxReported) {
      std::printf("  %s 0x%llx classification: device 0x%x, host 0x%x\n", mp::finfo<T>::name, pattern, g_c[i], h_c[i]);
    }
  }
  // Host-side consistency of the classification with the decoded value.
  for (std::size_t i = 0; i < n; ++i) {
    const T v = T::from_bits(pattern_of<T>(i));
    const double x = static_cast<double>(v);
    const bool ok = mp::isnan(v) == std::isnan(x) && mp::isinf(v) == std::isinf(x) &&
                    mp::isfinite(v) == std::isfinite(x) && mp::signbit(v) == std::signbit(x) &&
                    ((mp::issubnormal)(v) || mp::isnormal(v)) == (std::isfinite(x) && x != 0.0) &&
                    (mp::fpclassify(v) == FP_ZERO) == (x == 0.0);
    if (!ok && ++bad_consistency <= kMaxReported) {
      std::printf("  %s 0x%llx (%.17g): classification 0x%x disagrees with the value\n", mp::finfo<T>::name,
                  static_cast<unsigned long long>(pattern_of<T>(i)), x, class_bits(v));
    }
  }
  char what[256];
  const char* no_run = ran ? "" : " (the device did not run)";
  std::snprintf(what, sizeof what, "%s: decode to float, %zu of %zu patterns differ%s", mp::finfo<T>::name, bad_f, n,
                no_run);
  record(ran && bad_f == 0, what);
  std::snprintf(what, sizeof what, "%s: decode to double, %zu of %zu patterns differ%s", mp::finfo<T>::name, bad_d, n,
                no_run);
  record(ran && bad_d == 0, what);
  std::snprintf(what, sizeof what, "%s: classification, %zu of %zu patterns differ%s", mp::finfo<T>::name, bad_c, n,
                no_run);
  record(ran && bad_c == 0, what);
  std::snprintf(what, sizeof what, "%s: classification consistent with the value (host), %zu of %zu patterns wrong",
                mp::finfo<T>::name, bad_consistency, n);
  record(bad_consistency == 0, what);
}

template <class T>
void check_api() {
  device_buffer<std::uint64_t> d_out(kApiWords);
  std::vector<std::uint64_t> host(kApiWords, 0), dev;
  const bool ran = run_on_device(api_op<T>{d_out.get()}, 1) && d_out.download(dev);
  run_on_host(api_op<T>{host.data()}, 1);
  if (ran && inject_failures()) dev[3] ^= 1u;
  std::size_t bad = 0;
  const std::uint64_t words = host[0];
  const bool fits = words < kApiWords;
  for (std::size_t i = 0; ran && i < kApiWords && i <= words; ++i) {
    if (dev[i] != host[i] && ++bad <= kMaxReported) {
      std::printf("  %s api word %zu: device 0x%llx, host 0x%llx\n", mp::finfo<T>::name, i,
                  static_cast<unsigned long long>(dev[i]), static_cast<unsigned long long>(host[i]));
    }
  }
  char what[256];
  std::snprintf(what, sizeof what, "%s: finfo, numeric_limits, classification, constructors, round_to: %zu of %llu "
                "values differ%s%s", mp::finfo<T>::name, bad, static_cast<unsigned long long>(words),
                fits ? "" : " (buffer too small)", ran ? "" : " (the device did not run)");
  record(ran && fits && bad == 0, what);
}

}  // namespace

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (!kEmulate) {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
      std::printf("SKIPPED: no CUDA device (cudaGetDeviceCount: %s, %d device(s))\n",
                  e == cudaSuccess ? "success" : cudaGetErrorString(e), e == cudaSuccess ? count : 0);
      std::printf("test_cuda_formats: 0 passed, 0 failed, 1 skipped\n");
      return 77;  // CTest's SKIP_RETURN_CODE: skipped, not passed
    }
    cudaDeviceProp prop{};
    if (CUDA_OK(cudaGetDeviceProperties(&prop, 0))) {
      std::printf("device 0: %s (compute capability %d.%d)\n", prop.name, prop.major, prop.minor);
    }
  } else {
    std::printf("EMULATION: the \"device\" side runs on the host (MIXPREC_CUDA_TEST_EMULATE)\n");
  }

  std::vector<float> floats;
  std::vector<double> doubles;
  make_inputs(floats, doubles);
  std::printf("inputs: %zu floats, %zu doubles\n", floats.size(), doubles.size());

  {
    device_buffer<float> d_floats(floats.size());
    device_buffer<double> d_doubles(doubles.size());
    device_buffer<std::uint32_t> d_out(floats.size() > doubles.size() ? floats.size() : doubles.size());
    const bool uploaded = d_floats.upload(floats) && d_doubles.upload(doubles);
    record(uploaded, "upload of the inputs");
    if (uploaded) {
      for_each_type(all_types{}, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        check_conversions<T>(floats, d_floats, d_out, "float");
        check_conversions<T>(doubles, d_doubles, d_out, "double");
      });
    }
  }
  for_each_type(all_types{}, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    check_decoding<T>();
    check_api<T>();
  });

  if (g_cuda_error) std::printf("note: CUDA errors occurred (see above)\n");
  std::printf("test_cuda_formats: %d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
