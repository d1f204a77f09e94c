// SPDX-License-Identifier: MIT
// mixprec/packed.hpp — moved to mixprec/core/packed.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "core/packed.hpp"
