// SPDX-License-Identifier: MIT
// mixprec/hash.hpp — moved to mixprec/core/hash.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "core/hash.hpp"
