// SPDX-License-Identifier: MIT
// mixprec/kernels/tensor_core.hpp — tensor-core accumulation presets: what one NVIDIA mma / wgmma /
// tcgen05.mma or AMD mfma instruction does with its products and accumulator, bit for bit (a model
// after MMA-Sim), and a dot product that chains the instruction along k.
//
//   mma_dot(preset, a, b, k, c)                          d = c + a . b through the preset
//   mma_dot_scaled(preset, a, b, k, c, sa, sb, block)    the block-scaled kinds (mx, nvf4)
//   mma_model_of(preset), mma_preset_from_name(name)     a preset's model; a preset by name
//   gemm_options::mma = preset (kernels/gemm.hpp)        the same model for a whole GEMM
//
// Contract: the output bits are MMA-Sim's on the committed vectors (tests/golden/mma_vectors*.txt;
// nothing here ran on a GPU); an operand type, scale layout or preset the instruction does not
// take throws std::invalid_argument naming what it takes. The fused sum, split k, Inf/NaN, the AMD
// forms and the chaining: docs/pages/tensor-cores.md ("The datapath").
//
//   float d = mixprec::mma_dot(mixprec::mma_preset::hopper_wgmma_fp8_f32, a, b, 32, 0.0f);  // float8_e4m3fn a, b
#ifndef MIXPREC_KERNELS_TENSOR_CORE_HPP
#define MIXPREC_KERNELS_TENSOR_CORE_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/kernels/tensor_core.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "../core/types.hpp"
#include "detail/mma_datapath.hpp"
#include "detail/mma_table.hpp"
#include "mma_model.hpp"

namespace mixprec {

/// The model of a preset; std::invalid_argument for none or a value out of range.
inline const mma_model& mma_model_of(mma_preset p) {
  const auto i = static_cast<std::size_t>(p);
  if (i == 0 || i >= static_cast<std::size_t>(mma_preset::count_)) {
    throw std::invalid_argument("mixprec::mma_model_of: not a tensor-core preset (value " + std::to_string(i) + ")");
  }
  return detail::mma_table()[i];
}

/// The presets' names, comma-separated (for error messages).
inline std::string mma_preset_names() {
  std::string s;
  for (std::size_t i = 1; i < static_cast<std::size_t>(mma_preset::count_); ++i) {
    if (i > 1) s += ", ";
    s += detail::mma_table()[i].name;
  }
  return s;
}

/// The preset named `name` ("none" gives mma_preset::none); std::invalid_argument naming the
/// presets otherwise.
inline mma_preset mma_preset_from_name(const std::string& name) {
  for (std::size_t i = 0; i < static_cast<std::size_t>(mma_preset::count_); ++i) {
    if (name == detail::mma_table()[i].name) return detail::mma_table()[i].preset;
  }
  throw std::invalid_argument("mixprec: unknown tensor-core preset '" + name + "'; the presets: none, " +
                              mma_preset_names());
}
/// d = the chained instructions of `preset` over a[0..k) . b[0..k) starting from c (converted to
/// the accumulator: f32, or f16 for the f16 presets), returned as a float (an f16 result is exact).
/// A and B: the preset's operand formats (float for tf32 is truncated to tf32, as MMA-Sim does).
/// std::invalid_argument (naming what is allowed) for another type, a scaled preset (see
/// mma_dot_scaled) or none.
template <class TA, class TB>
float mma_dot(mma_preset preset, const TA* a, const TB* b, std::size_t k, float c) {
  const mma_model& m = mma_model_of(preset);
  if (m.scales != 0) {
    throw std::invalid_argument(std::string("mixprec::mma_dot: preset ") + m.name +
                                " takes block scales; use mma_dot_scaled");
  }
  detail::mma_check_operands<TA, TB>("mixprec::mma_dot", m);
  const unsigned oa = detail::mma_operand_of<TA>(), ob = detail::mma_operand_of<TB>();
  std::vector<detail::mma_term> ta(k), tb(k);
  for (std::size_t p = 0; p < k; ++p) {
    ta[p] = detail::mma_decode(detail::mma_value(a[p], oa), oa);
    tb[p] = detail::mma_decode(detail::mma_value(b[p], ob), ob);
  }
  return static_cast<float>(detail::mma_chain(m, detail::mma_acc_in(static_cast<double>(c), m.out), ta.data(), tb.data(), k));
}

/// mma_dot for the block-scaled presets: sa[q], sb[q] scale elements [q * block, (q + 1) * block)
/// (mxf8f6f4: float8_e8m0fnu, block 32; mxf4nvf4: float8_e8m0fnu with block 32 or 16, or
/// float8_ue4m3 with block 16). k is padded with zeros (and scale 1) to the instruction's k.
template <class TA, class TB, class S>
float mma_dot_scaled(mma_preset preset, const TA* a, const TB* b, std::size_t k, float c, const S* sa, const S* sb,
                     std::size_t block) {
  const mma_model& m = mma_model_of(preset);
  const char* who = "mixprec::mma_dot_scaled";
  if (m.scales == 0) throw std::invalid_argument(std::string(who) + ": preset " + m.name + " takes no block scales; use mma_dot");
  unsigned layout = 0;
  if (std::is_same<S, float8_e8m0fnu>::value) layout = block == 32 ? mma_ue8m0_block32 : block == 16 ? mma_ue8m0_block16 : 0;
  if (std::is_same<S, float8_ue4m3>::value) layout = block == 16 ? mma_ue4m3_block16 : 0;
  if ((layout & m.scales) == 0) {
    throw std::invalid_argument(std::string(who) + ": preset " + m.name + " takes scales " +
                                (m.scales == mma_ue8m0_block32 ? "float8_e8m0fnu per 32"
                                                               : "float8_e8m0fnu per 32 or 16, or float8_ue4m3 per 16") +
                                "; got block " + std::to_string(block));
  }
  detail::mma_check_operands<TA, TB>(who, m);
  const unsigned oa = detail::mma_operand_of<TA>(), ob = detail::mma_operand_of<TB>();
  const std::size_t ik = static_cast<std::size_t>(m.k);
  double acc = static_cast<double>(c);
  if (m.preset == mma_preset::blackwell_tcgen05_mxf4nvf4) {
    double va[64], vb[64], xa[4], xb[4];
    for (std::size_t k0 = 0; k0 < k; k0 += ik) {
      for (std::size_t p = 0; p < ik; ++p) {
        va[p] = k0 + p < k ? static_cast<double>(a[k0 + p]) : 0.0;
        vb[p] = k0 + p < k ? static_cast<double>(b[k0 + p]) : 0.0;
      }
      for (std::size_t g = 0; g < 4; ++g) {
        const std::size_t p = k0 + g * 16;
        xa[g] = p < k ? static_cast<double>(sa[p / block]) : 1.0;
        xb[g] = p < k ? static_cast<double>(sb[p / block]) : 1.0;
      }
      acc = detail::mma_fused_nvf4(m, acc, va, vb, ik, xa, xb, std::is_same<S, float8_ue4m3>::value);
    }
    return static_cast<float>(acc);
  }
  detail::mma_term ta[64], tb[64];
  for (std::size_t k0 = 0; k0 < k; k0 += ik) {
    for (std::size_t p = 0; p < ik; ++p) {
      ta[p] = k0 + p < k ? detail::mma_decode(static_cast<double>(a[k0 + p]), oa) : detail::mma_term{0.0, -126};
      tb[p] = k0 + p < k ? detail::mma_decode(static_cast<double>(b[k0 + p]), ob) : detail::mma_term{0.0, -126};
    }
    const double x = static_cast<double>(sa[k0 / block]), y = static_cast<double>(sb[k0 / block]);
    if (!detail::exact_eq(x, x) || !detail::exact_eq(y, y)) {
      acc = detail::mma_nan(m.out);
      continue;
    }
    acc = detail::mma_fused(m, acc, ta, tb, ik, detail::mma_ilogb(x) + detail::mma_ilogb(y));
  }
  return static_cast<float>(acc);
}

}  // namespace mixprec

#endif  // MIXPREC_KERNELS_TENSOR_CORE_HPP
