// SPDX-License-Identifier: MIT
// mixprec/simd/x86.hpp — forwards to mixprec/simd/isa.hpp (<immintrin.h> and the ISA macros).
#ifndef MIXPREC_DETAIL_X86_HPP
#define MIXPREC_DETAIL_X86_HPP

#include "isa.hpp"

#endif  // MIXPREC_DETAIL_X86_HPP
