// SPDX-License-Identifier: MIT
// mixprec/limits.hpp — moved to mixprec/core/limits.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "core/limits.hpp"
