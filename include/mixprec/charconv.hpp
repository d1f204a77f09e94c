// SPDX-License-Identifier: MIT
// mixprec/charconv.hpp — moved to mixprec/text/charconv.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "text/charconv.hpp"
