// SPDX-License-Identifier: MIT
// mixprec/detail/type_traits.hpp — moved to mixprec/core/detail/type_traits.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "../core/detail/type_traits.hpp"
