// SPDX-License-Identifier: MIT
// Autocast: the built-in op tables against PyTorch's registrations (the expected lists below are
// copied from aten/src/ATen/autocast_mode.cpp of PyTorch 2.4 as the source writes them, overloads
// included, independently of include/mixprec/autocast_ops.hpp), the table of common ops,
// derived tables, the cast rules (lower precision, fp32, set/append dtype, promote, banned,
// unlisted, disabled), nesting, thread isolation, the weight cache's lifetime, and the converted
// values (against bit patterns worked out by hand).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <future>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include <mixprec/autocast.hpp>
#include <mixprec/types.hpp>

using mixprec::autocast_error;
using mixprec::autocast_scope;
using mixprec::autocast_type;
using mixprec::bfloat16;
using mixprec::cast_policy;
using mixprec::device_kind;
using mixprec::dtype;
using mixprec::dtype_v;
using mixprec::half;

namespace {

// ---- PyTorch 2.4, aten/src/ATen/autocast_mode.cpp --------------------------------------------
// TORCH_LIBRARY_IMPL(aten, Autocast, m): AT_FORALL_LOWER_PRECISION_FP, then cudnn_convolution,
// cudnn_convolution_transpose.
const char* const cuda_lower_precision =
    "_convolution.deprecated _convolution conv1d conv2d conv3d conv_tbc conv_transpose1d "
    "conv_transpose2d.input conv_transpose3d.input convolution prelu addmm addmv addr matmul einsum mm mv "
    "linalg_vecdot linear addbmm baddbmm bmm chain_matmul linalg_multi_dot _thnn_fused_lstm_cell "
    "_thnn_fused_gru_cell lstm_cell gru_cell rnn_tanh_cell rnn_relu_cell _scaled_dot_product_flash_attention "
    "scaled_dot_product_attention cudnn_convolution cudnn_convolution_transpose";
// AT_FORALL_FP32
const char* const cuda_fp32 =
    "acos asin cosh erfinv exp expm1 log log10 log2 log1p reciprocal rsqrt sinh tan pow.Tensor_Scalar "
    "pow.Tensor_Tensor pow.Scalar softplus layer_norm native_layer_norm group_norm frobenius_norm.dim "
    "nuclear_norm nuclear_norm.dim cosine_similarity poisson_nll_loss cosine_embedding_loss nll_loss nll_loss2d "
    "hinge_embedding_loss kl_div l1_loss smooth_l1_loss huber_loss mse_loss margin_ranking_loss "
    "multilabel_margin_loss soft_margin_loss triplet_margin_loss multi_margin_loss "
    "binary_cross_entropy_with_logits dist pdist cdist renorm logsumexp";
// AT_FORALL_FP32_SET_OPT_DTYPE
const char* const cuda_fp32_set_opt_dtype =
    "prod prod.dim_int prod.dim_Dimname softmax.int softmax.Dimname log_softmax.int log_softmax.Dimname "
    "cumprod cumprod.dimname cumsum cumsum.dimname linalg_vector_norm linalg_matrix_norm "
    "linalg_matrix_norm.str_ord sum sum.dim_IntList sum.dim_DimnameList";
// AT_FORALL_DIFFERENT_REDISPATCH_SIGNATURE (registered names)
const char* const cuda_fp32_append_dtype = "norm.Scalar norm.ScalarOpt_dim norm.names_ScalarOpt_dim";
// AT_FORALL_PROMOTE
const char* const cuda_promote =
    "addcdiv addcmul atan2 bilinear cross dot grid_sampler index_put tensordot scatter_add";
// m.impl("aten::binary_cross_entropy", binary_cross_entropy_banned)
const char* const cuda_banned = "binary_cross_entropy";

// TORCH_LIBRARY_IMPL(aten, AutocastCPU, m)
const char* const cpu_lower_precision =
    "conv1d conv1d.padding conv2d conv2d.padding conv3d conv3d.padding bmm mm linalg_vecdot baddbmm addmm "
    "addbmm linear _convolution.deprecated matmul conv_tbc mkldnn_rnn_layer conv_transpose1d "
    "conv_transpose2d.input conv_transpose3d.input prelu scaled_dot_product_attention "
    "_native_multi_head_attention";
const char* const cpu_fp32 =
    "avg_pool3d binary_cross_entropy grid_sampler polar prod prod.dim_int prod.dim_Dimname quantile "
    "quantile.scalar nanquantile nanquantile.scalar stft stft.center cdist grid_sampler_2d "
    "_grid_sampler_2d_cpu_fallback grid_sampler_3d trace view_as_complex cholesky cholesky_inverse "
    "cholesky_solve inverse lu_solve orgqr ormqr pinverse max_pool3d max_unpool2d max_unpool3d "
    "adaptive_avg_pool3d reflection_pad1d reflection_pad2d replication_pad1d replication_pad2d "
    "replication_pad3d mse_loss cosine_embedding_loss nll_loss nll_loss2d hinge_embedding_loss "
    "poisson_nll_loss smooth_l1_loss cross_entropy_loss l1_loss huber_loss margin_ranking_loss "
    "soft_margin_loss triplet_margin_loss multi_margin_loss ctc_loss.IntList ctc_loss.Tensor kl_div "
    "multilabel_margin_loss binary_cross_entropy_with_logits fft_fft fft_ifft fft_fft2 fft_ifft2 fft_fftn "
    "fft_ifftn fft_rfft fft_irfft fft_rfft2 fft_irfft2 fft_rfftn fft_irfftn fft_hfft fft_ihfft linalg_cond "
    "linalg_cond.p_str linalg_matrix_rank linalg_matrix_rank.tol_tensor linalg_matrix_rank.atol_rtol_tensor "
    "linalg_matrix_rank.atol_rtol_float linalg_solve linalg_cholesky linalg_svdvals linalg_eigvals "
    "linalg_eigvalsh linalg_inv linalg_householder_product linalg_tensorinv linalg_tensorsolve "
    "fake_quantize_per_tensor_affine geqrf _lu_with_info qr svd triangular_solve fractional_max_pool2d "
    "fractional_max_pool3d adaptive_max_pool3d multilabel_margin_loss_forward linalg_qr linalg_cholesky_ex "
    "linalg_svd linalg_eig linalg_eigh linalg_lstsq linalg_inv_ex";
const char* const cpu_promote = "stack cat index_copy index_copy.dimname";
// -----------------------------------------------------------------------------------------------

std::vector<std::string> words(const char* text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::string base_name(const std::string& op) { return op.substr(0, op.find('.')); }

struct expected_list {
  cast_policy policy;
  const char* names;
};

/// Every expected name (with its overload) gets the policy, and every name the table gives that
/// policy is an expected name, the base of one, or one of the documented extras.
void check_table(const mixprec::autocast_op_table& table, const std::vector<expected_list>& lists,
                 const std::set<std::string>& extras) {
  std::set<std::string> expected_all;
  for (const expected_list& l : lists) {
    for (const std::string& n : words(l.names)) {
      CAPTURE(n);
      CHECK(table.find(n) == l.policy);
      expected_all.insert(n);
      expected_all.insert(base_name(n));
    }
  }
  for (const expected_list& l : lists) {
    std::set<std::string> names_here;
    for (const std::string& n : words(l.names)) {
      names_here.insert(n);
      names_here.insert(base_name(n));
    }
    for (std::string_view n : table.ops(l.policy)) {
      CAPTURE(n);
      CHECK((names_here.count(std::string(n)) == 1 || extras.count(std::string(n)) == 1));
    }
  }
  // Names the table lists in a category the expected lists do not have.
  for (const mixprec::autocast_op& e : table.effective_entries()) {
    const std::string n(e.name);
    CAPTURE(n);
    if (e.policy == cast_policy::unlisted) {
      CHECK(expected_all.count(n) == 0);
      continue;
    }
    CHECK((expected_all.count(n) == 1 || extras.count(n) == 1));
  }
}

std::uint16_t bits16(half h) { return h.bits(); }
std::uint16_t bits16(bfloat16 b) { return b.bits(); }

}  // namespace

TEST_CASE("CUDA table: PyTorch 2.4's Autocast registrations, complete") {
  check_table(mixprec::autocast_ops_cuda,
              {{cast_policy::lower_precision, cuda_lower_precision},
               {cast_policy::fp32, cuda_fp32},
               {cast_policy::fp32_set_opt_dtype, cuda_fp32_set_opt_dtype},
               {cast_policy::fp32_append_dtype, cuda_fp32_append_dtype},
               {cast_policy::promote, cuda_promote},
               {cast_policy::banned, cuda_banned}},
              {"cross_entropy"});
  // norm's overloads with an explicit dtype are not registered; they are the only unlisted entries.
  CHECK(mixprec::autocast_ops_cuda.find("norm.ScalarOpt_dtype") == cast_policy::unlisted);
  CHECK(mixprec::autocast_ops_cuda.find("norm.ScalarOpt_dim_dtype") == cast_policy::unlisted);
  CHECK(mixprec::autocast_ops_cuda.find("norm.names_ScalarOpt_dim_dtype") == cast_policy::unlisted);
  CHECK(mixprec::autocast_ops_cuda.ops(cast_policy::unlisted).size() == 3);
  CHECK(mixprec::autocast_ops_cuda.find("norm") == cast_policy::fp32_append_dtype);
  // Ops of the CPU list, or of later PyTorch versions, that CUDA 2.4 does not register.
  for (const char* op : {"cat", "stack", "index_copy", "vdot", "upsample_nearest2d", "batch_norm", "relu", "add",
                         "cross_entropy_loss", "polar", "mkldnn_rnn_layer"}) {
    CAPTURE(op);
    CHECK(mixprec::autocast_ops_cuda.find(op) == cast_policy::unlisted);
  }
}

TEST_CASE("CPU table: PyTorch 2.4's AutocastCPU registrations, complete") {
  check_table(mixprec::autocast_ops_cpu,
              {{cast_policy::lower_precision, cpu_lower_precision},
               {cast_policy::fp32, cpu_fp32},
               {cast_policy::promote, cpu_promote}},
              {"cross_entropy"});
  CHECK(mixprec::autocast_ops_cpu.ops(cast_policy::unlisted).empty());
  CHECK(mixprec::autocast_ops_cpu.ops(cast_policy::banned).empty());
  CHECK(mixprec::autocast_ops_cpu.ops(cast_policy::fp32_set_opt_dtype).empty());
  CHECK(mixprec::autocast_ops_cpu.ops(cast_policy::fp32_append_dtype).empty());
  // CPU registers only the deprecated overload of _convolution.
  CHECK(mixprec::autocast_ops_cpu.find("_convolution.deprecated") == cast_policy::lower_precision);
  CHECK(mixprec::autocast_ops_cpu.find("_convolution") == cast_policy::unlisted);
  CHECK(mixprec::autocast_ops_cpu.find("_convolution.other") == cast_policy::unlisted);
  for (const char* op : {"softmax", "log_softmax", "sum", "cumsum", "exp", "log", "pow", "norm", "layer_norm",
                         "group_norm", "batch_norm", "addcmul", "index_put", "einsum", "mv", "cudnn_convolution"}) {
    CAPTURE(op);
    CHECK(mixprec::autocast_ops_cpu.find(op) == cast_policy::unlisted);
  }
}

TEST_CASE("the issue's table of common ops") {
  struct row {
    const char* op;
    cast_policy cuda;
    cast_policy cpu;
  };
  const cast_policy lp = cast_policy::lower_precision, f32 = cast_policy::fp32,
                    set = cast_policy::fp32_set_opt_dtype, app = cast_policy::fp32_append_dtype,
                    pro = cast_policy::promote, ban = cast_policy::banned, un = cast_policy::unlisted;
  const row rows[] = {
      {"mm", lp, lp},          {"matmul", lp, lp},       {"linear", lp, lp},         {"conv1d", lp, lp},
      {"conv2d", lp, lp},      {"conv3d", lp, lp},       {"bmm", lp, lp},            {"addmm", lp, lp},
      {"baddbmm", lp, lp},     {"softmax", set, un},     {"log_softmax", set, un},   {"sum", set, un},
      {"cumsum", set, un},     {"prod", set, f32},       {"exp", f32, un},           {"log", f32, un},
      {"pow", f32, un},        {"norm", app, un},        {"layer_norm", f32, un},    {"group_norm", f32, un},
      {"batch_norm", un, un},  {"cross_entropy", f32, f32}, {"nll_loss", f32, f32}, {"mse_loss", f32, f32},
      {"binary_cross_entropy", ban, f32}, {"cat", un, pro}, {"stack", un, pro},     {"addcmul", pro, un},
      {"addcdiv", pro, un},    {"index_put", pro, un},   {"scatter_add", pro, un},
  };
  for (const row& r : rows) {
    CAPTURE(r.op);
    CHECK(mixprec::autocast_ops_cuda.find(r.op) == r.cuda);
    CHECK(mixprec::autocast_ops_cpu.find(r.op) == r.cpu);
  }
}

namespace {
constexpr mixprec::autocast_op test_overrides[] = {
    {"softmax", cast_policy::lower_precision},  // move
    {"my_attention", cast_policy::lower_precision},  // add
    {"exp", cast_policy::unlisted},  // remove
    {"my_attention", cast_policy::fp32},  // the last entry wins
};
constexpr mixprec::autocast_op_table test_table(mixprec::autocast_ops_cuda, test_overrides, "test");
}  // namespace

TEST_CASE("tables are constexpr and derive at compile time") {
  static_assert(mixprec::autocast_ops_cuda.find("mm") == cast_policy::lower_precision, "");
  static_assert(mixprec::autocast_ops_cuda.find("pow.Tensor_Scalar") == cast_policy::fp32, "");
  static_assert(mixprec::autocast_ops_cpu.find("softmax") == cast_policy::unlisted, "");
  static_assert(test_table.find("softmax") == cast_policy::lower_precision, "");
  static_assert(test_table.find("softmax.int") == cast_policy::lower_precision, "");
  static_assert(test_table.find("my_attention") == cast_policy::fp32, "");
  static_assert(test_table.find("exp") == cast_policy::unlisted, "");
  static_assert(test_table.find("log") == cast_policy::fp32, "");  // from the base
  static_assert(test_table.base() == &mixprec::autocast_ops_cuda, "");
  static_assert(!test_table.contains("exp") && test_table.contains("mm"), "");
  static_assert(mixprec::autocast_op_table().find("mm") == cast_policy::unlisted, "");
  CHECK(test_table.name() == "test");
  CHECK(test_table.size() == 4);
  const auto lp = test_table.ops(cast_policy::lower_precision);
  CHECK(std::find(lp.begin(), lp.end(), "softmax") != lp.end());
  const auto fp32 = test_table.ops(cast_policy::fp32);
  CHECK(std::find(fp32.begin(), fp32.end(), "exp") == fp32.end());
  CHECK(std::find(fp32.begin(), fp32.end(), "my_attention") != fp32.end());
  CHECK(fp32.size() == mixprec::autocast_ops_cuda.ops(cast_policy::fp32).size());  // -exp +my_attention
}

TEST_CASE("custom_autocast_ops: add, move, remove at run time") {
  mixprec::custom_autocast_ops ops(mixprec::autocast_ops_cpu);
  ops.set("softmax", cast_policy::fp32).set("mm", cast_policy::fp32).remove("cat");
  ops.set({"my_gemm", "my_conv"}, cast_policy::lower_precision);
  ops.set("my_loss", cast_policy::banned, "use my_loss_with_logits");
  const mixprec::autocast_op_table& t = ops.table();
  CHECK(t.find("softmax") == cast_policy::fp32);
  CHECK(t.find("mm") == cast_policy::fp32);
  CHECK(t.find("cat") == cast_policy::unlisted);
  CHECK(t.find("stack") == cast_policy::promote);
  CHECK(t.find("my_gemm") == cast_policy::lower_precision);
  CHECK(t.find("my_conv.overload") == cast_policy::lower_precision);
  CHECK(t.find("linear") == cast_policy::lower_precision);
  // A whole-op entry in the derived table also overrides the base's single-overload entry
  // (autocast_ops_cpu lists only "_convolution.deprecated").
  CHECK(mixprec::autocast_ops_cpu.find("_convolution.deprecated") == cast_policy::lower_precision);
  CHECK(t.find("_convolution.deprecated") == cast_policy::lower_precision);
  ops.remove("_convolution");
  CHECK(ops.table().find("_convolution.deprecated") == cast_policy::unlisted);
  ops.set("_convolution", cast_policy::fp32);
  CHECK(ops.table().find("_convolution.deprecated") == cast_policy::fp32);
  ops.set("_convolution.deprecated", cast_policy::lower_precision);  // exact beats bare in one table
  CHECK(ops.table().find("_convolution.deprecated") == cast_policy::lower_precision);
  CHECK(ops.table().find("_convolution") == cast_policy::fp32);
  ops.remove("_convolution").remove("_convolution.deprecated");
  CHECK(t.name() == "custom");
  ops.set("mm", cast_policy::lower_precision);  // moved back: updates the entry
  CHECK(t.find("mm") == cast_policy::lower_precision);
  CHECK(t.size() == 8);
  // Many more entries (reallocation) keep the table consistent.
  for (int i = 0; i < 100; ++i) ops.set("op" + std::to_string(i), cast_policy::fp32);
  CHECK(ops.table().find("op0") == cast_policy::fp32);
  CHECK(ops.table().find("op99") == cast_policy::fp32);
  CHECK(ops.table().find("softmax") == cast_policy::fp32);
  // Bad names / values: std::invalid_argument naming them, nothing changed.
  CHECK_THROWS_WITH_AS(ops.set("", cast_policy::fp32), doctest::Contains("empty op name"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(ops.set("a b", cast_policy::fp32), doctest::Contains("'a b'"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(ops.set({"ok_op", "x,y"}, cast_policy::fp32), doctest::Contains("'x,y'"),
                       std::invalid_argument);
  CHECK(ops.table().find("ok_op") == cast_policy::unlisted);
  CHECK_THROWS_AS(ops.set("mm", static_cast<cast_policy>(42)), std::invalid_argument);
  CHECK(ops.table().find("mm") == cast_policy::lower_precision);

  // A scope using it.
  autocast_scope cpu(mixprec::autocast_options{device_kind::cpu, true, dtype(), std::nullopt, &ops.table()});
  CHECK(&mixprec::autocast_ops(device_kind::cpu) == &ops.table());
  CHECK(autocast_type("softmax", dtype_v<bfloat16>) == dtype::float32());
  CHECK(autocast_type("my_gemm", dtype_v<float>) == dtype::bfloat16());
  CHECK_THROWS_WITH_AS(autocast_type("my_loss", 1.0f), "use my_loss_with_logits", autocast_error);
}

TEST_CASE("state outside any scope: PyTorch's defaults") {
  CHECK_FALSE(mixprec::is_autocast_enabled());
  CHECK_FALSE(mixprec::is_autocast_enabled(device_kind::cpu));
  CHECK_FALSE(mixprec::is_autocast_enabled(device_kind::cuda));
  CHECK(mixprec::autocast_dtype(device_kind::cuda) == dtype::float16());
  CHECK(mixprec::autocast_dtype(device_kind::cpu) == dtype::bfloat16());
  CHECK(mixprec::autocast_device() == device_kind::cuda);
  CHECK(mixprec::autocast_nesting() == 0);
  CHECK(mixprec::is_autocast_cache_enabled());
  CHECK(&mixprec::autocast_ops(device_kind::cpu) == &mixprec::autocast_ops_cpu);
  CHECK(&mixprec::autocast_ops() == &mixprec::autocast_ops_cuda);
  // Disabled: nothing is cast, banned ops do not throw.
  CHECK(autocast_type("mm", 1.0f, 2.0f) == dtype::float32());
  CHECK(autocast_type("binary_cross_entropy", half(0.5f), half(1.0f)) == dtype::float16());
  const auto d = mixprec::autocast_decide("mm", 1.0f);
  CHECK_FALSE(d.enabled);
  CHECK(d.policy == cast_policy::lower_precision);
  CHECK_FALSE(d.target.is_defined());
}

TEST_CASE("lower_precision, fp32 and unlisted on both devices") {
  {
    autocast_scope s(device_kind::cuda);
    CHECK(mixprec::is_autocast_enabled());
    CHECK(mixprec::autocast_dtype() == dtype::float16());
    CHECK(autocast_type("mm", dtype_v<float>, dtype_v<float>) == dtype::float16());
    CHECK(autocast_type("linear", dtype_v<bfloat16>, dtype_v<half>) == dtype::float16());
    CHECK(autocast_type("conv2d", dtype_v<mixprec::float8_e4m3fn>) == dtype::float16());  // eligible
    CHECK(autocast_type("mm", dtype_v<double>, dtype_v<double>) == dtype::float64());  // not eligible
    CHECK(autocast_type("mm", dtype_v<float>, dtype_v<double>) == dtype::float64());   // {half, double}
    CHECK(autocast_type("mm", dtype_v<int>, dtype_v<std::int64_t>).is_defined() == false);
    CHECK(autocast_type("exp", dtype_v<half>) == dtype::float32());
    CHECK(autocast_type("layer_norm", dtype_v<half>, dtype_v<float>) == dtype::float32());
    CHECK(autocast_type("exp", dtype_v<double>) == dtype::float64());
    CHECK(autocast_type("relu", dtype_v<half>) == dtype::float16());
    CHECK(autocast_type("relu", dtype_v<float>) == dtype::float32());
    CHECK(autocast_type("add", dtype_v<half>, dtype_v<bfloat16>) == dtype::float32());  // promote_types
    CHECK(autocast_type("batch_norm", dtype_v<half>) == dtype::float16());
    // An explicit device, and values instead of dtypes.
    const std::vector<float> x(4, 1.0f);
    CHECK(autocast_type(device_kind::cuda, "matmul", x, x) == dtype::float16());
    CHECK(autocast_type(device_kind::cpu, "matmul", x, x) == dtype::float32());  // cpu not enabled
  }
  {
    autocast_scope s(device_kind::cpu);
    CHECK(mixprec::autocast_device() == device_kind::cpu);
    CHECK(mixprec::autocast_dtype() == dtype::bfloat16());
    CHECK(autocast_type("mm", 1.0f, 2.0f) == dtype::bfloat16());
    CHECK(autocast_type("exp", half(1.0f)) == dtype::float16());  // unlisted on CPU
    CHECK(autocast_type("prod", bfloat16(1.0f)) == dtype::float32());
    CHECK(autocast_type("binary_cross_entropy", bfloat16(1.0f), 1.0f) == dtype::float32());
    CHECK(autocast_type("cross_entropy", bfloat16(1.0f)) == dtype::float32());
  }
  {
    autocast_scope s(device_kind::cpu, dtype::float16());  // CPU with float16
    CHECK(autocast_type("linear", 1.0f) == dtype::float16());
  }
}

TEST_CASE("fp32_set_opt_dtype / fp32_append_dtype look at the first floating argument") {
  autocast_scope s(device_kind::cuda);
  CHECK(autocast_type("softmax", dtype_v<half>) == dtype::float32());
  CHECK(autocast_type("softmax.int", dtype_v<bfloat16>) == dtype::float32());
  CHECK(autocast_type("sum", dtype_v<float>) == dtype::float32());
  CHECK(autocast_type("sum", dtype_v<double>) == dtype::float64());
  CHECK(autocast_type("norm", dtype_v<half>) == dtype::float32());
  CHECK(autocast_type("norm", dtype_v<double>, dtype_v<half>) == dtype::float64());  // first: double, no flip
  CHECK(autocast_type("norm.ScalarOpt_dtype", dtype_v<half>) == dtype::float16());    // not registered
  // Non-floating arguments before the tensor do not count.
  CHECK(autocast_type("softmax", 1, dtype_v<half>) == dtype::float32());
  CHECK_FALSE(autocast_type("sum", 3, 4).is_defined());
  const auto d = mixprec::autocast_decide("cumsum", dtype_v<double>);
  CHECK(d.policy == cast_policy::fp32_set_opt_dtype);
  CHECK_FALSE(d.target.is_defined());
}

TEST_CASE("promote: the widest eligible type; float16 with bfloat16 is an error") {
  {
    autocast_scope s(device_kind::cuda);  // float16
    CHECK(autocast_type("addcmul", dtype_v<half>, dtype_v<half>, dtype_v<half>) == dtype::float16());
    CHECK(autocast_type("addcmul", dtype_v<half>, dtype_v<float>, dtype_v<half>) == dtype::float32());
    CHECK(autocast_type("addcmul", dtype_v<float>, dtype_v<half>) == dtype::float32());
    CHECK(autocast_type("dot", dtype_v<bfloat16>, dtype_v<float>) == dtype::float32());
    CHECK(autocast_type("dot", dtype_v<float>, dtype_v<bfloat16>) == dtype::float32());
    // float64 is ignored for the choice and kept: target float16, result float64.
    const auto d = mixprec::autocast_decide("index_put", dtype_v<double>, dtype_v<half>);
    CHECK(d.target == dtype::float16());
    CHECK(d.compute == dtype::float64());
    // No eligible argument: nothing to decide.
    CHECK_FALSE(mixprec::autocast_decide("dot", dtype_v<double>, 3).target.is_defined());
    // float8 promotes into the wider float16; alone it is narrower than the autocast dtype.
    CHECK(autocast_type("dot", dtype_v<mixprec::float8_e4m3fn>, dtype_v<half>) == dtype::float16());
    CHECK_THROWS_AS(autocast_type("dot", dtype_v<mixprec::float8_e4m3fn>), autocast_error);
    // Mixing float16 and bfloat16: always an error, float or not.
    CHECK_THROWS_WITH_AS(autocast_type("addcmul", dtype_v<half>, dtype_v<bfloat16>),
                         doctest::Contains("float16 together with bfloat16"), autocast_error);
    CHECK_THROWS_WITH_AS(autocast_type("addcmul", dtype_v<float>, dtype_v<half>, dtype_v<bfloat16>),
                         doctest::Contains("float16 together with bfloat16"), autocast_error);
    // bfloat16 alone under a float16 autocast (PyTorch raises too).
    CHECK_THROWS_WITH_AS(autocast_type("atan2", dtype_v<bfloat16>, dtype_v<bfloat16>),
                         doctest::Contains("Unexpected floating ScalarType"), autocast_error);
    CHECK(mixprec::autocast_nesting() == 1);  // nothing changed by the errors
    // A widest type that is not a PyTorch dtype (tf32 here) casts to float32, which holds it.
    CHECK(mixprec::autocast_decide("addcmul", dtype_v<mixprec::tf32>, dtype_v<half>).target == dtype::float32());
    CHECK(autocast_type("addcmul", dtype_v<mixprec::tf32>, dtype_v<half>) == dtype::float32());
    const std::vector<mixprec::tf32> t1 = {mixprec::tf32(1.5f)};
    const std::vector<half> h1 = {half(2.0f)};
    CHECK_NOTHROW(mixprec::autocast_cast("addcmul", t1, h1));
  }
  {
    autocast_scope s(device_kind::cpu);  // bfloat16
    CHECK(autocast_type("cat", dtype_v<bfloat16>, dtype_v<bfloat16>) == dtype::bfloat16());
    CHECK(autocast_type("cat", dtype_v<bfloat16>, dtype_v<float>) == dtype::float32());
    CHECK(autocast_type("stack", dtype_v<int>, dtype_v<bfloat16>) == dtype::bfloat16());
    CHECK_THROWS_AS(autocast_type("cat", dtype_v<half>, dtype_v<half>), autocast_error);
    CHECK(autocast_type("addcmul", dtype_v<half>, dtype_v<bfloat16>) == dtype::float32());  // unlisted on CPU
  }
}

TEST_CASE("banned: PyTorch's advice, only while enabled, only on CUDA") {
  {
    autocast_scope s(device_kind::cuda);
    try {
      (void)autocast_type("binary_cross_entropy", dtype_v<float>, dtype_v<float>);
      FAIL("no exception");
    } catch (const autocast_error& e) {
      const std::string msg = e.what();
      CHECK(msg.find("torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.") == 0);
      CHECK(msg.find("binary_cross_entropy_with_logits") != std::string::npos);
      CHECK(msg.find("BCEWithLogitsLoss") != std::string::npos);
    }
    // Banned whatever the arguments; autocast_cast throws the same way.
    CHECK_THROWS_AS(autocast_type("binary_cross_entropy"), autocast_error);
    std::vector<float> p(2, 0.5f);
    CHECK_THROWS_AS(mixprec::autocast_cast("binary_cross_entropy", p, p), autocast_error);
    CHECK(autocast_type("binary_cross_entropy_with_logits", dtype_v<half>) == dtype::float32());
    {
      autocast_scope off(device_kind::cuda, false);
      CHECK(autocast_type("binary_cross_entropy", dtype_v<half>) == dtype::float16());
    }
    CHECK(autocast_type(device_kind::cpu, "binary_cross_entropy", dtype_v<half>) == dtype::float16());
  }
}

TEST_CASE("nesting: disabled inside enabled, dtype changes, devices independent") {
  autocast_scope outer(device_kind::cuda);
  CHECK(mixprec::autocast_nesting() == 1);
  CHECK(autocast_type("mm", 1.0f) == dtype::float16());
  {
    autocast_scope off(device_kind::cuda, false);
    CHECK(mixprec::autocast_nesting() == 2);
    CHECK_FALSE(mixprec::is_autocast_enabled());
    CHECK(autocast_type("mm", 1.0f) == dtype::float32());
    {
      autocast_scope on(device_kind::cuda, dtype::bfloat16());
      CHECK(mixprec::is_autocast_enabled());
      CHECK(autocast_type("mm", 1.0f) == dtype::bfloat16());
      {
        autocast_scope inherit(device_kind::cuda);  // no dtype: keeps the current bfloat16
        CHECK(mixprec::autocast_dtype() == dtype::bfloat16());
      }
    }
    CHECK_FALSE(mixprec::is_autocast_enabled());
    CHECK(mixprec::autocast_dtype() == dtype::float16());
  }
  CHECK(mixprec::is_autocast_enabled());
  CHECK(autocast_type("mm", 1.0f) == dtype::float16());
  {
    autocast_scope cpu(device_kind::cpu);
    CHECK(mixprec::autocast_device() == device_kind::cpu);
    CHECK(mixprec::is_autocast_enabled(device_kind::cuda));  // untouched
    CHECK(autocast_type("mm", 1.0f) == dtype::bfloat16());
    CHECK(autocast_type(device_kind::cuda, "mm", 1.0f) == dtype::float16());
    {
      mixprec::autocast_options o;
      o.device = device_kind::cuda;
      o.enabled = false;
      autocast_scope cuda_off(o);
      CHECK(mixprec::is_autocast_enabled(device_kind::cpu));
      CHECK_FALSE(mixprec::is_autocast_enabled(device_kind::cuda));
    }
    CHECK(mixprec::is_autocast_enabled(device_kind::cuda));
  }
  CHECK(mixprec::autocast_device() == device_kind::cuda);
  CHECK_FALSE(mixprec::is_autocast_enabled(device_kind::cpu));
  CHECK(mixprec::autocast_nesting() == 1);
}

TEST_CASE("invalid scopes throw and change nothing") {
  autocast_scope outer(device_kind::cuda);
  CHECK_THROWS_WITH_AS(autocast_scope(device_kind::cuda, dtype::float32()),
                       doctest::Contains("float16 or bfloat16, not float32"), std::invalid_argument);
  CHECK_THROWS_AS(autocast_scope(device_kind::cpu, dtype_v<mixprec::float8_e5m2>), std::invalid_argument);
  CHECK_THROWS_AS(autocast_scope(static_cast<device_kind>(7)), std::invalid_argument);
  CHECK_THROWS_AS((void)mixprec::is_autocast_enabled(static_cast<device_kind>(7)), std::invalid_argument);
  CHECK(mixprec::autocast_nesting() == 1);
  CHECK(mixprec::autocast_dtype() == dtype::float16());
  CHECK(mixprec::autocast_device() == device_kind::cuda);
}

TEST_CASE("thread isolation") {
  autocast_scope outer(device_kind::cuda, dtype::bfloat16());
  std::vector<float> w(8, 0.25f);
  (void)mixprec::autocast_cast("linear", mixprec::weight(w));
  CHECK(mixprec::autocast_cache_size() == 1);

  std::promise<void> opened, checked;
  std::shared_future<void> checked_f = checked.get_future().share();
  bool fresh_ok = false, inside_ok = false;
  std::thread t([&] {
    fresh_ok = !mixprec::is_autocast_enabled() && mixprec::autocast_nesting() == 0 &&
               mixprec::autocast_cache_size() == 0 && mixprec::autocast_dtype() == dtype::float16();
    {
      autocast_scope s(device_kind::cuda, false);
      autocast_scope c(device_kind::cpu, dtype::float16());
      (void)mixprec::autocast_cast(device_kind::cpu, "mm", mixprec::weight(w));
      opened.set_value();
      checked_f.wait();
      inside_ok = mixprec::autocast_cache_size() == 1 && mixprec::autocast_nesting() == 2 &&
                  autocast_type("mm", 1.0f) == dtype::float16() && !mixprec::is_autocast_enabled(device_kind::cuda);
    }
  });
  opened.get_future().wait();
  // The other thread's open scopes change nothing here.
  CHECK(mixprec::is_autocast_enabled(device_kind::cuda));
  CHECK_FALSE(mixprec::is_autocast_enabled(device_kind::cpu));
  CHECK(mixprec::autocast_dtype() == dtype::bfloat16());
  CHECK(mixprec::autocast_nesting() == 1);
  CHECK(mixprec::autocast_cache_size() == 1);
  CHECK(autocast_type("mm", 1.0f) == dtype::bfloat16());
  checked.set_value();
  t.join();
  CHECK(fresh_ok);
  CHECK(inside_ok);
  CHECK(mixprec::autocast_cache_size() == 1);
}

TEST_CASE("autocast_cast: values converted once, nearest even") {
  autocast_scope s(device_kind::cuda);
  const std::vector<float> x = {0.1f, 1.0f / 3.0f, 65536.0f, -0.0f};
  const double d = 0.1;
  int k = 7;
  auto [xc, dc, fc, kc, tc] = mixprec::autocast_cast("linear", x, d, 0.1f, k, dtype_v<float>);
  static_assert(std::is_same<decltype(xc), mixprec::cast_tensor<float>>::value, "");
  static_assert(std::is_same<decltype(dc), mixprec::cast_value<double>>::value, "");
  static_assert(std::is_same<decltype(fc), mixprec::cast_value<float>>::value, "");
  static_assert(std::is_same<decltype(kc), const int&>::value, "");
  static_assert(std::is_same<decltype(tc), dtype>::value, "");
  CHECK(xc.type() == dtype::float16());
  CHECK(xc.converted());
  CHECK_FALSE(xc.from_cache());
  REQUIRE(xc.size() == 4);
  const auto h = xc.as<half>();
  CHECK(bits16(h[0]) == 0x2E66);  // 0.0999755859375
  CHECK(bits16(h[1]) == 0x3555);  // 0.333251953125
  CHECK(bits16(h[2]) == 0x7C00);  // above 65504 + half an ulp: infinity
  CHECK(bits16(h[3]) == 0x8000);
  CHECK_THROWS_WITH_AS(xc.as<float>(), "mixprec::cast_tensor: holds float16, not float32", std::invalid_argument);
  CHECK(dc.type() == dtype::float64());
  CHECK_FALSE(dc.converted());
  CHECK(dc.as<double>() == 0.1);
  CHECK(fc.type() == dtype::float16());
  CHECK(bits16(fc.as<half>()) == 0x2E66);
  CHECK(fc.to<double>() == 0.0999755859375);
  CHECK(&kc == &k);
  CHECK(tc == dtype::float16());
  // visit() hands the static type.
  const std::size_t bytes = xc.visit([](auto sp) { return sizeof(typename decltype(sp)::value_type); });
  CHECK(bytes == 2);
  CHECK(xc.to_vector<float>()[0] == 0.0999755859375f);

  // bfloat16 on the CPU; an unchanged argument is a view of the caller's data.
  autocast_scope c(device_kind::cpu);
  float arr[2] = {0.1f, 1.0f / 3.0f};
  auto [ac, same] = mixprec::autocast_cast("mm", arr, mixprec::span<const half>());
  CHECK(ac.type() == dtype::bfloat16());
  CHECK(bits16(ac.as<bfloat16>()[0]) == 0x3DCD);
  CHECK(bits16(ac.as<bfloat16>()[1]) == 0x3EAB);
  const std::vector<bfloat16> already = {bfloat16(1.0f)};
  auto [view] = mixprec::autocast_cast("mm", already);
  CHECK_FALSE(view.converted());
  CHECK(view.as<bfloat16>().data() == already.data());
  // fp32 on CPU: bfloat16 up to float, exactly.
  auto [up] = mixprec::autocast_cast("prod", already);
  CHECK(up.type() == dtype::float32());
  CHECK(up.as<float>()[0] == 1.0f);
  (void)same;
}

TEST_CASE("weight cache: float leaves cast to the autocast dtype, until the outermost scope exits") {
  std::vector<float> w = {0.1f, 0.2f, 0.3f};
  std::vector<float> b = {1.0f};
  std::vector<half> wh = {half(1.0f)};
  CHECK(mixprec::autocast_cache_size() == 0);
  mixprec::cast_tensor<float> kept(mixprec::span<const float>{});
  {
    autocast_scope outer(device_kind::cuda);
    auto [x1, w1, b1] = mixprec::autocast_cast("linear", w, mixprec::weight(w), mixprec::weight(b));
    CHECK_FALSE(x1.from_cache());  // not a weight
    CHECK(w1.from_cache());
    CHECK(b1.from_cache());
    CHECK(mixprec::autocast_cache_size() == 2);
    CHECK(bits16(w1.as<half>()[0]) == 0x2E66);
    const half* first = w1.as<half>().data();
    {
      autocast_scope inner(device_kind::cuda);
      auto [w2] = mixprec::autocast_cast("mm", mixprec::weight(w));
      CHECK(w2.as<half>().data() == first);  // the same cast
      // bfloat16 in a nested scope: another entry (keyed by target type).
      autocast_scope bf(device_kind::cuda, dtype::bfloat16());
      auto [w3] = mixprec::autocast_cast("mm", mixprec::weight(w));
      CHECK(w3.type() == dtype::bfloat16());
      CHECK(w3.from_cache());
      CHECK(mixprec::autocast_cache_size() == 3);
      // Casts to float are not cached (PyTorch caches only lower-precision casts)...
      auto [w4] = mixprec::autocast_cast("exp", mixprec::weight(wh));
      CHECK(w4.type() == dtype::float32());
      CHECK_FALSE(w4.from_cache());
      // ... nor is a float weight left alone, nor a half weight cast down-to-nothing.
      auto [w5] = mixprec::autocast_cast("exp", mixprec::weight(w));
      CHECK_FALSE(w5.converted());
      auto [w6] = mixprec::autocast_cast("mm", mixprec::weight(wh));
      CHECK(w6.type() == dtype::bfloat16());
      CHECK_FALSE(w6.from_cache());
      CHECK(mixprec::autocast_cache_size() == 3);
      // Disabled: nothing is cast.
      autocast_scope off(device_kind::cuda, false);
      auto [w7] = mixprec::autocast_cast("mm", mixprec::weight(w));
      CHECK_FALSE(w7.converted());
    }
    CHECK(mixprec::autocast_cache_size() == 3);  // inner scopes ended: still cached
    {
      mixprec::autocast_options o;
      o.device = device_kind::cuda;
      o.cache_enabled = false;
      autocast_scope nocache(o);
      CHECK_FALSE(mixprec::is_autocast_cache_enabled());
      std::vector<float> other = {2.0f};
      auto [w8] = mixprec::autocast_cast("mm", mixprec::weight(other));
      CHECK(w8.converted());
      CHECK_FALSE(w8.from_cache());
      CHECK(mixprec::autocast_cache_size() == 3);
    }
    CHECK(mixprec::is_autocast_cache_enabled());
    // promote with a float weight: float wins, nothing is cast down or cached.
    auto [p1, p2] = mixprec::autocast_cast("addcmul", mixprec::weight(b), wh);
    CHECK(p1.type() == dtype::float32());  // float present: float wins, nothing cached
    CHECK_FALSE(p1.converted());
    CHECK(p2.type() == dtype::float32());
    kept = w1;
  }
  CHECK(mixprec::autocast_cache_size() == 0);  // the outermost scope exited
  // The result co-owns its data: still valid.
  CHECK(kept.from_cache());
  CHECK(bits16(kept.as<half>()[2]) == bits16(half(0.3f)));
  {
    autocast_scope again(device_kind::cuda);
    auto [w9] = mixprec::autocast_cast("mm", mixprec::weight(w));
    CHECK(w9.as<half>().data() != kept.as<half>().data());  // a fresh cast
    CHECK(mixprec::autocast_cache_size() == 1);
    mixprec::clear_autocast_cache();
    CHECK(mixprec::autocast_cache_size() == 0);
  }
}

TEST_CASE("autocast_decide with explicit settings uses no thread state") {
  mixprec::autocast_settings s;
  s.device = device_kind::cpu;
  s.enabled = true;
  s.fast_dtype = dtype::bfloat16();
  s.ops = &mixprec::autocast_ops_cpu;
  const auto d = mixprec::autocast_decide(s, "linear", dtype_v<float>, dtype_v<float>);
  CHECK(d.enabled);
  CHECK(d.policy == cast_policy::lower_precision);
  CHECK(d.target == dtype::bfloat16());
  CHECK(d.compute == dtype::bfloat16());
  CHECK(d.casts(dtype::float32()));
  CHECK_FALSE(d.casts(dtype::float64()));
  CHECK_FALSE(d.casts(dtype::bfloat16()));
  CHECK(d.converted(dtype::float64()) == dtype::float64());
  CHECK_FALSE(mixprec::is_autocast_enabled(device_kind::cpu));
  s.ops = nullptr;  // the device's built-in table
  CHECK(mixprec::autocast_decide(s, "cat", dtype_v<float>).policy == cast_policy::promote);
}

TEST_CASE("dtype: names, identity, fits_in, promote_types") {
  static_assert(dtype::of<float>() == dtype::float32(), "");
  static_assert(dtype::of<const half>() == dtype::float16(), "");
  static_assert(dtype::float16() != dtype::bfloat16(), "");
  static_assert(dtype::float16().fits_in(dtype::float32()), "");
  static_assert(!dtype::float16().fits_in(dtype::bfloat16()), "");
  static_assert(!dtype::bfloat16().fits_in(dtype::float16()), "");
  static_assert(dtype::bfloat16().fits_in(dtype::float32()), "");
  static_assert(mixprec::promote_types(dtype::float16(), dtype::bfloat16()) == dtype::float32(), "");
  static_assert(mixprec::promote_types(dtype::float32(), dtype::float64()) == dtype::float64(), "");
  static_assert(mixprec::promote_types(dtype_v<mixprec::float8_e4m3fn>, dtype::float16()) == dtype::float16(), "");
  static_assert(mixprec::promote_types(dtype_v<mixprec::float8_e5m2>, dtype::bfloat16()) == dtype::bfloat16(), "");
  static_assert(!mixprec::promote_types(dtype_v<int>, dtype::float16()).is_defined(), "");
  static_assert(dtype_v<mixprec::tf32>.emax() == 127 && dtype_v<mixprec::tf32>.bits() == 19, "");
  static_assert(dtype::float16().emax() == 15 && dtype::float16().emin() == -14, "");
  static_assert(dtype_v<mixprec::float8_e4m3fn>.emax() == 8, "");
  static_assert(dtype_v<mixprec::float8_e4m3fnuz>.emax() == 7 && dtype_v<mixprec::float8_e4m3fnuz>.emin() == -7, "");
  static_assert(!dtype().is_defined(), "");
  CHECK(dtype::float16().name() == "float16");
  CHECK(dtype::bfloat16().name() == "bfloat16");
  CHECK(dtype::float32().name() == "float32");
  CHECK(dtype::float64().name() == "float64");
  CHECK(dtype_v<mixprec::tf32>.name() == "tf32");
  CHECK(dtype_v<mixprec::float8_e4m3fn>.name() == "float8_e4m3fn");
  CHECK(dtype_v<std::int32_t>.name() == "int32");
  CHECK(dtype_v<std::uint8_t>.name() == "uint8");
  CHECK(dtype_v<bool>.name() == "bool");
  CHECK(dtype().name() == "undefined");
  CHECK(dtype_v<std::int64_t>.kind() == mixprec::dtype_kind::integer);
  CHECK(dtype_v<std::int64_t> != dtype_v<std::uint64_t>);
}

TEST_CASE("autocast's answers stream: a dtype writes its name, a device_kind its to_string") {
  // Only autocast.hpp is included: dtype's operator<< needs no mixprec/io.hpp.
  autocast_scope s(device_kind::cuda);
  std::ostringstream os;
  os << autocast_type("linear", 1.0f, 2.0f) << ' ' << autocast_type("exp", half(1.0f)) << ' '
     << autocast_type("mm", 1.0, 2.0) << ' ' << autocast_type("relu", dtype_v<mixprec::float8_e4m3fn>) << ' '
     << autocast_type("mm", dtype_v<int>) << ' ' << mixprec::autocast_device() << ' ' << device_kind::cpu;
  CHECK(os.str() == "float16 float32 float64 float8_e4m3fn undefined cuda cpu");
  std::wostringstream ws;
  ws << autocast_type(device_kind::cpu, "mm", 1.0f) << L' ' << device_kind::cpu;
  CHECK(ws.str() == L"float32 cpu");  // cpu autocast is not enabled here
}

TEST_CASE("cast_to: any floating value to a run-time type") {
  const std::vector<double> v = {0.1, 2.5};
  auto t = mixprec::cast_to(dtype::bfloat16(), v);
  CHECK(t.type() == dtype::bfloat16());
  CHECK(bits16(t.as<bfloat16>()[0]) == 0x3DCD);
  CHECK(bits16(t.as<bfloat16>()[1]) == 0x4020);
  auto u = mixprec::cast_to(dtype::float64(), half(0.5f));
  CHECK(u.as<double>() == 0.5);
  auto same = mixprec::cast_to(dtype::float64(), v);
  CHECK_FALSE(same.converted());
  CHECK(same.as<double>().data() == v.data());
  std::string text = "kept";
  const std::string& r = mixprec::cast_to(dtype::float16(), text);
  CHECK(&r == &text);
  CHECK(mixprec::cast_to(dtype::float16(), std::string("moved")) == "moved");
  CHECK_THROWS_WITH_AS(mixprec::cast_to(dtype_v<mixprec::tf32>, 1.0f), doctest::Contains("cannot convert to tf32"),
                       std::invalid_argument);
  CHECK_THROWS_AS(mixprec::cast_to(dtype(), 1), std::invalid_argument);
}
