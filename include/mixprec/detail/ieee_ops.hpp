// SPDX-License-Identifier: MIT
// mixprec/detail/ieee_ops.hpp — moved to mixprec/core/detail/ieee_ops.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "../core/detail/ieee_ops.hpp"
