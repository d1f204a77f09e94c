// SPDX-License-Identifier: MIT
// mixprec/format_names.hpp — moved to mixprec/core/format_names.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "core/format_names.hpp"
