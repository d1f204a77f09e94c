// SPDX-License-Identifier: MIT
// mixprec/precision_policy.hpp — moved to mixprec/amp/precision_policy.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "amp/precision_policy.hpp"
