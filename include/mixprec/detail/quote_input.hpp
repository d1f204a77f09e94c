// SPDX-License-Identifier: MIT
// mixprec/detail/quote_input.hpp — moved to mixprec/core/detail/quote_input.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "../core/detail/quote_input.hpp"
