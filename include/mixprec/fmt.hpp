// SPDX-License-Identifier: MIT
// mixprec/fmt.hpp — moved to mixprec/interop/fmt.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "interop/fmt.hpp"
