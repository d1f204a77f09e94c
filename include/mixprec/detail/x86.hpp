// SPDX-License-Identifier: MIT
// mixprec/detail/x86.hpp — moved to mixprec/simd/isa.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "../simd/isa.hpp"
