// SPDX-License-Identifier: MIT
// mixprec/format.hpp — moved to mixprec/core/format.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "core/format.hpp"
