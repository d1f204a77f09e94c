// SPDX-License-Identifier: MIT
// mixprec/kernels/gemm/detail/mma.hpp — gemm with a tensor-core preset (gemm_options::mma).
//
// What: detail::gemm::run_mma checks the preset against the operands, alpha and beta, decodes
// op(A) and op(B) once and chains the preset's instructions along k (kernels/tensor_core.hpp).
#ifndef MIXPREC_KERNELS_GEMM_DETAIL_MMA_HPP
#define MIXPREC_KERNELS_GEMM_DETAIL_MMA_HPP

#include "../../../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec / kernels / gemm / detail / mma.hpp
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

/// gemm with opts.mma set (after setup): checks the preset against the operand types, alpha
/// and beta (std::invalid_argument naming what is allowed, C unchanged), decodes op(A) and op(B)
/// once, then each C(i,j) is detail::mma_chain over the k products, rows split over the threads.
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
  const std::size_t m = pr.m, n = pr.n, k = pr.k;
  constexpr unsigned oa = mma_operand_of<TA>(), ob = mma_operand_of<TB>();
  const bool read_c = detail::exact_eq(pr.beta, Acc(1));
  auto store = [&](std::size_t i, std::size_t j, double d) {
    TC* c = pr.c + i * pr.c_is + j * pr.c_js;
    if constexpr (std::is_same<TC, double>::value) {
      *c = d;
    } else {
      const std::uint32_t bits =
          pr.out_mode == rounding::stochastic ? pr.rng(pr.offset + i * pr.counter_is + j * pr.counter_js) : 0u;
      *c = round_to<TC>(d, pr.out_mode, overflow::ieee, bits);
    }
  };
  // Finite operands (the usual case): mma_fused_lanes over panels of B, mma_lanes columns each.
  bool finite = true;
  for (std::size_t i = 0; i < m && finite; ++i)
    for (std::size_t p = 0; p < k && finite; ++p)
      finite = std::isfinite(mma_value(pr.a[i * pr.a_is + p * pr.a_ps], oa));
  for (std::size_t p = 0; p < k && finite; ++p)
    for (std::size_t j = 0; j < n && finite; ++j)
      finite = std::isfinite(mma_value(pr.b[p * pr.b_ps + j * pr.b_js], ob));
  if (finite) {
    constexpr std::size_t L = mma_lanes;
    const std::size_t panels = (n + L - 1) / L;
    std::vector<double> av(m * k), bv(panels * k * L);
    std::vector<int> ae(m * k), be(panels * k * L);
    parallel(threads, m, [&](std::size_t i) {
      for (std::size_t p = 0; p < k; ++p) {
        const mma_term t = mma_decode(mma_value(pr.a[i * pr.a_is + p * pr.a_ps], oa), oa);
        av[i * k + p] = t.v;
        ae[i * k + p] = t.e;
      }
    });
    parallel(threads, panels, [&](std::size_t q) {
      for (std::size_t p = 0; p < k; ++p) {
        for (std::size_t l = 0; l < L; ++l) {
          const std::size_t j = q * L + l, at = (q * k + p) * L + l;
          const mma_term t =
              j < n ? mma_decode(mma_value(pr.b[p * pr.b_ps + j * pr.b_js], ob), ob) : mma_term{0.0, -252};
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
        for (std::size_t i = rb * RB; i < std::min(m, rb * RB + RB); ++i) {
          for (std::size_t l = 0; l < L; ++l) {
            const std::size_t j = q * L + l;
            acc[l] = read_c && j < n ? mma_acc_in(static_cast<double>(pr.c[i * pr.c_is + j * pr.c_js]), md.out) : 0.0;
          }
          for (std::size_t k0 = 0; k0 < k; k0 += ik) {
            for (std::size_t lo = k0; lo < k0 + ik; lo += hk) {  // padding adds nothing: a shorter (or empty) sum
              const std::size_t cnt = lo >= k ? 0 : std::min(hk, k - lo), at = std::min(lo, k);
              mma_fused_lanes(md, acc, av.data() + i * k + at, ae.data() + i * k + at, bv.data() + (q * k + at) * L,
                              be.data() + (q * k + at) * L, cnt);
            }
          }
          for (std::size_t l = 0; l < L && q * L + l < n; ++l) store(i, q * L + l, acc[l]);
        }
      }
    });
    return;
  }
  std::vector<mma_term> ta(m * k), tb(n * k);
  parallel(threads, m, [&](std::size_t i) {
    for (std::size_t p = 0; p < k; ++p) ta[i * k + p] = mma_decode(mma_value(pr.a[i * pr.a_is + p * pr.a_ps], oa), oa);
  });
  parallel(threads, n, [&](std::size_t j) {
    for (std::size_t p = 0; p < k; ++p) tb[j * k + p] = mma_decode(mma_value(pr.b[p * pr.b_ps + j * pr.b_js], ob), ob);
  });
  parallel(threads, m, [&](std::size_t i) {  // an Inf or NaN operand: the scalar model
    for (std::size_t j = 0; j < n; ++j) {
      const double c0 = read_c ? mma_acc_in(static_cast<double>(pr.c[i * pr.c_is + j * pr.c_js]), md.out) : 0.0;
      store(i, j, mma_chain(md, c0, ta.data() + i * k, tb.data() + j * k, k));
    }
  });
}

}  // namespace gemm
}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_KERNELS_GEMM_DETAIL_MMA_HPP
