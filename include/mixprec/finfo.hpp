// SPDX-License-Identifier: MIT
// mixprec/finfo.hpp — moved to mixprec/core/finfo.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "core/finfo.hpp"
