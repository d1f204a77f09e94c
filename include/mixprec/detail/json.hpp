// SPDX-License-Identifier: MIT
// mixprec/detail/json.hpp — moved to mixprec/amp/detail/json.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "../amp/detail/json.hpp"
