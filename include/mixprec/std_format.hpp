// SPDX-License-Identifier: MIT
// mixprec/std_format.hpp — moved to mixprec/interop/std_format.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "interop/std_format.hpp"
