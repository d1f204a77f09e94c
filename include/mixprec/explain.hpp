// SPDX-License-Identifier: MIT
// mixprec/explain.hpp — moved to mixprec/text/explain.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "text/explain.hpp"
