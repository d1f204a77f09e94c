// SPDX-License-Identifier: MIT
// examples/precision_study/train.hpp — the model, the ten precision modes and the training loop.
//
// Model: MLP 784-512-256-10 with ReLU, as PyTorch's nn.Sequential(Linear, ReLU, Linear, ReLU,
// Linear): a Linear layer stores W [out, in] row-major and b [out] and computes y = x W^T + b with
// ONE rounding of x W^T + b to the output type (cuBLAS/addmm with the bias in C and beta = 1).
// Initialization as nn.Linear's default: W and b uniform in +-1/sqrt(fan_in) (kaiming_uniform
// with a = sqrt(5)), drawn in double from SplitMix64(seed) and rounded once to the parameter type,
// so every mode starts from the same weights (to its precision). Loss: mean cross-entropy.
// Adam(lr 1e-3, betas 0.9/0.999, eps 1e-8, no weight decay), PyTorch's algorithm
// (mixprec::adam_step). Batch 128, the last batch of an epoch smaller (drop_last = False); the
// order of the training images is reshuffled every epoch by a Fisher-Yates shuffle on
// SplitMix64(seed), the same for every mode.
//
// Micro-batches (run_config::micro_batches, default 4): every batch runs forward and backward as M
// contiguous micro-batches (32 rows each for 128), each with the whole batch's factor
// grad_output / rows in its output gradient, and the batch gradient is their sum added in micro-batch
// order, each partial sum rounded to the reduce precision (float32: the gradient's own type; bfloat16
// or float16 as a low-precision all-reduce would); the loss is the rows-weighted mean of the
// micro-batch losses, the FP8 amax the MAX over the micro-batches. This is what gradient
// accumulation, or data parallelism over M workers, computes; a data-parallel run (run_config::dp,
// precision_study_mpi) splits the micro-batches over the ranks and gives the same bits. The block
// modes quantize each micro-batch's tensors (NVFP4's tensor scale is the micro-batch's).
//
// Modes (the seed's names; the compute type of each op is what PyTorch on a CUDA GPU uses):
//   float64              everything double (GEMM accumulates in double)
//   float32              everything float, set_float32_matmul_precision("highest")
//   float32-high         the same with "high": GEMM inputs rounded to tf32
//   float32-medium       the same with "medium": GEMM inputs rounded to bfloat16
//   float16-mixed        float master weights, gradients and Adam state; under autocast(float16)
//                        every Linear runs on float16 copies of its input and weights (float
//                        accumulation, float16 output), ReLU on float16, cross-entropy in float
//                        (autocast's fp32 list); the float16 weight copies are written by the Adam
//                        step (model_copy) as autocast's cast would; the float16 gradients of the
//                        copies are widened into the float master gradients (the cast's backward);
//                        dynamic loss scaling with mixprec::grad_scaler (PyTorch's defaults:
//                        initial scale 65536, growth 2 every 2000 clean steps, backoff 0.5)
//   bfloat16-mixed       the same with bfloat16 and no loss scaling (Lightning's "bf16-mixed")
//   float16-regular      model.half(): parameters, gradients, activations and Adam's two states
//                        all float16, every op rounding to float16 (no scaler)
//   bfloat16-regular     the same in bfloat16
//   bfloat16-regular-sr  the same, the parameter update rounded stochastically (counter-based
//                        random bits: seed, offset = (step - 1) * parameter count)
//   fp8-mixed            Transformer Engine's recipe DelayedScaling(HYBRID): float master weights,
//                        Adam state, activations and non-GEMM ops; every GEMM takes FP8 inputs
//                        scaled per tensor — E4M3 for the forward inputs and weights, E5M2 for the
//                        output gradients — with delayed scaling (mixprec::delayed_scaling, TE's
//                        defaults: margin 0, amax history 1024, "max"); each quantization uses the
//                        scale from the previous steps' history and records this step's amax; the
//                        casts saturate (TE's satfinite); the GEMM accumulates in float and its
//                        output is multiplied by the two inverse scales; bias gradients come from
//                        the float output gradients. Evaluation uses the current scales and leaves
//                        the histories alone.
//   mxfp8                Transformer Engine's MXFP8BlockScaling (E4M3 everywhere): float master
//                        weights, Adam state and non-GEMM ops; every GEMM operand is quantized in
//                        blocks of 32 ALONG ITS GEMM'S K DIMENSION (te_rceil E8M0 scales) and
//                        dequantized exactly, so each GEMM multiplies the values the hardware would
//                        (forward: x and W rowwise 1x32; weight gradient: dy and x columnwise 32x1;
//                        input gradient: dy rowwise, W columnwise), accumulating in float.
//   nvfp4                TE's NVFP4BlockScaling: E2M1 elements, UE4M3 scales per 16 along K and the
//                        FP32 tensor scale (TE's order); weights in 16x16 tiles (one quantization
//                        serves both orientations, as TE); the output gradients rounded
//                        stochastically (seed: a counter per quantization); no random Hadamard
//                        transform. Both block modes quantize fresh from the float tensors at every
//                        GEMM (no scaling history; a weight's quantization is reused until the
//                        next update, the same values), and multiply the dequantized values in
//                        float: the same products as a block-scaled GEMM, in one float sequence.
//
// The compute type of each op in the mixed modes is asked of mixprec's autocast (ask_autocast():
// CUDA's op lists, as on the seed's GPU): Linear -> the low type, ReLU -> its input's type,
// cross-entropy -> float; the trainer follows the answer (and refuses one it cannot follow).
//
// Where this differs from PyTorch on a GPU (on purpose, or because cuBLAS/cuDNN do not say):
// every GEMM sums its k products in order with one fused multiply-add each (mixprec::gemm), the
// bias gradients are column sums in float (double in float64) in row order, and cross-entropy is
// the fused kernel of mixprec/kernels/softmax.hpp (in the regular modes it reads the low-precision
// logits and writes low-precision gradients, rounding once; PyTorch rounds log_softmax's output to
// the low type first). The same model and data give the same bits with any thread count.
//
// Reported per mode: the loss of every step (the unscaled loss, as float; double in float64),
// train accuracy (running, over the epoch's batches, from the training forward), validation and
// test accuracy (forward passes in the mode's precision, batch 128; argmax with NaN counted as the
// maximum, as torch.argmax), wall time, the exact bytes of the buffers the mode holds — parameters
// (master weights plus compute copies: float16/bfloat16 or FP8 weights), gradients (plus the
// low-precision gradients of the copies), optimizer state (Adam's two moments, plus the FP8
// scaling histories) and activations (everything held for one training batch: inputs, layer
// outputs, logits, output gradients, FP8 copies) — the mode's own peak RSS (mode_memory_meter), skipped steps
// and the final loss scale (float16-mixed), and the first step whose loss, and the first step after
// which a parameter, was not finite (NaN or infinity).
#ifndef MIXPREC_PRECISION_STUDY_TRAIN_HPP
#define MIXPREC_PRECISION_STUDY_TRAIN_HPP

#include <mixprec/autocast.hpp>
#include <mixprec/classify.hpp>
#include <mixprec/dtype.hpp>
#include <mixprec/exec.hpp>
#include <mixprec/block_scaling_mx.hpp>
#include <mixprec/block_scaling_nvfp4.hpp>
#include <mixprec/fp8_scaling.hpp>
#include <mixprec/grad_scaler.hpp>
#include <mixprec/kernels/convert.hpp>
#include <mixprec/limits.hpp>
#include <mixprec/kernels/gemm.hpp>
#include <mixprec/kernels/optim.hpp>
#include <mixprec/kernels/reduce.hpp>
#include <mixprec/kernels/softmax.hpp>
#include <mixprec/matmul_precision.hpp>
#include <mixprec/span.hpp>
#include <mixprec/types.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/resource.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>  // malloc_trim
#endif
#include <cstdlib>
#include <cstring>

#include "data.hpp"

namespace precision_study {

// ---------------------------------------------------------------------------------------------
// Modes
// ---------------------------------------------------------------------------------------------

enum class mode_kind : unsigned char { full, mixed, regular, fp8, block };
enum class block_recipe : unsigned char { none, mxfp8, nvfp4 };
enum class storage : unsigned char { float64, float32, float16, bfloat16 };

struct mode_spec {
  const char* name;
  const char* description;
  mode_kind kind;
  storage params;   ///< parameter (master) type
  storage compute;  ///< activation / GEMM output type (fp8-mixed: float; its GEMM inputs are FP8)
  const char* matmul_precision;
  bool loss_scaling;
  bool stochastic_updates;
  block_recipe recipe;  ///< the block modes' recipe (none elsewhere)
};

inline const std::vector<mode_spec>& all_modes() {
  static const std::vector<mode_spec> modes = {
      {"float64", "everything in float64", mode_kind::full, storage::float64, storage::float64, "highest", false, false, block_recipe::none},
      {"float32", "everything in float32, matmul precision \"highest\"", mode_kind::full, storage::float32,
       storage::float32, "highest", false, false, block_recipe::none},
      {"float32-high", "float32, matmul precision \"high\" (GEMM inputs rounded to tf32)", mode_kind::full,
       storage::float32, storage::float32, "high", false, false, block_recipe::none},
      {"float32-medium", "float32, matmul precision \"medium\" (GEMM inputs rounded to bfloat16)", mode_kind::full,
       storage::float32, storage::float32, "medium", false, false, block_recipe::none},
      {"float16-mixed", "float16 compute under autocast, float32 master weights, dynamic loss scaling",
       mode_kind::mixed, storage::float32, storage::float16, "highest", true, false, block_recipe::none},
      {"bfloat16-mixed", "bfloat16 compute under autocast, float32 master weights", mode_kind::mixed,
       storage::float32, storage::bfloat16, "highest", false, false, block_recipe::none},
      {"float16-regular", "parameters, gradients, activations and Adam state all float16, no scaler",
       mode_kind::regular, storage::float16, storage::float16, "highest", false, false, block_recipe::none},
      {"bfloat16-regular", "parameters, gradients, activations and Adam state all bfloat16", mode_kind::regular,
       storage::bfloat16, storage::bfloat16, "highest", false, false, block_recipe::none},
      {"bfloat16-regular-sr", "bfloat16-regular with stochastic rounding of the parameter updates",
       mode_kind::regular, storage::bfloat16, storage::bfloat16, "highest", false, true, block_recipe::none},
      {"fp8-mixed", "FP8 GEMMs (E4M3 forward, E5M2 gradients, delayed scaling), float32 elsewhere", mode_kind::fp8,
       storage::float32, storage::float32, "highest", false, false, block_recipe::none},
      {"mxfp8", "MXFP8 GEMMs (Transformer Engine's MXFP8BlockScaling: E4M3 elements, E8M0 scales per 32 along K)",
       mode_kind::block, storage::float32, storage::float32, "highest", false, false, block_recipe::mxfp8},
      {"nvfp4", "NVFP4 GEMMs (TE's NVFP4BlockScaling: E2M1, UE4M3 scales per 16, FP32 tensor scale)",
       mode_kind::block, storage::float32, storage::float32, "highest", false, false, block_recipe::nvfp4},
  };
  return modes;
}

/// The mode named name, or nullptr.
inline const mode_spec* find_mode(const std::string& name) {
  for (const mode_spec& m : all_modes()) {
    if (name == m.name) return &m;
  }
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Autocast: the compute type of each op in the mixed modes.
// ---------------------------------------------------------------------------------------------

/// The compute types autocast gives the model's ops in a mixed mode.
struct autocast_plan {
  mixprec::dtype linear_first;   ///< Linear 1: float input (the data), float weight and bias
  mixprec::dtype linear;         ///< Linears 2 and 3: input in the activation type, float weight and bias
  mixprec::dtype relu;           ///< ReLU of the activation type
  mixprec::dtype cross_entropy;  ///< cross-entropy of the last Linear's output
};

/// Asks mixprec's autocast, as torch.autocast(device_type="cuda", dtype=Low) on the seed's GPU,
/// in what type each op of the model computes. The one place the study decides this.
template <class Low>
autocast_plan ask_autocast() {
  using mixprec::dtype;
  const mixprec::autocast_scope scope(mixprec::device_kind::cuda, dtype::of<Low>());
  autocast_plan p;
  const dtype f32 = dtype::float32();
  p.linear_first = mixprec::autocast_type("linear", f32, f32, f32);
  p.linear = mixprec::autocast_type("linear", p.linear_first, f32, f32);
  p.relu = mixprec::autocast_type("relu", p.linear);
  p.cross_entropy = mixprec::autocast_type("cross_entropy", p.linear);
  return p;
}

// ---------------------------------------------------------------------------------------------
// Configuration and results
// ---------------------------------------------------------------------------------------------

/// The precision the batch gradient's micro-batch sum is rounded to (--reduce-dtype).
/// float32: the gradient's own precision (float32; float64 in the float64 mode), no extra rounding.
enum class reduce_precision : unsigned char { float32, bfloat16, float16 };

inline const char* reduce_precision_name(reduce_precision r) {
  return r == reduce_precision::float32 ? "float32" : r == reduce_precision::bfloat16 ? "bfloat16" : "float16";
}

struct run_config {
  std::size_t epochs = 3;
  std::size_t batch = 128;
  /// M: every batch's gradient is the sum of M micro-batch gradients (rows floor(rows * m / M) to
  /// floor(rows * (m + 1) / M)), added in micro-batch order; rank r of N takes micro-batches
  /// floor(M * r / N) to floor(M * (r + 1) / N), so the bits are the same for any N <= M. 4: micro-
  /// batches of 32 (one MXFP8 block); 12 splits evenly over 1, 2, 3, 4 ranks but costs ~2x (small GEMMs).
  /// 1 (one process's default): the whole batch at once, no sum buffer.
  std::size_t micro_batches = 1;
  reduce_precision reduce = reduce_precision::float32;
  data_parallel* dp = nullptr;  ///< nullptr: one process
  std::uint64_t seed = 0;
  unsigned threads = 0;       ///< 0: mixprec's default
  double init_scale = 65536;  ///< float16-mixed: the grad scaler's initial scale
  std::size_t log_every = 100;
  std::ostream* log = nullptr;  ///< progress lines (nullptr: none)
};

/// A set of images to read: count images from pixels/labels (no copy).
struct split {
  const std::uint8_t* pixels = nullptr;
  const std::int32_t* labels = nullptr;
  std::size_t count = 0;
};

struct epoch_record {
  std::size_t epoch = 0;  ///< 1-based
  double train_loss = 0;  ///< mean of the epoch's step losses (NaN if one is not finite)
  double train_acc = 0;   ///< running accuracy over the epoch's batches, in [0, 1]
  double val_acc = 0;
  double seconds = 0;  ///< wall time of the epoch (training and validation)
};

struct memory_usage {
  std::size_t params = 0, grads = 0, optimizer = 0, activations = 0;
  std::size_t total() const noexcept { return params + grads + optimizer + activations; }
};

struct mode_result {
  std::string name, description;
  double test_acc = 0;
  double seconds = 0;  ///< wall time of training and evaluation
  memory_usage memory;
  std::string memory_detail;  ///< what the four numbers contain
  long long peak_rss = -1;    ///< bytes: the mode's own peak (mode_memory_meter; -1: unknown)
  bool peak_rss_own = false;  ///< peak_rss is the mode's own (false: the process's peak so far)
  bool loss_scaling = false;
  std::int64_t skipped_steps = 0;
  double final_scale = 1;
  double init_scale = 1;
  bool nan_seen = false;
  std::int64_t first_nonfinite_loss_step = -1;   ///< 1-based, -1: never
  std::int64_t first_nonfinite_param_step = -1;  ///< 1-based, -1: never
  std::int64_t steps = 0;
  std::int64_t optimizer_steps = 0;  ///< steps the optimizer took (steps - skipped)
  std::vector<double> losses;        ///< one per step
  std::vector<epoch_record> epochs;
  std::vector<float> fp8_final_scales;  ///< fp8-mixed: per tensor (x1, w1, g1, x2, w2, g2, x3, w3, g3)
  double train_seconds = 0;         ///< wall time in the training steps (no evaluation)
  double mpi_seconds = 0;           ///< time in the data-parallel collectives (this rank)
  double grad_reduce_err_max = 0;   ///< reduce != float32: max over steps of |g - g32| / |g32| (2-norms)
  double grad_reduce_err_mean = 0;  ///< ... and the mean over steps (g32: the float32 sum)
};

/// The process's peak resident set size in bytes (-1 when unknown).
inline long long peak_rss_bytes() {
#if defined(__unix__) || defined(__APPLE__)
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return -1;
#if defined(__APPLE__)
  return static_cast<long long>(ru.ru_maxrss);  // bytes on macOS
#else
  return static_cast<long long>(ru.ru_maxrss) * 1024;  // kilobytes on Linux
#endif
#else
  return -1;
#endif
}

/// One mode's own peak resident memory (Linux). At construction the allocator returns its free
/// memory to the system (glibc malloc_trim), the kernel's high-water mark is reset to the current
/// resident set (5 written to /proc/self/clear_refs) and that resident set is the baseline;
/// peak_bytes() is the high-water mark since (VmHWM of /proc/self/status) minus the baseline:
/// what the mode itself held at its peak — parameters, gradients, optimizer state, activations,
/// evaluation buffers — without the data set and the code that every mode shares, and without
/// what earlier modes used (what stays allocated for the process — code pages run for the first
/// time, reusable kernel workspace — is counted in the first mode that touches it, about 2 MiB in
/// the study). Where that cannot be done (no /proc, the reset refused) own() is false
/// and peak_bytes() is the process's peak so far (getrusage), as before.
///   mode_memory_meter m;  /* train */  long long b = m.peak_bytes();
class mode_memory_meter {
 public:
  mode_memory_meter() {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
    if (reset_high_water_mark()) {
      baseline_kib_ = status_kib("VmRSS:");
      own_ = baseline_kib_ >= 0;
    }
  }
  bool own() const noexcept { return own_; }
  long long peak_bytes() const {
    if (own_) {
      const long long hwm = status_kib("VmHWM:");
      if (hwm >= 0) return (hwm > baseline_kib_ ? hwm - baseline_kib_ : 0) * 1024;
    }
    return peak_rss_bytes();
  }

 private:
  static bool reset_high_water_mark() {
#if defined(__linux__)
    std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
    if (f == nullptr) return false;
    const bool wrote = std::fputs("5", f) >= 0;
    return std::fclose(f) == 0 && wrote;
#else
    return false;
#endif
  }
  /// A "Key:   123 kB" line of /proc/self/status, in KiB (-1: none).
  static long long status_kib(const char* key) {
#if defined(__linux__)
    std::FILE* f = std::fopen("/proc/self/status", "r");
    if (f == nullptr) return -1;
    char line[256];
    long long v = -1;
    const std::size_t k = std::strlen(key);
    while (std::fgets(line, sizeof line, f) != nullptr) {
      if (std::strncmp(line, key, k) == 0) {
        v = std::strtoll(line + k, nullptr, 10);
        break;
      }
    }
    std::fclose(f);
    return v;
#else
    (void)key;
    return -1;
#endif
  }

  long long baseline_kib_ = -1;
  bool own_ = false;
};

// ---------------------------------------------------------------------------------------------
// The trainer
// ---------------------------------------------------------------------------------------------

namespace detail {

constexpr std::size_t layers = 3;
constexpr std::array<std::size_t, 4> dims = {image_pixels, 512, 256, num_classes};

/// Offsets of W_l and b_l in the flat parameter vector (W1 b1 W2 b2 W3 b3).
struct param_layout {
  std::array<std::size_t, layers> w{}, b{};
  std::size_t total = 0;
  param_layout() {
    std::size_t at = 0;
    for (std::size_t l = 0; l < layers; ++l) {
      w[l] = at;
      at += dims[l + 1] * dims[l];
      b[l] = at;
      at += dims[l + 1];
    }
    total = at;
  }
};

/// Rounds an accumulator value to T (nearest even).
template <class T, class A>
inline T to(A v) {
  if constexpr (std::is_same<T, A>::value) {
    return v;
  } else {
    return mixprec::round_to<T>(v);
  }
}

/// Whether v is finite.
template <class T>
inline bool finite_value(T v) {
  if constexpr (std::is_same<T, double>::value) {
    return std::isfinite(v);
  } else {
    return std::isfinite(static_cast<float>(v));
  }
}

/// Whether any element of x is not finite (the library's amax is Inf or NaN).
template <class Policy, class T>
bool any_nonfinite(Policy pol, const std::vector<T>& x) {
  if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value ||
                std::is_same<T, mixprec::half>::value || std::is_same<T, mixprec::bfloat16>::value) {
    return !std::isfinite(mixprec::amax(pol, mixprec::span<const T>(x.data(), x.size())));
  } else {
    std::atomic<bool> bad{false};
    std::atomic<bool>* flag = &bad;
    const T* p = x.data();
    mixprec::for_each_index(pol, x.size(), [flag, p](std::size_t i) {
      if (!finite_value(p[i])) flag->store(true, std::memory_order_relaxed);
    });
    return bad.load();
  }
}

/// f(i) for every i in [0, n) under pol, where each i is about `work` elements of work: in tasks
/// of at least 65536 elements shared among the threads (mixprec::for_each_index hands out blocks
/// of 16384 indices, so a loop over 128 rows would run on one thread).
template <class F>
void for_each_row(mixprec::exec::parallel_policy pol, std::size_t n, std::size_t work, F f) {
  const std::size_t per = std::max<std::size_t>(1, 65536 / std::max<std::size_t>(1, work));
  mixprec::for_each_task(pol, (n + per - 1) / per, [&f, n, per](std::size_t t) {
    const std::size_t end = std::min(n, (t + 1) * per);
    for (std::size_t i = t * per; i < end; ++i) f(i);
  });
}

/// ReLU on the bits of a 16-bit format with infinities: x <= 0 exactly when the sign is set and
/// |bits| <= +infinity's bits (not NaN); those become +0. 32 at a time (vectorises).
template <class C>
void relu_bits(C* y, std::size_t n) {
  using bits_t = typename C::storage_type;
  static_assert(std::numeric_limits<C>::is_specialized && std::numeric_limits<C>::has_infinity, "limits.hpp");
  constexpr bits_t inf = std::numeric_limits<C>::infinity().bits();
  constexpr bits_t sign = static_cast<bits_t>(bits_t(1) << (sizeof(bits_t) * 8 - 1));
  const auto one = [](bits_t b) {
    return (b & sign) != 0 && static_cast<bits_t>(b & ~sign) <= inf ? bits_t(0) : b;
  };
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    bits_t b[32];
    std::memcpy(b, y + i, sizeof b);
    for (std::size_t k = 0; k < 32; ++k) b[k] = one(b[k]);
    std::memcpy(y + i, b, sizeof b);
  }
  for (; i < n; ++i) y[i] = C::from_bits(one(y[i].bits()));
}

/// ReLU on float or double: y[i] = +0 where y[i] <= 0 (NaN stays NaN), without branches (the
/// signs are random: a branch per element mispredicts half the time), 16 at a time so that the
/// compiler vectorizes it at -O2.
template <class C>
void relu_float(C* y, std::size_t n) {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (std::size_t k = 0; k < 16; ++k) {
      const C v = y[i + k];
      y[i + k] = v <= C(0) ? C(0) : v;
    }
  }
  for (; i < n; ++i) y[i] = y[i] <= C(0) ? C(0) : y[i];
}

/// ReLU's backward on float or double: dx[i] = +0 where !(h[i] > 0), branch-free as relu_float.
template <class C>
void relu_backward_float(const C* __restrict h, C* __restrict dx, std::size_t n) {  // h, dx: different arrays
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (std::size_t k = 0; k < 16; ++k) dx[i + k] = h[i + k] > C(0) ? dx[i + k] : C(0);
  }
  for (; i < n; ++i) dx[i] = h[i] > C(0) ? dx[i] : C(0);
}

/// ReLU's backward on the bits: dx[i] = +0 where !(h[i] > 0), i.e. h's bits not in [1, +inf's bits].
template <class C>
void relu_backward_bits(const C* h, C* dx, std::size_t n) {
  using bits_t = typename C::storage_type;
  static_assert(std::numeric_limits<C>::is_specialized && std::numeric_limits<C>::has_infinity, "limits.hpp");
  constexpr bits_t inf = std::numeric_limits<C>::infinity().bits();
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    bits_t hb[32], db[32];
    std::memcpy(hb, h + i, sizeof hb);
    std::memcpy(db, dx + i, sizeof db);
    for (std::size_t k = 0; k < 32; ++k) db[k] = static_cast<bits_t>(hb[k] - 1u) >= inf ? bits_t(0) : db[k];
    std::memcpy(dx + i, db, sizeof db);
  }
  for (; i < n; ++i) {
    if (static_cast<bits_t>(h[i].bits() - 1u) >= inf) dx[i] = C::from_bits(0);
  }
}

/// x as a double (exact).
template <class T>
inline double as_double(T x) {
  if constexpr (std::is_same<T, double>::value) {
    return x;
  } else {
    return static_cast<double>(static_cast<float>(x));
  }
}

/// argmax of one row; a NaN counts as the maximum (torch.argmax): the first NaN wins.
template <class T>
std::size_t argmax_row(const T* row, std::size_t n) {
  std::size_t best = 0;
  double bv = as_double(row[0]);
  if (std::isnan(bv)) return 0;
  for (std::size_t j = 1; j < n; ++j) {
    const double v = as_double(row[j]);
    if (std::isnan(v)) return j;
    if (v > bv) {
      bv = v;
      best = j;
    }
  }
  return best;
}

/// One run of one mode. P: parameter (master) type; C: activation type.
template <class P, class C>
class mlp_run {
 public:
  using Acc = std::conditional_t<std::is_same<C, double>::value, double, float>;
  static constexpr bool mixed = !std::is_same<P, C>::value;
  using e4m3 = mixprec::float8_e4m3fn;
  using e5m2 = mixprec::float8_e5m2;
  /// The type of the GEMMs' weight-gradient outputs: the copies' type in the mixed modes.
  using GradC = C;
  /// The type the micro-batch gradients are summed in (then rounded to the reduce precision).
  using GA = std::conditional_t<std::is_same<P, double>::value, double, float>;

  mlp_run(const mode_spec& spec, const run_config& cfg)
      : spec_(spec), cfg_(cfg), pol_(mixprec::exec::par(cfg.threads)), fp8_(spec.kind == mode_kind::fp8),
        block_(spec.kind == mode_kind::block) {
    if (block_ && !(std::is_same<P, float>::value && std::is_same<C, float>::value)) {
      throw study_error(std::string(spec.name) + " needs float parameters and activations");
    }
    const std::size_t n = layout_.total;
    params_.resize(n);
    grads_.resize(n);
    exp_avg_.assign(n, P(0.0f));
    exp_avg_sq_.assign(n, P(0.0f));
    init_params();
    if constexpr (mixed) {
      copy_.resize(n);
      low_grads_.resize(n);
      mixprec::convert(pol_, params_, copy_);
      // The activations are C: autocast must run every Linear and ReLU in C; cross-entropy may
      // run in float (the float copy of the logits) or in C.
      const autocast_plan plan = ask_autocast<C>();
      const mixprec::dtype c = mixprec::dtype::of<C>();
      if (plan.linear_first != c || plan.linear != c || plan.relu != c) {
        throw study_error(std::string(spec.name) + ": autocast computes linear in " +
                          std::string(plan.linear.name()) + " and relu in " + std::string(plan.relu.name()) +
                          ", this trainer needs " + std::string(c.name()));
      }
      if (plan.cross_entropy == mixprec::dtype::float32()) {
        ce_in_float_ = true;
      } else if (plan.cross_entropy != c) {
        throw study_error(std::string(spec.name) + ": autocast computes cross_entropy in " +
                          std::string(plan.cross_entropy.name()));
      }
    }
    const std::size_t B = cfg.batch;
    x_.resize(B * dims[0]);
    h_[0].resize(B * dims[1]);
    h_[1].resize(B * dims[2]);
    logits_.resize(B * dims[3]);
    d_[0].resize(B * dims[1]);
    d_[1].resize(B * dims[2]);
    d_[2].resize(B * dims[3]);
    if (mixed && ce_in_float_) {
      logits32_.resize(B * dims[3]);
      dlogits32_.resize(B * dims[3]);
    }
    targets_.resize(B);
    if (fp8_) {
      if constexpr (std::is_same<P, float>::value && std::is_same<C, float>::value) {
        wq_.resize(n);
        for (std::size_t l = 0; l < layers; ++l) {
          xq_[l].resize(B * dims[l]);
          scaling_.emplace_back(mixprec::delayed_scaling_config{}, mixprec::fp8_tensor_role::forward);   // x_l
          scaling_.emplace_back(mixprec::delayed_scaling_config{}, mixprec::fp8_tensor_role::forward);   // w_l
          scaling_.emplace_back(mixprec::delayed_scaling_config{}, mixprec::fp8_tensor_role::backward);  // g_l
        }
        gq_.resize(B * dims[1]);
      } else {
        throw study_error("fp8-mixed needs float parameters and activations");
      }
    }
    if (spec.loss_scaling) {
      mixprec::loss_scale_config c = mixprec::loss_scale_config::pytorch();
      c.init_scale = cfg.init_scale;
      scaler_ = std::make_unique<mixprec::grad_scaler>(c);
    }
    if (cfg.micro_batches == 0) throw study_error("micro_batches must be at least 1");
    if (cfg.dp != nullptr) dp_ = cfg.dp;
    const std::size_t N = static_cast<std::size_t>(dp_->size());
    if (N > cfg.micro_batches) {
      throw study_error(std::to_string(N) + " ranks but " + std::to_string(cfg.micro_batches) +
                        " micro-batches: every rank needs at least one");
    }
    // One micro-batch on one process in float32: the gradient is the sum, no buffer for it.
    if (cfg.micro_batches > 1 || N > 1 || cfg.reduce != reduce_precision::float32) acc_.resize(n);
    if (cfg.reduce != reduce_precision::float32) acc32_.resize(n);
    if (N > 1) {
      const std::size_t r = static_cast<std::size_t>(dp_->rank());
      mine_.resize((cfg.micro_batches * (r + 1) / N - cfg.micro_batches * r / N) * n);
      all_.resize(cfg.micro_batches * n);
      if (scaler_) {  // every rank skips the same steps (FSDP's ShardedGradScaler)
        data_parallel* dp = dp_;
        scaler_->set_found_inf_reducer([dp](float found) { return dp->any(!(found == 0.0f)) ? 1.0f : 0.0f; });
      }
    }
  }

  memory_usage memory(std::string& detail_text) const {
    memory_usage m;
    const std::size_t n = layout_.total;
    m.params = n * sizeof(P) + copy_.size() * sizeof(C) + wq_.size() * sizeof(e4m3);
    m.grads = n * sizeof(P) + low_grads_.size() * sizeof(C) + (acc_.size() + acc32_.size()) * sizeof(GA);
    m.optimizer = 2 * n * sizeof(P);
    for (const auto& s : scaling_) m.optimizer += s.amax_history().size() * sizeof(float) + 2 * sizeof(float);
    m.activations = bytes(x_) + bytes(h_[0]) + bytes(h_[1]) + bytes(logits_) + bytes(d_[0]) + bytes(d_[1]) +
                    bytes(d_[2]) + bytes(logits32_) + bytes(dlogits32_) + bytes(targets_) + bytes(gq_);
    for (const auto& q : xq_) m.activations += bytes(q);
    if (block_) {  // what the hardware would hold: quantized weights and GEMM inputs, elements + scales
      const bool fp4 = spec_.recipe == block_recipe::nvfp4;
      const std::size_t nb = fp4 ? 16 : 32;
      auto q = [&](std::size_t r, std::size_t c, blocks b) {
        const std::size_t elems = fp4 ? (r * c + 1) / 2 : r * c;
        const std::size_t scales = b == blocks::along_cols   ? r * ((c + nb - 1) / nb)
                                   : b == blocks::along_rows ? ((r + nb - 1) / nb) * c
                                                             : ((r + nb - 1) / nb) * ((c + nb - 1) / nb);
        return elems + scales;
      };
      for (std::size_t l = 0; l < layers; ++l) {
        const std::size_t in = dims[l], out = dims[l + 1], B = cfg_.batch;
        m.params += fp4 ? q(out, in, blocks::tiles) : q(out, in, blocks::along_cols) + q(out, in, blocks::along_rows);
        m.activations += q(B, in, blocks::along_cols) + q(B, in, blocks::along_rows);
      }
    }
    const std::string pn = type_name<P>(), cn = type_name<C>();
    detail_text = "params: " + std::to_string(n) + " x " + pn;
    if (!copy_.empty()) detail_text += " master + " + std::to_string(n) + " x " + cn + " copy";
    if (!wq_.empty()) detail_text += " master + " + std::to_string(n) + " x float8_e4m3fn copy";
    detail_text += "; grads: " + std::to_string(n) + " x " + pn;
    if (!low_grads_.empty()) detail_text += " + " + std::to_string(n) + " x " + cn + " (grads of the copy)";
    detail_text += " + " + std::to_string(n) + " x " + type_name<GA>() + " (the micro-batch sum)";
    if (!acc32_.empty()) detail_text += " + " + std::to_string(n) + " x " + type_name<GA>() + " (its float32 twin)";
    detail_text += "; optimizer: 2 x " + std::to_string(n) + " x " + pn + " (Adam moments)";
    if (!scaling_.empty()) detail_text += " + 9 FP8 amax histories of 1024";
    detail_text += "; activations of one batch of " + std::to_string(cfg_.batch) + " in " + cn;
    if (fp8_) detail_text += " (+ FP8 copies of the GEMM inputs)";
    if (block_) {
      detail_text += spec_.recipe == block_recipe::mxfp8
                         ? " (+ MXFP8 copies of the GEMM inputs and weights, rowwise and columnwise, 1 byte + 1 E8M0 per 32)"
                         : " (+ NVFP4 copies of the GEMM inputs, rowwise and columnwise, and of the weights in 16x16 tiles, "
                           "4 bits + 1 UE4M3 per 16)";
    }
    return m;
  }

  mode_result run(const split& train, const split& val, const split& test) {
    mixprec::matmul_precision_scope precision(spec_.matmul_precision);
    mode_result r;
    r.name = spec_.name;
    r.description = spec_.description;
    r.loss_scaling = scaler_ != nullptr;
    r.init_scale = scaler_ ? scaler_->get_scale() : 1.0;
    r.memory = memory(r.memory_detail);
    std::ostream* log = cfg_.log;
    const double mpi0 = dp_->seconds;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::size_t> order(train.count);
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    splitmix_shuffle rng(cfg_.seed);
    const std::size_t B = cfg_.batch;
    const std::size_t nbatches = (train.count + B - 1) / B;
    for (std::size_t epoch = 1; epoch <= cfg_.epochs; ++epoch) {
      const auto te = std::chrono::steady_clock::now();
      rng.shuffle(order);
      std::size_t correct = 0;
      double loss_sum = 0;
      for (std::size_t bi = 0; bi < nbatches; ++bi) {
        const std::size_t begin = bi * B;
        const std::size_t rows = std::min(B, train.count - begin);
        const auto ts = std::chrono::steady_clock::now();
        const double loss = train_step(train, order.data() + begin, rows, correct);
        r.train_seconds += seconds_since(ts);
        r.losses.push_back(loss);
        loss_sum += loss;
        if (log != nullptr && (bi % cfg_.log_every == 0 || bi + 1 == nbatches)) {
          char line[160];
          std::snprintf(line, sizeof line, "Epoch: %04zu/%04zu | Batch %04zu/%04zu | Loss: %.4f%s\n", epoch,
                        cfg_.epochs, bi, nbatches, loss,
                        scaler_ ? (" | Scale: " + fmt_g(scaler_->get_scale())).c_str() : "");
          *log << line << std::flush;
        }
      }
      epoch_record e;
      e.epoch = epoch;
      e.train_loss = loss_sum / static_cast<double>(nbatches);
      e.train_acc = static_cast<double>(correct) / static_cast<double>(train.count);
      e.val_acc = evaluate(val);
      e.seconds = seconds_since(te);
      r.epochs.push_back(e);
      if (log != nullptr) {
        char line[160];
        std::snprintf(line, sizeof line, "Epoch: %04zu/%04zu | Train acc.: %.2f%% | Val acc.: %.2f%% | %.1f s\n",
                      epoch, cfg_.epochs, 100.0 * e.train_acc, 100.0 * e.val_acc, e.seconds);
        *log << line << std::flush;
      }
    }
    r.test_acc = evaluate(test);
    r.seconds = seconds_since(t0);
    r.steps = step_count_;
    r.optimizer_steps = adam_steps_;
    r.skipped_steps = skipped_;
    r.final_scale = scaler_ ? scaler_->get_scale() : 1.0;
    r.first_nonfinite_loss_step = first_bad_loss_;
    r.first_nonfinite_param_step = first_bad_param_;
    r.nan_seen = first_bad_loss_ >= 0 || first_bad_param_ >= 0;
    for (const auto& s : scaling_) r.fp8_final_scales.push_back(s.scale());
    r.mpi_seconds = dp_->seconds - mpi0;
    r.grad_reduce_err_max = err_max_;
    r.grad_reduce_err_mean = err_steps_ > 0 ? err_sum_ / static_cast<double>(err_steps_) : 0.0;
    r.peak_rss = peak_rss_bytes();
    return r;
  }

 private:
  /// Fisher-Yates on SplitMix64: the same permutation on every platform.
  class splitmix_shuffle {
   public:
    explicit splitmix_shuffle(std::uint64_t seed) : rng_(seed ^ 0x53485546464C45ull) {}
    void shuffle(std::vector<std::size_t>& v) {
      for (std::size_t i = v.size(); i > 1; --i) {
        const std::size_t j = static_cast<std::size_t>(rng_.below(i));
        std::swap(v[i - 1], v[j]);
      }
    }

   private:
    precision_study::detail::splitmix64 rng_;
  };

  // The optimizer seen by the grad scaler: the master gradients, and the Adam step.
  struct scaled_optimizer {
    mlp_run* self;
    std::array<mixprec::gradient_ref, 1> gradients() { return {mixprec::gradient_ref(self->grads_)}; }
    void step() { self->adam_step(); }
  };

  template <class T>
  static std::size_t bytes(const std::vector<T>& v) {
    return v.size() * sizeof(T);
  }

  template <class T>
  static std::string type_name() {
    if (std::is_same<T, double>::value) return "float64";
    if (std::is_same<T, float>::value) return "float32";
    if (std::is_same<T, mixprec::half>::value) return "float16";
    if (std::is_same<T, mixprec::bfloat16>::value) return "bfloat16";
    return "?";
  }

  static std::string fmt_g(double v) {
    char s[32];
    std::snprintf(s, sizeof s, "%g", v);
    return s;
  }

  static double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  }

  void init_params() {
    precision_study::detail::splitmix64 rng(cfg_.seed ^ 0x494E4954ull);
    for (std::size_t l = 0; l < layers; ++l) {
      const double bound = 1.0 / std::sqrt(static_cast<double>(dims[l]));
      const std::size_t nw = dims[l + 1] * dims[l];
      for (std::size_t i = 0; i < nw; ++i) params_[layout_.w[l] + i] = to<P>((2.0 * rng.uniform() - 1.0) * bound);
      for (std::size_t i = 0; i < dims[l + 1]; ++i) params_[layout_.b[l] + i] = to<P>((2.0 * rng.uniform() - 1.0) * bound);
    }
  }

  /// Inputs as PyTorch's ToTensor makes them (byte / 255 in float), in the first layer's type.
  void load_batch(const split& s, const std::size_t* idx, std::size_t rows) {
    // Pixel p becomes to<C>(p / 255.0f): a table of the 256 values, one row per task.
    static const std::array<C, 256> value = [] {
      std::array<C, 256> t{};
      for (std::size_t p = 0; p < 256; ++p) t[p] = to<C>(static_cast<float>(p) / 255.0f);
      return t;
    }();
    C* x = x_.data();
    const std::uint8_t* px = s.pixels;
    for_each_row(pol_, rows, image_pixels, [x, px, idx](std::size_t r) {
      const std::uint8_t* row = px + idx[r] * image_pixels;
      for (std::size_t c = 0; c < image_pixels; ++c) x[r * image_pixels + c] = value[row[c]];
    });
    for (std::size_t r = 0; r < rows; ++r) targets_[r] = s.labels[idx[r]];
  }

  /// The weights the forward pass multiplies by (the copy in the mixed modes).
  const C* weights() const {
    if constexpr (mixed) {
      return copy_.data();
    } else {
      return params_.data();
    }
  }

  /// FP8 quantization: q[i] = sat_E(x[i] * s), the product rounded to float first; in chunks of
  /// 1024 through the bulk converter (vectorised on x86, the same bits as round_to). Returns
  /// max |x[i]| from the same pass, as mixprec::amax gives it (NaN if an x[i] is NaN; the
  /// callers fold it with record_amax, which ignores any NaN, so which NaN does not matter). The
  /// maximum is taken in the loop that scales the chunk, on the bits: |x| as an unsigned integer
  /// orders like |x| as a float, +Inf above the finite values and the NaNs above +Inf.
  static constexpr std::size_t quantize_chunk = 1024;
  template <class E>
  float quantize(const float* x, std::size_t n, float s, E* q) {
    constexpr std::size_t chunk = quantize_chunk;
    const std::size_t chunks = (n + chunk - 1) / chunk;
    mag_parts_.resize(chunks);
    std::uint32_t* part = mag_parts_.data();
    for_each_row(pol_, chunks, quantize_chunk, [x, n, s, q, part](std::size_t c) {
      float scaled[quantize_chunk];
      const std::size_t begin = c * quantize_chunk, m = std::min(quantize_chunk, n - begin);
      const float* xc = x + begin;
      std::uint32_t mag = 0;
      const auto step = [&](std::size_t i) {
        scaled[i] = xc[i] * s;
        std::uint32_t b;
        std::memcpy(&b, xc + i, sizeof b);
        b &= 0x7fffffffu;
        mag = b > mag ? b : mag;
      };
      if (m == quantize_chunk) {  // a constant count: vectorized at -O2 without AVX-512 too
        for (std::size_t i = 0; i < quantize_chunk; ++i) step(i);
      } else {
        for (std::size_t i = 0; i < m; ++i) step(i);
      }
      mixprec::convert(mixprec::exec::seq, mixprec::span<const float>(scaled, m), mixprec::span<E>(q + begin, m),
                       mixprec::rounding::nearest_even, mixprec::overflow::saturate);
      part[c] = mag;
    });
    std::uint32_t mag = 0;
    for (std::size_t c = 0; c < chunks; ++c) mag = part[c] > mag ? part[c] : mag;
    float a;
    std::memcpy(&a, &mag, sizeof a);
    return a;
  }

  mixprec::delayed_scaling& scaling(std::size_t l, std::size_t which) { return scaling_[3 * l + which]; }

  /// Block modes: how a GEMM operand is cut into blocks (along its GEMM's K dimension).
  enum class blocks : unsigned char { along_cols, along_rows, tiles };

  /// Block modes, deterministic rounding: x quantized in rowwise blocks and dequantized into out
  /// (one quantization: counts like fake_quant's). Rows are independent (NVFP4: given the tensor
  /// amax, as TE's fused amax), so the rows are split among the threads: the same bits.
  void fake_quant_rowwise(const float* x, std::size_t rows, std::size_t cols, float* out) {
    const bool mx = spec_.recipe == block_recipe::mxfp8;
    float amax = 0.0f;  // NVFP4: the fmax-fold max |x| of the whole tensor (NaN ignored), as quantize's
    if (!mx) {
      ++quantizations_;  // the seed of a deterministic quantization is unused; the count is kept
      amax = tensor_amax(x, rows, cols);
    }
    const std::size_t tasks = std::min<std::size_t>(rows, std::max<std::size_t>(1, cfg_.threads != 0 ? cfg_.threads : mixprec::num_threads()));
    if (mx_tensors_.size() < tasks) mx_tensors_.resize(tasks);
    if (nv_tensors_.size() < tasks) nv_tensors_.resize(tasks);
    mixprec::for_each_task(pol_, tasks, [&](std::size_t t) {
      const std::size_t r0 = rows * t / tasks, r1 = rows * (t + 1) / tasks;
      if (r0 == r1) return;
      if (mx) {
        const mixprec::mx_block_recipe<e4m3> r{mixprec::mx_block_rule::te_rceil, mixprec::block_rowwise(32)};
        r.quantize_into(x + r0 * cols, r1 - r0, cols, mx_tensors_[t]);
        r.dequantize(mx_tensors_[t], out + r0 * cols);
      } else {
        mixprec::nvfp4_recipe r;
        r.block = mixprec::block_rowwise(16);
        r.stochastic = false;
        r.quantize_into(x + r0 * cols, r1 - r0, cols, nv_tensors_[t], amax);
        r.dequantize(nv_tensors_[t], out + r0 * cols);
      }
    });
  }

  /// The fmax-fold max |x| of rows x cols floats (NaN ignored; NVFP4's tensor amax), chunks of 64
  /// rows among the threads.
  float tensor_amax(const float* x, std::size_t rows, std::size_t cols) {
    const std::size_t chunks = (rows + 63) / 64;
    std::vector<float>& part = amax_parts_;
    part.assign(chunks, 0.0f);
    for_each_row(pol_, chunks, 64 * cols, [&](std::size_t c) {
      const float* p = x + c * 64 * cols;
      const std::size_t m = (std::min(rows, c * 64 + 64) - c * 64) * cols;
      part[c] = mixprec::amax_of(p, m);  // the recipe's fmax fold from 0 (NaN ignored), vectorised
    });
    float amax = 0.0f;
    for (float a : part) amax = a > amax ? a : amax;
    return amax;
  }

  /// Block modes, deterministic rounding: x quantized in blocks down its columns (MXFP8 32x1,
  /// NVFP4 16x1) and dequantized into out, as is (one quantization: counts like fake_quant's).
  /// Block rows are independent (NVFP4: given the tensor amax), so they are split among the
  /// threads: the same bits.
  void fake_quant_colwise(const float* x, std::size_t rows, std::size_t cols, float* out) {
    const bool mx = spec_.recipe == block_recipe::mxfp8;
    float amax = 0.0f;
    if (!mx) {
      ++quantizations_;
      amax = tensor_amax(x, rows, cols);
    }
    const std::size_t n = mx ? 32 : 16, nb = (rows + n - 1) / n;
    const std::size_t tasks = std::min<std::size_t>(nb, std::max<std::size_t>(1, cfg_.threads != 0 ? cfg_.threads : mixprec::num_threads()));
    if (mx_tensors_.size() < tasks) mx_tensors_.resize(tasks);
    if (nv_tensors_.size() < tasks) nv_tensors_.resize(tasks);
    mixprec::for_each_task(pol_, tasks, [&](std::size_t t) {
      const std::size_t r0 = nb * t / tasks * n, r1 = std::min(rows, nb * (t + 1) / tasks * n);
      if (r0 >= r1) return;
      if (mx) {
        const mixprec::mx_block_recipe<e4m3> r{mixprec::mx_block_rule::te_rceil, mixprec::block_columnwise(32)};
        r.quantize_into(x + r0 * cols, r1 - r0, cols, mx_tensors_[t]);
        r.dequantize(mx_tensors_[t], out + r0 * cols);
      } else {
        mixprec::nvfp4_recipe r;
        r.block = mixprec::block_columnwise(16);
        r.quantize_into(x + r0 * cols, r1 - r0, cols, nv_tensors_[t], amax);
        r.dequantize(nv_tensors_[t], out + r0 * cols);
      }
    });
  }

  /// dst (cols x rows) = src^T (rows x cols), in 16 x 16 tiles, the column tiles among the threads.
  void transpose(const float* src, std::size_t rows, std::size_t cols, float* dst) {
    for_each_row(pol_, (cols + 15) / 16, 16 * rows, [src, dst, rows, cols](std::size_t cb) {
      const std::size_t c0 = cb * 16, c1 = std::min(cols, c0 + 16);
      for (std::size_t r0 = 0; r0 < rows; r0 += 16) {
        const std::size_t r1 = std::min(rows, r0 + 16);
        for (std::size_t c = c0; c < c1; ++c)
          for (std::size_t r = r0; r < r1; ++r) dst[c * rows + r] = src[r * cols + c];
      }
    });
  }

  /// Block modes: the rows x cols tensor x quantized with the mode's recipe and dequantized into out.
  void fake_quant(const float* x, std::size_t rows, std::size_t cols, blocks b, bool gradient, float* out) {
    const bool stochastic = spec_.recipe != block_recipe::mxfp8 && gradient;
    if (b == blocks::along_cols && !stochastic) {
      fake_quant_rowwise(x, rows, cols, out);
      return;
    }
    const std::size_t n = spec_.recipe == block_recipe::mxfp8 ? 32 : 16;
    const mixprec::block_shape shape = b == blocks::along_cols   ? mixprec::block_rowwise(n)
                                       : b == blocks::along_rows ? mixprec::block_columnwise(n)
                                                                 : mixprec::block_shape{n, n};
    if (mx_tensors_.empty()) mx_tensors_.resize(1);
    if (nv_tensors_.empty()) nv_tensors_.resize(1);
    if (spec_.recipe == block_recipe::mxfp8) {
      const mixprec::mx_block_recipe<e4m3> r{mixprec::mx_block_rule::te_rceil, shape};
      r.quantize_into(x, rows, cols, mx_tensors_[0]);
      r.dequantize(mx_tensors_[0], out);
    } else {
      mixprec::nvfp4_recipe r;
      r.block = shape;
      r.stochastic = gradient;
      r.seed = ++quantizations_;
      r.quantize_into(x, rows, cols, nv_tensors_[0]);
      r.dequantize(nv_tensors_[0], out);
    }
  }

  /// Grows v to at least n elements, never shrinks it (the GEMMs' shapes alternate: no zero fill
  /// of the same memory at every call).
  static void at_least(std::vector<float>& v, std::size_t n) {
    if (v.size() < n) v.resize(n);
  }

  /// Block modes: x (rows x cols) quantized in blocks down its columns and dequantized into out.
  /// Returns true when out holds the transpose of that (cols x rows), false when it holds it as
  /// is. Deterministic rounding with cols a multiple of 16: the columnwise vector paths, as is.
  /// Otherwise blocks down the columns are the rowwise blocks of x^T, with the same scales and
  /// codes (amax and nearest rounding do not depend on position), so x^T is quantized rowwise
  /// and left transposed: the GEMM reads it as op(X) = X^T, the same products in the same order
  /// (mixprec::gemm's bits do not depend on the layout).
  bool fake_quant_down(const float* x, std::size_t rows, std::size_t cols, bool gradient, std::vector<float>& out) {
    at_least(out, rows * cols);
    if (spec_.recipe != block_recipe::mxfp8 && gradient) {  // NVFP4's stochastic gradients: as is
      fake_quant(x, rows, cols, blocks::along_rows, true, out.data());
      return false;
    }
    if (cols % 16 == 0) {
      fake_quant_colwise(x, rows, cols, out.data());
      return false;
    }
    at_least(scratch_t_, rows * cols);
    transpose(x, rows, cols, scratch_t_.data());
    fake_quant_rowwise(scratch_t_.data(), cols, rows, out.data());
    return true;
  }

  /// Block modes: W_l as the forward GEMM multiplies it (x rowwise along K = in; NVFP4: 16x16
  /// tiles, which the input gradient's GEMM multiplies too). The weights change only in the
  /// optimizer step, so one quantization serves every GEMM and evaluation batch until then (as TE
  /// keeps a weight's quantized copy across micro-batches); the seed counter advances as if each
  /// GEMM quantized it again, so every later seed is the same.
  const float* block_weights(std::size_t l) {
    const std::size_t in = dims[l], out = dims[l + 1];
    if (!wcache_valid_[l]) {
      wcache_[l].resize(out * in);
      fake_quant(weights() + layout_.w[l], out, in,
                 spec_.recipe == block_recipe::nvfp4 ? blocks::tiles : blocks::along_cols, false, wcache_[l].data());
      wcache_valid_[l] = true;
    } else if (spec_.recipe == block_recipe::nvfp4) {
      ++quantizations_;
    }
    return wcache_[l].data();
  }

  /// y = x W_l^T + b_l for rows rows; record: FP8 amax recording (training forward).
  void linear(std::size_t l, const C* x, std::size_t rows, C* y, bool record) {
    const std::size_t in = dims[l], out = dims[l + 1];
    const C* b = weights() + layout_.b[l];
    for_each_row(pol_, rows, out, [y, b, out](std::size_t r) { std::copy(b, b + out, y + r * out); });
    if constexpr (std::is_same<P, float>::value && std::is_same<C, float>::value) {
      if (fp8_) {
        mixprec::delayed_scaling& sx = scaling(l, 0);
        mixprec::delayed_scaling& sw = scaling(l, 1);
        const float ax = quantize(x, rows * in, sx.scale(), xq_[l].data());
        if (record) sx.record_amax(ax);
        const float alpha = sx.scale_inv() * sw.scale_inv();
        mixprec::gemm<float>(pol_, mixprec::transpose::none, mixprec::transpose::trans, rows, out, in, alpha,
                             xq_[l].data(), in, wq_.data() + layout_.w[l], in, 1.0f, y, out);
        return;
      }
      if (block_) {  // y = Q(x) Q(W)^T, K = in: x rowwise, W rowwise (NVFP4: 16x16 tiles)
        at_least(bq_x_, rows * in);
        fake_quant(x, rows, in, blocks::along_cols, false, bq_x_.data());
        const float* wq = block_weights(l);
        mixprec::gemm<float>(pol_, mixprec::transpose::none, mixprec::transpose::trans, rows, out, in, 1.0f,
                             bq_x_.data(), in, wq, in, 1.0f, y, out);
        return;
      }
    }
    mixprec::gemm<Acc>(pol_, mixprec::transpose::none, mixprec::transpose::trans, rows, out, in, Acc(1), x, in,
                       weights() + layout_.w[l], in, Acc(1), y, out);
  }

  /// FP8: the weights quantized with their current scales (amax recorded when training).
  void quantize_weights(bool record) {
    if constexpr (std::is_same<P, float>::value && std::is_same<C, float>::value) {
      for (std::size_t l = 0; l < layers; ++l) {
        const std::size_t nw = dims[l + 1] * dims[l];
        const float* w = params_.data() + layout_.w[l];
        mixprec::delayed_scaling& sw = scaling(l, 1);
        const float aw = quantize(w, nw, sw.scale(), wq_.data() + layout_.w[l]);
        if (record) sw.record_amax(aw);
      }
    }
  }

  static void relu(mixprec::exec::parallel_policy pol, C* y, std::size_t n) {
    // NaN stays NaN (torch.relu propagates it); -0 and negatives become +0.
    if constexpr (std::is_same<C, double>::value || std::is_same<C, float>::value) {
      for_each_row(pol, (n + 1023) / 1024, 1024, [y, n](std::size_t c) {
        relu_float(y + c * 1024, std::min(n - c * 1024, std::size_t{1024}));
      });
    } else {  // on the bits, a row at a time
      for_each_row(pol, (n + 1023) / 1024, 1024, [y, n](std::size_t c) {
        relu_bits(y + c * 1024, std::min(n - c * 1024, std::size_t{1024}));
      });
    }
  }

  /// Forward pass over x_ (rows rows) into logits_. FP8: the weights must have been quantized
  /// (quantize_weights) since the last update.
  void forward(std::size_t rows, bool record) {
    linear(0, x_.data(), rows, h_[0].data(), record);
    relu(pol_, h_[0].data(), rows * dims[1]);
    linear(1, h_[0].data(), rows, h_[1].data(), record);
    relu(pol_, h_[1].data(), rows * dims[2]);
    linear(2, h_[1].data(), rows, logits_.data(), record);
  }

  std::size_t count_correct(std::size_t rows) const {
    std::size_t ok = 0;
    for (std::size_t r = 0; r < rows; ++r) {
      if (static_cast<std::int32_t>(argmax_row(logits_.data() + r * num_classes, num_classes)) == targets_[r]) ++ok;
    }
    return ok;
  }

  /// Backward through layer l: dy (rows x out) given; writes the parameter gradients and, for
  /// l > 0, the gradient of the layer's input masked by the previous ReLU into d_[l - 1].
  void linear_backward(std::size_t l, const C* x, C* dy, std::size_t rows) {
    const std::size_t in = dims[l], out = dims[l + 1];
    // Bias gradient: column sums in Acc, rounded once to the gradient's type.
    GradC* gb = grad_out() + layout_.b[l];
    // (64 columns per task, each column's sum in row order as before.)
    for_each_row(pol_, (out + 63) / 64, 64 * rows, [dy, gb, rows, out](std::size_t c) {
      constexpr std::size_t cols = 64;
      const std::size_t j0 = c * cols, m = std::min(out - j0, cols);
      Acc s[cols] = {};
      for (std::size_t r = 0; r < rows; ++r) {
        const C* row = dy + r * out + j0;
        if constexpr (std::is_same<C, Acc>::value) {
          if (m == cols) {  // a constant count: vectorized at -O2
            for (std::size_t j = 0; j < cols; ++j) s[j] += row[j];
          } else {
            for (std::size_t j = 0; j < m; ++j) s[j] += row[j];
          }
        } else {  // widened exactly by the bulk converter
          Acc t[cols];
          mixprec::convert(mixprec::exec::seq, mixprec::span<const C>(row, m), mixprec::span<Acc>(t, m));
          if (m == cols) {
            for (std::size_t j = 0; j < cols; ++j) s[j] += t[j];
          } else {
            for (std::size_t j = 0; j < m; ++j) s[j] += t[j];
          }
        }
      }
      for (std::size_t j = 0; j < m; ++j) gb[j0 + j] = to<GradC>(s[j]);
    });
    GradC* gw = grad_out() + layout_.w[l];
    C* dx = l > 0 ? d_[l - 1].data() : nullptr;
    bool done = false;
    if constexpr (std::is_same<P, float>::value && std::is_same<C, float>::value) {
      if (fp8_) {
        mixprec::delayed_scaling& sg = scaling(l, 2);
        sg.record_amax(quantize(dy, rows * out, sg.scale(), gq_.data()));
        const float aw = sg.scale_inv() * scaling(l, 0).scale_inv();
        mixprec::gemm<float>(pol_, mixprec::transpose::trans, mixprec::transpose::none, out, in, rows, aw, gq_.data(),
                             out, xq_[l].data(), in, 0.0f, gw, in);
        if (dx != nullptr) {
          const float ax = sg.scale_inv() * scaling(l, 1).scale_inv();
          mixprec::gemm<float>(pol_, mixprec::transpose::none, mixprec::transpose::none, rows, in, out, ax,
                               gq_.data(), out, wq_.data() + layout_.w[l], in, 0.0f, dx, in);
        }
        done = true;
      }
      if (block_) {
        // weight gradient: gw = Q(dy)^T Q(x), K = rows: both quantized in blocks down the columns
        // (dt, xt: the quantized operand is held transposed, see fake_quant_down)
        using mixprec::transpose;
        const bool dt = fake_quant_down(dy, rows, out, true, bq_dy_);
        const bool xt = fake_quant_down(x, rows, in, false, bq_x_);
        mixprec::gemm<float>(pol_, dt ? transpose::none : transpose::trans, xt ? transpose::trans : transpose::none, out,
                             in, rows, 1.0f, bq_dy_.data(), dt ? rows : out, bq_x_.data(), xt ? rows : in, 0.0f, gw, in);
        if (dx != nullptr) {  // input gradient: dx = Q(dy) Q(W), K = out: dy rowwise, W down the columns
          float* dyq = bq_dy_.data();
          fake_quant(dy, rows, out, blocks::along_cols, true, dyq);
          const float* wq;
          bool wt = false;
          if (spec_.recipe == block_recipe::nvfp4) {
            wq = block_weights(l);  // the forward's 16x16 tiles
          } else {
            wt = fake_quant_down(weights() + layout_.w[l], out, in, false, bq_w_);
            wq = bq_w_.data();
          }
          mixprec::gemm<float>(pol_, transpose::none, wt ? transpose::trans : transpose::none, rows, in, out, 1.0f, dyq,
                               out, wq, wt ? out : in, 0.0f, dx, in);
        }
        done = true;
      }
    }
    if (!done) {
      mixprec::gemm<Acc>(pol_, mixprec::transpose::trans, mixprec::transpose::none, out, in, rows, Acc(1), dy, out, x,
                         in, Acc(0), gw, in);
      if (dx != nullptr) {
        mixprec::gemm<Acc>(pol_, mixprec::transpose::none, mixprec::transpose::none, rows, in, out, Acc(1), dy, out,
                           weights() + layout_.w[l], in, Acc(0), dx, in);
      }
    }
    if (dx != nullptr) {
      // ReLU's backward (threshold_backward on its output): the gradient where the output > 0.
      const C* h = h_[l - 1].data();
      if constexpr (std::is_same<C, Acc>::value) {
        for_each_row(pol_, rows, in, [dx, h, in](std::size_t r) { relu_backward_float(h + r * in, dx + r * in, in); });
      } else {  // on the bits, a row at a time
        for_each_row(pol_, rows, in, [dx, h, in](std::size_t r) { relu_backward_bits(h + r * in, dx + r * in, in); });
      }
    }
  }

  /// Where the GEMMs write the parameter gradients: the copy's gradients in the mixed modes.
  GradC* grad_out() {
    if constexpr (mixed) {
      return low_grads_.data();
    } else {
      return grads_.data();
    }
  }

  static data_parallel& one_process() {
    static data_parallel one;
    return one;
  }

  /// Micro-batch m of a batch of R rows: rows [first, second).
  std::pair<std::size_t, std::size_t> micro_range(std::size_t R, std::size_t m) const {
    return {R * m / cfg_.micro_batches, R * (m + 1) / cfg_.micro_batches};
  }

  /// The micro-batches of this rank: [first, second).
  std::pair<std::size_t, std::size_t> my_micro_batches() const {
    const std::size_t M = cfg_.micro_batches, N = static_cast<std::size_t>(dp_->size());
    const std::size_t r = static_cast<std::size_t>(dp_->rank());
    return {M * r / N, M * (r + 1) / N};
  }

  /// dlogits of rows rows with the factor c (grad_output / the batch's rows): cross_entropy_backward
  /// one row at a time with grad_output c, which multiplies by c exactly as the whole batch would.
  template <class L, class D>
  void cross_entropy_backward_rows(const L* logits, D* d, std::size_t rows, float c) {
    const std::int32_t* t = targets_.data();
    for_each_row(pol_, rows, 8 * num_classes, [logits, d, t, c](std::size_t r) {
      mixprec::cross_entropy_backward(mixprec::exec::seq, logits + r * num_classes, t + r, 1, num_classes,
                                      d + r * num_classes, c);
    });
  }

  /// Adds the micro-batch gradient g to the sum (first: starts it), each partial sum rounded to
  /// the reduce precision; with a reduce precision other than float32 also to its float32 twin.
  void fold(const P* g, bool first) {
    auto add = [this, g, first](std::vector<GA>& acc, reduce_precision rp) {
      GA* a = acc.data();
      mixprec::for_each_index(pol_, acc.size(), [a, g, first, rp](std::size_t i) {
        const GA v = first ? widen(g[i]) : static_cast<GA>(a[i] + widen(g[i]));
        a[i] = round_reduce(v, rp);
      });
    };
    add(acc_, cfg_.reduce);
    if (!acc32_.empty()) add(acc32_, reduce_precision::float32);
  }

  /// Where the first micro-batch's gradient is the sum's first value as it is (P is the sum's type,
  /// the reduce precision float32): swaps it into the sum (the same bits as fold, no pass).
  bool start_sum_with_grads() {
    if constexpr (std::is_same<P, GA>::value) {
      if (cfg_.reduce == reduce_precision::float32) {
        grads_.swap(acc_);
        return true;
      }
    }
    return false;
  }

  static GA widen(P x) {
    if constexpr (std::is_same<P, GA>::value) {
      return x;
    } else {
      return static_cast<float>(x);
    }
  }

  static GA round_reduce(GA v, reduce_precision rp) {
    switch (rp) {
      case reduce_precision::bfloat16: return static_cast<GA>(static_cast<float>(mixprec::round_to<mixprec::bfloat16>(v)));
      case reduce_precision::float16: return static_cast<GA>(static_cast<float>(mixprec::round_to<mixprec::half>(v)));
      case reduce_precision::float32: break;
    }
    return v;
  }

  /// One training step over the R rows idx of s; returns the (unscaled) loss. The batch gradient
  /// is the sum of the micro-batch gradients in micro-batch order (see run_config::micro_batches);
  /// each rank computes its own micro-batches, and the ranks exchange them (all-gather) so every
  /// rank adds all of them in the same order as one process does.
  double train_step(const split& s, const std::size_t* idx, std::size_t R, std::size_t& correct) {
    ++step_count_;
    if (fp8_) quantize_weights(true);
    const std::size_t M = cfg_.micro_batches, n = layout_.total;
    const int N = dp_->size();
    const auto mine = my_micro_batches();
    const float grad_output = scaler_ ? static_cast<float>(scaler_->get_scale()) : 1.0f;
    // The factor of every dlogits row, as cross_entropy_backward computes it for the whole batch.
    const float c = static_cast<float>(static_cast<double>(grad_output) / static_cast<double>(R));
    std::vector<double> stats(2 * M, 0.0);  // per micro-batch: loss * rows, correct rows
    bool first = true;
    for (std::size_t m = mine.first; m < mine.second; ++m) {
      const auto range = micro_range(R, m);
      const std::size_t rows = range.second - range.first;
      if (rows == 0) continue;
      quantizations_ = (static_cast<std::uint64_t>(step_count_ - 1) * M + m) << 5;  // NVFP4 seeds (< 32 each)
      load_batch(s, idx + range.first, rows);
      forward(rows, true);
      stats[2 * m + 1] = static_cast<double>(count_correct(rows));
      double loss;
      if (mixed && ce_in_float_) {
        mixprec::convert(pol_, mixprec::span<const C>(logits_.data(), rows * num_classes),
                         mixprec::span<float>(logits32_.data(), rows * num_classes));
        loss = static_cast<double>(mixprec::cross_entropy(pol_, logits32_.data(), targets_.data(), rows, num_classes));
        cross_entropy_backward_rows(logits32_.data(), dlogits32_.data(), rows, c);
        mixprec::convert(pol_, mixprec::span<const float>(dlogits32_.data(), rows * num_classes),
                         mixprec::span<C>(d_[2].data(), rows * num_classes));
      } else {
        loss = static_cast<double>(mixprec::cross_entropy(pol_, logits_.data(), targets_.data(), rows, num_classes));
        cross_entropy_backward_rows(logits_.data(), d_[2].data(), rows, c);
      }
      stats[2 * m] = loss * static_cast<double>(rows);
      linear_backward(2, h_[1].data(), d_[2].data(), rows);
      linear_backward(1, h_[0].data(), d_[1].data(), rows);
      linear_backward(0, x_.data(), d_[0].data(), rows);
      if constexpr (mixed) {
        mixprec::convert(pol_, low_grads_, grads_);  // the casts' backward: widen to the master gradients
      }
      if (N == 1) {
        if (!acc_.empty() && !(first && start_sum_with_grads())) fold(grads_.data(), first);
        first = false;
      } else {
        std::copy(grads_.begin(), grads_.end(), mine_.begin() + static_cast<std::ptrdiff_t>((m - mine.first) * n));
      }
    }
    if (N > 1) {
      std::vector<std::size_t> grad_bytes(static_cast<std::size_t>(N)), stat_bytes(static_cast<std::size_t>(N));
      for (std::size_t r = 0; r < grad_bytes.size(); ++r) {
        const std::size_t count = M * (r + 1) / grad_bytes.size() - M * r / grad_bytes.size();
        grad_bytes[r] = count * n * sizeof(P);
        stat_bytes[r] = count * 2 * sizeof(double);
      }
      std::vector<double> all_stats(2 * M);
      dp_->allgather(stats.data() + 2 * mine.first, all_stats.data(), stat_bytes);
      stats = all_stats;
      dp_->allgather(mine_.data(), all_.data(), grad_bytes);
      for (std::size_t m = 0; m < M; ++m) {
        const auto range = micro_range(R, m);
        if (range.second == range.first) continue;
        fold(all_.data() + m * n, first);
        first = false;
      }
    }
    if (!acc32_.empty()) record_reduce_error();
    if (acc_.empty()) {  // one micro-batch, one process, float32: grads_ is the batch gradient
    } else if constexpr (std::is_same<P, GA>::value) {
      grads_.swap(acc_);  // acc_ is the next step's scratch
    } else {
      P* g = grads_.data();
      const GA* a = acc_.data();
      mixprec::for_each_index(pol_, n, [g, a](std::size_t i) { g[i] = to<P>(a[i]); });
    }
    double loss_sum = 0;
    for (std::size_t m = 0; m < M; ++m) {
      loss_sum += stats[2 * m];
      correct += static_cast<std::size_t>(stats[2 * m + 1]);
    }
    const double loss = loss_sum / static_cast<double>(R);
    if (!std::isfinite(loss) && first_bad_loss_ < 0) first_bad_loss_ = step_count_;
    if (scaler_) {
      scaled_optimizer opt{this};
      if (!scaler_->step(opt)) ++skipped_;
      scaler_->update();
    } else {
      adam_step();
    }
    if (fp8_) {
      if (N > 1) {  // this step's amax: the MAX over the ranks (Megatron, DeepSpeed), as one process sees it
        std::vector<float> amax;
        for (const auto& sc : scaling_) amax.push_back(sc.amax_history().empty() ? 0.0f : sc.amax_history()[0]);
        dp_->max(amax.data(), amax.size());
        for (std::size_t i = 0; i < amax.size(); ++i) scaling_[i].set_current_amax(amax[i]);
      }
      for (auto& sc : scaling_) sc.update();
    }
    if (first_bad_param_ < 0 && any_nonfinite(pol_, params_)) first_bad_param_ = step_count_;
    return loss;
  }

  /// The relative 2-norm error of the reduced gradient against its float32 twin, for the report.
  void record_reduce_error() {
    double d2 = 0, r2 = 0;
    for (std::size_t i = 0; i < acc_.size(); ++i) {
      const double d = static_cast<double>(acc_[i]) - static_cast<double>(acc32_[i]);
      d2 += d * d;
      r2 += static_cast<double>(acc32_[i]) * static_cast<double>(acc32_[i]);
    }
    if (!std::isfinite(d2) || !std::isfinite(r2) || !(r2 > 0)) return;
    const double e = std::sqrt(d2 / r2);
    err_max_ = std::max(err_max_, e);
    err_sum_ += e;
    ++err_steps_;
  }

  void adam_step() {
    ++adam_steps_;
    wcache_valid_ = {};  // the block modes' quantized weights are stale
    mixprec::adam_options o;  // lr 1e-3, betas 0.9/0.999, eps 1e-8, no weight decay
    mixprec::update_rounding ur;
    if (spec_.stochastic_updates) {
      ur.mode = mixprec::rounding::stochastic;
      ur.seed = cfg_.seed ^ 0x53524F554E44ull;
      ur.offset = static_cast<std::uint64_t>(adam_steps_ - 1) * layout_.total;
    }
    if constexpr (mixed) {
      mixprec::adam_step(pol_, mixprec::span<P>(params_), mixprec::span<const P>(grads_), mixprec::span<P>(exp_avg_),
                         mixprec::span<P>(exp_avg_sq_), adam_steps_, o, ur, mixprec::span<C>(copy_));
    } else {
      mixprec::adam_step(pol_, mixprec::span<P>(params_), mixprec::span<const P>(grads_), mixprec::span<P>(exp_avg_),
                         mixprec::span<P>(exp_avg_sq_), adam_steps_, o, ur);
    }
  }

  /// Accuracy over s, in batches of cfg_.batch.
  double evaluate(const split& s) {
    if (s.count == 0) return 0.0;
    if (fp8_) quantize_weights(false);
    std::vector<std::size_t> idx(cfg_.batch);
    std::size_t ok = 0;
    const std::size_t N = static_cast<std::size_t>(dp_->size()), rank = static_cast<std::size_t>(dp_->rank());
    for (std::size_t begin = 0, bi = 0; begin < s.count; begin += cfg_.batch, ++bi) {
      if (bi % N != rank) continue;  // the ranks take turns; their counts are summed
      const std::size_t rows = std::min(cfg_.batch, s.count - begin);
      for (std::size_t r = 0; r < rows; ++r) idx[r] = begin + r;
      load_batch(s, idx.data(), rows);
      forward(rows, false);
      ok += count_correct(rows);
    }
    if (N > 1) ok = static_cast<std::size_t>(dp_->sum(ok));
    return static_cast<double>(ok) / static_cast<double>(s.count);
  }

  const mode_spec& spec_;
  run_config cfg_;
  mixprec::exec::parallel_policy pol_;
  bool fp8_;
  bool block_;
  std::uint64_t quantizations_ = 0;  ///< block modes: the stochastic-rounding seed counter
  // Block modes' scratch, kept between GEMMs (no allocation per GEMM): quantized tensors (one per
  // task), dequantized operands, transposes, the weights' quantization (block_weights).
  std::vector<mixprec::mx_block_recipe<e4m3>::tensor_type> mx_tensors_;
  std::vector<mixprec::nvfp4_recipe::tensor_type> nv_tensors_;
  std::vector<float> bq_x_, bq_w_, bq_dy_, scratch_t_, amax_parts_;
  std::vector<std::uint32_t> mag_parts_;  // quantize(): each chunk's max |x| as bits
  std::array<std::vector<float>, layers> wcache_;
  std::array<bool, layers> wcache_valid_{};
  bool ce_in_float_ = false;
  param_layout layout_;
  std::vector<P> params_, grads_, exp_avg_, exp_avg_sq_;
  std::vector<C> copy_, low_grads_;
  std::vector<C> x_, logits_;
  std::array<std::vector<C>, 2> h_;
  std::array<std::vector<C>, 3> d_;
  std::vector<float> logits32_, dlogits32_;
  std::vector<std::int32_t> targets_;
  std::vector<e4m3> wq_;
  std::array<std::vector<e4m3>, layers> xq_;
  std::vector<e5m2> gq_;
  std::vector<mixprec::delayed_scaling> scaling_;
  std::unique_ptr<mixprec::grad_scaler> scaler_;
  data_parallel* dp_ = &one_process();
  std::vector<GA> acc_, acc32_;  ///< the micro-batch sum, and its float32 twin (reduce != float32)
  std::vector<P> mine_, all_;    ///< data-parallel: this rank's micro-batch gradients, and everyone's
  double err_max_ = 0, err_sum_ = 0;
  std::int64_t err_steps_ = 0;
  std::int64_t step_count_ = 0, adam_steps_ = 0, skipped_ = 0;
  std::int64_t first_bad_loss_ = -1, first_bad_param_ = -1;
};

}  // namespace detail

namespace detail {
inline mode_result run_mode_unmeasured(const mode_spec& spec, const run_config& cfg, const split& train,
                                       const split& val, const split& test) {
  using mixprec::bfloat16;
  using mixprec::half;
  switch (spec.params) {
    case storage::float64:
      return detail::mlp_run<double, double>(spec, cfg).run(train, val, test);
    case storage::float16:
      return detail::mlp_run<half, half>(spec, cfg).run(train, val, test);
    case storage::bfloat16:
      return detail::mlp_run<bfloat16, bfloat16>(spec, cfg).run(train, val, test);
    case storage::float32:
      break;
  }
  switch (spec.compute) {
    case storage::float16:
      return detail::mlp_run<float, half>(spec, cfg).run(train, val, test);
    case storage::bfloat16:
      return detail::mlp_run<float, bfloat16>(spec, cfg).run(train, val, test);
    default:
      return detail::mlp_run<float, float>(spec, cfg).run(train, val, test);
  }
}
}  // namespace detail

/// Trains and evaluates one mode; peak_rss is the mode's own peak (mode_memory_meter).
inline mode_result run_mode(const mode_spec& spec, const run_config& cfg, const split& train, const split& val,
                            const split& test) {
  if (cfg.batch == 0 || train.count == 0) throw study_error("nothing to train on");
  const mode_memory_meter meter;
  mode_result r = detail::run_mode_unmeasured(spec, cfg, train, val, test);
  r.peak_rss = meter.peak_bytes();
  r.peak_rss_own = meter.own();
  return r;
}

}  // namespace precision_study

#endif  // MIXPREC_PRECISION_STUDY_TRAIN_HPP
