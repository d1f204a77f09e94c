// SPDX-License-Identifier: MIT
// mixprec/detail/to_integer.hpp — moved to mixprec/core/detail/to_integer.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "../core/detail/to_integer.hpp"
