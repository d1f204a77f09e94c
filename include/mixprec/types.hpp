// SPDX-License-Identifier: MIT
// mixprec/types.hpp — moved to mixprec/core/types.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "core/types.hpp"
