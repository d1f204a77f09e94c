// SPDX-License-Identifier: MIT
// mixprec/kernels/detail/simd_optim.hpp — vector paths of the optimizer steps (kernels/optim.hpp), host only:
// the Adam/AdamW and SGD loops for W = G = S = T, T float, half or bfloat16 (C = float), written
// once over simd/'s vector traits (vec512 with AVX-512, else vec256 with AVX2 + FMA, else none).
// Contract: the same bits as the portable loop for every input (NaN, infinity, subnormal, zero
// included; tests/test_optim_simd.cpp); other rounding modes, mixed dtypes and double take the
// portable loop. How each op rounds: docs/pages/kernels-reference.md ("Determinism and the fast path").
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
#include "../../simd/encode.hpp"
#include "simd_round.hpp"

#if defined(MIXPREC_SIMD_AVX512) || (defined(MIXPREC_SIMD_AVX2) && defined(MIXPREC_SIMD_FMA))
#define MIXPREC_OPTIM_SIMD 1
#endif

namespace mixprec {
namespace detail {

/// The optimizer fast path compiled in (for benchmarks and logs).
inline const char* simd_optim_path() noexcept {
#if defined(MIXPREC_SIMD_AVX512_DQ)
  return "avx512 (f/bw/vl/dq)";
#elif defined(MIXPREC_SIMD_AVX512)
  return "avx512 (f/bw/vl)";
#elif defined(MIXPREC_OPTIM_SIMD)
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

#if defined(MIXPREC_SIMD_AVX512)
using vec = simd::vec512;  ///< the width the steps run at
#else
using vec = simd::vec256;
#endif

/// The steps' operations over the vector traits V.
template <class V>
struct steps {
  using vf = typename V::vf;
  using vi = typename V::vi;
  using vh = typename V::vh;
  static constexpr std::size_t N = V::N;
  static constexpr std::size_t K = 2;  ///< vectors per block (see the loops below)

  static vi c(std::uint32_t x) noexcept { return V::set1(x); }
  /// a b, never contracted with a neighbouring add into an fma.
  static vf mul(vf a, vf b) noexcept {
    vf r = V::f_mul(a, b);
    __asm__("" : "+v"(r));
    return r;
  }

  static vf load(const float* p) noexcept { return V::f_load(p); }
  static vf load(const half* p) noexcept { return V::h2f(V::h_load(p)); }
  static vf load(const bfloat16* p) noexcept { return V::f_from_bits(V::h_to_high(V::h_load(p))); }

  /// bfloat16's nearest-even sum of u (simd_round::sum: its high half is the rounding, for the u
  /// it states) and the rounding of each lane, as float bits, NaNs quieted (simd_round::nearest).
  static vi bf16_rne_sum(vi u) noexcept { return simd_round::sum<V, 16>(u); }
  static vi bf16_rne(vf x) noexcept { return simd_round::nearest<V, 16>(V::f_bits(x)); }
  static vh half_rne(vf x) noexcept { return V::template to_half<_MM_FROUND_TO_NEAREST_INT>(V::f_bits(x)); }

  /// x rounded to T (nearest even) and read back as float: the value a T tensor holds.
  template <class T>
  static vf held(vf x) noexcept {
    if constexpr (std::is_same<T, half>::value) {
      return V::h2f(half_rne(x));
    } else if constexpr (std::is_same<T, bfloat16>::value) {
      return V::f_from_bits(bf16_rne(x));
    } else {
      return x;
    }
  }
  /// held() for the result of an arithmetic op whose operands are T values, finite constants or
  /// such results: not NaN, or a quiet NaN with an operand's payload or the default NaN
  /// 0xffc00000, so for bfloat16 no NaN test (a loaded signalling NaN must take held()).
  template <class T>
  static vf held_result(vf x) noexcept {
    if constexpr (std::is_same<T, bfloat16>::value) {
      return V::f_from_bits(V::and_(bf16_rne_sum(V::f_bits(x)), c(0xffff0000u)));
    } else {
      return held<T>(x);
    }
  }
  /// T's codes (the low 16 bits of the lanes) of x in rounding::stochastic with the random bits
  /// r, overflow::ieee: simd::encode_fast, round_to's bits.
  template <class T>
  static vi stochastic(vf x, vi r) noexcept {
    using F = typename T::format_type;
    return simd::encode_fast<V, F, rounding::stochastic>(V::f_bits(x), r,
                                                         simd::encode_format<F>::overflow_away(overflow::ieee));
  }

  // stochastic<T>(x, r) for x the result of an arithmetic op (see held_result), from
  // r16 = r >> 16, in the forms the stores take:
  /// bfloat16: u + r16, T's code in the high half (its truncation is the encoder's rule: a NaN
  /// result keeps its high half, a carry past the largest finite value gives the infinity,
  /// float subnormals are bfloat16's).
  static vi stochastic_bf16(vf x, vi r16) noexcept { return V::add(V::f_bits(x), r16); }
  /// half, a block: the truncation of u + (r >> 19) to 13 bits, converted exactly (past 65504 to
  /// the infinity), where every lane is zero or at least 2^-14 in magnitude (infinity included);
  /// else simd::encode_fast with full(k), vector k's 32-bit bits.
  template <class Full>
  static void stochastic_half(const vf (&x)[K], const vi (&r16)[K], Full full, vh (&h)[K]) noexcept {
    auto ok = V::all();  // lanes zero or in half's normal range (ordered compares: not NaN)
    for (std::size_t k = 0; k < K; ++k) {
      const vf a = V::f_from_bits(V::and_(V::f_bits(x[k]), c(0x7fffffffu)));
      ok = V::m_and(ok, V::m_or(V::f_ge(a, V::f_set1(0x1p-14f)), V::f_eq(a, V::f_set1(0.0f))));
    }
    if (MIXPREC_UNLIKELY(!V::all_of(ok))) {
      for (std::size_t k = 0; k < K; ++k) h[k] = V::narrow16(stochastic<half>(x[k], full(k)));
    } else {
      for (std::size_t k = 0; k < K; ++k) {
        const vi t = V::and_(V::add(V::f_bits(x[k]), V::template srli<3>(r16[k])), c(0xffffe000u));
        h[k] = half_rne(V::f_from_bits(t));
      }
    }
  }

  /// held_result<T>(x) that keeps T's bits for the store (half: the vcvtps2ph result).
  template <class T, bool = std::is_same<T, half>::value>
  struct kept {
    vf f;
  };
  template <class T>
  struct kept<T, true> {
    vf f;
    vh h;
  };
  template <class T>
  static kept<T> keep(vf x) noexcept {
    if constexpr (std::is_same<T, half>::value) {
      const vh h = half_rne(x);
      return {V::h2f(h), h};
    } else {
      return {held_result<T>(x)};
    }
  }

  /// Stores x rounded to T, nearest even (exact when x already holds a T value).
  static void store(float* p, vf x) noexcept { V::f_store(p, x); }
  static void store(half* p, vf x) noexcept { V::h_store(p, half_rne(x)); }
  static void store(bfloat16* p, vf x) noexcept { V::h_store(p, V::high_to_h(bf16_rne(x))); }
  /// Stores x, which holds T values (bfloat16: its high halves).
  template <class T>
  static void store_held(T* p, vf x) noexcept {
    if constexpr (std::is_same<T, bfloat16>::value) {
      V::h_store(p, V::high_to_h(V::f_bits(x)));
    } else {
      store(p, x);
    }
  }
  static void store(float* p, const kept<float>& x) noexcept { store(p, x.f); }
  static void store(bfloat16* p, const kept<bfloat16>& x) noexcept { store_held(p, x.f); }
  static void store(half* p, const kept<half>& x) noexcept { V::h_store(p, x.h); }

  // The loops below work on K = 2 vectors at a time (two interleaved dependency chains keep the
  // out-of-order window busy). Without word permutes (AVX2) a bfloat16 block of K N words is held
  // as vector 0 = the even elements, vector 1 = the odd ones; every op is lane-wise, so only the
  // loads, the stores, the random bits and the model copy see that layout.
  template <class T>
  static constexpr bool even_odd = std::is_same<T, bfloat16>::value && !V::has_lookup128;
  /// One loop per final rounding on the 16-lane width, one reading the mode at run time on the
  /// 8-lane one (each the faster there).
  static constexpr bool split_final = V::N >= 16;

  template <class T>
  static void load_block(const T* p, vf (&x)[K]) noexcept {
    if constexpr (even_odd<T>) {
      const vi u = V::load(p);
      x[0] = V::f_from_bits(V::template slli<16>(u));
      x[1] = V::f_from_bits(V::and_(u, c(0xffff0000u)));
    } else {
      x[0] = load(p);
      x[1] = load(p + N);
    }
  }
  /// The words of a bfloat16 block from its even and odd lanes (the high halves of e and o).
  static vi block_words(vi e, vi o) noexcept { return V::or_(V::template srli<16>(e), V::and_(o, c(0xffff0000u))); }
  template <class T>
  static void store_block(T* p, const kept<T> (&x)[K]) noexcept {
    if constexpr (even_odd<T>) {
      V::store(p, block_words(V::f_bits(x[0].f), V::f_bits(x[1].f)));
    } else {
      store(p, x[0]);
      store(p + N, x[1]);
    }
  }

  /// counter_rng's bits for the block's vectors, as load_block lays the elements out: their
  /// top 16 bits (what the stochastic writes read), and all 32 again by full(k).
  template <class T>
  struct block_rng {
    typename V::rng s;
    std::uint64_t key, counter;  ///< counter: the last block's first element's
    block_rng(std::uint64_t k, std::uint64_t c0) noexcept : s(k, c0), key(k), counter(c0 - K * N) {}
    void next16(vi (&r)[K]) noexcept {
      const vi a = s.next16(), b = s.next16();
      counter += K * N;
      if constexpr (even_odd<T>) {
        V::deinterleave(a, b, r[0], r[1]);
      } else {
        r[0] = a;
        r[1] = b;
      }
    }
    /// All 32 bits of vector k of the last block (not for even_odd blocks).
    vi full(std::size_t k) const noexcept { return typename V::rng(key, counter + k * N).next(); }
  };

  /// Stores the final parameter values x (ops' results) rounded to T, nearest even or
  /// stochastic with rng's next bits; with Copy, x becomes the stored values (for the model copy).
  template <bool Copy, class T>
  static void store_final_block(T* p, vf (&x)[K], bool sr, block_rng<T>& rng) noexcept {
    if constexpr (std::is_same<T, float>::value) {
      (void)sr, (void)rng;
      store(p, x[0]);
      store(p + N, x[1]);
    } else {
      vi r[K];
      if (sr) rng.next16(r);
      if constexpr (std::is_same<T, half>::value) {
        vh h[K];
        if (sr) {
          stochastic_half(x, r, [&rng](std::size_t k) { return rng.full(k); }, h);
        } else {
          for (std::size_t k = 0; k < K; ++k) h[k] = half_rne(x[k]);
        }
        for (std::size_t k = 0; k < K; ++k) {
          V::h_store(p + k * N, h[k]);
          if constexpr (Copy) x[k] = V::h2f(h[k]);
        }
      } else {
        vi t[K];  // bfloat16's code in the high halves
        for (std::size_t k = 0; k < K; ++k) {
          t[k] = sr ? stochastic_bf16(x[k], r[k]) : bf16_rne_sum(V::f_bits(x[k]));
        }
        if constexpr (even_odd<T>) {
          V::store(p, block_words(t[0], t[1]));
        } else {
          V::h_store(p, V::high_to_h(t[0]));
          V::h_store(p + N, V::high_to_h(t[1]));
        }
        if constexpr (Copy) {
          for (std::size_t k = 0; k < K; ++k) x[k] = V::f_from_bits(V::and_(t[k], c(0xffff0000u)));
        }
      }
    }
  }

  /// copy[i..i+K N) = round_to<M>(params[i..i+K N)), x the stored parameters as load_block holds them.
  template <class M, class W>
  static void store_copy_block(M* copy, const W* params, std::size_t i, const vf (&x)[K]) noexcept {
    if constexpr (lane_type<M> && !even_odd<W>) {
      for (std::size_t k = 0; k < K; ++k) {
        if constexpr (std::is_same<M, W>::value) {
          store_held(copy + i + k * N, x[k]);
        } else {
          store(copy + i + k * N, x[k]);
        }
      }
    } else if constexpr (even_odd<W> && std::is_same<M, W>::value) {
      V::store(copy + i, block_words(V::f_bits(x[0]), V::f_bits(x[1])));
    } else {
      for (std::size_t k = i; k < i + K * N; ++k) {
        copy[k] = round_to<M>(params[k], rounding::nearest_even, overflow::ieee, 0u);
      }
    }
  }
};

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

/// The Adam/AdamW loop of optim_impl::adam_body over whole blocks from begin; returns where it
/// stopped (the caller's scalar loop does the rest). Final: 0 nearest even, 1 stochastic, 2 the
/// mode read at run time (steps<V>::split_final).
template <class V, bool Decoupled, class T, class M, int Final, class Body>
std::size_t adam_loop(const Body& b, std::size_t begin, std::size_t end) noexcept {
  using S = steps<V>;
  using vf = typename V::vf;
  constexpr std::size_t N = V::N, K = S::K;
  // the pointers as locals: the stores below could alias b, and would make the loop reload them
  T* const p_ = b.p;
  const T* const g_ = b.g;
  T* const m_ = b.m;
  T* const v_ = b.v;
  M* const copy_ = b.copy;
  const vf decay = V::f_set1(b.decay), wd_alpha = V::f_set1(b.wd_alpha);
  const vf w = V::f_set1(b.beta1_weight.w), w1 = V::f_set1(b.beta1_weight.w_minus_1);
  const vf beta2 = V::f_set1(b.beta2), omb2 = V::f_set1(b.one_minus_beta2), bc2 = V::f_set1(b.bc2_sqrt);
  const vf eps = V::f_set1(b.eps), nss = V::f_set1(b.neg_step_size);
  const bool small = b.beta1_weight.small, wd = b.weight_decay;
  const bool sr =
      Final == 2 ? !std::is_same<T, float>::value && b.final_round.mode == rounding::stochastic : Final == 1;
  // The denominator's roundings can take the traits' bfloat16 pair (no subnormal reaches them);
  // not with stochastic rounding, where it does not pay.
  [[maybe_unused]] const bool pair = !sr && b.bc2_sqrt <= 1.0f && (detail::exact_eq(b.eps, 0.0f) || b.eps >= 0x1p-126f);
  typename S::template block_rng<T> rng(b.final_round.rng.splitmix().key(), b.final_round.offset + begin);
  std::size_t i = begin;
  for (; i + K * N <= end; i += K * N) {
    vf pc[K], gc[K], m0[K], d[K], p_new[K];
    typename S::template kept<T> m_new[K], v_new[K];
    S::load_block(p_ + i, pc);
    S::load_block(g_ + i, gc);
    if (wd) {
      if constexpr (Decoupled) {
        MIXPREC_OPTIM_EACH(pc[k] = S::template held_result<T>(S::mul(pc[k], decay)))
      } else {
        MIXPREC_OPTIM_EACH(gc[k] = S::template held_result<T>(V::f_fma(pc[k], wd_alpha, gc[k])))
      }
    }
    S::load_block(m_ + i, m0);
    MIXPREC_OPTIM_EACH(d[k] = V::f_sub(gc[k], m0[k]))
    if (small) {
      MIXPREC_OPTIM_EACH(m_new[k] = S::template keep<T>(V::f_fma(w, d[k], m0[k])))
    } else {
      MIXPREC_OPTIM_EACH(m_new[k] = S::template keep<T>(V::f_fma(w1, d[k], gc[k])))
    }
    S::load_block(v_ + i, d);
    MIXPREC_OPTIM_EACH(d[k] = S::template held_result<T>(S::mul(d[k], beta2)))
    MIXPREC_OPTIM_EACH(v_new[k] = S::template keep<T>(V::f_fma(S::mul(omb2, gc[k]), gc[k], d[k])))
    bool paired = false;
    if constexpr (V::has_bf16_pair && std::is_same<T, bfloat16>::value) {
      if (pair) {
        // sqrt of a bfloat16 value, that over bc2 <= 1, that plus eps (0 or normal): never subnormal
        MIXPREC_OPTIM_EACH(d[k] = V::f_sqrt(v_new[k].f))
        V::f_bf16_pair(d[0], d[1]);
        MIXPREC_OPTIM_EACH(d[k] = V::f_div(d[k], bc2))
        V::f_bf16_pair(d[0], d[1]);
        MIXPREC_OPTIM_EACH(d[k] = V::f_add(d[k], eps))
        V::f_bf16_pair(d[0], d[1]);
        paired = true;
      }
    }
    if (!paired) {
      MIXPREC_OPTIM_EACH(d[k] = S::template held_result<T>(V::f_sqrt(v_new[k].f)))
      MIXPREC_OPTIM_EACH(d[k] = S::template held_result<T>(V::f_div(d[k], bc2)))
      MIXPREC_OPTIM_EACH(d[k] = S::template held_result<T>(V::f_add(d[k], eps)))
    }
    MIXPREC_OPTIM_EACH(p_new[k] = V::f_add(pc[k], V::f_div(S::mul(nss, m_new[k].f), d[k])))
    S::store_block(m_ + i, m_new);
    S::store_block(v_ + i, v_new);
    if (copy_ == nullptr) {
      S::template store_final_block<false>(p_ + i, p_new, sr, rng);
    } else {
      S::template store_final_block<true>(p_ + i, p_new, sr, rng);
      S::store_copy_block(copy_, p_, i, p_new);
    }
  }
  return i;
}

/// The SGD loop of optim_impl::sgd_body, as adam_loop above.
template <class V, class T, class M, int Final, class Body>
std::size_t sgd_loop(const Body& b, std::size_t begin, std::size_t end) noexcept {
  using S = steps<V>;
  using vf = typename V::vf;
  constexpr std::size_t N = V::N, K = S::K;
  T* const p_ = b.p;  // as in adam_loop
  const T* const g_ = b.g;
  T* const buf_ = b.buf;
  M* const copy_ = b.copy;
  const vf wd_alpha = V::f_set1(b.wd_alpha), mu = V::f_set1(b.mu), omt = V::f_set1(b.one_minus_tau);
  const vf mu_alpha = V::f_set1(b.mu_alpha), neg_lr = V::f_set1(b.neg_lr);
  const bool wd = b.weight_decay, momentum = b.momentum, first = b.first, nesterov = b.nesterov;
  const bool sr =
      Final == 2 ? !std::is_same<T, float>::value && b.final_round.mode == rounding::stochastic : Final == 1;
  typename S::template block_rng<T> rng(b.final_round.rng.splitmix().key(), b.final_round.offset + begin);
  std::size_t i = begin;
  for (; i + K * N <= end; i += K * N) {
    vf p_new[K];
    {
      vf pc[K], gc[K];
      typename S::template kept<T> bv[K];
      S::load_block(p_ + i, pc);
      S::load_block(g_ + i, gc);
      if (wd) MIXPREC_OPTIM_EACH(gc[k] = S::template held_result<T>(V::f_fma(pc[k], wd_alpha, gc[k])))
      if (momentum) {
        if (first) {
          if (wd || !std::is_same<T, bfloat16>::value) {
            MIXPREC_OPTIM_EACH(bv[k] = S::template keep<T>(gc[k]))
          } else {
            MIXPREC_OPTIM_EACH(bv[k].f = S::template held<T>(gc[k]))  // gc may be a loaded signalling NaN
          }
        } else {
          vf b0[K];
          S::load_block(buf_ + i, b0);
          MIXPREC_OPTIM_EACH(bv[k].f = S::template held_result<T>(S::mul(b0[k], mu)))
          MIXPREC_OPTIM_EACH(bv[k] = S::template keep<T>(V::f_fma(gc[k], omt, bv[k].f)))
        }
        if (nesterov) {
          MIXPREC_OPTIM_EACH(gc[k] = S::template held_result<T>(V::f_fma(bv[k].f, mu_alpha, gc[k])))
        } else {
          MIXPREC_OPTIM_EACH(gc[k] = bv[k].f)
        }
        S::store_block(buf_ + i, bv);
      }
      MIXPREC_OPTIM_EACH(p_new[k] = V::f_fma(gc[k], neg_lr, pc[k]))
    }
    if (copy_ == nullptr) {
      S::template store_final_block<false>(p_ + i, p_new, sr, rng);
    } else {
      S::template store_final_block<true>(p_ + i, p_new, sr, rng);
      S::store_copy_block(copy_, p_, i, p_new);
    }
  }
  return i;
}

#undef MIXPREC_OPTIM_EACH

/// loop(std::integral_constant<int, Final>{}) with the Final of adam_loop / sgd_loop for b's final rounding.
template <class T, class Body, class Loop>
std::size_t by_final(const Body& b, Loop loop) noexcept {
  if constexpr (!steps<vec>::split_final) {
    return loop(std::integral_constant<int, 2>{});
  } else if (!std::is_same<T, float>::value && b.final_round.mode == rounding::stochastic) {
    return loop(std::integral_constant<int, std::is_same<T, float>::value ? 0 : 1>{});
  } else {
    return loop(std::integral_constant<int, 0>{});
  }
}

template <bool Decoupled, class T, class M, class Body>
std::size_t adam(const Body& b, std::size_t begin, std::size_t end) noexcept {
  return by_final<T>(b, [&](auto f) { return adam_loop<vec, Decoupled, T, M, decltype(f)::value>(b, begin, end); });
}

template <class T, class M, class Body>
std::size_t sgd(const Body& b, std::size_t begin, std::size_t end) noexcept {
  return by_final<T>(b, [&](auto f) { return sgd_loop<vec, T, M, decltype(f)::value>(b, begin, end); });
}

#endif  // MIXPREC_OPTIM_SIMD

}  // namespace simd_optim
}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_SIMD_OPTIM_HPP
