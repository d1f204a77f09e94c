// SPDX-License-Identifier: MIT
// mixprec/kernels/gemm/detail/scalar.hpp — the portable element path of gemm (host and device).
//
// What: detail::gemm:: widen, the float32_matmul_precision input conversions (round_tf32,
// round_bf16, split), the bf16_dot2 step (dot2_step), the normalized problem, the output stage
// (store_element) and one C element computed straight from A and B (element: the CUDA path and
// the host reference). Everything else in gemm/ produces these elements' bits faster.
#ifndef MIXPREC_KERNELS_GEMM_DETAIL_SCALAR_HPP
#define MIXPREC_KERNELS_GEMM_DETAIL_SCALAR_HPP

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../../../core/config.hpp"
#include "../../../core/detail/bits.hpp"
#include "../../../core/detail/ieee_ops.hpp"
#include "../../../core/random.hpp"
#include "../../../core/round_to.hpp"
#include "../../../core/types.hpp"

namespace mixprec {
namespace detail {
namespace gemm {

/// x converted to Acc: exact for mixprec types and float -> double; double -> float rounds to
/// nearest-even.
template <class Acc, class T>
MIXPREC_HD inline Acc widen(T x) noexcept {
  if constexpr (std::is_same<T, Acc>::value) {
    return x;
  } else {
    return static_cast<Acc>(x);
  }
}

MIXPREC_HD inline std::uint32_t bits_of(float x) noexcept { return bit_cast<std::uint32_t>(x); }
MIXPREC_HD inline float float_of(std::uint32_t u) noexcept { return bit_cast<float>(u); }

/// float -> tf32 (as a float), ties away from zero (away) or to even; NaN stays NaN (quieted),
/// beyond tf32's range -> infinity. Equals round_to<tf32>(x, mode) for every non-NaN x.
MIXPREC_HD inline float round_tf32(float x, bool away) noexcept {
  std::uint32_t u = bits_of(x);
  if ((u & 0x7f800000u) == 0x7f800000u) {
    if ((u & 0x7fffffu) != 0) u |= 0x400000u;  // NaN: keep it a NaN after the truncation
    return float_of(u & 0xffffe000u);
  }
  u += away ? 0x1000u : 0xfffu + ((u >> 13) & 1u);
  return float_of(u & 0xffffe000u);
}

/// float -> bfloat16 (as a float), nearest-even; NaN stays NaN (quieted): round_to<bfloat16>(x).
MIXPREC_HD inline float round_bf16(float x) noexcept {
  return float_of(std::uint32_t{round_bits<bfloat16>(x, rounding::nearest_even, overflow::ieee, 0u)} << 16);
}

/// The bf16x3 split: x = hi + lo (docs/pages/kernels-reference.md, "float32 matmul precision in GEMM").
MIXPREC_HD inline void split_bf16(float x, float& hi, float& lo) noexcept {
  const std::uint32_t u = bits_of(x);
  const std::uint32_t sign = u & 0x80000000u;
  float h = round_bf16(x);
  if ((bits_of(h) & 0x7fffffffu) == 0x7f800000u) h = float_of(sign | 0x7f7f0000u);  // saturate
  hi = h;
  lo = round_bf16(x - h);
}

/// A float whose value is a subnormal -> zero of the same sign (DAZ of a bfloat16 input).
MIXPREC_HD inline float flush(float x) noexcept {
  const std::uint32_t u = bits_of(x);
  return (u & 0x7f800000u) == 0 ? float_of(u & 0x80000000u) : x;
}

/// One step of bf16_dot2 / vdpbf16ps: ftz(fma(daz(a), daz(b), daz(acc))), nearest-even, with the
/// tininess of the result detected after rounding (docs/pages/kernels-reference.md, "bf16_dot2").
MIXPREC_HD inline float dot2_step(float a, float b, float acc) noexcept {
  a = flush(a);
  b = flush(b);
  acc = flush(acc);
  const float r = ieee::fma_rn(a, b, acc);
  const std::uint32_t mag = bits_of(r) & 0x7fffffffu;
  if (mag > 0x00800000u || mag == 0) return r;  // above 2^-126 (or inf/NaN), or an exact zero
  const float zero = float_of(bits_of(r) & 0x80000000u);
  if (mag < 0x00800000u) return zero;  // subnormal after rounding: tiny
  // |r| == 2^-126: the exact sum may still be tiny (rounded to 24 bits with unbounded exponent, it
  // would be 2^-126 - 2^-150). Here |acc| and |a*b| are below 2^-100 (else the sum could not be a
  // nonzero value this small), so the sum scaled by 2^64 is computed exactly by one fma and
  // rounded in the normal range.
  float sa = a, sb = b;
  if ((bits_of(a) & 0x7fffffffu) <= (bits_of(b) & 0x7fffffffu)) {
    sa = a * 0x1p64f;
  } else {
    sb = b * 0x1p64f;
  }
  const float r2 = ieee::fma_rn(sa, sb, acc * 0x1p64f);
  return (bits_of(r2) & 0x7fffffffu) < 0x20800000u ? zero : r;  // below 2^-62: tiny
}

/// How the k steps combine the inputs.
enum class step_kind : unsigned char {
  fma,  ///< acc = ieee::fma_rn(a', b', acc)
  x3,   ///< the bf16x3 split, three fma per step
  dot2  ///< bf16_dot2
};
/// The conversion of float operands under step_kind::fma (other element types: exact widening).
enum class input_mode : unsigned char { as_is, tf32_away, tf32_even, bf16 };

/// One input element as Acc under step_kind::fma.
template <class Acc, input_mode Mode, class T>
MIXPREC_HD inline Acc load_input(T x) noexcept {
  if constexpr (std::is_same<T, float>::value && Mode != input_mode::as_is) {
    const float y = Mode == input_mode::tf32_away   ? round_tf32(x, true)
                    : Mode == input_mode::tf32_even ? round_tf32(x, false)
                                                    : round_bf16(x);
    return static_cast<Acc>(y);
  } else {
    return gemm::widen<Acc>(x);
  }
}

template <class Acc, class T>
MIXPREC_HD inline Acc load_input(T x, input_mode mode) noexcept {
  switch (mode) {
    case input_mode::tf32_away:
      return load_input<Acc, input_mode::tf32_away>(x);
    case input_mode::tf32_even:
      return load_input<Acc, input_mode::tf32_even>(x);
    case input_mode::bf16:
      return load_input<Acc, input_mode::bf16>(x);
    default:
      return load_input<Acc, input_mode::as_is>(x);
  }
}

/// The bf16x3 parts of any element (converted to float first).
template <class T>
MIXPREC_HD inline void split(T x, float& hi, float& lo) noexcept {
  split_bf16(gemm::widen<float>(x), hi, lo);
}

/// A normalized problem: op(A)(i,p) = a[i*a_is + p*a_ps], op(B)(p,j) = b[p*b_ps + j*b_js],
/// C(i,j) = c[i*c_is + j*c_js]; the stochastic-rounding counter of C(i,j) is
/// offset + i*counter_is + j*counter_js. x3_a_first: A takes the "first" role of the bf16x3
/// term order (fma(a_lo, b_hi), fma(a_hi, b_lo), fma(a_hi, b_hi)); false after swapping A and B.
template <class Acc, class TA, class TB, class TC>
struct problem {
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
  step_kind kind;
  input_mode input;
  bool x3_a_first;
};

/// pr with other operands (their types may differ; strides, counters and modes kept).
template <class TA2, class TB2, class TC2, class Acc, class TA, class TB, class TC>
MIXPREC_HD problem<Acc, TA2, TB2, TC2> with_operands(const problem<Acc, TA, TB, TC>& pr, const TA2* a, const TB2* b,
                                                     TC2* c) noexcept {
  return {pr.m,          pr.n,      pr.k,
          pr.alpha,      pr.beta,   a,
          pr.a_is,       pr.a_ps,   b,
          pr.b_ps,       pr.b_js,   c,
          pr.c_is,       pr.c_js,   pr.counter_is,
          pr.counter_js, pr.offset, pr.rng,
          pr.out_mode,   pr.kind,   pr.input,
          pr.x3_a_first};
}

/// The output stage of one element: r = alpha*acc (+ fma(beta, c, r)), rounded into TC.
template <class Acc, class TA, class TB, class TC>
MIXPREC_HD inline void store_element(const problem<Acc, TA, TB, TC>& pr, std::size_t i, std::size_t j,
                                     Acc acc) noexcept {
  TC* c = pr.c + i * pr.c_is + j * pr.c_js;
  Acc r = pr.alpha * acc;
  if (!detail::exact_eq(pr.beta, Acc(0))) r = ieee::fma_rn(pr.beta, gemm::widen<Acc>(*c), r);
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
MIXPREC_HD inline void element(const problem<Acc, TA, TB, TC>& pr, std::size_t i, std::size_t j) noexcept {
  // Indices, not pointers: with k == 0, A and B may be null.
  const std::size_t ia = i * pr.a_is, jb = j * pr.b_js;
  const TA* a = pr.a;
  const TB* b = pr.b;
  Acc acc = Acc(0);
  if (pr.kind == step_kind::dot2) {
    if constexpr (std::is_same<Acc, float>::value) {
      for (std::size_t p = 0; p < pr.k; ++p) {
        acc = dot2_step(gemm::widen<float>(a[ia + p * pr.a_ps]), gemm::widen<float>(b[jb + p * pr.b_ps]), acc);
      }
    }
  } else if (pr.kind == step_kind::x3) {
    for (std::size_t p = 0; p < pr.k; ++p) {
      float ah = 0, al = 0, bh = 0, bl = 0;
      split(a[ia + p * pr.a_ps], ah, al);
      split(b[jb + p * pr.b_ps], bh, bl);
      const Acc ahi = ah, alo = al, bhi = bh, blo = bl;
      if (pr.x3_a_first) {
        acc = ieee::fma_rn(alo, bhi, acc);
        acc = ieee::fma_rn(ahi, blo, acc);
      } else {
        acc = ieee::fma_rn(ahi, blo, acc);
        acc = ieee::fma_rn(alo, bhi, acc);
      }
      acc = ieee::fma_rn(ahi, bhi, acc);
    }
  } else {
    for (std::size_t p = 0; p < pr.k; ++p) {
      acc = ieee::fma_rn(load_input<Acc>(a[ia + p * pr.a_ps], pr.input), load_input<Acc>(b[jb + p * pr.b_ps], pr.input),
                         acc);
    }
  }
  store_element(pr, i, j, acc);
}

/// The device body: elements [begin, end) of C in row-major order of (i, j) (a functor, not an
/// extended lambda, so that nvcc needs no --extended-lambda).
template <class Acc, class TA, class TB, class TC>
struct elements {
  problem<Acc, TA, TB, TC> pr;
  MIXPREC_HD void operator()(std::size_t begin, std::size_t end) const noexcept {
    for (std::size_t e = begin; e < end; ++e) element(pr, e / pr.n, e % pr.n);
  }
};

}  // namespace gemm
}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_KERNELS_GEMM_DETAIL_SCALAR_HPP
