// SPDX-License-Identifier: MIT
// mixprec/detail/simd_convert.hpp — moved to mixprec/kernels/detail/simd_convert.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "../kernels/detail/simd_convert.hpp"
