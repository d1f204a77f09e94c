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

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "../core/types.hpp"

namespace mixprec {

/// Tensor-core instruction presets (docs/pages/tensor-cores.md); none: no preset.
enum class mma_preset : unsigned char {
  none = 0,
  volta_mma_f16_f32,             ///< sm_70 mma.m8n8k4.f32.f16.f16.f32
  volta_mma_f16_f16,             ///< sm_70 mma.m8n8k4.f16.f16.f16.f16
  turing_mma_f16_f32,            ///< sm_75 mma.m16n8k8.f32.f16.f16.f32
  turing_mma_f16_f16,            ///< sm_75 mma.m16n8k8.f16.f16.f16.f16
  ampere_mma_f16_f32,            ///< sm_80 mma.m16n8k16.f32.f16.f16.f32 (split k)
  ampere_mma_f16_f16,            ///< sm_80 mma.m16n8k16.f16.f16.f16.f16 (split k)
  ampere_mma_bf16_f32,           ///< sm_80 mma.m16n8k16.f32.bf16.bf16.f32 (split k)
  ampere_mma_tf32_f32,           ///< sm_80 mma.m16n8k8.f32.tf32.tf32.f32 (split k)
  ada_mma_fp8_f32,               ///< sm_89 mma.m16n8k32.f32.{e4m3,e5m2}x2.f32 (split k, 13 bits)
  ada_mma_fp8_f16,               ///< sm_89 mma.m16n8k32.f16.{e4m3,e5m2}x2.f16 (split k)
  hopper_mma_f16_f32,            ///< sm_90 mma.m16n8k16.f32.f16.f16.f32
  hopper_mma_bf16_f32,           ///< sm_90 mma.m16n8k16.f32.bf16.bf16.f32
  hopper_mma_tf32_f32,           ///< sm_90 mma.m16n8k8.f32.tf32.tf32.f32
  hopper_wgmma_f16_f32,          ///< sm_90a wgmma.m64nNk16.f32.f16.f16
  hopper_wgmma_f16_f16,          ///< sm_90a wgmma.m64nNk16.f16.f16.f16
  hopper_wgmma_bf16_f32,         ///< sm_90a wgmma.m64nNk16.f32.bf16.bf16
  hopper_wgmma_tf32_f32,         ///< sm_90a wgmma.m64nNk8.f32.tf32.tf32
  hopper_wgmma_fp8_f32,          ///< sm_90a wgmma.m64nNk32.f32.{e4m3,e5m2}x2 (13 bits)
  hopper_wgmma_fp8_f16,          ///< sm_90a wgmma.m64nNk32.f16.{e4m3,e5m2}x2
  blackwell_tcgen05_f16_f32,     ///< sm_100a tcgen05.mma kind::f16, f16 inputs, f32 D
  blackwell_tcgen05_bf16_f32,    ///< sm_100a tcgen05.mma kind::f16, bf16 inputs, f32 D
  blackwell_tcgen05_tf32_f32,    ///< sm_100a tcgen05.mma kind::tf32
  blackwell_tcgen05_f8f6f4_f32,  ///< sm_100a tcgen05.mma kind::f8f6f4, e4m3/e5m2 inputs, f32 D
  blackwell_tcgen05_f8f6f4_f16,  ///< sm_100a tcgen05.mma kind::f8f6f4, e4m3/e5m2 inputs, f16 D
  blackwell_tcgen05_mxf8f6f4,    ///< sm_100a tcgen05.mma kind::mxf8f6f4.block_scale, ue8m0 per 32
  blackwell_tcgen05_mxf4nvf4,    ///< sm_100a tcgen05.mma kind::mxf4nvf4.block_scale (k 64)
  cdna3_mfma_f16_f32,            ///< AMD CDNA3 v_mfma_f32_32x32x8_f16 (groups of 8)
  cdna3_mfma_bf16_f32,           ///< AMD CDNA3 v_mfma_f32_32x32x8_bf16 (groups of 8)
  cdna3_mfma_fp8_f32,            ///< AMD CDNA3 v_mfma_f32_16x16x32_{fp8,bf8}_{fp8,bf8} (groups of 16)
  cdna1_mfma_f16_f32,            ///< AMD CDNA1 v_mfma_f32_32x32x8f16 (pairwise f32 sums of 4)
  cdna1_mfma_bf16_f32,           ///< AMD CDNA1 v_mfma_f32_32x32x4bf16 (pairwise f32 sums of 2)
  cdna2_mfma_f16_f32,            ///< AMD CDNA2 v_mfma_f32_32x32x8f16 (pairwise sums of 4, subnormals flushed)
  cdna2_mfma_bf16_f32,           ///< AMD CDNA2 v_mfma_f32_32x32x8bf16_1k (pairwise sums of 4, subnormals flushed)
  count_                         ///< not a preset
};

/// What an instruction writes.
enum class mma_output : unsigned char {
  f32,         ///< f32, truncated toward zero to 23 fraction bits
  f32_e8m13,   ///< f32 with 13 fraction bits (truncated toward zero), the low 10 bits zero
  f16,         ///< f16, nearest even
  f32_rne      ///< f32, nearest even (AMD CDNA3)
};

// Operand formats (bit flags of mma_model::operands).
inline constexpr unsigned mma_f16 = 1u;         ///< operand flag: half
inline constexpr unsigned mma_bf16 = 2u;        ///< operand flag: bfloat16
inline constexpr unsigned mma_tf32 = 4u;        ///< operand flag: tf32
inline constexpr unsigned mma_e4m3 = 8u;        ///< operand flag: float8_e4m3fn
inline constexpr unsigned mma_e5m2 = 16u;       ///< operand flag: float8_e5m2
inline constexpr unsigned mma_e2m1 = 32u;       ///< operand flag: float4_e2m1fn
inline constexpr unsigned mma_e4m3fnuz = 64u;   ///< operand flag: float8_e4m3fnuz
inline constexpr unsigned mma_e5m2fnuz = 128u;  ///< operand flag: float8_e5m2fnuz
inline constexpr unsigned mma_e2m3 = 256u;      ///< operand flag: float6_e2m3fn
inline constexpr unsigned mma_e3m2 = 512u;      ///< operand flag: float6_e3m2fn

// Block-scale layouts (bit flags of mma_model::scales).
inline constexpr unsigned mma_ue8m0_block32 = 1u;  ///< scale flag: UE8M0 per 32 elements
inline constexpr unsigned mma_ue8m0_block16 = 2u;  ///< scale flag: UE8M0 per 16 elements
inline constexpr unsigned mma_ue4m3_block16 = 4u;  ///< scale flag: UE4M3 per 16 elements

/// One instruction's datapath (docs/pages/tensor-cores.md, "The datapath").
struct mma_model {
  mma_preset preset;        ///< which preset
  const char* name;         ///< its name, e.g. "hopper_wgmma_fp8_f32"
  const char* instruction;  ///< the PTX instruction modelled
  const char* mmasim;       ///< MMA-Sim's (arch, class, qualifier) that generated the test vectors
  int k;                    ///< products per instruction
  int split;                ///< fused sums per instruction, k / split products each (1 or 2)
  int frac_bits;            ///< fraction bits kept per aligned term
  mma_output out;           ///< the output
  unsigned operands;        ///< allowed operand formats (mma_f16, mma_bf16, ... flags), A and B alike
  unsigned scales;          ///< block-scale layouts (mma_ue8m0_block32, ... flags); 0: none
  int amd;                  ///< 0: NVIDIA's fused sum; 1: CDNA3 round-down fused sum; 2: its two-stage FP8 form;
                            ///< 3: CDNA1 pairwise f32 sums; 4: CDNA2 pairwise f32 sums, subnormals flushed
  int group;                ///< AMD: products per group (fused or pairwise sum); 0 for NVIDIA
};

}  // namespace mixprec

// The preset table and the datapath: they need the types above.
#include "detail/mma_table.hpp"
#include "detail/mma_datapath.hpp"

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
