// SPDX-License-Identifier: MIT
// mixprec/cuda.hpp — moved to mixprec/interop/cuda.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "interop/cuda.hpp"
