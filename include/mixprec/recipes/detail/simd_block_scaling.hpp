// SPDX-License-Identifier: MIT
// mixprec/recipes/detail/simd_block_scaling.hpp — x86 fast paths of the block-scaling recipes (host
// only), each kernel written once over the vector traits of simd/ (vec512, vec256).
//
// What: Transformer Engine MXFP8 (mx_block_recipe<float8_e4m3fn>, rule te_rceil: 1x32 and 32x1,
// quantize and dequantize), OCP MX MXFP8 (ocp_floor, float8_e4m3fn / float8_e5m2, 1x32 quantize),
// DeepSeek FP8 (1x128 quantize) and NVFP4 (nvfp4_recipe, orders te / te_legacy, no Hadamard: 1x16,
// 16x16 tiles and 16x1 in nearest-even, 1x16 and 16x1 in stochastic rounding; 1x16 and 16x1
// dequantize). block_kernels<V> holds the kernels at the width V; one dispatcher
// (simd_blk::dispatch) runs them at a simd_level (avx512 and avx512_bf16: vec512, avx2: vec256).
// Each helper below states its formula. Contract: every *_at function gives the bits of the scalar
// recipe (block_scaling_mx.hpp, block_scaling_fp8.hpp, block_scaling_nvfp4.hpp) or returns false
// and writes nothing: when its level is not compiled in, or when MXCSR is not round-to-nearest
// with FTZ and DAZ clear (the kernels use IEEE float products and subnormal operands).
//   detail::mx::te_e4m3::quantize_at(detail::simd_level::avx2, in, n, elem_bits, scale_bits, false);
#ifndef MIXPREC_DETAIL_SIMD_BLOCK_SCALING_HPP
#define MIXPREC_DETAIL_SIMD_BLOCK_SCALING_HPP

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../../core/detail/bits.hpp"
#include "../../kernels/detail/simd_convert.hpp"
#include "../../simd/encode.hpp"
#include "../mx.hpp"
#include "simd_block_width.hpp"

namespace mixprec {
namespace detail {

/// The NVFP4 per-tensor parameters of the fast path (te or te_legacy order).
struct nvfp4_fast_params {
  float s_enc = 1.0f;     ///< TE's S_enc
  bool legacy = false;    ///< te_legacy order: (b * (1/6)) * S_enc
  bool quotient = false;  ///< encode factor S_enc / S instead of 1 / (S * (1 / S_enc))
};

namespace simd_blk {

/// MXCSR is round-to-nearest with FTZ and DAZ clear (what the kernels' float products assume).
inline bool fp_env_ok() noexcept {
#if defined(MIXPREC_SIMD_X86)
  return (_mm_getcsr() & 0xE040u) == 0;
#else
  return true;
#endif
}

inline float bits_float(std::uint32_t u) noexcept { return bit_cast<float>(u); }
inline std::uint32_t float_bits(float f) noexcept { return bit_cast<std::uint32_t>(f); }

/// TE MXFP8 E4M3 (rule te_rceil), one block at a time: the scalar steps of the vector kernels' mx_te.
namespace mx_te {
/// The E8M0 code of a block amax: te_float_to_e8m0(amax * float(1/448)).
inline std::uint8_t code_of(float amax) noexcept {
  const float rcp = static_cast<float>(1.0 / 448.0);  // as the scalar recipe: round_to<float>(1.0 / 448)
  return te_float_to_e8m0(amax * rcp);
}
/// TE's exp2f_rcp: 2^(127 - code) (2^127 for code 0, 2^-127 for 0xFE); legacy (TE before #2647):
/// 1 for code 0.
inline float factor(std::uint8_t code, bool legacy) noexcept {
  return code == 0 && legacy ? 1.0f
         : code == 0xFE      ? bits_float(0x00400000u)
                             : bits_float(static_cast<std::uint32_t>(254 - code) << 23);
}
/// The float a dequantized element is multiplied by (TE's exp2f): 2^(code - 127), 2^-127 for code
/// 0; legacy (TE before #3262): 0 for code 0. 0xFF apart.
inline float scale(std::uint8_t code, bool legacy) noexcept {
  return code == 0 ? (legacy ? 0.0f : bits_float(0x00400000u)) : bits_float(static_cast<std::uint32_t>(code) << 23);
}
}  // namespace mx_te

/// E4M3 satfinite RNE code of a non-negative float (no NaN): the UE4M3 block scale of NVFP4.
inline std::uint32_t e4m3_code_nonneg(float v) noexcept {
  const std::uint32_t a = float_bits(v);
  if (a < 0x3C800000u) return static_cast<std::uint32_t>(static_cast<int>(std::nearbyint(v * 512.0f)));
  const std::uint32_t c = ((a + 0x7FFFFu + ((a >> 20) & 1u)) >> 20) - 960u;
  return c > 0x7Eu ? 0x7Eu : c;
}
/// The float value of a UE4M3 code.
inline float e4m3_value(std::uint32_t c) noexcept {
  return bits_float((c & 0x7Fu) << 20) * 1.329227995784916e36f;
}  // 2^120

/// NVFP4 block scale (float value, code) and encode factor for a block amax b (the scalar rule).
inline void nvfp4_block(float b, const nvfp4_fast_params& p, float k_te, float rcp6, float s_dec, float& sf,
                        std::uint8_t& code, float& r) noexcept {
  const float pre = p.legacy ? (b * rcp6) * p.s_enc : b * k_te;
  const std::uint32_t c = e4m3_code_nonneg(pre);
  code = static_cast<std::uint8_t>(c);
  sf = e4m3_value(c);
  const float flt_max = 3.4028234663852886e38f;
  r = p.quotient ? std::fmin(p.s_enc / sf, flt_max) : std::fmin(1.0f / (sf * s_dec), flt_max);
}

}  // namespace simd_blk

/// The block kernels at the width V (simd::vec512, simd::vec256); defined where V is compiled in.
template <class V>
struct block_kernels;

#if defined(MIXPREC_SIMD_AVX2) || defined(MIXPREC_SIMD_AVX512)
template <class V>
struct block_kernels {
  using W = block_width<V>;
  using vi = typename V::vi;
  using vf = typename V::vf;
  using mask = typename V::mask;
  static constexpr std::size_t N = V::N;
  static constexpr std::size_t S = 16 / N;  ///< vectors per 16 columns
  using e4m3 = float_traits<float8_e4m3fn>::format_type;
  using e2m1 = float_traits<float4_e2m1fn>::format_type;

  static vi c32(std::uint32_t x) noexcept { return V::set1(x); }
  static vf ld(const float* p) noexcept { return W::f_load(p); }
  static vf abs(vf x) noexcept { return W::f_from_bits(V::and_(W::f_bits(x), c32(0x7FFFFFFFu))); }
  /// max(|x|, 0): 0 for a NaN (the scalar fmax fold's view of it).
  static vf abs0(vf x) noexcept { return W::f_max(abs(x), V::f_set1(0.0f)); }

  /// F's satfinite codes (32-bit lanes) of v, in Mode (stochastic: with the random words rnd).
  template <class F, rounding Mode = rounding::nearest_even>
  static vi codes(vf v, vi rnd = V::zero()) noexcept {
    return simd::encode<V, F, Mode>(W::f_bits(v), rnd, simd::encode_format<F>::overflow_away(overflow::saturate));
  }
  /// codes<F>(v) out of line: the rare lanes of a hot loop.
  template <class F>
  [[gnu::noinline]] static vi codes_cold(vf v) noexcept {
    return codes<F>(v);
  }
  /// The common case of codes<F>(x * 2^k) on x's bits (no multiply), Sh = 23 - F's mantissa bits:
  /// each lane zero or with |x| at least lo = bits of max(2^(emin - k), FLT_MIN) (a float normal
  /// scaled to a normal of F), |x| * 2^k at most F's rounding limit unless Clamp (then the code
  /// is at most maxc). code = (a + cb + kept lsb) >> Sh, sign ORed in; bad: nonzero lanes below lo.
  template <int Sh, bool Clamp = false>
  static vi codes_pow2(vi x, vi cb, vi lo, mask& bad, std::uint32_t maxc = 0) noexcept {
    const vi a = V::and_(x, c32(0x7FFFFFFFu));
    const mask nz = V::nonzero(a);
    bad = V::m_and(nz, V::lt_u(a, lo));
    const vi lsb = V::and_(V::template srli<Sh>(a), c32(1));
    vi c = V::zero_unless(nz, V::template srli<Sh>(V::add(V::add(a, cb), lsb)));
    if (Clamp) c = V::min_u(c, c32(maxc));
    return V::or_(c, V::and_(V::template srli<24>(x), c32(0x80)));
  }
  /// codes_pow2's cb and lo for the element factor 2^kk (F's bias and emin).
  template <class F>
  static vi pow2_cb(vi kk) noexcept {
    constexpr int sh = 23 - F::mantissa_bits;
    return V::add(V::template slli<23>(V::sub(kk, c32(static_cast<std::uint32_t>(127 - F::bias)))),
                  c32((1u << (sh - 1)) - 1u));
  }
  template <class F>
  static vi pow2_lo(vi kk) noexcept {
    return V::template slli<23>(V::max_i(V::sub(c32(static_cast<std::uint32_t>(127 + F::emin)), kk), c32(1)));
  }
  /// The common case of codes<e2m1>(v): |v| < 7 and not NaN (the caller checks the block max).
  /// |v| >= 1: 2 + n, n = ((a - 0x3F800000 + 0x1FFFFF + bit 22 of a) >> 22); below: RNE(|v| * 2), the
  /// low bits of d = bits(|v| + 2^22) (one float addition, ulp 0.5). code = min(n + 2 + bits(2^22), d)
  /// & 7: below 1 n wraps high, from 1 up 2 + n <= RNE(2|v|). Sign as bit 3.
  static vi e2m1_small(vf v) noexcept {
    const vi u = W::f_bits(v);
    const vi a = V::and_(u, c32(0x7FFFFFFFu));
    const vi lsb = V::and_(V::template srli<22>(a), c32(1));
    const vi n = V::template srli<22>(V::add(V::add(a, c32(0x1FFFFFu - 0x3F800000u)), lsb));
    const vi d = W::f_bits(W::f_add(W::f_from_bits(a), V::f_set1(4194304.0f)));
    const vi c = V::min_u(V::add(n, c32(0x4A800002u)), d);
    return W::bit_select(c32(7), c, V::template srli<28>(u));
  }
  /// The values of UE4M3 codes (32-bit lanes, < 0x7F).
  static vf ue4m3_values(vi c) noexcept {
    return V::f_mul(W::f_from_bits(V::template slli<20>(c)), V::f_set1(1.329227995784916e36f));  // 2^120
  }
  /// N E4M3 codes (bytes) -> floats (exact).
  static vf e4m3_values(const std::uint8_t* p) noexcept {
    const vi c = W::load_u8(p);
    const vi mag = V::and_(c, c32(0x7F));
    const vf v = W::f_select(V::eq(mag, c32(0x7F)), W::f_from_bits(c32(0x7FC00000u)), ue4m3_values(mag));
    return W::f_from_bits(V::or_(W::f_bits(v), V::template slli<24>(V::and_(c, c32(0x80)))));
  }
  /// N E2M1 codes (bytes, low nibble) -> floats.
  static vf e2m1_values(const std::uint8_t* p) noexcept {
    static constexpr float t[16] = {0.0f,  0.5f,  1.0f,  1.5f,  2.0f,  3.0f,  4.0f,  6.0f,
                                    -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};
    return W::f_lookup16_signed(t, W::load_u8(p));
  }

  /// Lane k: the max of |x| bits over block k of the N blocks of B floats at in (a NaN wins; with
  /// IgnoreNaN a NaN counts as 0).
  template <std::size_t B, bool IgnoreNaN = false>
  static vi group_max(const float* in) noexcept {
    vi a[N];
    for (std::size_t k = 0; k < N; ++k) {
      const auto bits = [&](std::size_t j) {
        return W::f_bits(IgnoreNaN ? abs0(ld(in + B * k + j)) : abs(ld(in + B * k + j)));
      };
      vi m = bits(0);
      for (std::size_t j = N; j < B; j += N) m = V::max_u(bits(j), m);
      a[k] = m;
    }
    return W::umax_transpose(a);
  }
  /// Over rows [0, n) of the 16 columns at p (row stride cols), per vector s < S: m[s] = the
  /// fmax-fold max |x| (NaN ignored), u[s] = the max of |x| bits (a NaN wins); 4 / S independent
  /// chains per vector.
  [[gnu::always_inline]] static void col_max(const float* p, std::size_t cols, std::size_t n, vf* m, vi* u) noexcept {
    constexpr std::size_t C = 4 / S;
    const vf z = V::f_set1(0.0f);
    vf mm[4];
    vi uu[4];
    const auto step = [z](vf& mj, vi& uj, const float* q) {
      const vf a = abs(ld(q));
      mj = W::f_max(W::f_max(a, z), mj);
      uj = V::max_u(W::f_bits(a), uj);
    };
#pragma GCC unroll 4
    for (std::size_t j = 0; j < 4; ++j) mm[j] = z, uu[j] = V::zero();
    std::size_t i = 0;
    for (; i + C <= n; i += C, p += C * cols) {
#pragma GCC unroll 4
      for (std::size_t j = 0; j < 4; ++j) step(mm[j], uu[j], p + (j / S) * cols + N * (j % S));
    }
    for (; i < n; ++i, p += cols) {
#pragma GCC unroll 2
      for (std::size_t j = 0; j < S; ++j) step(mm[j], uu[j], p + N * j);
    }
#pragma GCC unroll 2
    for (std::size_t j = 0; j < S; ++j) {
      m[j] = mm[j];
      u[j] = uu[j];
#pragma GCC unroll 4
      for (std::size_t c = j + S; c < 4; c += S) m[j] = W::f_max(m[j], mm[c]), u[j] = V::max_u(u[j], uu[c]);
    }
  }
  static bool any_nan(vi u) noexcept { return V::any(V::gt_u(u, c32(0x7F800000u))); }
  /// max |x| of the B floats at in (B a multiple of N), NaN ignored: one block's fmax fold.
  template <std::size_t B>
  static float block_amax(const float* in) noexcept {
    vf m = V::f_set1(0.0f);
    for (std::size_t j = 0; j < B; j += N) m = W::f_max(abs0(ld(in + j)), m);
    return W::f_hmax(m);
  }

  /// max |x| of n floats (n a multiple of 16), NaN ignored (the scalar fmax fold from 0).
  static float amax(const float* in, std::size_t n) noexcept {
    vf m0 = V::f_set1(0.0f), m1 = m0;
    std::size_t i = 0;
    for (; i + 2 * N <= n; i += 2 * N) {
      m0 = W::f_max(abs(ld(in + i)), m0);  // a NaN lane keeps m0's
      m1 = W::f_max(abs(ld(in + i + N)), m1);
    }
    for (; i < n; i += N) m0 = W::f_max(abs(ld(in + i)), m0);
    return W::f_hmax(W::f_max(m0, m1));
  }

  /// The elements of N blocks of 32 by codes_pow2 (block k: cb[k], lo[k]); the lanes it cannot
  /// take through codes<F>(x * rf[k]).
  template <class F, bool Clamp>
  static void pow2_elements(const float* in, std::uint8_t* elem, const vi& cbv, const vi& lov, const vf& rfv) noexcept {
    alignas(64) std::uint32_t cb[N], lo[N];
    alignas(64) float rf[N];
    W::store(cb, cbv);
    W::store(lo, lov);
    V::f_store(rf, rfv);
    for (std::size_t k = 0; k < 32 * N; k += 4 * N) {
      vi x[4], c[4];
      mask bad[4];
      for (std::size_t i = 0; i < 4; ++i) {
        const std::size_t blk = (k + N * i) / 32;
        x[i] = V::load(in + k + N * i);
        c[i] = codes_pow2<23 - F::mantissa_bits, Clamp>(x[i], c32(cb[blk]), c32(lo[blk]), bad[i],
                                                        static_cast<std::uint32_t>(F::max_code));
      }
      if (V::any(V::m_or(V::m_or(bad[0], bad[1]), V::m_or(bad[2], bad[3])))) {  // subnormals: every case
        for (std::size_t i = 0; i < 4; ++i)
          if (V::any(bad[i])) c[i] = codes_cold<F>(V::f_mul(W::f_from_bits(x[i]), V::f_set1(rf[(k + N * i) / 32])));
      }
      W::store_codes4(elem + k, c[0], c[1], c[2], c[3]);
    }
  }

  /// TE MXFP8 E4M3 (rule te_rceil).
  struct mx_te {
    /// E8M0 codes of block amaxes (te_float_to_e8m0 of amax * float(1/448)).
    static vi scale_codes(vf amax) noexcept {
      const vi u = W::f_bits(V::f_mul(amax, V::f_set1(static_cast<float>(1.0 / 448.0))));
      const vi e = V::template srli<23>(u);  // the product is >= 0
      const vi m = V::and_(u, c32(0x7FFFFF));
      const mask up = V::m_andnot(V::m_and(V::eq(e, V::zero()), V::lt_u(m, c32(0x400001))),
                                  V::m_and(V::nonzero(m), V::ne(e, c32(0xFE))));
      return V::select(V::eq(e, c32(0xFF)), c32(0xFE), V::add_one_if(up, e));
    }
    /// The element factors 2^(127 - code) (2^127 for code 0, legacy: 1; 2^-127 for 0xFE).
    static vf factors(vi c, bool legacy) noexcept {
      vi f = V::template slli<23>(V::sub(c32(254), c));
      if (legacy) f = V::select(V::eq(c, V::zero()), c32(0x3F800000u), f);
      return W::f_from_bits(V::select(V::eq(c, c32(0xFE)), c32(0x00400000u), f));
    }
    /// One block of 32: amax (NaN ignored), code, every element through codes.
    static void block(const float* in, std::uint8_t* elem, std::uint8_t* scale, bool legacy) noexcept {
      *scale = simd_blk::mx_te::code_of(block_amax<32>(in));
      const vf r = V::f_set1(simd_blk::mx_te::factor(*scale, legacy));
      for (std::size_t j = 0; j < 32; j += N) V::store8(elem + j, codes<e4m3>(V::f_mul(ld(in + j), r)));
    }
    /// The dequantize factors 2^(code - 127) of codes c < 0xFF (code 0: 2^-127, legacy: 0).
    static vf scales_of(vi c, bool legacy) noexcept {
      return W::f_from_bits(V::select(V::eq(c, V::zero()), c32(legacy ? 0u : 0x00400000u), V::template slli<23>(c)));
    }
    /// The pow2 path's kk (legacy code 0: k = 0, factor 1).
    static vi kk_of(vi codes) noexcept {
      return V::select(V::eq(codes, V::zero()), V::zero(), V::sub(c32(127), codes));
    }

    static void quantize(const float* in, std::size_t nblocks, std::uint8_t* elem, std::uint8_t* scale,
                         bool legacy) noexcept {
      std::size_t b = 0;
      for (; b + N <= nblocks; b += N, in += 32 * N, elem += 32 * N) {
        const vf bmax = W::f_from_bits(group_max<32>(in));
        const vi c = scale_codes(bmax);
        const vf r = factors(c, legacy);
        V::store8(scale + b, c);
        // The common case for all N blocks: no NaN, scaled max <= 464 (no overflow; Inf fails
        // too), and no te_rceil code 0 (x * 2^127: the general path).
        if (!V::all_of(W::f_le(V::f_mul(bmax, r), V::f_set1(464.0f))) || (!legacy && V::any(V::eq(c, V::zero())))) {
          for (std::size_t k = 0; k < N; ++k) block(in + 32 * k, elem + 32 * k, scale + b + k, legacy);
          continue;
        }
        const vi kk = kk_of(c);
        pow2_elements<e4m3, false>(in, elem, pow2_cb<e4m3>(kk), pow2_lo<e4m3>(kk), r);
      }
      for (; b < nblocks; ++b, in += 32, elem += 32) block(in, elem, scale + b, legacy);
    }

    static void dequantize(const std::uint8_t* elem, const std::uint8_t* scale, std::size_t nblocks, float* out,
                           bool legacy) noexcept {
      const auto one = [&](std::size_t b, float s) {
        const std::uint8_t* e = elem + 32 * b;
        float* o = out + 32 * b;
        if (scale[b] == 0xFF) {  // the positive quiet NaN, as the scalar recipe (a NaN factor would keep the sign)
          for (std::size_t j = 0; j < 32; j += N) W::store(o + j, c32(0x7FC00000u));
          return;
        }
        for (std::size_t j = 0; j < 32; j += N) V::f_store(o + j, V::f_mul(e4m3_values(e + j), V::f_set1(s)));
      };
      std::size_t b = 0;
      for (; b + N <= nblocks; b += N) {  // the factors of N blocks at once
        alignas(64) float s[N];
        V::f_store(s, scales_of(W::load_u8(scale + b), legacy));
        for (std::size_t k = 0; k < N; ++k) one(b + k, s[k]);
      }
      for (; b < nblocks; ++b) one(b, simd_blk::mx_te::scale(scale[b], legacy));
    }

    /// 32x1 blocks (down the columns; cols a multiple of 16, the last block row may be shorter):
    /// scale of block (i / 32, j) at scale[(i / 32) * cols + j].
    static void quantize_cols(const float* in, std::size_t rows, std::size_t cols, std::uint8_t* elem,
                              std::uint8_t* scale, bool legacy) noexcept {
      for (std::size_t r0 = 0; r0 < rows; r0 += 32) {
        const std::size_t r1 = rows - r0 < 32 ? rows : r0 + 32;
        for (std::size_t c0 = 0; c0 < cols; c0 += 16) {  // 16 columns: S vectors
          vf r[S];
          vi c[S], cb[S], lo[S];
          vf m[S];
          vi u[S];
          col_max(in + r0 * cols + c0, cols, r1 - r0, m, u);
          bool fast = true;
#pragma GCC unroll 2
          for (std::size_t s = 0; s < S; ++s) {
            c[s] = scale_codes(m[s]);
            r[s] = factors(c[s], legacy);
            // The common case (as quantize), per lane's k.
            fast = fast && !any_nan(u[s]) && V::all_of(W::f_le(V::f_mul(m[s], r[s]), V::f_set1(464.0f))) &&
                   (legacy || !V::any(V::eq(c[s], V::zero())));
            const vi kk = kk_of(c[s]);
            cb[s] = pow2_cb<e4m3>(kk);
            lo[s] = pow2_lo<e4m3>(kk);
          }
          W::store_codes16(scale + (r0 / 32) * cols + c0, c);
          for (std::size_t i = r0; i < r1; ++i) {
            vi q[S];
#pragma GCC unroll 2
            for (std::size_t s = 0; s < S; ++s) {
              const vi x = V::load(in + i * cols + c0 + N * s);
              mask bad = V::all();
              q[s] = fast ? codes_pow2<20>(x, cb[s], lo[s], bad) : x;
              if (!fast || V::any(bad)) q[s] = codes<e4m3>(V::f_mul(W::f_from_bits(x), r[s]));
            }
            W::store_codes16(elem + i * cols + c0, q);
          }
        }
      }
    }

    static void dequantize_cols(const std::uint8_t* elem, const std::uint8_t* scale, std::size_t rows, std::size_t cols,
                                float* out, bool legacy) noexcept {
      const vf qn = W::f_from_bits(c32(0x7FC00000u));
      for (std::size_t i = 0; i < rows; ++i) {
        const std::uint8_t* srow = scale + (i / 32) * cols;
        for (std::size_t j = 0; j < cols; j += N) {
          const vi c = W::load_u8(srow + j);
          const vf v = V::f_mul(e4m3_values(elem + i * cols + j), scales_of(c, legacy));
          V::f_store(out + i * cols + j, W::f_select(V::eq(c, c32(0xFF)), qn, v));
        }
      }
    }
  };

  /// OCP MX v1.0 MXFP8 (rule ocp_floor, 1x32; element format E: float8_e4m3fn or float8_e5m2):
  /// code = biased exponent of the block max - emax (0 at least; zero and float subnormals give
  /// 0), an Inf or NaN in the block gives code 0xFF and E's NaN in every element; elements
  /// E(x * 2^(127 - code)) satfinite RNE, the common case by codes_pow2 clamped to E's max code
  /// (the floor rule lets the scaled max reach 2^(emax + 1)).
  template <class E>
  static void mx_ocp_quantize(const float* in, std::size_t nblocks, std::uint8_t* elem, std::uint8_t* scale) noexcept {
    using F = typename float_traits<E>::format_type;
    const std::uint8_t nan_code = detail::quiet_nan<E>().bits();
    const auto block = [&](const float* x32, std::uint8_t* e32, std::uint8_t* s1) {
      vi m = V::zero();
      for (std::size_t j = 0; j < 32; j += N) m = V::max_u(W::f_bits(abs(ld(x32 + j))), m);
      const std::uint32_t mb = W::hmax_u(m);
      if (mb >= 0x7F800000u) {  // Inf or NaN
        *s1 = 0xFF;
        std::memset(e32, nan_code, 32);
        return;
      }
      const int e = static_cast<int>(mb >> 23);
      const int code = e - F::emax > 0 ? e - F::emax : 0;
      *s1 = static_cast<std::uint8_t>(code);
      const vf f = V::f_set1(simd_blk::bits_float(static_cast<std::uint32_t>(254 - code) << 23));  // 2^(127 - code)
      for (std::size_t j = 0; j < 32; j += N) V::store8(e32 + j, codes<F>(V::f_mul(ld(x32 + j), f)));
    };
    std::size_t b = 0;
    for (; b + N <= nblocks; b += N, in += 32 * N, elem += 32 * N) {
      const vi e = V::template srli<23>(group_max<32>(in));
      if (V::any(V::eq(e, c32(0xFF)))) {  // an Inf or NaN block
        for (std::size_t k = 0; k < N; ++k) block(in + 32 * k, elem + 32 * k, scale + b + k);
        continue;
      }
      const vi c = V::max_i(V::sub(e, c32(static_cast<std::uint32_t>(F::emax))), V::zero());
      V::store8(scale + b, c);
      const vi kk = V::sub(c32(127), c);  // the element factor 2^kk
      pow2_elements<F, true>(in, elem, pow2_cb<F>(kk), pow2_lo<F>(kk),
                             W::f_from_bits(V::template slli<23>(V::sub(c32(254), c))));
    }
    for (; b < nblocks; ++b, in += 32, elem += 32) block(in, elem, scale + b);
  }

  /// DeepSeek-V3 FP8 1x128: per block the fmax-fold amax, s = scale(amax), elements E4M3 of the
  /// float quotient x / s (x * (1 / s) where s is a normal power of two: the same bits).
  template <class ScaleFn>
  static void fp8_128_quantize(const float* in, std::size_t nblocks, const ScaleFn& scale, std::uint8_t* elem,
                               float* scales) noexcept {
    for (std::size_t b = 0; b < nblocks; ++b, in += 128, elem += 128) {
      const float s = scale(amax(in, 128));
      scales[b] = s;
      const std::uint32_t u = simd_blk::float_bits(s);
      const bool p2 = (u & 0x7FFFFFu) == 0 && u >= 0x00800000u && u < 0x7F000000u;
      const vf sv = V::f_set1(s), rv = V::f_set1(1.0f / s);
      vi c[128 / N];
      for (std::size_t j = 0; j < 128 / N; ++j) {
        const vf x = ld(in + N * j);
        c[j] = simd::encode_fast<V, e4m3, rounding::nearest_even>(
            W::f_bits(p2 ? V::f_mul(x, rv) : W::f_div(x, sv)), V::zero(),
            simd::encode_format<e4m3>::overflow_away(overflow::saturate));
      }
      for (std::size_t j = 0; j < 128 / N; j += 4) W::store_codes4(elem + N * j, c[j], c[j + 1], c[j + 2], c[j + 3]);
    }
  }

  /// NVFP4, te / te_legacy orders.
  struct nvfp4 {
    /// The per-tensor constants: pre = (b * m1) * m2 (te: b * k_te, times 1; te_legacy:
    /// (b * (1/6)) * S_enc), r = rn / (sf * rd) (reciprocal: 1 / (sf * s_dec); quotient: S_enc / (sf * 1)).
    struct consts {
      nvfp4_fast_params p;
      float rcp6, k_te, s_dec;
      vf m1, m2, rn, rd;
      explicit consts(const nvfp4_fast_params& q) noexcept
          : p(q),
            rcp6(static_cast<float>(1.0 / 6.0)),
            k_te(q.s_enc * rcp6),
            s_dec(1.0f / q.s_enc),
            m1(V::f_set1(q.legacy ? rcp6 : k_te)),
            m2(V::f_set1(q.legacy ? q.s_enc : 1.0f)),
            rn(V::f_set1(q.quotient ? q.s_enc : 1.0f)),
            rd(V::f_set1(q.quotient ? 1.0f : s_dec)) {}
      /// The scalar rule for one block max b: its code into code, its encode factor.
      float block(float b, std::uint8_t& code) const noexcept {
        float sf, r;
        simd_blk::nvfp4_block(b, p, k_te, rcp6, s_dec, sf, code, r);
        return r;
      }
    };
    /// UE4M3 codes of N block maxima (not NaN) and their encode factors r = min(rn / (S * rd), FLT_MAX).
    static vi scales(vf bmax, const consts& k, vf& r) noexcept {
      const vf pre = V::f_mul(V::f_mul(bmax, k.m1), k.m2);
      mask bad;  // the common case (0 or [2^-6, 464]) as codes_pow2 with k = 0
      vi c = codes_pow2<20>(W::f_bits(pre), c32(0x7FFFFu - (120u << 23)), c32(121u << 23), bad);
      if (V::any(V::m_or(bad, V::m_andnot(W::f_le(pre, V::f_set1(464.0f)), V::all()))))
        c = V::and_(codes<e4m3>(pre), c32(0x7F));
      r = W::f_min(W::f_div(k.rn, V::f_mul(ue4m3_values(c), k.rd)), V::f_set1(3.4028234663852886e38f));
      return c;
    }
    /// One block of 16 by the scalar rule, every element through codes<e2m1> (SR: stochastic, the
    /// words from *rng).
    template <bool SR = false>
    static void block(const float* in, std::uint8_t* elem, std::uint8_t* scale, const consts& k,
                      typename V::rng* rng = nullptr) noexcept {
      const vf r = V::f_set1(k.block(block_amax<16>(in), *scale));
      for (std::size_t j = 0; j < 16; j += N) {
        const vf v = V::f_mul(ld(in + j), r);
        V::store8(elem + j, SR ? codes<e2m1, rounding::stochastic>(v, rng->next()) : codes<e2m1>(v));
      }
    }

    /// 1x16, nearest-even. Chunks of kChunk groups of N blocks: first every group's scales
    /// (independent work the core overlaps), then the elements.
    static constexpr std::size_t kChunk = 4;
    static void quantize(const float* in, std::size_t nblocks, const nvfp4_fast_params& p, std::uint8_t* elem,
                         std::uint8_t* scale) noexcept {
      const consts k(p);
      std::size_t b = 0;
      while (b + N <= nblocks) {
        const std::size_t ng = (nblocks - b) / N < kChunk ? (nblocks - b) / N : kChunk;
        alignas(64) float rf[N * kChunk];
        bool fast[kChunk];
        for (std::size_t g = 0; g < ng; ++g) {
          const vf bmax = W::f_from_bits(group_max<16>(in + 16 * N * g));
          vf r;
          const vi c = scales(bmax, k, r);
          // The common case for all N blocks: no NaN, every scaled element below 7 (e2m1_small).
          fast[g] = V::all_of(W::f_lt(V::f_mul(bmax, r), V::f_set1(7.0f)));
          V::store8(scale + b + N * g, c);
          V::f_store(rf + N * g, r);
        }
        for (std::size_t g = 0; g < ng; ++g, b += N, in += 16 * N, elem += 16 * N) {
          if (!fast[g]) {
            for (std::size_t j = 0; j < N; ++j) block(in + 16 * j, elem + 16 * j, scale + b + j, k);
            continue;
          }
          const auto enc = [&](std::size_t j) {
            return e2m1_small(V::f_mul(ld(in + j), V::f_set1(rf[N * g + j / 16])));
          };
          for (std::size_t j = 0; j < 16 * N; j += 4 * N)
            W::store_codes4(elem + j, enc(j), enc(j + N), enc(j + 2 * N), enc(j + 3 * N));
        }
      }
      for (; b < nblocks; ++b, in += 16, elem += 16) block(in, elem, scale + b, k);
    }

    /// 16x16 tiles: rows x cols floats, cols a multiple of 16; per tile the fmax-fold amax of its
    /// (up to) 16 x 16 values, the scalar rule (scale[(r0 / 16) * (cols / 16) + c0 / 16]), then
    /// each row's 16 elements with the tile's factor.
    static void quantize_tiles(const float* in, std::size_t rows, std::size_t cols, const nvfp4_fast_params& p,
                               std::uint8_t* elem, std::uint8_t* scale) noexcept {
      const consts k(p);
      for (std::size_t r0 = 0; r0 < rows; r0 += 16) {
        const std::size_t r1 = rows - r0 < 16 ? rows : r0 + 16;
        for (std::size_t c0 = 0; c0 < cols; c0 += 16) {
          vf ms[S];
          vi us[S];  // max of |x| bits: a NaN wins
          col_max(in + r0 * cols + c0, cols, r1 - r0, ms, us);
          vf m = ms[0];
          vi u = us[0];
#pragma GCC unroll 2
          for (std::size_t j = 1; j < S; ++j) m = W::f_max(ms[j], m), u = V::max_u(us[j], u);
          const float bmax = W::f_hmax(m);
          const float r = k.block(bmax, scale[(r0 / 16) * (cols / 16) + c0 / 16]);
          const vf rv = V::f_set1(r);
          const bool small = !any_nan(u) && bmax * r < 7.0f;  // the common case, as quantize
          for (std::size_t i = r0; i < r1; ++i)
            for (std::size_t j = c0; j < c0 + 16; j += N) {
              const vf v = V::f_mul(ld(in + i * cols + j), rv);
              V::store8(elem + i * cols + j, small ? e2m1_small(v) : codes<e2m1>(v));
            }
        }
      }
    }

    /// 1x16 with stochastic rounding: element k (from 0 at in) rounded with the random word
    /// counter_bits(seed, k) >> 32 (V::rng(seed, 0), element order).
    static void quantize_sr(const float* in, std::size_t nblocks, const nvfp4_fast_params& p, std::uint64_t seed,
                            std::uint8_t* elem, std::uint8_t* scale) noexcept {
      const consts k(p);
      typename V::rng rng(seed, 0);
      std::size_t b = 0;
      for (; b + N <= nblocks; b += N, in += 16 * N, elem += 16 * N) {
        vf r;
        const vi c = scales(W::f_from_bits(group_max<16, true>(in)), k, r);
        V::store8(scale + b, c);
        alignas(64) float rf[N];
        V::f_store(rf, r);
        const auto enc = [&](std::size_t j) {
          return codes<e2m1, rounding::stochastic>(V::f_mul(ld(in + j), V::f_set1(rf[j / 16])), rng.next());
        };
        for (std::size_t j = 0; j < 16 * N; j += 4 * N) {
          const vi q0 = enc(j), q1 = enc(j + N), q2 = enc(j + 2 * N), q3 = enc(j + 3 * N);  // in order: the words
          W::store_codes4(elem + j, q0, q1, q2, q3);
        }
      }
      for (; b < nblocks; ++b, in += 16, elem += 16)
        block<true>(in, elem, scale + b, k, &rng);
    }

    /// 16x1 blocks (down the columns; cols a multiple of 16, the last block row may be shorter),
    /// stochastic rounding (SR: element (i, j) with counter_bits(seed, i * cols + j) >> 32) or
    /// nearest-even (seed unused); scale of block (i / 16, j) at scale[(i / 16) * cols + j].
    template <bool SR>
    static void quantize_cols(const float* in, std::size_t rows, std::size_t cols, const nvfp4_fast_params& p,
                              std::uint64_t seed, std::uint8_t* elem, std::uint8_t* scale) noexcept {
      const consts k(p);
      for (std::size_t r0 = 0; r0 < rows; r0 += 16) {
        const std::size_t r1 = rows - r0 < 16 ? rows : r0 + 16;
        for (std::size_t c0 = 0; c0 < cols; c0 += 16) {  // 16 columns: S vectors
          vf r[S];
          vi c[S];
          vf m[S];
          vi u[S];
          col_max(in + r0 * cols + c0, cols, r1 - r0, m, u);
          bool small = !SR;  // nearest-even's common case (as quantize): no NaN, every scaled element below 7
#pragma GCC unroll 2
          for (std::size_t s = 0; s < S; ++s) {
            c[s] = scales(m[s], k, r[s]);
            small = small && !any_nan(u[s]) && V::all_of(W::f_lt(V::f_mul(m[s], r[s]), V::f_set1(7.0f)));
          }
          W::store_codes16(scale + (r0 / 16) * cols + c0, c);
          for (std::size_t i = r0; i < r1; ++i) {
            const std::size_t at = i * cols + c0;
            typename V::rng rng(SR ? seed : 0, at);
            vi q[S];
#pragma GCC unroll 2
            for (std::size_t s = 0; s < S; ++s) {
              const vf v = V::f_mul(ld(in + at + N * s), r[s]);
              q[s] = SR ? codes<e2m1, rounding::stochastic>(v, rng.next()) : small ? e2m1_small(v) : codes<e2m1>(v);
            }
            W::store_codes16(elem + at, q);
          }
        }
      }
    }

    /// 1x16 dequantize (te order): (P * S) * s_dec.
    static void dequantize(const std::uint8_t* elem, const std::uint8_t* scale, std::size_t nblocks, float s_dec,
                           float* out) noexcept {
      const vf d = V::f_set1(s_dec);
      const auto one = [&](std::size_t b, float s) {
        for (std::size_t j = 0; j < 16; j += N)
          V::f_store(out + 16 * b + j, V::f_mul(V::f_mul(e2m1_values(elem + 16 * b + j), V::f_set1(s)), d));
      };
      std::size_t b = 0;
      for (; b + N <= nblocks; b += N) {
        alignas(64) float s[N];
        V::f_store(s, ue4m3_values(V::and_(W::load_u8(scale + b), c32(0x7F))));
        for (std::size_t k = 0; k < N; ++k) one(b + k, s[k]);
      }
      for (; b < nblocks; ++b) one(b, simd_blk::e4m3_value(scale[b]));
    }
    /// 16x1 dequantize (cols a multiple of 16).
    static void dequantize_cols(const std::uint8_t* elem, const std::uint8_t* scale, std::size_t rows, std::size_t cols,
                                float s_dec, float* out) noexcept {
      const vf d = V::f_set1(s_dec);
      for (std::size_t i = 0; i < rows; ++i) {
        const std::uint8_t* srow = scale + (i / 16) * cols;
        for (std::size_t j = 0; j < cols; j += N) {
          const vf s = ue4m3_values(V::and_(W::load_u8(srow + j), c32(0x7F)));
          V::f_store(out + i * cols + j, V::f_mul(V::f_mul(e2m1_values(elem + i * cols + j), s), d));
        }
      }
    }
  };
};
#endif  // MIXPREC_SIMD_AVX2 || MIXPREC_SIMD_AVX512

namespace simd_blk {
/// fn(block_kernels<V>{}) for the width V of level l, true; false (fn not run) where ok is false,
/// l's width is not compiled in, or (env) the FP environment is not fp_env_ok.
template <class Fn>
inline bool dispatch(simd_level l, bool ok, Fn&& fn, bool env = true) noexcept {
  if (!ok || (env && !fp_env_ok())) return false;
#if defined(MIXPREC_SIMD_AVX512)
  if (l == simd_level::avx512 || l == simd_level::avx512_bf16) {
    fn(block_kernels<simd::vec512>{});
    return true;
  }
#endif
#if defined(MIXPREC_SIMD_AVX2)
  if (l == simd_level::avx2) {
    fn(block_kernels<simd::vec256>{});
    return true;
  }
#endif
  (void)l, (void)fn;
  return false;
}
}  // namespace simd_blk

/// max |x| of n floats (n a multiple of 16) with NaN ignored, as block_amax_fmax, into out.
inline bool amax_at(simd_level l, const float* in, std::size_t n, float& out) noexcept {
  return simd_blk::dispatch(l, n % 16 == 0, [&](auto k) { out = decltype(k)::amax(in, n); }, false);
}

namespace mx {
namespace te_e4m3 {
/// TE MXFP8 E4M3 quantize of rows x cols floats at a level, rowwise 1x32 (cols a multiple of 32:
/// rows * cols / 32 E8M0 codes in order) or columnwise 32x1 (cols a multiple of 16; the last block
/// row may be shorter; scale of block (i / 32, j) at scale[(i / 32) * cols + j]). False (nothing
/// written) where the level or the FP environment does not allow it.
inline bool quantize_at(simd_level l, const float* in, std::size_t rows, std::size_t cols, bool columnwise,
                        std::uint8_t* elem, std::uint8_t* scale, bool legacy) noexcept {
  return simd_blk::dispatch(l, cols % (columnwise ? 16 : 32) == 0, [&](auto k) {
    using K = typename decltype(k)::mx_te;
    columnwise ? K::quantize_cols(in, rows, cols, elem, scale, legacy)
               : K::quantize(in, rows * cols / 32, elem, scale, legacy);
  });
}
/// TE MXFP8 E4M3 dequantize of rows x cols elements, as quantize_at.
inline bool dequantize_at(simd_level l, const std::uint8_t* elem, const std::uint8_t* scale, std::size_t rows,
                          std::size_t cols, bool columnwise, float* out, bool legacy) noexcept {
  return simd_blk::dispatch(l, cols % (columnwise ? 16 : 32) == 0, [&](auto k) {
    using K = typename decltype(k)::mx_te;
    columnwise ? K::dequantize_cols(elem, scale, rows, cols, out, legacy)
               : K::dequantize(elem, scale, rows * cols / 32, out, legacy);
  });
}
}  // namespace te_e4m3

namespace ocp {
/// OCP MX (ocp_floor) MXFP8 quantize (E = float8_e4m3fn or float8_e5m2) of n floats (n a multiple
/// of 32), as te_e4m3::quantize_at rowwise.
template <class E>
inline bool quantize_at(simd_level l, const float* in, std::size_t n, std::uint8_t* elem,
                        std::uint8_t* scale) noexcept {
  return simd_blk::dispatch(l, n % 32 == 0,
                            [&](auto k) { decltype(k)::template mx_ocp_quantize<E>(in, n / 32, elem, scale); });
}
}  // namespace ocp
}  // namespace mx

namespace fp8_128 {
/// DeepSeek-V3 fine-grained FP8 quantize, rowwise 1x128 (n a multiple of 128): per block s =
/// scale(fmax-fold amax of |x|, NaN ignored) into scales, elements E4M3 satfinite RNE of the float
/// quotient x / s (as deepseek_fp8_recipe). False (nothing written) as the others.
template <class ScaleFn>
inline bool quantize_at(simd_level l, const float* in, std::size_t n, const ScaleFn& scale, std::uint8_t* elem,
                        float* scales) noexcept {
  return simd_blk::dispatch(l, n % 128 == 0,
                            [&](auto k) { decltype(k)::fp8_128_quantize(in, n / 128, scale, elem, scales); });
}
}  // namespace fp8_128

namespace nvfp4 {
/// The NVFP4 block layouts of the kernels: 1x16, 16x1 and 16x16 tiles.
enum class layout : unsigned char { rows16, cols16, tiles16 };

/// NVFP4 (te / te_legacy) quantize of rows x cols floats (cols a multiple of 16) with S_enc
/// p.s_enc in blocks of lay (the last block row may be shorter): scales row-major over the block
/// grid; nearest-even, or stochastic (sr; not tiles16) with element k = i * cols + j rounded with
/// the random word counter_bits(seed, k) >> 32. False (nothing written) as the others.
inline bool quantize_at(simd_level l, const float* in, std::size_t rows, std::size_t cols, layout lay, bool sr,
                        const nvfp4_fast_params& p, std::uint64_t seed, std::uint8_t* elem,
                        std::uint8_t* scale) noexcept {
  return simd_blk::dispatch(l, cols % 16 == 0 && !(sr && lay == layout::tiles16), [&](auto k) {
    using K = typename decltype(k)::nvfp4;
    if (lay == layout::tiles16) {
      K::quantize_tiles(in, rows, cols, p, elem, scale);
    } else if (lay == layout::cols16) {
      sr ? K::template quantize_cols<true>(in, rows, cols, p, seed, elem, scale)
         : K::template quantize_cols<false>(in, rows, cols, p, 0, elem, scale);
    } else {
      sr ? K::quantize_sr(in, rows * cols / 16, p, seed, elem, scale) : K::quantize(in, rows * cols / 16, p, elem, scale);
    }
  });
}
/// NVFP4 (te order) dequantize of rows x cols elements (cols a multiple of 16) with s_dec =
/// float(1 / S_enc), scale codes below 0x7F; as quantize_at.
inline bool dequantize_at(simd_level l, const std::uint8_t* elem, const std::uint8_t* scale, std::size_t rows,
                          std::size_t cols, layout lay, float s_dec, float* out) noexcept {
  return simd_blk::dispatch(l, cols % 16 == 0, [&](auto k) {
    using K = typename decltype(k)::nvfp4;
    if (lay == layout::cols16) {
      K::dequantize_cols(elem, scale, rows, cols, s_dec, out);
    } else if (lay == layout::rows16) {
      K::dequantize(elem, scale, rows * cols / 16, s_dec, out);
    } else {  // each row of a tile row: a rowwise tensor with the tile row's scales
      for (std::size_t i = 0; i < rows; ++i)
        K::dequantize(elem + i * cols, scale + (i / 16) * (cols / 16), cols / 16, s_dec, out + i * cols);
    }
  });
}
}  // namespace nvfp4

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_SIMD_BLOCK_SCALING_HPP
