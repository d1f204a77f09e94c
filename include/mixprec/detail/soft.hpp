// SPDX-License-Identifier: MIT
// mixprec/detail/soft.hpp — moved to mixprec/core/detail/soft.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "../core/detail/soft.hpp"
