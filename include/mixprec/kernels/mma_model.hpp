// SPDX-License-Identifier: MIT
// mixprec/kernels/mma_model.hpp — the vocabulary of the tensor-core presets (kernels/tensor_core.hpp):
// mma_preset (one per modelled instruction), mma_output, the operand and block-scale flags, and
// mma_model (one instruction's datapath parameters; docs/pages/tensor-cores.md, "The datapath").
//
//   const mixprec::mma_model& m = mixprec::mma_model_of(mixprec::mma_preset::hopper_wgmma_fp8_f32);  // m.k == 32
#ifndef MIXPREC_KERNELS_MMA_MODEL_HPP
#define MIXPREC_KERNELS_MMA_MODEL_HPP

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

#endif  // MIXPREC_KERNELS_MMA_MODEL_HPP
