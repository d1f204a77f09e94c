// SPDX-License-Identifier: MIT
// Death test: an autocast_scope that ends out of order (argv[1] = "out_of_order") or on another
// thread ("other_thread") prints its message and calls std::terminate, in every build. The
// terminate handler below reports the call and exits, and CTest matches the output (see
// tests/CMakeLists.txt, "death tests"; built with and without NDEBUG). "in_order" is the
// control: nothing terminates.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <thread>

#include <mixprec/autocast.hpp>

int main(int argc, char** argv) {
  std::set_terminate([] {
    std::fputs("std::terminate called\n", stderr);
    std::fflush(stderr);
    std::_Exit(0);
  });
  const char* mode = argc > 1 ? argv[1] : "";
#if defined(NDEBUG)
  std::printf("build: NDEBUG\n");
#else
  std::printf("build: assertions on\n");
#endif
  std::fflush(stdout);
  using mixprec::autocast_scope;
  using mixprec::device_kind;
  if (std::strcmp(mode, "out_of_order") == 0) {
    auto outer = std::make_unique<autocast_scope>(device_kind::cuda);
    autocast_scope inner(device_kind::cpu);
    outer.reset();  // ends before inner
  } else if (std::strcmp(mode, "other_thread") == 0) {
    auto scope = std::make_unique<autocast_scope>(device_kind::cuda);
    std::thread t([&] { scope.reset(); });
    t.join();
  } else if (std::strcmp(mode, "in_order") == 0) {
    auto outer = std::make_unique<autocast_scope>(device_kind::cuda);
    {
      autocast_scope inner(device_kind::cpu);
    }
    outer.reset();
    std::printf("in order: nesting %d\n", mixprec::autocast_nesting());
    return mixprec::autocast_nesting() == 0 ? 0 : 1;
  } else {
    std::fprintf(stderr, "usage: %s out_of_order|other_thread|in_order\n", argv[0]);
    return 2;
  }
  std::printf("NOT TERMINATED\n");
  return 1;
}
