// SPDX-License-Identifier: MIT
// The old header paths (include/mixprec before the layer folders) still compile: each is a
// one-line forwarding header to its new path until 1.0. cuda.hpp, eigen.hpp, mpi.hpp and fmt.hpp
// (which need their libraries) are compiled by the header checks and the MPI/CUDA builds.
#include <doctest/doctest.h>

#include <sstream>

#include <mixprec/arithmetic.hpp>
#include <mixprec/autocast.hpp>
#include <mixprec/autocast_ops.hpp>
#include <mixprec/basic_float.hpp>
#include <mixprec/block_scaled_gemm.hpp>
#include <mixprec/block_scaling.hpp>
#include <mixprec/block_scaling_fp8.hpp>
#include <mixprec/block_scaling_mx.hpp>
#include <mixprec/block_scaling_nvfp4.hpp>
#include <mixprec/cast_result.hpp>
#include <mixprec/charconv.hpp>
#include <mixprec/classify.hpp>
#include <mixprec/config.hpp>
#include <mixprec/detail/bits.hpp>
#include <mixprec/detail/convert.hpp>
#include <mixprec/detail/fast_float32.hpp>
#include <mixprec/detail/ieee_ops.hpp>
#include <mixprec/detail/json.hpp>
#include <mixprec/detail/quote_input.hpp>
#include <mixprec/detail/simd_block_gemm.hpp>
#include <mixprec/detail/simd_block_scaling.hpp>
#include <mixprec/detail/simd_convert.hpp>
#include <mixprec/detail/simd_narrow8.hpp>
#include <mixprec/detail/simd_optim.hpp>
#include <mixprec/detail/soft.hpp>
#include <mixprec/detail/spans.hpp>
#include <mixprec/detail/to_integer.hpp>
#include <mixprec/detail/type_traits.hpp>
#include <mixprec/detail/values.hpp>
#include <mixprec/detail/widen_table.hpp>
#include <mixprec/detail/x86.hpp>
#include <mixprec/dtype.hpp>
#include <mixprec/exec.hpp>
#include <mixprec/explain.hpp>
#include <mixprec/finfo.hpp>
#include <mixprec/format.hpp>
#include <mixprec/format_names.hpp>
#include <mixprec/fp8_scaling.hpp>
#include <mixprec/grad_scaler.hpp>
#include <mixprec/hash.hpp>
#include <mixprec/io.hpp>
#include <mixprec/limits.hpp>
#include <mixprec/loss_scale.hpp>
#include <mixprec/math.hpp>
#include <mixprec/math_integral.hpp>
#include <mixprec/matmul_precision.hpp>
#include <mixprec/mx.hpp>
#include <mixprec/packed.hpp>
#include <mixprec/precision_policy.hpp>
#include <mixprec/random.hpp>
#include <mixprec/round_to.hpp>
#include <mixprec/rounding.hpp>
#include <mixprec/span.hpp>
#include <mixprec/std_format.hpp>
#include <mixprec/types.hpp>
#include <mixprec/core/finfo.hpp>  // the old and the new path together: one definition

TEST_CASE("old header paths forward to the layer folders") {
  // A name from several layers, through the old paths above.
  CHECK(mixprec::finfo<mixprec::half>::max == mixprec::half(65504));
  CHECK(mixprec::round_to<mixprec::float8_e4m3fn>(1000.0f, mixprec::rounding::nearest_even,
                                                  mixprec::overflow::saturate) == 448);
  std::ostringstream os;
  os << mixprec::half(0.5f);
  CHECK(os.str() == "0.5");
  CHECK(mixprec::dtype::of<mixprec::bfloat16>().name() == "bfloat16");
}
