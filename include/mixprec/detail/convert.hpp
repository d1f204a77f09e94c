// SPDX-License-Identifier: MIT
// mixprec/detail/convert.hpp — moved to mixprec/core/detail/codec.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "../core/detail/codec.hpp"
