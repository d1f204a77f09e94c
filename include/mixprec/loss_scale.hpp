// SPDX-License-Identifier: MIT
// mixprec/loss_scale.hpp — moved to mixprec/amp/loss_scale.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "amp/loss_scale.hpp"
