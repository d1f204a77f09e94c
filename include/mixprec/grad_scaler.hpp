// SPDX-License-Identifier: MIT
// mixprec/grad_scaler.hpp — moved to mixprec/amp/grad_scaler.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "amp/grad_scaler.hpp"
