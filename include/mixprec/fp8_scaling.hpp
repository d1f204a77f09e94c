// SPDX-License-Identifier: MIT
// mixprec/fp8_scaling.hpp — moved to mixprec/recipes/fp8_scaling.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "recipes/fp8_scaling.hpp"
