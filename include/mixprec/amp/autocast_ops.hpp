// SPDX-License-Identifier: MIT
// mixprec/amp/autocast_ops.hpp — autocast op tables: which cast policy an op gets, as data.
//
// Contract: autocast_ops_cuda / autocast_ops_cpu are PyTorch 2.4's autocast registrations,
// complete, under ATen's op names ("op" for every overload or "op.overload"); an op in no entry
// is unlisted. Tables derive from a base (constexpr arrays, or custom_autocast_ops at run time):
// find() looks table by table from the derived one down, exact name first, then the name before
// the overload dot; within a table the last entry wins. Tables refer to (never copy) their
// entries and base. Sources, the effective tables, lookup and cost:
// docs/pages/autocast-reference.md#op-tables.
//
//   mixprec::autocast_ops_cuda.find("linear");     // cast_policy::lower_precision
//   mixprec::autocast_ops_cpu.find("softmax");     // cast_policy::unlisted
//   mixprec::autocast_ops_cuda.find("pow.Tensor_Scalar");   // fp32 (overload names accepted)
#ifndef MIXPREC_AUTOCAST_OPS_HPP
#define MIXPREC_AUTOCAST_OPS_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/amp/autocast_ops.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <algorithm>
#include <cstddef>
#include <deque>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "../core/detail/quote_input.hpp"

namespace mixprec {

/// How autocast treats an op's floating arguments (ATen's CastPolicy, plus banned and unlisted).
enum class cast_policy : unsigned char {
  lower_precision,     ///< cast eligible arguments to the autocast dtype (float16 / bfloat16)
  fp32,                ///< cast eligible arguments to float
  fp32_set_opt_dtype,  ///< compute in float when the first argument is eligible (softmax, sum, ...)
  fp32_append_dtype,   ///< the same through an appended dtype argument (norm)
  promote,             ///< the widest eligible argument type
  banned,              ///< an error under autocast (binary_cross_entropy on CUDA)
  unlisted             ///< no registration: the op runs in its input types
};

/// The name of p as written in the enum ("lower_precision", ...).
constexpr std::string_view to_string(cast_policy p) noexcept {
  switch (p) {
    case cast_policy::lower_precision: return "lower_precision";
    case cast_policy::fp32: return "fp32";
    case cast_policy::fp32_set_opt_dtype: return "fp32_set_opt_dtype";
    case cast_policy::fp32_append_dtype: return "fp32_append_dtype";
    case cast_policy::promote: return "promote";
    case cast_policy::banned: return "banned";
    case cast_policy::unlisted: return "unlisted";
  }
  return "invalid";
}

/// One table entry: an op (or "op.overload") and its policy; advice is the message of a banned
/// op (empty: a generic message).
struct autocast_op {
  std::string_view name;                       ///< "op" (every overload) or "op.overload"
  cast_policy policy = cast_policy::unlisted;  ///< What autocast does to the op
  std::string_view advice = {};                ///< The autocast_error message of a banned op
};

/// An op table: entries (not copied) and an optional base table (not copied); both must
/// outlive it. Lookup: entry().
class autocast_op_table {
 public:
  /// An empty table: every op unlisted.
  constexpr autocast_op_table() noexcept = default;
  /// size entries from entries on top of base (nullptr: none), named name.
  constexpr autocast_op_table(const autocast_op* entries, std::size_t size, const autocast_op_table* base = nullptr,
                              std::string_view name = {}) noexcept
      : entries_(entries), size_(size), base_(base), name_(name) {}
  /// The N entries of an array, without base.
  template <std::size_t N>
  constexpr autocast_op_table(const autocast_op (&entries)[N], std::string_view name = {}) noexcept  // NOLINT
      : entries_(entries), size_(N), name_(name) {}
  /// entries on top of base (overrides).
  template <std::size_t N>
  constexpr autocast_op_table(const autocast_op_table& base, const autocast_op (&entries)[N],
                              std::string_view name = {}) noexcept
      : entries_(entries), size_(N), base_(&base), name_(name) {}

  /// The policy of op (an op or "op.overload" name); unlisted when no entry names it.
  constexpr cast_policy find(std::string_view op) const noexcept {
    const autocast_op* e = entry(op);
    return e != nullptr ? e->policy : cast_policy::unlisted;
  }
  /// find(op).
  constexpr cast_policy operator[](std::string_view op) const noexcept { return find(op); }
  /// Whether op has a policy other than unlisted.
  constexpr bool contains(std::string_view op) const noexcept { return find(op) != cast_policy::unlisted; }

  /// The entry that decides op (nullptr when none does).
  /// Table by table from this one down: the exact name, then (for "op.overload") the bare op
  /// name, so that an entry for a whole op in a derived table overrides its base's overload entries.
  constexpr const autocast_op* entry(std::string_view op) const noexcept {
    const std::size_t dot = op.find('.');
    for (const autocast_op_table* t = this; t != nullptr; t = t->base_) {
      if (const autocast_op* e = t->find_own(op)) return e;
      if (dot != std::string_view::npos) {
        if (const autocast_op* e = t->find_own(op.substr(0, dot))) return e;
      }
    }
    return nullptr;
  }

  /// This table's own entries (not its base's), in order.
  constexpr const autocast_op* begin() const noexcept { return entries_; }
  /// One past this table's last own entry.
  constexpr const autocast_op* end() const noexcept { return entries_ + size_; }
  /// Number of own entries (base not counted).
  constexpr std::size_t size() const noexcept { return size_; }
  /// The base table, or nullptr.
  constexpr const autocast_op_table* base() const noexcept { return base_; }
  /// The table's name ("cuda", "cpu", ...; may be empty).
  constexpr std::string_view name() const noexcept { return name_; }

  /// Every name in this table or below it, once, sorted, with the policy find() gives it.
  std::vector<autocast_op> effective_entries() const {
    std::vector<std::string_view> names;
    for (const autocast_op_table* t = this; t != nullptr; t = t->base_) {
      for (const autocast_op& e : *t) names.push_back(e.name);
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::vector<autocast_op> out;
    out.reserve(names.size());
    for (std::string_view n : names) {
      const autocast_op* e = entry(n);
      out.push_back(autocast_op{n, e->policy, e->advice});
    }
    return out;
  }
  /// The names whose effective policy is p, sorted.
  std::vector<std::string_view> ops(cast_policy p) const {
    std::vector<std::string_view> out;
    for (const autocast_op& e : effective_entries()) {
      if (e.policy == p) out.push_back(e.name);
    }
    return out;
  }

 private:
  /// The last of this table's own entries named op.
  constexpr const autocast_op* find_own(std::string_view op) const noexcept {
    for (std::size_t i = size_; i > 0; --i) {
      if (entries_[i - 1].name == op) return &entries_[i - 1];
    }
    return nullptr;
  }

  const autocast_op* entries_ = nullptr;
  std::size_t size_ = 0;
  const autocast_op_table* base_ = nullptr;
  std::string_view name_ = {};
};

namespace detail {

/// PyTorch's message for binary_cross_entropy under CUDA autocast (binary_cross_entropy_banned).
inline constexpr std::string_view binary_cross_entropy_advice =
    "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
    "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
    "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
    "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
    "safe to autocast.";

constexpr cast_policy ac_lp = cast_policy::lower_precision;
constexpr cast_policy ac_f32 = cast_policy::fp32;
constexpr cast_policy ac_set_dtype = cast_policy::fp32_set_opt_dtype;
constexpr cast_policy ac_append_dtype = cast_policy::fp32_append_dtype;
constexpr cast_policy ac_promote = cast_policy::promote;

// TORCH_LIBRARY_IMPL(aten, Autocast, m), PyTorch 2.4.
inline constexpr autocast_op autocast_cuda_entries[] = {
    // lower_precision_fp: AT_FORALL_LOWER_PRECISION_FP, then cudnn_convolution(_transpose)
    {"_convolution", ac_lp},  // _convolution.deprecated and _convolution
    {"conv1d", ac_lp},
    {"conv2d", ac_lp},
    {"conv3d", ac_lp},
    {"conv_tbc", ac_lp},
    {"conv_transpose1d", ac_lp},
    {"conv_transpose2d", ac_lp},  // .input
    {"conv_transpose3d", ac_lp},  // .input
    {"convolution", ac_lp},
    {"prelu", ac_lp},
    {"addmm", ac_lp},
    {"addmv", ac_lp},
    {"addr", ac_lp},
    {"matmul", ac_lp},
    {"einsum", ac_lp},
    {"mm", ac_lp},
    {"mv", ac_lp},
    {"linalg_vecdot", ac_lp},
    {"linear", ac_lp},
    {"addbmm", ac_lp},
    {"baddbmm", ac_lp},
    {"bmm", ac_lp},
    {"chain_matmul", ac_lp},
    {"linalg_multi_dot", ac_lp},
    {"_thnn_fused_lstm_cell", ac_lp},
    {"_thnn_fused_gru_cell", ac_lp},
    {"lstm_cell", ac_lp},
    {"gru_cell", ac_lp},
    {"rnn_tanh_cell", ac_lp},
    {"rnn_relu_cell", ac_lp},
    {"_scaled_dot_product_flash_attention", ac_lp},
    {"scaled_dot_product_attention", ac_lp},
    {"cudnn_convolution", ac_lp},
    {"cudnn_convolution_transpose", ac_lp},
    // fp32: AT_FORALL_FP32
    {"acos", ac_f32},
    {"asin", ac_f32},
    {"cosh", ac_f32},
    {"erfinv", ac_f32},
    {"exp", ac_f32},
    {"expm1", ac_f32},
    {"log", ac_f32},
    {"log10", ac_f32},
    {"log2", ac_f32},
    {"log1p", ac_f32},
    {"reciprocal", ac_f32},
    {"rsqrt", ac_f32},
    {"sinh", ac_f32},
    {"tan", ac_f32},
    {"pow", ac_f32},  // .Tensor_Scalar, .Tensor_Tensor, .Scalar
    {"softplus", ac_f32},
    {"layer_norm", ac_f32},
    {"native_layer_norm", ac_f32},
    {"group_norm", ac_f32},
    {"frobenius_norm", ac_f32},  // .dim
    {"nuclear_norm", ac_f32},    // and .dim
    {"cosine_similarity", ac_f32},
    {"poisson_nll_loss", ac_f32},
    {"cosine_embedding_loss", ac_f32},
    {"nll_loss", ac_f32},
    {"nll_loss2d", ac_f32},
    {"hinge_embedding_loss", ac_f32},
    {"kl_div", ac_f32},
    {"l1_loss", ac_f32},
    {"smooth_l1_loss", ac_f32},
    {"huber_loss", ac_f32},
    {"mse_loss", ac_f32},
    {"margin_ranking_loss", ac_f32},
    {"multilabel_margin_loss", ac_f32},
    {"soft_margin_loss", ac_f32},
    {"triplet_margin_loss", ac_f32},
    {"multi_margin_loss", ac_f32},
    {"binary_cross_entropy_with_logits", ac_f32},
    {"dist", ac_f32},
    {"pdist", ac_f32},
    {"cdist", ac_f32},
    {"renorm", ac_f32},
    {"logsumexp", ac_f32},
    // fp32_set_opt_dtype: AT_FORALL_FP32_SET_OPT_DTYPE
    {"prod", ac_set_dtype},                // and .dim_int, .dim_Dimname
    {"softmax", ac_set_dtype},             // .int, .Dimname
    {"log_softmax", ac_set_dtype},         // .int, .Dimname
    {"cumprod", ac_set_dtype},             // and .dimname
    {"cumsum", ac_set_dtype},              // and .dimname
    {"linalg_vector_norm", ac_set_dtype},  //
    {"linalg_matrix_norm", ac_set_dtype},  // and .str_ord
    {"sum", ac_set_dtype},                 // and .dim_IntList, .dim_DimnameList
    // fp32_append_dtype: AT_FORALL_DIFFERENT_REDISPATCH_SIGNATURE (norm.Scalar,
    // norm.ScalarOpt_dim, norm.names_ScalarOpt_dim); the overloads with an explicit dtype are
    // not registered.
    {"norm", ac_append_dtype},
    {"norm.ScalarOpt_dtype", cast_policy::unlisted},
    {"norm.ScalarOpt_dim_dtype", cast_policy::unlisted},
    {"norm.names_ScalarOpt_dim_dtype", cast_policy::unlisted},
    // promote: AT_FORALL_PROMOTE
    {"addcdiv", ac_promote},
    {"addcmul", ac_promote},
    {"atan2", ac_promote},
    {"bilinear", ac_promote},
    {"cross", ac_promote},
    {"dot", ac_promote},
    {"grid_sampler", ac_promote},
    {"index_put", ac_promote},
    {"tensordot", ac_promote},
    {"scatter_add", ac_promote},
    // banned
    {"binary_cross_entropy", cast_policy::banned, binary_cross_entropy_advice},
    // not an ATen registration (docs/pages/autocast-reference.md#op-tables)
    {"cross_entropy", ac_f32},
};

// TORCH_LIBRARY_IMPL(aten, AutocastCPU, m), PyTorch 2.4.
inline constexpr autocast_op autocast_cpu_entries[] = {
    // lower_precision_fp
    {"conv1d", ac_lp},  // and .padding
    {"conv2d", ac_lp},  // and .padding
    {"conv3d", ac_lp},  // and .padding
    {"bmm", ac_lp},
    {"mm", ac_lp},
    {"linalg_vecdot", ac_lp},
    {"baddbmm", ac_lp},
    {"addmm", ac_lp},
    {"addbmm", ac_lp},
    {"linear", ac_lp},
    {"_convolution.deprecated", ac_lp},  // only this overload
    {"matmul", ac_lp},
    {"conv_tbc", ac_lp},
    {"mkldnn_rnn_layer", ac_lp},
    {"conv_transpose1d", ac_lp},
    {"conv_transpose2d", ac_lp},  // .input
    {"conv_transpose3d", ac_lp},  // .input
    {"prelu", ac_lp},
    {"scaled_dot_product_attention", ac_lp},
    {"_native_multi_head_attention", ac_lp},
    // fp32
    {"avg_pool3d", ac_f32},
    {"binary_cross_entropy", ac_f32},
    {"grid_sampler", ac_f32},
    {"polar", ac_f32},
    {"prod", ac_f32},  // and .dim_int, .dim_Dimname
    {"quantile", ac_f32},     // and .scalar
    {"nanquantile", ac_f32},  // and .scalar
    {"stft", ac_f32},         // and .center
    {"cdist", ac_f32},
    {"grid_sampler_2d", ac_f32},
    {"_grid_sampler_2d_cpu_fallback", ac_f32},
    {"grid_sampler_3d", ac_f32},
    {"trace", ac_f32},
    {"view_as_complex", ac_f32},
    {"cholesky", ac_f32},
    {"cholesky_inverse", ac_f32},
    {"cholesky_solve", ac_f32},
    {"inverse", ac_f32},
    {"lu_solve", ac_f32},
    {"orgqr", ac_f32},
    {"ormqr", ac_f32},
    {"pinverse", ac_f32},
    {"max_pool3d", ac_f32},
    {"max_unpool2d", ac_f32},
    {"max_unpool3d", ac_f32},
    {"adaptive_avg_pool3d", ac_f32},
    {"reflection_pad1d", ac_f32},
    {"reflection_pad2d", ac_f32},
    {"replication_pad1d", ac_f32},
    {"replication_pad2d", ac_f32},
    {"replication_pad3d", ac_f32},
    {"mse_loss", ac_f32},
    {"cosine_embedding_loss", ac_f32},
    {"nll_loss", ac_f32},
    {"nll_loss2d", ac_f32},
    {"hinge_embedding_loss", ac_f32},
    {"poisson_nll_loss", ac_f32},
    {"smooth_l1_loss", ac_f32},
    {"cross_entropy_loss", ac_f32},
    {"l1_loss", ac_f32},
    {"huber_loss", ac_f32},
    {"margin_ranking_loss", ac_f32},
    {"soft_margin_loss", ac_f32},
    {"triplet_margin_loss", ac_f32},
    {"multi_margin_loss", ac_f32},
    {"ctc_loss", ac_f32},  // .IntList, .Tensor
    {"kl_div", ac_f32},
    {"multilabel_margin_loss", ac_f32},
    {"binary_cross_entropy_with_logits", ac_f32},
    {"fft_fft", ac_f32},
    {"fft_ifft", ac_f32},
    {"fft_fft2", ac_f32},
    {"fft_ifft2", ac_f32},
    {"fft_fftn", ac_f32},
    {"fft_ifftn", ac_f32},
    {"fft_rfft", ac_f32},
    {"fft_irfft", ac_f32},
    {"fft_rfft2", ac_f32},
    {"fft_irfft2", ac_f32},
    {"fft_rfftn", ac_f32},
    {"fft_irfftn", ac_f32},
    {"fft_hfft", ac_f32},
    {"fft_ihfft", ac_f32},
    {"linalg_cond", ac_f32},         // and .p_str
    {"linalg_matrix_rank", ac_f32},  // and .tol_tensor, .atol_rtol_tensor, .atol_rtol_float
    {"linalg_solve", ac_f32},
    {"linalg_cholesky", ac_f32},
    {"linalg_svdvals", ac_f32},
    {"linalg_eigvals", ac_f32},
    {"linalg_eigvalsh", ac_f32},
    {"linalg_inv", ac_f32},
    {"linalg_householder_product", ac_f32},
    {"linalg_tensorinv", ac_f32},
    {"linalg_tensorsolve", ac_f32},
    {"fake_quantize_per_tensor_affine", ac_f32},
    {"geqrf", ac_f32},
    {"_lu_with_info", ac_f32},
    {"qr", ac_f32},
    {"svd", ac_f32},
    {"triangular_solve", ac_f32},
    {"fractional_max_pool2d", ac_f32},
    {"fractional_max_pool3d", ac_f32},
    {"adaptive_max_pool3d", ac_f32},
    {"multilabel_margin_loss_forward", ac_f32},
    {"linalg_qr", ac_f32},
    {"linalg_cholesky_ex", ac_f32},
    {"linalg_svd", ac_f32},
    {"linalg_eig", ac_f32},
    {"linalg_eigh", ac_f32},
    {"linalg_lstsq", ac_f32},
    {"linalg_inv_ex", ac_f32},
    // promote
    {"stack", ac_promote},
    {"cat", ac_promote},
    {"index_copy", ac_promote},  // and .dimname
    // not an ATen registration (docs/pages/autocast-reference.md#op-tables)
    {"cross_entropy", ac_f32},
};

}  // namespace detail

/// PyTorch 2.4's CUDA autocast registrations, complete (docs/pages/autocast-reference.md, "Op tables").
inline constexpr autocast_op_table autocast_ops_cuda{detail::autocast_cuda_entries, "cuda"};
/// PyTorch 2.4's CPU autocast registrations, complete (docs/pages/autocast-reference.md, "Op tables").
inline constexpr autocast_op_table autocast_ops_cpu{detail::autocast_cpu_entries, "cpu"};

namespace detail {
// Composite ops with no registration of their own that PyTorch runs through registered ones
// (CompositeImplicitAutograd decompositions; the autocast key is seen by the inner ops).
inline constexpr autocast_op autocast_cpu_composite_entries[] = {
    {"einsum", ac_lp},            // -> bmm
    {"tensordot", ac_lp},         // -> mm
    {"chain_matmul", ac_lp},      // -> linalg_multi_dot -> mm
    {"linalg_multi_dot", ac_lp},  // -> mm
    {"lstm_cell", ac_lp},         // -> linear (gate products; see below)
    {"gru_cell", ac_lp},          // -> linear
    {"rnn_tanh_cell", ac_lp},     // -> linear
    {"rnn_relu_cell", ac_lp},     // -> linear
    {"multi_head_attention_forward", ac_lp},  // nn.MultiheadAttention: linear, bmm/baddbmm
};
inline constexpr autocast_op autocast_cuda_composite_entries[] = {
    // einsum, chain_matmul, linalg_multi_dot and the RNN cells are registered on CUDA;
    // tensordot is registered promote (its inner mm then runs in the promoted type).
    {"multi_head_attention_forward", ac_lp},  // linear, bmm/baddbmm (softmax in float)
};
}  // namespace detail

/// autocast_ops_cpu plus entries for composite ops PyTorch runs through registered
/// lower-precision ops (einsum, tensordot, the RNN cells, multi_head_attention_forward, ...): the
/// type their PRODUCTS run in (docs/pages/autocast-reference.md, "Effective tables").
/// @code
/// autocast_options o; o.device = device_kind::cpu; o.ops = &autocast_ops_cpu_effective; autocast_scope s(o);
/// @endcode
inline constexpr autocast_op_table autocast_ops_cpu_effective{autocast_ops_cpu, detail::autocast_cpu_composite_entries,
                                                              "cpu_effective"};
/// autocast_ops_cuda plus the effective entries of the CUDA composite ops (multi_head_attention_forward).
inline constexpr autocast_op_table autocast_ops_cuda_effective{
    autocast_ops_cuda, detail::autocast_cuda_composite_entries, "cuda_effective"};

/// A table derived at run time: overrides (owned here) on top of a base table (not copied, must
/// outlive this object). Not copyable or movable: table() refers to this object's storage.
class custom_autocast_ops {
 public:
  /// No overrides yet: every op as in base (which must outlive *this).
  explicit custom_autocast_ops(const autocast_op_table& base, std::string_view name = "custom")
      : name_(name), table_(nullptr, 0, &base, name_) {}
  custom_autocast_ops(const custom_autocast_ops&) = delete;
  custom_autocast_ops& operator=(const custom_autocast_ops&) = delete;

  /// Puts op (an op or "op.overload" name) in category p: adds it, or moves it from wherever
  /// the base table has it. std::invalid_argument for an empty name, one with whitespace or a
  /// comma, or an invalid policy value; nothing changes then.
  custom_autocast_ops& set(std::string_view op, cast_policy p, std::string_view advice = {}) {
    check_name(op);
    if (static_cast<unsigned>(p) > static_cast<unsigned>(cast_policy::unlisted)) {
      throw std::invalid_argument("mixprec::custom_autocast_ops: invalid cast_policy value " +
                                  std::to_string(static_cast<unsigned>(p)) + " for op " + detail::quote_input(op));
    }
    std::string_view stored_advice = advice.empty() ? std::string_view() : store(advice);
    for (autocast_op& e : entries_) {
      if (e.name == op) {
        e.policy = p;
        e.advice = stored_advice;
        return *this;
      }
    }
    entries_.push_back(autocast_op{store(op), p, stored_advice});
    table_ = autocast_op_table(entries_.data(), entries_.size(), table_.base(), name_);
    return *this;
  }
  /// set() for several ops.
  custom_autocast_ops& set(std::initializer_list<std::string_view> ops, cast_policy p) {
    for (std::string_view op : ops) check_name(op);
    for (std::string_view op : ops) set(op, p);
    return *this;
  }
  /// Makes op unlisted (whatever the base says).
  custom_autocast_ops& remove(std::string_view op) { return set(op, cast_policy::unlisted); }

  /// The derived table (valid while *this lives; reflects later set/remove calls).
  const autocast_op_table& table() const noexcept { return table_; }
  /// table().
  operator const autocast_op_table&() const noexcept { return table_; }  // NOLINT

 private:
  static void check_name(std::string_view op) {
    if (op.empty()) throw std::invalid_argument("mixprec::custom_autocast_ops: empty op name");
    for (char c : op) {
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',') {
        throw std::invalid_argument("mixprec::custom_autocast_ops: invalid op name " + detail::quote_input(op) +
                                    " (no whitespace or commas)");
      }
    }
  }
  std::string_view store(std::string_view s) {
    strings_.emplace_back(s);
    return strings_.back();
  }

  std::deque<std::string> strings_;  // stable addresses for the names the entries view
  std::string name_;
  std::vector<autocast_op> entries_;
  autocast_op_table table_;
};

}  // namespace mixprec

#endif  // MIXPREC_AUTOCAST_OPS_HPP
