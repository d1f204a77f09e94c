// SPDX-License-Identifier: MIT
// mixprec/mx.hpp — moved to mixprec/recipes/mx.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "recipes/mx.hpp"
