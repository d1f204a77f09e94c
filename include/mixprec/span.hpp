// SPDX-License-Identifier: MIT
// mixprec/span.hpp — moved to mixprec/core/span.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "core/span.hpp"
