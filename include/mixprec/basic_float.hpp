// SPDX-License-Identifier: MIT
// mixprec/basic_float.hpp — moved to mixprec/core/basic_float.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "core/basic_float.hpp"
