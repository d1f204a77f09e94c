// SPDX-License-Identifier: MIT
// mixprec/classify.hpp — moved to mixprec/core/classify.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "core/classify.hpp"
