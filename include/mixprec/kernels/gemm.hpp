// SPDX-License-Identifier: MIT
// mixprec/kernels/gemm.hpp — C = alpha * op(A) * op(B) + beta * C for any mix of float, double and
// mixprec element types, with a chosen accumulate type, on any execution policy.
//
//   mixprec::gemm(policy, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc[, opts]);
//   mixprec::gemm<double>(...)      // accumulate in double (the default is float)
//
// Contract: op(A) is m x k, op(B) k x n, C m x n, row-major (default) or column-major (opts.order),
// BLAS leading dimensions. Each C(i,j) is acc = fma(a, b, acc) for p = 0..k-1 in Acc from +0, then
// alpha, beta (beta == 0: C not read) and ONE rounding into C's type (opts.output_rounding;
// stochastic bits from counter_rng(opts.seed), or philox_rng with opts.generator): the same bits as that naive loop under every
// policy, thread count and SIMD path. float operands follow float32_matmul_precision();
// gemm_algorithm::bf16_dot2 gives vdpbf16ps's DAZ/FTZ semantics. A short leading dimension, a null
// pointer or bf16_dot2 with non-bfloat16 operands throws std::invalid_argument, C unchanged.
// Semantics, precision modes, bf16_dot2, the x86 kernel: docs/pages/kernels-reference.md#gemm.
// exact runs on vdpbf16ps where a scan proves the same bits and this CPU is faster ($MIXPREC_GEMM_DOT2).
//
//   std::vector<mixprec::bfloat16> A(m * k), B(k * n);  std::vector<float> C(m * n);
//   mixprec::gemm(mixprec::exec::par, mixprec::transpose::none, mixprec::transpose::none,
//                 m, n, k, 1.0f, A.data(), k, B.data(), n, 0.0f, C.data(), n);   // C = A B
#ifndef MIXPREC_KERNELS_GEMM_HPP
#define MIXPREC_KERNELS_GEMM_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/kernels/gemm.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "../core/config.hpp"
#include "../core/detail/bits.hpp"
#include "../core/detail/type_traits.hpp"
#include "exec.hpp"
#include "matmul_precision.hpp"
#include "../core/random.hpp"
#include "../core/round_to.hpp"
#include "../core/types.hpp"
#include "../core/detail/widen_table.hpp"
#include "tensor_core.hpp"

#if !defined(MIXPREC_NO_SIMD) && !defined(__CUDACC__) && !defined(__CUDA_ARCH__) && \
    (defined(__x86_64__) || defined(_M_X64))
#if defined(__AVX512F__)
#define MIXPREC_GEMM_AVX512 1
#if defined(__AVX512BF16__)
#define MIXPREC_GEMM_AVX512BF16 1
#endif
#elif defined(__AVX2__) && defined(__FMA__)
#define MIXPREC_GEMM_AVX2 1
#endif
#endif
#if defined(MIXPREC_GEMM_AVX512) || defined(MIXPREC_GEMM_AVX2)
#define MIXPREC_GEMM_SIMD 1
#include "../simd/x86.hpp"
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif
#if defined(__linux__) && !defined(__EMSCRIPTEN__) && !defined(__CUDACC__) && !defined(__CUDA_ARCH__)
#include <sys/mman.h>
#if defined(MADV_HUGEPAGE)
#define MIXPREC_GEMM_HAVE_THP 1
#endif
#endif
#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(__CUDACC__) && !defined(__CUDA_ARCH__)
#include <cpuid.h>
#define MIXPREC_GEMM_HAVE_CPUID 1
#endif

namespace mixprec {

/// op(X): X as stored, or its transpose.
enum class transpose : unsigned char { none, trans };
/// Storage order of A, B and C.
enum class layout : unsigned char { row_major, col_major };
/// How the products are accumulated (docs/pages/kernels-reference.md, "GEMM").
enum class gemm_algorithm : unsigned char {
  exact,     ///< acc = fma(a, b, acc) for p = 0..k-1 in Acc, inputs converted exactly
  bf16_dot2  ///< vdpbf16ps semantics: inputs flushed (DAZ), tiny steps flushed (FTZ); bfloat16 only
};

/// Options of gemm().
struct gemm_options {
  layout order = layout::row_major;                   ///< storage order of A, B and C
  rounding output_rounding = rounding::nearest_even;  ///< rounding of the result into C's type
  std::uint64_t seed = 0;                             ///< rounding::stochastic: the generator's seed
  std::uint64_t offset = 0;                           ///< rounding::stochastic: counter of C's element 0
  gemm_algorithm algorithm = gemm_algorithm::exact;   ///< how the products are accumulated
  rng_kind generator = rng_kind::splitmix64;          ///< rounding::stochastic: counter_rng or philox_rng
  /// A tensor-core preset (kernels/tensor_core.hpp): each C(i,j) is the preset's instructions
  /// chained along k from C (beta == 1) or +0 (beta == 0), alpha == 1, then rounded into C's type.
  mma_preset mma = mma_preset::none;
};

namespace detail {

// ---------------------------------------------------------------------------------------------
// Scalar building blocks (host and device).
// ---------------------------------------------------------------------------------------------

MIXPREC_HD inline float gemm_fma(float a, float b, float c) noexcept {
#if defined(__CUDA_ARCH__)
  return fmaf(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
MIXPREC_HD inline double gemm_fma(double a, double b, double c) noexcept {
#if defined(__CUDA_ARCH__)
  return ::fma(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

/// x converted to Acc: exact for mixprec types and float -> double; double -> float rounds to
/// nearest-even.
template <class Acc, class T>
MIXPREC_HD inline Acc gemm_widen(T x) noexcept {
  if constexpr (std::is_same<T, Acc>::value) {
    return x;
  } else {
    return static_cast<Acc>(x);
  }
}

MIXPREC_HD inline std::uint32_t gemm_bits(float x) noexcept { return bit_cast<std::uint32_t>(x); }
MIXPREC_HD inline float gemm_float(std::uint32_t u) noexcept { return bit_cast<float>(u); }

/// float -> tf32 (as a float), ties away from zero (away) or to even; NaN stays NaN (quieted),
/// beyond tf32's range -> infinity. Equals round_to<tf32>(x, mode) for every non-NaN x.
MIXPREC_HD inline float gemm_round_tf32(float x, bool away) noexcept {
  std::uint32_t u = gemm_bits(x);
  if ((u & 0x7f800000u) == 0x7f800000u) {
    if ((u & 0x7fffffu) != 0) u |= 0x400000u;  // NaN: keep it a NaN after the truncation
    return gemm_float(u & 0xffffe000u);
  }
  u += away ? 0x1000u : 0xfffu + ((u >> 13) & 1u);
  return gemm_float(u & 0xffffe000u);
}

/// float -> bfloat16 (as a float), nearest-even; NaN stays NaN. Equals round_to<bfloat16>(x).
MIXPREC_HD inline float gemm_round_bf16(float x) noexcept {
  std::uint32_t u = gemm_bits(x);
  if ((u & 0x7f800000u) == 0x7f800000u) {
    if ((u & 0x7fffffu) != 0) u |= 0x400000u;
    return gemm_float(u & 0xffff0000u);
  }
  u += 0x7fffu + ((u >> 16) & 1u);
  return gemm_float(u & 0xffff0000u);
}

/// The bf16x3 split: x = hi + lo (docs/pages/kernels-reference.md, "float32 matmul precision in GEMM").
MIXPREC_HD inline void gemm_split_bf16(float x, float& hi, float& lo) noexcept {
  const std::uint32_t u = gemm_bits(x);
  const std::uint32_t sign = u & 0x80000000u;
  float h = gemm_round_bf16(x);
  if ((gemm_bits(h) & 0x7fffffffu) == 0x7f800000u) h = gemm_float(sign | 0x7f7f0000u);  // saturate
  hi = h;
  lo = gemm_round_bf16(x - h);
}

/// A float whose value is a subnormal -> zero of the same sign (DAZ of a bfloat16 input).
MIXPREC_HD inline float gemm_flush(float x) noexcept {
  const std::uint32_t u = gemm_bits(x);
  return (u & 0x7f800000u) == 0 ? gemm_float(u & 0x80000000u) : x;
}

/// One step of bf16_dot2 / vdpbf16ps: ftz(fma(daz(a), daz(b), daz(acc))), nearest-even, with the
/// tininess of the result detected after rounding (docs/pages/kernels-reference.md, "bf16_dot2").
MIXPREC_HD inline float gemm_dot2_step(float a, float b, float acc) noexcept {
  a = gemm_flush(a);
  b = gemm_flush(b);
  acc = gemm_flush(acc);
  const float r = gemm_fma(a, b, acc);
  const std::uint32_t mag = gemm_bits(r) & 0x7fffffffu;
  if (mag > 0x00800000u || mag == 0) return r;  // above 2^-126 (or inf/NaN), or an exact zero
  const float zero = gemm_float(gemm_bits(r) & 0x80000000u);
  if (mag < 0x00800000u) return zero;  // subnormal after rounding: tiny
  // |r| == 2^-126: the exact sum may still be tiny (rounded to 24 bits with unbounded exponent, it
  // would be 2^-126 - 2^-150). Here |acc| and |a*b| are below 2^-100 (else the sum could not be a
  // nonzero value this small), so the sum scaled by 2^64 is computed exactly by one fma and
  // rounded in the normal range.
  float sa = a, sb = b;
  if ((gemm_bits(a) & 0x7fffffffu) <= (gemm_bits(b) & 0x7fffffffu)) {
    sa = a * 0x1p64f;
  } else {
    sb = b * 0x1p64f;
  }
  const float r2 = gemm_fma(sa, sb, acc * 0x1p64f);
  return (gemm_bits(r2) & 0x7fffffffu) < 0x20800000u ? zero : r;  // below 2^-62: tiny
}

/// How the k steps combine the inputs.
enum class gemm_kind : unsigned char {
  fma,    ///< acc = fma(a', b', acc)
  x3,     ///< the bf16x3 split, three fma per step
  dot2    ///< bf16_dot2
};
/// The conversion of float operands under gemm_kind::fma (other element types: exact widening).
enum class gemm_input : unsigned char { as_is, tf32_away, tf32_even, bf16 };

/// One input element as Acc under gemm_kind::fma.
template <class Acc, gemm_input Mode, class T>
MIXPREC_HD inline Acc gemm_load(T x) noexcept {
  if constexpr (std::is_same<T, float>::value && Mode != gemm_input::as_is) {
    const float y = Mode == gemm_input::tf32_away   ? gemm_round_tf32(x, true)
                    : Mode == gemm_input::tf32_even ? gemm_round_tf32(x, false)
                                                    : gemm_round_bf16(x);
    return static_cast<Acc>(y);
  } else {
    return gemm_widen<Acc>(x);
  }
}

template <class Acc, class T>
MIXPREC_HD inline Acc gemm_load(T x, gemm_input mode) noexcept {
  switch (mode) {
    case gemm_input::tf32_away: return gemm_load<Acc, gemm_input::tf32_away>(x);
    case gemm_input::tf32_even: return gemm_load<Acc, gemm_input::tf32_even>(x);
    case gemm_input::bf16: return gemm_load<Acc, gemm_input::bf16>(x);
    default: return gemm_load<Acc, gemm_input::as_is>(x);
  }
}

/// The bf16x3 parts of any element (converted to float first).
template <class T>
MIXPREC_HD inline void gemm_split(T x, float& hi, float& lo) noexcept {
  gemm_split_bf16(gemm_widen<float>(x), hi, lo);
}

/// A normalized problem: op(A)(i,p) = a[i*a_is + p*a_ps], op(B)(p,j) = b[p*b_ps + j*b_js],
/// C(i,j) = c[i*c_is + j*c_js]; the stochastic-rounding counter of C(i,j) is
/// offset + i*counter_is + j*counter_js. x3_a_first: A takes the "first" role of the bf16x3
/// term order (fma(a_lo, b_hi), fma(a_hi, b_lo), fma(a_hi, b_hi)); false after swapping A and B.
template <class Acc, class TA, class TB, class TC>
struct gemm_problem {
  std::size_t m, n, k;
  Acc alpha, beta;
  const TA* a;
  std::size_t a_is, a_ps;
  const TB* b;
  std::size_t b_ps, b_js;
  TC* c;
  std::size_t c_is, c_js;
  std::size_t counter_is, counter_js;
  std::uint64_t offset;
  sr_rng rng;
  rounding out_mode;
  gemm_kind kind;
  gemm_input input;
  bool x3_a_first;
};

/// The output stage of one element: r = alpha*acc (+ fma(beta, c, r)), rounded into TC.
template <class Acc, class TA, class TB, class TC>
MIXPREC_HD inline void gemm_store(const gemm_problem<Acc, TA, TB, TC>& pr, std::size_t i, std::size_t j,
                                  Acc acc) noexcept {
  TC* c = pr.c + i * pr.c_is + j * pr.c_js;
  Acc r = pr.alpha * acc;
  if (!detail::exact_eq(pr.beta, Acc(0))) r = gemm_fma(pr.beta, gemm_widen<Acc>(*c), r);
  if constexpr (std::is_same<TC, Acc>::value) {
    *c = r;
  } else {
    const std::uint32_t bits =
        pr.out_mode == rounding::stochastic ? pr.rng(pr.offset + i * pr.counter_is + j * pr.counter_js) : 0u;
    *c = round_to<TC>(r, pr.out_mode, overflow::ieee, bits);
  }
}

/// One element of C computed directly from A and B (the device path, and a host reference).
template <class Acc, class TA, class TB, class TC>
MIXPREC_HD inline void gemm_element(const gemm_problem<Acc, TA, TB, TC>& pr, std::size_t i, std::size_t j) noexcept {
  // Indices, not pointers: with k == 0, A and B may be null.
  const std::size_t ia = i * pr.a_is, jb = j * pr.b_js;
  const TA* a = pr.a;
  const TB* b = pr.b;
  Acc acc = Acc(0);
  if (pr.kind == gemm_kind::dot2) {
    if constexpr (std::is_same<Acc, float>::value) {
      for (std::size_t p = 0; p < pr.k; ++p) {
        acc = gemm_dot2_step(gemm_widen<float>(a[ia + p * pr.a_ps]), gemm_widen<float>(b[jb + p * pr.b_ps]), acc);
      }
    }
  } else if (pr.kind == gemm_kind::x3) {
    for (std::size_t p = 0; p < pr.k; ++p) {
      float ah = 0, al = 0, bh = 0, bl = 0;
      gemm_split(a[ia + p * pr.a_ps], ah, al);
      gemm_split(b[jb + p * pr.b_ps], bh, bl);
      const Acc ahi = ah, alo = al, bhi = bh, blo = bl;
      if (pr.x3_a_first) {
        acc = gemm_fma(alo, bhi, acc);
        acc = gemm_fma(ahi, blo, acc);
      } else {
        acc = gemm_fma(ahi, blo, acc);
        acc = gemm_fma(alo, bhi, acc);
      }
      acc = gemm_fma(ahi, bhi, acc);
    }
  } else {
    for (std::size_t p = 0; p < pr.k; ++p) {
      acc = gemm_fma(gemm_load<Acc>(a[ia + p * pr.a_ps], pr.input), gemm_load<Acc>(b[jb + p * pr.b_ps], pr.input), acc);
    }
  }
  gemm_store(pr, i, j, acc);
}

/// The device body: elements [begin, end) of C in row-major order of (i, j) (a functor, not an
/// extended lambda, so that nvcc needs no --extended-lambda).
template <class Acc, class TA, class TB, class TC>
struct gemm_elements {
  gemm_problem<Acc, TA, TB, TC> pr;
  MIXPREC_HD void operator()(std::size_t begin, std::size_t end) const noexcept {
    for (std::size_t e = begin; e < end; ++e) gemm_element(pr, e / pr.n, e % pr.n);
  }
};

#if defined(__CUDACC__)
/// The device GEMM for gemm_kind::fma and dot2: a 16 x 16 thread block computes a (16 TM) x
/// (16 TM) tile of C, TM x TM elements per thread (rows ty + 16 r, columns tx + 16 c), staging
/// BK-deep slices of A and B in shared memory, converted to Acc by the same gemm_load as
/// gemm_element. Each element's chain still runs p = 0 .. k-1 in order from zero, so C is bit for
/// bit gemm_element's (tests/cuda/test_cuda_gemm.cu).
template <std::size_t TM, std::size_t BK, gemm_kind Kind, class Acc, class TA, class TB, class TC>
__global__ void __launch_bounds__(256) gemm_tiled_kernel(gemm_problem<Acc, TA, TB, TC> pr) {
  constexpr std::size_t BM = 16 * TM;
  __shared__ Acc as[BK][BM];
  __shared__ Acc bs[BK][BM];
  const unsigned t = threadIdx.x, tx = t % 16, ty = t / 16;
  const std::size_t i0 = blockIdx.y * BM, j0 = blockIdx.x * BM;
  // Which index varies fastest across threads while loading: the one contiguous in memory.
  const bool a_p_fast = pr.a_ps == 1, b_p_fast = pr.b_ps == 1;
  Acc acc[TM][TM];
  for (std::size_t r = 0; r < TM; ++r)
    for (std::size_t c = 0; c < TM; ++c) acc[r][c] = Acc(0);
  for (std::size_t p0 = 0; p0 < pr.k; p0 += BK) {
    const std::size_t kb = pr.k - p0 < BK ? pr.k - p0 : BK;
    for (std::size_t e = t; e < BK * BM; e += 256) {
      const std::size_t ra = a_p_fast ? e / BK : e % BM, pa = a_p_fast ? e % BK : e / BM;
      const std::size_t i = i0 + ra, p = p0 + pa;
      Acc va = Acc(0);
      if (i < pr.m && p < pr.k) {
        if constexpr (Kind == gemm_kind::dot2) {
          va = gemm_widen<Acc>(pr.a[i * pr.a_is + p * pr.a_ps]);
        } else {
          va = gemm_load<Acc>(pr.a[i * pr.a_is + p * pr.a_ps], pr.input);
        }
      }
      as[pa][ra] = va;
      const std::size_t cb = b_p_fast ? e / BK : e % BM, pb = b_p_fast ? e % BK : e / BM;
      const std::size_t j = j0 + cb, q = p0 + pb;
      Acc vb = Acc(0);
      if (j < pr.n && q < pr.k) {
        if constexpr (Kind == gemm_kind::dot2) {
          vb = gemm_widen<Acc>(pr.b[q * pr.b_ps + j * pr.b_js]);
        } else {
          vb = gemm_load<Acc>(pr.b[q * pr.b_ps + j * pr.b_js], pr.input);
        }
      }
      bs[pb][cb] = vb;
    }
    __syncthreads();
    for (std::size_t p = 0; p < kb; ++p) {
      Acc ra[TM], rb[TM];
      for (std::size_t r = 0; r < TM; ++r) ra[r] = as[p][ty + 16 * r];
      for (std::size_t c = 0; c < TM; ++c) rb[c] = bs[p][tx + 16 * c];
      for (std::size_t r = 0; r < TM; ++r)
        for (std::size_t c = 0; c < TM; ++c) {
          if constexpr (Kind == gemm_kind::dot2) {
            acc[r][c] = gemm_dot2_step(ra[r], rb[c], acc[r][c]);
          } else {
            acc[r][c] = gemm_fma(ra[r], rb[c], acc[r][c]);
          }
        }
    }
    __syncthreads();
  }
  for (std::size_t r = 0; r < TM; ++r)
    for (std::size_t c = 0; c < TM; ++c) {
      const std::size_t i = i0 + ty + 16 * r, j = j0 + tx + 16 * c;
      if (i < pr.m && j < pr.n) gemm_store(pr, i, j, acc[r][c]);
    }
}

/// Launches the device GEMM: the tiled kernel for gemm_kind::fma (and dot2), one thread per
/// element of C for bf16x3 or a grid too tall for the tiled kernel.
template <class Acc, class TA, class TB, class TC>
void gemm_device(exec::cuda_policy policy, const gemm_problem<Acc, TA, TB, TC>& pr) {
  constexpr std::size_t TM = std::is_same<Acc, float>::value ? 8 : 4, BK = 16, BM = 16 * TM;
  const std::size_t gx = (pr.n + BM - 1) / BM, gy = (pr.m + BM - 1) / BM;
  if (pr.kind == gemm_kind::x3 || gx > 0x7fffffffu || gy > 65535u) {
    for_each_block(policy, pr.m * pr.n, 1, gemm_elements<Acc, TA, TB, TC>{pr});
    return;
  }
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy));
  if (pr.kind == gemm_kind::dot2) {
    if constexpr (std::is_same<Acc, float>::value) {
      gemm_tiled_kernel<TM, BK, gemm_kind::dot2><<<grid, 256, 0, policy.stream>>>(pr);
    } else {
      for_each_block(policy, pr.m * pr.n, 1, gemm_elements<Acc, TA, TB, TC>{pr});
      return;
    }
  } else {
    gemm_tiled_kernel<TM, BK, gemm_kind::fma><<<grid, 256, 0, policy.stream>>>(pr);
  }
  cuda_check(cudaGetLastError(), "kernel launch");
}
#endif

// ---------------------------------------------------------------------------------------------
// Host: packing.
// ---------------------------------------------------------------------------------------------

#if defined(MIXPREC_GEMM_SIMD)
// ---------------------------------------------------------------------------------------------
// Host: x86 vector helpers. AVX-512F: 16 float lanes (zmm); AVX2 + FMA: 8 (ymm). Every helper
// computes, lane by lane, exactly what the scalar code it replaces computes.
// ---------------------------------------------------------------------------------------------
#if defined(MIXPREC_GEMM_AVX512)
using gemm_vf = __m512;
using gemm_vi = __m512i;
using gemm_vd = __m512d;
constexpr std::size_t gemm_vw = 16;  // float lanes
constexpr std::size_t gemm_vwd = 8;  // double lanes
#define MIXPREC_GEMM_F16C 1
#else
using gemm_vf = __m256;
using gemm_vi = __m256i;
using gemm_vd = __m256d;
constexpr std::size_t gemm_vw = 8;
constexpr std::size_t gemm_vwd = 4;
#if defined(__F16C__)
#define MIXPREC_GEMM_F16C 1
#endif
#endif

#if defined(MIXPREC_GEMM_AVX512)
inline gemm_vf gemm_vzero() noexcept { return _mm512_setzero_ps(); }
inline gemm_vf gemm_vbroadcast(const float* p) noexcept { return _mm512_set1_ps(*p); }
inline gemm_vf gemm_vfmadd(gemm_vf a, gemm_vf b, gemm_vf c) noexcept { return _mm512_fmadd_ps(a, b, c); }
inline gemm_vf gemm_vset1(float x) noexcept { return _mm512_set1_ps(x); }
inline void gemm_vstore(float* p, gemm_vf v) noexcept { _mm512_store_ps(p, v); }
#else
inline gemm_vf gemm_vzero() noexcept { return _mm256_setzero_ps(); }
inline gemm_vf gemm_vbroadcast(const float* p) noexcept { return _mm256_broadcast_ss(p); }
inline gemm_vf gemm_vfmadd(gemm_vf a, gemm_vf b, gemm_vf c) noexcept { return _mm256_fmadd_ps(a, b, c); }
inline gemm_vf gemm_vset1(float x) noexcept { return _mm256_set1_ps(x); }
inline void gemm_vstore(float* p, gemm_vf v) noexcept { _mm256_store_ps(p, v); }
#endif

/// Element types that gemm_load_vec widens in vector form (and, half and bfloat16, C types stored in
/// vector form).
template <class T>
struct gemm_vec_type
    : std::integral_constant<bool, std::is_same<T, float>::value || std::is_same<T, bfloat16>::value ||
                                       widen_table_exact<T, float>  // FP8/FP6/FP4: gathered from a table
#if defined(MIXPREC_GEMM_F16C)
                                       || std::is_same<T, half>::value
#endif
                             > {
};

/// gemm_round_tf32 / gemm_round_bf16 on the bits of gemm_vw floats (Mode != as_is): Inf/NaN
/// lanes are made quiet and truncated; the others get half an ulp added (ties away), or half an
/// ulp - 1 + the last kept bit (ties to even), then are truncated.
template <gemm_input Mode>
inline gemm_vi gemm_round_vec(gemm_vi u) noexcept {
  constexpr int shift = Mode == gemm_input::bf16 ? 16 : 13;
  constexpr unsigned keep_bits = ~((1u << shift) - 1u);
  constexpr unsigned half_ulp_bits = (1u << (shift - 1)) - (Mode == gemm_input::tf32_away ? 0u : 1u);
#if defined(MIXPREC_GEMM_AVX512)
  const __m512i exp_mask = _mm512_set1_epi32(0x7f800000);
  const __mmask16 special = _mm512_cmpeq_epi32_mask(_mm512_and_si512(u, exp_mask), exp_mask);
  const __mmask16 nan = _mm512_mask_test_epi32_mask(special, u, _mm512_set1_epi32(0x007fffff));
  __m512i add = _mm512_set1_epi32(static_cast<int>(half_ulp_bits));
  if constexpr (Mode != gemm_input::tf32_away) {
    add = _mm512_add_epi32(add, _mm512_and_si512(_mm512_srli_epi32(u, shift), _mm512_set1_epi32(1)));
  }
  __m512i r = _mm512_mask_add_epi32(u, static_cast<__mmask16>(~special), u, add);
  r = _mm512_mask_or_epi32(r, nan, r, _mm512_set1_epi32(0x00400000));
  return _mm512_and_si512(r, _mm512_set1_epi32(static_cast<int>(keep_bits)));
#else
  const __m256i exp_mask = _mm256_set1_epi32(0x7f800000);
  const __m256i special = _mm256_cmpeq_epi32(_mm256_and_si256(u, exp_mask), exp_mask);
  const __m256i man_zero =
      _mm256_cmpeq_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x007fffff)), _mm256_setzero_si256());
  const __m256i nan = _mm256_andnot_si256(man_zero, special);
  __m256i add = _mm256_set1_epi32(static_cast<int>(half_ulp_bits));
  if constexpr (Mode != gemm_input::tf32_away) {
    add = _mm256_add_epi32(add, _mm256_and_si256(_mm256_srli_epi32(u, shift), _mm256_set1_epi32(1)));
  }
  __m256i r = _mm256_blendv_epi8(_mm256_add_epi32(u, add), u, special);
  r = _mm256_or_si256(r, _mm256_and_si256(nan, _mm256_set1_epi32(0x00400000)));
  return _mm256_and_si256(r, _mm256_set1_epi32(static_cast<int>(keep_bits)));
#endif
}

/// float8_e4m3fn codes (one per 16-bit lane) as halves worth 2^-8 of their value, exactly:
/// exponent and mantissa moved up 7 bits (a subnormal code becomes a subnormal half), sign 8.
/// Times 256 in float that is the value; code 0x7f (NaN) gives 480, which e4m3fn never holds.
#if defined(MIXPREC_GEMM_AVX512)
inline __m256i gemm_e4m3_as_half(__m256i w) noexcept {
  return _mm256_or_si256(_mm256_slli_epi16(_mm256_and_si256(w, _mm256_set1_epi16(0x7f)), 7),
                         _mm256_slli_epi16(_mm256_and_si256(w, _mm256_set1_epi16(0x80)), 8));
}
#elif defined(MIXPREC_GEMM_F16C)
inline __m128i gemm_e4m3_as_half(__m128i w) noexcept {
  return _mm_or_si128(_mm_slli_epi16(_mm_and_si128(w, _mm_set1_epi16(0x7f)), 7),
                      _mm_slli_epi16(_mm_and_si128(w, _mm_set1_epi16(0x80)), 8));
}
#endif

/// gemm_vw elements of T (gemm_vec_type) widened to float: gemm_load<float, Mode> lane by lane.
template <gemm_input Mode, class T>
inline gemm_vf gemm_load_vec(const T* src) noexcept {
#if defined(MIXPREC_GEMM_AVX512)
  if constexpr (std::is_same<T, float8_e5m2>::value) {  // the top byte of a half
    const __m256i w = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src)));
    return _mm512_cvtph_ps(_mm256_slli_epi16(w, 8));
  } else if constexpr (std::is_same<T, float8_e4m3fn>::value) {
    const __m256i w = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src)));
    const __m512i v = _mm512_castps_si512(_mm512_mul_ps(_mm512_cvtph_ps(gemm_e4m3_as_half(w)), _mm512_set1_ps(256.0f)));
    const __mmask16 nan = _mm512_cmpeq_epi32_mask(_mm512_and_si512(v, _mm512_set1_epi32(0x7fffffff)),
                                                  _mm512_set1_epi32(0x43f00000));  // |code| 0x7f: 480
    return _mm512_castsi512_ps(_mm512_mask_or_epi32(v, nan, _mm512_and_si512(v, _mm512_set1_epi32(INT32_MIN)),
                                                    _mm512_set1_epi32(0x7fc00000)));
  } else if constexpr (widen_table_exact<T, float>) {
    const __m512i idx = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src)));
    const float* table = widen_table<T, float>();  // (a macro at -O0: no comma in its arguments)
    return _mm512_i32gather_ps(idx, table, 4);
  } else if constexpr (std::is_same<T, half>::value) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src)));
  } else if constexpr (std::is_same<T, bfloat16>::value) {
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src));
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  } else {
    static_assert(std::is_same<T, float>::value, "gemm_load_vec: float, half or bfloat16");
    if constexpr (Mode == gemm_input::as_is) {
      return _mm512_loadu_ps(src);
    } else {
      return _mm512_castsi512_ps(gemm_round_vec<Mode>(_mm512_loadu_si512(src)));
    }
  }
#else
#if defined(MIXPREC_GEMM_F16C)
  if constexpr (std::is_same<T, float8_e5m2>::value) {  // the top byte of a half
    const __m128i w = _mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(src)));
    return _mm256_cvtph_ps(_mm_slli_epi16(w, 8));
  } else if constexpr (std::is_same<T, float8_e4m3fn>::value) {
    const __m128i w = _mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(src)));
    const __m256i v = _mm256_castps_si256(_mm256_mul_ps(_mm256_cvtph_ps(gemm_e4m3_as_half(w)), _mm256_set1_ps(256.0f)));
    const __m256i nan = _mm256_cmpeq_epi32(_mm256_and_si256(v, _mm256_set1_epi32(0x7fffffff)),
                                           _mm256_set1_epi32(0x43f00000));  // |code| 0x7f: 480
    const __m256i q = _mm256_or_si256(_mm256_and_si256(v, _mm256_set1_epi32(INT32_MIN)), _mm256_set1_epi32(0x7fc00000));
    return _mm256_castsi256_ps(_mm256_blendv_epi8(v, q, nan));
  } else
#endif
  if constexpr (widen_table_exact<T, float>) {
    const __m256i idx = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(src)));
    const float* table = widen_table<T, float>();  // (a macro at -O0: no comma in its arguments)
    return _mm256_i32gather_ps(table, idx, 4);
  } else if constexpr (std::is_same<T, half>::value) {
#if defined(MIXPREC_GEMM_F16C)
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src)));
#endif
  } else if constexpr (std::is_same<T, bfloat16>::value) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
  } else {
    static_assert(std::is_same<T, float>::value, "gemm_load_vec: float, half or bfloat16");
    if constexpr (Mode == gemm_input::as_is) {
      return _mm256_loadu_ps(src);
    } else {
      return _mm256_castsi256_ps(gemm_round_vec<Mode>(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src))));
    }
  }
#endif
}

/// The first n (< gemm_vw) floats at src, the other lanes zero / stores the first n lanes at dst.
inline gemm_vf gemm_load_first(const float* src, std::size_t n) noexcept {
#if defined(MIXPREC_GEMM_AVX512)
  return _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << n) - 1u), src);
#else
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_maskload_ps(src, _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), idx));
#endif
}
inline void gemm_store_first(float* dst, gemm_vf v, std::size_t n) noexcept {
#if defined(MIXPREC_GEMM_AVX512)
  _mm512_mask_storeu_ps(dst, static_cast<__mmask16>((1u << n) - 1u), v);
#else
  // Not vmaskmovps: its store form is slow on AMD CPUs.
  alignas(32) float tmp[8];
  _mm256_store_ps(tmp, v);
  std::memcpy(dst, tmp, n * sizeof(float));
#endif
}
inline gemm_vd gemm_load_first(const double* src, std::size_t n) noexcept {
#if defined(MIXPREC_GEMM_AVX512)
  return _mm512_maskz_loadu_pd(static_cast<__mmask8>((1u << n) - 1u), src);
#else
  const __m256i idx = _mm256_setr_epi64x(0, 1, 2, 3);
  return _mm256_maskload_pd(src, _mm256_cmpgt_epi64(_mm256_set1_epi64x(static_cast<long long>(n)), idx));
#endif
}
inline void gemm_store_first(double* dst, gemm_vd v, std::size_t n) noexcept {
#if defined(MIXPREC_GEMM_AVX512)
  _mm512_mask_storeu_pd(dst, static_cast<__mmask8>((1u << n) - 1u), v);
#else
  alignas(32) double tmp[4];
  _mm256_store_pd(tmp, v);
  std::memcpy(dst, tmp, n * sizeof(double));
#endif
}

/// The first cnt (< gemm_vw) elements at src as gemm_load_vec<Mode> widens them; reads only those
/// (masked loads: float, and half / bfloat16 with AVX-512-BW; else through a zero-padded copy).
template <gemm_input Mode, class T>
inline gemm_vf gemm_load_vec_first(const T* src, std::size_t cnt) noexcept {
#if defined(MIXPREC_GEMM_AVX512)
  const __mmask16 mk = static_cast<__mmask16>((1u << cnt) - 1u);
  if constexpr (std::is_same<T, float>::value && Mode == gemm_input::as_is) {
    return _mm512_maskz_loadu_ps(mk, src);
  } else if constexpr (std::is_same<T, float>::value) {
    return _mm512_castsi512_ps(gemm_round_vec<Mode>(_mm512_maskz_loadu_epi32(mk, src)));
  } else
#if defined(__AVX512BW__) && defined(__AVX512VL__)
  if constexpr (std::is_same<T, half>::value) {
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(mk, src));
  } else if constexpr (std::is_same<T, bfloat16>::value) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(mk, src)), 16));
  } else
#endif
#else
  if constexpr (std::is_same<T, float>::value) {
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(cnt)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    const __m256 v = _mm256_maskload_ps(src, mask);
    if constexpr (Mode == gemm_input::as_is) {
      return v;
    } else {
      return _mm256_castsi256_ps(gemm_round_vec<Mode>(_mm256_castps_si256(v)));
    }
  } else
#endif
  {
    T in[gemm_vw] = {};
    for (std::size_t j = 0; j < cnt; ++j) in[j] = src[j];
    return gemm_load_vec<Mode>(in);
  }
}

/// gemm_vw floats rounded to TC (half or bfloat16; gemm_vec_type) in nearest-even with
/// overflow::ieee, i.e. round_to<TC>(x) lane by lane, as 16-bit patterns at dst. bfloat16: the
/// integer form (u + 0x7fff + lsb) >> 16, NaN made quiet ((u >> 16) | 0x40); half: vcvtps2ph.
template <class TC>
inline void gemm_narrow_vec(gemm_vf x, std::uint16_t* dst) noexcept {
#if defined(MIXPREC_GEMM_AVX512)
  if constexpr (std::is_same<TC, half>::value) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), _mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  } else {
    const __m512i u = _mm512_castps_si512(x);
    const __m512i hi = _mm512_srli_epi32(u, 16);
    const __m512i lsb = _mm512_and_si512(hi, _mm512_set1_epi32(1));
    const __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)), lsb), 16);
    const __mmask16 nan =
        _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
    const __m512i r = _mm512_mask_or_epi32(rounded, nan, hi, _mm512_set1_epi32(0x40));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), _mm512_cvtepi32_epi16(r));
  }
#else
  if constexpr (std::is_same<TC, half>::value) {
#if defined(MIXPREC_GEMM_F16C)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#endif
  } else {
    const __m256i u = _mm256_castps_si256(x);
    const __m256i hi = _mm256_srli_epi32(u, 16);
    const __m256i lsb = _mm256_and_si256(hi, _mm256_set1_epi32(1));
    const __m256i rounded =
        _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)), lsb), 16);
    const __m256i nan =
        _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)), _mm256_set1_epi32(0x7f800000));
    const __m256i r = _mm256_blendv_epi8(rounded, _mm256_or_si256(hi, _mm256_set1_epi32(0x40)), nan);
    // Every lane is below 2^16: the unsigned-saturating pack keeps it; fix the lane order.
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0x08);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), _mm256_castsi256_si128(packed));
  }
#endif
}

/// gemm_vw 16-bit patterns of TC (half or bfloat16) widened exactly to float.
template <class TC>
inline gemm_vf gemm_widen_vec(const std::uint16_t* src) noexcept {
  return gemm_load_vec<gemm_input::as_is>(reinterpret_cast<const TC*>(src));
}

#if defined(__GNUC__) || defined(__clang__)
#define MIXPREC_GEMM_INLINE inline __attribute__((always_inline))
#else
#define MIXPREC_GEMM_INLINE inline
#endif

/// In-register transpose of a gemm_vw x gemm_vw float block: v[i] lane j <-> v[j] lane i.
/// (Always inlined: called, its block goes through memory; the packing then costs 2-3x.)
MIXPREC_GEMM_INLINE void gemm_transpose(gemm_vf* v) noexcept {
#if defined(MIXPREC_GEMM_AVX512)
  __m512 t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(v[i], v[i + 1]);      // rows i, i+1: elements 0 1 interleaved per 128-bit lane
    t[i + 1] = _mm512_unpackhi_ps(v[i], v[i + 1]);  // elements 2 3
  }
  for (int i = 0; i < 16; i += 4) {
    const __m512d a = _mm512_castps_pd(t[i]), b = _mm512_castps_pd(t[i + 2]);
    const __m512d c = _mm512_castps_pd(t[i + 1]), d = _mm512_castps_pd(t[i + 3]);
    v[i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));      // element 0 of rows i..i+3 (per 128-bit lane)
    v[i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));  // element 1
    v[i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(c, d));  // element 2
    v[i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(c, d));  // element 3
  }
  // v[4g + e], 128-bit lane l: element 4l + e of rows 4g..4g+3.
  for (int e = 0; e < 4; ++e) {
    t[e] = _mm512_shuffle_f32x4(v[e], v[4 + e], 0x88);       // lanes 0, 2 of rows 0-3, then of rows 4-7
    t[4 + e] = _mm512_shuffle_f32x4(v[e], v[4 + e], 0xdd);   // lanes 1, 3
    t[8 + e] = _mm512_shuffle_f32x4(v[8 + e], v[12 + e], 0x88);
    t[12 + e] = _mm512_shuffle_f32x4(v[8 + e], v[12 + e], 0xdd);
  }
  // t[e]: (l0 r0-3, l2 r0-3, l0 r4-7, l2 r4-7); t[4+e]: the same for l1, l3; t[8..15]: rows 8-15.
  for (int e = 0; e < 4; ++e) {
    v[e] = _mm512_shuffle_f32x4(t[e], t[8 + e], 0x88);           // element e
    v[8 + e] = _mm512_shuffle_f32x4(t[e], t[8 + e], 0xdd);       // element 8 + e
    v[4 + e] = _mm512_shuffle_f32x4(t[4 + e], t[12 + e], 0x88);  // element 4 + e
    v[12 + e] = _mm512_shuffle_f32x4(t[4 + e], t[12 + e], 0xdd); // element 12 + e
  }
#else
  __m256 t[8], u[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(v[i], v[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(v[i], v[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    u[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xee);
    u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xee);
  }
  for (int e = 0; e < 4; ++e) {
    v[e] = _mm256_permute2f128_ps(u[e], u[4 + e], 0x20);
    v[4 + e] = _mm256_permute2f128_ps(u[e], u[4 + e], 0x31);
  }
#endif
}

/// The k-contiguous packing (ps == 1) of gemm_pack_load<float, Mode> through register
/// transposes: dst[p*dps + r] = gemm_load<float, Mode>(src[r*rs + p]) for r < rows and p < k
/// (a last partial block of k, e.g. k = 10, by masked loads; reads only the k elements of a row).
template <gemm_input Mode, class T>
void gemm_pack_transposed(const T* src, std::size_t rs, std::size_t rows, std::size_t k, float* dst,
                          std::size_t dps) noexcept {
  constexpr std::size_t W = gemm_vw;
  for (std::size_t p0 = 0; p0 < k; p0 += W) {
    const std::size_t kc = std::min(W, k - p0);
    for (std::size_t r0 = 0; r0 < rows; r0 += W) {
      const std::size_t cnt = std::min(W, rows - r0);
      gemm_vf v[W];
      if (kc == W) {
        for (std::size_t r = 0; r < W; ++r) {
          v[r] = r < cnt ? gemm_load_vec<Mode>(src + (r0 + r) * rs + p0) : gemm_vzero();
        }
      } else {
        for (std::size_t r = 0; r < W; ++r) {
          v[r] = r < cnt ? gemm_load_vec_first<Mode>(src + (r0 + r) * rs + p0, kc) : gemm_vzero();
        }
      }
      gemm_transpose(v);
      float* d = dst + p0 * dps + r0;
      if (cnt == W) {
        for (std::size_t q = 0; q < kc; ++q) {
#if defined(MIXPREC_GEMM_AVX512)
          _mm512_storeu_ps(d + q * dps, v[q]);
#else
          _mm256_storeu_ps(d + q * dps, v[q]);
#endif
        }
      } else {
        for (std::size_t q = 0; q < kc; ++q) gemm_store_first(d + q * dps, v[q], cnt);
      }
    }
  }
}
#endif  // MIXPREC_GEMM_SIMD

/// Packing conversions: write `expand` values per element at out[0], out[step], ...
/// dst[i] = gemm_load<Acc, Mode>(src[i]) for i < count; with SIMD, gemm_vw at a time for half,
/// bfloat16 and float sources into float (the same values: the widenings are exact, and the
/// tf32 / bfloat16 roundings are the scalar functions' integer steps lane by lane).
template <class Acc, gemm_input Mode, class T>
void gemm_load_run(const T* src, Acc* dst, std::size_t count) noexcept {
  std::size_t i = 0;
#if defined(MIXPREC_GEMM_SIMD)
  if constexpr (std::is_same<Acc, float>::value && gemm_vec_type<T>::value) {
    for (; i + gemm_vw <= count; i += gemm_vw) {
#if defined(MIXPREC_GEMM_AVX512)
      _mm512_storeu_ps(dst + i, gemm_load_vec<Mode>(src + i));
#else
      _mm256_storeu_ps(dst + i, gemm_load_vec<Mode>(src + i));
#endif
    }
    // The rest (short rows: k = 10 in a 10-class layer) by a masked load and store.
    if (i < count) gemm_store_first(dst + i, gemm_load_vec_first<Mode>(src + i, count - i), count - i);
  } else
#endif
  if constexpr (widen_table_exact<T, Acc>) {  // FP8/FP6/FP4: one table lookup each (same values)
    const Acc* table = widen_table<T, Acc>();
    for (; i < count; ++i) dst[i] = table[byte_of(src[i])];
  } else {
    for (; i < count; ++i) dst[i] = gemm_load<Acc, Mode>(src[i]);
  }
}

template <class Acc, gemm_input Mode>
struct gemm_pack_load {
  static constexpr std::size_t expand = 1;
  static constexpr bool has_run = true;
  static constexpr gemm_input mode = Mode;
  template <class T>
  void operator()(T x, Acc* out, std::size_t) const noexcept {
    if constexpr (widen_table_exact<T, Acc>) {
      out[0] = widen_table<T, Acc>()[byte_of(x)];
    } else {
      out[0] = gemm_load<Acc, Mode>(x);
    }
  }
  template <class T>
  void run(const T* src, Acc* dst, std::size_t count) const noexcept {
    gemm_load_run<Acc, Mode>(src, dst, count);
  }
};
template <class Acc>
struct gemm_pack_x3 {
  static constexpr std::size_t expand = 3;
  static constexpr bool has_run = false;
  bool first;  // the "first" role: lo, hi, hi; the second: hi, lo, hi
  template <class T>
  void operator()(T x, Acc* out, std::size_t step) const noexcept {
    float hi = 0, lo = 0;
    gemm_split(x, hi, lo);
    out[0] = static_cast<Acc>(first ? lo : hi);
    out[step] = static_cast<Acc>(first ? hi : lo);
    out[2 * step] = static_cast<Acc>(hi);
  }
};
template <class Acc>
struct gemm_pack_daz {
  static constexpr std::size_t expand = 1;
  static constexpr bool has_run = false;
  template <class T>
  void operator()(T x, Acc* out, std::size_t) const noexcept {
    out[0] = static_cast<Acc>(gemm_flush(gemm_widen<float>(x)));
  }
};

/// dst[(p*expand + e)*dps + r] = the e-th value of X(r, p) = src[r*rs + p*ps], for r < rows and
/// p < k; rows..rows_padded-1 are zero.
template <class Acc, class T, class Load>
void gemm_pack(const T* src, std::size_t rs, std::size_t ps, std::size_t rows, std::size_t rows_padded,
               std::size_t k, Acc* dst, std::size_t dps, Load load) noexcept {
  constexpr std::size_t E = Load::expand;
  if (ps == 1 && rows > 1) {
    // k is contiguous: with SIMD (float accumulation of vector types), gemm_vw x gemm_vw blocks
    // through register transposes; otherwise read along k, row by row, in chunks that keep the
    // writes in L1.
    std::size_t pv = 0;
#if defined(MIXPREC_GEMM_SIMD)
    if constexpr (Load::has_run && std::is_same<Acc, float>::value && gemm_vec_type<T>::value) {
      gemm_pack_transposed<Load::mode>(src, rs, rows, k, dst, dps);
      pv = k;
    }
#endif
    constexpr std::size_t chunk = 128;
    for (std::size_t p0 = pv; p0 < k; p0 += chunk) {
      const std::size_t p1 = std::min(k, p0 + chunk);
      for (std::size_t r = 0; r < rows; ++r) {
        const T* s = src + r * rs;
        if constexpr (Load::has_run) {
          Acc tmp[chunk];
          load.run(s + p0, tmp, p1 - p0);
          for (std::size_t p = p0; p < p1; ++p) dst[p * dps + r] = tmp[p - p0];
        } else {
          for (std::size_t p = p0; p < p1; ++p) load(s[p], dst + p * E * dps + r, dps);
        }
      }
    }
  } else {
    for (std::size_t p = 0; p < k; ++p) {
      const T* s = src + p * ps;
      Acc* d = dst + p * E * dps;
      if constexpr (Load::has_run) {
        if (rs == 1) {
          load.run(s, d, rows);
          continue;
        }
      }
      for (std::size_t r = 0; r < rows; ++r) load(s[r * rs], d + r, dps);
    }
  }
  if (rows_padded > rows) {
#if defined(MIXPREC_GEMM_SIMD)
    if constexpr (std::is_same<Acc, float>::value) {
      // By vector stores: the scalar loop becomes a `rep stos` per step (slow for 6 or 12 floats).
      for (std::size_t r = rows; r < rows_padded; r += gemm_vw) {
        const std::size_t cnt = std::min(gemm_vw, rows_padded - r);
        for (std::size_t q = 0; q < k * E; ++q) gemm_store_first(dst + q * dps + r, gemm_vzero(), cnt);
      }
      return;
    }
#endif
    for (std::size_t q = 0; q < k * E; ++q) {
      for (std::size_t r = rows; r < rows_padded; ++r) dst[q * dps + r] = Acc(0);
    }
  }
}

/// Packs one operand for the kinds fma, x3 and (DAZ values for the portable emulation) dot2.
template <class Acc, class T>
void gemm_pack_operand(const T* src, std::size_t rs, std::size_t ps, std::size_t rows, std::size_t rows_padded,
                       std::size_t k, Acc* dst, std::size_t dps, gemm_kind kind, gemm_input input,
                       bool x3_first) noexcept {
  switch (kind) {
    case gemm_kind::x3:
      gemm_pack(src, rs, ps, rows, rows_padded, k, dst, dps, gemm_pack_x3<Acc>{x3_first});
      return;
    case gemm_kind::dot2:
      gemm_pack(src, rs, ps, rows, rows_padded, k, dst, dps, gemm_pack_daz<Acc>{});
      return;
    default: break;
  }
  switch (input) {
    case gemm_input::tf32_away:
      gemm_pack(src, rs, ps, rows, rows_padded, k, dst, dps, gemm_pack_load<Acc, gemm_input::tf32_away>{});
      return;
    case gemm_input::tf32_even:
      gemm_pack(src, rs, ps, rows, rows_padded, k, dst, dps, gemm_pack_load<Acc, gemm_input::tf32_even>{});
      return;
    case gemm_input::bf16:
      gemm_pack(src, rs, ps, rows, rows_padded, k, dst, dps, gemm_pack_load<Acc, gemm_input::bf16>{});
      return;
    default:
      gemm_pack(src, rs, ps, rows, rows_padded, k, dst, dps, gemm_pack_load<Acc, gemm_input::as_is>{});
      return;
  }
}

/// Transparent huge page size (x86-64 Linux) for the scratch alignment.
constexpr std::size_t gemm_huge_page = std::size_t{2} << 20;

/// A 64-byte aligned scratch buffer per calling thread, kept for the next call. From 2 MiB on
/// (Linux), it is 2 MiB aligned and advised as transparent-huge-page memory (MADV_HUGEPAGE; a
/// hint: fewer TLB misses over the packed panels, e.g. 2048^3 float: 105 -> 108 GFLOP/s on Zen 4).
inline unsigned char* gemm_scratch(std::size_t bytes) {
  struct buffer {
    std::unique_ptr<unsigned char[]> data;
    std::size_t capacity = 0;
    std::size_t align = 64;
  };
  thread_local buffer buf;
  if (buf.capacity < bytes) {
    buf.data.reset();
    buf.capacity = 0;
    buf.align = 64;
#if defined(MIXPREC_GEMM_HAVE_THP)
    if (bytes >= gemm_huge_page) buf.align = gemm_huge_page;
#endif
    buf.data.reset(new unsigned char[bytes + buf.align]);
    buf.capacity = bytes;
#if defined(MIXPREC_GEMM_HAVE_THP)
    if (buf.align == gemm_huge_page) {
      const auto a = reinterpret_cast<std::uintptr_t>(buf.data.get());
      // Before the first touch; the hint may be refused (THP off): then 4 KiB pages, same results.
      (void)madvise(buf.data.get() + ((gemm_huge_page - (a & (gemm_huge_page - 1))) & (gemm_huge_page - 1)),
                    bytes / gemm_huge_page * gemm_huge_page, MADV_HUGEPAGE);
    }
#endif
  }
  const auto addr = reinterpret_cast<std::uintptr_t>(buf.data.get());
  return buf.data.get() + ((buf.align - (addr & (buf.align - 1))) & (buf.align - 1));
}

/// f(t) for t in [0, n) on `threads` threads (the caller included).
template <class F>
void gemm_parallel(unsigned threads, std::size_t n, F&& f) {
  if (threads <= 1 || n <= 1) {
    for (std::size_t t = 0; t < n; ++t) f(t);
    return;
  }
  for_each_block(exec::par(threads), n, 1, [&](std::size_t begin, std::size_t end) {
    for (std::size_t t = begin; t < end; ++t) f(t);
  });
}

/// At most `threads` tasks run at once; each takes a free slot (its private scratch) for its run.
class gemm_slots {
 public:
  explicit gemm_slots(unsigned n) : n_(n == 0 ? 1 : n), used_(new std::atomic<bool>[n_]()) {}
  unsigned acquire() noexcept {
    for (;;) {
      for (unsigned s = 0; s < n_; ++s) {
        if (!used_[s].load(std::memory_order_relaxed) && !used_[s].exchange(true, std::memory_order_acquire)) return s;
      }
    }
  }
  void release(unsigned s) noexcept { used_[s].store(false, std::memory_order_release); }

 private:
  unsigned n_;
  std::unique_ptr<std::atomic<bool>[]> used_;
};

inline std::size_t gemm_ceil_div(std::size_t a, std::size_t b) noexcept { return (a + b - 1) / b; }

/// The size in bytes of the L2 cache of the CPU this runs on (per core): sysconf
/// (_SC_LEVEL2_CACHE_SIZE), else cpuid leaf 0x80000006 (AMD and Intel), else 1 MiB.
inline std::size_t gemm_l2_bytes() noexcept {
#if defined(_SC_LEVEL2_CACHE_SIZE)
  const long v = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (v >= (16L << 10) && v <= (1L << 30)) return static_cast<std::size_t>(v);
#endif
#if defined(MIXPREC_GEMM_HAVE_CPUID)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) != 0 && eax >= 0x80000006u &&
      __get_cpuid(0x80000006u, &eax, &ebx, &ecx, &edx) != 0) {
    const std::size_t kib = ecx >> 16;
    if (kib >= 16 && kib <= (1u << 20)) return kib << 10;
  }
#endif
  return std::size_t{1} << 20;
}

/// Block sizes of the host paths, in bytes of packed data. They change only the speed, never the
/// result: no block size splits k (each C element's k steps run in order in one accumulator), so
/// every blocking gives the same bits (tests shrink them to exercise many blocks and panels on
/// small matrices; not thread-safe). The defaults come from gemm_blocking_for_cpu().
struct gemm_blocking {
  std::size_t a_block = std::size_t{384} << 10;    ///< SIMD: packed A rows per task (L2)
  std::size_t b_panel = std::size_t{16} << 20;     ///< SIMD: packed B columns shared by the threads (L3)
  std::size_t portable_panel = std::size_t{8} << 20;  ///< portable: packed B columns
  std::size_t parallel_min = std::size_t{1} << 19;    ///< SIMD: fewer m*n*k multiply-adds run on one thread
  std::size_t dot2_min = std::size_t{1} << 13;        ///< exact on vdpbf16ps (auto): from m*n*k multiply-adds (24^3 gains)
};
/// The blocking for this CPU: a_block = 3/8 of the L2 cache (384 KiB for 1 MiB, 768 KiB for
/// 2 MiB), within [128 KiB, 4 MiB]: the A block plus the streamed B sliver and C tile stay in L2.
inline gemm_blocking gemm_blocking_for_cpu() noexcept {
  gemm_blocking b;
  b.a_block = std::min(std::max(gemm_l2_bytes() / 8 * 3, std::size_t{128} << 10), std::size_t{4} << 20);
  return b;
}
inline gemm_blocking& gemm_blocking_sizes() noexcept {
  static gemm_blocking sizes = gemm_blocking_for_cpu();
  return sizes;
}

// ---------------------------------------------------------------------------------------------
// Host: portable path.
// ---------------------------------------------------------------------------------------------

/// Packs B by column panels (k' x nc, row-major in k') and each row of A (k'), then runs the k'
/// steps for 64 columns at a time.
/// k == 0: C = alpha * 0 (+ beta * C); A and B are not read (and may be null). Returns whether k == 0.
template <class Acc, class TA, class TB, class TC>
bool gemm_host_empty_k(const gemm_problem<Acc, TA, TB, TC>& pr, unsigned threads) {
  if (pr.k != 0) return false;
  gemm_parallel(threads, pr.m, [&](std::size_t i) {
    for (std::size_t j = 0; j < pr.n; ++j) gemm_store(pr, i, j, Acc(0));
  });
  return true;
}

template <class Acc, class TA, class TB, class TC>
void gemm_host_portable(const gemm_problem<Acc, TA, TB, TC>& pr, unsigned threads) {
  if (gemm_host_empty_k(pr, threads)) return;
  const std::size_t expand = pr.kind == gemm_kind::x3 ? 3 : 1;
  const std::size_t kk = pr.k * expand;
  const std::size_t panel_bytes = gemm_blocking_sizes().portable_panel;
  constexpr std::size_t jw = 64;
  std::size_t nc = std::max<std::size_t>(jw, panel_bytes / (sizeof(Acc) * std::max<std::size_t>(kk, 1)) / jw * jw);
  nc = std::min(nc, pr.n);
  const unsigned nslots = std::max(1u, threads);
  const std::size_t row_len = std::max<std::size_t>(kk, 1);
  auto* scratch = reinterpret_cast<Acc*>(gemm_scratch(sizeof(Acc) * (kk * nc + nslots * row_len)));
  Acc* panel = scratch;
  Acc* rows = scratch + kk * nc;
  gemm_slots slots(nslots);
  const bool dot2 = pr.kind == gemm_kind::dot2;
  constexpr std::size_t rows_per_task = 4;
  const std::size_t tasks = gemm_ceil_div(pr.m, rows_per_task);
  for (std::size_t j0 = 0; j0 < pr.n; j0 += nc) {
    const std::size_t w = std::min(nc, pr.n - j0);
    gemm_parallel(threads, gemm_ceil_div(w, jw), [&](std::size_t t) {
      const std::size_t c0 = t * jw, cw = std::min(jw, w - c0);
      // panel[p*w + j]: X(r = j, p) = B(p, j0 + j).
      gemm_pack_operand(pr.b + (j0 + c0) * pr.b_js, pr.b_js, pr.b_ps, cw, cw, pr.k, panel + c0, w, pr.kind, pr.input,
                        !pr.x3_a_first);
    });
    gemm_parallel(threads, tasks, [&](std::size_t t) {
      const unsigned slot = slots.acquire();
      Acc* arow = rows + slot * row_len;
      const std::size_t i1 = std::min(pr.m, (t + 1) * rows_per_task);
      for (std::size_t i = t * rows_per_task; i < i1; ++i) {
        gemm_pack_operand(pr.a + i * pr.a_is, pr.a_is, pr.a_ps, 1, 1, pr.k, arow, 1, pr.kind, pr.input, pr.x3_a_first);
        for (std::size_t c0 = 0; c0 < w; c0 += jw) {
          const std::size_t cw = std::min(jw, w - c0);
          Acc acc[jw];
          for (std::size_t c = 0; c < jw; ++c) acc[c] = Acc(0);
          if (dot2) {
            if constexpr (std::is_same<Acc, float>::value) {
              for (std::size_t p = 0; p < kk; ++p) {
                const float av = arow[p];
                const float* bp = panel + p * w + c0;
                for (std::size_t c = 0; c < cw; ++c) acc[c] = gemm_dot2_step(av, bp[c], acc[c]);
              }
            }
          } else {
            for (std::size_t p = 0; p < kk; ++p) {
              const Acc av = arow[p];
              const Acc* bp = panel + p * w + c0;
              for (std::size_t c = 0; c < cw; ++c) acc[c] = gemm_fma(av, bp[c], acc[c]);
            }
          }
          for (std::size_t c = 0; c < cw; ++c) gemm_store(pr, i, j0 + c0 + c, acc[c]);
        }
      }
      slots.release(slot);
    });
  }
}

/// Every element by gemm_element on the host (a reference for tests; the CUDA path's code).
template <class Acc, class TA, class TB, class TC>
void gemm_host_elementwise(const gemm_problem<Acc, TA, TB, TC>& pr, unsigned threads) {
  gemm_parallel(threads, pr.m, [&](std::size_t i) {
    for (std::size_t j = 0; j < pr.n; ++j) gemm_element(pr, i, j);
  });
}

// ---------------------------------------------------------------------------------------------
// Host: SIMD path (AVX-512F: 14 x 32 float / 14 x 16 double tiles; AVX2 + FMA: 6 x 16 / 6 x 8).
// ---------------------------------------------------------------------------------------------
#if defined(MIXPREC_GEMM_SIMD)

#define MIXPREC_GEMM_UNROLL _Pragma("GCC unroll 16")

#if defined(MIXPREC_GEMM_AVX512)
constexpr std::size_t gemm_mr = 14;      // rows of a tile
constexpr std::size_t gemm_nr_f32 = 32;  // columns of a float tile
constexpr std::size_t gemm_nr_f64 = 16;  // columns of a double tile

/// 14 x 16 double tile.
inline void gemm_kernel_f64(std::size_t kk, const double* ap, const double* bp, double* tile) noexcept {
  constexpr int MR = 14;
  __m512d c0[MR], c1[MR];
  MIXPREC_GEMM_UNROLL
  for (int r = 0; r < MR; ++r) {
    c0[r] = _mm512_setzero_pd();
    c1[r] = _mm512_setzero_pd();
  }
  for (std::size_t p = 0; p < kk; ++p) {
    const __m512d b0 = _mm512_load_pd(bp);
    const __m512d b1 = _mm512_load_pd(bp + 8);
    MIXPREC_GEMM_UNROLL
    for (int r = 0; r < MR; ++r) {
      const __m512d a = _mm512_set1_pd(ap[r]);
      c0[r] = _mm512_fmadd_pd(a, b0, c0[r]);
      c1[r] = _mm512_fmadd_pd(a, b1, c1[r]);
    }
    ap += MR;
    bp += 16;
  }
  MIXPREC_GEMM_UNROLL
  for (int r = 0; r < MR; ++r) {
    _mm512_store_pd(tile + r * 16, c0[r]);
    _mm512_store_pd(tile + r * 16 + 8, c1[r]);
  }
}

#else  // AVX2 + FMA
constexpr std::size_t gemm_mr = 6;
constexpr std::size_t gemm_nr_f32 = 16;
constexpr std::size_t gemm_nr_f64 = 8;

/// 6 x 8 double tile.
inline void gemm_kernel_f64(std::size_t kk, const double* ap, const double* bp, double* tile) noexcept {
  constexpr int MR = 6;
  __m256d c0[MR], c1[MR];
  MIXPREC_GEMM_UNROLL
  for (int r = 0; r < MR; ++r) {
    c0[r] = _mm256_setzero_pd();
    c1[r] = _mm256_setzero_pd();
  }
  for (std::size_t p = 0; p < kk; ++p) {
    const __m256d b0 = _mm256_load_pd(bp);
    const __m256d b1 = _mm256_load_pd(bp + 4);
    MIXPREC_GEMM_UNROLL
    for (int r = 0; r < MR; ++r) {
      const __m256d a = _mm256_broadcast_sd(ap + r);
      c0[r] = _mm256_fmadd_pd(a, b0, c0[r]);
      c1[r] = _mm256_fmadd_pd(a, b1, c1[r]);
    }
    ap += MR;
    bp += 8;
  }
  MIXPREC_GEMM_UNROLL
  for (int r = 0; r < MR; ++r) {
    _mm256_store_pd(tile + r * 8, c0[r]);
    _mm256_store_pd(tile + r * 8 + 4, c1[r]);
  }
}
#endif  // MIXPREC_GEMM_AVX512


/// f(std::integral_constant<std::size_t, R>) for the tile height R >= rows: MR when rows > MR - 2,
/// else the least of 2, 6, 10, ... (MR = 14: 2, 6, 10, 14; MR = 6: 2, 6) that holds them. A
/// short last sliver (m = 10, or the 2 rows left of m = 128) runs a short tile; few heights keep
/// the instantiations (compile time) down.
template <std::size_t R, std::size_t MR, class F>
inline bool gemm_with_rows(std::size_t rows, F& f) {
  static_assert(MR % 4 == 2, "gemm_with_rows: tile heights 2, 6, 10, ... up to MR");
  if constexpr (R >= MR) {
    return f(std::integral_constant<std::size_t, MR>{});
  } else {
    if (R == 2 && rows > MR - 2) return f(std::integral_constant<std::size_t, MR>{});  // the common case first
    if (rows <= R) return f(std::integral_constant<std::size_t, R>{});
    return gemm_with_rows<R + 4, MR>(rows, f);
  }
}

#if defined(MIXPREC_GEMM_AVX512BF16)
/// bf16_dot2 packing for vdpbf16ps: dst[q*dps + r] = (bits of X(r, 2q)) << 16 | bits of X(r, 2q+1)
/// (element 2q in the high half, which the instruction processes first); a missing element
/// 2q+1 (odd k) is `pad`; rows..rows_padded-1 are zero.
inline void gemm_pack_dot2(const bfloat16* src, std::size_t rs, std::size_t ps, std::size_t rows,
                           std::size_t rows_padded, std::size_t k, std::uint32_t* dst, std::size_t dps,
                           std::uint16_t pad) noexcept {
  const std::size_t kq = (k + 1) / 2, kfull = k / 2;
  auto pair = [&](std::size_t r, std::size_t q) -> std::uint32_t {
    const bfloat16* s0 = src + r * rs + 2 * q * ps;
    const std::uint32_t lo = 2 * q + 1 < k ? s0[ps].bits() : pad;
    return (std::uint32_t{s0[0].bits()} << 16) | lo;
  };
  if (ps == 1 && rows > 1) {
    // Each pair is one little-endian dword (element 2q low): rotate it by 16 bits; 16 rows x 16
    // pairs at a time through a register transpose (the last partial block of pairs by masked
    // loads, reading only the 2*kfull elements of a row); an odd k's last pair element by element.
    for (std::size_t q0 = 0; q0 < kfull; q0 += 16) {
      const std::size_t qc = std::min<std::size_t>(16, kfull - q0);
      const __mmask16 km = static_cast<__mmask16>(qc == 16 ? 0xffffu : (1u << qc) - 1u);
      for (std::size_t r0 = 0; r0 < rows; r0 += 16) {
        const std::size_t cnt = std::min<std::size_t>(16, rows - r0);
        __m512 v[16];
        MIXPREC_GEMM_UNROLL
        for (std::size_t r = 0; r < 16; ++r) {
          v[r] = r < cnt ? _mm512_castsi512_ps(_mm512_rol_epi32(_mm512_maskz_loadu_epi32(km, src + (r0 + r) * rs + 2 * q0), 16))
                         : _mm512_setzero_ps();
        }
        gemm_transpose(v);  // (bit patterns: the shuffles move lanes only)
        const __mmask16 rm = static_cast<__mmask16>(cnt == 16 ? 0xffffu : (1u << cnt) - 1u);
        std::uint32_t* d = dst + q0 * dps + r0;
        MIXPREC_GEMM_UNROLL
        for (std::size_t q = 0; q < 16; ++q) {
          if (q < qc) _mm512_mask_storeu_epi32(d + q * dps, rm, _mm512_castps_si512(v[q]));
        }
      }
    }
    for (std::size_t q = kfull; q < kq; ++q) {
      for (std::size_t r = 0; r < rows; ++r) dst[q * dps + r] = pair(r, q);
    }
  } else if (rs == 1) {
    // Rows contiguous: interleave elements 2q (high halves) and 2q+1 (low halves), 16 at a time
    // (a last partial group of rows through a zero-padded copy).
    for (std::size_t q = 0; q < kq; ++q) {
      std::uint32_t* d = dst + q * dps;
      std::size_t r = 0;
      if (q < kfull) {
        const bfloat16* s0 = src + 2 * q * ps;
        const bfloat16* s1 = s0 + ps;
        for (; r < rows; r += 16) {
          const std::size_t cnt = std::min<std::size_t>(16, rows - r);
          __m512i hi, lo;
          if (cnt == 16) {
            hi = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s0 + r)));
            lo = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s1 + r)));
          } else {
            alignas(32) std::uint16_t b0[16] = {}, b1[16] = {};
            std::memcpy(b0, s0 + r, cnt * sizeof(bfloat16));
            std::memcpy(b1, s1 + r, cnt * sizeof(bfloat16));
            hi = _mm512_cvtepu16_epi32(_mm256_load_si256(reinterpret_cast<const __m256i*>(b0)));
            lo = _mm512_cvtepu16_epi32(_mm256_load_si256(reinterpret_cast<const __m256i*>(b1)));
          }
          const __mmask16 rm = static_cast<__mmask16>(cnt == 16 ? 0xffffu : (1u << cnt) - 1u);
          _mm512_mask_storeu_epi32(d + r, rm, _mm512_or_si512(_mm512_slli_epi32(hi, 16), lo));
        }
        continue;
      }
      for (; r < rows; ++r) d[r] = pair(r, q);
    }
  } else {
    for (std::size_t q = 0; q < kq; ++q) {
      for (std::size_t r = 0; r < rows; ++r) dst[q * dps + r] = pair(r, q);
    }
  }
  // The padding rows by masked vector stores (a scalar loop here becomes a `rep stos` per pair,
  // which cost a third of m128x10x256_NT's time).
  for (std::size_t r = rows; r < rows_padded; r += 16) {
    const std::size_t cnt = std::min<std::size_t>(16, rows_padded - r);
    const __mmask16 rm = static_cast<__mmask16>(cnt == 16 ? 0xffffu : (1u << cnt) - 1u);
    for (std::size_t q = 0; q < kq; ++q) _mm512_mask_storeu_epi32(dst + q * dps + r, rm, _mm512_setzero_si512());
  }
}


/// An operand of the vdpbf16ps driver, type-erased (one driver per C type): p[r*rs + q*ps], as
/// bfloat16 (fmt bf16), float bf16-exact (fmt f32: its high 16 bits), float rounded to bfloat16
/// nearest-even (fmt f32_round: float32_matmul_precision "medium", gemm_round_bf16), or FP8
/// (e4m3: float8_e4m3fn, e5m2: float8_e5m2; every value is a normal bfloat16, or zero, inf, NaN).
struct gemm_dot2_src {
  enum fmt_t : unsigned char { bf16, f32, f32_round, e4m3, e5m2 };
  const void* p;
  std::size_t rs, ps;
  fmt_t fmt;
};

/// The bfloat16 bits of float lanes u: their high halves (rounded first for f32_round), in the low
/// halves of the result.
inline __m512i gemm_dot2_hi16(__m512i u, bool round) noexcept {
  if (round) u = gemm_round_vec<gemm_input::bf16>(u);
  return _mm512_srli_epi32(u, 16);
}
inline std::uint32_t gemm_dot2_hi16(float x, bool round) noexcept {
  return gemm_bits(round ? gemm_round_bf16(x) : x) >> 16;
}

/// The first cnt (1..16) elements at src widened to float (exactly: float, FP8), as bits.
template <class T>
inline __m512i gemm_dot2_load(const T* src, std::size_t cnt) noexcept {
  if (cnt == 16) return _mm512_castps_si512(gemm_load_vec<gemm_input::as_is>(src));
  return _mm512_castps_si512(gemm_load_vec_first<gemm_input::as_is>(src, cnt));
}

/// gemm_pack_dot2 for float and FP8 sources (the high half of each value widened to float, a
/// float rounded to bfloat16 first when `round`).
template <class T>
void gemm_pack_dot2_conv(const T* src, std::size_t rs, std::size_t ps, std::size_t rows, std::size_t rows_padded,
                         std::size_t k, std::uint32_t* dst, std::size_t dps, std::uint16_t pad, bool round) noexcept {
  const std::size_t kq = (k + 1) / 2, kfull = k / 2;
  auto pair = [&](std::size_t r, std::size_t q) -> std::uint32_t {
    const T* s0 = src + r * rs + 2 * q * ps;
    const std::uint32_t lo = 2 * q + 1 < k ? gemm_dot2_hi16(gemm_widen<float>(s0[ps]), round) : pad;
    return (gemm_dot2_hi16(gemm_widen<float>(s0[0]), round) << 16) | lo;
  };
  if (ps == 1 && rows > 1) {
    // 32 floats of a row -> 16 pairs (even elements' halves high), 16 rows at a time, transposed.
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
    for (std::size_t q0 = 0; q0 < kfull; q0 += 16) {
      const std::size_t qc = std::min<std::size_t>(16, kfull - q0);
      const std::size_t e0 = std::min<std::size_t>(16, 2 * qc), e1 = 2 * qc - e0;
      for (std::size_t r0 = 0; r0 < rows; r0 += 16) {
        const std::size_t cnt = std::min<std::size_t>(16, rows - r0);
        __m512 v[16];
        MIXPREC_GEMM_UNROLL
        for (std::size_t r = 0; r < 16; ++r) {
          if (r < cnt) {
            const T* s = src + (r0 + r) * rs + 2 * q0;
            const __m512i x0 = gemm_dot2_hi16(gemm_dot2_load(s, e0), round);
            const __m512i x1 = e1 == 0 ? _mm512_setzero_si512() : gemm_dot2_hi16(gemm_dot2_load(s + 16, e1), round);
            const __m512i hi = _mm512_permutex2var_epi32(x0, even, x1), lo = _mm512_permutex2var_epi32(x0, odd, x1);
            v[r] = _mm512_castsi512_ps(_mm512_or_si512(_mm512_slli_epi32(hi, 16), lo));
          } else {
            v[r] = _mm512_setzero_ps();
          }
        }
        gemm_transpose(v);
        const __mmask16 rm = static_cast<__mmask16>(cnt == 16 ? 0xffffu : (1u << cnt) - 1u);
        std::uint32_t* d = dst + q0 * dps + r0;
        MIXPREC_GEMM_UNROLL
        for (std::size_t q = 0; q < 16; ++q) {
          if (q < qc) _mm512_mask_storeu_epi32(d + q * dps, rm, _mm512_castps_si512(v[q]));
        }
      }
    }
    for (std::size_t q = kfull; q < kq; ++q) {
      for (std::size_t r = 0; r < rows; ++r) dst[q * dps + r] = pair(r, q);
    }
  } else if (rs == 1) {
    for (std::size_t q = 0; q < kfull; ++q) {
      const T* s0 = src + 2 * q * ps;
      const T* s1 = s0 + ps;
      std::uint32_t* d = dst + q * dps;
      for (std::size_t r = 0; r < rows; r += 16) {
        const std::size_t cnt = std::min<std::size_t>(16, rows - r);
        const __mmask16 rm = static_cast<__mmask16>(cnt == 16 ? 0xffffu : (1u << cnt) - 1u);
        const __m512i hi = gemm_dot2_hi16(gemm_dot2_load(s0 + r, cnt), round);
        const __m512i lo = gemm_dot2_hi16(gemm_dot2_load(s1 + r, cnt), round);
        _mm512_mask_storeu_epi32(d + r, rm, _mm512_or_si512(_mm512_slli_epi32(hi, 16), lo));
      }
    }
    for (std::size_t q = kfull; q < kq; ++q) {
      for (std::size_t r = 0; r < rows; ++r) dst[q * dps + r] = pair(r, q);
    }
  } else {
    for (std::size_t q = 0; q < kq; ++q) {
      for (std::size_t r = 0; r < rows; ++r) dst[q * dps + r] = pair(r, q);
    }
  }
  for (std::size_t r = rows; r < rows_padded; r += 16) {
    const std::size_t cnt = std::min<std::size_t>(16, rows_padded - r);
    const __mmask16 rm = static_cast<__mmask16>(cnt == 16 ? 0xffffu : (1u << cnt) - 1u);
    for (std::size_t q = 0; q < kq; ++q) _mm512_mask_storeu_epi32(dst + q * dps + r, rm, _mm512_setzero_si512());
  }
}

/// gemm_pack_dot2 for FP8 sources: 256 k at a time widened to float (a vector at a time along the
/// contiguous dimension) into a local buffer, then gemm_pack_dot2_conv<float> (one packer
/// instantiation for float and FP8: the compile time of the sanitizer builds).
template <class T>
void gemm_pack_dot2_fp8(const T* src, std::size_t rs, std::size_t ps, std::size_t rows, std::size_t rows_padded,
                        std::size_t k, std::uint32_t* dst, std::size_t dps, std::uint16_t pad) noexcept {
  constexpr std::size_t KC = 256, RC = 32;  // rows <= max(gemm_mr, gemm_nr_f32) = 32
  alignas(64) float buf[KC * RC];
  const bool by_rows = ps != 1 && rs == 1;  // rows contiguous: buf[p*RC + r]; else buf[r*KC + p]
  for (std::size_t k0 = 0; k0 < k; k0 += KC) {
    const std::size_t kc = std::min(KC, k - k0);
    if (by_rows) {
      for (std::size_t p = 0; p < kc; ++p) {
        for (std::size_t r = 0; r < rows; r += 16) {
          const std::size_t cnt = std::min<std::size_t>(16, rows - r);
          _mm512_store_si512(buf + p * RC + r, gemm_dot2_load(src + (k0 + p) * ps + r, cnt));
        }
      }
      gemm_pack_dot2_conv(buf, std::size_t{1}, RC, rows, rows_padded, kc, dst + k0 / 2 * dps, dps, pad, false);
    } else {
      for (std::size_t r = 0; r < rows; ++r) {
        const T* s = src + r * rs + k0 * ps;
        float* d = buf + r * KC;
        if (ps == 1) {
          for (std::size_t p = 0; p < kc; p += 16) _mm512_store_si512(d + p, gemm_dot2_load(s + p, std::min<std::size_t>(16, kc - p)));
        } else {
          for (std::size_t p = 0; p < kc; ++p) d[p] = gemm_widen<float>(s[p * ps]);
        }
      }
      gemm_pack_dot2_conv(buf, KC, std::size_t{1}, rows, rows_padded, kc, dst + k0 / 2 * dps, dps, pad, false);
    }
  }
}

/// Packs rows [i, i+rows) of an operand (gemm_pack_dot2 / gemm_pack_dot2_conv / gemm_pack_dot2_fp8).
inline void gemm_pack_dot2_src(const gemm_dot2_src& s, std::size_t i, std::size_t rows, std::size_t rows_padded,
                               std::size_t k, std::uint32_t* dst, std::size_t dps, std::uint16_t pad) noexcept {
  switch (s.fmt) {
    case gemm_dot2_src::bf16:
      gemm_pack_dot2(static_cast<const bfloat16*>(s.p) + i * s.rs, s.rs, s.ps, rows, rows_padded, k, dst, dps, pad);
      return;
    case gemm_dot2_src::e4m3:
      gemm_pack_dot2_fp8(static_cast<const float8_e4m3fn*>(s.p) + i * s.rs, s.rs, s.ps, rows, rows_padded, k, dst, dps,
                         pad);
      return;
    case gemm_dot2_src::e5m2:
      gemm_pack_dot2_fp8(static_cast<const float8_e5m2*>(s.p) + i * s.rs, s.rs, s.ps, rows, rows_padded, k, dst, dps,
                         pad);
      return;
    default:
      gemm_pack_dot2_conv(static_cast<const float*>(s.p) + i * s.rs, s.rs, s.ps, rows, rows_padded, k, dst, dps, pad,
                          s.fmt == gemm_dot2_src::f32_round);
  }
}

/// The proof scan of the exact -> vdpbf16ps rule (docs/pages/kernels-reference.md, "exact on
/// vdpbf16ps"): over the rows x k operand s, the smallest biased exponent of its nonzero finite
/// bfloat16 values (255 when there are none); -1 (early) when a value is subnormal, or (fmt f32)
/// a float is not bfloat16-exact.
inline int gemm_dot2_min_exponent(const gemm_dot2_src& s, std::size_t rows, std::size_t k) noexcept {
  // FP8: no scan, the format bounds it (smallest subnormals 2^-9 and 2^-16: biased 118 and 111).
  if (s.fmt == gemm_dot2_src::e4m3) return 118;
  if (s.fmt == gemm_dot2_src::e5m2) return 111;
  // Runs of contiguous elements (the order does not matter for a minimum).
  std::size_t runs = rows, len = k, stride = s.rs;
  if (s.ps != 1) {
    if (s.rs != 1) {  // neither contiguous (not from gemm_setup): element by element
      std::uint32_t mn = 0xffffffffu;
      for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t p = 0; p < k; ++p) {
          const std::size_t e = r * s.rs + p * s.ps;
          std::uint32_t h;
          if (s.fmt == gemm_dot2_src::bf16) {
            h = static_cast<const bfloat16*>(s.p)[e].bits();
          } else {
            const float x = static_cast<const float*>(s.p)[e];
            if (s.fmt == gemm_dot2_src::f32 && (gemm_bits(x) & 0xffffu) != 0) return -1;
            h = gemm_dot2_hi16(x, s.fmt == gemm_dot2_src::f32_round);
          }
          mn = std::min(mn, (h & 0x7fffu) - 1u);
        }
      }
      const std::uint32_t mag = mn + 1u;
      return mag == 0 ? 255 : mag < 0x80u ? -1 : static_cast<int>(std::min<std::uint32_t>(mag >> 7, 255));
    }
    runs = k;
    len = rows;
    stride = s.ps;
  }
  if (stride == len) {  // the runs are contiguous: one run (a 10-wide matrix: no short runs)
    len *= runs;
    runs = 1;
  }
  // Lanes: (magnitude bits - 1) as unsigned, so that a zero (-> all ones) never is the minimum.
  const __m512i one = _mm512_set1_epi32(1), mag_mask = _mm512_set1_epi32(0x7fff);
  __m512i mn = _mm512_set1_epi32(-1);
  if (s.fmt == gemm_dot2_src::bf16) {
    const auto* base = static_cast<const bfloat16*>(s.p);
    // 32 values a vector, in 16-bit lanes (AVX-512-BF16 implies AVX-512BW in GCC and Clang).
    const __m512i one16 = _mm512_set1_epi16(1), mag16 = _mm512_set1_epi16(0x7fff);
    __m512i mn16 = _mm512_set1_epi16(-1);
    for (std::size_t r = 0; r < runs; ++r) {
      const bfloat16* x = base + r * stride;
      for (std::size_t e = 0; e < len; e += 32) {
        const std::size_t cnt = std::min<std::size_t>(32, len - e);
        const __mmask32 m = cnt == 32 ? 0xffffffffu : (1u << cnt) - 1u;
        const __m512i h = _mm512_maskz_loadu_epi16(m, x + e);  // (masked-off lanes: 0, ignored)
        mn16 = _mm512_min_epu16(mn16, _mm512_sub_epi16(_mm512_and_si512(h, mag16), one16));
      }
      if (_mm512_cmplt_epu16_mask(mn16, _mm512_set1_epi16(0x7f)) != 0) return -1;  // a subnormal
    }
    mn = _mm512_min_epu32(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(mn16)),
                          _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(mn16, 1)));
    const std::uint32_t mag16v = _mm512_reduce_min_epu32(mn) + 1u;
    return mag16v == 0x10000u ? 255 : static_cast<int>(std::min<std::uint32_t>(mag16v >> 7, 255));
  } else {
    const bool round = s.fmt == gemm_dot2_src::f32_round;
    const __m512i low = _mm512_set1_epi32(0xffff);
    const auto* base = static_cast<const float*>(s.p);
    for (std::size_t r = 0; r < runs; ++r) {
      const float* x = base + r * stride;
      for (std::size_t e = 0; e < len; e += 16) {
        const std::size_t cnt = std::min<std::size_t>(16, len - e);
        const __mmask16 m = static_cast<__mmask16>(cnt == 16 ? 0xffffu : (1u << cnt) - 1u);
        const __m512i u = _mm512_maskz_loadu_epi32(m, x + e);
        if (!round && _mm512_test_epi32_mask(u, low) != 0) return -1;  // not bfloat16-exact: fails at once
        mn = _mm512_min_epu32(mn, _mm512_sub_epi32(_mm512_and_si512(gemm_dot2_hi16(u, round), mag_mask), one));
      }
      if (_mm512_cmplt_epu32_mask(mn, _mm512_set1_epi32(0x7f)) != 0) return -1;
    }
  }
  const std::uint32_t mag = _mm512_reduce_min_epu32(mn) + 1u;
  return mag == 0 ? 255 : static_cast<int>(std::min<std::uint32_t>(mag >> 7, 255));
}

#endif

/// C element types that gemm_store_vec stores: float, and half / bfloat16 (in nearest-even).
template <class TC>
struct gemm_vec_store_type
    : std::integral_constant<bool, std::is_same<TC, float>::value ||
                                       ((std::is_same<TC, half>::value || std::is_same<TC, bfloat16>::value) &&
                                        gemm_vec_type<TC>::value)> {};

/// Whether C is stored by gemm_store_vec: Acc = float, a row-major C (c_js == 1) of float, or of
/// half or bfloat16 in nearest-even.
template <class Acc, class TA, class TB, class TC>
bool gemm_vec_store_ok(const gemm_problem<Acc, TA, TB, TC>& pr) noexcept {
  if constexpr (std::is_same<Acc, float>::value && gemm_vec_store_type<TC>::value) {
    return pr.c_js == 1 && (std::is_same<TC, float>::value || pr.out_mode == rounding::nearest_even);
  } else {
    return false;
  }
}

/// cnt (<= gemm_vw) elements of a C row at dst from the accumulators acc: gemm_store's
/// operations lane by lane, r = alpha*acc (+ fma(beta, C, r)) in float, then (half, bfloat16)
/// round_to<TC>(r) by gemm_narrow_vec. Only dst[0..cnt) is read (read_c) and written.
template <class TC>
MIXPREC_GEMM_INLINE void gemm_store_vec(TC* dst, gemm_vf acc, std::size_t cnt, gemm_vf va, gemm_vf vb, bool read_c) noexcept {
  constexpr std::size_t W = gemm_vw;
#if defined(MIXPREC_GEMM_AVX512)
  __m512 v = _mm512_mul_ps(va, acc);
#else
  __m256 v = _mm256_mul_ps(va, acc);
#endif
  if constexpr (std::is_same<TC, float>::value) {
    if (cnt == W) {
#if defined(MIXPREC_GEMM_AVX512)
      if (read_c) v = _mm512_fmadd_ps(vb, _mm512_loadu_ps(dst), v);
      _mm512_storeu_ps(dst, v);
#else
      if (read_c) v = _mm256_fmadd_ps(vb, _mm256_loadu_ps(dst), v);
      _mm256_storeu_ps(dst, v);
#endif
      return;
    }
    if (read_c) v = gemm_vfmadd(vb, gemm_load_first(dst, cnt), v);
    gemm_store_first(dst, v, cnt);
  } else {
    alignas(64) std::uint16_t buf[W] = {};
    std::uint16_t* cp = cnt == W ? reinterpret_cast<std::uint16_t*>(dst) : buf;
    if (read_c) {
      if (cnt != W) std::memcpy(buf, dst, cnt * sizeof(TC));
      v = gemm_vfmadd(vb, gemm_widen_vec<TC>(cp), v);
    }
    gemm_narrow_vec<TC>(v, cp);
    if (cnt != W) std::memcpy(dst, buf, cnt * sizeof(TC));
  }
}

/// Stores an mr x nr tile (row stride ldt) into C: gemm_store element by element, in vector form
/// (gemm_store_vec) where gemm_vec_store_ok, and for a row-major double C with Acc = double.
template <class Acc, class TA, class TB, class TC>
void gemm_store_tile(const gemm_problem<Acc, TA, TB, TC>& pr, std::size_t i0, std::size_t j0, std::size_t mr,
                     std::size_t nr, const Acc* tile, std::size_t ldt) noexcept {
  if constexpr (std::is_same<Acc, float>::value && gemm_vec_store_type<TC>::value) {
    if (gemm_vec_store_ok(pr)) {
      constexpr std::size_t W = gemm_vw;
      const gemm_vf va = gemm_vset1(pr.alpha), vb = gemm_vset1(pr.beta);
      const bool read_c = !detail::exact_eq(pr.beta, 0.0f);
      for (std::size_t r = 0; r < mr; ++r) {
        TC* crow = pr.c + (i0 + r) * pr.c_is + j0;
        const float* t = tile + r * ldt;
        for (std::size_t c = 0; c < nr; c += W) {
#if defined(MIXPREC_GEMM_AVX512)
          gemm_store_vec(crow + c, _mm512_load_ps(t + c), std::min(W, nr - c), va, vb, read_c);
#else
          gemm_store_vec(crow + c, _mm256_load_ps(t + c), std::min(W, nr - c), va, vb, read_c);
#endif
        }
      }
      return;
    }
  }
  if constexpr (std::is_same<TC, double>::value && std::is_same<Acc, double>::value) {
    if (pr.c_js == 1) {
      constexpr std::size_t W = gemm_vwd;
#if defined(MIXPREC_GEMM_AVX512)
      const __m512d va = _mm512_set1_pd(pr.alpha), vb = _mm512_set1_pd(pr.beta);
#else
      const __m256d va = _mm256_set1_pd(pr.alpha), vb = _mm256_set1_pd(pr.beta);
#endif
      const bool read_c = !detail::exact_eq(pr.beta, 0.0);
      for (std::size_t r = 0; r < mr; ++r) {
        double* crow = pr.c + (i0 + r) * pr.c_is + j0;
        const double* t = tile + r * ldt;
        for (std::size_t c = 0; c < nr; c += W) {
          const std::size_t cnt = std::min(W, nr - c);
#if defined(MIXPREC_GEMM_AVX512)
          __m512d v = _mm512_mul_pd(va, _mm512_load_pd(t + c));
          if (cnt == W) {
            if (read_c) v = _mm512_fmadd_pd(vb, _mm512_loadu_pd(crow + c), v);
            _mm512_storeu_pd(crow + c, v);
            continue;
          }
          if (read_c) v = _mm512_fmadd_pd(vb, gemm_load_first(crow + c, cnt), v);
#else
          __m256d v = _mm256_mul_pd(va, _mm256_load_pd(t + c));
          if (cnt == W) {
            if (read_c) v = _mm256_fmadd_pd(vb, _mm256_loadu_pd(crow + c), v);
            _mm256_storeu_pd(crow + c, v);
            continue;
          }
          if (read_c) v = _mm256_fmadd_pd(vb, gemm_load_first(crow + c, cnt), v);
#endif
          gemm_store_first(crow + c, v, cnt);
        }
      }
      return;
    }
  }
  for (std::size_t r = 0; r < mr; ++r) {
    for (std::size_t c = 0; c < nr; ++c) gemm_store(pr, i0 + r, j0 + c, tile[r * ldt + c]);
  }
}

/// Where a float tile goes: C (c != nullptr: C(i0, j0), rows ldc apart, stored by gemm_store_vec
/// when the tile is full width) or the buffer tile (rows V*gemm_vw apart, for gemm_store_tile).
template <class TC>
struct gemm_tile_dest {
  TC* c;
  std::size_t ldc;
  float alpha, beta;
  float* tile;
};

/// Rows r < rows of a register tile to C: full (nr == V*gemm_vw) or the first nr columns.
template <bool ReadC, bool Full, std::size_t R, std::size_t V, class TC>
MIXPREC_GEMM_INLINE void gemm_tile_rows(const gemm_vf (&acc)[R][V], std::size_t rows, std::size_t nr, TC* const c,
                                        const std::size_t ldc, gemm_vf va, gemm_vf vb) noexcept {
  constexpr std::size_t W = gemm_vw;
  MIXPREC_GEMM_UNROLL
  for (std::size_t r = 0; r < R; ++r) {
    if (r >= rows) break;
    MIXPREC_GEMM_UNROLL
    for (std::size_t v = 0; v < V; ++v) {
      if (Full) {
        gemm_store_vec(c + r * ldc + v * W, acc[r][v], W, va, vb, ReadC);
      } else if (v * W < nr) {  // a partial last sliver (n = 10, or the end of C's rows)
        gemm_store_vec(c + r * ldc + v * W, acc[r][v], std::min(W, nr - v * W), va, vb, ReadC);
      }
    }
  }
}

/// The end of the bf16_dot2 register tile: direct (C set): its first `rows`
/// rows and nr (<= V*gemm_vw) columns to C (c, rows ldc apart) by gemm_store_vec, returns true;
/// otherwise all R rows to d.tile (rows V*gemm_vw apart), returns false (the caller stores them).
/// (Always inlined, as gemm_tile_rows: the accumulators stay in registers. gemm_tile_f32 keeps
/// its own copy of this code: through this function its AVX2 build ran 5-13% slower.)
template <std::size_t R, std::size_t V, class TC>
MIXPREC_GEMM_INLINE bool gemm_tile_out(const gemm_vf (&acc)[R][V], std::size_t rows, std::size_t nr, bool direct,
                                       TC* const c, const std::size_t ldc, const gemm_tile_dest<TC>& d) noexcept {
  constexpr std::size_t W = gemm_vw;
  if (!direct) {
    float* const t = d.tile;
    MIXPREC_GEMM_UNROLL
    for (std::size_t r = 0; r < R; ++r) {
      MIXPREC_GEMM_UNROLL
      for (std::size_t v = 0; v < V; ++v) gemm_vstore(t + (r * V + v) * W, acc[r][v]);
    }
    return false;
  }
  const gemm_vf va = gemm_vset1(d.alpha), vb = gemm_vset1(d.beta);
  const bool beta0 = detail::exact_eq(d.beta, 0.0f);
  if (nr == V * W) {
    if (beta0) {
      gemm_tile_rows<false, true>(acc, rows, nr, c, ldc, va, vb);
    } else {
      gemm_tile_rows<true, true>(acc, rows, nr, c, ldc, va, vb);
    }
  } else if (beta0) {
    gemm_tile_rows<false, false>(acc, rows, nr, c, ldc, va, vb);
  } else {
    gemm_tile_rows<true, false>(acc, rows, nr, c, ldc, va, vb);
  }
  return true;
}

/// How far ahead (bytes of B's steps) the float tile prefetches B into L1: B streams from L2 (from
/// L3 for the first A sliver of a B sliver), which the hardware prefetchers alone left short of
/// the FMA units (2048^3 on an Emerald Rapids Xeon, one thread, interleaved runs: 129 -> 138 GFLOP/s).
constexpr std::size_t gemm_pf_bytes = 4096;

/// The A operand of gemm_tile_f32: a packed sliver, A(r, p) = ap[p*gemm_mr + r] ...
struct gemm_a_packed {
  const float* ap;
  const float* at(std::size_t r, std::size_t p) const noexcept { return ap + p * gemm_mr + r; }
};
/// ... or float A read in place with k contiguous, A(r, p) = a[r*lda + p] (a sliver used once, as
/// where n <= NR: packing it would cost as much as the tile; the same values, the same products).
struct gemm_a_rows {
  const float* a;
  std::size_t lda;
  template <std::size_t R>
  struct rows {
    const float* row[R];
    const float* at(std::size_t r, std::size_t p) const noexcept { return row[r] + p; }
  };
  template <std::size_t R>
  rows<R> start() const noexcept {
    rows<R> x{};
    for (std::size_t r = 0; r < R; ++r) x.row[r] = a + r * lda;
    return x;
  }
};

/// The float tile: R rows (R <= gemm_mr) by V vectors (V*gemm_vw columns), from zero, for p < kk
/// in order: acc[r][v] = fma(A(r, p), B(p, v), acc[r][v]), where A(r, p) is a packed sliver's
/// ap[p*gemm_mr + r] (or gemm_a_rows: A in place) and B(p, v) =
/// gemm_load_vec<as_is>(bp + p*bs + v*gemm_vw): a packed float sliver (bs = V*gemm_vw) or B read in
/// place (float, half or bfloat16 with n contiguous, bs = its row stride). Then, with d.c set and
/// nr == V*gemm_vw, its first `rows` rows go to C from the registers (returns true); otherwise the
/// whole tile goes to d.tile (returns false: the caller stores it with gemm_store_tile).
template <std::size_t R, std::size_t V, class TB, class TC, class A = gemm_a_packed>
bool gemm_tile_f32(std::size_t kk, const float* ap, const TB* bp, std::size_t bs, std::size_t rows, std::size_t nr,
                   const gemm_tile_dest<TC>& d, const A& a_op = A{}) noexcept {
  constexpr std::size_t W = gemm_vw;
  TC* const c = d.c;  // (locals: the stores to C cannot change them)
  const std::size_t ldc = d.ldc;
  const bool direct = c != nullptr && nr == V * W;
  gemm_vf acc[R][V];
  MIXPREC_GEMM_UNROLL
  for (std::size_t r = 0; r < R; ++r) {
    MIXPREC_GEMM_UNROLL
    for (std::size_t v = 0; v < V; ++v) acc[r][v] = gemm_vzero();
  }
  // B's row of a step, gemm_pf_bytes / step_bytes steps ahead, into L1 (prefetches do not change
  // the result, and do not fault past the end of B).
  constexpr std::size_t step_bytes = V * W * sizeof(TB);
  const std::size_t pf_ahead = std::max<std::size_t>(1, gemm_pf_bytes / step_bytes) * bs * sizeof(TB);
  const auto a_at = [&] {
    if constexpr (std::is_same<A, gemm_a_packed>::value) {
      return gemm_a_packed{ap};
    } else {
      return a_op.template start<R>();
    }
  }();
  for (std::size_t p = 0; p < kk; ++p) {
    gemm_vf b[V];
    MIXPREC_GEMM_UNROLL
    for (std::size_t v = 0; v < V; ++v) b[v] = gemm_load_vec<gemm_input::as_is>(bp + v * W);
    const std::uintptr_t pf = reinterpret_cast<std::uintptr_t>(bp) + pf_ahead;
    MIXPREC_GEMM_UNROLL
    for (std::size_t o = 0; o < step_bytes; o += 64) _mm_prefetch(reinterpret_cast<const char*>(pf + o), _MM_HINT_T0);
    MIXPREC_GEMM_UNROLL
    for (std::size_t r = 0; r < R; ++r) {
      const gemm_vf a = gemm_vbroadcast(a_at.at(r, p));
      MIXPREC_GEMM_UNROLL
      for (std::size_t v = 0; v < V; ++v) acc[r][v] = gemm_vfmadd(a, b[v], acc[r][v]);
    }
    bp += bs;
  }
  if (!direct) {
    float* const t = d.tile;
    MIXPREC_GEMM_UNROLL
    for (std::size_t r = 0; r < R; ++r) {
      MIXPREC_GEMM_UNROLL
      for (std::size_t v = 0; v < V; ++v) gemm_vstore(t + (r * V + v) * W, acc[r][v]);
    }
    return false;
  }
  const gemm_vf va = gemm_vset1(d.alpha), vb = gemm_vset1(d.beta);
  auto store_rows = [&](auto read_c) {
    MIXPREC_GEMM_UNROLL
    for (std::size_t r = 0; r < R; ++r) {
      if (r >= rows) break;
      MIXPREC_GEMM_UNROLL
      for (std::size_t v = 0; v < V; ++v) gemm_store_vec(c + r * ldc + v * W, acc[r][v], W, va, vb, read_c());
    }
  };
  if (detail::exact_eq(d.beta, 0.0f)) {
    store_rows(std::false_type{});
  } else {
    store_rows(std::true_type{});
  }
  return true;
}

#if defined(MIXPREC_GEMM_AVX512BF16)
/// The bf16_dot2 tile: R rows (R <= gemm_mr) by V vectors from bfloat16 pairs, from zero, for
/// q < kq in order: acc[r][v] = vdpbf16ps(acc[r][v], ap[q*gemm_mr + r], bp[q*V*16 + v*16 ...]);
/// then stored as gemm_tile_f32's (gemm_tile_out).
template <std::size_t R, std::size_t V, class TC>
bool gemm_tile_dot2(std::size_t kq, const std::uint32_t* ap, const std::uint32_t* bp, std::size_t rows,
                    std::size_t nr, const gemm_tile_dest<TC>& d) noexcept {
  constexpr std::size_t W = gemm_vw;
  TC* const c = d.c;
  const std::size_t ldc = d.ldc;
  const bool direct = c != nullptr;
  gemm_vf acc[R][V];
  MIXPREC_GEMM_UNROLL
  for (std::size_t r = 0; r < R; ++r) {
    MIXPREC_GEMM_UNROLL
    for (std::size_t v = 0; v < V; ++v) acc[r][v] = gemm_vzero();
  }
  for (std::size_t q = 0; q < kq; ++q) {
    __m512bh b[V];
    MIXPREC_GEMM_UNROLL
    for (std::size_t v = 0; v < V; ++v) b[v] = detail::bit_cast<__m512bh>(_mm512_load_si512(bp + v * W));
    MIXPREC_GEMM_UNROLL
    for (std::size_t r = 0; r < R; ++r) {
      const __m512bh a = detail::bit_cast<__m512bh>(_mm512_set1_epi32(static_cast<int>(ap[r])));
      MIXPREC_GEMM_UNROLL
      for (std::size_t v = 0; v < V; ++v) acc[r][v] = _mm512_dpbf16_ps(acc[r][v], a, b[v]);
    }
    ap += gemm_mr;
    bp += V * W;
  }
  return gemm_tile_out<R, V>(acc, rows, nr, direct, c, ldc, d);
}
#endif

/// The blocked driver: per task an A block of MR-row slivers (gemm_blocking::a_block bytes), a
/// B panel of NR-column slivers shared by the threads (b_panel bytes). P: packed element (Acc, or
/// a uint32 pair for dot2); kk: packed k length. tile(kk, a sliver, b sliver, i, rows, j, nr)
/// computes C(i .. i+rows-1, j .. j+nr-1) and stores it.
template <class P, std::size_t MR, std::size_t NR, class Acc, class TA, class TB, class TC, class PackA, class PackB,
          class Tile>
void gemm_host_blocked(const gemm_problem<Acc, TA, TB, TC>& pr, unsigned threads, std::size_t kk, PackA pack_a,
                       PackB pack_b, Tile tile) {
  const std::size_t sliver_a = MR * std::max<std::size_t>(kk, 1);
  const std::size_t sliver_b = NR * std::max<std::size_t>(kk, 1);
  const std::size_t sa = gemm_ceil_div(pr.m, MR);  // A slivers
  const std::size_t sb = gemm_ceil_div(pr.n, NR);  // B slivers
  const std::size_t per_block = std::max<std::size_t>(1, gemm_blocking_sizes().a_block / (sliver_a * sizeof(P)));
  std::size_t blocks = gemm_ceil_div(sa, per_block);
  const unsigned nthreads = std::max(1u, threads);
  if (nthreads > 1) blocks = std::min(sa, gemm_ceil_div(blocks, nthreads) * nthreads);
  const std::size_t panel = std::min(sb, std::max<std::size_t>(1, gemm_blocking_sizes().b_panel / (sliver_b * sizeof(P))));
  // Few A blocks: also split the B panel among tasks; then the whole of A (at most 2 x threads
  // blocks) is packed once, with the first B panel, and shared by the tasks of each block.
  std::size_t groups = 1;
  if (nthreads > 1 && blocks < 2 * std::size_t{nthreads}) {
    groups = std::min(panel, gemm_ceil_div(2 * std::size_t{nthreads}, blocks));
  }
  const bool a_once = groups > 1;
  const std::size_t block_slivers = gemm_ceil_div(sa, blocks);
  const std::size_t a_slivers = a_once ? sa : std::size_t{nthreads} * block_slivers;
  auto* scratch = reinterpret_cast<P*>(gemm_scratch(sizeof(P) * (panel * sliver_b + a_slivers * sliver_a)));
  P* bpanel = scratch;
  P* ablocks = scratch + panel * sliver_b;
  gemm_slots slots(nthreads);
  for (std::size_t t0 = 0; t0 < sb; t0 += panel) {
    const std::size_t tn = std::min(panel, sb - t0);
    // A small panel (a narrow or short B) is packed by the calling thread: no wake-up round.
    const std::size_t na = a_once && t0 == 0 ? sa : 0;  // A slivers packed in this round
    const bool small_panel = (tn * sliver_b + na * sliver_a) * sizeof(P) < (std::size_t{64} << 10);
    gemm_parallel(small_panel ? 1u : threads, tn + na, [&](std::size_t t) {
      if (t < tn) {
        const std::size_t j = (t0 + t) * NR;
        pack_b(j, std::min(NR, pr.n - j), bpanel + t * sliver_b);
      } else {
        const std::size_t i = (t - tn) * MR;
        pack_a(i, std::min(MR, pr.m - i), ablocks + (t - tn) * sliver_a);
      }
    });
    gemm_parallel(threads, blocks * groups, [&](std::size_t task) {
      const std::size_t blk = task / groups, grp = task % groups;
      const std::size_t s0 = blk * sa / blocks, s1 = (blk + 1) * sa / blocks;
      const std::size_t u0 = grp * tn / groups, u1 = (grp + 1) * tn / groups;
      if (s0 == s1 || u0 == u1) return;
      unsigned slot = 0;
      P* ablock = ablocks + s0 * sliver_a;
      if (!a_once) {
        slot = slots.acquire();
        ablock = ablocks + slot * block_slivers * sliver_a;
        for (std::size_t s = s0; s < s1; ++s) {
          const std::size_t i = s * MR;
          pack_a(i, std::min(MR, pr.m - i), ablock + (s - s0) * sliver_a);
        }
      }
      for (std::size_t u = u0; u < u1; ++u) {
        const std::size_t j = (t0 + u) * NR;
        const std::size_t nr = std::min(NR, pr.n - j);
        for (std::size_t s = s0; s < s1; ++s) {
          const std::size_t i = s * MR;
          tile(kk, ablock + (s - s0) * sliver_a, bpanel + u * sliver_b, i, std::min(MR, pr.m - i), j, nr);
        }
      }
      if (!a_once) slots.release(slot);
    });
  }
}

/// The tile operation of gemm_host_blocked for a kernel(kk, ap, bp, tile) that writes an MR x NR
/// buffer: then gemm_store_tile.
template <std::size_t MR, std::size_t NR, class Acc, class TA, class TB, class TC, class Kernel>
auto gemm_buffered_tile(const gemm_problem<Acc, TA, TB, TC>& pr, Kernel kernel) {
  return [&pr, kernel](std::size_t kk, const auto* ap, const auto* bp, std::size_t i, std::size_t rows, std::size_t j,
                       std::size_t nr) {
    alignas(64) Acc tile[MR * NR];
    kernel(kk, ap, bp, tile);
    gemm_store_tile(pr, i, j, rows, nr, tile, NR);
  };
}

/// Whether B (element type TB) can be read in place by gemm_tile_f32 (no packing).
template <class TB>
struct gemm_direct_b_type
    : std::integral_constant<bool, std::is_same<TB, float>::value || std::is_same<TB, bfloat16>::value
#if defined(MIXPREC_GEMM_F16C)
                                       || std::is_same<TB, half>::value
#endif
                             > {
};

#if defined(MIXPREC_GEMM_AVX512BF16)
/// The vdpbf16ps driver body, one per vector-stored C type TCv (float, half, bfloat16): C of pv
/// from the operands a (op(A), m x k) and b (op(B)^T, n x k); pv.a, pv.b are not read. vec_store:
/// full-width tiles go to pv.c from the registers; other tiles go through the buffer to
/// store(ctx, i, j, rows, nr, buf, ld) (gemm_store_tile of the real C type: shared code for all).
template <class TCv>
void gemm_host_dot2_impl(const gemm_problem<float, bfloat16, bfloat16, TCv>& pv, bool vec_store,
                         const gemm_dot2_src& a, const gemm_dot2_src& b, unsigned threads,
                         void (*store)(const void*, std::size_t, std::size_t, std::size_t, std::size_t, const float*,
                                       std::size_t),
                         const void* ctx) {
  constexpr std::size_t MR = gemm_mr;
  auto pack_a = [&](std::size_t i, std::size_t rows, std::uint32_t* dst) {
    gemm_pack_dot2_src(a, i, rows, MR, pv.k, dst, MR, 0x8000u);
  };
  auto run = [&](auto nr_constant) {
    constexpr std::size_t NR = decltype(nr_constant)::value;
    auto pack_b = [&](std::size_t j, std::size_t cols, std::uint32_t* dst) {
      gemm_pack_dot2_src(b, j, cols, NR, pv.k, dst, NR, 0x0000u);
    };
    // As the float tiles: short last slivers, C stored from the registers where it can be.
    auto tile = [&](std::size_t kq, const std::uint32_t* ap, const std::uint32_t* bp, std::size_t i,
                    std::size_t rows, std::size_t j, std::size_t nr) {
      alignas(64) float buf[MR * NR];
      gemm_tile_dest<TCv> d{nullptr, 0, pv.alpha, pv.beta, buf};
      if (vec_store) {
        d.c = pv.c + i * pv.c_is + j;
        d.ldc = pv.c_is;
      }
      auto kernel = [&](auto r_constant) {
        return gemm_tile_dot2<decltype(r_constant)::value, NR / gemm_vw>(kq, ap, bp, rows, nr, d);
      };
      if (!gemm_with_rows<2, MR>(rows, kernel)) store(ctx, i, j, rows, nr, buf, NR);
    };
    gemm_host_blocked<std::uint32_t, MR, NR>(pv, threads, (pv.k + 1) / 2, pack_a, pack_b, tile);
  };
  if (pv.n <= gemm_vw) {  // narrow C: one vector per tile row
    run(std::integral_constant<std::size_t, gemm_vw>{});
  } else {
    run(std::integral_constant<std::size_t, gemm_nr_f32>{});
  }
}

/// The vdpbf16ps driver (bf16_dot2, and exact where gemm_dot2_auto proves it the same): C of pr
/// from a and b (pr.a, pr.b are not read); the body is gemm_host_dot2_impl's, shared by C types.
template <class TC>
void gemm_host_dot2(const gemm_problem<float, bfloat16, bfloat16, TC>& pr, const gemm_dot2_src& a,
                    const gemm_dot2_src& b, unsigned threads) {
  using P = gemm_problem<float, bfloat16, bfloat16, TC>;
  using TCv = typename std::conditional<gemm_vec_store_type<TC>::value, TC, float>::type;
  const bool vec_store = gemm_vec_store_ok(pr);
  TCv* c = nullptr;
  if constexpr (std::is_same<TC, TCv>::value) c = pr.c;
  const gemm_problem<float, bfloat16, bfloat16, TCv> pv{
      pr.m,    pr.n,    pr.k,          pr.alpha,      pr.beta,   nullptr, pr.a_is,  pr.a_ps,
      nullptr, pr.b_ps, pr.b_js,       c,             pr.c_is,   pr.c_js, pr.counter_is, pr.counter_js,
      pr.offset, pr.rng, pr.out_mode, pr.kind,       pr.input,  pr.x3_a_first};
  auto store = [](const void* ctx, std::size_t i, std::size_t j, std::size_t rows, std::size_t nr, const float* buf,
                  std::size_t ld) { gemm_store_tile(*static_cast<const P*>(ctx), i, j, rows, nr, buf, ld); };
  gemm_host_dot2_impl(pv, vec_store, a, b, threads, +store, &pr);
}

/// pr as the problem type of gemm_host_dot2 (A and B pointers dropped).
template <class TA, class TB, class TC>
gemm_problem<float, bfloat16, bfloat16, TC> gemm_dot2_problem(const gemm_problem<float, TA, TB, TC>& pr) noexcept {
  return gemm_problem<float, bfloat16, bfloat16, TC>{
      pr.m,    pr.n,    pr.k,          pr.alpha,      pr.beta,   nullptr, pr.a_is,  pr.a_ps,
      nullptr, pr.b_ps, pr.b_js,       pr.c,          pr.c_is,   pr.c_js, pr.counter_is, pr.counter_js,
      pr.offset, pr.rng, pr.out_mode, pr.kind,       pr.input,  pr.x3_a_first};
}

/// $MIXPREC_GEMM_DOT2: whether exact runs on vdpbf16ps where it is proven the same (0 auto: when
/// this CPU's vdpbf16ps tile is faster and the problem is big enough; 1 on: always; 2 off).
/// `warning` is set (and auto returned) for anything but unset, "", auto, on, off.
inline int gemm_dot2_parse(const char* s, std::string& warning) {
  warning.clear();
  if (s == nullptr || *s == '\0' || std::strcmp(s, "auto") == 0) return 0;
  if (std::strcmp(s, "on") == 0) return 1;
  if (std::strcmp(s, "off") == 0) return 2;
  warning = "mixprec: ignoring MIXPREC_GEMM_DOT2=\"" + std::string(s, std::min<std::size_t>(std::strlen(s), 40)) +
            "\" (not auto, on or off); using auto\n";
  return 0;
}
/// The setting (from $MIXPREC_GEMM_DOT2 at first use; tests and benchmarks store 0, 1 or 2).
inline std::atomic<int>& gemm_dot2_mode() {
  static std::atomic<int> mode{[] {
    std::string warning;
    const int v = gemm_dot2_parse(std::getenv("MIXPREC_GEMM_DOT2"), warning);
    if (!warning.empty()) std::fputs(warning.c_str(), stderr);
    return v;
  }()};
  return mode;
}
/// How many exact GEMMs ran on vdpbf16ps (a test hook: which kernel ran).
inline std::atomic<std::size_t>& gemm_dot2_runs() noexcept {
  static std::atomic<std::size_t> n{0};
  return n;
}

/// Whether this CPU's vdpbf16ps tile is faster than its float tile: both 14 x 32 register tiles on
/// the same in-L1 data (k = 128), interleaved, min of 8 reps; dot2 must take <= 0.8 of the float
/// tile's time (~0.5 on AMD Zen 4, ~2 on Intel Sapphire Rapids). About 60 us, once per process.
inline bool gemm_dot2_calibrate() noexcept {
  constexpr std::size_t MR = gemm_mr, NR = gemm_nr_f32, V = NR / gemm_vw, kk = 128;
  alignas(64) float af[MR * kk], bf[NR * kk], buf[MR * NR];
  alignas(64) std::uint32_t a2[MR * kk / 2], b2[NR * kk / 2];
  for (std::size_t e = 0; e < MR * kk; ++e) af[e] = 1.0f + static_cast<float>(e % 7) * 0x1p-4f;
  for (std::size_t e = 0; e < NR * kk; ++e) bf[e] = 0.5f + static_cast<float>(e % 5) * 0x1p-4f;
  for (std::size_t e = 0; e < MR * kk / 2; ++e) a2[e] = 0x3f803f90u;
  for (std::size_t e = 0; e < NR * kk / 2; ++e) b2[e] = 0x3f003f10u;
  const gemm_tile_dest<float> d{nullptr, 0, 1.0f, 0.0f, buf};
  using clock = std::chrono::steady_clock;
  auto best_f32 = clock::duration::max(), best_dot2 = clock::duration::max();
  float sink = 0;
  for (int rep = 0; rep < 9; ++rep) {
    const auto t0 = clock::now();
    for (int i = 0; i < 4; ++i) gemm_tile_f32<MR, V>(kk, af, bf, NR, MR, NR, d);
    sink += buf[0];
    const auto t1 = clock::now();
    for (int i = 0; i < 4; ++i) gemm_tile_dot2<MR, V>(kk / 2, a2, b2, MR, NR, d);
    sink += buf[0];
    const auto t2 = clock::now();
    if (rep > 0) {  // (rep 0 warms up)
      best_f32 = std::min(best_f32, t1 - t0);
      best_dot2 = std::min(best_dot2, t2 - t1);
    }
  }
  volatile float keep = sink;
  static_cast<void>(keep);
  return best_dot2.count() * 5 <= best_f32.count() * 4;
}
inline bool gemm_dot2_cpu_prefers() noexcept {
  static const bool v = gemm_dot2_calibrate();
  return v;
}

/// Operand types the rule covers (A and B of the same type, to keep the instantiations few): bfloat16,
/// and float whose values are bfloat16-exact (or rounded to bfloat16 by float32_matmul_precision "medium").
template <class T>
struct gemm_dot2_operand : std::integral_constant<bool, std::is_same<T, bfloat16>::value || std::is_same<T, float>::value> {};
/// FP8 operands (any two: every value is a normal bfloat16 or zero, EA + EB >= 222; no scan).
template <class T>
struct gemm_dot2_fp8
    : std::integral_constant<bool, std::is_same<T, float8_e4m3fn>::value || std::is_same<T, float8_e5m2>::value> {};
template <class T>
constexpr gemm_dot2_src::fmt_t gemm_dot2_fmt(gemm_input input) noexcept {
  if constexpr (std::is_same<T, float>::value) {
    return input == gemm_input::bf16 ? gemm_dot2_src::f32_round : gemm_dot2_src::f32;
  } else if constexpr (std::is_same<T, float8_e4m3fn>::value) {
    return gemm_dot2_src::e4m3;
  } else if constexpr (std::is_same<T, float8_e5m2>::value) {
    return gemm_dot2_src::e5m2;
  } else {
    return gemm_dot2_src::bf16;
  }
}

/// exact (gemm_kind::fma, Acc float) on the vdpbf16ps driver, when allowed (gemm_dot2_mode) and
/// proven to give the same bits: no subnormal input and EA + EB >= 142 (the smallest biased
/// exponents of A's and B's nonzero finite values), so that no DAZ or FTZ ever changes a step
/// (docs/pages/kernels-reference.md, "exact on vdpbf16ps"). Returns whether it ran.
template <class TA, class TB, class TC>
bool gemm_dot2_auto(const gemm_problem<float, TA, TB, TC>& pr, unsigned threads) {
  if (pr.kind != gemm_kind::fma) return false;
  const int mode = gemm_dot2_mode().load(std::memory_order_relaxed);
  if (mode == 2) return false;
  // auto: not for small problems, nor where the float tile reads a long B in place unpacked (m <= 2
  // tiles, n contiguous: as fast there, measured), nor where this CPU's dot2 tile is slower.
  if (mode != 1 && (static_cast<double>(pr.m) * static_cast<double>(pr.n) * static_cast<double>(pr.k) <
                        static_cast<double>(gemm_blocking_sizes().dot2_min) ||
                    (pr.b_js == 1 && pr.m <= 2 * gemm_mr) || !gemm_dot2_cpu_prefers())) {
    return false;
  }
  const gemm_dot2_src a{pr.a, pr.a_is, pr.a_ps, gemm_dot2_fmt<TA>(pr.input)};
  const gemm_dot2_src b{pr.b, pr.b_js, pr.b_ps, gemm_dot2_fmt<TB>(pr.input)};
  const int ea = gemm_dot2_min_exponent(a, pr.m, pr.k);
  if (ea < 0) return false;
  const int eb = gemm_dot2_min_exponent(b, pr.n, pr.k);
  if (eb < 0 || ea + eb < 142) return false;
  gemm_dot2_runs().fetch_add(1, std::memory_order_relaxed);
  gemm_host_dot2(gemm_dot2_problem(pr), a, b, threads);
  return true;
}
#endif

/// The SIMD path for this problem; false when it has none (then the portable path runs).
template <class Acc, class TA, class TB, class TC>
bool gemm_host_simd(const gemm_problem<Acc, TA, TB, TC>& pr, unsigned threads) {
  constexpr std::size_t MR = gemm_mr;
  // Below parallel_min (2^19) multiply-adds, a few microseconds on one core, waking other threads
  // costs more than it saves: run on the calling thread (the result does not depend on it).
  if (static_cast<double>(pr.m) * static_cast<double>(pr.n) * static_cast<double>(pr.k) <
      static_cast<double>(gemm_blocking_sizes().parallel_min)) {
    threads = 1;
  }
#if defined(MIXPREC_GEMM_AVX512BF16)
  if constexpr (std::is_same<Acc, float>::value && ((std::is_same<TA, TB>::value && gemm_dot2_operand<TA>::value) ||
                                                    (gemm_dot2_fp8<TA>::value && gemm_dot2_fp8<TB>::value))) {
    if (pr.kind == gemm_kind::dot2) {  // (bfloat16 A and B: gemm_setup)
      gemm_host_dot2(gemm_dot2_problem(pr), gemm_dot2_src{pr.a, pr.a_is, pr.a_ps, gemm_dot2_src::bf16},
                     gemm_dot2_src{pr.b, pr.b_js, pr.b_ps, gemm_dot2_src::bf16}, threads);
      return true;
    }
    if (gemm_dot2_auto(pr, threads)) return true;
  }
#endif
  if (pr.kind == gemm_kind::dot2) return false;
  auto pack_a = [&](std::size_t i, std::size_t rows, Acc* dst) {
    gemm_pack_operand(pr.a + i * pr.a_is, pr.a_is, pr.a_ps, rows, MR, pr.k, dst, MR, pr.kind, pr.input,
                      pr.x3_a_first);
  };
  const std::size_t kk = pr.kind == gemm_kind::x3 ? 3 * pr.k : pr.k;
  if constexpr (std::is_same<Acc, float>::value) {
    // B read in place (row-major op(B), n contiguous, a vector type with no input conversion)
    // where packing would not pay: its slivers serve at most two A slivers (m <= 2*MR: the weight
    // gradient of a 10-class layer, m = 10), or k is short (k <= 16: the sliver stays in L1).
    // Only full-width slivers; the last partial one is packed.
    bool direct_b = false;
    if constexpr (gemm_direct_b_type<TB>::value) {
      direct_b = pr.kind == gemm_kind::fma && (!std::is_same<TB, float>::value || pr.input == gemm_input::as_is) &&
                 pr.b_js == 1 && (pr.m <= 2 * MR || pr.k <= 16);
    }
    const bool vec_store = gemm_vec_store_ok(pr);
    auto run = [&](auto nr_constant) {
      constexpr std::size_t NR = decltype(nr_constant)::value;
      constexpr std::size_t V = NR / gemm_vw;
      // A read in place (float, k contiguous, no input conversion) where each A sliver meets one
      // B sliver (n <= NR: a 10-class layer's forward pass), so that packing it is not repaid:
      // m128x10x256_NT spent half its time in the transposing pack. Full slivers only (the last
      // partial one is packed, its padding rows zero).
      bool direct_a = false;
      if constexpr (std::is_same<TA, float>::value) {
        direct_a = pr.kind == gemm_kind::fma && pr.input == gemm_input::as_is && pr.a_ps == 1 && pr.n <= NR;
      }
      auto pack_a_run = [&](std::size_t i, std::size_t rows, float* dst) {
        if (direct_a && rows == MR) return;  // read in place
        pack_a(i, rows, dst);
      };
      auto pack_b = [&](std::size_t j, std::size_t cols, float* dst) {
        if (direct_b && cols == NR) return;  // read in place
        gemm_pack_operand(pr.b + j * pr.b_js, pr.b_js, pr.b_ps, cols, NR, pr.k, dst, NR, pr.kind, pr.input,
                          !pr.x3_a_first);
      };
      auto tile = [&](std::size_t kk_, const float* ap, const float* bp, std::size_t i, std::size_t rows, std::size_t j,
                      std::size_t nr) {
        // The tile kernels depend on TB and C's type only (shared by every A type).
        using TCv = typename std::conditional<gemm_vec_store_type<TC>::value, TC, float>::type;
        alignas(64) float buf[MR * NR];
        gemm_tile_dest<TCv> d{nullptr, 0, pr.alpha, pr.beta, buf};
        if constexpr (gemm_vec_store_type<TC>::value) {
          if (vec_store) {
            d.c = pr.c + i * pr.c_is + j;
            d.ldc = pr.c_is;
          }
        }
        auto kernel = [&](auto r_constant) {
          constexpr std::size_t R = decltype(r_constant)::value;
          auto with_a = [&](auto... a_op) {  // A packed (no argument) or in place
            if constexpr (gemm_direct_b_type<TB>::value) {
              if (direct_b && nr == NR) return gemm_tile_f32<R, V>(kk_, ap, pr.b + j, pr.b_ps, rows, nr, d, a_op...);
            }
            return gemm_tile_f32<R, V>(kk_, ap, bp, NR, rows, nr, d, a_op...);
          };
          if constexpr (std::is_same<TA, float>::value) {  // (nested: the outer test is not R's)
            if constexpr (R == MR) {
              if (direct_a && rows == MR) return with_a(gemm_a_rows{pr.a + i * pr.a_is, pr.a_is});
            }
          }
          return with_a();
        };
        if (!gemm_with_rows<2, MR>(rows, kernel)) gemm_store_tile(pr, i, j, rows, nr, buf, NR);
      };
      gemm_host_blocked<float, MR, NR>(pr, threads, kk, pack_a_run, pack_b, tile);
    };
    if (pr.n <= gemm_vw) {  // narrow C (e.g. a 10-wide output layer): one vector per tile row
      run(std::integral_constant<std::size_t, gemm_vw>{});
    } else {
      run(std::integral_constant<std::size_t, gemm_nr_f32>{});
    }
  } else {
    constexpr std::size_t NR = gemm_nr_f64;
    auto pack_b = [&](std::size_t j, std::size_t cols, Acc* dst) {
      gemm_pack_operand(pr.b + j * pr.b_js, pr.b_js, pr.b_ps, cols, NR, pr.k, dst, NR, pr.kind, pr.input,
                        !pr.x3_a_first);
    };
    gemm_host_blocked<double, MR, NR>(pr, threads, kk, pack_a, pack_b, gemm_buffered_tile<MR, NR>(pr, gemm_kernel_f64));
  }
  return true;
}

#undef MIXPREC_GEMM_UNROLL
#undef MIXPREC_GEMM_INLINE
#endif  // MIXPREC_GEMM_SIMD

/// The host computation: column-major C runs as the row-major C^T = op(B)^T op(A)^T.
template <class Acc, class TA, class TB, class TC>
void gemm_host(const gemm_problem<Acc, TA, TB, TC>& pr, unsigned threads) {
  if (gemm_host_empty_k(pr, threads)) return;
  if (pr.c_js != 1 && pr.c_is == 1) {
    const gemm_problem<Acc, TB, TA, TC> t{pr.n,         pr.m,   pr.k,      pr.alpha,  pr.beta,       pr.b,
                                          pr.b_js,      pr.b_ps, pr.a,     pr.a_ps,   pr.a_is,       pr.c,
                                          pr.c_js,      pr.c_is, pr.counter_js, pr.counter_is, pr.offset, pr.rng,
                                          pr.out_mode,  pr.kind, pr.input, !pr.x3_a_first};
    gemm_host(t, threads);
    return;
  }
#if defined(MIXPREC_GEMM_SIMD)
  if (gemm_host_simd(pr, threads)) return;
#endif
  gemm_host_portable(pr, threads);
}

/// Checks the arguments (std::invalid_argument naming the problem) and normalizes them.
template <class Acc, class TA, class TB, class TC>
gemm_problem<Acc, TA, TB, TC> gemm_setup(transpose op_a, transpose op_b, std::size_t m, std::size_t n,
                                         std::size_t k, Acc alpha, const TA* A, std::size_t lda, const TB* B,
                                         std::size_t ldb, Acc beta, TC* C, std::size_t ldc,
                                         const gemm_options& opts) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("mixprec::gemm: " + what); };
  auto check_op = [&](transpose t, const char* name) {
    if (t != transpose::none && t != transpose::trans) fail(std::string("invalid transpose value for ") + name);
  };
  check_op(op_a, "op_a");
  check_op(op_b, "op_b");
  if (opts.order != layout::row_major && opts.order != layout::col_major) fail("invalid layout value");
  if (opts.algorithm != gemm_algorithm::exact && opts.algorithm != gemm_algorithm::bf16_dot2) {
    fail("invalid algorithm value");
  }
  if (!is_valid(opts.output_rounding)) {
    fail("invalid output rounding value");
  }
  if (!is_valid(opts.generator)) fail("invalid generator value (splitmix64 or philox4x32_10)");
  const bool row = opts.order == layout::row_major;
  // Stored shapes: A is (m x k) or (k x m), B is (k x n) or (n x k), C is m x n.
  const bool ta = op_a == transpose::trans, tb = op_b == transpose::trans;
  const std::size_t a_rows = ta ? k : m, a_cols = ta ? m : k;
  const std::size_t b_rows = tb ? n : k, b_cols = tb ? k : n;
  auto check_ld = [&](const char* name, std::size_t ld, std::size_t rows, std::size_t cols) {
    const std::size_t need = row ? cols : rows;
    if (ld < need) {
      fail(std::string(name) + " = " + std::to_string(ld) + " is smaller than the " + (row ? "row" : "column") +
           " length " + std::to_string(need) + " of the stored " + std::to_string(rows) + " x " +
           std::to_string(cols) + (row ? " row-major" : " column-major") + " matrix");
    }
  };
  check_ld("lda", lda, a_rows, a_cols);
  check_ld("ldb", ldb, b_rows, b_cols);
  check_ld("ldc", ldc, m, n);
  if (A == nullptr && m != 0 && k != 0) fail("A is a null pointer but op(A) is " + std::to_string(m) + " x " + std::to_string(k));
  if (B == nullptr && k != 0 && n != 0) fail("B is a null pointer but op(B) is " + std::to_string(k) + " x " + std::to_string(n));
  if (C == nullptr && m != 0 && n != 0) fail("C is a null pointer but C is " + std::to_string(m) + " x " + std::to_string(n));

  gemm_kind kind = gemm_kind::fma;
  gemm_input input = gemm_input::as_is;
  if (opts.algorithm == gemm_algorithm::bf16_dot2) {
    if (!std::is_same<TA, bfloat16>::value || !std::is_same<TB, bfloat16>::value) {
      fail("gemm_algorithm::bf16_dot2 needs bfloat16 A and B");
    }
    if (!std::is_same<Acc, float>::value) fail("gemm_algorithm::bf16_dot2 accumulates in float (Acc must be float)");
    kind = gemm_kind::dot2;
  } else if (std::is_same<TA, float>::value || std::is_same<TB, float>::value) {
    switch (float32_matmul_precision()) {
      case matmul_precision::medium: input = gemm_input::bf16; break;
      case matmul_precision::high:
        switch (float32_matmul_high_mode()) {
          case matmul_high_mode::tf32_nearest_even: input = gemm_input::tf32_even; break;
          case matmul_high_mode::bf16x3: kind = gemm_kind::x3; break;
          default: input = gemm_input::tf32_away; break;
        }
        break;
      default: break;
    }
  }

  const std::size_t a_is = (row != ta) ? lda : 1, a_ps = (row != ta) ? 1 : lda;
  const std::size_t b_ps = (row != tb) ? ldb : 1, b_js = (row != tb) ? 1 : ldb;
  const std::size_t c_is = row ? ldc : 1, c_js = row ? 1 : ldc;
  const std::size_t counter_is = row ? n : 1, counter_js = row ? 1 : m;
  return gemm_problem<Acc, TA, TB, TC>{m,      n,    k,          alpha,      beta,        A,
                                       a_is,   a_ps, B,          b_ps,       b_js,        C,
                                       c_is,   c_js, counter_is, counter_js, opts.offset, sr_rng(opts.generator, opts.seed),
                                       opts.output_rounding, kind, input, true};
}

/// gemm with opts.mma set (after gemm_setup): checks the preset against the operand types, alpha
/// and beta (std::invalid_argument naming what is allowed, C unchanged), decodes op(A) and op(B)
/// once, then each C(i,j) is detail::mma_chain over the k products, rows split over the threads.
template <class Acc, class TA, class TB, class TC>
void gemm_mma(const gemm_problem<Acc, TA, TB, TC>& pr, mma_preset preset, unsigned threads) {
  const std::size_t np = static_cast<std::size_t>(mma_preset::count_);
  if (static_cast<std::size_t>(preset) >= np) {
    throw std::invalid_argument("mixprec::gemm: invalid tensor-core preset value; the presets: none, " + mma_preset_names());
  }
  const mma_model& md = mma_model_of(preset);
  if (md.scales != 0) {
    throw std::invalid_argument(std::string("mixprec::gemm: tensor-core preset ") + md.name +
                                " takes block scales: use mixprec::block_scaled_gemm with block_accumulator::tensor_core");
  }
  mma_check_operands<TA, TB>("mixprec::gemm", md);
  if (!detail::exact_eq(pr.alpha, Acc(1))) throw std::invalid_argument("mixprec::gemm: a tensor-core preset needs alpha == 1");
  if (!detail::exact_eq(pr.beta, Acc(0)) && !detail::exact_eq(pr.beta, Acc(1))) {
    throw std::invalid_argument("mixprec::gemm: a tensor-core preset needs beta == 0 (C not read) or beta == 1 (C is the accumulator's start)");
  }
  const std::size_t m = pr.m, n = pr.n, k = pr.k;
  constexpr unsigned oa = mma_operand_of<TA>(), ob = mma_operand_of<TB>();
  const bool read_c = detail::exact_eq(pr.beta, Acc(1));
  auto store = [&](std::size_t i, std::size_t j, double d) {
    TC* c = pr.c + i * pr.c_is + j * pr.c_js;
    if constexpr (std::is_same<TC, double>::value) {
      *c = d;
    } else {
      const std::uint32_t bits =
          pr.out_mode == rounding::stochastic ? pr.rng(pr.offset + i * pr.counter_is + j * pr.counter_js) : 0u;
      *c = round_to<TC>(d, pr.out_mode, overflow::ieee, bits);
    }
  };
  // Finite operands (the usual case): mma_fused_lanes over panels of B, mma_lanes columns each.
  bool finite = true;
  for (std::size_t i = 0; i < m && finite; ++i)
    for (std::size_t p = 0; p < k && finite; ++p) finite = std::isfinite(mma_value(pr.a[i * pr.a_is + p * pr.a_ps], oa));
  for (std::size_t p = 0; p < k && finite; ++p)
    for (std::size_t j = 0; j < n && finite; ++j) finite = std::isfinite(mma_value(pr.b[p * pr.b_ps + j * pr.b_js], ob));
  if (finite && md.amd == 0) {
    constexpr std::size_t L = mma_lanes;
    const std::size_t panels = (n + L - 1) / L;
    std::vector<double> av(m * k), bv(panels * k * L);
    std::vector<int> ae(m * k), be(panels * k * L);
    gemm_parallel(threads, m, [&](std::size_t i) {
      for (std::size_t p = 0; p < k; ++p) {
        const mma_term t = mma_decode(mma_value(pr.a[i * pr.a_is + p * pr.a_ps], oa), oa);
        av[i * k + p] = t.v;
        ae[i * k + p] = t.e;
      }
    });
    gemm_parallel(threads, panels, [&](std::size_t q) {
      for (std::size_t p = 0; p < k; ++p) {
        for (std::size_t l = 0; l < L; ++l) {
          const std::size_t j = q * L + l, at = (q * k + p) * L + l;
          const mma_term t = j < n ? mma_decode(mma_value(pr.b[p * pr.b_ps + j * pr.b_js], ob), ob) : mma_term{0.0, -252};
          bv[at] = t.v;
          be[at] = t.e;
        }
      }
    });
    const std::size_t ik = static_cast<std::size_t>(md.k), hk = ik / static_cast<std::size_t>(md.split);
    constexpr std::size_t RB = 16;  // rows per task: a panel of B is reused from cache by RB rows of A
    gemm_parallel(threads, (m + RB - 1) / RB, [&](std::size_t rb) {
      double acc[L];
      for (std::size_t q = 0; q < panels; ++q) {
        for (std::size_t i = rb * RB; i < std::min(m, rb * RB + RB); ++i) {
          for (std::size_t l = 0; l < L; ++l) {
            const std::size_t j = q * L + l;
            acc[l] = read_c && j < n ? mma_acc_in(static_cast<double>(pr.c[i * pr.c_is + j * pr.c_js]), md.out) : 0.0;
          }
          for (std::size_t k0 = 0; k0 < k; k0 += ik) {
            for (std::size_t lo = k0; lo < k0 + ik; lo += hk) {  // padding adds nothing: a shorter (or empty) sum
              const std::size_t cnt = lo >= k ? 0 : std::min(hk, k - lo), at = std::min(lo, k);
              mma_fused_lanes(md, acc, av.data() + i * k + at, ae.data() + i * k + at, bv.data() + (q * k + at) * L,
                              be.data() + (q * k + at) * L, cnt);
            }
          }
          for (std::size_t l = 0; l < L && q * L + l < n; ++l) store(i, q * L + l, acc[l]);
        }
      }
    });
    return;
  }
  std::vector<mma_term> ta(m * k), tb(n * k);
  gemm_parallel(threads, m, [&](std::size_t i) {
    for (std::size_t p = 0; p < k; ++p) ta[i * k + p] = mma_decode(mma_value(pr.a[i * pr.a_is + p * pr.a_ps], oa), oa);
  });
  gemm_parallel(threads, n, [&](std::size_t j) {
    for (std::size_t p = 0; p < k; ++p) tb[j * k + p] = mma_decode(mma_value(pr.b[p * pr.b_ps + j * pr.b_js], ob), ob);
  });
  gemm_parallel(threads, m, [&](std::size_t i) {  // an Inf or NaN operand: the scalar model
    for (std::size_t j = 0; j < n; ++j) {
      const double c0 = read_c ? mma_acc_in(static_cast<double>(pr.c[i * pr.c_is + j * pr.c_js]), md.out) : 0.0;
      store(i, j, mma_chain(md, c0, ta.data() + i * k, tb.data() + j * k, k));
    }
  });
}

template <class P>
unsigned gemm_threads(const P& policy) noexcept {
  if constexpr (std::is_same<P, exec::parallel_policy>::value) {
    return threads_of(policy);
  } else {
    return 1;
  }
}

}  // namespace detail

/// C = alpha * op(A) * op(B) + beta * C, accumulated in Acc (float or double); see
/// docs/pages/kernels-reference.md ("GEMM") for the exact semantics. Throws std::invalid_argument on bad
/// arguments (C unchanged).
template <class Acc = float, class Policy, class TA, class TB, class TC>
void gemm(Policy policy, transpose op_a, transpose op_b, std::size_t m, std::size_t n, std::size_t k,
          detail::type_identity_t<Acc> alpha, const TA* A, std::size_t lda, const TB* B, std::size_t ldb,
          detail::type_identity_t<Acc> beta, TC* C, std::size_t ldc, const gemm_options& opts = {}) {
  static_assert(exec::is_execution_policy<Policy>::value, "mixprec::gemm: the first argument must be a policy");
  static_assert(std::is_same<Acc, float>::value || std::is_same<Acc, double>::value,
                "mixprec::gemm: the accumulate type must be float or double");
  static_assert(is_binary_float<TA>::value && is_binary_float<TB>::value && is_binary_float<TC>::value,
                "mixprec::gemm: A, B and C must be float, double or mixprec types");
  static_assert(!std::is_const<TC>::value, "mixprec::gemm: C must be writable");
  const auto pr = detail::gemm_setup<Acc>(op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, opts);
  if (opts.mma != mma_preset::none) {
#if defined(__CUDACC__)
    if constexpr (std::is_same<Policy, exec::cuda_policy>::value) {
      throw std::invalid_argument("mixprec::gemm: tensor-core presets run under exec::seq or exec::par");
    } else
#endif
    {
      detail::gemm_mma(pr, opts.mma, detail::gemm_threads(policy));
    }
    return;
  }
  if (m == 0 || n == 0) return;
#if defined(__CUDACC__)
  if constexpr (std::is_same<Policy, exec::cuda_policy>::value) {
    detail::gemm_device(policy, pr);
    return;
  } else
#endif
  {
    detail::gemm_host(pr, detail::gemm_threads(policy));
  }
}

}  // namespace mixprec

#endif  // MIXPREC_KERNELS_GEMM_HPP
