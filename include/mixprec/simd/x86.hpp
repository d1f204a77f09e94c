// SPDX-License-Identifier: MIT
// mixprec/simd/x86.hpp — kept for existing includes: <immintrin.h> and the ISA macros now come
// from mixprec/simd/isa.hpp, the one instruction-set detection.
#ifndef MIXPREC_DETAIL_X86_HPP
#define MIXPREC_DETAIL_X86_HPP

#include "isa.hpp"

#endif  // MIXPREC_DETAIL_X86_HPP
