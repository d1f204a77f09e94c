// SPDX-License-Identifier: MIT
// mixprec/detail/spans.hpp — moved to mixprec/core/detail/spans.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "../core/detail/spans.hpp"
