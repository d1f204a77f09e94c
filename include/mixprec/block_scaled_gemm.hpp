// SPDX-License-Identifier: MIT
// mixprec/block_scaled_gemm.hpp — moved to mixprec/recipes/block_scaled_gemm.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "recipes/block_scaled_gemm.hpp"
