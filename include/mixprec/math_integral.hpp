// SPDX-License-Identifier: MIT
// mixprec/math_integral.hpp — moved to mixprec/math/integral.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "math/integral.hpp"
