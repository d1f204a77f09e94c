// SPDX-License-Identifier: MIT
// Every float through CUDA's host conversion to e8m0fnu (__nv_cvt_float_to_e8m0 rz/rp x satfinite/nosat, __nv_fp8_e8m0(float)) against mixprec::round_to
// (cuda_host_mx_harness.hpp has the rules and the documented deviations).
#define MIXPREC_MX_GROUP 1
#include "cuda_host_mx_harness.hpp"
