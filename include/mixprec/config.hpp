// SPDX-License-Identifier: MIT
// mixprec/config.hpp — moved to mixprec/core/config.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "core/config.hpp"
