// SPDX-License-Identifier: MIT
// mixprec/detail/fast_float32.hpp — moved to mixprec/core/detail/fast_float32.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "../core/detail/fast_float32.hpp"
