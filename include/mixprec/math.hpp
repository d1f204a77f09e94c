// SPDX-License-Identifier: MIT
// mixprec/math.hpp — moved to mixprec/math/cmath.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "math/cmath.hpp"
