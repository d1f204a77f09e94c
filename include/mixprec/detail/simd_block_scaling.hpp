// SPDX-License-Identifier: MIT
// mixprec/detail/simd_block_scaling.hpp — moved to mixprec/recipes/detail/simd_block_scaling.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "../recipes/detail/simd_block_scaling.hpp"
