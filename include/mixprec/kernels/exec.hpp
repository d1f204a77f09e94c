// SPDX-License-Identifier: MIT
// mixprec/kernels/exec.hpp — execution policies for the kernels: exec::seq, exec::par, exec::cuda.
//
// Contract: every kernel gives the same bits under every policy and thread count (work is cut
// into blocks whose size does not depend on the thread count; reductions combine blocks in
// order). exec::par uses a pool started on first use, at most max_num_threads (4096) threads,
// default set_num_threads(), else $MIXPREC_NUM_THREADS, else hardware_concurrency(); one job at
// a time; bodies must not throw. Pool, thread-count and CUDA rules: docs/pages/kernels-reference.md.
//
//   mixprec::exec::seq          the calling thread
//   mixprec::exec::par          host threads from mixprec's pool
//   mixprec::exec::par(4)       at most 4 threads (the caller included)
//   mixprec::exec::cuda         (nvcc only) the default stream; exec::cuda(stream) another one
//   mixprec::for_each_index(mixprec::exec::par, n, [&](std::size_t i) { y[i] = 2 * x[i]; });
#ifndef MIXPREC_EXEC_HPP
#define MIXPREC_EXEC_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/kernels/exec.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "../core/config.hpp"

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

namespace mixprec {

/// The most threads exec::par uses; larger requests are capped to it.
inline constexpr unsigned max_num_threads = 4096;

namespace detail {

constexpr unsigned cap_threads(unsigned n) noexcept { return n < max_num_threads ? n : max_num_threads; }

/// The number of blocks of `grain` (>= 1) indices that cover [0, n): ceil(n / grain), without
/// the overflow of (n + grain - 1) / grain for n near SIZE_MAX.
MIXPREC_HD constexpr std::size_t block_count(std::size_t n, std::size_t grain) noexcept {
  return n / grain + (n % grain != 0 ? 1 : 0);
}

/// The end of the block that starts at begin (< n): min(n, begin + grain) without overflow.
MIXPREC_HD constexpr std::size_t block_end(std::size_t begin, std::size_t n, std::size_t grain) noexcept {
  return n - begin > grain ? begin + grain : n;
}

}  // namespace detail

namespace exec {

/// Run on the calling thread.
struct sequenced_policy {};

/// Run on host threads. threads == 0: the default (num_threads()).
struct parallel_policy {
  unsigned threads = 0;  ///< At most this many threads (the caller included); 0: num_threads()
  /// exec::par(n): at most min(n, max_num_threads) threads (n == 0: the default).
  constexpr parallel_policy operator()(unsigned n) const noexcept { return parallel_policy{detail::cap_threads(n)}; }
};

inline constexpr sequenced_policy seq{};  ///< Run on the calling thread
inline constexpr parallel_policy par{};   ///< Run on the pool's default number of threads; par(n): at most n

#if defined(__CUDACC__)
/// Run on the current CUDA device, asynchronously on `stream` (kernels that return a value to
/// the host synchronize the stream; the others do not).
struct cuda_policy {
  cudaStream_t stream = nullptr;
  cuda_policy operator()(cudaStream_t s) const noexcept { return cuda_policy{s}; }
};
inline constexpr cuda_policy cuda{};
#endif

template <class P>
struct is_execution_policy : std::false_type {};
template <>
struct is_execution_policy<sequenced_policy> : std::true_type {};
template <>
struct is_execution_policy<parallel_policy> : std::true_type {};
#if defined(__CUDACC__)
template <>
struct is_execution_policy<cuda_policy> : std::true_type {};
#endif

/// Host policies (seq, par): memory is host memory.
template <class P>
struct is_host_policy
    : std::integral_constant<bool, std::is_same<P, sequenced_policy>::value || std::is_same<P, parallel_policy>::value> {
};

}  // namespace exec

namespace detail {

inline std::atomic<unsigned>& default_threads_state() noexcept {
  static std::atomic<unsigned> n{0};
  return n;
}

inline unsigned hardware_threads() noexcept {
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1u : hw;
}

/// A $MIXPREC_NUM_THREADS value: 0 when unset or empty; else a decimal integer >= 1, capped at
/// max_num_threads. `warning` is set (and 0 returned) for anything else, or set when capped.
inline unsigned parse_num_threads(const char* s, std::string& warning) {
  warning.clear();
  if (s == nullptr || *s == '\0') return 0;
  unsigned long long v = 0;
  const char* p = s;
  for (; *p >= '0' && *p <= '9'; ++p) {
    if (v <= max_num_threads) v = v * 10 + static_cast<unsigned>(*p - '0');  // stops growing past the cap
  }
  std::string quoted(s, std::min<std::size_t>(std::char_traits<char>::length(s), 40));
  if (*p != '\0' || p == s || v == 0) {
    warning = "mixprec: ignoring MIXPREC_NUM_THREADS=\"" + quoted + "\" (not an integer >= 1); using " +
              std::to_string(hardware_threads()) + " thread(s)\n";
    return 0;
  }
  if (v > max_num_threads) {
    warning = "mixprec: MIXPREC_NUM_THREADS=" + quoted + " is above the cap; using " + std::to_string(max_num_threads) +
              " thread(s)\n";
    return max_num_threads;
  }
  return static_cast<unsigned>(v);
}

/// $MIXPREC_NUM_THREADS (0: not set or invalid); a warning on stderr when it is not usable as is.
inline unsigned env_threads() {
  std::string warning;
  const unsigned n = parse_num_threads(std::getenv("MIXPREC_NUM_THREADS"), warning);
  if (!warning.empty()) std::fputs(warning.c_str(), stderr);
  return n;
}

/// A small persistent pool. run(n, threads, f) calls f(i) for every i in [0, n), spread over
/// at most `threads` threads (the caller is one of them), and returns when all are done.
class thread_pool {
 public:
  static thread_pool& instance() {
    static thread_pool pool;
    return pool;
  }

  thread_pool(const thread_pool&) = delete;
  thread_pool& operator=(const thread_pool&) = delete;

  ~thread_pool() {
    {
      std::lock_guard<std::mutex> lk(m_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& w : workers_) w.join();
  }

  template <class F>
  void run(std::size_t n, unsigned threads, F& f) {
    if (n == 0) return;
    if (threads <= 1 || n == 1 || inside_job()) {
      for (std::size_t i = 0; i < n; ++i) f(i);
      return;
    }
    run_job(n, threads, static_cast<void*>(&f), [](void* ctx, std::size_t i) { (*static_cast<F*>(ctx))(i); });
  }

 private:
  thread_pool() = default;

  /// run()'s parallel case, one function for every body (ctx: the body, invoke: how to call it).
  void run_job(std::size_t n, unsigned threads, void* ctx, void (*invoke)(void*, std::size_t)) {
    std::lock_guard<std::mutex> submit(submit_);
    unsigned helpers = static_cast<unsigned>(std::min<std::size_t>(cap_threads(threads) - 1, n - 1));
    {
      std::unique_lock<std::mutex> lk(m_);
      while (workers_.size() < helpers) {
        const unsigned index = static_cast<unsigned>(workers_.size());
        try {
          workers_.emplace_back([this, index] { worker(index); });
        } catch (const std::system_error&) {
          // No more threads to be had (a process or memory limit): the job runs with those
          // there are, down to the calling thread alone.
          helpers = static_cast<unsigned>(workers_.size());
        }
      }
      ctx_ = ctx;
      invoke_ = invoke;
      n_ = n;
      next_.store(0, std::memory_order_relaxed);
      want_ = helpers;
      running_.store(helpers, std::memory_order_relaxed);
      generation_.store(generation_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    }
    cv_.notify_all();  // (no system call when every helper is still spinning)
    {
      inside_guard guard;
      work();
    }
    // The helpers are finishing their last indices: wait for them spinning first, then asleep.
    spin_until([this] { return running_.load(std::memory_order_acquire) == 0; }, std::chrono::microseconds(200));
    std::exception_ptr error;
    {
      std::unique_lock<std::mutex> lk(m_);
      done_cv_.wait(lk, [this] { return running_.load(std::memory_order_relaxed) == 0; });
      error = error_;
      error_ = nullptr;
    }
    // Every thread has left the job: f (and the caller's frame) are no longer used.
    if (error) std::rethrow_exception(error);
  }

  static bool& inside_job() noexcept {
    static thread_local bool inside = false;
    return inside;
  }

  struct inside_guard {
    inside_guard() noexcept { inside_job() = true; }
    ~inside_guard() { inside_job() = false; }
    inside_guard(const inside_guard&) = delete;
    inside_guard& operator=(const inside_guard&) = delete;
  };

  /// Takes indices until none is left. The first exception thrown by f is kept (run() rethrows it
  /// in the caller once every thread has left the job) and stops the handing out of indices.
  void work() noexcept {
    for (;;) {
      const std::size_t i = next_.fetch_add(1, std::memory_order_relaxed);
      if (i >= n_) break;
      try {
        invoke_(ctx_, i);
      } catch (...) {
        std::lock_guard<std::mutex> lk(m_);
        if (!error_) error_ = std::current_exception();
        next_.store(n_, std::memory_order_relaxed);
      }
    }
  }

  /// Polls done() for up to `limit` (a pause between polls), true once it holds. Jobs come in
  /// quick succession (a GEMM, then the next op): a thread that waits a little before sleeping
  /// on a condition variable saves a wake-up (two system calls, tens of microseconds in a VM) per
  /// job.
  template <class Done>
  static bool spin_until(Done done, std::chrono::microseconds limit) noexcept {
    const auto until = std::chrono::steady_clock::now() + limit;
    for (;;) {
      for (int k = 0; k < 64; ++k) {
        if (done()) return true;
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(__CUDACC__)
        __builtin_ia32_pause();  // (a hint to the core: no memory-order effect)
#endif
      }
      if (std::chrono::steady_clock::now() >= until) return done();
    }
  }

  void worker(unsigned index) {
    inside_job() = true;
    std::uint64_t seen = 0;
    std::unique_lock<std::mutex> lk(m_);
    for (;;) {
      lk.unlock();  // the next job usually follows soon: watch for it before sleeping
      spin_until([&] { return generation_.load(std::memory_order_acquire) != seen; }, std::chrono::microseconds(100));
      lk.lock();
      cv_.wait(lk, [&] { return stop_ || (generation_.load(std::memory_order_relaxed) != seen && index < want_); });
      if (stop_) return;
      seen = generation_.load(std::memory_order_relaxed);
      lk.unlock();
      work();
      lk.lock();
      if (running_.fetch_sub(1, std::memory_order_acq_rel) == 1) done_cv_.notify_all();
    }
  }

  std::mutex submit_;
  std::mutex m_;
  std::condition_variable cv_;
  std::condition_variable done_cv_;
  std::vector<std::thread> workers_;
  void (*invoke_)(void*, std::size_t) = nullptr;
  void* ctx_ = nullptr;
  std::size_t n_ = 0;
  std::atomic<std::size_t> next_{0};
  unsigned want_ = 0;
  std::atomic<unsigned> running_{0};          // helpers still in the job (written under m_)
  std::atomic<std::uint64_t> generation_{0};  // jobs started (written under m_)
  std::exception_ptr error_;
  bool stop_ = false;
};

#if defined(__CUDACC__)
inline void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string("mixprec: CUDA error in ") + what + ": " + cudaGetErrorString(e));
  }
}

template <class F>
__global__ void for_each_block_kernel(std::size_t nblocks, std::size_t n, std::size_t grain, F f) {
  const std::size_t stride = static_cast<std::size_t>(blockDim.x) * gridDim.x;
  for (std::size_t b = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; b < nblocks; b += stride) {
    const std::size_t begin = b * grain;
    f(begin, block_end(begin, n, grain));
    if (nblocks - b <= stride) break;  // b + stride would reach nblocks (or wrap past SIZE_MAX)
  }
}
#endif

}  // namespace detail

/// Sets the default size of exec::par to min(n, max_num_threads) (n == 0: back to
/// $MIXPREC_NUM_THREADS / the hardware).
inline void set_num_threads(unsigned n) noexcept { detail::default_threads_state().store(detail::cap_threads(n)); }

/// The number of threads exec::par uses by default (the first call reads $MIXPREC_NUM_THREADS,
/// warning once on stderr when it is not usable as is).
inline unsigned num_threads() noexcept {
  const unsigned n = detail::default_threads_state().load();
  if (n != 0) return n;
  static const unsigned from_env = [] {
    try {
      return detail::env_threads();
    } catch (...) {  // std::bad_alloc building the warning
      return 0u;
    }
  }();
  return from_env != 0 ? from_env : detail::hardware_threads();
}

namespace detail {

inline unsigned threads_of(const exec::parallel_policy& p) noexcept {
  return p.threads != 0 ? cap_threads(p.threads) : num_threads();
}

/// f(begin, end) over [0, n) cut into consecutive blocks of `grain` indices (the last may be
/// shorter), in order.
template <class F>
void for_each_block(exec::sequenced_policy, std::size_t n, std::size_t grain, F&& f) {
  for (std::size_t b = 0; b < n;) {
    const std::size_t e = block_end(b, n, grain);
    f(b, e);
    b = e;
  }
}

/// The same blocks, shared among the pool's threads.
template <class F>
void for_each_block(exec::parallel_policy p, std::size_t n, std::size_t grain, F&& f) {
  auto body = [&](std::size_t b) { f(b * grain, block_end(b * grain, n, grain)); };
  thread_pool::instance().run(block_count(n, grain), threads_of(p), body);
}

#if defined(__CUDACC__)
/// One device thread per block of `grain` indices (grain 1: one thread per index).
template <class F>
void for_each_block(exec::cuda_policy p, std::size_t n, std::size_t grain, F f) {
  if (n == 0) return;
  const std::size_t nblocks = block_count(n, grain);
  const unsigned threads = 256;
  const std::size_t want = block_count(nblocks, threads);
  const unsigned blocks = static_cast<unsigned>(want < 65535u * 16u ? want : 65535u * 16u);
  for_each_block_kernel<<<blocks, threads, 0, p.stream>>>(nblocks, n, grain, f);
  cuda_check(cudaGetLastError(), "kernel launch");
}
#endif

/// The block size of the element-wise kernels on the host (a multiple of every vector width).
constexpr std::size_t elementwise_grain = 16384;

/// f(begin, end) over [0, n): host policies in blocks of elementwise_grain, the device one
/// index per thread. f must produce the same result for any split of the range.
template <class Policy, class F>
void for_each_range(Policy p, std::size_t n, F&& f) {
#if defined(__CUDACC__)
  if constexpr (std::is_same<Policy, exec::cuda_policy>::value) {
    for_each_block(p, n, 1, std::forward<F>(f));
    return;
  } else
#endif
  {
    for_each_block(p, n, elementwise_grain, std::forward<F>(f));
  }
}

template <class F>
struct index_body {
  F f;
  MIXPREC_HD void operator()(std::size_t begin, std::size_t end) const {
    for (std::size_t i = begin; i < end; ++i) f(i);
  }
};

}  // namespace detail

/// f(i) for every i in [0, n) under policy p (any order; on the device f must be __host__ __device__).
/// For element-wise bodies: the host policies hand out blocks of 16384 indices (fewer indices run
/// on one thread); use for_each_task when each index is a sizeable piece of work.
template <class Policy, class F>
void for_each_index(Policy p, std::size_t n, F f) {
  static_assert(exec::is_execution_policy<Policy>::value, "mixprec::for_each_index: not an execution policy");
  detail::for_each_range(p, n, detail::index_body<F>{f});
}

/// f(i) for every i in [0, n) under policy p, each index a task of its own (any order): for bodies
/// that each do a sizeable piece of work (a row, a block of rows), where n may be as small as the
/// number of threads. Example: for_each_task(exec::par, rows, [&](std::size_t r) { softmax_row(r); });
template <class Policy, class F>
void for_each_task(Policy p, std::size_t n, F f) {
  static_assert(exec::is_execution_policy<Policy>::value, "mixprec::for_each_task: not an execution policy");
  detail::for_each_block(p, n, 1, detail::index_body<F>{f});
}

}  // namespace mixprec

#endif  // MIXPREC_EXEC_HPP
