// SPDX-License-Identifier: MIT
// mixprec/recipes/detail/simd_block_gemm.hpp — the register-tiled x86 kernel of block_scaled_gemm's FP32
// accumulator model (host only): AVX-512F 14 x 32 tiles, AVX2 + FMA 6 x 16 tiles.
//
// Contract: bgemm_tile(k, chunk, kb, ap, bp, sa, sb, acc) adds into the tile acc (MR x NR floats,
// row-major) for each promotion chunk [k0, k0 + chunk) of k, in order:
//   partial = fma(a_p, b_p, partial) for p in the chunk, from +0 (a_p * b_p exact in float: then
//             the same bits as float(partial + a_p * b_p), the model's step);
//   acc     = acc + float(partial * float(sa * sb))   (two roundings: the product is kept out of
//             an FMA by an empty asm barrier; GCC contracts vector mul + add otherwise);
// ap: k x MR floats (row r of A at ap[p * MR + r]), bp: k x NR, sa: MR scales per K block of kb,
// sb: NR per K block; chunk divides kb. Needs MXCSR nearest, FTZ and DAZ clear (the caller
// checks). Also the truncated model's truncate-and-add over a row of C (bgemm_trunc_set/_add:
// AVX-512, AVX2, or scalar; always compiled).
//   alignas(64) float acc[bgemm_mr * bgemm_nr] = {};
//   detail::bgemm_tile(k, 32, 32, ap, bp, sa, sb, acc);
#ifndef MIXPREC_DETAIL_SIMD_BLOCK_GEMM_HPP
#define MIXPREC_DETAIL_SIMD_BLOCK_GEMM_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../../core/config.hpp"

#if !defined(MIXPREC_NO_SIMD) && !defined(__CUDACC__) && !defined(__CUDA_ARCH__) && \
    (defined(__x86_64__) || defined(_M_X64))
#if defined(__AVX512F__)
#define MIXPREC_BGEMM_AVX512 1
#elif defined(__AVX2__) && defined(__FMA__)
#define MIXPREC_BGEMM_AVX2 1
#endif
#endif
#if defined(MIXPREC_BGEMM_AVX512) || defined(MIXPREC_BGEMM_AVX2)
#define MIXPREC_BGEMM_SIMD 1
#include "../../simd/x86.hpp"
#endif

namespace mixprec {
namespace detail {

#if defined(MIXPREC_BGEMM_SIMD)

#if defined(MIXPREC_BGEMM_AVX512)
constexpr std::size_t bgemm_mr = 14;  // rows of a tile
constexpr std::size_t bgemm_nr = 32;  // columns of a tile
constexpr std::size_t bgemm_w = 16;   // floats per vector
using bgemm_v = __m512;
inline bgemm_v bgemm_zero() noexcept { return _mm512_setzero_ps(); }
inline bgemm_v bgemm_load(const float* p) noexcept { return _mm512_load_ps(p); }
inline void bgemm_store(float* p, bgemm_v v) noexcept { _mm512_store_ps(p, v); }
inline bgemm_v bgemm_set1(float x) noexcept { return _mm512_set1_ps(x); }
inline bgemm_v bgemm_fma(bgemm_v a, bgemm_v b, bgemm_v c) noexcept { return _mm512_fmadd_ps(a, b, c); }
inline bgemm_v bgemm_mul(bgemm_v a, bgemm_v b) noexcept { return _mm512_mul_ps(a, b); }
inline bgemm_v bgemm_add(bgemm_v a, bgemm_v b) noexcept { return _mm512_add_ps(a, b); }
#else
constexpr std::size_t bgemm_mr = 6;
constexpr std::size_t bgemm_nr = 16;
constexpr std::size_t bgemm_w = 8;
using bgemm_v = __m256;
inline bgemm_v bgemm_zero() noexcept { return _mm256_setzero_ps(); }
inline bgemm_v bgemm_load(const float* p) noexcept { return _mm256_load_ps(p); }
inline void bgemm_store(float* p, bgemm_v v) noexcept { _mm256_store_ps(p, v); }
inline bgemm_v bgemm_set1(float x) noexcept { return _mm256_set1_ps(x); }
inline bgemm_v bgemm_fma(bgemm_v a, bgemm_v b, bgemm_v c) noexcept { return _mm256_fmadd_ps(a, b, c); }
inline bgemm_v bgemm_mul(bgemm_v a, bgemm_v b) noexcept { return _mm256_mul_ps(a, b); }
inline bgemm_v bgemm_add(bgemm_v a, bgemm_v b) noexcept { return _mm256_add_ps(a, b); }
#endif

/// v, opaque to the optimizer: a product passed through it is never fused into a later add.
inline bgemm_v bgemm_opaque(bgemm_v v) noexcept {
#if defined(__GNUC__) || defined(__clang__)
#if defined(MIXPREC_BGEMM_AVX512)
  __asm__("" : "+v"(v));
#else
  __asm__("" : "+x"(v));
#endif
#endif
  return v;
}

/// One MR x NR tile over the whole k (see the top of the header). ap, bp, acc 64-byte aligned.
inline void bgemm_tile(std::size_t k, std::size_t chunk, std::size_t kb, const float* ap, const float* bp,
                       const float* sa, const float* sb, float* acc) noexcept {
  constexpr int MR = static_cast<int>(bgemm_mr);
  constexpr std::size_t W = bgemm_w, NR = bgemm_nr;
  std::size_t blk = 0, in_blk = 0;  // k0 / kb and k0 % kb (chunk divides kb: no division per chunk)
  for (std::size_t k0 = 0; k0 < k; k0 += chunk) {
    const std::size_t len = k - k0 < chunk ? k - k0 : chunk;
    bgemm_v c0[MR], c1[MR];
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      c0[r] = bgemm_zero();
      c1[r] = bgemm_zero();
    }
    for (std::size_t p = 0; p < len; ++p) {
      const bgemm_v b0 = bgemm_load(bp);
      const bgemm_v b1 = bgemm_load(bp + W);
#pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) {
        const bgemm_v a = bgemm_set1(ap[r]);
        c0[r] = bgemm_fma(a, b0, c0[r]);
        c1[r] = bgemm_fma(a, b1, c1[r]);
      }
      ap += MR;
      bp += NR;
    }
    // Epilogue: acc += float(partial * float(sa * sb)), row by row. The tile pointer goes through
    // an empty asm so that GCC reloads acc from the tile (else it keeps a second copy on the stack).
    const float* sap = sa + blk * bgemm_mr;
    const float* sbp = sb + blk * NR;
    in_blk += chunk;
    if (in_blk == kb) {
      in_blk = 0;
      ++blk;
    }
    float* tp = acc;
#if defined(__GNUC__) || defined(__clang__)
    __asm__("" : "+r"(tp));
#endif
    const bgemm_v s0 = bgemm_load(sbp), s1 = bgemm_load(sbp + W);
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      const bgemm_v a = bgemm_set1(sap[r]);
      float* t = tp + static_cast<std::size_t>(r) * NR;
      const bgemm_v v0 = bgemm_opaque(bgemm_mul(c0[r], bgemm_mul(a, s0)));
      const bgemm_v v1 = bgemm_opaque(bgemm_mul(c1[r], bgemm_mul(a, s1)));
      bgemm_store(t, bgemm_add(bgemm_load(t), v0));
      bgemm_store(t + W, bgemm_add(bgemm_load(t + W), v1));
    }
  }
}

#endif  // MIXPREC_BGEMM_SIMD

#if defined(MIXPREC_BGEMM_AVX2)
/// AVX2: u (4 doubles' bits) truncated as bgemm_trunc_add says, d = exponent field - qb.
inline __m256i bgemm_trunc4(__m256i u, __m256i qb) noexcept {
  const __m256i one = _mm256_set1_epi64x(1), zero = _mm256_setzero_si256();
  const __m256i d = _mm256_sub_epi64(_mm256_and_si256(_mm256_srli_epi64(u, 52), _mm256_set1_epi64x(0x7FF)), qb);
  __m256i sh = _mm256_sub_epi64(_mm256_set1_epi64x(52), d);
  sh = _mm256_blendv_epi8(sh, zero, _mm256_cmpgt_epi64(zero, sh));  // max(sh, 0); sllv gives 0 past 63
  const __m256i low = _mm256_sub_epi64(_mm256_sllv_epi64(one, sh), one);
  return _mm256_andnot_si256(_mm256_or_si256(low, _mm256_cmpgt_epi64(zero, d)), u);  // d < 0: 0
}
#endif

/// out[j] = x[j] truncated as in bgemm_trunc_add (x[j] a normal double or zero).
inline void bgemm_trunc_set(const double* x, const std::int64_t* qb, double* out, std::size_t n) noexcept {
  std::size_t j = 0;
#if defined(MIXPREC_BGEMM_AVX512)
  const __m512i one = _mm512_set1_epi64(1), e_mask = _mm512_set1_epi64(0x7FF), c52 = _mm512_set1_epi64(52),
                zero = _mm512_setzero_si512(), c63 = _mm512_set1_epi64(63);
  for (; j + 8 <= n; j += 8) {
    const __m512i u = _mm512_loadu_si512(x + j);
    const __m512i d = _mm512_sub_epi64(_mm512_and_si512(_mm512_srli_epi64(u, 52), e_mask), _mm512_loadu_si512(qb + j));
    const __m512i sh = _mm512_min_epi64(_mm512_max_epi64(_mm512_sub_epi64(c52, d), zero), c63);
    const __m512i keep = _mm512_andnot_si512(_mm512_sub_epi64(_mm512_sllv_epi64(one, sh), one), _mm512_set1_epi64(-1));
    _mm512_storeu_si512(out + j, _mm512_maskz_and_epi64(_mm512_cmpge_epi64_mask(d, zero), u, keep));
  }
#elif defined(MIXPREC_BGEMM_AVX2)
  for (; j + 4 <= n; j += 4) {
    const __m256i u = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + j));
    const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qb + j));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + j), bgemm_trunc4(u, q));
  }
#endif
  for (; j < n; ++j) {
    std::uint64_t u;
    std::memcpy(&u, x + j, sizeof u);
    const std::int64_t d = static_cast<std::int64_t>((u >> 52) & 0x7FFu) - qb[j];
    const std::int64_t sh = std::min<std::int64_t>(std::max<std::int64_t>(52 - d, 0), 63);
    u &= d < 0 ? std::uint64_t{0} : ~((std::uint64_t{1} << sh) - 1u);
    std::memcpy(out + j, &u, sizeof u);
  }
}

/// The truncated model's inner step (block_scaled_gemm.hpp, bgemm_truncated): for j < n,
/// sum[j] += (av * b[j]) truncated toward zero to keep expo - qb[j] bits below its leading bit
/// (0 when that is negative); av * b[j] an exact, normal or zero double (expo: its exponent field).
inline void bgemm_trunc_add(double av, const float* b, const std::int64_t* qb, double* sum, std::size_t n) noexcept {
  std::size_t j = 0;
#if defined(MIXPREC_BGEMM_AVX512)
  const __m512d va = _mm512_set1_pd(av);
  const __m512i one = _mm512_set1_epi64(1), e_mask = _mm512_set1_epi64(0x7FF), c52 = _mm512_set1_epi64(52),
                zero = _mm512_setzero_si512(), c63 = _mm512_set1_epi64(63);
  for (; j < n; j += 8) {
    const __mmask8 live = n - j >= 8 ? static_cast<__mmask8>(0xFF) : static_cast<__mmask8>((1u << (n - j)) - 1u);
    const __m512i u = _mm512_castpd_si512(_mm512_mul_pd(va, _mm512_cvtps_pd(_mm512_castps512_ps256(_mm512_maskz_loadu_ps(static_cast<__mmask16>(live), b + j)))));
    const __m512i d = _mm512_sub_epi64(_mm512_and_si512(_mm512_srli_epi64(u, 52), e_mask), _mm512_maskz_loadu_epi64(live, qb + j));
    const __m512i sh = _mm512_min_epi64(_mm512_max_epi64(_mm512_sub_epi64(c52, d), zero), c63);
    const __m512i keep = _mm512_andnot_si512(_mm512_sub_epi64(_mm512_sllv_epi64(one, sh), one), _mm512_set1_epi64(-1));
    const __m512i t = _mm512_maskz_and_epi64(_mm512_cmpge_epi64_mask(d, zero), u, keep);
    _mm512_mask_storeu_pd(sum + j, live, _mm512_add_pd(_mm512_maskz_loadu_pd(live, sum + j), _mm512_castsi512_pd(t)));
  }
#elif defined(MIXPREC_BGEMM_AVX2)
  const __m256d va = _mm256_set1_pd(av);
  for (; j + 4 <= n; j += 4) {
    const __m256i u = _mm256_castpd_si256(_mm256_mul_pd(va, _mm256_cvtps_pd(_mm_loadu_ps(b + j))));
    const __m256i t = bgemm_trunc4(u, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qb + j)));
    _mm256_storeu_pd(sum + j, _mm256_add_pd(_mm256_loadu_pd(sum + j), _mm256_castsi256_pd(t)));
  }
#endif
  for (; j < n; ++j) {
    const double p = av * static_cast<double>(b[j]);
    std::uint64_t u;
    std::memcpy(&u, &p, sizeof u);
    const std::int64_t d = static_cast<std::int64_t>((u >> 52) & 0x7FFu) - qb[j];
    const std::int64_t sh = std::min<std::int64_t>(std::max<std::int64_t>(52 - d, 0), 63);
    u &= d < 0 ? std::uint64_t{0} : ~((std::uint64_t{1} << sh) - 1u);
    double t;
    std::memcpy(&t, &u, sizeof t);
    sum[j] += t;
  }
}

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_SIMD_BLOCK_GEMM_HPP
