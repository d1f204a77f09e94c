// SPDX-License-Identifier: MIT
// Every float through CUDA's host conversion to e2m1fn (__nv_cvt_float_to_fp4 rn/rz) against mixprec::round_to
// (cuda_host_mx_harness.hpp has the rules and the documented deviations).
#define MIXPREC_MX_GROUP 4
#include "cuda_host_mx_harness.hpp"
