// SPDX-License-Identifier: MIT
// mixprec/kernels/gemm/detail/mma.hpp — gemm with a tensor-core preset (gemm_options::mma).
//
// What: detail::gemm::run_mma checks the preset against the operands, alpha and beta, decodes
// op(A) and op(B) once and chains the preset's instructions along k (kernels/tensor_core.hpp).
#ifndef MIXPREC_KERNELS_GEMM_DETAIL_MMA_HPP
#define MIXPREC_KERNELS_GEMM_DETAIL_MMA_HPP

#include "../../../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/kernels/gemm/detail/mma.hpp
#include "../../../core/detail/needs_exceptions.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "../../../core/round_to.hpp"
#include "../../tensor_core.hpp"
#include "blocking.hpp"
#include "scalar.hpp"

namespace mixprec {
namespace detail {
namespace gemm {

/// An operand of run_mma with its element type erased: row(src, r, k, out) writes the k values
/// mma_value(x, op) of row r, x = base[r*rs + p*ps] for p < k (op(A)'s rows, or op(B)'s columns).
struct mma_src {
  const void* base;
  std::size_t rs, ps;
  unsigned op;
  void (*row)(const mma_src&, std::size_t, std::size_t, double*);  // (src, r, k, out)
};
template <class T>
void mma_row(const mma_src& s, std::size_t r, std::size_t k, double* out) {
  const T* x = static_cast<const T*>(s.base);  // (indices: with k == 0 it may be null)
  for (std::size_t p = 0; p < k; ++p) out[p] = mma_value(x[r * s.rs + p * s.ps], s.op);
}

/// C's side of run_mma with its element type erased: read(ctx, i, j, cnt, out) writes C(i, j ..
/// j+cnt-1) as doubles, store(ctx, i, j, cnt, d) rounds d[0..cnt) into them.
struct mma_dst {
  const void* ctx;
  void (*read)(const void*, std::size_t, std::size_t, std::size_t, double*);         // (ctx, i, j, cnt, out)
  void (*store)(const void*, std::size_t, std::size_t, std::size_t, const double*);  // (ctx, i, j, cnt, d)
};

/// run_mma's computation, one for every element type: each C(i,j) is detail::mma_chain of the
/// preset md over the k products of row i of a and row j of b (op(B)^T), from C(i, j) (read_c:
/// mma_acc_in) or +0, rows split over the threads.
inline void run_mma_erased(const mma_model& md, std::size_t m, std::size_t n, std::size_t k, const mma_src& a,
                           const mma_src& b, bool read_c, const mma_dst& dst, unsigned threads) {
  std::vector<double> va(m * k), vb(n * k);  // the operands' values: op(A) row-major, op(B) by columns
  parallel(threads, m, [&](std::size_t i) { a.row(a, i, k, va.data() + i * k); });
  parallel(threads, n, [&](std::size_t j) { b.row(b, j, k, vb.data() + j * k); });
  // Finite operands (the usual case): mma_fused_lanes over panels of B, mma_lanes columns each.
  bool finite = true;
  for (std::size_t e = 0; e < m * k && finite; ++e) finite = std::isfinite(va[e]);
  for (std::size_t e = 0; e < n * k && finite; ++e) finite = std::isfinite(vb[e]);
  if (finite) {
    constexpr std::size_t L = mma_lanes;
    const std::size_t panels = (n + L - 1) / L;
    std::vector<double> av(m * k), bv(panels * k * L);
    std::vector<int> ae(m * k), be(panels * k * L);
    parallel(threads, m, [&](std::size_t i) {
      for (std::size_t p = 0; p < k; ++p) {
        const mma_term t = mma_decode(va[i * k + p], a.op);
        av[i * k + p] = t.v;
        ae[i * k + p] = t.e;
      }
    });
    parallel(threads, panels, [&](std::size_t q) {
      for (std::size_t p = 0; p < k; ++p) {
        for (std::size_t l = 0; l < L; ++l) {
          const std::size_t j = q * L + l, at = (q * k + p) * L + l;
          const mma_term t = j < n ? mma_decode(vb[j * k + p], b.op) : mma_term{0.0, -252};
          bv[at] = t.v;
          be[at] = t.e;
        }
      }
    });
    const std::size_t ik = static_cast<std::size_t>(md.k), hk = ik / static_cast<std::size_t>(md.split);
    constexpr std::size_t RB = 16;  // rows per task: a panel of B is reused from cache by RB rows of A
    parallel(threads, (m + RB - 1) / RB, [&](std::size_t rb) {
      double acc[L];
      for (std::size_t q = 0; q < panels; ++q) {
        const std::size_t cnt = std::min(L, n - q * L);
        for (std::size_t i = rb * RB; i < std::min(m, rb * RB + RB); ++i) {
          for (std::size_t l = 0; l < L; ++l) acc[l] = 0.0;
          if (read_c) {
            dst.read(dst.ctx, i, q * L, cnt, acc);
            for (std::size_t l = 0; l < cnt; ++l) acc[l] = mma_acc_in(acc[l], md.out);
          }
          for (std::size_t k0 = 0; k0 < k; k0 += ik) {
            for (std::size_t lo = k0; lo < k0 + ik; lo += hk) {  // padding adds nothing: a shorter (or empty) sum
              const std::size_t c = lo >= k ? 0 : std::min(hk, k - lo), at = std::min(lo, k);
              mma_fused_lanes(md, acc, av.data() + i * k + at, ae.data() + i * k + at, bv.data() + (q * k + at) * L,
                              be.data() + (q * k + at) * L, c);
            }
          }
          dst.store(dst.ctx, i, q * L, cnt, acc);
        }
      }
    });
    return;
  }
  std::vector<mma_term> ta(m * k), tb(n * k);
  parallel(threads, m, [&](std::size_t i) {
    for (std::size_t p = 0; p < k; ++p) ta[i * k + p] = mma_decode(va[i * k + p], a.op);
  });
  parallel(threads, n, [&](std::size_t j) {
    for (std::size_t p = 0; p < k; ++p) tb[j * k + p] = mma_decode(vb[j * k + p], b.op);
  });
  parallel(threads, m, [&](std::size_t i) {  // an Inf or NaN operand: the scalar model
    std::vector<double> row(n, 0.0);
    if (read_c) dst.read(dst.ctx, i, 0, n, row.data());
    for (std::size_t j = 0; j < n; ++j) {
      const double c0 = read_c ? mma_acc_in(row[j], md.out) : 0.0;
      row[j] = mma_chain(md, c0, ta.data() + i * k, tb.data() + j * k, k);
    }
    dst.store(dst.ctx, i, 0, n, row.data());
  });
}

/// gemm with opts.mma set (after setup): checks the preset against the operand types, alpha
/// and beta (std::invalid_argument naming what is allowed, C unchanged), decodes op(A) and op(B)
/// once, then each C(i,j) is detail::mma_chain over the k products, rows split over the threads
/// (run_mma_erased).
template <class Acc, class TA, class TB, class TC>
void run_mma(const problem<Acc, TA, TB, TC>& pr, mma_preset preset, unsigned threads) {
  const std::size_t np = static_cast<std::size_t>(mma_preset::count_);
  if (static_cast<std::size_t>(preset) >= np) {
    throw std::invalid_argument("mixprec::gemm: invalid tensor-core preset value; the presets: none, " +
                                mma_preset_names());
  }
  const mma_model& md = mma_model_of(preset);
  if (md.scales != 0) {
    throw std::invalid_argument(
        std::string("mixprec::gemm: tensor-core preset ") + md.name +
        " takes block scales: use mixprec::block_scaled_gemm with block_accumulator::tensor_core");
  }
  mma_check_operands<TA, TB>("mixprec::gemm", md);
  if (!detail::exact_eq(pr.alpha, Acc(1)))
    throw std::invalid_argument("mixprec::gemm: a tensor-core preset needs alpha == 1");
  if (!detail::exact_eq(pr.beta, Acc(0)) && !detail::exact_eq(pr.beta, Acc(1))) {
    throw std::invalid_argument(
        "mixprec::gemm: a tensor-core preset needs beta == 0 (C not read) or beta == 1 (C is the accumulator's start)");
  }
  using P = problem<Acc, TA, TB, TC>;
  const mma_src a{pr.a, pr.a_is, pr.a_ps, mma_operand_of<TA>(), mma_row<TA>};
  const mma_src b{pr.b, pr.b_js, pr.b_ps, mma_operand_of<TB>(), mma_row<TB>};
  auto read = [](const void* ctx, std::size_t i, std::size_t j, std::size_t cnt, double* out) {
    const P& p = *static_cast<const P*>(ctx);
    for (std::size_t l = 0; l < cnt; ++l) out[l] = static_cast<double>(p.c[i * p.c_is + (j + l) * p.c_js]);
  };
  auto store = [](const void* ctx, std::size_t i, std::size_t j, std::size_t cnt, const double* d) {
    const P& p = *static_cast<const P*>(ctx);
    for (std::size_t l = 0; l < cnt; ++l) {
      TC* c = p.c + i * p.c_is + (j + l) * p.c_js;
      if constexpr (std::is_same<TC, double>::value) {
        *c = d[l];
      } else {
        const std::uint32_t bits =
            p.out_mode == rounding::stochastic ? p.rng(p.offset + i * p.counter_is + (j + l) * p.counter_js) : 0u;
        *c = round_to<TC>(d[l], p.out_mode, overflow::ieee, bits);
      }
    }
  };
  const mma_dst dst{&pr, +read, +store};
  run_mma_erased(md, pr.m, pr.n, pr.k, a, b, detail::exact_eq(pr.beta, Acc(1)), dst, threads);
}

}  // namespace gemm
}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_KERNELS_GEMM_DETAIL_MMA_HPP
