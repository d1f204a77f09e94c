// SPDX-License-Identifier: MIT
// mixprec/kernels/detail/mma_datapath.hpp — the presets' datapath: operand decoding and checks,
// the scalar fused sum of one instruction (NVIDIA, AMD CDNA3, CDNA1/2 pairwise, mxf4nvf4), the
// chain along k, and mma_fused_lanes, the same bits for mma_lanes outputs side by side
// (AVX-512, AVX2 or portable) that the GEMM kernel runs.
// Its types are ../mma_model.hpp's.
#ifndef MIXPREC_KERNELS_DETAIL_MMA_DATAPATH_HPP
#define MIXPREC_KERNELS_DETAIL_MMA_DATAPATH_HPP

#include "../../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/kernels/detail/mma_datapath.hpp
#include "../../core/detail/needs_exceptions.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "../../core/detail/bits.hpp"
#include "../../core/types.hpp"
#include "../mma_model.hpp"

#include "../../simd/isa.hpp"  // <immintrin.h>, GCC 12's -Wmaybe-uninitialized in it silenced

#if !defined(__CUDACC__)
#if defined(MIXPREC_SIMD_AVX512)
#define MIXPREC_MMA_AVX512 1
#elif defined(MIXPREC_SIMD_AVX2)
#define MIXPREC_MMA_AVX2 1
#endif
#endif

namespace mixprec {

namespace detail {

/// The operand-format flag of T (0: not a tensor-core operand); float counts as tf32 (truncated).
template <class T>
constexpr unsigned mma_operand_of() noexcept {
  if constexpr (std::is_same<T, half>::value) return mma_f16;
  else if constexpr (std::is_same<T, bfloat16>::value) return mma_bf16;
  else if constexpr (std::is_same<T, tf32>::value || std::is_same<T, float>::value) return mma_tf32;
  else if constexpr (std::is_same<T, float8_e4m3fn>::value) return mma_e4m3;
  else if constexpr (std::is_same<T, float8_e5m2>::value) return mma_e5m2;
  else if constexpr (std::is_same<T, float4_e2m1fn>::value) return mma_e2m1;
  else if constexpr (std::is_same<T, float8_e4m3fnuz>::value) return mma_e4m3fnuz;
  else if constexpr (std::is_same<T, float8_e5m2fnuz>::value) return mma_e5m2fnuz;
  else if constexpr (std::is_same<T, float6_e2m3fn>::value) return mma_e2m3;
  else if constexpr (std::is_same<T, float6_e3m2fn>::value) return mma_e3m2;
  else return 0u;
}

inline std::string mma_operand_names(unsigned bits) {
  static const char* const names[] = {"half (f16)", "bfloat16", "tf32 or float (truncated to tf32)", "float8_e4m3fn",
                                      "float8_e5m2", "float4_e2m1fn", "float8_e4m3fnuz", "float8_e5m2fnuz",
                                      "float6_e2m3fn", "float6_e3m2fn"};
  std::string s;
  for (unsigned i = 0; i < 10; ++i) {
    if ((bits >> i) & 1u) {
      if (!s.empty()) s += ", ";
      s += names[i];
    }
  }
  return s;
}

/// The smallest normal exponent of an operand format.
MIXPREC_HD constexpr int mma_operand_emin(unsigned op) noexcept {
  return op == mma_f16 ? -14 : op == mma_e4m3 ? -6 : op == mma_e5m2 ? -14 : op == mma_e2m1 ? 0
         : op == mma_e4m3fnuz ? -7 : op == mma_e5m2fnuz ? -15 : op == mma_e2m3 ? 0 : op == mma_e3m2 ? -2 : -126;
}

/// 2^e as a double, e in [-1022, 1023].
MIXPREC_HD inline double mma_pow2(int e) noexcept {
  return bit_cast<double>(static_cast<std::uint64_t>(e + 1023) << 52);
}

/// floor(log2 |x|) of a finite nonzero double.
MIXPREC_HD inline int mma_ilogb(double x) noexcept {
  const std::uint64_t u = bit_cast<std::uint64_t>(x);
  const int f = static_cast<int>((u >> 52) & 0x7FFu);
  if (f != 0) return f - 1023;
  return -1011 - clz64(u & ((std::uint64_t{1} << 52) - 1u));  // subnormal double (not reached by the models)
}

/// The exponent of an operand or c: zero -126, else floor(log2 |x|) clamped below at emin.
MIXPREC_HD inline int mma_exponent(double x, int emin) noexcept {
  if (exact_eq(x, 0.0)) return -126;
  const int e = mma_ilogb(x);
  return e < emin ? emin : e;
}

/// The output of an instruction from its exact sum s * 2^q (s an integer below 2^62).
MIXPREC_HD inline double mma_normalize(std::int64_t s, int q, mma_output out) noexcept {
  if (s == 0) return 0.0;
  const bool neg = s < 0;
  std::uint64_t mag = neg ? static_cast<std::uint64_t>(-(s + 1)) + 1u : static_cast<std::uint64_t>(s);
  const int top = 63 - clz64(mag) + q;  // exponent of the leading bit
  if (out == mma_output::f16) {
    const int e = top < -14 ? -14 : top;
    const int lq = e - 10;  // quantum of the result
    if (lq > q) {           // round mag * 2^q to a multiple of 2^lq, nearest even
      const int sh = lq - q;
      if (sh >= 64) {
        mag = 0;
      } else {
        const std::uint64_t half_ulp = std::uint64_t{1} << (sh - 1);
        const std::uint64_t rem = mag & ((std::uint64_t{1} << sh) - 1u);
        mag >>= sh;
        if (rem > half_ulp || (rem == half_ulp && (mag & 1u))) ++mag;
      }
      q = lq;
    }
    const double v = static_cast<double>(mag) * mma_pow2(q);
    if (v >= 65536.0) return neg ? -static_cast<double>(INFINITY) : static_cast<double>(INFINITY);
    return neg && mag != 0 ? -v : v;  // a sum that rounds to zero is +0 (as MMA-Sim)
  }
  const int bits = out == mma_output::f32_e8m13 ? 13 : 23;
  if (top > 127) return neg ? -static_cast<double>(INFINITY) : static_cast<double>(INFINITY);
  const int e = top < -126 ? -126 : top;
  const int lq = e - bits;
  if (lq > q) {
    const int sh = lq - q;
    mag = sh >= 64 ? 0 : mag >> sh;  // toward zero
    q = lq;
  }
  const double v = static_cast<double>(mag) * mma_pow2(q);
  return neg && mag != 0 ? -v : v;
}

/// Operands of one fused sum, decoded: value and exponent per element.
struct mma_term {
  double v;
  int e;
};

MIXPREC_HD inline mma_term mma_decode(double x, unsigned op) noexcept {
  return mma_term{x, mma_exponent(x, mma_operand_emin(op))};
}

/// The NaN an instruction writes.
MIXPREC_HD inline double mma_nan(mma_output out) noexcept {
  return out == mma_output::f16 ? static_cast<double>(bit_cast<float>(std::uint32_t{0x7FFFE000u}))
                                : static_cast<double>(bit_cast<float>(std::uint32_t{0x7FFFFFFFu}));
}

/// x * 2^sh rounded toward minus infinity (an arithmetic shift).
MIXPREC_HD inline std::int64_t mma_floor_shift(std::int64_t x, int sh) noexcept {
  if (sh >= 0) return x * (std::int64_t{1} << sh);
  if (sh <= -63) return x < 0 ? -1 : 0;
  return x >= 0 ? x >> -sh : -((-x + (std::int64_t{1} << -sh) - 1) >> -sh);
}

/// AMD CDNA1/CDNA2 (MMA-Sim's pairwise mfma): per group of m.group products, each product rounded
/// to f32 (a zero product is +0), the group summed as a pairwise tree of f32 additions (nearest
/// even), then added to the f32 sum in order. CDNA2 (amd 4) flushes: subnormal operands and c to
/// +0 on input, and every f32 sum below 2^-126 to a zero of its sign.
MIXPREC_HD inline double mma_pairwise_amd(const mma_model& m, double c, const mma_term* a, const mma_term* b,
                                          std::size_t n) noexcept {
  const bool flush = m.amd == 4;
  const std::size_t g = static_cast<std::size_t>(m.group);
  auto fl = [flush](float x) { return flush && std::fabs(x) < 0x1p-126f ? x * 0.0f : x; };
  auto in = [flush](const mma_term& t) { return flush && std::fabs(t.v) < mma_pow2(t.e) ? 0.0 : t.v; };
  float s = static_cast<float>(c);
  if (flush && std::fabs(s) < 0x1p-126f) s = 0.0f;
  float v[64];
  for (std::size_t p0 = 0; p0 < n; p0 += g) {
    for (std::size_t p = 0; p < g; ++p) {
      const double x = in(a[p0 + p]) * in(b[p0 + p]);  // exact: f16 or bf16 operands
      v[p] = fl(exact_eq(x, 0.0) ? 0.0f : static_cast<float>(x));
    }
    for (std::size_t w = g; w > 1; w /= 2) {
      for (std::size_t p = 0; p < w / 2; ++p) v[p] = fl(v[2 * p] + v[2 * p + 1]);
    }
    s = fl(s + v[0]);
  }
  return static_cast<double>(s);
}

/// AMD CDNA3 (MMA-Sim's amd_fused_dot_rd_add): the products aligned to their largest exponent and
/// truncated to 24 fraction bits, summed exactly (FP8: the even and the odd products apart, each
/// then aligned to the larger of the two and rounded down to 24 bits); that sum rounded down to 31
/// fraction bits and c rounded down to 24 bits below the larger exponent of the two (FP8: c dropped
/// below 25 bits under it); their sum rounded to f32, nearest even. Inf or NaN: the double sum.
MIXPREC_HD inline double mma_fused_amd(const mma_model& m, double c, const mma_term* a, const mma_term* b, std::size_t n) noexcept {
  if (m.amd >= 3) return mma_pairwise_amd(m, c, a, b, n);
  double chk = c;
  for (std::size_t p = 0; p < n; ++p) chk += a[p].v * b[p].v;
  if (!exact_eq(chk - chk, 0.0)) return static_cast<double>(static_cast<float>(chk));  // not verified (NaN bits)
  bool pinf = false, ninf = false;
  for (std::size_t p = 0; p < n; ++p) {
    const double x = a[p].v * b[p].v;
    if (x >= 0x1p128) pinf = true;
    else if (x <= -0x1p128) ninf = true;
  }
  if (pinf || ninf) {
    if (pinf && ninf) return static_cast<double>(bit_cast<float>(std::uint32_t{0x7FC00000u}));
    return pinf ? static_cast<double>(INFINITY) : -static_cast<double>(INFINITY);
  }
  const int ec = mma_exponent(c, -126);
  auto fused = [&](std::size_t first, std::size_t step, int& e) {
    e = -100000;
    for (std::size_t p = first; p < n; p += step) e = a[p].e + b[p].e > e ? a[p].e + b[p].e : e;
    std::int64_t s = 0;
    for (std::size_t p = first; p < n; p += step) {
      s += static_cast<std::int64_t>(a[p].v * b[p].v * mma_pow2((24 - e) / 2) * mma_pow2(24 - e - (24 - e) / 2));
    }
    return s;  // units of 2^(e - 24)
  };
  int e = 0;
  std::int64_t s = 0;
  if (m.amd == 2) {
    int e0 = 0, e1 = 0;
    const std::int64_t s0 = fused(0, 2, e0), s1 = fused(1, 2, e1);
    e = e0 > e1 ? e0 : e1;
    s = mma_floor_shift(s0, e0 - e) + mma_floor_shift(s1, e1 - e);
  } else {
    s = fused(0, 1, e);
  }
  const int me = e > ec ? e : ec;
  const std::int64_t sd = mma_floor_shift(s, 7 + e - me);  // units of 2^(me - 31)
  std::int64_t cq = static_cast<std::int64_t>(std::floor(c * mma_pow2((24 - me) / 2) * mma_pow2(24 - me - (24 - me) / 2)));
  if (m.amd == 2 && ec < me - 25) cq = 0;
  const double v = static_cast<double>(sd + cq * 128) * mma_pow2((me - 31) / 2) * mma_pow2(me - 31 - (me - 31) / 2);
  return static_cast<double>(static_cast<float>(v));
}

/// One fused sum: c + sum of a_p b_p 2^s (s: the block-scale exponent, 0 without scales), n terms
/// (n at most 64), as docs/pages/tensor-cores.md ("The datapath"). c is the accumulator's value
/// (f32 or f16).
MIXPREC_HD inline double mma_fused(const mma_model& m, double c, const mma_term* a, const mma_term* b, std::size_t n,
                                   int scale_e = 0) noexcept {
  if (m.amd != 0) return mma_fused_amd(m, c, a, b, n);
  double chk = c;
  int emax = mma_exponent(c, m.out == mma_output::f16 ? -14 : -126);
  const double sc = mma_pow2(scale_e / 2) * mma_pow2(scale_e - scale_e / 2);
  for (std::size_t p = 0; p < n; ++p) {
    chk += a[p].v * b[p].v;
    const int e = a[p].e + b[p].e + scale_e;
    emax = e > emax ? e : emax;
  }
  if (!exact_eq(chk - chk, 0.0)) {  // an Inf or NaN term (products of finite operands cannot overflow a double)
    return !exact_eq(chk, chk) ? mma_nan(m.out) : chk;
  }
  const int sh = m.frac_bits - emax;  // term * 2^sh truncated to an integer
  const double f = mma_pow2(sh / 2), g = mma_pow2(sh - sh / 2);
  std::int64_t s = static_cast<std::int64_t>(c * f * g);
  for (std::size_t p = 0; p < n; ++p) s += static_cast<std::int64_t>(a[p].v * b[p].v * sc * f * g);
  return mma_normalize(s, -sh, m.out);
}

/// mxf4nvf4: c + sum over groups of 16 of (exact sum of 16 products) * sa_g * sb_g, as
/// docs/pages/tensor-cores.md ("The datapath"); sa/sb per group of 16 (decoded scale values), n a
/// multiple of 16 up to 64.
MIXPREC_HD inline double mma_fused_nvf4(const mma_model& m, double c, const double* a, const double* b, std::size_t n,
                                        const double* sa, const double* sb, bool ue4m3) noexcept {
  if (!exact_eq(c, c)) return mma_nan(m.out);
  for (std::size_t g = 0; g < n / 16; ++g)
    if (!exact_eq(sa[g], sa[g]) || !exact_eq(sb[g], sb[g])) return mma_nan(m.out);
  if (!exact_eq(c - c, 0.0)) return c;  // infinite c (MMA-Sim fails on it; not verified)
  double sig[5];
  int ex[5];
  std::size_t t = 0;
  sig[t] = c;
  ex[t++] = mma_exponent(c, -126);
  int emax = ex[0];
  const int semin = ue4m3 ? -6 : -127;
  for (std::size_t g = 0; g < n / 16; ++g) {
    double s = 0.0;
    for (std::size_t p = g * 16; p < g * 16 + 16; ++p) s += a[p] * b[p];  // exact (e2m1 products, quarter units)
    const double x = ue4m3 ? std::fabs(sa[g]) : sa[g], y = ue4m3 ? std::fabs(sb[g]) : sb[g];
    const int e = mma_exponent(x, semin) + mma_exponent(y, semin);
    sig[t] = s * x * y;  // exact: the significand (below 2^12) times 2^e
    ex[t++] = e;
    emax = e > emax ? e : emax;
  }
  const int sh = m.frac_bits - emax;
  const double f = mma_pow2(sh / 2), h = mma_pow2(sh - sh / 2);
  std::int64_t s = static_cast<std::int64_t>(sig[0] * f * h);
  for (std::size_t i = 1; i < t; ++i) s += static_cast<std::int64_t>(sig[i] * f * h);
  return mma_normalize(s, -sh, m.out);
}

template <class T>
MIXPREC_HD inline double mma_value(T x, unsigned op) noexcept {
  double v = static_cast<double>(x);
  if (op == mma_tf32 && std::is_same<T, float>::value) {  // MMA-Sim truncates f32 operands to tf32
    v = static_cast<double>(bit_cast<float>(bit_cast<std::uint32_t>(static_cast<float>(x)) & 0xFFFFE000u));
  }
  return v;
}

/// The accumulator value of c: f32 (nearest) or f16 (nearest even).
inline double mma_acc_in(double c, mma_output out) noexcept {
  if (out == mma_output::f16) return static_cast<double>(static_cast<float>(half(c)));
  return static_cast<double>(static_cast<float>(c));
}

template <class TA, class TB>
void mma_check_operands(const char* who, const mma_model& m) {
  const unsigned oa = mma_operand_of<TA>(), ob = mma_operand_of<TB>();
  if ((oa & m.operands) == 0 || (ob & m.operands) == 0) {
    throw std::invalid_argument(std::string(who) + ": preset " + m.name + " takes A and B of " +
                                mma_operand_names(m.operands) + "; got A of " +
                                (oa ? mma_operand_names(oa) : std::string("another type")) + " and B of " +
                                (ob ? mma_operand_names(ob) : std::string("another type")));
  }
}

/// Chained instructions along one dot product of decoded terms (k any length, zero padding).
inline double mma_chain(const mma_model& m, double acc, const mma_term* a, const mma_term* b, std::size_t k) {
  const std::size_t ik = static_cast<std::size_t>(m.k), half_k = ik / static_cast<std::size_t>(m.split);
  const mma_term zero{0.0, -126};
  mma_term pa[64], pb[64];
  for (std::size_t k0 = 0; k0 < k; k0 += ik) {
    for (std::size_t h = 0; h < ik; h += half_k) {
      const std::size_t lo = k0 + h;
      const std::size_t cnt = lo >= k ? 0 : (k - lo < half_k ? k - lo : half_k);
      if (cnt == half_k) {
        acc = mma_fused(m, acc, a + lo, b + lo, half_k);
      } else {
        for (std::size_t p = 0; p < half_k; ++p) {
          pa[p] = p < cnt ? a[lo + p] : zero;
          pb[p] = p < cnt ? b[lo + p] : zero;
        }
        acc = mma_fused(m, acc, pa, pb, half_k);
      }
    }
  }
  return acc;
}

#if defined(MIXPREC_MMA_AVX512)
// GCC's _mm512_roundscale_pd is a macro at -O0 whose -1 mask trips -Wsign-conversion.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-conversion"
#endif
/// x rounded toward zero, per lane.
inline __m512d mma_trunc_pd(__m512d x) noexcept { return _mm512_roundscale_pd(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
/// x rounded toward minus infinity, per lane.
inline __m512d mma_floor_pd(__m512d x) noexcept { return _mm512_roundscale_pd(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

/// Outputs computed side by side by the GEMM kernel (mma_fused_lanes).
constexpr std::size_t mma_lanes = 8;

/// mma_fused_lanes for the AMD presets: one instruction's fused sum (n products, zero-padded to
/// the instruction's k / split) per lane. CDNA3 (amd 1, 2) side by side, as mma_fused_amd: the
/// truncated products are integers below 2^31, c and the sums exact in double; the pairwise
/// presets (amd 3, 4), an Inf or NaN accumulator or a product that may reach 2^128: lane by lane.
inline void mma_fused_lanes_amd(const mma_model& m, double* acc, const double* av, const int* ae, const double* bv,
                                const int* be, std::size_t n) noexcept {
  constexpr std::size_t L = mma_lanes;
  const std::size_t st = m.amd == 2 ? 2 : 1;
#if defined(MIXPREC_MMA_AVX512)
  if (m.amd <= 2) {  // the whole step in registers (the same operations as the portable code below)
    const __m512d c = _mm512_loadu_pd(acc);
    const __m512i ef = _mm512_and_si512(_mm512_srli_epi64(_mm512_castpd_si512(c), 52), _mm512_set1_epi64(0x7FF));
    __m256i eh[2] = {_mm256_set1_epi32(-252), _mm256_set1_epi32(-252)};
    for (std::size_t p = 0; p < n; ++p) {
      eh[p & 1u & (st - 1u)] = _mm256_max_epi32(eh[p & 1u & (st - 1u)],
                                                _mm256_add_epi32(_mm256_set1_epi32(ae[p]), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(be + p * L))));
    }
    const __m256i big = _mm256_cmpgt_epi32(_mm256_max_epi32(eh[0], eh[1]), _mm256_set1_epi32(125));
    if (_mm512_cmpeq_epi64_mask(ef, _mm512_set1_epi64(0x7FF)) == 0 && _mm256_testz_si256(big, big)) {
      auto pow2v = [](__m512i x) { return _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_add_epi64(x, _mm512_set1_epi64(1023)), 52)); };
      const __m512i e0 = _mm512_cvtepi32_epi64(eh[0]), e1 = _mm512_cvtepi32_epi64(eh[1]);
      const __m512d sc0 = pow2v(_mm512_sub_epi64(_mm512_set1_epi64(24), e0)), sc1 = pow2v(_mm512_sub_epi64(_mm512_set1_epi64(24), e1));
      __m512d s0 = _mm512_setzero_pd(), s1 = _mm512_setzero_pd();
      std::size_t p = 0;
      for (; p + 2 <= n; p += 2) {  // products truncated to 24 bits below their group's exponent
        const __m512d t0 = _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(av[p]), _mm512_loadu_pd(bv + p * L)), sc0);
        const __m512d t1 = _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(av[p + 1]), _mm512_loadu_pd(bv + p * L + L)),
                                         st == 2 ? sc1 : sc0);
        s0 = _mm512_add_pd(s0, mma_trunc_pd(t0));
        s1 = _mm512_add_pd(s1, mma_trunc_pd(t1));
      }
      if (p < n) {
        const __m512d t0 = _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(av[p]), _mm512_loadu_pd(bv + p * L)), sc0);
        s0 = _mm512_add_pd(s0, mma_trunc_pd(t0));
      }
      __m512i eg = e0;
      __m512d sg = _mm512_add_pd(s0, s1);  // exact: integers below 2^31
      if (st == 2) {  // FP8: the two groups aligned to the larger exponent, each rounded down
        eg = _mm512_max_epi64(e0, e1);
        sg = _mm512_add_pd(mma_floor_pd(_mm512_mul_pd(s0, pow2v(_mm512_sub_epi64(e0, eg)))),
                           mma_floor_pd(_mm512_mul_pd(s1, pow2v(_mm512_sub_epi64(e1, eg)))));
      }
      __m512i ec = _mm512_max_epi64(_mm512_sub_epi64(ef, _mm512_set1_epi64(1023)), _mm512_set1_epi64(-126));
      ec = _mm512_mask_mov_epi64(ec, _mm512_cmp_pd_mask(c, _mm512_setzero_pd(), _CMP_EQ_OQ), _mm512_set1_epi64(-126));
      const __m512i me = _mm512_max_epi64(eg, ec);
      const __m512d sd = mma_floor_pd(_mm512_mul_pd(sg, pow2v(_mm512_sub_epi64(_mm512_add_epi64(eg, _mm512_set1_epi64(7)), me))));
      __m512d cq = mma_floor_pd(_mm512_mul_pd(c, pow2v(_mm512_sub_epi64(_mm512_set1_epi64(24), me))));
      if (st == 2) {  // c dropped more than 25 bits below
        cq = _mm512_mask_mov_pd(cq, _mm512_cmplt_epi64_mask(ec, _mm512_sub_epi64(me, _mm512_set1_epi64(25))), _mm512_setzero_pd());
      }
      const __m512d v = _mm512_mul_pd(_mm512_fmadd_pd(cq, _mm512_set1_pd(128.0), sd), pow2v(_mm512_sub_epi64(me, _mm512_set1_epi64(31))));
      _mm512_storeu_pd(acc, _mm512_cvtps_pd(_mm512_cvtpd_ps(v)));  // f32, nearest even (the default rounding)
      return;
    }
  }
#endif
  int e[2][L];
  double s[2][L];
  bool slow = m.amd >= 3;
  for (std::size_t l = 0; l < L; ++l) slow = slow || !exact_eq(acc[l] - acc[l], 0.0);
  for (std::size_t h = 0; h < st && !slow; ++h) {  // the largest exponent of each group (-252: none)
    for (std::size_t l = 0; l < L; ++l) e[h][l] = -252;
    for (std::size_t p = h; p < n; p += st) {
      const int* b = be + p * L;
      for (std::size_t l = 0; l < L; ++l) e[h][l] = ae[p] + b[l] > e[h][l] ? ae[p] + b[l] : e[h][l];
    }
    for (std::size_t l = 0; l < L; ++l) slow = slow || e[h][l] > 125;
  }
  if (slow) {
    const std::size_t hk = static_cast<std::size_t>(m.k / m.split);
    mma_term ta[64], tb[64];
    for (std::size_t l = 0; l < L; ++l) {
      for (std::size_t p = 0; p < hk; ++p) {
        ta[p] = p < n ? mma_term{av[p], ae[p]} : mma_term{0.0, -126};
        tb[p] = p < n ? mma_term{bv[p * L + l], be[p * L + l]} : mma_term{0.0, -126};
      }
      acc[l] = mma_fused_amd(m, acc[l], ta, tb, hk);
    }
    return;
  }
  for (std::size_t h = 0; h < st; ++h) {  // each group's products truncated to 24 bits below its exponent, summed
    double sc[L];
    for (std::size_t l = 0; l < L; ++l) {
      sc[l] = mma_pow2(24 - e[h][l]);
      s[h][l] = 0.0;
    }
    for (std::size_t p = h; p < n; p += st) {
      const double a = av[p];
      const double* b = bv + p * L;
      for (std::size_t l = 0; l < L; ++l) s[h][l] += std::trunc(a * b[l] * sc[l]);
    }
  }
  for (std::size_t l = 0; l < L; ++l) {
    int eg = e[0][l];
    double sg = s[0][l];
    if (st == 2) {
      eg = e[0][l] > e[1][l] ? e[0][l] : e[1][l];
      sg = std::floor(s[0][l] * mma_pow2(e[0][l] - eg)) + std::floor(s[1][l] * mma_pow2(e[1][l] - eg));
    }
    const double c = acc[l];
    const int ec = mma_exponent(c, -126), me = eg > ec ? eg : ec;
    const double sd = std::floor(sg * mma_pow2(7 + eg - me));
    double cq = std::floor(c * mma_pow2(24 - me));
    if (st == 2 && ec < me - 25) cq = 0.0;
    acc[l] = static_cast<double>(static_cast<float>((sd + cq * 128.0) * mma_pow2(me - 31)));
  }
}

/// mma_fused for mma_lanes outputs that share A's n terms (av, ae) against a panel of B (bv, be:
/// n x mma_lanes), all finite; acc[l] in and out (a non-finite acc stays: Inf, or NaN as written
/// by the instruction). The same bits as mma_fused: the truncated terms are integers below 2^48,
/// summed exactly in double. The AMD presets: mma_fused_lanes_amd.
inline void mma_fused_lanes(const mma_model& m, double* acc, const double* av, const int* ae, const double* bv,
                            const int* be, std::size_t n) noexcept {
  constexpr std::size_t L = mma_lanes;
  if (m.amd != 0) {
    mma_fused_lanes_amd(m, acc, av, ae, bv, be, n);
    return;
  }
  const int cemin = m.out == mma_output::f16 ? -14 : -126, fb = m.frac_bits;
#if defined(MIXPREC_MMA_AVX512)
  if (m.out != mma_output::f16) {  // the whole step in registers (the same operations as below)
    const __m512d accv = _mm512_loadu_pd(acc);
    const __m512i u = _mm512_castpd_si512(accv);
    const __m512i ef = _mm512_and_si512(_mm512_srli_epi64(u, 52), _mm512_set1_epi64(0x7FF));
    if (_mm512_cmpeq_epi64_mask(ef, _mm512_set1_epi64(0x7FF)) == 0) {
      const __mmask8 zero = _mm512_cmp_pd_mask(accv, _mm512_setzero_pd(), _CMP_EQ_OQ);
      __m512i e64 = _mm512_max_epi64(_mm512_sub_epi64(ef, _mm512_set1_epi64(1023)), _mm512_set1_epi64(cemin));
      e64 = _mm512_mask_mov_epi64(e64, zero, _mm512_set1_epi64(-126));
      __m256i em = _mm512_cvtepi64_epi32(e64);
      for (std::size_t p = 0; p < n; ++p) {
        em = _mm256_max_epi32(em, _mm256_add_epi32(_mm256_set1_epi32(ae[p]),
                                                   _mm256_loadu_si256(reinterpret_cast<const __m256i*>(be + p * L))));
      }
      const __m512i em64 = _mm512_cvtepi32_epi64(em);
      const __m512d scv = _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_sub_epi64(_mm512_set1_epi64(fb + 1023), em64), 52));
      // Integers below 2^53: the partial sums are exact, in any order.
      __m512d sv = mma_trunc_pd(_mm512_mul_pd(accv, scv));
      __m512d sv1 = _mm512_setzero_pd(), sv2 = _mm512_setzero_pd(), sv3 = _mm512_setzero_pd();
      std::size_t p = 0;
      for (; p + 4 <= n; p += 4) {
        const __m512d t0 = _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(av[p]), _mm512_loadu_pd(bv + p * L)), scv);
        const __m512d t1 = _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(av[p + 1]), _mm512_loadu_pd(bv + p * L + L)), scv);
        const __m512d t2 = _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(av[p + 2]), _mm512_loadu_pd(bv + p * L + 2 * L)), scv);
        const __m512d t3 = _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(av[p + 3]), _mm512_loadu_pd(bv + p * L + 3 * L)), scv);
        sv = _mm512_add_pd(sv, mma_trunc_pd(t0));
        sv1 = _mm512_add_pd(sv1, mma_trunc_pd(t1));
        sv2 = _mm512_add_pd(sv2, mma_trunc_pd(t2));
        sv3 = _mm512_add_pd(sv3, mma_trunc_pd(t3));
      }
      for (; p < n; ++p) {
        const __m512d t = _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(av[p]), _mm512_loadu_pd(bv + p * L)), scv);
        sv = _mm512_add_pd(sv, mma_trunc_pd(t));
      }
      sv = _mm512_add_pd(_mm512_add_pd(sv, sv1), _mm512_add_pd(sv2, sv3));
      const int bits = m.out == mma_output::f32_e8m13 ? 13 : 23;
      const __m512d back = _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_add_epi64(em64, _mm512_set1_epi64(1023 - fb)), 52));
      const __m512i vb = _mm512_castpd_si512(_mm512_mul_pd(sv, back));  // exact
      const __m512i e = _mm512_sub_epi64(_mm512_and_si512(_mm512_srli_epi64(vb, 52), _mm512_set1_epi64(0x7FF)),
                                         _mm512_set1_epi64(1023));
      const __m512i under = _mm512_max_epi64(_mm512_sub_epi64(_mm512_set1_epi64(-126), e), _mm512_setzero_si512());
      const __m512i drop = _mm512_add_epi64(_mm512_set1_epi64(52 - bits), under);
      __m512i r = _mm512_and_si512(vb, _mm512_sllv_epi64(_mm512_set1_epi64(-1), drop));
      r = _mm512_mask_mov_epi64(r, _mm512_cmpge_epi64_mask(drop, _mm512_set1_epi64(53)), _mm512_setzero_si512());
      const __m512i inf = _mm512_or_si512(_mm512_and_si512(vb, _mm512_set1_epi64(static_cast<long long>(std::uint64_t{1} << 63))),
                                          _mm512_set1_epi64(0x7FF0000000000000LL));
      r = _mm512_mask_mov_epi64(r, _mm512_cmpgt_epi64_mask(e, _mm512_set1_epi64(127)), inf);
      _mm512_storeu_pd(acc, _mm512_castsi512_pd(r));
      return;
    }
  }
#endif
  int emax[L];
  double sc[L], s[L];
  bool fin = true;
  for (std::size_t l = 0; l < L; ++l) fin = fin && exact_eq(acc[l] - acc[l], 0.0);
  if (!fin) {  // an Inf or NaN accumulator: lane by lane
    for (std::size_t l = 0; l < L; ++l) {
      if (exact_eq(acc[l] - acc[l], 0.0)) {
        mma_term ta[64], tb[64];
        for (std::size_t p = 0; p < n; ++p) {
          ta[p] = mma_term{av[p], ae[p]};
          tb[p] = mma_term{bv[p * L + l], be[p * L + l]};
        }
        acc[l] = mma_fused(m, acc[l], ta, tb, n);
      } else if (!exact_eq(acc[l], acc[l])) {
        acc[l] = mma_nan(m.out);
      }
    }
    return;
  }
  for (std::size_t l = 0; l < L; ++l) {  // c's exponent from its bits (f32 / f16 values: normal doubles)
    const int e = static_cast<int>((bit_cast<std::uint64_t>(acc[l]) >> 52) & 0x7FFu) - 1023;
    emax[l] = exact_eq(acc[l], 0.0) ? -126 : (e < cemin ? cemin : e);
  }
#if defined(MIXPREC_MMA_AVX512) || defined(MIXPREC_MMA_AVX2)
  {
    __m256i em = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(emax));
    for (std::size_t p = 0; p < n; ++p) {
      em = _mm256_max_epi32(em, _mm256_add_epi32(_mm256_set1_epi32(ae[p]),
                                                 _mm256_loadu_si256(reinterpret_cast<const __m256i*>(be + p * L))));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(emax), em);
  }
#else
  for (std::size_t p = 0; p < n; ++p) {
    const int e = ae[p];
    const int* b = be + p * L;
    for (std::size_t l = 0; l < L; ++l) emax[l] = e + b[l] > emax[l] ? e + b[l] : emax[l];
  }
#endif
  for (std::size_t l = 0; l < L; ++l) {
    sc[l] = bit_cast<double>(static_cast<std::uint64_t>(fb - emax[l] + 1023) << 52);
    s[l] = std::trunc(acc[l] * sc[l]);
  }
#if defined(MIXPREC_MMA_AVX512)
  {
    const __m512d scv = _mm512_loadu_pd(sc);
    __m512d sv = _mm512_loadu_pd(s);
    for (std::size_t p = 0; p < n; ++p) {
      const __m512d t = _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(av[p]), _mm512_loadu_pd(bv + p * L)), scv);
      sv = _mm512_add_pd(sv, mma_trunc_pd(t));
    }
    _mm512_storeu_pd(s, sv);
  }
#elif defined(MIXPREC_MMA_AVX2)
  {
    const __m256d sc0 = _mm256_loadu_pd(sc), sc1 = _mm256_loadu_pd(sc + 4);
    __m256d s0 = _mm256_loadu_pd(s), s1 = _mm256_loadu_pd(s + 4);
    for (std::size_t p = 0; p < n; ++p) {
      const __m256d a = _mm256_set1_pd(av[p]);
      const __m256d t0 = _mm256_mul_pd(_mm256_mul_pd(a, _mm256_loadu_pd(bv + p * L)), sc0);
      const __m256d t1 = _mm256_mul_pd(_mm256_mul_pd(a, _mm256_loadu_pd(bv + p * L + 4)), sc1);
      s0 = _mm256_add_pd(s0, _mm256_round_pd(t0, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
      s1 = _mm256_add_pd(s1, _mm256_round_pd(t1, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
    }
    _mm256_storeu_pd(s, s0);
    _mm256_storeu_pd(s + 4, s1);
  }
#else
  for (std::size_t p = 0; p < n; ++p) {
    const double a = av[p];
    const double* b = bv + p * L;
    for (std::size_t l = 0; l < L; ++l) s[l] += std::trunc(a * b[l] * sc[l]);
  }
#endif
  if (m.out == mma_output::f16) {
    for (std::size_t l = 0; l < L; ++l) acc[l] = mma_normalize(static_cast<std::int64_t>(s[l]), emax[l] - fb, m.out);
    return;
  }
  // f32: v = s 2^(emax - fb) is exact; truncate its bits to `bits` fraction bits (fewer below 2^-126).
  const int bits = m.out == mma_output::f32_e8m13 ? 13 : 23;
  for (std::size_t l = 0; l < L; ++l) {
    const double v = s[l] * bit_cast<double>(static_cast<std::uint64_t>(emax[l] - fb + 1023) << 52);
    const std::uint64_t u = bit_cast<std::uint64_t>(v);
    const int e = static_cast<int>((u >> 52) & 0x7FFu) - 1023;
    const int drop = 52 - bits + (e < -126 ? -126 - e : 0);
    std::uint64_t r = drop >= 53 ? 0u : u & (~std::uint64_t{0} << drop);
    if (e > 127) r = (u & (std::uint64_t{1} << 63)) | (std::uint64_t{0x7FF} << 52);
    acc[l] = bit_cast<double>(r);
  }
}

}  // namespace detail

}  // namespace mixprec

#endif  // MIXPREC_KERNELS_DETAIL_MMA_DATAPATH_HPP
