// SPDX-License-Identifier: MIT
// mixprec/round_to.hpp — moved to mixprec/core/round_to.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "core/round_to.hpp"
