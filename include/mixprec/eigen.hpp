// SPDX-License-Identifier: MIT
// mixprec/eigen.hpp — moved to mixprec/interop/eigen.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "interop/eigen.hpp"
