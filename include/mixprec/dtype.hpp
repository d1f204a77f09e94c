// SPDX-License-Identifier: MIT
// mixprec/dtype.hpp — moved to mixprec/core/dtype.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "core/dtype.hpp"
