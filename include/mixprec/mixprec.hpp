// SPDX-License-Identifier: MIT
// mixprec/mixprec.hpp — the numeric core, in one include: the formats, conversions in every
// rounding mode, arithmetic, <cmath>-style functions, printing and parsing, limits, finfo,
// explain, hashing, and types as run-time values (dtype). It does not include the ML layer
// (mixprec/amp.hpp: autocast, precision policies, loss scaling, FP8/MX scaling) nor the
// kernels (mixprec/kernels.hpp): no thread pool, no JSON, no <thread>.
//   #include <mixprec/mixprec.hpp>
//   mixprec::half h = mixprec::sqrt(mixprec::half(2.0f));  std::cout << h;
// Lighter: mixprec/float.hpp (the types, their arithmetic and stream I/O only). Optional
// integrations, included on request only: interop/ (std_format, fmt, eigen, cuda, mpi).
#ifndef MIXPREC_MIXPREC_HPP
#define MIXPREC_MIXPREC_HPP

#include "version.hpp"
#include "core/config.hpp"
#include "core/format.hpp"
#include "core/rounding.hpp"
#include "core/basic_float.hpp"
#include "core/types.hpp"
#include "core/round_to.hpp"
#include "core/random.hpp"
#include "core/classify.hpp"
#include "core/finfo.hpp"
#include "core/limits.hpp"
#include "text/charconv.hpp"
#include "text/io.hpp"
#include "core/hash.hpp"
#include "core/arithmetic.hpp"
#include "math/cmath.hpp"
#include "text/explain.hpp"
#include "core/dtype.hpp"
#include "core/packed.hpp"

#endif  // MIXPREC_MIXPREC_HPP
