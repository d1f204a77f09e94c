// SPDX-License-Identifier: MIT
// mixprec/kernels/detail/mma_table.hpp — the tensor-core presets' table: one mma_model row per
// mma_preset (its instruction, MMA-Sim class, k, split, fraction bits, output, operands, scales).
// Its types are ../mma_model.hpp's.
#ifndef MIXPREC_KERNELS_DETAIL_MMA_TABLE_HPP
#define MIXPREC_KERNELS_DETAIL_MMA_TABLE_HPP

#include <cstddef>

#include "../mma_model.hpp"

namespace mixprec {
namespace detail {

inline const mma_model* mma_table() noexcept {
  constexpr unsigned f16 = mma_f16, bf16 = mma_bf16, tf32 = mma_tf32, fp8 = mma_e4m3 | mma_e5m2;
  constexpr unsigned f8f6f4 = fp8 | mma_e2m3 | mma_e3m2 | mma_e2m1;
  static const mma_model t[] = {
      {mma_preset::none, "none", "", "", 0, 1, 0, mma_output::f32, 0, 0, 0, 0},
      {mma_preset::volta_mma_f16_f32, "volta_mma_f16_f32", "mma.sync.aligned.m8n8k4.f32.f16.f16.f32 (sm_70)",
       "mma('Volta', 'm8n8k4.f32.f16.f16.f32')", 4, 1, 23, mma_output::f32, f16, 0, 0, 0},
      {mma_preset::volta_mma_f16_f16, "volta_mma_f16_f16", "mma.sync.aligned.m8n8k4.f16.f16.f16.f16 (sm_70)",
       "mma('Volta', 'm8n8k4.f16.f16.f16.f16')", 4, 1, 23, mma_output::f16, f16, 0, 0, 0},
      {mma_preset::turing_mma_f16_f32, "turing_mma_f16_f32", "mma.sync.aligned.m16n8k8.f32.f16.f16.f32 (sm_75)",
       "mma('Turing', 'm16n8k8.f32.f16.f16.f32')", 8, 1, 24, mma_output::f32, f16, 0, 0, 0},
      {mma_preset::turing_mma_f16_f16, "turing_mma_f16_f16", "mma.sync.aligned.m16n8k8.f16.f16.f16.f16 (sm_75)",
       "mma('Turing', 'm16n8k8.f16.f16.f16.f16')", 8, 1, 24, mma_output::f16, f16, 0, 0, 0},
      {mma_preset::ampere_mma_f16_f32, "ampere_mma_f16_f32", "mma.sync.aligned.m16n8k16.f32.f16.f16.f32 (sm_80)",
       "mma('Ampere', 'm16n8k16.f32.f16.f16.f32')", 16, 2, 24, mma_output::f32, f16, 0, 0, 0},
      {mma_preset::ampere_mma_f16_f16, "ampere_mma_f16_f16", "mma.sync.aligned.m16n8k16.f16.f16.f16.f16 (sm_80)",
       "mma('Ampere', 'm16n8k16.f16.f16.f16.f16')", 16, 2, 24, mma_output::f16, f16, 0, 0, 0},
      {mma_preset::ampere_mma_bf16_f32, "ampere_mma_bf16_f32", "mma.sync.aligned.m16n8k16.f32.bf16.bf16.f32 (sm_80)",
       "mma('Ampere', 'm16n8k16.f32.bf16.bf16.f32')", 16, 2, 24, mma_output::f32, bf16, 0, 0, 0},
      {mma_preset::ampere_mma_tf32_f32, "ampere_mma_tf32_f32", "mma.sync.aligned.m16n8k8.f32.tf32.tf32.f32 (sm_80)",
       "mma('Ampere', 'm16n8k8.f32.tf32.tf32.f32')", 8, 2, 24, mma_output::f32, tf32, 0, 0, 0},
      {mma_preset::ada_mma_fp8_f32, "ada_mma_fp8_f32", "mma.sync.aligned.m16n8k32.f32.{e4m3,e5m2}.{e4m3,e5m2}.f32 (sm_89)",
       "mma('Ada Lovelace', 'm16n8k32.f32.<a>.<b>.f32')", 32, 2, 13, mma_output::f32_e8m13, fp8, 0, 0, 0},
      {mma_preset::ada_mma_fp8_f16, "ada_mma_fp8_f16", "mma.sync.aligned.m16n8k32.f16.{e4m3,e5m2}.{e4m3,e5m2}.f16 (sm_89)",
       "mma('Ada Lovelace', 'm16n8k32.f16.<a>.<b>.f16')", 32, 2, 13, mma_output::f16, fp8, 0, 0, 0},
      {mma_preset::hopper_mma_f16_f32, "hopper_mma_f16_f32", "mma.sync.aligned.m16n8k16.f32.f16.f16.f32 (sm_90)",
       "mma('Hopper', 'm16n8k16.f32.f16.f16.f32')", 16, 1, 25, mma_output::f32, f16, 0, 0, 0},
      {mma_preset::hopper_mma_bf16_f32, "hopper_mma_bf16_f32", "mma.sync.aligned.m16n8k16.f32.bf16.bf16.f32 (sm_90)",
       "mma('Hopper', 'm16n8k16.f32.bf16.bf16.f32')", 16, 1, 25, mma_output::f32, bf16, 0, 0, 0},
      {mma_preset::hopper_mma_tf32_f32, "hopper_mma_tf32_f32", "mma.sync.aligned.m16n8k8.f32.tf32.tf32.f32 (sm_90)",
       "mma('Hopper', 'm16n8k8.f32.tf32.tf32.f32')", 8, 1, 25, mma_output::f32, tf32, 0, 0, 0},
      {mma_preset::hopper_wgmma_f16_f32, "hopper_wgmma_f16_f32", "wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16 (sm_90a)",
       "wgmma('Hopper', 'm64n8k16.f32.f16.f16')", 16, 1, 25, mma_output::f32, f16, 0, 0, 0},
      {mma_preset::hopper_wgmma_f16_f16, "hopper_wgmma_f16_f16", "wgmma.mma_async.sync.aligned.m64nNk16.f16.f16.f16 (sm_90a)",
       "wgmma('Hopper', 'm64n8k16.f16.f16.f16')", 16, 1, 25, mma_output::f16, f16, 0, 0, 0},
      {mma_preset::hopper_wgmma_bf16_f32, "hopper_wgmma_bf16_f32", "wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16 (sm_90a)",
       "wgmma('Hopper', 'm64n8k16.f32.bf16.bf16')", 16, 1, 25, mma_output::f32, bf16, 0, 0, 0},
      {mma_preset::hopper_wgmma_tf32_f32, "hopper_wgmma_tf32_f32", "wgmma.mma_async.sync.aligned.m64nNk8.f32.tf32.tf32 (sm_90a)",
       "wgmma('Hopper', 'm64n8k8.f32.tf32.tf32')", 8, 1, 25, mma_output::f32, tf32, 0, 0, 0},
      {mma_preset::hopper_wgmma_fp8_f32, "hopper_wgmma_fp8_f32", "wgmma.mma_async.sync.aligned.m64nNk32.f32.{e4m3,e5m2}.{e4m3,e5m2} (sm_90a)",
       "wgmma('Hopper', 'm64n8k32.f32.<a>.<b>')", 32, 1, 13, mma_output::f32_e8m13, fp8, 0, 0, 0},
      {mma_preset::hopper_wgmma_fp8_f16, "hopper_wgmma_fp8_f16", "wgmma.mma_async.sync.aligned.m64nNk32.f16.{e4m3,e5m2}.{e4m3,e5m2} (sm_90a)",
       "wgmma('Hopper', 'm64n8k32.f16.<a>.<b>')", 32, 1, 13, mma_output::f16, fp8, 0, 0, 0},
      {mma_preset::blackwell_tcgen05_f16_f32, "blackwell_tcgen05_f16_f32", "tcgen05.mma.cta_group::1.kind::f16, f16 A/B, f32 D (sm_100a)",
       "tcgen05mma('Blackwell', 'm64n8k16.f32.f16.f16')", 16, 1, 25, mma_output::f32, f16, 0, 0, 0},
      {mma_preset::blackwell_tcgen05_bf16_f32, "blackwell_tcgen05_bf16_f32", "tcgen05.mma.cta_group::1.kind::f16, bf16 A/B, f32 D (sm_100a)",
       "tcgen05mma('Blackwell', 'm64n8k16.f32.bf16.bf16')", 16, 1, 25, mma_output::f32, bf16, 0, 0, 0},
      {mma_preset::blackwell_tcgen05_tf32_f32, "blackwell_tcgen05_tf32_f32", "tcgen05.mma.cta_group::1.kind::tf32 (sm_100a)",
       "tcgen05mma('Blackwell', 'm64n8k8.f32.tf32.tf32')", 8, 1, 25, mma_output::f32, tf32, 0, 0, 0},
      {mma_preset::blackwell_tcgen05_f8f6f4_f32, "blackwell_tcgen05_f8f6f4_f32", "tcgen05.mma.cta_group::1.kind::f8f6f4, e4m3/e5m2/e2m3/e3m2/e2m1 A/B, f32 D (sm_100a)",
       "tcgen05mma('Blackwell', 'm64n8k32.f32.<a>.<b>') (e2m3/e3m2/e2m1: its sum, operands at their own emin)", 32, 1, 25,
       mma_output::f32, f8f6f4, 0, 0, 0},
      {mma_preset::blackwell_tcgen05_f8f6f4_f16, "blackwell_tcgen05_f8f6f4_f16", "tcgen05.mma.cta_group::1.kind::f8f6f4, e4m3/e5m2/e2m3/e3m2/e2m1 A/B, f16 D (sm_100a)",
       "tcgen05mma('Blackwell', 'm64n8k32.f16.<a>.<b>') (e2m3/e3m2/e2m1: its sum, operands at their own emin)", 32, 1, 25,
       mma_output::f16, f8f6f4, 0, 0, 0},
      {mma_preset::blackwell_tcgen05_mxf8f6f4, "blackwell_tcgen05_mxf8f6f4", "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X, e4m3/e5m2/e2m3/e3m2/e2m1, ue8m0 (sm_100a)",
       "tcgen05mma_block_scale('Blackwell', 'm128n8k32.block32.f32.<a>.<b>.ue8m0') (e2m3/e3m2/e2m1: its sum, operands at their own emin)",
       32, 1, 25, mma_output::f32, f8f6f4, mma_ue8m0_block32, 0, 0},
      {mma_preset::blackwell_tcgen05_mxf4nvf4, "blackwell_tcgen05_mxf4nvf4", "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::{2X,4X}, e2m1 (sm_100a)",
       "tcgen05mma_block_scale('Blackwell', 'm128n8k64.block{32,16}.f32.e2m1.e2m1.{ue8m0,ue4m3}')", 64, 1, 35,
       mma_output::f32, mma_e2m1, mma_ue8m0_block32 | mma_ue8m0_block16 | mma_ue4m3_block16, 0, 0},
      {mma_preset::cdna3_mfma_f16_f32, "cdna3_mfma_f16_f32", "v_mfma_f32_32x32x8_f16 (CDNA3, gfx942)",
       "mfma('CDNA3', 'f32_32x32x8_f16')", 8, 1, 24, mma_output::f32_rne, f16, 0, 1, 8},
      {mma_preset::cdna3_mfma_bf16_f32, "cdna3_mfma_bf16_f32", "v_mfma_f32_32x32x8_bf16 (CDNA3, gfx942)",
       "mfma('CDNA3', 'f32_32x32x8_bf16')", 8, 1, 24, mma_output::f32_rne, bf16, 0, 1, 8},
      {mma_preset::cdna3_mfma_fp8_f32, "cdna3_mfma_fp8_f32", "v_mfma_f32_16x16x32_{fp8,bf8}_{fp8,bf8} (CDNA3, gfx942; FNUZ E4M3 / E5M2)",
       "mfma('CDNA3', 'f32_16x16x32_<a>_<b>')", 16, 1, 24, mma_output::f32_rne, mma_e4m3fnuz | mma_e5m2fnuz, 0, 2, 16},
      {mma_preset::cdna1_mfma_f16_f32, "cdna1_mfma_f16_f32", "v_mfma_f32_32x32x8f16 (CDNA1, gfx908)",
       "mfma('CDNA1', 'f32_32x32x8f16') (operands widened to f32 for its pairwise_dot)", 8, 1, 0, mma_output::f32_rne, f16, 0, 3, 4},
      {mma_preset::cdna1_mfma_bf16_f32, "cdna1_mfma_bf16_f32", "v_mfma_f32_32x32x4bf16 (CDNA1, gfx908)",
       "mfma('CDNA1', 'f32_32x32x4bf16') (operands widened to f32 for its pairwise_dot)", 4, 1, 0, mma_output::f32_rne, bf16, 0, 3, 2},
      {mma_preset::cdna2_mfma_f16_f32, "cdna2_mfma_f16_f32", "v_mfma_f32_32x32x8f16 (CDNA2, gfx90a)",
       "mfma('CDNA2', 'f32_32x32x8f16') (operands widened to f32 for its pairwise_dot)", 8, 1, 0, mma_output::f32_rne, f16, 0, 4, 4},
      {mma_preset::cdna2_mfma_bf16_f32, "cdna2_mfma_bf16_f32", "v_mfma_f32_32x32x8bf16_1k (CDNA2, gfx90a)",
       "mfma('CDNA2', 'f32_32x32x8bf16_1k') (operands widened to f32 for its pairwise_dot)", 8, 1, 0, mma_output::f32_rne, bf16, 0, 4, 4},
  };
  static_assert(sizeof(t) / sizeof(t[0]) == static_cast<std::size_t>(mma_preset::count_), "one row per preset");
  return t;
}

}  // namespace detail

}  // namespace mixprec

#endif  // MIXPREC_KERNELS_DETAIL_MMA_TABLE_HPP
