// SPDX-License-Identifier: MIT
// exec.hpp: policies, the pool (every index exactly once, nested calls, concurrent callers,
// thread-count settings, the cap and $MIXPREC_NUM_THREADS), for_each_index (n up to SIZE_MAX);
// span.hpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/resource.h>  // setrlimit
#include <unistd.h>        // readlink
#endif

#include <mixprec/exec.hpp>
#include <mixprec/span.hpp>

using namespace mixprec;

TEST_CASE("for_each_index visits every index exactly once under every policy") {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{16383}, std::size_t{16385}, std::size_t{200000}}) {
    for (unsigned t : {0u, 1u, 2u, 3u, 8u}) {
      std::vector<std::atomic<int>> hits(n);
      for_each_index(exec::par(t), n, [&](std::size_t i) { hits[i].fetch_add(1); });
      std::size_t bad = 0;
      for (auto& h : hits) bad += h.load() != 1;
      CHECK(bad == 0);
    }
    std::vector<int> seq_hits(n, 0);
    for_each_index(exec::seq, n, [&](std::size_t i) { ++seq_hits[i]; });
    for (int h : seq_hits) CHECK(h == 1);
  }
}

TEST_CASE("for_each_task: every index once, one task per index") {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{1000}}) {
    for (unsigned t : {0u, 1u, 2u, 3u}) {
      std::vector<std::atomic<int>> hits(n);
      for_each_task(exec::par(t), n, [&](std::size_t i) { hits[i].fetch_add(1); });
      std::size_t bad = 0;
      for (auto& h : hits) bad += h.load() != 1;
      CHECK(bad == 0);
    }
    std::vector<int> seq_hits(n, 0);
    for_each_task(exec::seq, n, [&](std::size_t i) { ++seq_hits[i]; });
    for (int h : seq_hits) CHECK(h == 1);
  }
  // Two indices under par(2) run at the same time: each waits (up to 10 s) for the other to start.
  // (for_each_index would run both on one thread, one after the other.)
  std::atomic<int> started{0};
  std::atomic<int> met{0};
  for_each_task(exec::par(2), 2, [&](std::size_t) {
    started.fetch_add(1);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (started.load() < 2 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    if (started.load() == 2) met.fetch_add(1);
  });
  CHECK(met.load() == 2);
}

TEST_CASE("nested parallel calls run inline; concurrent callers queue") {
  std::atomic<long> total{0};
  for_each_index(exec::par(2), 4 * 16384, [&](std::size_t) {
    // A nested kernel from inside a job: sequential in this thread, no deadlock.
    static thread_local int depth = 0;
    if (depth == 0) {
      ++depth;
      for_each_index(exec::par(2), 3, [&](std::size_t) { total.fetch_add(1); });
      --depth;
    }
  });
  CHECK(total.load() == 3 * 4 * 16384);
  std::vector<std::thread> callers;
  std::atomic<long> sum{0};
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&] {
      for (int r = 0; r < 20; ++r) for_each_index(exec::par(3), 50000, [&](std::size_t) { sum.fetch_add(1); });
    });
  }
  for (auto& th : callers) th.join();
  CHECK(sum.load() == 4L * 20 * 50000);
}

TEST_CASE("thread-count settings") {
  const unsigned before = num_threads();
  CHECK(before >= 1);
  set_num_threads(3);
  CHECK(num_threads() == 3);
  set_num_threads(0);
  CHECK(num_threads() == before);
  CHECK(exec::par(5).threads == 5);
  CHECK(exec::par.threads == 0);
  static_assert(exec::is_execution_policy<exec::sequenced_policy>::value, "");
  static_assert(exec::is_host_policy<exec::parallel_policy>::value, "");
  static_assert(!exec::is_execution_policy<int>::value, "");
}

TEST_CASE("span: views of containers, arrays and pointers; const conversion") {
  std::vector<int> v = {1, 2, 3, 4};
  span<int> s(v);
  CHECK(s.size() == 4);
  s[1] = 20;
  CHECK(v[1] == 20);
  span<const int> c = s;
  CHECK(c.data() == v.data());
  int a[3] = {7, 8, 9};
  span<int> sa(a);
  CHECK(sa.size() == 3);
  CHECK(sa.subspan(1, 2)[0] == 8);
  span<int> sp(v.data() + 1, 2);
  CHECK(sp[1] == 3);
  long sum = 0;
  for (int x : c) sum += x;
  CHECK(sum == 1 + 20 + 3 + 4);
}

TEST_CASE("an exception thrown by a body reaches the caller; the pool keeps working") {
  for (unsigned t : {1u, 2u, 3u}) {
    std::atomic<int> calls{0};
    CHECK_THROWS_WITH_AS(for_each_index(exec::par(t), 10 * 16384,
                                        [&](std::size_t i) {
                                          calls.fetch_add(1);
                                          if (i == 3 * 16384 + 5) throw std::runtime_error("boom");
                                        }),
                         "boom", std::runtime_error);
    CHECK(calls.load() <= 10 * 16384);
    // Afterwards: every index exactly once again.
    std::vector<std::atomic<int>> hits(5 * 16384);
    for_each_index(exec::par(t), hits.size(), [&](std::size_t i) { hits[i].fetch_add(1); });
    std::size_t bad = 0;
    for (auto& h : hits) bad += h.load() != 1;
    CHECK(bad == 0);
  }
  CHECK_THROWS_AS(for_each_index(exec::seq, 3, [](std::size_t) { throw std::logic_error("x"); }), std::logic_error);
}

TEST_CASE("thread counts are capped at max_num_threads (set_num_threads, exec::par(n), the policy field)") {
  static_assert(max_num_threads == 4096, "the documented cap");
  static_assert(exec::par(100000).threads == 4096 && exec::par(4096).threads == 4096 && exec::par(7).threads == 7, "");
  set_num_threads(100000);
  CHECK(num_threads() == 4096);
  set_num_threads(~0u);
  CHECK(num_threads() == 4096);
  set_num_threads(0);
  CHECK(detail::threads_of(exec::parallel_policy{100000}) == 4096);
  CHECK(detail::threads_of(exec::parallel_policy{5}) == 5);
  // A capped policy still runs (the blocks bound the helpers actually started: 2 here).
  std::atomic<long> sum{0};
  for_each_index(exec::par(100000), 3 * 16384, [&](std::size_t i) { sum.fetch_add(static_cast<long>(i)); });
  CHECK(sum.load() == 3L * 16384 * (3L * 16384 - 1) / 2);
}

TEST_CASE("MIXPREC_NUM_THREADS parsing: a decimal integer >= 1, capped; anything else warned about") {
  struct row {
    const char* text;
    unsigned value;
    bool warns;
  };
  const row rows[] = {{nullptr, 0, false},
                      {"", 0, false},
                      {"3", 3, false},
                      {"007", 7, false},
                      {"4096", 4096, false},
                      {"4097", 4096, true},
                      {"100000000000000000000000000", 4096, true},
                      {"abc", 0, true},
                      {"4x", 0, true},
                      {"0", 0, true},
                      {"-2", 0, true},
                      {" 4", 0, true},
                      {"+4", 0, true},
                      {"0x10", 0, true},
                      {"2.5", 0, true}};
  for (const row& r : rows) {
    std::string warning;
    CAPTURE(r.text);
    CHECK(detail::parse_num_threads(r.text, warning) == r.value);
    CHECK(warning.empty() == !r.warns);
    if (r.warns) CHECK(warning.find("MIXPREC_NUM_THREADS") != std::string::npos);
  }
  // The quoted value is cut short.
  std::string warning;
  const std::string junk(100000, 'z');
  CHECK(detail::parse_num_threads(junk.c_str(), warning) == 0);
  CHECK(warning.size() < 200);
}

#if defined(__linux__)
// The child half of the next test: reads $MIXPREC_NUM_THREADS through num_threads() and a kernel.
TEST_CASE("[child] MIXPREC_NUM_THREADS reader" * doctest::skip(std::getenv("MIXPREC_TEST_EXEC_CHILD") == nullptr)) {
  std::printf("threads=%u\n", num_threads());
  std::printf("threads=%u\n", num_threads());
  std::atomic<long> n{0};
  for_each_index(exec::par, 4 * 16384, [&](std::size_t) { n.fetch_add(1); });
  std::printf("threads=%u n=%ld\n", num_threads(), n.load());
}

/// Runs this test program again with `env` set and only the test cases named `filter`; returns
/// its output (stdout and stderr) and checks its exit status is 0.
std::string run_child(const std::string& env, const char* filter) {
  char self[4096] = {};
  const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  REQUIRE(len > 0);
  const std::string cmd =
      "MIXPREC_TEST_EXEC_CHILD=1 " + env + " '" + self + "' --test-case='" + filter + "' --no-version 2>&1";
  std::string out;
  std::FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  std::size_t got = 0;
  while ((got = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, got);
  CHECK(pclose(p) == 0);
  return out;
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define MIXPREC_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MIXPREC_TEST_SANITIZED 1
#endif

#if !defined(MIXPREC_TEST_SANITIZED)
// The child half of the next test: under an address-space limit that leaves no room for a new
// thread's stack, a parallel job still runs (every index once) instead of throwing.
TEST_CASE("[child-limit] a job where no thread can start" *
          doctest::skip(std::getenv("MIXPREC_TEST_EXEC_CHILD") == nullptr)) {
  std::FILE* st = std::fopen("/proc/self/status", "r");
  REQUIRE(st != nullptr);
  char line[256];
  unsigned long long vm_kib = 0;
  while (std::fgets(line, sizeof line, st) != nullptr) {
    if (std::sscanf(line, "VmSize: %llu kB", &vm_kib) == 1) break;
  }
  std::fclose(st);
  REQUIRE(vm_kib > 0);
  rlimit lim{};
  lim.rlim_cur = lim.rlim_max = static_cast<rlim_t>((vm_kib << 10) + (std::size_t{6} << 20));  // < one 8 MiB stack
  REQUIRE(setrlimit(RLIMIT_AS, &lim) == 0);
  std::vector<int> hits(64 * 16384, 0);
  std::atomic<long> n{0};
  for_each_index(exec::par(64), hits.size(), [&](std::size_t i) {
    ++hits[i];  // distinct i: no two threads write the same element
    n.fetch_add(1, std::memory_order_relaxed);
  });
  std::size_t bad = 0;
  for (int h : hits) bad += h != 1;
  std::printf("limited: n=%ld bad=%zu\n", n.load(), bad);
}

TEST_CASE("a parallel job runs when the system refuses new threads (no std::system_error)") {
  const std::string out = run_child("", "[child-limit]*");
  CAPTURE(out);
  CHECK(out.find("limited: n=1048576 bad=0") != std::string::npos);
}
#endif

TEST_CASE("MIXPREC_NUM_THREADS garbage: ignored with ONE warning per process (stderr)") {
  auto child = [&](const char* value) {
    return run_child(std::string("MIXPREC_NUM_THREADS='") + value + "'", "[child]*");
  };
  auto count = [](const std::string& s, const std::string& what) {
    std::size_t c = 0;
    for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++c;
    return c;
  };
  const std::string hw = "threads=" + std::to_string(detail::hardware_threads()) + "\n";
  const std::string bad = child("banana");
  CAPTURE(bad);
  CHECK(count(bad, "mixprec: ignoring MIXPREC_NUM_THREADS=\"banana\"") == 1);
  CHECK(count(bad, hw) == 2);
  const std::string big = child("100000");
  CAPTURE(big);
  CHECK(count(big, "MIXPREC_NUM_THREADS=100000 is above the cap") == 1);
  CHECK(count(big, "threads=4096\n") == 2);
  const std::string good = child("3");
  CAPTURE(good);
  CHECK(good.find("MIXPREC_NUM_THREADS") == std::string::npos);
  CHECK(count(good, "threads=3\n") == 2);
  CHECK(count(good, "threads=3 n=65536") == 1);
}
#endif

TEST_CASE("blocks near SIZE_MAX: no overflow in the block arithmetic") {
  constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
  static_assert(detail::block_count(0, 16384) == 0 && detail::block_count(1, 16384) == 1, "");
  static_assert(detail::block_count(16384, 16384) == 1 && detail::block_count(16385, 16384) == 2, "");
  static_assert(detail::block_count(max, 16384) == max / 16384 + 1, "");  // max is not a multiple of 16384
  static_assert(detail::block_count(max, 1) == max && detail::block_count(max, max) == 1, "");
  static_assert(detail::block_end(max - 5, max, 16384) == max && detail::block_end(0, max, 16384) == 16384, "");
  // Two blocks of the largest grain that gives two: [0, 2^63) and [2^63, SIZE_MAX).
  const std::size_t half = max / 2 + 1;
  std::vector<std::pair<std::size_t, std::size_t>> seen;
  std::mutex m;
  auto record = [&](std::size_t b, std::size_t e) {
    std::lock_guard<std::mutex> lk(m);
    if (seen.size() > 10) throw std::runtime_error("runaway");
    seen.emplace_back(b, e);
  };
  const std::vector<std::pair<std::size_t, std::size_t>> want = {{0, half}, {half, max}};
  detail::for_each_block(exec::seq, max, half, record);
  CHECK(seen == want);
  seen.clear();
  detail::for_each_block(exec::par(2), max, half, record);
  std::sort(seen.begin(), seen.end());
  CHECK(seen == want);
  // for_each_index over SIZE_MAX indices: the body is called (it stops the run by throwing).
  for (unsigned t : {1u, 2u, 4u}) {
    std::atomic<long> calls{0};
    CHECK_THROWS_WITH_AS(for_each_index(exec::par(t), max,
                                        [&](std::size_t) {
                                          if (calls.fetch_add(1) >= 5) throw std::runtime_error("enough");
                                        }),
                         "enough", std::runtime_error);
    CHECK(calls.load() >= 6);
  }
  std::size_t seq_calls = 0;
  CHECK_THROWS_AS(for_each_index(exec::seq, max,
                                 [&](std::size_t i) {
                                   CHECK(i == seq_calls);
                                   if (++seq_calls == 6) throw std::runtime_error("enough");
                                 }),
                  std::runtime_error);
  CHECK(seq_calls == 6);
}
