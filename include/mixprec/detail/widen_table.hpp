// SPDX-License-Identifier: MIT
// mixprec/detail/widen_table.hpp — moved to mixprec/core/detail/widen_table.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "../core/detail/widen_table.hpp"
