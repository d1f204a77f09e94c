// SPDX-License-Identifier: MIT
// bench/bench_convert.cpp — throughput of float -> half, half -> float, float -> bfloat16 and
// bfloat16 -> float over arrays: mixprec against Eigen, Imath, fp16.h, the F16C and AVX-512
// instructions and a plain narrowing/widening copy, all in the same run.
//
// Build, run and results: bench/README.md. Names are  <direction>/<implementation>/<data>/<n>:
//   direction  f2h (float -> half), h2f, f2b (float -> bfloat16), b2f
//   data       normal: N(0,1), fixed seed (realistic weights/activations: normal halves, a few
//                      subnormal ones, no overflow);
//              wide:   N(0,1) * 2^k, k uniform in [-24, 20]: about a third of the values are
//                      half subnormals, zeros or overflow to infinity, in random order (branchy
//                      code mispredicts at n = 262144; at n = 4096 the same block repeats every
//                      iteration and a modern branch predictor learns much of it).
//   n          elements per call (4096: in L1; 262144 = 256K: 1 MiB of floats, in L2/L3)
// bytes_per_second counts input plus output bytes (6 bytes per element); items_per_second is
// elements per second.
//
// Before running the benchmarks, every implementation is checked against mixprec on a fixed
// verification set (all halves / all bfloat16s for the widening direction; for narrowing, a
// stride through all floats plus every rounding tie and its neighbours). The label of each
// benchmark says "ok" or how many results differ; details are printed to stderr.
// NaN results count as equal when both are NaN (payloads are not compared).
//
// modes/<pair>/<mode>/<policy>/<n>: mixprec::convert(exec::seq, ...) in every rounding mode and
// overflow policy (issue 31), pair f2h, f2b, f2e4m3fn, f2e5m2, f2e2m1, f2tf32 (float -> the format),
// d2h, d2b, d2e4m3fn, d2e5m2, d2e2m1 (double -> the format; data: the floats below, each times
// 1 +- 2^-30) or e4m3fn2f, e5m2f, e2m12f, e8m02f, ue5m32f (decode), and f2<format> / <format>2f for
// every other FP8/FP6/FP4 format, e8m0 and ue4m3/ue5m3; mode stochastic_philox: stochastic rounding
// from rng_kind::philox4x32_10; modes/<pair>/copy/<n>: the movement limit, a loop that reads
// the same source bytes and writes the same destination bytes (u32/u64 -> low bits, or u8 -> u32),
// and modes/<pair>/memcpy/<n>: memcpy of the larger of the two arrays. Data: N(0,1) * 2^k, k
// uniform in [-8, 8]. bench/bench_convert_table.py --modes prints the ratios table.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <mixprec/mixprec.hpp>
#include <mixprec/kernels/convert.hpp>

#if defined(__has_include)
#if !defined(MIXPREC_BENCH_HAVE_EIGEN) && __has_include(<Eigen/Core>)
#define MIXPREC_BENCH_HAVE_EIGEN 1
#endif
#if !defined(MIXPREC_BENCH_HAVE_IMATH) && __has_include(<Imath/half.h>)
#define MIXPREC_BENCH_HAVE_IMATH 1
#endif
#if !defined(MIXPREC_BENCH_HAVE_FP16) && __has_include(<fp16.h>)
#define MIXPREC_BENCH_HAVE_FP16 1
#endif
#endif
#if !defined(MIXPREC_BENCH_HAVE_EIGEN)
#define MIXPREC_BENCH_HAVE_EIGEN 0
#endif
#if !defined(MIXPREC_BENCH_HAVE_IMATH)
#define MIXPREC_BENCH_HAVE_IMATH 0
#endif
#if !defined(MIXPREC_BENCH_HAVE_FP16)
#define MIXPREC_BENCH_HAVE_FP16 0
#endif

#if MIXPREC_BENCH_HAVE_EIGEN
#include <Eigen/Core>
#endif
#if MIXPREC_BENCH_HAVE_IMATH
#include <Imath/half.h>
#endif
#if MIXPREC_BENCH_HAVE_FP16
#include <fp16.h>
#endif

// bench/CMakeLists.txt adds bench/convert/portable_peers.cpp (compiled with -mno-f16c) and
// defines this; a direct compiler command may leave it out.
#if defined(MIXPREC_BENCH_PORTABLE_PEERS) && MIXPREC_BENCH_PORTABLE_PEERS
#include "convert/portable_peers.hpp"
#else
#undef MIXPREC_BENCH_PORTABLE_PEERS
#define MIXPREC_BENCH_PORTABLE_PEERS 0
#endif

// x86 intrinsics: each function that uses them carries its own target attribute, so the file
// builds without -march flags; they are run only where cpuid says the CPU has the instructions.
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define MIXPREC_BENCH_X86 1
#include <cpuid.h>
#include <immintrin.h>
#define MIXPREC_BENCH_TARGET(t) __attribute__((target(t)))
#else
#define MIXPREC_BENCH_X86 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define MIXPREC_BENCH_NOINLINE __attribute__((noinline))
#define MIXPREC_BENCH_RESTRICT __restrict
#else
#define MIXPREC_BENCH_NOINLINE
#define MIXPREC_BENCH_RESTRICT
#endif

namespace {

using narrow_fn = void (*)(const float*, std::uint16_t*, std::size_t);
using widen_fn = void (*)(const std::uint16_t*, float*, std::size_t);

std::uint32_t float_bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
float bits_float(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// ---------------------------------------------------------------------------------------------
// CPU features (cpuid + xgetbv: the OS must save the vector state too).
// ---------------------------------------------------------------------------------------------
struct cpu_features {
  bool f16c = false;
  bool avx512f = false;
  bool avx512bf16 = false;  // with avx512bw and avx512vl, which the fix-up needs
};

cpu_features detect_cpu() {
  cpu_features c;
#if MIXPREC_BENCH_X86
  unsigned a = 0, b = 0, cx = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &cx, &d)) return c;
  const bool osxsave = (cx >> 27) & 1u;
  const bool avx = (cx >> 28) & 1u;
  const bool f16c = (cx >> 29) & 1u;
  if (!osxsave) return c;
  unsigned xcr0_lo = 0, xcr0_hi = 0;
  __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  const bool os_avx = (xcr0_lo & 0x6u) == 0x6u;
  const bool os_avx512 = (xcr0_lo & 0xE6u) == 0xE6u;
  c.f16c = avx && f16c && os_avx;
  const unsigned max_leaf = static_cast<unsigned>(__get_cpuid_max(0, nullptr));
  if (max_leaf >= 7) {
    __cpuid_count(7, 0, a, b, cx, d);
    const bool f = (b >> 16) & 1u, bw = (b >> 30) & 1u, vl = (b >> 31) & 1u;
    c.avx512f = f && os_avx512;
    __cpuid_count(7, 1, a, b, cx, d);
    const bool bf16 = (a >> 5) & 1u;
    c.avx512bf16 = c.avx512f && bw && vl && bf16;
  }
#endif
  return c;
}

const cpu_features cpu = detect_cpu();

// ---------------------------------------------------------------------------------------------
// Kernels. Each is a plain loop over the array, kept out of line so that every implementation
// is compiled the same way and can be read with objdump (bench/README.md).
// ---------------------------------------------------------------------------------------------

// --- mixprec ---
template <class T>
MIXPREC_BENCH_NOINLINE void mixprec_narrow(const float* MIXPREC_BENCH_RESTRICT in,
                                           std::uint16_t* MIXPREC_BENCH_RESTRICT out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = T(in[i]).bits();
}
template <class T>
MIXPREC_BENCH_NOINLINE void mixprec_round_to_narrow(const float* MIXPREC_BENCH_RESTRICT in,
                                                    std::uint16_t* MIXPREC_BENCH_RESTRICT out,
                                                    std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = mixprec::round_to<T>(in[i]).bits();
}
template <class T>
MIXPREC_BENCH_NOINLINE void mixprec_widen(const std::uint16_t* MIXPREC_BENCH_RESTRICT in,
                                          float* MIXPREC_BENCH_RESTRICT out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(T::from_bits(in[i]));
}

// The generic converter (detail::decode_bits to a 64-bit significand, detail::encode_bits with the rounding
// mode as a run-time value) that every conversion used before the 32-bit fast paths of
// detail/fast_float32.hpp and that the other modes and formats still use. Internal API: kept
// here to measure what the fast paths gain, in the same run.
template <class T>
MIXPREC_BENCH_NOINLINE void mixprec_generic_narrow(const float* MIXPREC_BENCH_RESTRICT in,
                                                   std::uint16_t* MIXPREC_BENCH_RESTRICT out,
                                                   std::size_t n) {
  namespace d = mixprec::detail;
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = d::encode_bits<typename T::format_type>(d::decode_bits<mixprec::float32_format>(float_bits(in[i])),
                                              mixprec::rounding::nearest_even, mixprec::overflow::ieee);
  }
}
template <class T>
MIXPREC_BENCH_NOINLINE void mixprec_generic_widen(const std::uint16_t* MIXPREC_BENCH_RESTRICT in,
                                                  float* MIXPREC_BENCH_RESTRICT out, std::size_t n) {
  namespace d = mixprec::detail;
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = bits_float(d::encode_bits<mixprec::float32_format>(d::decode_bits<typename T::format_type>(in[i]),
                                                         mixprec::rounding::nearest_even,
                                                         mixprec::overflow::ieee));
  }
}

// --- data-movement limits ---
// GCC -O2 (very-cheap vectorizer cost model) does not vectorize a loop whose trip count is not
// known to be a multiple of the vector length, so the copies are written as blocks of 16 with a
// scalar tail: the block loop vectorizes at -O2 and the copies run at the speed of the memory
// traffic (one vpmovdw/vpsrld and the loads/stores), the bound any converter can reach.
MIXPREC_BENCH_NOINLINE void narrowing_copy(const float* MIXPREC_BENCH_RESTRICT in,
                                           std::uint16_t* MIXPREC_BENCH_RESTRICT out, std::size_t n) {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (std::size_t j = 0; j < 16; ++j) {
      std::uint32_t u;
      std::memcpy(&u, in + i + j, sizeof u);
      out[i + j] = static_cast<std::uint16_t>(u >> 16);
    }
  }
  for (; i < n; ++i) out[i] = static_cast<std::uint16_t>(float_bits(in[i]) >> 16);
}
// Also the bfloat16 -> float conversion, bit for bit as mixprec does it (bit extension).
MIXPREC_BENCH_NOINLINE void widening_copy(const std::uint16_t* MIXPREC_BENCH_RESTRICT in,
                                          float* MIXPREC_BENCH_RESTRICT out, std::size_t n) {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (std::size_t j = 0; j < 16; ++j) {
      const std::uint32_t u = static_cast<std::uint32_t>(in[i + j]) << 16;
      std::memcpy(out + i + j, &u, sizeof u);
    }
  }
  for (; i < n; ++i) out[i] = bits_float(static_cast<std::uint32_t>(in[i]) << 16);
}

// --- Eigen (compiled with the flags of this file: F16C instructions when __F16C__) ---
#if MIXPREC_BENCH_HAVE_EIGEN
MIXPREC_BENCH_NOINLINE void eigen_f2h(const float* MIXPREC_BENCH_RESTRICT in,
                                      std::uint16_t* MIXPREC_BENCH_RESTRICT out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = Eigen::numext::bit_cast<std::uint16_t>(Eigen::half(in[i]));
}
MIXPREC_BENCH_NOINLINE void eigen_h2f(const std::uint16_t* MIXPREC_BENCH_RESTRICT in,
                                      float* MIXPREC_BENCH_RESTRICT out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(in[i]));
}
MIXPREC_BENCH_NOINLINE void eigen_f2b(const float* MIXPREC_BENCH_RESTRICT in,
                                      std::uint16_t* MIXPREC_BENCH_RESTRICT out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = Eigen::numext::bit_cast<std::uint16_t>(Eigen::bfloat16(in[i]));
}
MIXPREC_BENCH_NOINLINE void eigen_b2f(const std::uint16_t* MIXPREC_BENCH_RESTRICT in,
                                      float* MIXPREC_BENCH_RESTRICT out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = static_cast<float>(Eigen::numext::bit_cast<Eigen::bfloat16>(in[i]));
  }
}
#endif

// --- Imath (F16C instructions when __F16C__, else bit shifts / lookup table) ---
#if MIXPREC_BENCH_HAVE_IMATH
MIXPREC_BENCH_NOINLINE void imath_f2h(const float* MIXPREC_BENCH_RESTRICT in,
                                      std::uint16_t* MIXPREC_BENCH_RESTRICT out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = Imath::half(in[i]).bits();
}
MIXPREC_BENCH_NOINLINE void imath_h2f(const std::uint16_t* MIXPREC_BENCH_RESTRICT in,
                                      float* MIXPREC_BENCH_RESTRICT out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(Imath::half(Imath::half::FromBits, in[i]));
}
#endif

// --- fp16.h (portable bit manipulation plus float multiplies) ---
#if MIXPREC_BENCH_HAVE_FP16
MIXPREC_BENCH_NOINLINE void fp16_f2h(const float* MIXPREC_BENCH_RESTRICT in,
                                     std::uint16_t* MIXPREC_BENCH_RESTRICT out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = fp16_ieee_from_fp32_value(in[i]);
}
MIXPREC_BENCH_NOINLINE void fp16_h2f(const std::uint16_t* MIXPREC_BENCH_RESTRICT in,
                                     float* MIXPREC_BENCH_RESTRICT out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = fp16_ieee_to_fp32_value(in[i]);
}
#endif

// --- x86 vector instructions ---
#if MIXPREC_BENCH_X86
constexpr int kRne = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// One element (the loop tails). Not _cvtss_sh: Clang's is a macro with a compound literal.
MIXPREC_BENCH_TARGET("avx,f16c")
inline std::uint16_t f16c_one(float x) {
  return static_cast<std::uint16_t>(_mm_cvtsi128_si32(_mm_cvtps_ph(_mm_set_ss(x), kRne)));
}

MIXPREC_BENCH_TARGET("avx,f16c")
MIXPREC_BENCH_NOINLINE void f16c256_f2h(const float* MIXPREC_BENCH_RESTRICT in,
                                        std::uint16_t* MIXPREC_BENCH_RESTRICT out, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), kRne);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
  }
  for (; i < n; ++i) out[i] = f16c_one(in[i]);
}
MIXPREC_BENCH_TARGET("avx,f16c")
MIXPREC_BENCH_NOINLINE void f16c256_h2f(const std::uint16_t* MIXPREC_BENCH_RESTRICT in,
                                        float* MIXPREC_BENCH_RESTRICT out, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 f = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i)));
    _mm256_storeu_ps(out + i, f);
  }
  for (; i < n; ++i) out[i] = _cvtsh_ss(in[i]);
}
MIXPREC_BENCH_TARGET("avx512f,f16c")
MIXPREC_BENCH_NOINLINE void avx512_f2h(const float* MIXPREC_BENCH_RESTRICT in,
                                       std::uint16_t* MIXPREC_BENCH_RESTRICT out, std::size_t n) {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i h = _mm512_cvtps_ph(_mm512_loadu_ps(in + i), kRne);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), h);
  }
  for (; i < n; ++i) out[i] = f16c_one(in[i]);
}
MIXPREC_BENCH_TARGET("avx512f,f16c")
MIXPREC_BENCH_NOINLINE void avx512_h2f(const std::uint16_t* MIXPREC_BENCH_RESTRICT in,
                                       float* MIXPREC_BENCH_RESTRICT out, std::size_t n) {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 f = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i)));
    _mm512_storeu_ps(out + i, f);
  }
  for (; i < n; ++i) out[i] = _cvtsh_ss(in[i]);
}

// vcvtneps2bf16: round to nearest even, but subnormal inputs are read as zero (and NaNs are
// quieted). On its own it is NOT a correct float -> bfloat16 conversion.
MIXPREC_BENCH_TARGET("avx512f,avx512bw,avx512vl,avx512bf16")
MIXPREC_BENCH_NOINLINE void avx512bf16_f2b(const float* MIXPREC_BENCH_RESTRICT in,
                                           std::uint16_t* MIXPREC_BENCH_RESTRICT out, std::size_t n) {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256bh r = _mm512_cvtneps_pbh(_mm512_loadu_ps(in + i));
    std::memcpy(out + i, &r, sizeof r);
  }
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    const __m256bh r = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(m, in + i));
    std::uint16_t tmp[16];
    std::memcpy(tmp, &r, sizeof r);
    std::memcpy(out + i, tmp, (n - i) * sizeof(std::uint16_t));
  }
}

// The same, plus a fix-up that makes it correct: lanes holding a non-zero subnormal are
// recomputed with integer round-to-nearest-even ((u + 0x7fff + lsb) >> 16 is exact there).
// The fix-up branch is not taken when a block has no subnormal float.
MIXPREC_BENCH_TARGET("avx512f,avx512bw,avx512vl,avx512bf16")
inline __m256i avx512bf16_fixed_block(__m512 x) {
  const __m256bh r = _mm512_cvtneps_pbh(x);
  __m256i h;
  std::memcpy(&h, &r, sizeof h);
  const __m512i u = _mm512_castps_si512(x);
  const __m512i mag = _mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff));
  const __mmask16 nonzero = _mm512_test_epi32_mask(mag, mag);
  const __mmask16 sub = _mm512_mask_cmplt_epu32_mask(nonzero, mag, _mm512_set1_epi32(0x00800000));
  if (sub != 0) {
    const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    const __m512i rounded =
        _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)), lsb), 16);
    h = _mm256_mask_blend_epi16(sub, h, _mm512_cvtepi32_epi16(rounded));
  }
  return h;
}
MIXPREC_BENCH_TARGET("avx512f,avx512bw,avx512vl,avx512bf16")
MIXPREC_BENCH_NOINLINE void avx512bf16_fixed_f2b(const float* MIXPREC_BENCH_RESTRICT in,
                                                 std::uint16_t* MIXPREC_BENCH_RESTRICT out,
                                                 std::size_t n) {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), avx512bf16_fixed_block(_mm512_loadu_ps(in + i)));
  }
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    _mm256_mask_storeu_epi16(out + i, m, avx512bf16_fixed_block(_mm512_maskz_loadu_ps(m, in + i)));
  }
}
#endif  // MIXPREC_BENCH_X86

// ---------------------------------------------------------------------------------------------
// Input data.
// ---------------------------------------------------------------------------------------------
enum class dataset { normal, wide };
const char* dataset_name(dataset d) { return d == dataset::normal ? "normal" : "wide"; }

const std::vector<float>& float_input(dataset d, std::size_t n) {
  static std::map<std::pair<int, std::size_t>, std::vector<float>> cache;
  auto& v = cache[{static_cast<int>(d), n}];
  if (v.empty()) {
    std::mt19937_64 rng(0x6d697870726563ULL + static_cast<std::uint64_t>(d));  // fixed seed
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_int_distribution<int> scale(-24, 20);
    v.resize(n);
    for (auto& x : v) {
      x = normal(rng);
      if (d == dataset::wide) x = std::ldexp(x, scale(rng));
    }
  }
  return v;
}

// The narrow inputs of the widening benchmarks: the dataset rounded by mixprec.
template <class T>
const std::vector<std::uint16_t>& narrow_input(dataset d, std::size_t n) {
  static std::map<std::pair<int, std::size_t>, std::vector<std::uint16_t>> cache;
  auto& v = cache[{static_cast<int>(d), n}];
  if (v.empty()) {
    const auto& f = float_input(d, n);
    v.resize(n);
    mixprec_narrow<T>(f.data(), v.data(), n);
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// Verification against mixprec.
// ---------------------------------------------------------------------------------------------
template <class T>
bool narrow_is_nan(std::uint16_t b) {
  return mixprec::detail::decode_bits<typename T::format_type>(b).cls == mixprec::detail::value_class::nan;
}

// Floats to check narrowing on: a stride through all 2^32 bit patterns (zeros, subnormals,
// normals, infinities and NaNs of both signs), plus, for every finite positive value h of T, the
// exact midpoint between h and its successor and the floats just below and above it, both signs.
template <class T>
std::vector<float> narrowing_check_set() {
  std::vector<float> v;
  for (std::uint64_t u = 0; u <= 0xffffffffULL; u += 4099) v.push_back(bits_float(static_cast<std::uint32_t>(u)));
  const std::uint16_t max_code = static_cast<std::uint16_t>(T::format_type::max_code);
  for (std::uint16_t c = 0; c < max_code; ++c) {
    const double lo = static_cast<double>(T::from_bits(c));
    const double hi = static_cast<double>(T::from_bits(static_cast<std::uint16_t>(c + 1)));
    const float mid = static_cast<float>((lo + hi) / 2);  // exact: fewer than 24 bits
    for (float m : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f)}) {
      v.push_back(m);
      v.push_back(-m);
    }
  }
  // Just above the largest finite value: the overflow threshold and its neighbours.
  const double maxv = static_cast<double>(T::from_bits(max_code));
  const double ulp = maxv - static_cast<double>(T::from_bits(static_cast<std::uint16_t>(max_code - 1)));
  const float thr = static_cast<float>(maxv + ulp / 2);
  for (float m : {thr, std::nextafter(thr, 0.0f), std::nextafter(thr, 1e30f)}) {
    v.push_back(m);
    v.push_back(-m);
  }
  return v;
}

struct check_result {
  std::size_t checked = 0;
  std::size_t differ = 0;
  std::string first;  // the first difference, for stderr
};

std::string label_of(const check_result& r) {
  if (r.checked == 0) return "unchecked";
  if (r.differ == 0) return "ok";
  return "WRONG " + std::to_string(r.differ) + "/" + std::to_string(r.checked);
}

template <class T>
check_result check_narrow(narrow_fn fn) {
  static const std::vector<float> in = narrowing_check_set<T>();
  static const std::vector<std::uint16_t> want = [] {
    std::vector<std::uint16_t> w(in.size());
    mixprec_narrow<T>(in.data(), w.data(), in.size());
    return w;
  }();
  std::vector<std::uint16_t> got(in.size());
  fn(in.data(), got.data(), in.size());
  check_result r;
  r.checked = in.size();
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (got[i] == want[i] || (narrow_is_nan<T>(got[i]) && narrow_is_nan<T>(want[i]))) continue;
    if (r.differ++ == 0) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "float 0x%08x (%g): mixprec 0x%04x, got 0x%04x",
                    static_cast<unsigned>(float_bits(in[i])), static_cast<double>(in[i]),
                    static_cast<unsigned>(want[i]), static_cast<unsigned>(got[i]));
      r.first = buf;
    }
  }
  return r;
}

template <class T>
check_result check_widen(widen_fn fn) {
  std::vector<std::uint16_t> in(65536);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint16_t>(i);
  std::vector<float> want(in.size()), got(in.size());
  mixprec_widen<T>(in.data(), want.data(), in.size());
  fn(in.data(), got.data(), in.size());
  check_result r;
  r.checked = in.size();
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (float_bits(got[i]) == float_bits(want[i]) || (std::isnan(got[i]) && std::isnan(want[i]))) continue;
    if (r.differ++ == 0) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "0x%04x: mixprec 0x%08x, got 0x%08x", static_cast<unsigned>(in[i]),
                    static_cast<unsigned>(float_bits(want[i])), static_cast<unsigned>(float_bits(got[i])));
      r.first = buf;
    }
  }
  return r;
}

// ---------------------------------------------------------------------------------------------
// Benchmarks.
// ---------------------------------------------------------------------------------------------
void bm_narrow(benchmark::State& state, narrow_fn fn, const std::vector<float>* in, const std::string& label) {
  const std::size_t n = in->size();
  std::vector<std::uint16_t> out(n);
  const float* src = in->data();
  std::uint16_t* dst = out.data();
  for (auto _ : state) {
    benchmark::DoNotOptimize(src);  // the compiler may not assume what src holds...
    fn(src, dst, n);
    benchmark::DoNotOptimize(dst);  // ...and must assume dst[] is read: the stores stay
    benchmark::ClobberMemory();
  }
  const auto items = static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n);
  state.SetItemsProcessed(items);
  state.SetBytesProcessed(items * static_cast<std::int64_t>(sizeof(float) + sizeof(std::uint16_t)));
  state.SetLabel(label);
}

void bm_widen(benchmark::State& state, widen_fn fn, const std::vector<std::uint16_t>* in,
              const std::string& label) {
  const std::size_t n = in->size();
  std::vector<float> out(n);
  const std::uint16_t* src = in->data();
  float* dst = out.data();
  for (auto _ : state) {
    benchmark::DoNotOptimize(src);
    fn(src, dst, n);
    benchmark::DoNotOptimize(dst);
    benchmark::ClobberMemory();
  }
  const auto items = static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n);
  state.SetItemsProcessed(items);
  state.SetBytesProcessed(items * static_cast<std::int64_t>(sizeof(float) + sizeof(std::uint16_t)));
  state.SetLabel(label);
}

struct narrow_impl {
  std::string name;
  narrow_fn fn;
  bool available;
  std::string note;             // appended to the label
  bool conversion = true;       // false: a copy that only bounds the speed, not checked
};
struct widen_impl {
  std::string name;
  widen_fn fn;
  bool available;
  std::string note;
  bool conversion = true;
};

template <class Impl, class Check>
std::string check_and_label(const char* dir, const Impl& im, Check check) {
  std::string label;
  check_result r;
  if (im.conversion) {
    r = check(im.fn);
    label = label_of(r);
  } else {
    label = "bound";
  }
  if (!im.note.empty()) label += "; " + im.note;
  std::fprintf(stderr, "  %-28s %s%s%s\n", (std::string(dir) + "/" + im.name).c_str(), label.c_str(),
               r.first.empty() ? "" : "; first: ", r.first.c_str());
  return label;
}

struct bench_case {
  dataset data;
  std::size_t n;
};
const bench_case kCases[] = {{dataset::normal, 4096}, {dataset::normal, 262144}, {dataset::wide, 4096}, {dataset::wide, 262144}};

// Which code Eigen and Imath really use in this translation unit. Eigen 3.4.0 enables its F16C
// path only for Clang: its test (ConfigureVectorization.h) is
//   defined(__F16C__) && (!defined(EIGEN_COMP_CLANG) || EIGEN_COMP_CLANG >= 380)
// and EIGEN_COMP_CLANG is defined as 0 under GCC, so with GCC Eigen::half is portable code even
// with -march=native. Imath 3.1 tests __F16C__ alone.
#if MIXPREC_BENCH_HAVE_EIGEN && defined(EIGEN_HAS_FP16_C)
const char* const kEigenPath = "F16C scalar instr.";
constexpr bool kEigenIsPortable = false;
#else
const char* const kEigenPath = "portable code";
constexpr bool kEigenIsPortable = true;
#endif
#if defined(__F16C__)
const char* const kImathPath = "F16C scalar instr.";
constexpr bool kImathIsPortable = false;
#else
const char* const kImathPath = "portable code";
constexpr bool kImathIsPortable = true;
#endif

// MIXPREC_BENCH_ITERATIONS=N in the environment runs every benchmark exactly N iterations (no
// calibration runs): for counting cycles and instructions per element with `perf stat`.
benchmark::internal::Benchmark* fixed_iterations(benchmark::internal::Benchmark* b) {
  static const long long n = [] {
    const char* e = std::getenv("MIXPREC_BENCH_ITERATIONS");
    return e != nullptr ? std::atoll(e) : 0LL;
  }();
  if (n > 0) b->Iterations(static_cast<benchmark::IterationCount>(n));
  return b;
}

template <class T>
void register_narrow(const char* dir, const std::vector<narrow_impl>& impls) {
  for (const auto& im : impls) {
    if (!im.available) {
      std::fprintf(stderr, "  %s/%s: skipped (not on this CPU/build, or the same code as another row)\n", dir, im.name.c_str());
      continue;
    }
    const std::string label = check_and_label(dir, im, check_narrow<T>);
    for (const auto& c : kCases) {
      const auto* in = &float_input(c.data, c.n);
      const std::string name =
          std::string(dir) + "/" + im.name + "/" + dataset_name(c.data) + "/" + std::to_string(c.n);
      fixed_iterations(benchmark::RegisterBenchmark(name.c_str(), bm_narrow, im.fn, in, label));
    }
  }
}

template <class T>
void register_widen(const char* dir, const std::vector<widen_impl>& impls) {
  for (const auto& im : impls) {
    if (!im.available) {
      std::fprintf(stderr, "  %s/%s: skipped (not on this CPU/build, or the same code as another row)\n", dir, im.name.c_str());
      continue;
    }
    const std::string label = check_and_label(dir, im, check_widen<T>);
    for (const auto& c : kCases) {
      const auto* in = &narrow_input<T>(c.data, c.n);
      const std::string name =
          std::string(dir) + "/" + im.name + "/" + dataset_name(c.data) + "/" + std::to_string(c.n);
      fixed_iterations(benchmark::RegisterBenchmark(name.c_str(), bm_widen, im.fn, in, label));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Every rounding mode and overflow policy of mixprec::convert (issue 31).
// ---------------------------------------------------------------------------------------------
const std::vector<float>& modes_input(std::size_t n) {
  static std::map<std::size_t, std::vector<float>> cache;
  auto& v = cache[n];
  if (v.empty()) {
    std::mt19937 rng(31);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::uniform_int_distribution<int> k(-8, 8);
    v.resize(n);
    for (auto& x : v) x = std::ldexp(nd(rng), k(rng));
  }
  return v;
}

/// The same values as doubles, each nudged by a relative 2^-30 (bits below float's precision).
const std::vector<double>& modes_input_double(std::size_t n) {
  static std::map<std::size_t, std::vector<double>> cache;
  auto& v = cache[n];
  if (v.empty()) {
    const auto& f = modes_input(n);
    v.resize(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<double>(f[i]) * (1.0 + std::ldexp(i % 2 ? 1.0 : -1.0, -30));
  }
  return v;
}
template <class S>
const std::vector<S>& modes_input_of(std::size_t n) {
  if constexpr (std::is_same<S, double>::value) {
    return modes_input_double(n);
  } else {
    return modes_input(n);
  }
}

template <class T, class S = float>
void bm_mode_encode(benchmark::State& state, mixprec::rounding mode, mixprec::overflow ovf, mixprec::rng_kind gen) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  const auto& in = modes_input_of<S>(n);
  std::vector<T> out(n);
  for (auto _ : state) {
    benchmark::DoNotOptimize(in.data());
    mixprec::convert(mixprec::exec::seq, in, out, mode, ovf, 42, 0, gen);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
  // the result must be round_to's: check it once, outside the timing
  const mixprec::sr_rng r(gen, 42);
  for (std::size_t i = 0; i < n; ++i) {
    const T want = mixprec::round_to<T>(in[i], mode, ovf, mode == mixprec::rounding::stochastic ? r(i) : 0u);
    if (want.bits() != out[i].bits()) {
      state.SkipWithError("result differs from round_to");
      break;
    }
  }
}

template <class T>
void bm_mode_decode(benchmark::State& state) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  const auto& f = modes_input(n);
  std::vector<T> in(n);
  mixprec::convert(mixprec::exec::seq, f, in);
  for (std::size_t i = 0; i < n; i += 97) in[i] = T::from_bits(static_cast<typename T::storage_type>(i));  // every code
  std::vector<float> out(n);
  for (auto _ : state) {
    benchmark::DoNotOptimize(in.data());
    mixprec::convert(mixprec::exec::seq, in, out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
  for (std::size_t i = 0; i < n; ++i) {
    const float want = mixprec::round_to<float>(in[i]);
    if (float_bits(want) != float_bits(out[i])) {
      state.SkipWithError("result differs from round_to");
      break;
    }
  }
}

/// The movement kernels: every source byte read, every destination byte written, one
/// instruction of work per vector (vpmovdb / vpmovdw / vpmovqb / vpmovqw / vpmovzxbd, or a copy for tf32, with AVX-512;
/// with AVX2 only, vpmovzxbd for the decode rows and the tf32 copy; plain loops otherwise, which -O2 may leave scalar).
template <class Src, class Dst>
void movement_copy(const Src* s, Dst* d, std::size_t n) {
  std::size_t i = 0;
#if defined(__AVX512F__) && defined(__AVX512BW__)
  if constexpr (sizeof(Src) == 4 && sizeof(Dst) == 1) {
    for (; i + 16 <= n; i += 16) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i), _mm512_cvtepi32_epi8(_mm512_loadu_si512(s + i)));
    }
  } else if constexpr (sizeof(Src) == 4 && sizeof(Dst) == 2) {
    for (; i + 16 <= n; i += 16) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i), _mm512_cvtepi32_epi16(_mm512_loadu_si512(s + i)));
    }
  } else if constexpr (sizeof(Src) == 8 && sizeof(Dst) == 1) {
    for (; i + 8 <= n; i += 8) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(d + i), _mm512_cvtepi64_epi8(_mm512_loadu_si512(s + i)));
    }
  } else if constexpr (sizeof(Src) == 8 && sizeof(Dst) == 2) {
    for (; i + 8 <= n; i += 8) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i), _mm512_cvtepi64_epi16(_mm512_loadu_si512(s + i)));
    }
  } else if constexpr (sizeof(Src) == 4 && sizeof(Dst) == 4) {
    for (; i + 16 <= n; i += 16) _mm512_storeu_si512(d + i, _mm512_loadu_si512(s + i));
  } else if constexpr (sizeof(Src) == 1 && sizeof(Dst) == 4) {
    for (; i + 16 <= n; i += 16) {
      _mm512_storeu_si512(d + i, _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i))));
    }
  }
#elif defined(__AVX2__)
  if constexpr (sizeof(Src) == 1 && sizeof(Dst) == 4) {  // the decode rows' limit in an AVX2 build
    for (; i + 8 <= n; i += 8) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i),
                          _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s + i))));
    }
  } else if constexpr (sizeof(Src) == 4 && sizeof(Dst) == 4) {
    for (; i + 8 <= n; i += 8) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i)));
    }
  }
#endif
  for (; i < n; ++i) d[i] = static_cast<Dst>(s[i]);
}

/// The movement limit: read n Src, write n Dst, the least work that touches every byte.
template <class Src, class Dst>
void bm_mode_copy(benchmark::State& state) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  std::vector<Src> in(n, Src{1});
  std::vector<Dst> out(n);
  for (auto _ : state) {
    benchmark::DoNotOptimize(in.data());
    movement_copy(in.data(), out.data(), n);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
}
void bm_mode_memcpy(benchmark::State& state, std::size_t bytes_per_element) {
  const std::size_t n = static_cast<std::size_t>(state.range(0)) * bytes_per_element;
  std::vector<unsigned char> in(n, 1), out(n);
  for (auto _ : state) {
    benchmark::DoNotOptimize(in.data());
    std::memcpy(out.data(), in.data(), n);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}

/// modes/<pair>/<mode>/<policy> rows (stochastic_philox: rounding::stochastic with rng_kind::philox4x32_10)
/// for S (float or double) -> T, then the pair's movement rows.
template <class T, class S = float>
void register_modes_encode(const char* pair) {
  using mixprec::overflow;
  using mixprec::rounding;
  const std::vector<long> sizes = {16384};
  for (rounding m : {rounding::nearest_even, rounding::nearest_away, rounding::toward_zero, rounding::upward,
                     rounding::downward, rounding::to_odd, rounding::stochastic}) {
    for (overflow o : {overflow::ieee, overflow::saturate}) {
      for (mixprec::rng_kind g : {mixprec::rng_kind::splitmix64, mixprec::rng_kind::philox4x32_10}) {
        if (g == mixprec::rng_kind::philox4x32_10 && m != rounding::stochastic) continue;
        const std::string mode = std::string(mixprec::to_string(m)) + (g == mixprec::rng_kind::philox4x32_10 ? "_philox" : "");
        const std::string name = std::string("modes/") + pair + "/" + mode + "/" + mixprec::to_string(o);
        for (long n : sizes) fixed_iterations(benchmark::RegisterBenchmark(name.c_str(), bm_mode_encode<T, S>, m, o, g)->Arg(n));
      }
    }
  }
  using U = std::conditional_t<sizeof(T) == 1, std::uint8_t, std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint32_t>>;
  using W = std::conditional_t<sizeof(S) == 8, std::uint64_t, std::uint32_t>;
  for (long n : sizes) {
    fixed_iterations(benchmark::RegisterBenchmark((std::string("modes/") + pair + "/copy").c_str(),
                                                  bm_mode_copy<W, U>)->Arg(n));
    fixed_iterations(benchmark::RegisterBenchmark((std::string("modes/") + pair + "/memcpy").c_str(), bm_mode_memcpy,
                                                  sizeof(S))->Arg(n));
  }
}

template <class T>
void register_modes_decode(const char* pair) {
  const std::vector<long> sizes = {16384};
  for (long n : sizes) {
    fixed_iterations(benchmark::RegisterBenchmark((std::string("modes/") + pair + "/decode").c_str(), bm_mode_decode<T>)->Arg(n));
    fixed_iterations(benchmark::RegisterBenchmark((std::string("modes/") + pair + "/copy").c_str(),
                                                  bm_mode_copy<std::uint8_t, std::uint32_t>)->Arg(n));
    fixed_iterations(benchmark::RegisterBenchmark((std::string("modes/") + pair + "/memcpy").c_str(), bm_mode_memcpy,
                                                  sizeof(float))->Arg(n));
  }
}

// Double sources, vectorised in every mode (issue 31: tf32 in every mode, stochastic for every
// pair): modes/d2tf32/<mode>/<policy> as above, and modes/<pair>/scalar_<mode>/ieee, the scalar
// loop (round_to per element, the random bits from the same generator) that mixprec::convert ran
// before for stochastic doubles and double -> tf32, in the same run.
template <class T>
void bm_mode_scalar(benchmark::State& state, mixprec::rounding mode, mixprec::rng_kind gen) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  const auto& in = modes_input_double(n);
  std::vector<T> out(n);
  const mixprec::sr_rng r(gen, 42);
  for (auto _ : state) {
    benchmark::DoNotOptimize(in.data());
    for (std::size_t i = 0; i < n; ++i) {
      out[i] = mixprec::round_to<T>(in[i], mode, mixprec::overflow::ieee, mode == mixprec::rounding::stochastic ? r(i) : 0u);
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
}
template <class T>
void register_modes_scalar(const char* pair) {
  using mixprec::rounding;
  using mixprec::rng_kind;
  for (rounding m : {rounding::nearest_even, rounding::toward_zero, rounding::upward, rounding::stochastic}) {
    for (rng_kind g : {rng_kind::splitmix64, rng_kind::philox4x32_10}) {
      if (g == rng_kind::philox4x32_10 && m != rounding::stochastic) continue;
      const std::string name = std::string("modes/") + pair + "/scalar_" + mixprec::to_string(m) +
                               (g == rng_kind::philox4x32_10 ? "_philox" : "") + "/ieee";
      fixed_iterations(benchmark::RegisterBenchmark(name.c_str(), bm_mode_scalar<T>, m, g)->Arg(16384));
    }
  }
}
void register_modes_doubles() {
  register_modes_encode<mixprec::tf32, double>("d2tf32");
  register_modes_scalar<mixprec::half>("d2h");
  register_modes_scalar<mixprec::bfloat16>("d2b");
  register_modes_scalar<mixprec::float8_e4m3fn>("d2e4m3fn");
  register_modes_scalar<mixprec::tf32>("d2tf32");
}

// The other formats (every FP8/FP6/FP4, e8m0 and the unsigned scale formats), float sources, in
// every mode and policy, and their decode: modes/f2<format>/... and modes/<format>2f/... as above.
void register_modes_other_formats() {
  register_modes_encode<mixprec::float8_e4m3fnuz>("f2e4m3fnuz");
  register_modes_encode<mixprec::float8_e5m2fnuz>("f2e5m2fnuz");
  register_modes_encode<mixprec::float8_e4m3b11fnuz>("f2e4m3b11fnuz");
  register_modes_encode<mixprec::float8_e4m3>("f2e4m3");
  register_modes_encode<mixprec::float8_e3m4>("f2e3m4");
  register_modes_encode<mixprec::float6_e2m3fn>("f2e2m3");
  register_modes_encode<mixprec::float6_e3m2fn>("f2e3m2");
  register_modes_encode<mixprec::float4_e1m2>("f2e1m2");
  register_modes_encode<mixprec::float8_e8m0fnu>("f2e8m0");
  register_modes_encode<mixprec::float8_ue4m3>("f2ue4m3");
  register_modes_encode<mixprec::float8_ue5m3>("f2ue5m3");
  register_modes_decode<mixprec::float8_e4m3fnuz>("e4m3fnuz2f");
  register_modes_decode<mixprec::float8_e5m2fnuz>("e5m2fnuz2f");
  register_modes_decode<mixprec::float8_e4m3b11fnuz>("e4m3b11fnuz2f");
  register_modes_decode<mixprec::float8_e4m3>("e4m32f");
  register_modes_decode<mixprec::float8_e3m4>("e3m42f");
  register_modes_decode<mixprec::float6_e2m3fn>("e2m32f");
  register_modes_decode<mixprec::float6_e3m2fn>("e3m22f");
  register_modes_decode<mixprec::float4_e1m2>("e1m22f");
  register_modes_decode<mixprec::float8_ue4m3>("ue4m32f");
}

void register_modes() {
  register_modes_encode<mixprec::half>("f2h");
  register_modes_encode<mixprec::bfloat16>("f2b");
  register_modes_encode<mixprec::float8_e4m3fn>("f2e4m3fn");
  register_modes_encode<mixprec::float8_e5m2>("f2e5m2");
  register_modes_encode<mixprec::float4_e2m1fn>("f2e2m1");
  register_modes_encode<mixprec::tf32>("f2tf32");
  register_modes_encode<mixprec::half, double>("d2h");
  register_modes_encode<mixprec::bfloat16, double>("d2b");
  register_modes_encode<mixprec::float8_e4m3fn, double>("d2e4m3fn");
  register_modes_encode<mixprec::float8_e5m2, double>("d2e5m2");
  register_modes_encode<mixprec::float4_e2m1fn, double>("d2e2m1");
  register_modes_decode<mixprec::float8_e4m3fn>("e4m3fn2f");
  register_modes_decode<mixprec::float8_e5m2>("e5m22f");
  register_modes_decode<mixprec::float4_e2m1fn>("e2m12f");
  register_modes_decode<mixprec::float8_e8m0fnu>("e8m02f");
  register_modes_decode<mixprec::float8_ue5m3>("ue5m32f");
  register_modes_doubles();
  register_modes_other_formats();
}

void register_all() {
  using mixprec::bfloat16;
  using mixprec::half;
  constexpr bool x86 = MIXPREC_BENCH_X86 != 0;
  constexpr bool eigen = MIXPREC_BENCH_HAVE_EIGEN != 0;
  constexpr bool imath = MIXPREC_BENCH_HAVE_IMATH != 0;
  constexpr bool fp16 = MIXPREC_BENCH_HAVE_FP16 != 0;
  (void)x86;
#if MIXPREC_BENCH_PORTABLE_PEERS
  // The -mno-f16c translation unit, only where it measures something the main one does not.
  const bool other_tu = mixprec_bench_portable::compiled_without_f16c();
  const bool eigen_portable = other_tu && mixprec_bench_portable::have_eigen() && !kEigenIsPortable;
  const bool imath_portable = other_tu && mixprec_bench_portable::have_imath() && !kImathIsPortable;
#endif

  std::vector<narrow_impl> f2h = {
      {"mixprec_half", mixprec_narrow<half>, true, "half(x).bits()"},
      {"mixprec_round_to", mixprec_round_to_narrow<half>, true, "round_to<half>(x)"},
      {"mixprec_generic", mixprec_generic_narrow<half>, true, "detail::encode_bits(decode_bits(x))"},
#if MIXPREC_BENCH_HAVE_EIGEN
      {"eigen", eigen_f2h, eigen, kEigenPath},
#endif
#if MIXPREC_BENCH_HAVE_IMATH
      {"imath", imath_f2h, imath, kImathPath},
#endif
#if MIXPREC_BENCH_PORTABLE_PEERS
      {"eigen_portable", mixprec_bench_portable::eigen_f2h, eigen_portable, "-mno-f16c TU"},
      {"imath_portable", mixprec_bench_portable::imath_f2h, imath_portable, "-mno-f16c TU, bit shifts"},
#endif
#if MIXPREC_BENCH_HAVE_FP16
      {"fp16h", fp16_f2h, fp16, "fp16_ieee_from_fp32_value"},
#endif
#if MIXPREC_BENCH_X86
      {"f16c_256", f16c256_f2h, cpu.f16c, "_mm256_cvtps_ph"},
      {"avx512_cvtps_ph", avx512_f2h, cpu.avx512f && cpu.f16c, "_mm512_cvtps_ph"},
#endif
      {"narrowing_copy", narrowing_copy, true, "u32>>16 -> u16, not a conversion", false},
  };
  std::vector<widen_impl> h2f = {
      {"mixprec_half", mixprec_widen<half>, true, "float(half)"},
      {"mixprec_generic", mixprec_generic_widen<half>, true, "detail::encode_bits(decode_bits(h))"},
#if MIXPREC_BENCH_HAVE_EIGEN
      {"eigen", eigen_h2f, eigen, kEigenPath},
#endif
#if MIXPREC_BENCH_HAVE_IMATH
      {"imath", imath_h2f, imath, kImathPath},
#endif
#if MIXPREC_BENCH_PORTABLE_PEERS
      {"eigen_portable", mixprec_bench_portable::eigen_h2f, eigen_portable, "-mno-f16c TU"},
      {"imath_portable", mixprec_bench_portable::imath_h2f, imath_portable, "-mno-f16c TU, 256 KiB table"},
#endif
#if MIXPREC_BENCH_HAVE_FP16
      {"fp16h", fp16_h2f, fp16, "fp16_ieee_to_fp32_value"},
#endif
#if MIXPREC_BENCH_X86
      {"f16c_256", f16c256_h2f, cpu.f16c, "_mm256_cvtph_ps"},
      {"avx512_cvtph_ps", avx512_h2f, cpu.avx512f && cpu.f16c, "_mm512_cvtph_ps"},
#endif
      {"widening_copy", widening_copy, true, "u16<<16 -> u32, not a conversion", false},
  };
  std::vector<narrow_impl> f2b = {
      {"mixprec_bfloat16", mixprec_narrow<bfloat16>, true, "bfloat16(x).bits()"},
      {"mixprec_round_to", mixprec_round_to_narrow<bfloat16>, true, "round_to<bfloat16>(x)"},
      {"mixprec_generic", mixprec_generic_narrow<bfloat16>, true, "detail::encode_bits(decode_bits(x))"},
#if MIXPREC_BENCH_HAVE_EIGEN
      {"eigen", eigen_f2b, eigen, "portable code"},
#endif
#if MIXPREC_BENCH_X86
      {"avx512bf16", avx512bf16_f2b, cpu.avx512bf16,
       "_mm512_cvtneps_pbh, FLUSHES SUBNORMAL INPUTS TO ZERO"},
      {"avx512bf16_fixed", avx512bf16_fixed_f2b, cpu.avx512bf16, "cvtneps_pbh + subnormal fix-up"},
#endif
      {"narrowing_copy", narrowing_copy, true, "truncation, not RNE", false},
  };
  std::vector<widen_impl> b2f = {
      {"mixprec_bfloat16", mixprec_widen<bfloat16>, true, "float(bfloat16)"},
      {"mixprec_generic", mixprec_generic_widen<bfloat16>, true, "detail::encode_bits(decode_bits(b))"},
#if MIXPREC_BENCH_HAVE_EIGEN
      {"eigen", eigen_b2f, eigen, "portable code"},
#endif
      {"widening_copy", widening_copy, true, "u16<<16: the same bits as mixprec's float(bfloat16)"},
  };

  std::fprintf(stderr, "bench_convert: checking every implementation against mixprec\n");
  register_narrow<half>("f2h", f2h);
  register_widen<half>("h2f", h2f);
  register_narrow<bfloat16>("f2b", f2b);
  register_widen<bfloat16>("b2f", b2f);
  register_modes();
}

// What the datasets hold, after rounding to half: the share of each kind of result.
void describe_datasets() {
  for (dataset d : {dataset::normal, dataset::wide}) {
    const auto& h = narrow_input<mixprec::half>(d, 262144);
    std::size_t zero = 0, sub = 0, inf = 0;
    for (std::uint16_t b : h) {
      const unsigned mag = b & 0x7fffu;
      zero += mag == 0;
      sub += mag != 0 && mag < 0x400u;
      inf += mag == 0x7c00u;
    }
    const double n = static_cast<double>(h.size());
    std::fprintf(stderr, "bench_convert: dataset %-6s as half: %.2f%% zero, %.2f%% subnormal, %.2f%% infinite\n",
                 dataset_name(d), 100.0 * static_cast<double>(zero) / n, 100.0 * static_cast<double>(sub) / n,
                 100.0 * static_cast<double>(inf) / n);
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  std::fprintf(stderr, "bench_convert: Eigen::half: %s; Imath::half: %s; cpu: f16c=%d avx512f=%d avx512bf16=%d\n",
               kEigenPath, kImathPath, cpu.f16c ? 1 : 0, cpu.avx512f ? 1 : 0, cpu.avx512bf16 ? 1 : 0);
  describe_datasets();
  register_all();
  benchmark::AddCustomContext("eigen_half_path", kEigenPath);
  benchmark::AddCustomContext("imath_half_path", kImathPath);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
