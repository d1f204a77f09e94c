// SPDX-License-Identifier: MIT
// mixprec/kernels.hpp — the device-agnostic kernels (exec::seq, exec::par, exec::cuda).
//
// The x86 fast paths (convert, unscale_and_check, gemm) are chosen at compile time from the
// target flags (-mavx512f, -mf16c, -march=...). Like every header-only SIMD library, they assume
// that all translation units of a program that use a kernel are compiled with the SAME target
// flags: inline functions compiled differently in two units would break the one-definition rule
// and the linker keeps one of them (an AVX-512 copy can then run on a CPU without AVX-512).
// Results do not depend on the choice: every path gives the same bits.
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
