// SPDX-License-Identifier: MIT
// mixprec/autocast.hpp — moved to mixprec/amp/autocast.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "amp/autocast.hpp"
