// SPDX-License-Identifier: MIT
// mixprec/rounding.hpp — moved to mixprec/core/rounding.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "core/rounding.hpp"
