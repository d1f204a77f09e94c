// SPDX-License-Identifier: MIT
// mixprec/matmul_precision.hpp — moved to mixprec/kernels/matmul_precision.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "kernels/matmul_precision.hpp"
