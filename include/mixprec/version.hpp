// mixprec — header-only mixed-precision numerics.
// SPDX-License-Identifier: MIT
#ifndef MIXPREC_VERSION_HPP
#define MIXPREC_VERSION_HPP

/// Library version. Kept equal to the version in CMakeLists.txt and meson.build
/// (tests/test_version.cpp checks this against the build system's value).
#define MIXPREC_VERSION_MAJOR 0
#define MIXPREC_VERSION_MINOR 2
#define MIXPREC_VERSION_PATCH 0
#define MIXPREC_VERSION_STRING "0.2.0"

#endif
