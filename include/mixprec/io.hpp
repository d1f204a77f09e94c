// SPDX-License-Identifier: MIT
// mixprec/io.hpp — moved to mixprec/text/io.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "text/io.hpp"
