// SPDX-License-Identifier: MIT
// mixprec/detail/simd_optim.hpp — moved to mixprec/kernels/detail/simd_optim.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "../kernels/detail/simd_optim.hpp"
