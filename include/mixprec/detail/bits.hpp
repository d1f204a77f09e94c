// SPDX-License-Identifier: MIT
// mixprec/detail/bits.hpp — moved to mixprec/core/detail/bits.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "../core/detail/bits.hpp"
