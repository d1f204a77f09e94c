// SPDX-License-Identifier: MIT
// operator<< of EVERY half and bfloat16 value under every stream setting of
// iotest::grid(false) (floatfield x precision x showpos/uppercase/showpoint, 200 settings, with
// the width/adjustment and a grouping locale taking turns) gives the text the standard library prints for the double of the same value
// (decoded by ref::decode). Threads split the codes. Label "exhaustive".
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <mixprec/io.hpp>
#include <mixprec/mixprec.hpp>

#include "../formats_list.hpp"
#include "../io_oracle.hpp"

namespace {

template <class T>
void check_every_value_every_setting() {
  const std::vector<iotest::settings> grid = iotest::grid(false);
  const ref::format& f = reftest::ref_of<T>();
  constexpr std::uint32_t codes = 65536;
  const unsigned threads = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  std::atomic<long> failures{0};
  std::mutex report_lock;
  std::vector<std::string> reports;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::ostringstream mine;
      std::ostringstream theirs;
      for (std::uint32_t c = t; c < codes; c += threads) {
        const T x = T::from_bits(static_cast<typename T::storage_type>(c));
        const double d = ref::decode(f, c);
        for (const iotest::settings& s : grid) {
          const std::string why = iotest::compare(mine, theirs, x, d, s);
          if (!why.empty() && failures.fetch_add(1) < 10) {
            const std::lock_guard<std::mutex> lock(report_lock);
            reports.push_back(why);
          }
        }
      }
    });
  }
  for (std::thread& th : pool) th.join();
  for (const std::string& r : reports) FAIL_CHECK(r);
  CHECK(failures.load() == 0);
}

}  // namespace

TEST_CASE("operator<< of every half under every stream setting is the double's text") {
  check_every_value_every_setting<mixprec::half>();
}

TEST_CASE("operator<< of every bfloat16 under every stream setting is the double's text") {
  check_every_value_every_setting<mixprec::bfloat16>();
}
