// SPDX-License-Identifier: MIT
// mixprec/arithmetic.hpp — moved to mixprec/core/arithmetic.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "core/arithmetic.hpp"
