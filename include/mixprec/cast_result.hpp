// SPDX-License-Identifier: MIT
// mixprec/cast_result.hpp — moved to mixprec/kernels/cast_result.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "kernels/cast_result.hpp"
