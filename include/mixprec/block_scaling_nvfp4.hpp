// SPDX-License-Identifier: MIT
// mixprec/block_scaling_nvfp4.hpp — moved to mixprec/recipes/block_scaling_nvfp4.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "recipes/block_scaling_nvfp4.hpp"
