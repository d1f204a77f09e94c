// SPDX-License-Identifier: MIT
// mixprec/detail/values.hpp — moved to mixprec/core/detail/values.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "../core/detail/values.hpp"
