// exec.hpp: policies, the pool (every index exactly once, nested calls, concurrent callers,
// thread-count settings), for_each_index; span.hpp.
#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

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
