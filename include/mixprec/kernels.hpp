// mixprec/kernels.hpp — the device-agnostic kernels (exec::seq, exec::par, exec::cuda).
#ifndef MIXPREC_KERNELS_HPP
#define MIXPREC_KERNELS_HPP

#include "exec.hpp"
#include "span.hpp"
#include "matmul_precision.hpp"
#include "kernels/convert.hpp"
#include "kernels/reduce.hpp"
#include "kernels/unscale.hpp"
#include "kernels/softmax.hpp"
#include "kernels/optim.hpp"
#include "kernels/gemm.hpp"

#endif  // MIXPREC_KERNELS_HPP
