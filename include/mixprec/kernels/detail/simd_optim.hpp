// SPDX-License-Identifier: MIT
// mixprec/kernels/detail/simd_optim.hpp — x86 fast paths of the optimizer steps (kernels/optim.hpp), host only.
//
// What: the Adam/AdamW and SGD loops of kernels/optim.hpp for W = G = S = T with T float, half or
// bfloat16 (C = float), vectorised: every PyTorch tensor op is one IEEE float vector op (add, sub,
// mul, div, sqrt and fma are correctly rounded lane by lane, exactly as the scalar ieee::*_rn
// ops) followed by a round-to-nearest-even to T (half: vcvtps2ph imm 0; bfloat16: the integer
// form (u + 0x7fff + lsb) & 0xffff0000, NaNs quieted as mixprec does, or with AVX-512-BF16
// vcvtne2ps2bf16 where no subnormal can reach it). The final write of a
// half/bfloat16 parameter in rounding::stochastic draws counter_rng(seed) at offset + i for
// element i, the same bits the scalar path uses, and rounds with the same rule as
// detail::pack: away from zero iff (discarded fraction as 32 bits) + bits >= 2^32.
// Contract: the same bits as the portable loop for every input (NaN, infinity, subnormal, zero
// included); tests/test_optim_simd.cpp compares the two on every variant. Other rounding modes,
// mixed dtypes and double take the portable loop. A model copy of float, half or bfloat16 is
// written by the vector loop, other copy types by a scalar loop over the block just written.
// Chosen at compile time: AVX-512 F/BW/VL (DQ's vpmullq, BF16's vcvtne2ps2bf16 when present),
// else AVX2 + FMA + F16C, else none. MIXPREC_NO_SIMD compiles the portable path only.
// Example: built with -march=native, adam_step(exec::seq, span<bfloat16>(p), ...) runs
// simd_optim::adam over blocks of 2 vectors and the portable loop over the last n % 32 elements.
#ifndef MIXPREC_DETAIL_SIMD_OPTIM_HPP
#define MIXPREC_DETAIL_SIMD_OPTIM_HPP

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../../core/config.hpp"
#include "../../core/round_to.hpp"
#include "../../core/rounding.hpp"
#include "../../core/types.hpp"

#if !defined(MIXPREC_NO_SIMD) && !defined(__CUDA_ARCH__) && (defined(__x86_64__) || defined(_M_X64))
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)
#define MIXPREC_OPTIM_AVX512 1
#elif defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#define MIXPREC_OPTIM_AVX2 1
#endif
#endif
#if defined(MIXPREC_OPTIM_AVX512) || defined(MIXPREC_OPTIM_AVX2)
#define MIXPREC_OPTIM_SIMD 1
#include "../../simd/x86.hpp"
#endif

// The AVX-512 generator's helpers are forced inline: GCC 12 -O2 out-of-lined next16() from a
// loop that called it in a few places, 10-20 % slower. (Not the AVX2 ones: forced inline there,
// the nearest-even steps measured 10-35 % slower, see bench/README.md.)
#if defined(__GNUC__) || defined(__clang__)
#define MIXPREC_OPTIM_INLINE __attribute__((always_inline)) inline
#elif defined(_MSC_VER)
#define MIXPREC_OPTIM_INLINE __forceinline
#else
#define MIXPREC_OPTIM_INLINE inline
#endif

namespace mixprec {
namespace detail {

/// The optimizer fast path compiled in (for benchmarks and logs).
inline const char* simd_optim_path() noexcept {
#if defined(MIXPREC_OPTIM_AVX512) && defined(__AVX512DQ__)
  return "avx512 (f/bw/vl/dq)";
#elif defined(MIXPREC_OPTIM_AVX512)
  return "avx512 (f/bw/vl)";
#elif defined(MIXPREC_OPTIM_AVX2)
  return "avx2 + fma + f16c";
#else
  return "none (portable)";
#endif
}

namespace simd_optim {

template <class T>
constexpr bool lane_type =
    std::is_same<T, float>::value || std::is_same<T, half>::value || std::is_same<T, bfloat16>::value;

/// The fast path handles W = G = S = T for T in {float, half, bfloat16}.
template <class W, class G, class S>
constexpr bool supported = lane_type<W> && std::is_same<W, G>::value && std::is_same<W, S>::value;

/// ...and, for half/bfloat16 parameters, the final write in nearest-even or stochastic.
template <class W>
constexpr bool mode_supported(rounding mode) noexcept {
  return std::is_same<W, float>::value || mode == rounding::nearest_even || mode == rounding::stochastic;
}

#if defined(MIXPREC_OPTIM_SIMD)

template <class T>
struct tag {};

#if defined(MIXPREC_OPTIM_AVX512)
struct isa {
  static constexpr std::size_t N = 16;
  using vf = __m512;
  using vi = __m512i;
  static vf set1(float x) noexcept { return _mm512_set1_ps(x); }
  static vi set1i(std::uint32_t x) noexcept { return _mm512_set1_epi32(static_cast<int>(x)); }
  static vf add(vf a, vf b) noexcept { return _mm512_add_ps(a, b); }
  static vf sub(vf a, vf b) noexcept { return _mm512_sub_ps(a, b); }
  static vf mul(vf a, vf b) noexcept {
    vf r = _mm512_mul_ps(a, b);
    __asm__("" : "+v"(r));  // a product stays a product (never contracted into an fma)
    return r;
  }
  static vf div(vf a, vf b) noexcept { return _mm512_div_ps(a, b); }
  static vf sqrt(vf a) noexcept { return _mm512_sqrt_ps(a); }
  static vf fma(vf a, vf b, vf c) noexcept { return _mm512_fmadd_ps(a, b, c); }
  static vi bits(vf x) noexcept { return _mm512_castps_si512(x); }
  static vf from_bits(vi x) noexcept { return _mm512_castsi512_ps(x); }

  static vf load(const float* p) noexcept { return _mm512_loadu_ps(p); }
  static vf load(const half* p) noexcept {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  // bfloat16 <-> float lanes by one vpermw each way (word j <-> the high word of lane j).
  static vf load(const bfloat16* p) noexcept {
    const __m512i idx = _mm512_set_epi16(15, 0, 14, 0, 13, 0, 12, 0, 11, 0, 10, 0, 9, 0, 8, 0, 7, 0, 6, 0, 5, 0, 4, 0,
                                         3, 0, 2, 0, 1, 0, 0, 0);
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    return _mm512_castsi512_ps(_mm512_maskz_permutexvar_epi16(0xAAAAAAAAu, idx, _mm512_castsi256_si512(h)));
  }
  static __m256i high_words(vi x) noexcept {
    const __m512i idx = _mm512_set_epi16(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 31, 29, 27, 25, 23, 21, 19, 17,
                                         15, 13, 11, 9, 7, 5, 3, 1);
    return _mm512_castsi512_si256(_mm512_permutexvar_epi16(idx, x));
  }
  static __m256i half_bits(vf x) noexcept {
    // the masked form: GCC's -O0 macro of the unmasked one trips -Wsign-conversion in user code
    return _mm512_maskz_cvtps_ph(static_cast<__mmask16>(0xffff), x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  static vf half_to_float(__m256i h) noexcept { return _mm512_cvtph_ps(h); }
  static vi widen16(__m256i h) noexcept { return _mm512_cvtepu16_epi32(h); }
  static __m256i narrow32(vi x) noexcept { return _mm512_cvtepi32_epi16(x); }
  static void store16(void* p, __m256i h) noexcept { _mm256_storeu_si256(static_cast<__m256i*>(p), h); }
  static vi load_words(const void* p) noexcept { return _mm512_loadu_si512(p); }
  static void store_words(void* p, vi x) noexcept { _mm512_storeu_si512(p, x); }
  static vi blend_nan(vf x, vi a, vi nan_lanes) noexcept {  // nan_lanes where x is NaN, else a
    return _mm512_mask_blend_epi32(_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), a, nan_lanes);
  }
  static vi add32(vi a, vi b) noexcept { return _mm512_add_epi32(a, b); }
  static vi and32(vi a, vi b) noexcept { return _mm512_and_si512(a, b); }
  static vi or32(vi a, vi b) noexcept { return _mm512_or_si512(a, b); }
  static vi xor32(vi a, vi b) noexcept { return _mm512_xor_si512(a, b); }
  static vi srli(vi a, int s) noexcept { return _mm512_srli_epi32(a, static_cast<unsigned>(s)); }
  static vi srlv(vi a, vi s) noexcept { return _mm512_srlv_epi32(a, s); }
  static vi sllv(vi a, vi s) noexcept { return _mm512_sllv_epi32(a, s); }
  static vi sub32(vi a, vi b) noexcept { return _mm512_sub_epi32(a, b); }
  static vi max_u32(vi a, vi b) noexcept { return _mm512_max_epu32(a, b); }
  static vi max_i32(vi a, vi b) noexcept { return _mm512_max_epi32(a, b); }
  static vi slli(vi a, int s) noexcept { return _mm512_slli_epi32(a, static_cast<unsigned>(s)); }
  static vi min_u32(vi a, vi b) noexcept { return _mm512_min_epu32(a, b); }
  /// a + carry(a_rem + r): the lanes where rem + r overflows 32 bits get one more.
  static vi add_carry(vi a, vi rem, vi r) noexcept {
    const __mmask16 carry = _mm512_cmplt_epu32_mask(_mm512_add_epi32(rem, r), rem);
    return _mm512_mask_add_epi32(a, carry, a, _mm512_set1_epi32(1));
  }

  /// counter_rng's 32-bit outputs for N consecutive counters.
  struct rng_stream {
    __m512i t0, t1, step;
    MIXPREC_OPTIM_INLINE static __m512i mul64(__m512i a, std::uint64_t c) noexcept {
#if defined(__AVX512DQ__)
      return _mm512_mullo_epi64(a, _mm512_set1_epi64(static_cast<long long>(c)));
#else
      const __m512i b = _mm512_set1_epi64(static_cast<long long>(c));
      const __m512i lo = _mm512_mul_epu32(a, b);
      const __m512i cross =
          _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(a, 32), b), _mm512_mul_epu32(a, _mm512_srli_epi64(b, 32)));
      return _mm512_add_epi64(lo, _mm512_slli_epi64(cross, 32));
#endif
    }
    // SplitMix64's output function without its last z ^= z >> 31: of that step, the high 32
    // bits need only the high 32 bits of z (hi(z ^ z >> 31) = hi(z) ^ hi(z) >> 31), done in next().
    MIXPREC_OPTIM_INLINE static __m512i mix(__m512i z) noexcept {
      z = mul64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)), 0xBF58476D1CE4E5B9ull);
      return mul64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)), 0x94D049BB133111EBull);
    }
    /// Lane j of the stream's k-th next() is counter + (k N + j) stride.
    rng_stream(std::uint64_t key, std::uint64_t counter, std::uint64_t stride = 1) noexcept {
      const std::uint64_t g = 0x9E3779B97F4A7C15ull, gs = g * stride;
      const std::uint64_t t = key + (counter + 1) * g;
      const __m512i lanes = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
      t0 = _mm512_add_epi64(_mm512_set1_epi64(static_cast<long long>(t)), mul64(lanes, gs));
      t1 = _mm512_add_epi64(t0, _mm512_set1_epi64(static_cast<long long>(8 * gs)));
      step = _mm512_set1_epi64(static_cast<long long>(16 * gs));
    }
    MIXPREC_OPTIM_INLINE __m512i next() noexcept {
      const __m512i a = mix(t0), b = mix(t1);
      t0 = _mm512_add_epi64(t0, step);
      t1 = _mm512_add_epi64(t1, step);
      // the high 32 bits of each 64-bit lane, in order
      const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
      const __m512i h = _mm512_permutex2var_epi32(a, odd, b);
      return _mm512_xor_si512(h, _mm512_srli_epi32(h, 31));
    }
    /// next() except bit 0 (its final xor skipped): what a rounding that reads bits 1-31 needs.
    MIXPREC_OPTIM_INLINE __m512i next_raw() noexcept {
      const __m512i a = mix(t0), b = mix(t1);
      t0 = _mm512_add_epi64(t0, step);
      t1 = _mm512_add_epi64(t1, step);
      const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
      return _mm512_permutex2var_epi32(a, odd, b);
    }
    /// next() >> 16, cheaper: one vpermt2w picks the top word of each 64-bit lane (next()'s
    /// final xor changes bit 0 only). What the bfloat16 (and, >> 3 more, half) rounding reads.
    MIXPREC_OPTIM_INLINE __m512i next16() noexcept {
      const __m512i a = mix(t0), b = mix(t1);
      t0 = _mm512_add_epi64(t0, step);
      t1 = _mm512_add_epi64(t1, step);
      const __m512i top = _mm512_set_epi16(0, 63, 0, 59, 0, 55, 0, 51, 0, 47, 0, 43, 0, 39, 0, 35, 0, 31, 0, 27, 0, 23,
                                           0, 19, 0, 15, 0, 11, 0, 7, 0, 3);
      return _mm512_maskz_permutex2var_epi16(0x55555555u, a, top, b);
    }
    /// The full values of the last next() / next16() (for the rare paths).
    __m512i last() noexcept {
      rng_stream s = *this;
      s.t0 = _mm512_sub_epi64(t0, step);
      s.t1 = _mm512_sub_epi64(t1, step);
      return s.next();
    }
  };
};
#else  // AVX2 + FMA + F16C
struct isa {
  static constexpr std::size_t N = 8;
  using vf = __m256;
  using vi = __m256i;
  static vf set1(float x) noexcept { return _mm256_set1_ps(x); }
  static vi set1i(std::uint32_t x) noexcept { return _mm256_set1_epi32(static_cast<int>(x)); }
  static vf add(vf a, vf b) noexcept { return _mm256_add_ps(a, b); }
  static vf sub(vf a, vf b) noexcept { return _mm256_sub_ps(a, b); }
  static vf mul(vf a, vf b) noexcept {
    vf r = _mm256_mul_ps(a, b);
    __asm__("" : "+x"(r));  // a product stays a product (never contracted into an fma)
    return r;
  }
  static vf div(vf a, vf b) noexcept { return _mm256_div_ps(a, b); }
  static vf sqrt(vf a) noexcept { return _mm256_sqrt_ps(a); }
  static vf fma(vf a, vf b, vf c) noexcept { return _mm256_fmadd_ps(a, b, c); }
  static vi bits(vf x) noexcept { return _mm256_castps_si256(x); }
  static vf from_bits(vi x) noexcept { return _mm256_castsi256_ps(x); }

  static vf load(const float* p) noexcept { return _mm256_loadu_ps(p); }
  static vf load(const half* p) noexcept { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
  static vf load(const bfloat16* p) noexcept {
    return _mm256_castsi256_ps(
        _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))), 16));
  }
  static __m128i half_bits(vf x) noexcept { return _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static __m128i high_words(vi x) noexcept { return narrow32(_mm256_srli_epi32(x, 16)); }
  static vf half_to_float(__m128i h) noexcept { return _mm256_cvtph_ps(h); }
  static vi widen16(__m128i h) noexcept { return _mm256_cvtepu16_epi32(h); }
  static __m128i narrow32(vi x) noexcept {  // lanes < 2^16
    return _mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packus_epi32(x, x), 0x08));
  }
  static void store16(void* p, __m128i h) noexcept { _mm_storeu_si128(static_cast<__m128i*>(p), h); }
  static vi load_words(const void* p) noexcept { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
  static void store_words(void* p, vi x) noexcept { _mm256_storeu_si256(static_cast<__m256i*>(p), x); }
  static vi blend_nan(vf x, vi a, vi nan_lanes) noexcept {
    return _mm256_castps_si256(
        _mm256_blendv_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(nan_lanes), _mm256_cmp_ps(x, x, _CMP_UNORD_Q)));
  }
  static vi add32(vi a, vi b) noexcept { return _mm256_add_epi32(a, b); }
  static vi and32(vi a, vi b) noexcept { return _mm256_and_si256(a, b); }
  static vi or32(vi a, vi b) noexcept { return _mm256_or_si256(a, b); }
  static vi xor32(vi a, vi b) noexcept { return _mm256_xor_si256(a, b); }
  static vi srli(vi a, int s) noexcept { return _mm256_srli_epi32(a, s); }
  static vi srlv(vi a, vi s) noexcept { return _mm256_srlv_epi32(a, s); }
  static vi sllv(vi a, vi s) noexcept { return _mm256_sllv_epi32(a, s); }
  static vi sub32(vi a, vi b) noexcept { return _mm256_sub_epi32(a, b); }
  static vi max_u32(vi a, vi b) noexcept { return _mm256_max_epu32(a, b); }
  static vi max_i32(vi a, vi b) noexcept { return _mm256_max_epi32(a, b); }
  static vi slli(vi a, int s) noexcept { return _mm256_slli_epi32(a, s); }
  static vi min_u32(vi a, vi b) noexcept { return _mm256_min_epu32(a, b); }
  static vi add_carry(vi a, vi rem, vi r) noexcept {
    const __m256i sign = _mm256_set1_epi32(static_cast<int>(0x80000000u));
    const __m256i sum = _mm256_add_epi32(rem, r);
    // unsigned sum < rem, as a signed comparison of the sign-flipped values; true lanes are -1
    const __m256i carry = _mm256_cmpgt_epi32(_mm256_xor_si256(rem, sign), _mm256_xor_si256(sum, sign));
    return _mm256_sub_epi32(a, carry);
  }

  struct rng_stream {
    __m256i t0, t1, step;
    static __m256i mul64(__m256i a, std::uint64_t c) noexcept {
      // lo(a) lo(c) + (lo(a) hi(c) + hi(a) lo(c)) 2^32: the cross terms by one vpmulld with c's halves swapped
      const __m256i lo = _mm256_mul_epu32(a, _mm256_set1_epi64x(static_cast<long long>(c)));
      const __m256i cross = _mm256_mullo_epi32(a, _mm256_set1_epi64x(static_cast<long long>((c << 32) | (c >> 32))));
      return _mm256_add_epi64(lo, _mm256_slli_epi64(_mm256_add_epi32(cross, _mm256_srli_epi64(cross, 32)), 32));
    }
    // SplitMix64's output function up to the high 32 bits (odd 32-bit slots) of its second
    // product, all that the high half of the result needs (see next()): hi(z * c) =
    // hi(lo(z) lo(c)) + lo(z) hi(c) + hi(z) lo(c) mod 2^32.
    static __m256i mix(__m256i z) noexcept {
      constexpr std::uint64_t c = 0x94D049BB133111EBull;
      z = mul64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 30)), 0xBF58476D1CE4E5B9ull);
      z = _mm256_xor_si256(z, _mm256_srli_epi64(z, 27));
      const __m256i lo_lo = _mm256_mul_epu32(z, _mm256_set1_epi64x(static_cast<long long>(c & 0xffffffffu)));
      const __m256i cross = _mm256_mullo_epi32(  // even slots lo(z) hi(c), odd slots hi(z) lo(c)
          z, _mm256_set1_epi64x(static_cast<long long>((c << 32) | (c >> 32))));
      return _mm256_add_epi32(lo_lo, _mm256_add_epi32(cross, _mm256_slli_epi64(cross, 32)));  // odd slots
    }
    /// Lane j of the stream's k-th next() is counter + (k N + j) stride.
    rng_stream(std::uint64_t key, std::uint64_t counter, std::uint64_t stride = 1) noexcept {
      const std::uint64_t g = 0x9E3779B97F4A7C15ull, gs = g * stride;
      const std::uint64_t t = key + (counter + 1) * g;
      t0 = _mm256_set_epi64x(static_cast<long long>(t + 3 * gs), static_cast<long long>(t + 2 * gs),
                             static_cast<long long>(t + gs), static_cast<long long>(t));
      t1 = _mm256_add_epi64(t0, _mm256_set1_epi64x(static_cast<long long>(4 * gs)));
      step = _mm256_set1_epi64x(static_cast<long long>(8 * gs));
    }
    __m256i next() noexcept {
      const __m256i a = mix(t0), b = mix(t1);
      t0 = _mm256_add_epi64(t0, step);
      t1 = _mm256_add_epi64(t1, step);
      // high halves: [a1 a3 b1 b3 | a5 a7 b5 b7] -> [a1 a3 a5 a7 b1 b3 b5 b7]
      const __m256 hi = _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), _MM_SHUFFLE(3, 1, 3, 1));
      const __m256i h = _mm256_permute4x64_epi64(_mm256_castps_si256(hi), _MM_SHUFFLE(3, 1, 2, 0));
      return _mm256_xor_si256(h, _mm256_srli_epi32(h, 31));
    }
    /// next() except bit 0 (its final xor skipped): what a rounding that reads bits 1-31 needs.
    __m256i next_raw() noexcept {
      const __m256i a = mix(t0), b = mix(t1);
      t0 = _mm256_add_epi64(t0, step);
      t1 = _mm256_add_epi64(t1, step);
      const __m256 hi = _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), _MM_SHUFFLE(3, 1, 3, 1));
      return _mm256_permute4x64_epi64(_mm256_castps_si256(hi), _MM_SHUFFLE(3, 1, 2, 0));
    }
    /// next() >> 16 (its final xor changes bit 0 only).
    __m256i next16() noexcept {
      const __m256i a = mix(t0), b = mix(t1);
      t0 = _mm256_add_epi64(t0, step);
      t1 = _mm256_add_epi64(t1, step);
      const __m256 hi = _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), _MM_SHUFFLE(3, 1, 3, 1));
      return _mm256_srli_epi32(_mm256_permute4x64_epi64(_mm256_castps_si256(hi), _MM_SHUFFLE(3, 1, 2, 0)), 16);
    }
    /// The full values of the last next() / next16() (for the rare paths).
    __m256i last() noexcept {
      rng_stream s = *this;
      s.t0 = _mm256_sub_epi64(t0, step);
      s.t1 = _mm256_sub_epi64(t1, step);
      return s.next();
    }
  };
};
#endif

using vf = isa::vf;
using vi = isa::vi;

/// bfloat16 nearest-even of each lane, as float bits (low 16 bits zero); NaNs quieted.
inline vi bf16_rne_bits(vf x) noexcept {
  const vi u = isa::bits(x);
  const vi lsb = isa::and32(isa::srli(u, 16), isa::set1i(1));
  const vi r = isa::and32(isa::add32(isa::add32(u, isa::set1i(0x7fff)), lsb), isa::set1i(0xffff0000u));
  const vi q = isa::and32(isa::or32(u, isa::set1i(0x00400000)), isa::set1i(0xffff0000u));
  return isa::blend_nan(x, r, q);
}

/// bf16_rne_bits for a lane that is not NaN, or is a quiet NaN whose low 16 bits are zero:
/// no NaN test needed. That covers every result of an arithmetic op whose operands are
/// bfloat16 values, finite constants or such results (x86 ops return a quiet NaN carrying an
/// operand's payload, or the default NaN 0xffc00000), i.e. every rounding in the kernels
/// below except one of a value just loaded (a bfloat16 signalling NaN must be quieted).
inline vi bf16_rne_bits_result(vf x) noexcept {
  const vi u = isa::bits(x);
#if defined(MIXPREC_OPTIM_AVX512)
  const __mmask16 odd = _mm512_test_epi32_mask(u, _mm512_set1_epi32(0x10000));
  vi t = _mm512_add_epi32(u, _mm512_set1_epi32(0x7fff));
  t = _mm512_mask_add_epi32(t, odd, t, _mm512_set1_epi32(1));
  return _mm512_and_si512(t, _mm512_set1_epi32(static_cast<int>(0xffff0000u)));
#else
  const vi lsb = isa::and32(isa::srli(u, 16), isa::set1i(1));
  return isa::and32(isa::add32(isa::add32(u, isa::set1i(0x7fff)), lsb), isa::set1i(0xffff0000u));
#endif
}

/// x rounded to T (nearest even) and read back as float: the value a T tensor holds.
inline vf held(vf x, tag<float>) noexcept { return x; }
inline vf held(vf x, tag<half>) noexcept { return isa::half_to_float(isa::half_bits(x)); }
inline vf held(vf x, tag<bfloat16>) noexcept { return isa::from_bits(bf16_rne_bits(x)); }
template <class T>
inline vf held(vf x) noexcept {
  return held(x, tag<T>{});
}
/// held() for the result of an arithmetic op (see bf16_rne_bits_result).
template <class T>
inline vf held_result(vf x) noexcept {
  if constexpr (std::is_same<T, bfloat16>::value) {
    return isa::from_bits(bf16_rne_bits_result(x));
  } else {
    return held<T>(x);
  }
}

#if defined(MIXPREC_OPTIM_AVX512) && defined(__AVX512BF16__)
#define MIXPREC_OPTIM_BF16_PAIR 1
/// held_result<bfloat16> of a and b by one vcvtne2ps2bf16 and two vpermw. That instruction
/// treats float subnormal inputs as zero: only for lanes that cannot be subnormal.
inline void held_bf16_pair(vf& a, vf& b) noexcept {
  const __m512i p = reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(b, a));  // words 0-15: a, 16-31: b
  const __m512i lo = _mm512_set_epi16(15, 0, 14, 0, 13, 0, 12, 0, 11, 0, 10, 0, 9, 0, 8, 0, 7, 0, 6, 0, 5, 0, 4, 0, 3,
                                      0, 2, 0, 1, 0, 0, 0);
  const __m512i hi = _mm512_add_epi16(lo, _mm512_set1_epi32(16 << 16));
  a = _mm512_castsi512_ps(_mm512_maskz_permutexvar_epi16(0xAAAAAAAAu, lo, p));
  b = _mm512_castsi512_ps(_mm512_maskz_permutexvar_epi16(0xAAAAAAAAu, hi, p));
}
#endif

/// Stores x rounded to T, nearest even (exact when x already holds a T value).
inline void store(float* p, vf x) noexcept {
#if defined(MIXPREC_OPTIM_AVX512)
  _mm512_storeu_ps(p, x);
#else
  _mm256_storeu_ps(p, x);
#endif
}
inline void store(half* p, vf x) noexcept { isa::store16(p, isa::half_bits(x)); }
inline void store(bfloat16* p, vf x) noexcept { isa::store16(p, isa::high_words(bf16_rne_bits(x))); }
/// Stores x, which holds T values (a cheaper narrowing for bfloat16).
inline void store_held(float* p, vf x) noexcept { store(p, x); }
inline void store_held(half* p, vf x) noexcept { store(p, x); }
inline void store_held(bfloat16* p, vf x) noexcept { isa::store16(p, isa::high_words(isa::bits(x))); }

/// Stochastic rounding of each lane to T with the random bits r (rounding::stochastic,
/// overflow::ieee), read back as float.
inline vf stochastic(vf x, vi r, tag<bfloat16>) noexcept {
  // The discarded 16 bits plus r's top 16 bits carry into the kept part exactly when
  // (discarded << 16) + r >= 2^32 (r's low 16 bits cannot add a carry). Overflow carries into
  // the infinity pattern, as the IEEE policy rounds away.
  const vi u = isa::bits(x);
  const vi r16 = isa::add32(u, isa::srli(r, 16));
  const vi rounded = isa::and32(r16, isa::set1i(0xffff0000u));
  const vi q = isa::and32(isa::or32(u, isa::set1i(0x00400000)), isa::set1i(0xffff0000u));
  return isa::from_bits(isa::blend_nan(x, rounded, q));
}
/// Whether every lane of x is zero or at least 2^-14 in magnitude (infinity included; NaN not).
inline bool all_half_normal_or_zero(vf x) noexcept {
  const vf ax = isa::from_bits(isa::and32(isa::bits(x), isa::set1i(0x7fffffffu)));
#if defined(MIXPREC_OPTIM_AVX512)
  const __mmask16 ok = static_cast<__mmask16>(_mm512_cmp_ps_mask(ax, _mm512_set1_ps(0x1p-14f), _CMP_GE_OQ) |
                                              _mm512_cmp_ps_mask(ax, _mm512_setzero_ps(), _CMP_EQ_OQ));
  return ok == 0xffff;
#else
  const __m256 ok = _mm256_or_ps(_mm256_cmp_ps(ax, _mm256_set1_ps(0x1p-14f), _CMP_GE_OQ),
                                 _mm256_cmp_ps(ax, _mm256_setzero_ps(), _CMP_EQ_OQ));
  return _mm256_movemask_ps(ok) == 0xff;
#endif
}

/// Whether some lane of x is NaN.
inline bool any_nan(vf x) noexcept {
#if defined(MIXPREC_OPTIM_AVX512)
  return _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q) != 0;
#else
  return _mm256_movemask_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q)) != 0;
#endif
}

/// Stochastic rounding to half of lanes that are not NaN, as a float whose conversion to half is
/// exact (or infinity past 65504); r: counter_rng's bits (next()). Half's quantum is the last
/// d = max(13, 126 - eb) bits of the float (eb its biased exponent), so where d <= 23 (at least
/// 2^-24) the rule is the bfloat16 form with d for 16: the truncation of u + (r >> (32 - d)),
/// the same carry as stochastic_half_general's (rem is the discarded d bits left-aligned,
/// exactly). Below 2^-24 the kept part is 0 and the result is 0 or 2^-24 (the sign kept): the
/// carry of stochastic_half_general's rem (the significand shifted right by d - 32 bits where
/// d > 32, so r's bit 0 counts) plus r.
inline vf stochastic_half_wide(vf x, vi r) noexcept {
  const vi u = isa::bits(x);
  const vi a = isa::and32(u, isa::set1i(0x7fffffffu));
  const vi eb = isa::srli(a, 23);
  // 32 - d = min(eb - 94, 19), unsigned: below 2^-24 (eb < 103) this lane is replaced below
  const vi keep = isa::min_u32(isa::sub32(eb, isa::set1i(94)), isa::set1i(19));
  const vi mask = isa::sllv(isa::set1i(0xffffffffu), isa::sub32(isa::set1i(32), keep));
  const vi t = isa::and32(isa::add32(u, isa::srlv(r, keep)), mask);
  // below 2^-24 (zero included: rem 0, no carry): as stochastic_half_general
  const vi ebp = isa::max_u32(eb, isa::set1i(1));
  const vi m24 = isa::or32(isa::and32(a, isa::set1i(0x7fffffu)), isa::slli(isa::min_u32(eb, isa::set1i(1)), 23));
  const vi shift = isa::sub32(isa::set1i(126), ebp);  // 24..125
  const vi rem = isa::or32(isa::sllv(m24, isa::sub32(isa::set1i(32), shift)), isa::srlv(m24, isa::sub32(shift, isa::set1i(32))));
  const vi up = isa::add_carry(isa::set1i(0), rem, r);  // 0 or 1
  const vi tiny = isa::or32(isa::and32(u, isa::set1i(0x80000000u)),
                            isa::and32(isa::sub32(isa::set1i(0), up), isa::set1i(0x33800000u)));  // +-0 or +-2^-24
#if defined(MIXPREC_OPTIM_AVX512)
  return isa::from_bits(_mm512_mask_blend_epi32(_mm512_cmplt_epu32_mask(a, _mm512_set1_epi32(0x33800000)), t, tiny));
#else
  const __m256i below = _mm256_cmpgt_epi32(_mm256_set1_epi32(0x33800000), a);  // a <= 0x7fffffff: signed is fine
  return isa::from_bits(_mm256_blendv_epi8(t, tiny, below));
#endif
}

/// The general case of stochastic(x, r, tag<half>) below, out of line (rare: half subnormals, NaN).
MIXPREC_NOINLINE inline vf stochastic_half_general(vf x, vi r) noexcept {
  // detail::pack for half from a float: eb = biased exponent (at least 1), m24 the significand
  // with its implicit bit, quantum exponent max(E, -14): shift = max(13, 126 - eb), the kept
  // integer m24 >> shift, code = integer + (max(eb, 113) - 113) << 10, the discarded fraction
  // left-aligned in 32 bits (truncated), carry as for bfloat16, codes past 0x7bff -> infinity.
  const vi u = isa::bits(x);
  const vi a = isa::and32(u, isa::set1i(0x7fffffffu));
  const vi sign = isa::and32(isa::srli(u, 16), isa::set1i(0x8000u));
  const vi eb = isa::srli(a, 23);
  const vi ebp = isa::max_u32(eb, isa::set1i(1));
  const vi m24 = isa::or32(isa::and32(a, isa::set1i(0x7fffffu)), isa::slli(isa::min_u32(eb, isa::set1i(1)), 23));
  const vi shift = isa::max_i32(isa::set1i(13), isa::sub32(isa::set1i(126), ebp));  // signed: 126 - eb < 0 for large x
  const vi integer = isa::srlv(m24, shift);
  const vi biased = isa::slli(isa::sub32(isa::max_u32(ebp, isa::set1i(113)), isa::set1i(113)), 10);
  // Counts past 31 give 0 in vpsllvd/vpsrlvd: one of the two terms is always 0 except at 32.
  const vi rem = isa::or32(isa::sllv(m24, isa::sub32(isa::set1i(32), shift)), isa::srlv(m24, isa::sub32(shift, isa::set1i(32))));
  vi code = isa::add_carry(isa::add32(integer, biased), rem, r);
  code = isa::or32(isa::min_u32(code, isa::set1i(0x7c00u)), sign);
  code = isa::blend_nan(x, code, isa::widen16(isa::half_bits(x)));
  return isa::half_to_float(isa::narrow32(code));
}
inline vf stochastic(vf x, vi r, tag<half>) noexcept {
  if (all_half_normal_or_zero(x)) {
    // Half's quantum is float's last 13 bits here: the bfloat16 form with 13 for 16 (a carry
    // past 65504 gives a float that held() sends to infinity, as the IEEE policy does).
    const vi t = isa::and32(isa::add32(isa::bits(x), isa::srli(r, 19)), isa::set1i(0xffffe000u));
    return held<half>(isa::from_bits(t));
  }
  if (!any_nan(x)) return held<half>(stochastic_half_wide(x, r));
  return stochastic_half_general(x, r);
}

/// T's 16-bit codes of a vector, packed (what store16 writes).
using vh = decltype(isa::half_bits(vf{}));

/// held_result<T>(x) that keeps T's bits for the store (half: the vcvtps2ph result, not
/// converted a second time by the store).
template <class T>
struct kept {
  vf f;
};
template <>
struct kept<half> {
  vf f;
  vh h;
};
template <class T>
inline kept<T> keep(vf x) noexcept {
  if constexpr (std::is_same<T, half>::value) {
    const vh h = isa::half_bits(x);
    return {isa::half_to_float(h), h};
  } else {
    return {held_result<T>(x)};
  }
}
inline void store(float* p, const kept<float>& x) noexcept { store(p, x.f); }
inline void store(bfloat16* p, const kept<bfloat16>& x) noexcept { store_held(p, x.f); }
inline void store(half* p, const kept<half>& x) noexcept { isa::store16(p, x.h); }

/// Stores the final parameter value x, an op's result, rounded to W (nearest even, or
/// stochastic with rng's next bits) and returns the stored value as float when Copy (for the
/// model copy; otherwise x). bfloat16: the high words of u + 0x7fff + lsb (nearest even) or of
/// u + (r >> 16) (stochastic), no NaN test: such an x that is NaN is quiet with its low 16 bits
/// zero (see bf16_rne_bits_result), which neither sum changes. half, stochastic: the
/// truncation of u + (r >> 19) where every lane is zero or a half normal, else
/// stochastic_half_wide where no lane is NaN, else stochastic_half_general with the full bits;
/// stored by vcvtps2ph (exact, or infinity past 65504). In the loops, a vector with a NaN lane is
/// stored by the fast rule and rewritten after its chunk (half_fixups).
template <bool Copy, class Rng>
inline vf store_final(float* p, vf x, bool, Rng&) noexcept {
  store(p, x);
  return x;
}
template <bool Copy, class Rng>
inline vf store_final(bfloat16* p, vf x, bool sr, Rng& rng) noexcept {
  const vi u = isa::bits(x);
  vi t;
  if (sr) {
    t = isa::add32(u, rng.next16());
  } else {
#if defined(MIXPREC_OPTIM_AVX512)
    const __mmask16 odd = _mm512_test_epi32_mask(u, _mm512_set1_epi32(0x10000));
    t = _mm512_add_epi32(u, _mm512_set1_epi32(0x7fff));
    t = _mm512_mask_add_epi32(t, odd, t, _mm512_set1_epi32(1));
#else
    t = isa::add32(isa::add32(u, isa::set1i(0x7fff)), isa::and32(isa::srli(u, 16), isa::set1i(1)));
#endif
  }
  isa::store16(p, isa::high_words(t));
  if constexpr (Copy) {
    return isa::from_bits(isa::and32(t, isa::set1i(0xffff0000u)));
  } else {
    return x;
  }
}

/// The vectors of a chunk whose stochastic half write needs stochastic_half_general (a NaN
/// lane): stored by the fast rule in the loop (no call there: a call in the loop cost 7 %),
/// recorded here and rewritten by fix_half after the chunk.
struct half_fixups {
  static constexpr std::size_t R = 32;  // vectors per chunk
  std::size_t n = 0;
  std::size_t at[R];
  vf x[R];
};
template <class M>
MIXPREC_NOINLINE void fix_half(half_fixups& f, half* p, M* copy, std::uint64_t key, std::uint64_t offset) noexcept {
  for (std::size_t j = 0; j < f.n; ++j) {
    const std::size_t at = f.at[j];
    isa::rng_stream s(key, offset + at);
    isa::store16(p + at, isa::half_bits(stochastic_half_general(f.x[j], s.next())));
    if (copy != nullptr) {
      for (std::size_t k = at; k < at + isa::N; ++k) {
        copy[k] = round_to<M>(p[k], rounding::nearest_even, overflow::ieee, 0u);
      }
    }
  }
  f.n = 0;
}
template <bool Copy, class Rng>
inline vf store_final(half* p, vf x, bool sr, Rng& rng, half_fixups& fix, std::size_t at) noexcept {
  vh h;
  if (sr) {
    const vi r = rng.next_raw();
    const vi t = isa::and32(isa::add32(isa::bits(x), isa::srli(r, 19)), isa::set1i(0xffffe000u));
    h = isa::half_bits(isa::from_bits(t));
    if (MIXPREC_UNLIKELY(!all_half_normal_or_zero(x))) {
      if (!any_nan(x)) {
        h = isa::half_bits(stochastic_half_wide(x, isa::xor32(r, isa::srli(r, 31))));  // next()'s bit 0
      } else {
        fix.at[fix.n] = at;
        fix.x[fix.n] = x;
        ++fix.n;
      }
    }
  } else {
    h = isa::half_bits(x);
  }
  isa::store16(p, h);
  if constexpr (Copy) {
    return isa::half_to_float(h);
  } else {
    return x;
  }
}

/// model_copy[i..i+N) = round_to<M>(params[i..i+N)), p the parameters' values as float.
template <class M, class W>
inline void store_copy(M* copy, const W* params, std::size_t i, vf p) noexcept {
  if constexpr (lane_type<M>) {
    if constexpr (std::is_same<M, W>::value) {
      store_held(copy + i, p);
    } else {
      store(copy + i, p);
    }
  } else {
    for (std::size_t k = i; k < i + isa::N; ++k) {
      copy[k] = round_to<M>(params[k], rounding::nearest_even, overflow::ieee, 0u);
    }
  }
}

// The loops below work on K = 2 vectors at a time, each statement written for both (the two
// dependency chains interleaved: the chains are long, div/sqrt/convert latencies, and one
// vector per iteration leaves the out-of-order window short of independent work).
constexpr std::size_t K = 2;
#define MIXPREC_OPTIM_EACH(...)    \
  {                                \
    {                              \
      constexpr std::size_t k = 0; \
      __VA_ARGS__;                 \
    }                              \
    {                              \
      constexpr std::size_t k = 1; \
      __VA_ARGS__;                 \
    }                              \
  }

// A block is K N consecutive elements, held as vector k = elements [k N, k N + N); with AVX2,
// bfloat16 blocks (K N words) as vector 0 = the even elements and vector 1 = the odd ones: a
// shift and a mask from the loaded words, an or of a shift to store them, 8 % faster there than
// widening and narrowing (with AVX-512, one vpermw each way, 7 % slower). Every op is lane-wise,
// so only the loads, the stores, the random bits (two streams of stride 2) and the model copy
// see the layout.
template <class T>
#if defined(MIXPREC_OPTIM_AVX512)
constexpr bool even_odd = false;
#else
constexpr bool even_odd = std::is_same<T, bfloat16>::value;
#endif

template <class T>
inline void load_block(const T* p, vf (&x)[K]) noexcept {
  if constexpr (even_odd<T>) {
    const vi u = isa::load_words(p);
    x[0] = isa::from_bits(isa::slli(u, 16));
    x[1] = isa::from_bits(isa::and32(u, isa::set1i(0xffff0000u)));
  } else {
    x[0] = isa::load(p);
    x[1] = isa::load(p + isa::N);
  }
}
/// The words of a bfloat16 block from its even and odd lanes (the kept halves of e and o).
inline vi block_words(vi e, vi o) noexcept {
#if defined(MIXPREC_OPTIM_AVX512)
  return _mm512_ternarylogic_epi32(_mm512_srli_epi32(e, 16), o, _mm512_set1_epi32(static_cast<int>(0xffff0000u)), 0xf8);
#else
  return isa::or32(isa::srli(e, 16), isa::and32(o, isa::set1i(0xffff0000u)));
#endif
}
template <class T>
inline void store_block(T* p, const kept<T> (&x)[K]) noexcept {
  if constexpr (even_odd<T>) {
    isa::store_words(p, block_words(isa::bits(x[0].f), isa::bits(x[1].f)));
  } else {
    store(p, x[0]);
    store(p + isa::N, x[1]);
  }
}

/// The random streams of a block: one, or the even and the odd elements' (stride 2).
template <class T, bool EvenOdd = even_odd<T>>
struct block_rng {
  isa::rng_stream s[1];
  block_rng(std::uint64_t key, std::uint64_t counter) noexcept : s{isa::rng_stream(key, counter)} {}
};
template <class T>
struct block_rng<T, true> {
  isa::rng_stream s[2];
  block_rng(std::uint64_t key, std::uint64_t counter) noexcept
      : s{isa::rng_stream(key, counter, 2), isa::rng_stream(key, counter + 1, 2)} {}
};

/// store_final for a block (x as load_block holds it); with Copy, x becomes the stored values.
template <bool Copy, class T>
inline void store_final_block(T* p, vf (&x)[K], bool sr, block_rng<T>& rng, half_fixups& fix, std::size_t at) noexcept {
  if constexpr (even_odd<T>) {
    vi t[K];
    for (std::size_t k = 0; k < K; ++k) {
      const vi u = isa::bits(x[k]);
      if (sr) {
        t[k] = isa::add32(u, rng.s[k].next16());
      } else {
#if defined(MIXPREC_OPTIM_AVX512)
        const __mmask16 odd = _mm512_test_epi32_mask(u, _mm512_set1_epi32(0x10000));
        t[k] = _mm512_add_epi32(u, _mm512_set1_epi32(0x7fff));
        t[k] = _mm512_mask_add_epi32(t[k], odd, t[k], _mm512_set1_epi32(1));
#else
        t[k] = isa::add32(isa::add32(u, isa::set1i(0x7fff)), isa::and32(isa::srli(u, 16), isa::set1i(1)));
#endif
      }
    }
    isa::store_words(p, block_words(t[0], t[1]));
    if constexpr (Copy) {
      for (std::size_t k = 0; k < K; ++k) x[k] = isa::from_bits(isa::and32(t[k], isa::set1i(0xffff0000u)));
    }
  } else if constexpr (std::is_same<T, half>::value) {
    x[0] = store_final<Copy>(p, x[0], sr, rng.s[0], fix, at);
    x[1] = store_final<Copy>(p + isa::N, x[1], sr, rng.s[0], fix, at + isa::N);
  } else {
    x[0] = store_final<Copy>(p, x[0], sr, rng.s[0]);
    x[1] = store_final<Copy>(p + isa::N, x[1], sr, rng.s[0]);
  }
}

/// store_copy for a block: copy[i..i+K N) = round_to<M>(params[i..i+K N)), x the stored
/// parameters as load_block holds them.
template <class M, class W>
inline void store_copy_block(M* copy, const W* params, std::size_t i, const vf (&x)[K]) noexcept {
  if constexpr (!even_odd<W>) {
    store_copy(copy, params, i, x[0]);
    store_copy(copy, params, i + isa::N, x[1]);
  } else if constexpr (std::is_same<M, W>::value) {
    isa::store_words(copy + i, block_words(isa::bits(x[0]), isa::bits(x[1])));
  } else {
    for (std::size_t k = i; k < i + K * isa::N; ++k) {
      copy[k] = round_to<M>(params[k], rounding::nearest_even, overflow::ieee, 0u);
    }
  }
}

/// The Adam/AdamW loop of optim_impl::adam_body over whole vectors from begin; returns where
/// it stopped (the caller's scalar loop does the rest). Final: 0 nearest even, 1 stochastic
/// (each its own loop, with AVX-512: 2-7 % faster on Zen 4), 2 the mode read at run time (the
/// AVX2 build: there, the split loops measured 10-35 % slower on the nearest-even steps).
template <bool Decoupled, class T, class M, int Final, class Body>
std::size_t adam_loop(const Body& b, std::size_t begin, std::size_t end) noexcept {
  using V = isa;
  constexpr std::size_t N = V::N;
  // the pointers as locals: the stores below could alias b, and would make the loop reload them
  T* const p_ = b.p;
  const T* const g_ = b.g;
  T* const m_ = b.m;
  T* const v_ = b.v;
  M* const copy_ = b.copy;
  const vf decay = V::set1(b.decay), wd_alpha = V::set1(b.wd_alpha);
  const vf w = V::set1(b.beta1_weight.w), w1 = V::set1(b.beta1_weight.w_minus_1);
  const vf beta2 = V::set1(b.beta2), omb2 = V::set1(b.one_minus_beta2), bc2 = V::set1(b.bc2_sqrt);
  const vf eps = V::set1(b.eps), nss = V::set1(b.neg_step_size);
  const bool small = b.beta1_weight.small, wd = b.weight_decay;
  const bool sr =
      Final == 2 ? !std::is_same<T, float>::value && b.final_round.mode == rounding::stochastic : Final == 1;
  // The denominator's roundings can take held_bf16_pair (no subnormal reaches them); not with
  // stochastic rounding, where it does not pay (0.85 ns per element without, 0.87-0.90 with, on
  // Zen 4).
  [[maybe_unused]] const bool pair = !sr && b.bc2_sqrt <= 1.0f && (detail::exact_eq(b.eps, 0.0f) || b.eps >= 0x1p-126f);
  block_rng<T> rng(b.final_round.rng.splitmix().key(), b.final_round.offset + begin);
  half_fixups fix;
  std::size_t i = begin;
  for (; i + K * N <= end;) {
    const std::size_t stop =
        std::is_same<T, half>::value && sr && end - i > half_fixups::R * N ? i + half_fixups::R * N : end;
    for (; i + K * N <= stop; i += K * N) {
      vf pc[K], gc[K], m0[K], d[K], p_new[K];
      kept<T> m_new[K], v_new[K];
      {
        load_block(p_ + i, pc);
        load_block(g_ + i, gc);
        if (wd) {
          if constexpr (Decoupled) {
            MIXPREC_OPTIM_EACH(pc[k] = held_result<T>(V::mul(pc[k], decay)))
          } else {
            MIXPREC_OPTIM_EACH(gc[k] = held_result<T>(V::fma(pc[k], wd_alpha, gc[k])))
          }
        }
        load_block(m_ + i, m0);
        MIXPREC_OPTIM_EACH(d[k] = V::sub(gc[k], m0[k]))
        if (small) {
          MIXPREC_OPTIM_EACH(m_new[k] = keep<T>(V::fma(w, d[k], m0[k])))
        } else {
          MIXPREC_OPTIM_EACH(m_new[k] = keep<T>(V::fma(w1, d[k], gc[k])))
        }
        load_block(v_ + i, d);
        MIXPREC_OPTIM_EACH(d[k] = held_result<T>(V::mul(d[k], beta2)))
        MIXPREC_OPTIM_EACH(v_new[k] = keep<T>(V::fma(V::mul(omb2, gc[k]), gc[k], d[k])))
  #if defined(MIXPREC_OPTIM_BF16_PAIR)
        if (std::is_same<T, bfloat16>::value && pair) {
          // sqrt of a bfloat16 value, that over bc2 <= 1, that plus eps (0 or normal): never subnormal
          MIXPREC_OPTIM_EACH(d[k] = V::sqrt(v_new[k].f))
          held_bf16_pair(d[0], d[1]);
          MIXPREC_OPTIM_EACH(d[k] = V::div(d[k], bc2))
          held_bf16_pair(d[0], d[1]);
          MIXPREC_OPTIM_EACH(d[k] = V::add(d[k], eps))
          held_bf16_pair(d[0], d[1]);
        } else
  #endif
        {
          MIXPREC_OPTIM_EACH(d[k] = held_result<T>(V::sqrt(v_new[k].f)))
          MIXPREC_OPTIM_EACH(d[k] = held_result<T>(V::div(d[k], bc2)))
          MIXPREC_OPTIM_EACH(d[k] = held_result<T>(V::add(d[k], eps)))
        }
        MIXPREC_OPTIM_EACH(p_new[k] = V::add(pc[k], V::div(V::mul(nss, m_new[k].f), d[k])))
      }
      store_block(m_ + i, m_new);
      store_block(v_ + i, v_new);
      if (copy_ == nullptr) {
        store_final_block<false>(p_ + i, p_new, sr, rng, fix, i);
      } else {
        store_final_block<true>(p_ + i, p_new, sr, rng, fix, i);
        store_copy_block(copy_, p_, i, p_new);
      }
    }
    if constexpr (std::is_same<T, half>::value) {
      if (fix.n != 0) fix_half(fix, p_, copy_, b.final_round.rng.splitmix().key(), b.final_round.offset);
    }
  }
  return i;
}

template <bool Decoupled, class T, class M, class Body>
std::size_t adam(const Body& b, std::size_t begin, std::size_t end) noexcept {
#if defined(MIXPREC_OPTIM_AVX512)
  if (!std::is_same<T, float>::value && b.final_round.mode == rounding::stochastic) {
    return adam_loop<Decoupled, T, M, std::is_same<T, float>::value ? 0 : 1>(b, begin, end);
  }
  return adam_loop<Decoupled, T, M, 0>(b, begin, end);
#else
  return adam_loop<Decoupled, T, M, 2>(b, begin, end);
#endif
}

/// The SGD loop of optim_impl::sgd_body, as adam_loop above.
template <class T, class M, int Final, class Body>
std::size_t sgd_loop(const Body& b, std::size_t begin, std::size_t end) noexcept {
  using V = isa;
  constexpr std::size_t N = V::N;
  T* const p_ = b.p;  // as in adam
  const T* const g_ = b.g;
  T* const buf_ = b.buf;
  M* const copy_ = b.copy;
  const vf wd_alpha = V::set1(b.wd_alpha), mu = V::set1(b.mu), omt = V::set1(b.one_minus_tau);
  const vf mu_alpha = V::set1(b.mu_alpha), neg_lr = V::set1(b.neg_lr);
  const bool wd = b.weight_decay, momentum = b.momentum, first = b.first, nesterov = b.nesterov;
  const bool sr =
      Final == 2 ? !std::is_same<T, float>::value && b.final_round.mode == rounding::stochastic : Final == 1;
  block_rng<T> rng(b.final_round.rng.splitmix().key(), b.final_round.offset + begin);
  half_fixups fix;
  std::size_t i = begin;
  for (; i + K * N <= end;) {
    const std::size_t stop =
        std::is_same<T, half>::value && sr && end - i > half_fixups::R * N ? i + half_fixups::R * N : end;
    for (; i + K * N <= stop; i += K * N) {
      vf p_new[K];
      {
        vf pc[K], gc[K];
        kept<T> bv[K];
        load_block(p_ + i, pc);
        load_block(g_ + i, gc);
        if (wd) MIXPREC_OPTIM_EACH(gc[k] = held_result<T>(V::fma(pc[k], wd_alpha, gc[k])))
        if (momentum) {
          if (first) {
            if (wd || !std::is_same<T, bfloat16>::value) {
              MIXPREC_OPTIM_EACH(bv[k] = keep<T>(gc[k]))
            } else {
              MIXPREC_OPTIM_EACH(bv[k].f = held<T>(gc[k]))  // gc may be a loaded signalling NaN
            }
          } else {
            vf b0[K];
            load_block(buf_ + i, b0);
            MIXPREC_OPTIM_EACH(bv[k].f = held_result<T>(V::mul(b0[k], mu)))
            MIXPREC_OPTIM_EACH(bv[k] = keep<T>(V::fma(gc[k], omt, bv[k].f)))
          }
          if (nesterov) {
            MIXPREC_OPTIM_EACH(gc[k] = held_result<T>(V::fma(bv[k].f, mu_alpha, gc[k])))
          } else {
            MIXPREC_OPTIM_EACH(gc[k] = bv[k].f)
          }
          store_block(buf_ + i, bv);
        }
        MIXPREC_OPTIM_EACH(p_new[k] = V::fma(gc[k], neg_lr, pc[k]))
      }
      if (copy_ == nullptr) {
        store_final_block<false>(p_ + i, p_new, sr, rng, fix, i);
      } else {
        store_final_block<true>(p_ + i, p_new, sr, rng, fix, i);
        store_copy_block(copy_, p_, i, p_new);
      }
    }
    if constexpr (std::is_same<T, half>::value) {
      if (fix.n != 0) fix_half(fix, p_, copy_, b.final_round.rng.splitmix().key(), b.final_round.offset);
    }
  }
  return i;
}

template <class T, class M, class Body>
std::size_t sgd(const Body& b, std::size_t begin, std::size_t end) noexcept {
#if defined(MIXPREC_OPTIM_AVX512)
  if (!std::is_same<T, float>::value && b.final_round.mode == rounding::stochastic) {
    return sgd_loop<T, M, std::is_same<T, float>::value ? 0 : 1>(b, begin, end);
  }
  return sgd_loop<T, M, 0>(b, begin, end);
#else
  return sgd_loop<T, M, 2>(b, begin, end);
#endif
}

#undef MIXPREC_OPTIM_EACH

#endif  // MIXPREC_OPTIM_SIMD

}  // namespace simd_optim
}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_SIMD_OPTIM_HPP
