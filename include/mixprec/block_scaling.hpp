// SPDX-License-Identifier: MIT
// mixprec/block_scaling.hpp — moved to mixprec/recipes/block_scaling.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "recipes/block_scaling.hpp"
