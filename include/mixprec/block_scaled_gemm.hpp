// SPDX-License-Identifier: MIT
// mixprec/block_scaled_gemm.hpp — C = A B on block-scaled operands (block_scaling.hpp), with an
// accumulator model for the products of quantized elements and an FP32 promotion interval.
//
// A is M x K quantized with blocks {bm, kb} (activations: block_rowwise(kb)), B is K x N with
// blocks {kb, bn} (weights as TE stores them for the GEMM: block_columnwise(kb), or {kb, kb} 2D
// tiles). For every C element, K runs in chunks of `promotion` (default kb; it must divide kb):
//   partial = the dot of the chunk's elements P_a * P_b in the accumulator model (element units);
//   c = float(c + float(partial * float(s_a * s_b)))    FP32, in K order (as DeepGEMM's
//                                                       final_accum += scale_a * scale_b * accum)
// then C = float(c * float(g_a * g_b)) with the per-tensor decode factors g (NVFP4: 1 / S_enc;
// 1 for MX and FP8 blocks), as cuBLAS applies NVFP4's alpha. Scales decode as their format's value
// (E8M0 code 0 is 2^-127, 0xFF is NaN).
//
// Accumulator models (products P_a * P_b are exact: at most 16 significant bits):
//   fp32       acc = float(acc + p) for each product in K order, round to nearest even.
//   truncated  MODELLED on published measurements, not a documented datapath: products are
//              added in groups of `group`; each product and the running acc are aligned to the
//              largest exponent among them and truncated (toward zero) to `mantissa_bits` bits
//              below that exponent's leading bit, summed exactly, and acc keeps the sum
//              truncated to mantissa_bits fraction bits. Published: Hopper FP8 MMA keeps about
//              13-14 bits (DeepSeek-V3 §3.5.2; SageAttention2 calls it FP22, 1/8/13), B200
//              f8f6f4 about 25 (DeepGEMM#176); the grouping and alignment of acc are the model.
//              A group with an Inf or NaN term gives the sum of those (finite terms drop out).
// Single-threaded. In the default FP environment (nearest, no FTZ/DAZ), for the element and
// scale formats of the recipes, the fp32 model runs in AVX-512 14x32 / AVX2 6x16 register tiles
// (detail/simd_block_gemm.hpp; 1.1-1.4x the time of mixprec::gemm float, bench/README.md) and
// the truncated model vectorised over a row of C; elsewhere a scalar loop. Same bits everywhere.
//   mixprec::block_gemm_options o;
//   o.acc = mixprec::block_accumulator::truncated(13, 4);
//   o.promotion = 128;                                         // DeepGEMM: FP32 every 128 K
//   std::vector<float> c = mixprec::block_scaled_gemm(a, b, o);
#ifndef MIXPREC_BLOCK_SCALED_GEMM_HPP
#define MIXPREC_BLOCK_SCALED_GEMM_HPP

#include "config.hpp"
#if !MIXPREC_HAS_EXCEPTIONS && !defined(__CUDA_ARCH__)
#error "mixprec/block_scaled_gemm.hpp needs C++ exceptions (it is compiled with -fno-exceptions here); the numeric core, mixprec/mixprec.hpp, does not"
#include "mixprec: compilation stopped (see the error above)"
#endif

#include <algorithm>
#include <array>
#include <cfenv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "block_scaling.hpp"
#include "block_scaling_mx.hpp"
#include "block_scaling_nvfp4.hpp"
#include "detail/bits.hpp"
#include "detail/simd_block_gemm.hpp"
#include "detail/widen_table.hpp"
#include "round_to.hpp"
#include "types.hpp"

namespace mixprec {

/// The accumulator model of the per-chunk dot (see the header comment).
struct block_accumulator {
  /// The accumulator model.
  enum class kind : unsigned char {
    fp32,      ///< acc = float(acc + p), nearest-even, in K order
    truncated  ///< groups aligned to the largest exponent and truncated (see the header comment)
  };
  kind model = kind::fp32;  ///< which model
  int mantissa_bits = 23;   ///< truncated: bits kept below the leading bit
  std::size_t group = 1;    ///< truncated: products added per alignment group

  /// The FP32 model (the default).
  static constexpr block_accumulator fp32() noexcept { return block_accumulator{}; }
  /// The truncated model keeping `bits` mantissa bits, in groups of group_size products, e.g.
  /// truncated(13, 4) for Hopper FP8 MMA as published.
  static constexpr block_accumulator truncated(int bits, std::size_t group_size) noexcept {
    return block_accumulator{kind::truncated, bits, group_size};
  }
};

/// Options of block_scaled_gemm.
struct block_gemm_options {
  block_accumulator acc;  ///< the accumulator model of the per-chunk dots
  /// K elements accumulated in the model before promotion to FP32; 0 = the K block size.
  std::size_t promotion = 0;
};

namespace detail {

template <class T>
double element_value(const T& x) noexcept {
  return static_cast<double>(x);
}
inline double element_value(const mxint8& x) noexcept { return x.value(); }

/// v truncated toward zero to a multiple of 2^e (exact: |v| / 2^e < 2^53 by the callers).
inline double trunc_to(double v, int e) noexcept { return std::ldexp(std::trunc(std::ldexp(v, -e)), e); }

/// One step of the truncated model: acc and the terms aligned to their largest exponent.
inline double truncated_group(double acc, const double* p, std::size_t n, int bits) noexcept {
  int emax = !exact_eq(acc, 0.0) ? std::ilogb(acc) : -100000;
  for (std::size_t i = 0; i < n; ++i)
    if (!exact_eq(p[i], 0.0) && std::ilogb(p[i]) > emax) emax = std::ilogb(p[i]);
  if (emax == -100000) return acc;
  const int q = emax - bits;
  double s = trunc_to(acc, q);
  for (std::size_t i = 0; i < n; ++i) s += trunc_to(p[i], q);  // exact: multiples of 2^q below 2^(emax+6)
  if (exact_eq(s, 0.0)) return 0.0;
  if (!std::isfinite(s)) return s;  // an Inf or NaN term (trunc_to keeps them; ilogb(NaN) - bits would overflow)
  return trunc_to(s, std::ilogb(s) - bits);
}

template <class T>
float global_decode(const T&) noexcept {
  return 1.0f;
}
inline float global_decode(const block_scaled_tensor<float4_e2m1fn, float8_ue4m3>& t) noexcept {
  return 1.0f / t.tensor_scale;  // TE's S_dec = 1 / S_enc
}

/// The element types of the fast FP32 path: a value table by storage byte, and the bounds that
/// make the product of two elements exact in float (significant bits, lowest quantum, top exponent).
template <class E>
struct bgemm_elem {
  static constexpr bool ok = false;
  static constexpr int sig = 64, qmin = -10000, emax = 10000;
};
template <class F>
struct bgemm_elem<basic_float<F>> {
  static constexpr bool ok = widen_table_exact<basic_float<F>, float>;
  static constexpr int sig = F::mantissa_bits + 1, qmin = F::qmin, emax = F::emax;
  static const float* table() noexcept { return widen_table<basic_float<F>, float>(); }
};
template <>
struct bgemm_elem<mxint8> {
  static constexpr bool ok = sizeof(mxint8) == 1;
  static constexpr int sig = 8, qmin = -6, emax = 1;  // c / 64, c in [-128, 127]
  static const float* table() noexcept {
    static const std::array<float, 256> t = [] {
      std::array<float, 256> v{};
      for (int b = 0; b < 256; ++b) v[static_cast<std::size_t>(b)] = static_cast<float>(b < 128 ? b : b - 256) / 64.0f;
      return v;
    }();
    return t.data();
  }
};
template <class S>
struct bgemm_scale : std::is_same<S, float> {};
template <class F>
struct bgemm_scale<basic_float<F>> : std::integral_constant<bool, holds_all_values<F, float32_format>> {};
/// Whether the fast FP32 path applies: every product of an EA and an EB element is exact in
/// float, and both scale types convert to float exactly.
template <class EA, class SA, class EB, class SB>
constexpr bool bgemm_fast = bgemm_elem<EA>::ok && bgemm_elem<EB>::ok && bgemm_scale<SA>::value &&
                            bgemm_scale<SB>::value && bgemm_elem<EA>::sig + bgemm_elem<EB>::sig <= 24 &&
                            bgemm_elem<EA>::qmin + bgemm_elem<EB>::qmin >= -149 &&
                            bgemm_elem<EA>::emax + bgemm_elem<EB>::emax + 2 <= 127;

/// n floats of scratch: a buffer kept per thread up to 8 MiB (a fresh allocation per call costs
/// page faults comparable to a 256^3 product), above that `own`, freed by the caller.
inline float* bgemm_scratch(std::size_t n, std::unique_ptr<float[]>& own) {
  if (n > (std::size_t{8} << 20) / sizeof(float)) {
    own.reset(new float[n]);
    return own.get();
  }
  thread_local std::unique_ptr<float[]> buf;
  thread_local std::size_t cap = 0;
  if (cap < n) {
    buf.reset();
    cap = 0;
    buf.reset(new float[n]);
    cap = n;
  }
  return buf.get();
}

/// The FP32 model into c (m x n, zeroed), bgemm_fast operands, default FP environment: the SIMD
/// tiles of detail/simd_block_gemm.hpp, else a row of C at a time over contiguous j.
template <class EA, class SA, class EB, class SB>
void bgemm_fp32(const block_scaled_tensor<EA, SA>& a, const block_scaled_tensor<EB, SB>& b, std::size_t chunk,
                float g, float* c) {
  const std::size_t m = a.rows, n = b.cols, k = a.cols;
  if (m == 0 || n == 0) return;
  const float* ta = bgemm_elem<EA>::table();
  const float* tb = bgemm_elem<EB>::table();
#if defined(MIXPREC_BGEMM_SIMD)
  constexpr std::size_t MR = bgemm_mr, NR = bgemm_nr;
  const std::size_t kb = a.block.cols;
  const std::size_t nkb = (k + kb - 1) / kb, slivers = (m + MR - 1) / MR;
  auto up16 = [](std::size_t x) { return (x + 15) / 16 * 16; };  // 64-byte multiples
  const std::size_t la = up16(k * MR), lsa = up16(nkb * MR), lb = up16(k * NR), lsb = up16(nkb * NR);
  // Not zero-filled: the packing below writes every float the tiles read.
  std::unique_ptr<float[]> own;
  float* buf = bgemm_scratch(slivers * (la + lsa) + lb + lsb + MR * NR + 16, own);
  float* apack = buf + ((64u - (reinterpret_cast<std::uintptr_t>(buf) & 63u)) & 63u) / sizeof(float);
  float* sapack = apack + slivers * la;
  float* bpack = sapack + slivers * lsa;
  float* sbpack = bpack + lb;
  float* tile = sbpack + lsb;
  // A: each sliver of MR rows as k x MR (zero rows past m), its scales per K block.
  for (std::size_t s = 0; s < slivers; ++s) {
    const std::size_t i0 = s * MR, rows = std::min(MR, m - i0);
    float* d = apack + s * la;
    for (std::size_t r = 0; r < MR; ++r) {
      if (r < rows) {
        const EA* src = a.elements.data() + (i0 + r) * k;
        for (std::size_t p = 0; p < k; ++p) d[p * MR + r] = ta[byte_of(src[p])];
      } else {
        for (std::size_t p = 0; p < k; ++p) d[p * MR + r] = 0.0f;
      }
    }
    float* ds = sapack + s * lsa;
    for (std::size_t q = 0; q < nkb; ++q)
      for (std::size_t r = 0; r < MR; ++r) ds[q * MR + r] = r < rows ? static_cast<float>(a.scale_of(i0 + r, q * kb)) : 0.0f;
  }
  for (std::size_t j0 = 0; j0 < n; j0 += NR) {
    const std::size_t cols = std::min(NR, n - j0);
    for (std::size_t p = 0; p < k; ++p) {
      const EB* src = b.elements.data() + p * n + j0;
      float* d = bpack + p * NR;
      for (std::size_t x = 0; x < cols; ++x) d[x] = tb[byte_of(src[x])];
      for (std::size_t x = cols; x < NR; ++x) d[x] = 0.0f;
    }
    for (std::size_t q = 0; q < nkb; ++q)
      for (std::size_t x = 0; x < NR; ++x) sbpack[q * NR + x] = x < cols ? static_cast<float>(b.scale_of(q * kb, j0 + x)) : 0.0f;
    for (std::size_t s = 0; s < slivers; ++s) {
      const std::size_t i0 = s * MR, rows = std::min(MR, m - i0);
      std::fill(tile, tile + MR * NR, 0.0f);
      bgemm_tile(k, chunk, kb, apack + s * la, bpack, sapack + s * lsa, sbpack, tile);
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t x = 0; x < cols; ++x) c[(i0 + r) * n + j0 + x] = tile[r * NR + x] * g;
    }
  }
#else
  // The products are exact in float, so float(s + p) is the same with or without contraction;
  // f32_mul (round_to) for the product that feeds the add: a plain float product there may be
  // fused into an FMA (GCC narrows the exact double product back to a float multiply).
  auto mulf = [](float x, float y) { return static_cast<float>(static_cast<double>(x) * static_cast<double>(y)); };
  std::vector<float> bf(k * n), af(k), s(n), acc(n), sb(n);
  for (std::size_t q = 0; q < k * n; ++q) bf[q] = tb[byte_of(b.elements[q])];
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t kk = 0; kk < k; ++kk) af[kk] = ta[byte_of(a.elements[i * k + kk])];
    std::fill(acc.begin(), acc.end(), 0.0f);
    for (std::size_t k0 = 0; k0 < k; k0 += chunk) {
      const std::size_t k1 = k - k0 < chunk ? k : k0 + chunk;
      std::fill(s.begin(), s.end(), 0.0f);
      for (std::size_t kk = k0; kk < k1; ++kk) {
        const float av = af[kk];
        const float* brow = bf.data() + kk * n;
        for (std::size_t j = 0; j < n; ++j) s[j] = s[j] + av * brow[j];
      }
      const float sa = static_cast<float>(a.scale_of(i, k0));
      for (std::size_t j = 0; j < n; ++j) sb[j] = static_cast<float>(b.scale_of(k0, j));
      for (std::size_t j = 0; j < n; ++j) acc[j] = acc[j] + f32_mul(s[j], mulf(sa, sb[j]));
    }
    for (std::size_t j = 0; j < n; ++j) c[i * n + j] = mulf(acc[j], g);
  }
#endif
}

/// The truncated model into c, bgemm_fast operands, default FP environment: truncated_group's
/// operations on the bits of the doubles, a row of C at a time over contiguous j. The products,
/// the running sums and every partial are normal doubles (bgemm_fast: at least 2^-149, at most 16
/// significant bits) or zero, so ilogb is the exponent field and truncation clears low bits; a
/// group with an Inf or NaN gives the double sum (Inf or NaN, as trunc_to keeps them).
template <class EA, class SA, class EB, class SB>
void bgemm_truncated(const block_scaled_tensor<EA, SA>& a, const block_scaled_tensor<EB, SB>& b, std::size_t chunk,
                     int bits, std::size_t group, float g, float* c) {
  const std::size_t m = a.rows, n = b.cols, k = a.cols;
  if (m == 0 || n == 0) return;
  const float* ta = bgemm_elem<EA>::table();
  const float* tb = bgemm_elem<EB>::table();
  using u64 = std::uint64_t;
  auto to_bits = [](double x) {
    u64 u;
    std::memcpy(&u, &x, sizeof u);
    return u;
  };
  auto from_bits = [](u64 u) {
    double x;
    std::memcpy(&x, &u, sizeof x);
    return x;
  };
  auto expo = [](u64 u) { return static_cast<std::int64_t>((u >> 52) & 0x7FFu); };  // 0 for a zero
  const u64 keep_bits = ~((u64{1} << (52 - bits)) - 1u);
  std::vector<float> bf(k * n), af(k), sb(n), acc(n), v(n);
  std::vector<double> part(n), sum(n);
  std::vector<std::int64_t> qb(n);
  for (std::size_t q = 0; q < k * n; ++q) bf[q] = tb[byte_of(b.elements[q])];
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t kk = 0; kk < k; ++kk) af[kk] = ta[byte_of(a.elements[i * k + kk])];
    std::fill(acc.begin(), acc.end(), 0.0f);
    for (std::size_t k0 = 0; k0 < k; k0 += chunk) {
      const std::size_t k1 = k - k0 < chunk ? k : k0 + chunk;
      std::fill(part.begin(), part.end(), 0.0);
      for (std::size_t g0 = k0; g0 < k1; g0 += group) {
        const std::size_t g1 = k1 - g0 < group ? k1 : g0 + group;
        for (std::size_t j = 0; j < n; ++j) qb[j] = expo(to_bits(part[j]));
        for (std::size_t kk = g0; kk < g1; ++kk) {
          const double av = static_cast<double>(af[kk]);
          const float* brow = bf.data() + kk * n;
          for (std::size_t j = 0; j < n; ++j) qb[j] = std::max(qb[j], expo(to_bits(av * static_cast<double>(brow[j]))));
        }
        const bool special = *std::max_element(qb.begin(), qb.end()) == 0x7FF;
        for (std::size_t j = 0; j < n; ++j) qb[j] -= bits;
        bgemm_trunc_set(part.data(), qb.data(), sum.data(), n);
        for (std::size_t kk = g0; kk < g1; ++kk) {
          bgemm_trunc_add(static_cast<double>(af[kk]), bf.data() + kk * n, qb.data(), sum.data(), n);  // exact sums
        }
        for (std::size_t j = 0; j < n; ++j) part[j] = special && qb[j] + bits == 0x7FF ? part[j] : from_bits(to_bits(sum[j]) & keep_bits);
        if (special) {  // an Inf or NaN term: the finite terms truncate to 0, the rest is their sum
          for (std::size_t j = 0; j < n; ++j) {
            if (qb[j] + bits != 0x7FF) continue;
            for (std::size_t kk = g0; kk < g1; ++kk) part[j] += static_cast<double>(af[kk]) * static_cast<double>(bf[kk * n + j]);
          }
        }
      }
      const float sa = static_cast<float>(a.scale_of(i, k0));
      for (std::size_t j = 0; j < n; ++j) sb[j] = static_cast<float>(b.scale_of(k0, j));
      // IEEE float operations (the default environment): v in one loop, acc + v in the next, so
      // the product is never fused into the add.
      for (std::size_t j = 0; j < n; ++j) v[j] = static_cast<float>(part[j]) * (sa * sb[j]);
      for (std::size_t j = 0; j < n; ++j) acc[j] = acc[j] + v[j];
    }
    for (std::size_t j = 0; j < n; ++j) c[i * n + j] = acc[j] * g;
  }
}

}  // namespace detail

/// C (M x N, row-major floats) = A B for block-scaled A (M x K) and B (K x N); see the header
/// comment. Throws std::invalid_argument when K or the K block sizes differ, or the promotion
/// interval does not divide the K block size. For torchao-order NVFP4 pass a_global/b_global
/// (its per-tensor scale pts), since the default takes tensor_scale as TE's S_enc.
template <class EA, class SA, class EB, class SB>
std::vector<float> block_scaled_gemm(const block_scaled_tensor<EA, SA>& a, const block_scaled_tensor<EB, SB>& b,
                                     const block_gemm_options& opt = {}, float a_global = 0.0f,
                                     float b_global = 0.0f) {
  detail::check_block_tensor("mixprec::block_scaled_gemm (A)", a, &a);
  detail::check_block_tensor("mixprec::block_scaled_gemm (B)", b, &b);
  if (a.cols != b.rows) throw std::invalid_argument("mixprec::block_scaled_gemm: A's columns must equal B's rows");
  const std::size_t kb = a.block.cols;
  if (b.block.rows != kb) {
    throw std::invalid_argument("mixprec::block_scaled_gemm: A's block columns must equal B's block rows (the K block)");
  }
  const std::size_t chunk = opt.promotion == 0 ? kb : opt.promotion;
  if (kb % chunk != 0) {
    throw std::invalid_argument("mixprec::block_scaled_gemm: the promotion interval must divide the K block size");
  }
  if (opt.acc.model == block_accumulator::kind::truncated &&
      (opt.acc.mantissa_bits < 1 || opt.acc.mantissa_bits > 40 || opt.acc.group < 1 || opt.acc.group > 64)) {
    throw std::invalid_argument("mixprec::block_scaled_gemm: truncated model needs mantissa_bits in [1, 40], group in [1, 64]");
  }
  const float ga = a_global > 0.0f ? a_global : detail::global_decode(a);
  const float gb = b_global > 0.0f ? b_global : detail::global_decode(b);
  const float g = round_to<float>(static_cast<double>(ga) * static_cast<double>(gb));
  const std::size_t m = a.rows, n = b.cols, k = a.cols;
  std::vector<float> c(m * n, 0.0f);
  if constexpr (detail::bgemm_fast<EA, SA, EB, SB>) {
    // The same operations in the default FP environment (nearest, no FTZ/DAZ; else the loop
    // below), with the products of two elements exact in float.
    if (std::fegetround() == FE_TONEAREST && detail::simd_blk::fp_env_ok()) {
      if (opt.acc.model == block_accumulator::kind::fp32) {
        detail::bgemm_fp32(a, b, chunk, g, c.data());
      } else {
        detail::bgemm_truncated(a, b, chunk, opt.acc.mantissa_bits, opt.acc.group, g, c.data());
      }
      return c;
    }
  }
  std::vector<double> pa(k);
  double p[64];
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t kk = 0; kk < k; ++kk) pa[kk] = detail::element_value(a.elements[i * k + kk]);
    for (std::size_t j = 0; j < n; ++j) {
      float acc32 = 0.0f;
      for (std::size_t k0 = 0; k0 < k; k0 += chunk) {
        const std::size_t k1 = k - k0 < chunk ? k : k0 + chunk;
        double partial = 0.0;
        if (opt.acc.model == block_accumulator::kind::fp32) {
          float s = 0.0f;
          for (std::size_t kk = k0; kk < k1; ++kk) {
            // Exact product; the double sum is exact too (a float plus a product of at most 16
            // significant bits that is not far below it), so this is one float rounding.
            s = round_to<float>(static_cast<double>(s) + pa[kk] * detail::element_value(b.elements[kk * n + j]));
          }
          partial = static_cast<double>(s);
        } else {
          for (std::size_t g0 = k0; g0 < k1; g0 += opt.acc.group) {
            const std::size_t g1 = k1 - g0 < opt.acc.group ? k1 : g0 + opt.acc.group;
            for (std::size_t kk = g0; kk < g1; ++kk) p[kk - g0] = pa[kk] * detail::element_value(b.elements[kk * n + j]);
            partial = detail::truncated_group(partial, p, g1 - g0, opt.acc.mantissa_bits);
          }
        }
        const float sab = round_to<float>(static_cast<double>(a.scale_of(i, k0)) * static_cast<double>(b.scale_of(k0, j)));
        const float v = round_to<float>(static_cast<double>(round_to<float>(partial)) * static_cast<double>(sab));
        acc32 = round_to<float>(static_cast<double>(acc32) + static_cast<double>(v));
      }
      c[i * n + j] = round_to<float>(static_cast<double>(acc32) * static_cast<double>(g));
    }
  }
  return c;
}

}  // namespace mixprec

#endif  // MIXPREC_BLOCK_SCALED_GEMM_HPP
