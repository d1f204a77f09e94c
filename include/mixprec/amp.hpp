// SPDX-License-Identifier: MIT
// mixprec/amp.hpp — the mixed-precision training layer, in one include: the numeric core
// (mixprec.hpp) plus loss scaling (presets, GradScaler, JSON state dicts), FP8 delayed/current
// scaling, the block-scaling recipes (MX, NVFP4, FP8 blocks) and their GEMM, run-time-typed
// conversions (cast_result), autocast and the jmp / Keras / Apex precision policies. It brings the
// thread pool (exec.hpp) and the kernels GradScaler and cast_result use; for every kernel
// include mixprec/kernels.hpp.
//   #include <mixprec/amp.hpp>
//   mixprec::grad_scaler scaler;                                  // PyTorch's GradScaler
//   mixprec::autocast_scope scope(mixprec::device_kind::cuda);    // torch.autocast
#ifndef MIXPREC_AMP_HPP
#define MIXPREC_AMP_HPP

#include "core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/amp.hpp
#include "core/detail/needs_exceptions.hpp"

#include "mixprec.hpp"
#include "amp/loss_scale.hpp"
#include "amp/grad_scaler.hpp"
#include "recipes/fp8_scaling.hpp"
#include "recipes/mx.hpp"
#include "recipes/block_scaling.hpp"
#include "recipes/block_scaling_mx.hpp"
#include "recipes/block_scaling_nvfp4.hpp"
#include "recipes/block_scaling_fp8.hpp"
#include "recipes/block_scaled_gemm.hpp"
#include "kernels/cast_result.hpp"
#include "amp/autocast_ops.hpp"
#include "amp/autocast.hpp"
#include "amp/precision_policy.hpp"

#endif  // MIXPREC_AMP_HPP
