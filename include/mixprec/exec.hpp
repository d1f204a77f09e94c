// mixprec/exec.hpp — execution policies for the kernels: exec::seq, exec::par, exec::cuda.
//
//   mixprec::exec::seq          the calling thread
//   mixprec::exec::par          host threads from mixprec's pool (default size: set_num_threads(),
//                               else $MIXPREC_NUM_THREADS, else std::thread::hardware_concurrency())
//   mixprec::exec::par(4)       at most 4 threads (the caller included)
//   mixprec::exec::cuda         (nvcc only) the default stream; exec::cuda(stream) another one
//
// Every kernel is written once: a __host__ __device__ body over a range of indices. Under seq the
// body sees [0, n) in blocks, under par the blocks are shared among threads, under cuda each
// device thread runs the body on one index (or one reduction block). Work is split into blocks
// whose size does not depend on the number of threads, and every reduction combines per-block
// partial results in block order, so results never depend on the policy or the thread count.
//
// The pool: workers are started on first use and kept; one job runs at a time (concurrent
// callers queue); a kernel called from inside a job runs sequentially in its thread. Bodies
// must not throw (the kernels' bodies do not).
//
// for_each_index(policy, n, f) is public: f(i) for every i in [0, n), with f callable on the
// device when the policy is exec::cuda (pointers then must be device or managed memory).
#ifndef MIXPREC_EXEC_HPP
#define MIXPREC_EXEC_HPP

#include "config.hpp"
#if !MIXPREC_HAS_EXCEPTIONS && !defined(__CUDA_ARCH__)
#error "mixprec/exec.hpp needs C++ exceptions (it is compiled with -fno-exceptions here); the numeric core, mixprec/mixprec.hpp, does not"
#include "mixprec: compilation stopped (see the error above)"
#endif

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "config.hpp"

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

namespace mixprec {
namespace exec {

/// Run on the calling thread.
struct sequenced_policy {};

/// Run on host threads. threads == 0: the default (num_threads()).
struct parallel_policy {
  unsigned threads = 0;
  /// exec::par(n): at most n threads (n == 0: the default).
  constexpr parallel_policy operator()(unsigned n) const noexcept { return parallel_policy{n}; }
};

inline constexpr sequenced_policy seq{};
inline constexpr parallel_policy par{};

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

inline unsigned env_threads() noexcept {
  const char* s = std::getenv("MIXPREC_NUM_THREADS");
  if (s == nullptr || *s == '\0') return 0;
  char* end = nullptr;
  const unsigned long v = std::strtoul(s, &end, 10);
  if (end == s || *end != '\0' || v == 0 || v > 4096) return 0;
  return static_cast<unsigned>(v);
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
    std::lock_guard<std::mutex> submit(submit_);
    const unsigned helpers = static_cast<unsigned>(std::min<std::size_t>(threads - 1, n - 1));
    {
      std::unique_lock<std::mutex> lk(m_);
      while (workers_.size() < helpers) {
        const unsigned index = static_cast<unsigned>(workers_.size());
        workers_.emplace_back([this, index] { worker(index); });
      }
      ctx_ = static_cast<void*>(&f);
      invoke_ = [](void* ctx, std::size_t i) { (*static_cast<F*>(ctx))(i); };
      n_ = n;
      next_.store(0, std::memory_order_relaxed);
      want_ = helpers;
      running_ = helpers;
      ++generation_;
    }
    cv_.notify_all();
    {
      inside_guard guard;
      work();
    }
    std::exception_ptr error;
    {
      std::unique_lock<std::mutex> lk(m_);
      done_cv_.wait(lk, [this] { return running_ == 0; });
      error = error_;
      error_ = nullptr;
    }
    // Every thread has left the job: f (and the caller's frame) are no longer used.
    if (error) std::rethrow_exception(error);
  }

 private:
  thread_pool() = default;

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

  void worker(unsigned index) {
    inside_job() = true;
    std::uint64_t seen = 0;
    std::unique_lock<std::mutex> lk(m_);
    for (;;) {
      cv_.wait(lk, [&] { return stop_ || (generation_ != seen && index < want_); });
      if (stop_) return;
      seen = generation_;
      lk.unlock();
      work();
      lk.lock();
      if (--running_ == 0) done_cv_.notify_all();
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
  unsigned running_ = 0;
  std::uint64_t generation_ = 0;
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
  for (std::size_t b = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; b < nblocks;
       b += static_cast<std::size_t>(blockDim.x) * gridDim.x) {
    const std::size_t begin = b * grain;
    const std::size_t end = begin + grain < n ? begin + grain : n;
    f(begin, end);
  }
}
#endif

}  // namespace detail

/// Sets the default size of exec::par (n == 0: back to $MIXPREC_NUM_THREADS / the hardware).
inline void set_num_threads(unsigned n) noexcept { detail::default_threads_state().store(n); }

/// The number of threads exec::par uses by default.
inline unsigned num_threads() noexcept {
  const unsigned n = detail::default_threads_state().load();
  if (n != 0) return n;
  static const unsigned from_env = detail::env_threads();
  return from_env != 0 ? from_env : detail::hardware_threads();
}

namespace detail {

inline unsigned threads_of(const exec::parallel_policy& p) noexcept { return p.threads != 0 ? p.threads : num_threads(); }

/// f(begin, end) over [0, n) cut into consecutive blocks of `grain` indices (the last may be
/// shorter), in order.
template <class F>
void for_each_block(exec::sequenced_policy, std::size_t n, std::size_t grain, F&& f) {
  for (std::size_t b = 0; b < n; b += grain) f(b, std::min(n, b + grain));
}

/// The same blocks, shared among the pool's threads.
template <class F>
void for_each_block(exec::parallel_policy p, std::size_t n, std::size_t grain, F&& f) {
  const std::size_t nblocks = (n + grain - 1) / grain;
  auto body = [&](std::size_t b) { f(b * grain, std::min(n, b * grain + grain)); };
  thread_pool::instance().run(nblocks, threads_of(p), body);
}

#if defined(__CUDACC__)
/// One device thread per block of `grain` indices (grain 1: one thread per index).
template <class F>
void for_each_block(exec::cuda_policy p, std::size_t n, std::size_t grain, F f) {
  if (n == 0) return;
  const std::size_t nblocks = (n + grain - 1) / grain;
  const unsigned threads = 256;
  const std::size_t want = (nblocks + threads - 1) / threads;
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
template <class Policy, class F>
void for_each_index(Policy p, std::size_t n, F f) {
  static_assert(exec::is_execution_policy<Policy>::value, "mixprec::for_each_index: not an execution policy");
  detail::for_each_range(p, n, detail::index_body<F>{f});
}

}  // namespace mixprec

#endif  // MIXPREC_EXEC_HPP
