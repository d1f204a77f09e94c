// SPDX-License-Identifier: MIT
// mixprec/kernels/gemm/detail/blocking.hpp — cache sizes, block sizes, scratch memory and threads of the host gemm.
//
// What: detail::gemm::blocking (block sizes: speed only, never the result), l2_bytes() of this CPU,
// the per-thread scratch_buffer (2 MiB aligned and advised as huge pages from 2 MiB on Linux),
// parallel(threads, n, f) and slot_pool (one scratch slot per running task).
#ifndef MIXPREC_KERNELS_GEMM_DETAIL_BLOCKING_HPP
#define MIXPREC_KERNELS_GEMM_DETAIL_BLOCKING_HPP

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "../../exec.hpp"

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif
#if defined(__linux__) && !defined(__EMSCRIPTEN__) && !defined(__CUDACC__) && !defined(__CUDA_ARCH__)
#include <sys/mman.h>
#if defined(MADV_HUGEPAGE)
#define MIXPREC_GEMM_HAVE_THP 1
#endif
#endif
#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__) && \
    !defined(__CUDA_ARCH__)
#include <cpuid.h>
#define MIXPREC_GEMM_HAVE_CPUID 1
#endif

namespace mixprec {
namespace detail {
namespace gemm {

/// Transparent huge page size (x86-64 Linux) for the scratch alignment.
constexpr std::size_t huge_page = std::size_t{2} << 20;

/// A 64-byte aligned scratch buffer per calling thread, kept for the next call. From 2 MiB on
/// (Linux), it is 2 MiB aligned and advised as transparent-huge-page memory (MADV_HUGEPAGE; a
/// hint: fewer TLB misses over the panels; bench/README.md).
inline unsigned char* scratch_buffer(std::size_t bytes) {
  struct buffer {
    std::unique_ptr<unsigned char[]> data;
    std::size_t capacity = 0;
    std::size_t align = 64;
  };
  thread_local buffer buf;
  if (buf.capacity < bytes) {
    buf.data.reset();
    buf.capacity = 0;
    buf.align = 64;
#if defined(MIXPREC_GEMM_HAVE_THP)
    if (bytes >= huge_page) buf.align = huge_page;
#endif
    buf.data.reset(new unsigned char[bytes + buf.align]);
    buf.capacity = bytes;
#if defined(MIXPREC_GEMM_HAVE_THP)
    if (buf.align == huge_page) {
      const auto a = reinterpret_cast<std::uintptr_t>(buf.data.get());
      // Before the first touch; the hint may be refused (THP off): then 4 KiB pages, same results.
      (void)madvise(buf.data.get() + ((huge_page - (a & (huge_page - 1))) & (huge_page - 1)),
                    bytes / huge_page * huge_page, MADV_HUGEPAGE);
    }
#endif
  }
  const auto addr = reinterpret_cast<std::uintptr_t>(buf.data.get());
  return buf.data.get() + ((buf.align - (addr & (buf.align - 1))) & (buf.align - 1));
}

/// call(ctx, t) for t in [0, n) on `threads` threads: the one instantiation of the pool's code
/// for every body of parallel (each task is a sliver or a row: the indirect call costs nothing).
inline void parallel_erased(unsigned threads, std::size_t n, void* ctx, void (*call)(void*, std::size_t)) {
  for_each_block(exec::par(threads), n, 1, [&](std::size_t begin, std::size_t end) {
    for (std::size_t t = begin; t < end; ++t) call(ctx, t);
  });
}

/// f(t) for t in [0, n) on `threads` threads (the caller included).
template <class F>
void parallel(unsigned threads, std::size_t n, F&& f) {
  if (threads <= 1 || n <= 1) {
    for (std::size_t t = 0; t < n; ++t) f(t);
    return;
  }
  using body = typename std::remove_reference<F>::type;
  parallel_erased(threads, n, const_cast<void*>(static_cast<const void*>(&f)),
                  [](void* ctx, std::size_t t) { (*static_cast<body*>(ctx))(t); });
}

/// At most `threads` tasks run at once; each takes a free slot (its private scratch) for its run.
class slot_pool {
 public:
  explicit slot_pool(unsigned n) : n_(n == 0 ? 1 : n), used_(new std::atomic<bool>[n_]()) {}
  unsigned acquire() noexcept {
    for (;;) {
      for (unsigned s = 0; s < n_; ++s) {
        if (!used_[s].load(std::memory_order_relaxed) && !used_[s].exchange(true, std::memory_order_acquire)) return s;
      }
    }
  }
  void release(unsigned s) noexcept { used_[s].store(false, std::memory_order_release); }

 private:
  unsigned n_;
  std::unique_ptr<std::atomic<bool>[]> used_;
};

inline std::size_t ceil_div(std::size_t a, std::size_t b) noexcept { return (a + b - 1) / b; }

/// The size in bytes of the L2 cache of the CPU this runs on (per core): sysconf
/// (_SC_LEVEL2_CACHE_SIZE), else cpuid leaf 0x80000006 (AMD and Intel), else 1 MiB.
inline std::size_t l2_bytes() noexcept {
#if defined(_SC_LEVEL2_CACHE_SIZE)
  const long v = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (v >= (16L << 10) && v <= (1L << 30)) return static_cast<std::size_t>(v);
#endif
#if defined(MIXPREC_GEMM_HAVE_CPUID)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) != 0 && eax >= 0x80000006u &&
      __get_cpuid(0x80000006u, &eax, &ebx, &ecx, &edx) != 0) {
    const std::size_t kib = ecx >> 16;
    if (kib >= 16 && kib <= (1u << 20)) return kib << 10;
  }
#endif
  return std::size_t{1} << 20;
}

/// Block sizes of the host paths, in bytes of panel data. They change only the speed, never the
/// result: no block size splits k (each C element's k steps run in order in one accumulator), so
/// every blocking gives the same bits (tests shrink them to exercise many blocks and panels on
/// small matrices; not thread-safe). The defaults come from blocking_for_cpu().
struct blocking {
  std::size_t a_block = std::size_t{384} << 10;       ///< SIMD: A panel rows per task (L2)
  std::size_t b_panel = std::size_t{16} << 20;        ///< SIMD: B panel columns shared by the threads (L3)
  std::size_t portable_panel = std::size_t{8} << 20;  ///< portable: B panel columns
  std::size_t parallel_min = std::size_t{1} << 19;    ///< SIMD: fewer m*n*k multiply-adds run on one thread
  std::size_t dot2_min = std::size_t{1} << 13;        ///< exact on vdpbf16ps (auto): from m*n*k multiply-adds
};
/// The blocking for this CPU: a_block = 3/8 of the L2 cache (384 KiB for 1 MiB, 768 KiB for
/// 2 MiB), within [128 KiB, 4 MiB]: the A block plus the streamed B sliver and C tile stay in L2.
inline blocking blocking_for_cpu() noexcept {
  blocking b;
  b.a_block = std::min(std::max(l2_bytes() / 8 * 3, std::size_t{128} << 10), std::size_t{4} << 20);
  return b;
}
inline blocking& blocking_sizes() noexcept {
  static blocking sizes = blocking_for_cpu();
  return sizes;
}

}  // namespace gemm
}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_KERNELS_GEMM_DETAIL_BLOCKING_HPP
