// SPDX-License-Identifier: MIT
// mixprec/mpi.hpp — moved to mixprec/interop/mpi.hpp; this path forwards there until 1.0.
// mixprec: forwarding header
#include "interop/mpi.hpp"
