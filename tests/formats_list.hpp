// SPDX-License-Identifier: MIT
// tests/formats_list.hpp — the built-in types paired with their reference descriptions, for
// typed tests over every format.
#ifndef MIXPREC_TESTS_FORMATS_LIST_HPP
#define MIXPREC_TESTS_FORMATS_LIST_HPP

#include <mixprec/mixprec.hpp>

#include "reference.hpp"

namespace reftest {

// Formats that are not built in, as a user would define them: 16-bit without Inf; an unsigned
// IEEE-style format with an explicit bias; an unsigned one without Inf and NaN.
using e6m9fn = mixprec::basic_float<mixprec::format<6, 9, mixprec::encoding::fn>>;
using ue3m3b2 = mixprec::basic_float<mixprec::format<3, 3, mixprec::encoding::ieee, 0, 2, false>>;
using ue2m2fn = mixprec::basic_float<mixprec::format<2, 2, mixprec::encoding::finite, 0, 1, false>>;
// (float8_e3m4, once user-defined here, is built in now.)
using e3m4 = mixprec::float8_e3m4;

inline constexpr ref::format ref_e6m9fn{"float16_e6m9fn", 6, 9, 31, ref::specials::fn, 0x1.ffp32, 0x1p-30, 0x1p-39};
inline constexpr ref::format ref_ue3m3b2{"float6_ue3m3b2", 3, 3, 2, ref::specials::ieee, 30.0, 0.5, 0x1p-4, true};
inline constexpr ref::format ref_ue2m2fn{"float4_ue2m2fn", 2, 2, 1, ref::specials::finite, 7.0, 1.0, 0.25, true};

template <class T>
const ref::format& ref_of();
template <> inline const ref::format& ref_of<mixprec::half>() { return ref::half; }
template <> inline const ref::format& ref_of<mixprec::bfloat16>() { return ref::bfloat16; }
template <> inline const ref::format& ref_of<mixprec::tf32>() { return ref::tf32; }
template <> inline const ref::format& ref_of<mixprec::float8_e4m3fn>() { return ref::e4m3fn; }
template <> inline const ref::format& ref_of<mixprec::float8_e5m2>() { return ref::e5m2; }
template <> inline const ref::format& ref_of<mixprec::float8_e4m3fnuz>() { return ref::e4m3fnuz; }
template <> inline const ref::format& ref_of<mixprec::float8_e5m2fnuz>() { return ref::e5m2fnuz; }
template <> inline const ref::format& ref_of<mixprec::float8_e8m0fnu>() { return ref::e8m0fnu; }
template <> inline const ref::format& ref_of<mixprec::float6_e2m3fn>() { return ref::e2m3fn; }
template <> inline const ref::format& ref_of<mixprec::float6_e3m2fn>() { return ref::e3m2fn; }
template <> inline const ref::format& ref_of<mixprec::float4_e2m1fn>() { return ref::e2m1fn; }
template <> inline const ref::format& ref_of<mixprec::float8_e3m4>() { return ref::e3m4; }
template <> inline const ref::format& ref_of<mixprec::float8_e4m3>() { return ref::e4m3; }
template <> inline const ref::format& ref_of<mixprec::float8_e4m3b11fnuz>() { return ref::e4m3b11fnuz; }
template <> inline const ref::format& ref_of<mixprec::float4_e1m2>() { return ref::e1m2; }
template <> inline const ref::format& ref_of<mixprec::float8_ue4m3>() { return ref::ue4m3; }
template <> inline const ref::format& ref_of<mixprec::float8_ue5m3>() { return ref::ue5m3; }
template <> inline const ref::format& ref_of<e6m9fn>() { return ref_e6m9fn; }
template <> inline const ref::format& ref_of<ue3m3b2>() { return ref_ue3m3b2; }
template <> inline const ref::format& ref_of<ue2m2fn>() { return ref_ue2m2fn; }

/// Number of low padding bits in the storage (tf32: 13).
template <class T>
constexpr int pad_of() { return T::format_type::padding_bits; }

template <class T>
double value_of(T x) { return static_cast<double>(x); }

}  // namespace reftest

#define MIXPREC_ALL_FORMATS                                                                     \
  mixprec::half, mixprec::bfloat16, mixprec::tf32, mixprec::float8_e4m3fn, mixprec::float8_e5m2, \
      mixprec::float8_e4m3fnuz, mixprec::float8_e5m2fnuz, mixprec::float8_e8m0fnu,               \
      mixprec::float6_e2m3fn, mixprec::float6_e3m2fn, mixprec::float4_e2m1fn, mixprec::float8_e3m4, \
      mixprec::float8_e4m3, mixprec::float8_e4m3b11fnuz, mixprec::float4_e1m2, mixprec::float8_ue4m3,    \
      mixprec::float8_ue5m3, reftest::e6m9fn, reftest::ue3m3b2, reftest::ue2m2fn

#endif  // MIXPREC_TESTS_FORMATS_LIST_HPP
