// SPDX-License-Identifier: MIT
// The one exception guard. A header that throws defines MIXPREC_NEEDS_EXCEPTIONS as its own path
// (bare tokens) and includes this file right after core/config.hpp; compiled without exceptions
// (host code), that stops the build with one message naming the header:
//
//   #define MIXPREC_NEEDS_EXCEPTIONS mixprec/amp.hpp
//   #include "core/detail/needs_exceptions.hpp"
//   // g++ -fno-exceptions: "error: mixprec/amp.hpp needs C++ exceptions (...)"
//
// Device code (__CUDA_ARCH__) never throws and passes. No include guard: every user includes it.
#include "../config.hpp"
#if defined(MIXPREC_NEEDS_EXCEPTIONS) && !MIXPREC_HAS_EXCEPTIONS && !defined(__CUDA_ARCH__)
#define MIXPREC_DETAIL_STR_(...) #__VA_ARGS__
#define MIXPREC_DETAIL_XSTR_(...) MIXPREC_DETAIL_STR_(__VA_ARGS__)
#define MIXPREC_DETAIL_PRAGMA_(...) _Pragma(MIXPREC_DETAIL_STR_(__VA_ARGS__))
#define MIXPREC_DETAIL_ERROR_(msg) MIXPREC_DETAIL_PRAGMA_(GCC error msg)
MIXPREC_DETAIL_ERROR_(MIXPREC_DETAIL_XSTR_(MIXPREC_NEEDS_EXCEPTIONS needs C++ exceptions (it is compiled with -fno-exceptions here); the numeric core, mixprec/mixprec.hpp, does not))
#include "mixprec: compilation stopped (see the error above)"
#endif
#undef MIXPREC_NEEDS_EXCEPTIONS
