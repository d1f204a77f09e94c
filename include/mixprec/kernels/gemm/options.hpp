// SPDX-License-Identifier: MIT
// mixprec/kernels/gemm/options.hpp — gemm()'s public options: transpose, storage order, algorithm, gemm_options.
//
// What: the enums and the options struct of mixprec::gemm (kernels/gemm.hpp, which includes this).
// Semantics: docs/pages/kernels-reference.md, "GEMM".
#ifndef MIXPREC_KERNELS_GEMM_OPTIONS_HPP
#define MIXPREC_KERNELS_GEMM_OPTIONS_HPP

#include <cstdint>

#include "../../core/config.hpp"
#include "../../core/random.hpp"
#include "../../core/rounding.hpp"
#include "../tensor_core.hpp"

namespace mixprec {

/// op(X): X as stored, or its transpose.
enum class transpose : unsigned char { none, trans };
/// Storage order of A, B and C.
enum class layout : unsigned char { row_major, col_major };
/// How the products are accumulated (docs/pages/kernels-reference.md, "GEMM").
enum class gemm_algorithm : unsigned char {
  exact,     ///< acc = fma(a, b, acc) for p = 0..k-1 in Acc, inputs converted exactly
  bf16_dot2  ///< vdpbf16ps semantics: inputs flushed (DAZ), tiny steps flushed (FTZ); bfloat16 only
};

/// Options of gemm().
struct gemm_options {
  layout order = layout::row_major;                   ///< storage order of A, B and C
  rounding output_rounding = rounding::nearest_even;  ///< rounding of the result into C's type
  std::uint64_t seed = 0;                             ///< rounding::stochastic: the generator's seed
  std::uint64_t offset = 0;                           ///< rounding::stochastic: counter of C's element 0
  gemm_algorithm algorithm = gemm_algorithm::exact;   ///< how the products are accumulated
  rng_kind generator = rng_kind::splitmix64;          ///< rounding::stochastic: counter_rng or philox_rng
  /// A tensor-core preset (kernels/tensor_core.hpp): each C(i,j) is the preset's instructions
  /// chained along k from C (beta == 1) or +0 (beta == 0), alpha == 1, then rounded into C's type.
  mma_preset mma = mma_preset::none;
};

}  // namespace mixprec

#endif  // MIXPREC_KERNELS_GEMM_OPTIONS_HPP
