// SPDX-License-Identifier: MIT
// mixprec/core/types.hpp — the built-in formats.
#ifndef MIXPREC_TYPES_HPP
#define MIXPREC_TYPES_HPP

#include "basic_float.hpp"

namespace mixprec {

/// IEEE 754 binary16: 1/5/10, bias 15, max 65504.
using half = basic_float<format<5, 10>>;
/// bfloat16: 1/8/7, bias 127, the range of float with 8 significant bits.
using bfloat16 = basic_float<format<8, 7>>;
/// NVIDIA TensorFloat-32: 1/8/10 in a 32-bit container whose low 13 bits are zero (a float
/// bit pattern with the mantissa cut to 10 bits).
using tf32 = basic_float<format<8, 10, encoding::ieee, 13>>;
/// OCP FP8 E4M3: no infinities, NaN = S.1111.111, max 448.
using float8_e4m3fn = basic_float<format<4, 3, encoding::fn>>;
/// OCP FP8 E5M2: IEEE-style, max 57344.
using float8_e5m2 = basic_float<format<5, 2>>;
/// FP8 E4M3 "fnuz" (AMD/Graphcore): bias 8, no -0, 0x80 is the only NaN, max 240.
using float8_e4m3fnuz = basic_float<format<4, 3, encoding::fnuz>>;
/// FP8 E5M2 "fnuz": bias 16, no -0, 0x80 is the only NaN, max 57344.
using float8_e5m2fnuz = basic_float<format<5, 2, encoding::fnuz>>;
/// OCP MX shared scale E8M0: unsigned powers of two 2^-127..2^127, 0xFF is NaN, no zero.
using float8_e8m0fnu = basic_float<format<8, 0, encoding::exponent_only>>;
/// OCP MX FP6 E2M3: no Inf, no NaN, max 7.5 (stored in the low 6 bits of a byte).
using float6_e2m3fn = basic_float<format<2, 3, encoding::finite>>;
/// OCP MX FP6 E3M2: no Inf, no NaN, max 28.
using float6_e3m2fn = basic_float<format<3, 2, encoding::finite>>;
/// OCP MX FP4 E2M1: no Inf, no NaN, max 6 (stored in the low 4 bits of a byte).
using float4_e2m1fn = basic_float<format<2, 1, encoding::finite>>;

/// FP8 E3M4, IEEE-style (ml_dtypes float8_e3m4): bias 3, Inf and NaNs, max 15.5.
using float8_e3m4 = basic_float<format<3, 4>>;
/// FP8 E4M3, IEEE-style (ml_dtypes float8_e4m3; not OCP's e4m3fn): bias 7, Inf and NaNs, max 240.
using float8_e4m3 = basic_float<format<4, 3>>;
/// FP8 E4M3 with bias 11, fnuz (ml_dtypes float8_e4m3b11fnuz, Graphcore/TPU): no -0, 0x80 is the
/// only NaN, max 30, smallest subnormal 2^-13.
using float8_e4m3b11fnuz = basic_float<format<4, 3, encoding::fnuz, 0, 11>>;
/// FP4 E1M2: 1/1/2, bias 0, no Inf, no NaN: the values 0, 0.5, 1, ..., 3.5 and their negatives
/// (an evenly spaced grid; 1 is a subnormal). Not in ml_dtypes (ml_dtypes#281).
using float4_e1m2 = basic_float<format<1, 2, encoding::finite>>;
/// UE4M3, NVFP4's block scale (CUDA_R_8F_UE4M3, CUTLASS float_ue4m3_t): E4M3 without a sign, bias
/// 7, no Inf, NaN = 0x7F, max 448 (0x7E), smallest subnormal 2^-9; seven bits in a byte, bit 7
/// ignored when read and cleared by from_bits.
using float8_ue4m3 = basic_float<format<4, 3, encoding::fn, 0, 7, false>>;
/// UE5M3, a wider block scale (CUTLASS FpEncoding::UE5M3; ml_dtypes float8_e5m3fnu): 5 exponent and
/// 3 mantissa bits, no sign, bias 15, no Inf, NaN = 0xFF, max 114688 (0xFE), smallest subnormal 2^-17.
using float8_ue5m3 = basic_float<format<5, 3, encoding::fn, 0, 15, false>>;

}  // namespace mixprec

#endif  // MIXPREC_TYPES_HPP
