// SPDX-License-Identifier: MIT
// mixprec/version.hpp — the library version as macros (included by every header via config.hpp).
//
//   #if MIXPREC_VERSION_MAJOR == 0 && MIXPREC_VERSION_MINOR >= 2 ... #endif
#ifndef MIXPREC_VERSION_HPP
#define MIXPREC_VERSION_HPP

/// Library version, major part. Kept equal to the version in CMakeLists.txt and meson.build
/// (tests/test_version.cpp checks this against the build system's value).
#define MIXPREC_VERSION_MAJOR 0
/// Library version, minor part.
#define MIXPREC_VERSION_MINOR 2
/// Library version, patch part.
#define MIXPREC_VERSION_PATCH 0
/// "MAJOR.MINOR.PATCH".
#define MIXPREC_VERSION_STRING "0.2.0"

#endif
