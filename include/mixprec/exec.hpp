// SPDX-License-Identifier: MIT
// mixprec/exec.hpp — moved to mixprec/kernels/exec.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "kernels/exec.hpp"
