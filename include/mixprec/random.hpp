// SPDX-License-Identifier: MIT
// mixprec/random.hpp — moved to mixprec/core/random.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "core/random.hpp"
