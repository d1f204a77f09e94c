// SPDX-License-Identifier: MIT
// mixprec/kernels.hpp — the device-agnostic kernels (exec::seq, exec::par, exec::cuda).
//   #include <mixprec/kernels.hpp>
// Contract: every kernel gives the same bits under every policy and SIMD path; compile every
// translation unit that uses one with the same target flags:
// docs/pages/building.md ("Using mixprec in your project").
#ifndef MIXPREC_KERNELS_HPP
#define MIXPREC_KERNELS_HPP

#include "core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/kernels.hpp
#include "core/detail/needs_exceptions.hpp"

#include "kernels/exec.hpp"
#include "core/span.hpp"
#include "kernels/matmul_precision.hpp"
#include "kernels/convert.hpp"
#include "kernels/reduce.hpp"
#include "kernels/unscale.hpp"
#include "kernels/softmax.hpp"
#include "kernels/optim.hpp"
#include "kernels/gemm.hpp"
#include "kernels/pack.hpp"

#endif  // MIXPREC_KERNELS_HPP
