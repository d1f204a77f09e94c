// SPDX-License-Identifier: MIT
// autocast_ops_cpu_effective / autocast_ops_cuda_effective: composite ops that PyTorch computes
// through registered lower-precision ops get effective entries; the plain tables keep PyTorch's
// registrations; everything else is inherited.
#include <doctest/doctest.h>

#include <mixprec/autocast.hpp>
#include <mixprec/autocast_ops.hpp>

using mixprec::cast_policy;

TEST_CASE("effective tables: composite ops in the autocast dtype, registrations unchanged") {
  const char* composite[] = {"einsum",   "tensordot",     "chain_matmul",  "linalg_multi_dot",
                             "lstm_cell", "gru_cell",     "rnn_tanh_cell", "rnn_relu_cell",
                             "multi_head_attention_forward"};
  for (const char* op : composite) {
    CAPTURE(op);
    CHECK(mixprec::autocast_ops_cpu.find(op) == cast_policy::unlisted);  // not registered on CPU
    CHECK(mixprec::autocast_ops_cpu_effective.find(op) == cast_policy::lower_precision);
  }
  // CUDA registers most of them already; tensordot is promote there, and stays so.
  CHECK(mixprec::autocast_ops_cuda_effective.find("einsum") == cast_policy::lower_precision);
  CHECK(mixprec::autocast_ops_cuda_effective.find("lstm_cell") == cast_policy::lower_precision);
  CHECK(mixprec::autocast_ops_cuda_effective.find("tensordot") == cast_policy::promote);
  CHECK(mixprec::autocast_ops_cuda.find("multi_head_attention_forward") == cast_policy::unlisted);
  CHECK(mixprec::autocast_ops_cuda_effective.find("multi_head_attention_forward") == cast_policy::lower_precision);
  // Inherited entries.
  CHECK(mixprec::autocast_ops_cpu_effective.find("mm") == cast_policy::lower_precision);
  CHECK(mixprec::autocast_ops_cpu_effective.find("prod") == cast_policy::fp32);
  CHECK(mixprec::autocast_ops_cpu_effective.find("softmax") == cast_policy::unlisted);
  CHECK(mixprec::autocast_ops_cuda_effective.find("softmax") == cast_policy::fp32_set_opt_dtype);
  CHECK(mixprec::autocast_ops_cuda_effective.find("binary_cross_entropy") == cast_policy::banned);
}

TEST_CASE("effective table in a scope: CPU einsum of float32 runs in bfloat16") {
  const mixprec::dtype f32 = mixprec::dtype::float32();
  {
    mixprec::autocast_scope plain(mixprec::device_kind::cpu);
    CHECK(mixprec::autocast_type("einsum", f32, f32) == f32);  // unlisted: input type
  }
  mixprec::autocast_options o;
  o.device = mixprec::device_kind::cpu;
  o.ops = &mixprec::autocast_ops_cpu_effective;
  mixprec::autocast_scope s(o);
  CHECK(mixprec::autocast_type("einsum", f32, f32) == mixprec::dtype::bfloat16());
  CHECK(mixprec::autocast_type("tensordot", f32, f32) == mixprec::dtype::bfloat16());
}
