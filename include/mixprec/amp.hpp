// SPDX-License-Identifier: MIT
// mixprec/amp.hpp — the mixed-precision training layer, in one include: the numeric core
// (mixprec.hpp) plus loss scaling (presets, GradScaler, JSON state dicts), FP8 delayed/current
// scaling, MX block quantization, run-time-typed conversions (cast_result), autocast (PyTorch's
// op tables, thread-local scopes) and the jmp / Keras / Apex precision policies. It brings the
// thread pool (exec.hpp) and the kernels GradScaler and cast_result use; for every kernel
// include mixprec/kernels.hpp.
//   #include <mixprec/amp.hpp>
//   mixprec::grad_scaler scaler;                                  // PyTorch's GradScaler
//   mixprec::autocast_scope scope(mixprec::device_kind::cuda);    // torch.autocast
//
// Layers (each uses only those above it and the core):
//   loss_scale.hpp, grad_scaler.hpp     loss scaling: presets, GradScaler, JSON state dicts
//   fp8_scaling.hpp, mx.hpp             FP8 delayed/current scaling, MX block quantization
//   block_scaling*.hpp                  block-scaling recipes: MX, NVFP4, DeepSeek/TE FP8 blocks
//   block_scaled_gemm.hpp               GEMM on block-scaled operands, accumulator models
//   cast_result.hpp                     run-time-typed conversions
//   autocast_ops.hpp, autocast.hpp      autocast: PyTorch's op tables, thread-local scopes
//   precision_policy.hpp                jmp / Keras / Apex precision policies
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
