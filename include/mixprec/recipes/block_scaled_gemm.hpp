// SPDX-License-Identifier: MIT
// mixprec/recipes/block_scaled_gemm.hpp — C = A B on block-scaled operands (block_scaling.hpp), with an
// accumulator model for the products of quantized elements and an FP32 promotion interval.
//
//   block_scaled_gemm(a, b[, block_gemm_options{acc, promotion}[, a_global, b_global]])
//   block_accumulator::fp32() (default), truncated(mantissa_bits, group), tensor_core(mma_preset)
//
// Contract: A is M x K with blocks {bm, kb}, B is K x N with blocks {kb, bn}; for every C element,
// each K chunk of `promotion` (default kb; it must divide kb) is a dot in the accumulator model,
// times the two block scales, added into FP32 in K order; then times the per-tensor decode factors.
// Single-threaded; the SIMD paths (detail/simd_block_gemm.hpp) give the scalar loop's bits. The
// product step by step, each accumulator model and the fast paths: docs/pages/block-scaled-gemm.md.
//
//   mixprec::block_gemm_options o;
//   o.acc = mixprec::block_accumulator::truncated(13, 4);
//   o.promotion = 128;                                         // DeepGEMM: FP32 every 128 K
//   std::vector<float> c = mixprec::block_scaled_gemm(a, b, o);
#ifndef MIXPREC_BLOCK_SCALED_GEMM_HPP
#define MIXPREC_BLOCK_SCALED_GEMM_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/recipes/block_scaled_gemm.hpp
#include "../core/detail/needs_exceptions.hpp"

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
#include "../core/detail/bits.hpp"
#include "detail/simd_block_gemm.hpp"
#include "../core/detail/widen_table.hpp"
#include "../kernels/tensor_core.hpp"
#include "../core/round_to.hpp"
#include "../core/types.hpp"

namespace mixprec {

/// The accumulator model of the per-chunk dot (docs/pages/block-scaled-gemm.md, "Accumulator models").
struct block_accumulator {
  /// The accumulator model.
  enum class kind : unsigned char {
    fp32,      ///< acc = float(acc + p), nearest-even, in K order
    truncated,   ///< aligned, truncated groups (docs/pages/block-scaled-gemm.md, "Accumulator models")
    tensor_core  ///< a tensor-core preset (kernels/tensor_core.hpp), bit-accurate to MMA-Sim
  };
  kind model = kind::fp32;  ///< which model
  int mantissa_bits = 23;   ///< truncated: bits kept below the leading bit
  std::size_t group = 1;    ///< truncated: products added per alignment group
  mma_preset preset = mma_preset::none;  ///< tensor_core: the instruction

  /// The FP32 model (the default).
  static constexpr block_accumulator fp32() noexcept { return block_accumulator{}; }
  /// The truncated model keeping `bits` mantissa bits, in groups of group_size products, e.g.
  /// truncated(13, 4) for Hopper FP8 MMA as published.
  static constexpr block_accumulator truncated(int bits, std::size_t group_size) noexcept {
    return block_accumulator{kind::truncated, bits, group_size, mma_preset::none};
  }
  /// A tensor-core preset: the chunk's products through the instruction's datapath (chained from
  /// +0 along the chunk, then promoted to FP32 as above), e.g. hopper_wgmma_fp8_f32 for DeepGEMM's
  /// FP8 blocks. The block-scaled kinds (blackwell_tcgen05_mxf8f6f4, _mxf4nvf4) take the block
  /// scales inside the instruction instead: the whole K chained from +0, then times the global
  /// decode factors; A's scales per row (block rows 1), B's per column (block columns 1), no
  /// promotion interval.
  static constexpr block_accumulator tensor_core(mma_preset p) noexcept {
    return block_accumulator{kind::tensor_core, 23, 1, p};
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

/// c[i * n + j] = float(acc * g) (n = b.cols), acc the FP32 promotion of every K chunk [k0, k1)
/// in K order from +0: acc = float(acc + float(float(partial(i, j, k0, k1)) * float(s_a * s_b))).
template <class TA, class TB, class Partial>
void bgemm_promote(const TA& a, const TB& b, std::size_t chunk, float g, float* c, const Partial& partial) {
  const std::size_t n = b.cols, k = a.cols;
  for (std::size_t i = 0; i < a.rows; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (std::size_t k0 = 0; k0 < k; k0 += chunk) {
        const float d = round_to<float>(partial(i, j, k0, k - k0 < chunk ? k : k0 + chunk));
        const float sab = round_to<float>(static_cast<double>(a.scale_of(i, k0)) * static_cast<double>(b.scale_of(k0, j)));
        acc = round_to<float>(static_cast<double>(acc) +
                              static_cast<double>(round_to<float>(static_cast<double>(d) * static_cast<double>(sab))));
      }
      c[i * n + j] = round_to<float>(static_cast<double>(acc) * static_cast<double>(g));
    }
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
  auto to_bits = [](double x) { return detail::bit_cast<u64>(x); };
  auto from_bits = [](u64 u) { return detail::bit_cast<double>(u); };
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

template <class EA, class SA, class EB, class SB>
std::vector<float> bgemm_mma_run(const block_scaled_tensor<EA, SA>& a, const block_scaled_tensor<EB, SB>& b,
                                 const mma_model& md, const block_gemm_options& opt, std::size_t chunk, float g);

/// The tensor_core model (block_accumulator::tensor_core): checks the preset against the element,
/// scale and block types (std::invalid_argument naming what is allowed), then per C element.
template <class EA, class SA, class EB, class SB>
std::vector<float> bgemm_mma(const block_scaled_tensor<EA, SA>& a, const block_scaled_tensor<EB, SB>& b,
                             const block_gemm_options& opt, std::size_t chunk, float g) {
  const char* who = "mixprec::block_scaled_gemm";
  if (static_cast<std::size_t>(opt.acc.preset) >= static_cast<std::size_t>(mma_preset::count_) ||
      opt.acc.preset == mma_preset::none) {
    throw std::invalid_argument(std::string(who) + ": block_accumulator::tensor_core needs a preset: " + mma_preset_names());
  }
  const mma_model& md = mma_model_of(opt.acc.preset);
  mma_check_operands<EA, EB>(who, md);  // throws for element types that no preset takes
  if constexpr (mma_operand_of<EA>() != 0 && mma_operand_of<EB>() != 0) {
    return bgemm_mma_run(a, b, md, opt, chunk, g);
  } else {
    return {};
  }
}

template <class EA, class SA, class EB, class SB>
std::vector<float> bgemm_mma_run(const block_scaled_tensor<EA, SA>& a, const block_scaled_tensor<EB, SB>& b,
                                 const mma_model& md, const block_gemm_options& opt, std::size_t chunk, float g) {
  const char* who = "mixprec::block_scaled_gemm";
  const std::size_t m = a.rows, n = b.cols, k = a.cols, kb = a.block.cols;
  std::vector<float> c(m * n, 0.0f);
  if (md.scales != 0) {
    constexpr bool e8m0 = std::is_same<SA, float8_e8m0fnu>::value && std::is_same<SB, float8_e8m0fnu>::value;
    constexpr bool ue4m3 = std::is_same<SA, float8_ue4m3>::value && std::is_same<SB, float8_ue4m3>::value;
    const unsigned lay = e8m0 ? (kb == 32 ? mma_ue8m0_block32 : kb == 16 ? mma_ue8m0_block16 : 0u)
                              : ue4m3 ? (kb == 16 ? mma_ue4m3_block16 : 0u) : 0u;
    if ((lay & md.scales) == 0) {
      throw std::invalid_argument(std::string(who) + ": preset " + md.name + " takes scales " +
                                  (md.scales == mma_ue8m0_block32 ? "float8_e8m0fnu per 32 K elements"
                                                                  : "float8_e8m0fnu per 32 or 16 K elements, or float8_ue4m3 per 16") +
                                  "; got a K block of " + std::to_string(kb));
    }
    if (a.block.rows != 1 || b.block.cols != 1) {
      throw std::invalid_argument(std::string(who) + ": preset " + md.name +
                                  " takes one scale per row of A and per column of B (blocks {1, K block} and {K block, 1})");
    }
    if (opt.promotion != 0) {
      throw std::invalid_argument(std::string(who) + ": preset " + md.name +
                                  " accumulates the whole K in the instruction chain: promotion must be 0");
    }
    if constexpr (e8m0 || ue4m3) {
      const std::size_t nb = (k + kb - 1) / kb;
      std::vector<EB> col(k);
      std::vector<SA> sa(nb);
      std::vector<SB> sb(nb);
      for (std::size_t j = 0; j < n; ++j) {
        for (std::size_t p = 0; p < k; ++p) col[p] = b.elements[p * n + j];
        for (std::size_t q = 0; q < nb; ++q) sb[q] = b.scale_of(q * kb, j);
        for (std::size_t i = 0; i < m; ++i) {
          for (std::size_t q = 0; q < nb; ++q) sa[q] = a.scale_of(i, q * kb);
          const float d = mma_dot_scaled(md.preset, a.elements.data() + i * k, col.data(), k, 0.0f, sa.data(), sb.data(), kb);
          c[i * n + j] = round_to<float>(static_cast<double>(d) * static_cast<double>(g));
        }
      }
    }
    return c;
  }
  constexpr unsigned oa = mma_operand_of<EA>(), ob = mma_operand_of<EB>();
  std::vector<mma_term> ta(m * k), tb(n * k);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t p = 0; p < k; ++p) ta[i * k + p] = mma_decode(mma_value(a.elements[i * k + p], oa), oa);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t p = 0; p < k; ++p) tb[j * k + p] = mma_decode(mma_value(b.elements[p * n + j], ob), ob);
  bgemm_promote(a, b, chunk, g, c.data(), [&](std::size_t i, std::size_t j, std::size_t k0, std::size_t k1) {
    return mma_chain(md, 0.0, ta.data() + i * k + k0, tb.data() + j * k + k0, k1 - k0);
  });
  return c;
}

}  // namespace detail

/// C (M x N, row-major floats) = A B for block-scaled A (M x K) and B (K x N): see
/// docs/pages/block-scaled-gemm.md ("The product"). Throws std::invalid_argument when K or the K
/// block sizes differ, or the promotion interval does not divide the K block size. For
/// torchao-order NVFP4 pass a_global/b_global (its per-tensor scale pts), since the default takes
/// tensor_scale as TE's S_enc.
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
  if (opt.acc.model == block_accumulator::kind::tensor_core) return detail::bgemm_mma(a, b, opt, chunk, g);
  if (opt.acc.model != block_accumulator::kind::fp32 && opt.acc.model != block_accumulator::kind::truncated) {
    throw std::invalid_argument("mixprec::block_scaled_gemm: invalid accumulator model (fp32, truncated or tensor_core)");
  }
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
  std::vector<double> pa(k);  // row i of A's element values
  std::size_t row = m;
  double p[64];
  detail::bgemm_promote(a, b, chunk, g, c.data(), [&](std::size_t i, std::size_t j, std::size_t k0, std::size_t k1) {
    if (i != row) {
      for (std::size_t kk = 0; kk < k; ++kk) pa[kk] = detail::element_value(a.elements[i * k + kk]);
      row = i;
    }
    double partial = 0.0;
    if (opt.acc.model == block_accumulator::kind::fp32) {
      float s = 0.0f;
      for (std::size_t kk = k0; kk < k1; ++kk) {
        // Exact product; the double sum is exact too (a float plus a product of at most 16
        // significant bits that is not far below it), so this is one float rounding.
        s = round_to<float>(static_cast<double>(s) + pa[kk] * detail::element_value(b.elements[kk * n + j]));
      }
      return static_cast<double>(s);
    }
    for (std::size_t g0 = k0; g0 < k1; g0 += opt.acc.group) {
      const std::size_t g1 = k1 - g0 < opt.acc.group ? k1 : g0 + opt.acc.group;
      for (std::size_t kk = g0; kk < g1; ++kk) p[kk - g0] = pa[kk] * detail::element_value(b.elements[kk * n + j]);
      partial = detail::truncated_group(partial, p, g1 - g0, opt.acc.mantissa_bits);
    }
    return partial;
  });
  return c;
}

}  // namespace mixprec

#endif  // MIXPREC_BLOCK_SCALED_GEMM_HPP
