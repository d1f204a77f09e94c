// SPDX-License-Identifier: MIT
// mixprec/autocast_ops.hpp — moved to mixprec/amp/autocast_ops.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "amp/autocast_ops.hpp"
