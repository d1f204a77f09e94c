// SPDX-License-Identifier: MIT
// mixprec/kernels/gemm/detail/dot2.hpp — the vdpbf16ps path: bf16_dot2, and exact where it is proven the same.
//
// What (AVX-512-BF16 only): detail::gemm::tile_dot2, host_dot2 (the driver), dot2_mode
// ($MIXPREC_GEMM_DOT2), dot2_cpu_prefers (a one-time timing of both tiles) and dot2_auto (the rule
// of docs/pages/kernels-reference.md, "exact on vdpbf16ps").
#ifndef MIXPREC_KERNELS_GEMM_DETAIL_DOT2_HPP
#define MIXPREC_KERNELS_GEMM_DETAIL_DOT2_HPP

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "../../../core/types.hpp"
#include "blocked.hpp"
#include "blocking.hpp"
#include "dot2_panel.hpp"
#include "microkernel.hpp"
#include "scalar.hpp"
#include "store.hpp"
#include "vec.hpp"

namespace mixprec {
namespace detail {
namespace gemm {

#if defined(MIXPREC_GEMM_AVX512BF16)
/// The bf16_dot2 tile: R rows (R <= tile_mr) by V vectors from bfloat16 pairs, from zero, for
/// q < kq in order: acc[r][v] = vdpbf16ps(acc[r][v], ap[q*tile_mr + r], bp[q*V*16 + v*16 ...]);
/// then stored as tile_f32's (tile_out).
template <std::size_t R, std::size_t V, class TC>
bool tile_dot2(std::size_t kq, const std::uint32_t* ap, const std::uint32_t* bp, std::size_t rows, std::size_t nr,
               const tile_dest<TC>& d) noexcept {
  constexpr std::size_t W = vw;
  TC* const c = d.c;
  const std::size_t ldc = d.ldc;
  const bool direct = c != nullptr && nr == V * W;  // (a partial tile: through the buffer)
  vf acc[R][V];
  MIXPREC_GEMM_UNROLL
  for (std::size_t r = 0; r < R; ++r) {
    MIXPREC_GEMM_UNROLL
    for (std::size_t v = 0; v < V; ++v) acc[r][v] = vzero();
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
    ap += tile_mr;
    bp += V * W;
  }
  return tile_out<R, V>(acc, rows, direct, c, ldc, d);
}
/// The vdpbf16ps driver body, one per vector-stored C type TCv (float, half, bfloat16): C of pv
/// from the operands a (op(A), m x k) and b (op(B)^T, n x k); pv.a, pv.b are not read. vec_store:
/// full-width tiles go to pv.c from the registers; other tiles go through the buffer to
/// store(ctx, i, j, rows, nr, buf, ld) (store_tile of the real C type: shared code for all).
template <class TCv>
void host_dot2_impl(const problem<float, bfloat16, bfloat16, TCv>& pv, bool vec_store, const dot2_src& a,
                    const dot2_src& b, unsigned threads,
                    void (*store)(const void*, std::size_t, std::size_t, std::size_t, std::size_t, const float*,
                                  std::size_t),
                    const void* ctx) {
  constexpr std::size_t MR = tile_mr;
  auto panel_a = [&](std::size_t i, std::size_t rows, std::uint32_t* dst) {
    dot2_panel(a, i, rows, MR, pv.k, dst, MR, 0x8000u);
  };
  auto run = [&](auto nr_constant) {
    constexpr std::size_t NR = decltype(nr_constant)::value;
    auto panel_b = [&](std::size_t j, std::size_t cols, std::uint32_t* dst) {
      dot2_panel(b, j, cols, NR, pv.k, dst, NR, 0x0000u);
    };
    // As the float tiles: short last slivers, C stored from the registers where it can be.
    auto tile = [&](std::size_t kq, const std::uint32_t* ap, const std::uint32_t* bp, std::size_t i, std::size_t rows,
                    std::size_t j, std::size_t nr) {
      alignas(64) float buf[MR * NR];
      tile_dest<TCv> d{nullptr, 0, pv.alpha, pv.beta, buf};
      if (vec_store) {
        d.c = pv.c + i * pv.c_is + j;
        d.ldc = pv.c_is;
      }
      auto kernel = [&](auto r_constant) {
        return tile_dot2<decltype(r_constant)::value, NR / vw>(kq, ap, bp, rows, nr, d);
      };
      if (!with_rows<2, MR>(rows, kernel)) store(ctx, i, j, rows, nr, buf, NR);
    };
    host_blocked<std::uint32_t, MR, NR>(pv, threads, (pv.k + 1) / 2, panel_a, panel_b, tile);
  };
  if (pv.n <= vw) {  // narrow C: one vector per tile row
    run(std::integral_constant<std::size_t, vw>{});
  } else {
    run(std::integral_constant<std::size_t, tile_nr_f32>{});
  }
}

/// The vdpbf16ps driver (bf16_dot2, and exact where dot2_auto proves it the same): C of pr
/// from a and b (pr.a, pr.b are not read); the body is host_dot2_impl's, shared by C types.
template <class TC>
void host_dot2(const problem<float, bfloat16, bfloat16, TC>& pr, const dot2_src& a, const dot2_src& b,
               unsigned threads) {
  using P = problem<float, bfloat16, bfloat16, TC>;
  using TCv = typename std::conditional<vec_store_type<TC>::value, TC, float>::type;
  const bool vec_store = vec_store_ok(pr);
  TCv* c = nullptr;
  if constexpr (std::is_same<TC, TCv>::value) c = pr.c;
  const auto pv = with_operands<bfloat16, bfloat16>(pr, nullptr, nullptr, c);
  auto store = [](const void* ctx, std::size_t i, std::size_t j, std::size_t rows, std::size_t nr, const float* buf,
                  std::size_t ld) { store_tile(*static_cast<const P*>(ctx), i, j, rows, nr, buf, ld); };
  host_dot2_impl(pv, vec_store, a, b, threads, +store, &pr);
}

/// pr as the problem type of host_dot2 (A and B pointers dropped).
template <class TA, class TB, class TC>
problem<float, bfloat16, bfloat16, TC> dot2_problem(const problem<float, TA, TB, TC>& pr) noexcept {
  return with_operands<bfloat16, bfloat16>(pr, nullptr, nullptr, pr.c);
}

/// $MIXPREC_GEMM_DOT2: whether exact runs on vdpbf16ps where it is proven the same (0 auto: when
/// this CPU's vdpbf16ps tile is faster and the problem is big enough; 1 on: always; 2 off).
/// `warning` is set (and auto returned) for anything but unset, "", auto, on, off.
inline int dot2_parse(const char* s, std::string& warning) {
  warning.clear();
  if (s == nullptr || *s == '\0' || std::strcmp(s, "auto") == 0) return 0;
  if (std::strcmp(s, "on") == 0) return 1;
  if (std::strcmp(s, "off") == 0) return 2;
  warning = "mixprec: ignoring MIXPREC_GEMM_DOT2=\"" + std::string(s, std::min<std::size_t>(std::strlen(s), 40)) +
            "\" (not auto, on or off); using auto\n";
  return 0;
}
/// The setting (from $MIXPREC_GEMM_DOT2 at first use; tests and benchmarks store 0, 1 or 2).
inline std::atomic<int>& dot2_mode() {
  static std::atomic<int> mode{[] {
    std::string warning;
    const int v = dot2_parse(std::getenv("MIXPREC_GEMM_DOT2"), warning);
    if (!warning.empty()) std::fputs(warning.c_str(), stderr);
    return v;
  }()};
  return mode;
}
/// How many exact GEMMs ran on vdpbf16ps (a test hook: which kernel ran).
inline std::atomic<std::size_t>& dot2_runs() noexcept {
  static std::atomic<std::size_t> n{0};
  return n;
}

/// Whether this CPU's vdpbf16ps tile is faster than its float tile: both 14 x 32 register tiles on
/// the same in-L1 data (k = 128), interleaved, min of 8 reps; dot2 must take <= 0.8 of the float
/// tile's time (the ratio differs by CPU: bench/README.md). Once per process.
inline bool dot2_calibrate() noexcept {
  constexpr std::size_t MR = tile_mr, NR = tile_nr_f32, V = NR / vw, kk = 128;
  alignas(64) float af[MR * kk], bf[NR * kk], buf[MR * NR];
  alignas(64) std::uint32_t a2[MR * kk / 2], b2[NR * kk / 2];
  for (std::size_t e = 0; e < MR * kk; ++e) af[e] = 1.0f + static_cast<float>(e % 7) * 0x1p-4f;
  for (std::size_t e = 0; e < NR * kk; ++e) bf[e] = 0.5f + static_cast<float>(e % 5) * 0x1p-4f;
  for (std::size_t e = 0; e < MR * kk / 2; ++e) a2[e] = 0x3f803f90u;
  for (std::size_t e = 0; e < NR * kk / 2; ++e) b2[e] = 0x3f003f10u;
  const tile_dest<float> d{nullptr, 0, 1.0f, 0.0f, buf};
  using clock = std::chrono::steady_clock;
  auto best_f32 = clock::duration::max(), best_dot2 = clock::duration::max();
  float sink = 0;
  for (int rep = 0; rep < 9; ++rep) {
    const auto t0 = clock::now();
    for (int i = 0; i < 4; ++i) tile_f32<MR, V>(kk, af, bf, NR, MR, NR, d);
    sink += buf[0];
    const auto t1 = clock::now();
    for (int i = 0; i < 4; ++i) tile_dot2<MR, V>(kk / 2, a2, b2, MR, NR, d);
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
inline bool dot2_cpu_prefers() noexcept {
  static const bool v = dot2_calibrate();
  return v;
}

/// Operand types the rule covers (A and B of the same type, to keep the instantiations few): bfloat16,
/// and float whose values are bfloat16-exact (or rounded to bfloat16 by float32_matmul_precision "medium").
template <class T>
struct dot2_operand : std::integral_constant<bool, std::is_same<T, bfloat16>::value || std::is_same<T, float>::value> {
};
/// FP8 operands (any two: every value is a normal bfloat16 or zero, EA + EB >= 222; no scan).
template <class T>
struct dot2_fp8
    : std::integral_constant<bool, std::is_same<T, float8_e4m3fn>::value || std::is_same<T, float8_e5m2>::value> {};
template <class T>
constexpr dot2_src::fmt_t dot2_fmt(input_mode input) noexcept {
  if constexpr (std::is_same<T, float>::value) {
    return input == input_mode::bf16 ? dot2_src::f32_round : dot2_src::f32;
  } else if constexpr (std::is_same<T, float8_e4m3fn>::value) {
    return dot2_src::e4m3;
  } else if constexpr (std::is_same<T, float8_e5m2>::value) {
    return dot2_src::e5m2;
  } else {
    return dot2_src::bf16;
  }
}

/// exact (step_kind::fma, Acc float) on the vdpbf16ps driver, when allowed (dot2_mode) and
/// proven to give the same bits: no subnormal input and EA + EB >= 142 (the smallest biased
/// exponents of A's and B's nonzero finite values), so that no DAZ or FTZ ever changes a step
/// (docs/pages/kernels-reference.md, "exact on vdpbf16ps"). Returns whether it ran.
template <class TA, class TB, class TC>
bool dot2_auto(const problem<float, TA, TB, TC>& pr, unsigned threads) {
  if (pr.kind != step_kind::fma) return false;
  const int mode = dot2_mode().load(std::memory_order_relaxed);
  if (mode == 2) return false;
  // auto: not for small problems, nor where the float tile reads a long B in place unpacked (m <= 2
  // tiles, n contiguous: no faster there), nor where this CPU's dot2 tile is slower.
  if (mode != 1 && (static_cast<double>(pr.m) * static_cast<double>(pr.n) * static_cast<double>(pr.k) <
                        static_cast<double>(blocking_sizes().dot2_min) ||
                    (pr.b_js == 1 && pr.m <= 2 * tile_mr) || !dot2_cpu_prefers())) {
    return false;
  }
  const dot2_src a{pr.a, pr.a_is, pr.a_ps, dot2_fmt<TA>(pr.input)};
  const dot2_src b{pr.b, pr.b_js, pr.b_ps, dot2_fmt<TB>(pr.input)};
  const int ea = dot2_min_exponent(a, pr.m, pr.k);
  if (ea < 0) return false;
  const int eb = dot2_min_exponent(b, pr.n, pr.k);
  if (eb < 0 || ea + eb < 142) return false;
  dot2_runs().fetch_add(1, std::memory_order_relaxed);
  host_dot2(dot2_problem(pr), a, b, threads);
  return true;
}
#endif

}  // namespace gemm
}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_KERNELS_GEMM_DETAIL_DOT2_HPP
