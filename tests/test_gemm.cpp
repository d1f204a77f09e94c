// SPDX-License-Identifier: MIT
// gemm (include/mixprec/kernels/gemm.hpp) against a straightforward reference written here from
// the documented semantics: a naive per-element loop (sequential k, std::fma, conversions through
// mixprec::round_to), a double / long double product for the error bounds, MPFR and the
// vdpbf16ps instruction itself (where the CPU has it) for the bf16_dot2 step, and hand-computed
// values. Every result is compared bit for bit (NaN with NaN) under exec::seq, exec::par(1),
// par(2), par(3), the portable host path and the per-element (CUDA) code.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <mixprec/kernels/gemm.hpp>
#include <mixprec/types.hpp>

#if MIXPREC_TEST_HAVE_MPFR
#include <mpfr.h>
#endif

using mixprec::bfloat16;
using mixprec::gemm_algorithm;
using mixprec::gemm_options;
using mixprec::half;
using mixprec::layout;
using mixprec::matmul_high_mode;
using mixprec::matmul_precision;
using mixprec::rounding;
using mixprec::transpose;
namespace exec = mixprec::exec;

namespace {

// ---------------------------------------------------------------------------------------------
// Helpers.
// ---------------------------------------------------------------------------------------------

/// Restores the process-wide matmul precision (and high mode) and the blocking sizes.
struct settings_guard {
  matmul_precision p = mixprec::float32_matmul_precision();
  matmul_high_mode h = mixprec::float32_matmul_high_mode();
  mixprec::detail::gemm::blocking b = mixprec::detail::gemm::blocking_sizes();
  // Small problems run on one thread by default: the tests use threads on every size.
  settings_guard() { mixprec::detail::gemm::blocking_sizes().parallel_min = 0; }
  settings_guard(const settings_guard&) = delete;
  settings_guard& operator=(const settings_guard&) = delete;
  ~settings_guard() {
    mixprec::set_float32_matmul_precision(p);
    mixprec::set_float32_matmul_high_mode(h);
    mixprec::detail::gemm::blocking_sizes() = b;
  }
};

template <class T>
double to_d(T x) {
  return static_cast<double>(x);
}
template <class T>
T from_d(double x) {
  if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value) {
    return static_cast<T>(x);
  } else {
    return T(x);
  }
}
template <class T>
bool is_nan(T x) {
  const double d = to_d(x);
  return d != d;
}
template <class T>
std::uint64_t bits_of(T x) {
  if constexpr (std::is_same<T, float>::value) {
    std::uint32_t u;
    std::memcpy(&u, &x, 4);
    return u;
  } else if constexpr (std::is_same<T, double>::value) {
    std::uint64_t u;
    std::memcpy(&u, &x, 8);
    return u;
  } else {
    return x.bits();
  }
}
/// Same bits, or both NaN (payloads are unspecified).
template <class T>
bool same(T x, T y) {
  return (is_nan(x) && is_nan(y)) || bits_of(x) == bits_of(y);
}

/// A rows x cols matrix stored with leading dimension ld (row- or column-major); the padding
/// holds `pad`.
template <class T>
struct stored {
  std::size_t rows = 0, cols = 0, ld = 0;
  bool row_major = true;
  std::vector<T> data;
  stored() = default;
  stored(std::size_t r, std::size_t c, bool rm, std::size_t extra, T pad) : rows(r), cols(c), row_major(rm) {
    ld = (rm ? c : r) + extra;
    data.assign((rm ? r : c) * ld, pad);
  }
  T& at(std::size_t r, std::size_t c) { return data[row_major ? r * ld + c : r + c * ld]; }
  const T& at(std::size_t r, std::size_t c) const { return data[row_major ? r * ld + c : r + c * ld]; }
  T* ptr() { return data.empty() ? nullptr : data.data(); }
  const T* ptr() const { return data.empty() ? nullptr : data.data(); }
};

template <class T>
T pad_value() {
  if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value) {
    return std::numeric_limits<T>::quiet_NaN();
  } else {
    return from_d<T>(std::numeric_limits<double>::quiet_NaN());
  }
}

/// Fills the logical part of m with values of T drawn from gen.
template <class T, class Gen>
void fill(stored<T>& m, Gen&& gen) {
  for (std::size_t r = 0; r < m.rows; ++r) {
    for (std::size_t c = 0; c < m.cols; ++c) m.at(r, c) = from_d<T>(gen());
  }
}

/// The reference's treatment of the inputs (what the global setting means for these types).
enum class in_mode { highest, tf32_away, tf32_even, bf16, bf16x3, dot2 };

template <class TA, class TB>
in_mode expected_mode(gemm_algorithm alg) {
  if (alg == gemm_algorithm::bf16_dot2) return in_mode::dot2;
  if (!std::is_same<TA, float>::value && !std::is_same<TB, float>::value) return in_mode::highest;
  switch (mixprec::float32_matmul_precision()) {
    case matmul_precision::medium: return in_mode::bf16;
    case matmul_precision::high:
      switch (mixprec::float32_matmul_high_mode()) {
        case matmul_high_mode::tf32_nearest_away: return in_mode::tf32_away;
        case matmul_high_mode::tf32_nearest_even: return in_mode::tf32_even;
        default: return in_mode::bf16x3;
      }
    default: return in_mode::highest;
  }
}

/// One input of the naive loop, from round_to (the library's reference conversion).
template <class Acc, class T>
Acc ref_input(T x, in_mode mode) {
  if constexpr (std::is_same<T, float>::value) {
    switch (mode) {
      case in_mode::tf32_away:
        return static_cast<Acc>(static_cast<float>(mixprec::round_to<mixprec::tf32>(x, rounding::nearest_away)));
      case in_mode::tf32_even:
        return static_cast<Acc>(static_cast<float>(mixprec::round_to<mixprec::tf32>(x, rounding::nearest_even)));
      case in_mode::bf16: return static_cast<Acc>(static_cast<float>(mixprec::round_to<bfloat16>(x)));
      default: break;
    }
  }
  return static_cast<Acc>(x);
}

/// bf16x3 parts: hi = bfloat16 nearest-even saturating, lo = bfloat16(x - hi).
template <class T>
void ref_split(T x, float& hi, float& lo) {
  const float f = static_cast<float>(x);
  hi = static_cast<float>(mixprec::round_to<bfloat16>(f, rounding::nearest_even, mixprec::overflow::saturate));
  lo = static_cast<float>(mixprec::round_to<bfloat16>(f - hi));
}

struct run_opts {
  layout order = layout::row_major;
  rounding out = rounding::nearest_even;
  std::uint64_t seed = 0, offset = 0;
  gemm_algorithm alg = gemm_algorithm::exact;
  mixprec::rng_kind generator = mixprec::rng_kind::splitmix64;
  gemm_options options() const {
    gemm_options o;
    o.order = order;
    o.output_rounding = out;
    o.seed = seed;
    o.offset = offset;
    o.algorithm = alg;
    o.generator = generator;
    return o;
  }
};

/// The naive loop of the documented semantics.
template <class Acc, class TA, class TB, class TC>
void naive_gemm(in_mode mode, transpose oa, transpose ob, std::size_t m, std::size_t n, std::size_t k, Acc alpha,
                const stored<TA>& A, const stored<TB>& B, Acc beta, stored<TC>& C, const run_opts& ro) {
  const mixprec::counter_rng splitmix(ro.seed);
  const mixprec::philox_rng philox(ro.seed);
  const auto rng = [&](std::uint64_t c) {
    return ro.generator == mixprec::rng_kind::philox4x32_10 ? philox(c) : splitmix(c);
  };
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      Acc acc = 0;
      for (std::size_t p = 0; p < k; ++p) {
        const TA a = oa == transpose::none ? A.at(i, p) : A.at(p, i);
        const TB b = ob == transpose::none ? B.at(p, j) : B.at(j, p);
        if (mode == in_mode::bf16x3) {
          float ah, al, bh, bl;
          ref_split(a, ah, al);
          ref_split(b, bh, bl);
          acc = std::fma(static_cast<Acc>(al), static_cast<Acc>(bh), acc);
          acc = std::fma(static_cast<Acc>(ah), static_cast<Acc>(bl), acc);
          acc = std::fma(static_cast<Acc>(ah), static_cast<Acc>(bh), acc);
        } else if (mode == in_mode::dot2) {
          if constexpr (std::is_same<Acc, float>::value) {
            acc = mixprec::detail::gemm::dot2_step(static_cast<float>(a), static_cast<float>(b), acc);
          }
        } else {
          acc = std::fma(ref_input<Acc>(a, mode), ref_input<Acc>(b, mode), acc);
        }
      }
      Acc r = alpha * acc;
      if (beta != 0) r = std::fma(beta, static_cast<Acc>(C.at(i, j)), r);
      const std::uint64_t index = ro.order == layout::row_major ? i * n + j : i + j * m;
      if constexpr (std::is_same<TC, Acc>::value) {
        C.at(i, j) = r;
      } else {
        C.at(i, j) = ro.out == rounding::stochastic ? mixprec::round_to<TC>(r, rng(ro.offset + index))
                                                     : mixprec::round_to<TC>(r, ro.out);
      }
    }
  }
}

/// How a gemm is run: the public function under a policy, or a host path of detail directly.
enum class runner { seq, par1, par2, par3, portable2, elementwise };
constexpr runner all_runners[] = {runner::seq,  runner::par1,      runner::par2,
                                  runner::par3, runner::portable2, runner::elementwise};
const char* runner_name(runner r) {
  switch (r) {
    case runner::seq: return "seq";
    case runner::par1: return "par(1)";
    case runner::par2: return "par(2)";
    case runner::par3: return "par(3)";
    case runner::portable2: return "portable par(2)";
    default: return "elementwise";
  }
}

template <class Acc, class TA, class TB, class TC>
void run_gemm(runner how, transpose oa, transpose ob, std::size_t m, std::size_t n, std::size_t k, Acc alpha,
              const stored<TA>& A, const stored<TB>& B, Acc beta, stored<TC>& C, const run_opts& ro) {
  const gemm_options o = ro.options();
  switch (how) {
    case runner::seq:
      mixprec::gemm<Acc>(exec::seq, oa, ob, m, n, k, alpha, A.ptr(), A.ld, B.ptr(), B.ld, beta, C.ptr(), C.ld, o);
      return;
    case runner::par1:
    case runner::par2:
    case runner::par3: {
      const unsigned t = how == runner::par1 ? 1u : how == runner::par2 ? 2u : 3u;
      mixprec::gemm<Acc>(exec::par(t), oa, ob, m, n, k, alpha, A.ptr(), A.ld, B.ptr(), B.ld, beta, C.ptr(), C.ld, o);
      return;
    }
    default: {
      const auto pr = mixprec::detail::gemm::setup<Acc>(oa, ob, m, n, k, alpha, A.ptr(), A.ld, B.ptr(), B.ld, beta,
                                                       C.ptr(), C.ld, o);
      if (m == 0 || n == 0) return;
      if (how == runner::portable2) {
        mixprec::detail::gemm::host_portable(pr, 2);
      } else {
        mixprec::detail::gemm::host_elementwise(pr, 1);
      }
    }
  }
}

/// Counts the elements of C (all of its storage, padding included) that differ.
template <class T>
std::size_t count_diff(const stored<T>& x, const stored<T>& y) {
  std::size_t bad = 0;
  for (std::size_t e = 0; e < x.data.size(); ++e) bad += same(x.data[e], y.data[e]) ? 0 : 1;
  return bad;
}

/// Runs one problem under every runner and compares each with the naive loop. A and B get values
/// from gen (and NaN padding, which must not be read), C random values (used when beta != 0)
/// and a padding that must stay as it is.
template <class Acc, class TA, class TB, class TC, class Gen>
void check_problem(transpose oa, transpose ob, std::size_t m, std::size_t n, std::size_t k, Acc alpha, Acc beta,
                   std::size_t extra, const run_opts& ro, Gen&& gen) {
  const bool rm = ro.order == layout::row_major;
  stored<TA> A(oa == transpose::none ? m : k, oa == transpose::none ? k : m, rm, extra, pad_value<TA>());
  stored<TB> B(ob == transpose::none ? k : n, ob == transpose::none ? n : k, rm, extra, pad_value<TB>());
  stored<TC> C0(m, n, rm, extra, from_d<TC>(7.0));
  fill(A, gen);
  fill(B, gen);
  fill(C0, gen);
  stored<TC> want = C0;
  naive_gemm(expected_mode<TA, TB>(ro.alg), oa, ob, m, n, k, alpha, A, B, beta, want, ro);
  for (runner how : all_runners) {
    stored<TC> got = C0;
    run_gemm(how, oa, ob, m, n, k, alpha, A, B, beta, got, ro);
    const std::size_t bad = count_diff(got, want);
    if (bad != 0) {
      MESSAGE("m=" << m << " n=" << n << " k=" << k << " op_a=" << (oa == transpose::trans) << " op_b="
                   << (ob == transpose::trans) << " col_major=" << !rm << " extra=" << extra << " runner "
                   << runner_name(how));
    }
    CHECK(bad == 0);
  }
}

/// std::mt19937 with a 32-bit result_type (std::mt19937's is unsigned long on LP64).
struct rng32 {
  using result_type = std::uint32_t;
  std::mt19937 e;
  explicit rng32(std::uint32_t seed) : e(seed) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return 0xffffffffu; }
  result_type operator()() { return static_cast<result_type>(e()); }
};

/// Values that exercise rounding: N(0,1) scaled by a power of two in [-3, 3].
struct normal_gen {
  std::mt19937_64 g;
  explicit normal_gen(std::uint64_t seed) : g(seed) {}
  double operator()() {
    std::normal_distribution<double> d;
    std::uniform_int_distribution<int> e(-3, 3);
    return std::ldexp(d(g), e(g));
  }
};

struct dims {
  std::size_t m, n, k;
};
constexpr dims awkward_sizes[] = {{0, 0, 0},  {0, 5, 3},   {4, 0, 3},  {3, 4, 0},   {1, 1, 1},
                                  {1, 17, 1}, {15, 1, 33}, {13, 31, 7}, {14, 32, 16}, {29, 67, 45},
                                  {3, 300, 5}, {14, 200, 9}};

// ---------------------------------------------------------------------------------------------
// Exact algorithm: sizes, transposes, layouts, leading dimensions, policies.
// ---------------------------------------------------------------------------------------------

TEST_CASE("gemm: exact path equals the naive fma loop for every shape, transpose, layout and policy") {
  settings_guard guard;
  mixprec::set_float32_matmul_precision(matmul_precision::highest);
  normal_gen gen(1);
  for (const dims& d : awkward_sizes) {
    for (transpose oa : {transpose::none, transpose::trans}) {
      for (transpose ob : {transpose::none, transpose::trans}) {
        for (layout lo : {layout::row_major, layout::col_major}) {
          for (std::size_t extra : {std::size_t{0}, std::size_t{3}}) {
            run_opts ro;
            ro.order = lo;
            check_problem<float, bfloat16, half, float>(oa, ob, d.m, d.n, d.k, 1.0f, 0.0f, extra, ro, gen);
            check_problem<float, float, bfloat16, bfloat16>(oa, ob, d.m, d.n, d.k, -0.75f, 1.5f, extra, ro, gen);
          }
        }
      }
    }
  }
}

TEST_CASE("gemm: mixed element types and accumulate types") {
  settings_guard guard;
  mixprec::set_float32_matmul_precision(matmul_precision::highest);
  normal_gen gen(2);
  const dims sizes[] = {{1, 1, 1}, {17, 35, 23}, {30, 33, 64}};
  for (const dims& d : sizes) {
    for (layout lo : {layout::row_major, layout::col_major}) {
      run_opts ro;
      ro.order = lo;
      const transpose N = transpose::none, T = transpose::trans;
      check_problem<float, half, half, half>(N, N, d.m, d.n, d.k, 1.0f, 0.5f, 1, ro, gen);
      check_problem<float, float, float, float>(T, N, d.m, d.n, d.k, 2.0f, -1.0f, 0, ro, gen);
      check_problem<double, double, double, double>(N, T, d.m, d.n, d.k, 1.0, 0.25, 2, ro, gen);
      check_problem<float, mixprec::float8_e4m3fn, mixprec::float8_e5m2, bfloat16>(N, N, d.m, d.n, d.k, 1.0f, 0.0f,
                                                                                   1, ro, gen);
      check_problem<double, bfloat16, bfloat16, bfloat16>(T, T, d.m, d.n, d.k, 1.0, 1.0, 0, ro, gen);
      check_problem<double, float, double, double>(N, N, d.m, d.n, d.k, -1.0, 0.0, 0, ro, gen);
      check_problem<float, double, double, float>(N, T, d.m, d.n, d.k, 1.0f, 2.0f, 0, ro, gen);  // double -> float
      check_problem<float, mixprec::tf32, half, double>(T, N, d.m, d.n, d.k, 0.5f, 0.0f, 0, ro, gen);
      check_problem<double, mixprec::float8_e4m3fnuz, float, half>(N, N, d.m, d.n, d.k, 1.0, -0.5, 0, ro, gen);
    }
  }
}

TEST_CASE("gemm: many blocks, panels and task groups (shrunken block sizes)") {
  settings_guard guard;
  mixprec::set_float32_matmul_precision(matmul_precision::highest);
  auto& b = mixprec::detail::gemm::blocking_sizes();
  normal_gen gen(3);
  for (std::size_t budget : {std::size_t{1}, std::size_t{20000}}) {
    b.a_block = budget;
    b.b_panel = budget * 2;
    b.portable_panel = budget;
    const dims sizes[] = {{50, 100, 40}, {14, 130, 7}, {71, 45, 33}};
    for (const dims& d : sizes) {
      for (layout lo : {layout::row_major, layout::col_major}) {
        run_opts ro;
        ro.order = lo;
        check_problem<float, bfloat16, bfloat16, float>(transpose::none, transpose::none, d.m, d.n, d.k, 1.0f, 0.0f,
                                                        0, ro, gen);
        check_problem<double, half, float, double>(transpose::trans, transpose::none, d.m, d.n, d.k, 1.0, 0.5, 1, ro,
                                                   gen);
      }
    }
  }
}

TEST_CASE("gemm: the panel scratch (huge-page aligned from 2 MiB on) is aligned, reused, and gives the same bits") {
  settings_guard guard;
  mixprec::set_float32_matmul_precision(matmul_precision::highest);
  const std::size_t huge = mixprec::detail::gemm::huge_page;
  for (std::size_t bytes : {std::size_t{100}, huge - 1, huge, 3 * huge + 12345}) {
    unsigned char* p = mixprec::detail::gemm::scratch_buffer(bytes);
    const auto addr = reinterpret_cast<std::uintptr_t>(p);
    CHECK(addr % 64 == 0);
#if defined(MIXPREC_GEMM_HAVE_THP)
    if (bytes >= huge) CHECK(addr % huge == 0);
#endif
    std::memset(p, 0xA5, bytes);  // writable over its whole length (ASan checks the bound)
    CHECK(mixprec::detail::gemm::scratch_buffer(bytes / 2) == p);  // a smaller request reuses the buffer
  }
  // A B panel of 57 slivers x 32 columns x 300 k floats = 2.09 MiB: the huge-page scratch.
  normal_gen gen(5);
  run_opts ro;
  check_problem<float, float, float, float>(transpose::none, transpose::none, 20, 1800, 300, 1.0f, 0.0f, 0, ro, gen);
}

TEST_CASE("gemm: a larger problem is identical under seq, par(1), par(2), par(3)") {
  settings_guard guard;
  mixprec::set_float32_matmul_precision(matmul_precision::highest);
  normal_gen gen(4);
  run_opts ro;
  check_problem<float, bfloat16, bfloat16, float>(transpose::none, transpose::none, 150, 170, 600, 1.0f, 0.0f, 0,
                                                  ro, gen);
}

// ---------------------------------------------------------------------------------------------
// alpha, beta, NaN and infinity.
// ---------------------------------------------------------------------------------------------

TEST_CASE("gemm: beta == 0 does not read C; NaN and infinity propagate") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // A (4 x 4) row-major, B (4 x 3) row-major.
  const float a[16] = {1, inf, 2, 3,  //
                       1, 2, 3, 4,    //
                       nan, 0, 0, 0,  //
                       inf, inf, 0, 0};
  const float b[12] = {1, 1, 1,   //
                       1, 0, -1,  //
                       1, 1, 1,   //
                       1, 1, 1};
  for (runner how : {runner::seq, runner::par2, runner::portable2, runner::elementwise}) {
    for (float beta : {0.0f, 1.0f}) {
      stored<float> A(4, 4, true, 0, 0.0f), B(4, 3, true, 0, 0.0f), C(4, 3, true, 0, nan);
      std::memcpy(A.data.data(), a, sizeof a);
      std::memcpy(B.data.data(), b, sizeof b);
      run_gemm(how, transpose::none, transpose::none, 4, 3, 4, 1.0f, A, B, beta, C, run_opts{});
      if (beta == 0.0f) {
        CHECK(C.at(0, 0) == inf);         // 1 + inf + 2 + 3
        CHECK(std::isnan(C.at(0, 1)));    // inf * 0
        CHECK(C.at(0, 2) == -inf);        // inf * -1
        CHECK(C.at(1, 0) == 10.0f);       // NaN in C ignored
        CHECK(C.at(1, 1) == 8.0f);
        CHECK(C.at(1, 2) == 6.0f);
        for (std::size_t j = 0; j < 3; ++j) CHECK(std::isnan(C.at(2, j)));  // NaN row
        CHECK(C.at(3, 0) == inf);
        CHECK(std::isnan(C.at(3, 1)));    // inf + inf*0
        CHECK(std::isnan(C.at(3, 2)));    // inf - inf
      } else {
        for (float x : C.data) CHECK(std::isnan(x));  // beta != 0 reads the NaN in C
      }
    }
  }
  // alpha == 0 still computes the product (NaN * 0 is NaN); beta == 0 with alpha == 0 gives zeros.
  stored<float> A(1, 2, true, 0, 0.0f), B(2, 1, true, 0, 1.0f), C(1, 1, true, 0, 5.0f);
  A.at(0, 0) = inf;
  mixprec::gemm(exec::seq, transpose::none, transpose::none, 1, 1, 2, 0.0f, A.ptr(), 2, B.ptr(), 1, 2.0f, C.ptr(), 1);
  CHECK(std::isnan(C.at(0, 0)));
  A.at(0, 0) = 3.0f;
  C.at(0, 0) = nan;
  mixprec::gemm(exec::seq, transpose::none, transpose::none, 1, 1, 2, 0.0f, A.ptr(), 2, B.ptr(), 1, 0.0f, C.ptr(), 1);
  CHECK(C.at(0, 0) == 0.0f);
  // k == 0: C = alpha * 0 + beta * C.
  C.at(0, 0) = 4.0f;
  mixprec::gemm(exec::par(2), transpose::none, transpose::none, 1, 1, 0, 2.0f, static_cast<const float*>(nullptr), 0,
                static_cast<const float*>(nullptr), 1, 0.5f, C.ptr(), 1);
  CHECK(C.at(0, 0) == 2.0f);
}

TEST_CASE("gemm: infinity and NaN in low-precision types, with the naive loop") {
  settings_guard guard;
  mixprec::set_float32_matmul_precision(matmul_precision::highest);
  rng32 g(5);
  // Mostly finite values with some infinities and NaNs.
  auto gen = [&]() -> double {
    const unsigned r = g() % 40;
    if (r == 0) return std::numeric_limits<double>::infinity();
    if (r == 1) return -std::numeric_limits<double>::infinity();
    if (r == 2) return std::numeric_limits<double>::quiet_NaN();
    return static_cast<double>(static_cast<int>(g() % 9) - 4);
  };
  run_opts ro;
  check_problem<float, half, bfloat16, half>(transpose::none, transpose::trans, 23, 37, 19, 1.0f, 0.0f, 1, ro, gen);
  ro.alg = gemm_algorithm::bf16_dot2;
  check_problem<float, bfloat16, bfloat16, float>(transpose::trans, transpose::none, 23, 37, 19, 1.0f, 0.0f, 1, ro, gen);
}

// ---------------------------------------------------------------------------------------------
// Error bounds against a more precise reference.
// ---------------------------------------------------------------------------------------------

TEST_CASE("gemm: error within the bound the accumulate type predicts") {
  settings_guard guard;
  mixprec::set_float32_matmul_precision(matmul_precision::highest);
  const std::size_t m = 31, n = 45, k = 2000;
  std::mt19937_64 g(6);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<float> A(m * k), B(k * n);
  for (float& x : A) x = static_cast<float>(u(g));
  for (float& x : B) x = static_cast<float>(u(g));
  std::vector<float> Cf(m * n);
  std::vector<double> Cd(m * n);
  std::vector<half> Ch(m * n);
  mixprec::gemm(exec::par(2), transpose::none, transpose::none, m, n, k, 1.0f, A.data(), k, B.data(), n, 0.0f,
                Cf.data(), n);
  mixprec::gemm<double>(exec::par(2), transpose::none, transpose::none, m, n, k, 1.0, A.data(), k, B.data(), n, 0.0,
                        Cd.data(), n);
  mixprec::gemm(exec::seq, transpose::none, transpose::none, m, n, k, 1.0f, A.data(), k, B.data(), n, 0.0f,
                Ch.data(), n);
  auto gamma = [](double kk, double unit) { return kk * unit / (1.0 - kk * unit); };
  const double gf = gamma(static_cast<double>(k), 0x1p-24), gd = gamma(static_cast<double>(k), 0x1p-53);
  // The long double reference: products of floats are exact; its own summation error is at most
  // k * 2^-64 * sum|ab| on x86 (64-bit significand), counted in the bound; 2^-53 elsewhere.
  const double ref_unit = std::numeric_limits<long double>::digits >= 64 ? 0x1p-64 : 0x1p-53;
  double max_err_f = 0;
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      long double s = 0, sabs = 0;
      for (std::size_t p = 0; p < k; ++p) {
        const long double prod = static_cast<long double>(A[i * k + p]) * static_cast<long double>(B[p * n + j]);
        s += prod;
        sabs += prod < 0 ? -prod : prod;
      }
      const double ref = static_cast<double>(s), scale = static_cast<double>(sabs);
      const double ref_err = static_cast<double>(k) * ref_unit * scale;
      const double ef = std::fabs(static_cast<double>(Cf[i * n + j]) - ref);
      CHECK(ef <= gf * scale + ref_err);
      CHECK(std::fabs(Cd[i * n + j] - ref) <= gd * scale + ref_err + std::fabs(ref) * 0x1p-53);
      // half output: the float bound, then one rounding to half (relative 2^-11, or 2^-25 absolute
      // in half's subnormal range).
      const double eh = std::fabs(static_cast<double>(Ch[i * n + j]) - ref);
      CHECK(eh <= gf * scale + ref_err + (std::fabs(ref) + gf * scale) * 0x1p-11 + 0x1p-25);
      max_err_f = std::max(max_err_f, ef / scale);
    }
  }
  // The float accumulation does round (else the test could not tell float from double).
  CHECK(max_err_f > 1e-9);
}

// ---------------------------------------------------------------------------------------------
// float32 matmul precision (issue #6).
// ---------------------------------------------------------------------------------------------

/// Relative Frobenius error of a 256^3 float gemm under the current setting, U(-1,1) inputs,
/// against the exact product (double: products exact, sums with error ~1e-16).
double precision_error(const std::vector<float>& A, const std::vector<float>& B, const std::vector<double>& ref,
                       std::size_t s) {
  std::vector<float> C(s * s);
  mixprec::gemm(exec::par(2), transpose::none, transpose::none, s, s, s, 1.0f, A.data(), s, B.data(), s, 0.0f,
                C.data(), s);
  double num = 0, den = 0;
  for (std::size_t e = 0; e < s * s; ++e) {
    const double d = static_cast<double>(C[e]) - ref[e];
    num += d * d;
    den += ref[e] * ref[e];
  }
  return std::sqrt(num / den);
}

TEST_CASE("gemm: float32 matmul precision highest / high / medium error bands") {
  settings_guard guard;
  const std::size_t s = 256;
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<float> A(s * s), B(s * s);
  for (float& x : A) x = static_cast<float>(u(g));
  for (float& x : B) x = static_cast<float>(u(g));
  std::vector<double> ref(s * s, 0.0);
  for (std::size_t i = 0; i < s; ++i) {
    for (std::size_t p = 0; p < s; ++p) {
      for (std::size_t j = 0; j < s; ++j) ref[i * s + j] += static_cast<double>(A[i * s + p]) * B[p * s + j];
    }
  }
  // Predicted relative Frobenius errors. An input rounded to nearest with unit roundoff u has a
  // relative error of variance ~u^2/6 (error uniform in +-half an ulp, value uniform in its binade),
  // so a product a*b errs by ~sqrt(2) of that and, the errors of the k products being independent,
  // ||dC||/||C|| ~ u*sqrt(2/6) = u/sqrt(3): tf32 (u = 2^-11): 2.8e-4; bfloat16 (u = 2^-8): 2.3e-3.
  // highest: the k sequential float roundings of the partial sums s_p (E s_p^2 = p E(ab)^2), each
  // of relative variance ~u^2/6 with u = 2^-24: sqrt(sum_p p / (6k)) u = u sqrt((k+1)/12) = 2.8e-7.
  // bf16x3 (u = 2^-8): x = hi + lo + e with lo = x - hi rounded, so (x - hi)/x has variance ~u^2/6
  // and e/x ~(u^2/6)^2; a product misses a_lo*b_lo, a*e_b and b*e_a, three independent terms of
  // relative variance ~(u^2/6)^2 each: sqrt(3) u^2 / 6 = 4.4e-6.
  // The bands allow a factor 2 (3 for highest, whose rounding errors are less uniform).
  const double u11 = 0x1p-11, u8 = 0x1p-8, u24 = 0x1p-24;
  const double pred_high = u11 / std::sqrt(3.0), pred_medium = u8 / std::sqrt(3.0);
  const double pred_highest = u24 * std::sqrt((static_cast<double>(s) + 1) / 12.0);
  const double pred_bf16x3 = std::sqrt(3.0) * u8 * u8 / 6.0;

  mixprec::set_float32_matmul_precision("highest");
  const double e_highest = precision_error(A, B, ref, s);
  mixprec::set_float32_matmul_precision("high");
  mixprec::set_float32_matmul_high_mode(matmul_high_mode::tf32_nearest_away);
  const double e_high = precision_error(A, B, ref, s);
  mixprec::set_float32_matmul_high_mode(matmul_high_mode::tf32_nearest_even);
  const double e_high_even = precision_error(A, B, ref, s);
  mixprec::set_float32_matmul_high_mode(matmul_high_mode::bf16x3);
  const double e_bf16x3 = precision_error(A, B, ref, s);
  mixprec::set_float32_matmul_precision("medium");
  const double e_medium = precision_error(A, B, ref, s);
  MESSAGE("relative errors: highest " << e_highest << " (predicted " << pred_highest << "), high " << e_high
                                      << " / nearest-even " << e_high_even << " (predicted " << pred_high
                                      << "), bf16x3 " << e_bf16x3 << " (predicted " << pred_bf16x3
                                      << "), medium " << e_medium << " (predicted " << pred_medium << ")");
  CHECK(e_highest > pred_highest / 3);
  CHECK(e_highest < pred_highest * 3);
  CHECK(e_high > pred_high / 2);
  CHECK(e_high < pred_high * 2);
  CHECK(e_high_even > pred_high / 2);
  CHECK(e_high_even < pred_high * 2);
  CHECK(e_medium > pred_medium / 2);
  CHECK(e_medium < pred_medium * 2);
  CHECK(e_bf16x3 > pred_bf16x3 / 2);
  CHECK(e_bf16x3 < pred_bf16x3 * 2);
}

TEST_CASE("gemm: high rounds float inputs to tf32 exactly; medium to bfloat16; other types are untouched") {
  settings_guard guard;
  const std::size_t m = 37, n = 41, k = 53;
  std::mt19937_64 g(8);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<float> A(m * k), B(k * n);
  // Include exact ties of the tf32 and bfloat16 roundings.
  for (std::size_t e = 0; e < A.size(); ++e) {
    A[e] = e % 5 == 0 ? 1.0f + 0x1p-11f * static_cast<float>(e % 3) + 0x1p-12f : static_cast<float>(u(g));
  }
  for (std::size_t e = 0; e < B.size(); ++e) {
    B[e] = e % 7 == 0 ? -(1.0f + 0x1p-8f + 0x1p-9f) : static_cast<float>(u(g));
  }
  struct mode_case {
    matmul_precision p;
    matmul_high_mode h;
    rounding r;
    bool bf16;
  };
  const mode_case cases[] = {{matmul_precision::high, matmul_high_mode::tf32_nearest_away, rounding::nearest_away, false},
                             {matmul_precision::high, matmul_high_mode::tf32_nearest_even, rounding::nearest_even, false},
                             {matmul_precision::medium, matmul_high_mode::tf32_nearest_away, rounding::nearest_even, true}};
  for (const mode_case& mc : cases) {
    std::vector<float> Ar(A.size()), Br(B.size());
    for (std::size_t e = 0; e < A.size(); ++e) {
      Ar[e] = mc.bf16 ? static_cast<float>(mixprec::round_to<bfloat16>(A[e], mc.r))
                      : static_cast<float>(mixprec::round_to<mixprec::tf32>(A[e], mc.r));
    }
    for (std::size_t e = 0; e < B.size(); ++e) {
      Br[e] = mc.bf16 ? static_cast<float>(mixprec::round_to<bfloat16>(B[e], mc.r))
                      : static_cast<float>(mixprec::round_to<mixprec::tf32>(B[e], mc.r));
    }
    std::vector<float> want(m * n), got(m * n), got_seq(m * n);
    mixprec::set_float32_matmul_precision(matmul_precision::highest);
    mixprec::gemm(exec::seq, transpose::none, transpose::none, m, n, k, 1.0f, Ar.data(), k, Br.data(), n, 0.0f,
                  want.data(), n);
    mixprec::set_float32_matmul_precision(mc.p);
    mixprec::set_float32_matmul_high_mode(mc.h);
    mixprec::gemm(exec::par(2), transpose::none, transpose::none, m, n, k, 1.0f, A.data(), k, B.data(), n, 0.0f,
                  got.data(), n);
    mixprec::gemm(exec::seq, transpose::none, transpose::none, m, n, k, 1.0f, A.data(), k, B.data(), n, 0.0f,
                  got_seq.data(), n);
    std::size_t bad = 0, changed = 0;
    for (std::size_t e = 0; e < m * n; ++e) bad += (!same(got[e], want[e]) || !same(got_seq[e], want[e])) ? 1 : 0;
    for (std::size_t e = 0; e < A.size(); ++e) changed += Ar[e] != A[e] ? 1 : 0;
    CHECK(bad == 0);
    CHECK(changed > A.size() / 2);  // the rounding did something
    // Also with Acc = double: the inputs are rounded the same way, then widened.
    std::vector<double> wd(m * n), gd(m * n);
    mixprec::set_float32_matmul_precision(matmul_precision::highest);
    mixprec::gemm<double>(exec::seq, transpose::none, transpose::none, m, n, k, 1.0, Ar.data(), k, Br.data(), n, 0.0,
                          wd.data(), n);
    mixprec::set_float32_matmul_precision(mc.p);
    mixprec::gemm<double>(exec::par(2), transpose::none, transpose::none, m, n, k, 1.0, A.data(), k, B.data(), n, 0.0,
                          gd.data(), n);
    bad = 0;
    for (std::size_t e = 0; e < m * n; ++e) bad += same(gd[e], wd[e]) ? 0 : 1;
    CHECK(bad == 0);
  }
  // Every setting against the naive loop, including bf16x3, special values, mixed operand types,
  // and types other than float (which the setting must not touch).
  rng32 g2(9);
  auto gen = [&]() -> double {
    const unsigned r = g2() % 400;
    if (r == 0) return std::numeric_limits<double>::infinity();
    if (r == 1) return -3.4028e38;  // rounds to infinity in tf32 / bfloat16, saturates in bf16x3's hi
    if (r == 2) return 1e-40;       // float subnormal
    if (r == 3) return std::numeric_limits<double>::quiet_NaN();
    if (r < 40) return std::ldexp(1.0 + std::ldexp(static_cast<double>(g2() % 4), -12), static_cast<int>(g2() % 5));  // ties
    std::normal_distribution<double> d;
    return d(g2);
  };
  for (matmul_precision p : {matmul_precision::high, matmul_precision::medium}) {
    for (matmul_high_mode h :
         {matmul_high_mode::tf32_nearest_away, matmul_high_mode::tf32_nearest_even, matmul_high_mode::bf16x3}) {
      mixprec::set_float32_matmul_precision(p);
      mixprec::set_float32_matmul_high_mode(h);
      for (layout lo : {layout::row_major, layout::col_major}) {
        run_opts ro;
        ro.order = lo;
        check_problem<float, float, float, float>(transpose::none, transpose::trans, 19, 35, 21, 1.0f, 0.5f, 1, ro,
                                                  gen);
        check_problem<float, half, float, float>(transpose::trans, transpose::none, 16, 33, 12, 1.0f, 0.0f, 0, ro,
                                                 gen);
        check_problem<double, float, bfloat16, double>(transpose::none, transpose::none, 15, 17, 30, 1.0, 0.0, 0, ro,
                                                       gen);
        check_problem<float, bfloat16, half, float>(transpose::none, transpose::none, 15, 17, 30, 1.0f, 0.0f, 0, ro,
                                                    gen);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// bf16_dot2.
// ---------------------------------------------------------------------------------------------

float step(float a, float b, float acc) { return mixprec::detail::gemm::dot2_step(a, b, acc); }
std::uint32_t fbits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}
float from_bits(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}
float bf(std::uint16_t b) { return from_bits(std::uint32_t{b} << 16); }

TEST_CASE("gemm bf16_dot2: one step, hand-computed values") {
  CHECK(step(1.0f, 1.0f, 1.0f) == 2.0f);
  CHECK(step(3.0f, -0.5f, 0.25f) == -1.25f);
  // A subnormal bfloat16 input is flushed (a plain fma gives 2^-27).
  CHECK(fbits(step(0x1p-127f, 0x1p100f, 0.0f)) == 0u);
  CHECK(fbits(step(-0x1p-127f, 0x1p100f, 0.0f)) == 0u);  // -0 * 2^100 + 0 = +0
  CHECK(step(0x1p-127f, 0x1p100f, 1.0f) == 1.0f);
  // A subnormal accumulator input is flushed (the sum would be 2^-130).
  CHECK(fbits(step(0.0f, 0.0f, 0x1p-130f)) == 0u);
  // Tininess after rounding: the exact 2^-126 - 2^-150 is representable with 24 bits below 2^-126,
  // so it is flushed, although a plain fma rounds it up to 2^-126.
  CHECK(std::fma(0x1p-126f, -0x1p-24f, 0x1p-126f) == 0x1p-126f);
  CHECK(fbits(step(0x1p-126f, -0x1p-24f, 0x1p-126f)) == 0u);
  // 2^-126 - 2^-151 rounds (24 bits) to 2^-126: not tiny.
  CHECK(step(0x1p-126f, -0x1p-25f, 0x1p-126f) == 0x1p-126f);
  CHECK(step(-0x1p-126f, -0x1p-25f, -0x1p-126f) == -0x1p-126f);
  // A subnormal result is flushed to a zero of its sign.
  CHECK(fbits(step(0x1p-126f, -0.5f, 0x1.000002p-126f)) == 0u);
  CHECK(fbits(step(-0x1p-100f, 0x1p-100f, 0.0f)) == 0x80000000u);
  CHECK(fbits(step(-0x1p-126f, 0.5f, 0.0f)) == 0x80000000u);
  // Overflow, infinities, NaN.
  CHECK(step(0x1p127f, 0x1p127f, 0.0f) == std::numeric_limits<float>::infinity());
  CHECK(std::isnan(step(std::numeric_limits<float>::infinity(), 0.0f, 1.0f)));
  CHECK(std::isnan(step(std::numeric_limits<float>::infinity(), 1.0f, -std::numeric_limits<float>::infinity())));
  // The padding pair (-0, +0) leaves every accumulator unchanged, -0 included.
  for (float acc : {0.0f, -0.0f, 1.5f, -0x1p-126f, std::numeric_limits<float>::infinity()}) {
    CHECK(fbits(step(-0.0f, 0.0f, acc)) == fbits(acc));
  }
}

/// Random bfloat16 operands and accumulators that reach subnormals, cancellations, the 2^-126
/// boundary, overflow and special values.
struct dot2_case {
  float a0, b0, a1, b1, acc;
};
std::vector<dot2_case> dot2_cases(std::size_t count) {
  rng32 g(10);
  auto rb = [&](int lo, int hi) {
    std::uniform_int_distribution<int> e(lo, hi);
    const std::uint32_t s = g() & 1u, ex = static_cast<std::uint32_t>(e(g)), m = g() & 0x7fu;
    return bf(static_cast<std::uint16_t>((s << 15) | (ex << 7) | m));
  };
  std::vector<dot2_case> v;
  for (std::size_t i = 0; i < count; ++i) {
    dot2_case c{};
    switch (i % 6) {
      case 0:  // ordinary values
        c = {rb(110, 140), rb(110, 140), rb(110, 140), rb(110, 140), from_bits((g() & 0x80ffffffu) | (120u << 23))};
        break;
      case 1:  // subnormal inputs and accumulators
        c = {rb(0, 2), rb(100, 200), rb(0, 2), rb(120, 200), from_bits((g() & 0x807fffffu) | ((g() % 3) << 23))};
        break;
      case 2:  // tiny products: intermediate and final results near 2^-126
        c = {rb(60, 66), rb(60, 66), rb(60, 66), rb(60, 66), from_bits(g() & 0x80ffffffu)};
        break;
      case 3: {  // cancellation down to the subnormal range
        const float a = rb(62, 66), b = rb(62, 66);
        c = {a, b, (g() & 1u) ? -a : rb(62, 66), b, from_bits(g() & 0x80ffffffu)};
        break;
      }
      case 4:  // everything, any bit pattern (infinities, NaN, overflow)
        c = {bf(static_cast<std::uint16_t>(g())), bf(static_cast<std::uint16_t>(g())),
             bf(static_cast<std::uint16_t>(g())), bf(static_cast<std::uint16_t>(g())), from_bits(g())};
        break;
      default: {  // acc = +-2^-126 (+ a few ulps) and a small product: the tininess boundary
        const float acc = from_bits((g() & 0x80000000u) | (0x00800000u + (g() % 3)));
        c = {rb(100, 127), -rb(1, 30), 0.0f, 0.0f, acc};
        if (g() & 1u) std::swap(c.a0, c.a1), std::swap(c.b0, c.b1);
        break;
      }
    }
    v.push_back(c);
  }
  return v;
}

#if MIXPREC_TEST_HAVE_MPFR
/// One step from MPFR: inputs flushed, the exact a*b + acc rounded to 24 bits with MPFR's
/// (practically unbounded) exponent range, then a magnitude below 2^-126 flushed, beyond float's
/// range infinite.
float mpfr_step(float a, float b, float acc) {
  auto daz = [](float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; };
  a = daz(a);
  b = daz(b);
  acc = daz(acc);
  mpfr_t x, y, z, r;
  mpfr_inits2(24, x, y, z, r, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_flt(x, a, MPFR_RNDN);
  mpfr_set_flt(y, b, MPFR_RNDN);
  mpfr_set_flt(z, acc, MPFR_RNDN);
  mpfr_fma(r, x, y, z, MPFR_RNDN);
  const double d = mpfr_get_d(r, MPFR_RNDN);  // exact: 24 bits, |exponent| < 300
  mpfr_clears(x, y, z, r, static_cast<mpfr_ptr>(nullptr));
  if (std::isnan(d)) return std::numeric_limits<float>::quiet_NaN();
  if (std::fabs(d) < 0x1p-126) return std::copysign(0.0f, static_cast<float>(d));
  if (std::fabs(d) > static_cast<double>(FLT_MAX)) return std::copysign(std::numeric_limits<float>::infinity(), static_cast<float>(d));
  return static_cast<float>(d);
}

TEST_CASE("gemm bf16_dot2: the step equals MPFR's flush-to-zero fma") {
  std::size_t bad = 0;
  for (const dot2_case& c : dot2_cases(300000)) {
    const float want = mpfr_step(c.a1, c.b1, mpfr_step(c.a0, c.b0, c.acc));
    const float got = step(c.a1, c.b1, step(c.a0, c.b0, c.acc));
    if (!same(got, want)) {
      if (++bad < 5) MESSAGE("a0=" << c.a0 << " b0=" << c.b0 << " a1=" << c.a1 << " b1=" << c.b1 << " acc=" << c.acc);
    }
  }
  CHECK(bad == 0);
}
#endif

#if defined(MIXPREC_GEMM_AVX512BF16)
TEST_CASE("gemm bf16_dot2: the step equals this CPU's vdpbf16ps (high pair first)") {
  std::size_t bad = 0;
  const std::vector<dot2_case> cases = dot2_cases(320000);
  for (std::size_t i = 0; i + 16 <= cases.size(); i += 16) {
    alignas(64) std::uint32_t a[16], b[16];
    alignas(64) float acc[16], out[16];
    for (int l = 0; l < 16; ++l) {
      const dot2_case& c = cases[i + static_cast<std::size_t>(l)];
      // dword = high half (processed first) | low half.
      a[l] = (fbits(c.a0) & 0xffff0000u) | (fbits(c.a1) >> 16);
      b[l] = (fbits(c.b0) & 0xffff0000u) | (fbits(c.b1) >> 16);
      acc[l] = c.acc;
    }
    const __m512 r = _mm512_dpbf16_ps(_mm512_load_ps(acc), (__m512bh)_mm512_load_si512(a), (__m512bh)_mm512_load_si512(b));
    _mm512_store_ps(out, r);
    for (int l = 0; l < 16; ++l) {
      const dot2_case& c = cases[i + static_cast<std::size_t>(l)];
      const float want = step(c.a1, c.b1, step(c.a0, c.b0, c.acc));
      if (!same(out[l], want)) {
        if (++bad < 5) MESSAGE("a0=" << c.a0 << " b0=" << c.b0 << " a1=" << c.a1 << " b1=" << c.b1 << " acc=" << c.acc);
      }
    }
  }
  CHECK(bad == 0);
}
#endif

TEST_CASE("gemm bf16_dot2: equals the step loop for every shape, layout and policy, subnormals included") {
  // Values: ordinary ones, bfloat16 subnormals (flushed), and small ones whose products and sums
  // fall near or below 2^-126 (flushed steps).
  rng32 g(11);
  auto gen = [&]() -> double {
    const unsigned r = g() % 8;
    std::normal_distribution<double> d;
    if (r == 0) return std::ldexp(d(g), -130);  // subnormal
    if (r <= 2) return std::ldexp(d(g), -63);   // products ~2^-126
    return d(g);
  };
  for (const dims& d : awkward_sizes) {
    for (transpose oa : {transpose::none, transpose::trans}) {
      for (transpose ob : {transpose::none, transpose::trans}) {
        for (layout lo : {layout::row_major, layout::col_major}) {
          run_opts ro;
          ro.order = lo;
          ro.alg = gemm_algorithm::bf16_dot2;
          check_problem<float, bfloat16, bfloat16, float>(oa, ob, d.m, d.n, d.k, 1.0f, 0.0f, 1, ro, gen);
          check_problem<float, bfloat16, bfloat16, half>(oa, ob, d.m, d.n, d.k, 2.0f, -1.0f, 0, ro, gen);
        }
      }
    }
  }
  // The flushing is visible: a subnormal input times a large one.
  const bfloat16 a[2] = {bfloat16(0x1p-130f), bfloat16(1.0f)};
  const bfloat16 b[2] = {bfloat16(0x1p100f), bfloat16(0x1p-120f)};
  float exact = 0, dot2 = 0;
  gemm_options o;
  mixprec::gemm(exec::seq, transpose::none, transpose::none, 1, 1, 2, 1.0f, a, 2, b, 1, 0.0f, &exact, 1);
  o.algorithm = gemm_algorithm::bf16_dot2;
  mixprec::gemm(exec::seq, transpose::none, transpose::none, 1, 1, 2, 1.0f, a, 2, b, 1, 0.0f, &dot2, 1, o);
  CHECK(exact == 0x1p-30f);  // 2^-30 + 2^-120 rounds to 2^-30
  CHECK(dot2 == 0x1p-120f);
}

TEST_CASE("gemm bf16_dot2: short last tiles, C stored from registers, the pair panels") {
  // Every last-sliver height (m = 1 .. 29: tiles of 2, 6, 10 and 14 rows), full and partial B
  // slivers, C stored from the tile's registers (row-major float / bfloat16 C, beta 0 and not)
  // or through the buffer (column-major C, a half C in round-toward-zero); k-contiguous operands
  // (A row-major, B transposed) copied by 16 x 16 pair transposes: k around 32 pairs (31 .. 65,
  // odd k: a padded last pair) and more than 16 rows; the other layout's panel copy with row
  // groups shorter than 16 (m or n < 16).
  rng32 g(13);
  auto gen = [&]() -> double {
    const unsigned r = g() % 8;
    std::normal_distribution<double> d;
    if (r == 0) return std::ldexp(d(g), -130);  // subnormal: flushed
    if (r == 1) return std::ldexp(d(g), -63);   // products near 2^-126: flushed steps
    return d(g);
  };
  const transpose N = transpose::none, T = transpose::trans;
  run_opts ro;
  ro.alg = gemm_algorithm::bf16_dot2;
  for (std::size_t m = 1; m <= 29; ++m) {
    check_problem<float, bfloat16, bfloat16, float>(N, T, m, 40, 33, 1.0f, 0.0f, 0, ro, gen);
    check_problem<float, bfloat16, bfloat16, bfloat16>(T, N, m, 64, 10, 1.0f, 0.5f, 1, ro, gen);
  }
  for (std::size_t k : {std::size_t{31}, std::size_t{32}, std::size_t{34}, std::size_t{63}, std::size_t{65}}) {
    check_problem<float, bfloat16, bfloat16, float>(N, T, 30, 70, k, 1.0f, 0.0f, 2, ro, gen);
    check_problem<float, bfloat16, bfloat16, float>(T, N, 30, 70, k, -1.0f, 2.0f, 0, ro, gen);
    check_problem<float, bfloat16, bfloat16, float>(N, T, 17, 10, k, 1.0f, 0.0f, 0, ro, gen);  // narrow
  }
  ro.order = layout::col_major;
  check_problem<float, bfloat16, bfloat16, float>(N, N, 29, 40, 21, 1.0f, 1.0f, 0, ro, gen);
  ro.order = layout::row_major;
  ro.out = rounding::toward_zero;
  check_problem<float, bfloat16, bfloat16, half>(N, N, 29, 40, 21, 1.0f, 0.0f, 0, ro, gen);
}

// ---------------------------------------------------------------------------------------------
// Output rounding.
// ---------------------------------------------------------------------------------------------

TEST_CASE("gemm: output rounding modes, stochastic rounding reproducible") {
  settings_guard guard;
  mixprec::set_float32_matmul_precision(matmul_precision::highest);
  normal_gen gen(12);
  const rounding modes[] = {rounding::nearest_even, rounding::nearest_away, rounding::toward_zero, rounding::upward,
                            rounding::downward,     rounding::to_odd,       rounding::stochastic};
  for (rounding r : modes) {
    for (layout lo : {layout::row_major, layout::col_major}) {
      run_opts ro;
      ro.order = lo;
      ro.out = r;
      ro.seed = 42;
      ro.offset = 1000;
      check_problem<float, bfloat16, bfloat16, bfloat16>(transpose::none, transpose::none, 19, 37, 25, 1.0f, 0.5f, 1,
                                                         ro, gen);
      check_problem<float, float, half, half>(transpose::trans, transpose::none, 19, 37, 25, 1.0f, 0.0f, 0, ro, gen);
      check_problem<double, half, half, mixprec::float8_e4m3fn>(transpose::none, transpose::trans, 9, 13, 25, 1.0,
                                                                0.0, 0, ro, gen);
      if (r == rounding::stochastic) {
        ro.generator = mixprec::rng_kind::philox4x32_10;
        check_problem<float, bfloat16, bfloat16, bfloat16>(transpose::none, transpose::none, 19, 37, 25, 1.0f, 0.5f,
                                                           1, ro, gen);
      }
    }
  }
  // Stochastic: a column-major C equals the row-major C^T = B^T A^T (same element indices), the seed
  // matters, and the result is not the nearest-even one everywhere.
  const std::size_t m = 23, n = 29, k = 31;
  stored<float> A(m, k, true, 0, 0.0f), B(k, n, true, 0, 0.0f);
  fill(A, gen);
  fill(B, gen);
  std::vector<bfloat16> col(m * n), row(n * m), other(m * n), rne(m * n);
  gemm_options o;
  o.output_rounding = rounding::stochastic;
  o.seed = 5;
  o.offset = 77;
  o.order = layout::col_major;
  mixprec::gemm(exec::par(3), transpose::trans, transpose::trans, m, n, k, 1.0f, A.ptr(), k, B.ptr(), n, 0.0f,
                col.data(), m, o);  // col-major: A^T^T = A stored k x m col-major is A row-major
  o.order = layout::row_major;
  mixprec::gemm(exec::seq, transpose::trans, transpose::trans, n, m, k, 1.0f, B.ptr(), n, A.ptr(), k, 0.0f,
                row.data(), m, o);
  o.seed = 6;
  o.order = layout::col_major;
  mixprec::gemm(exec::seq, transpose::trans, transpose::trans, m, n, k, 1.0f, A.ptr(), k, B.ptr(), n, 0.0f,
                other.data(), m, o);
  o.output_rounding = rounding::nearest_even;
  mixprec::gemm(exec::seq, transpose::trans, transpose::trans, m, n, k, 1.0f, A.ptr(), k, B.ptr(), n, 0.0f,
                rne.data(), m, o);
  std::size_t diff_row = 0, diff_seed = 0, diff_rne = 0;
  for (std::size_t e = 0; e < m * n; ++e) {
    diff_row += col[e].bits() != row[e].bits() ? 1 : 0;
    diff_seed += col[e].bits() != other[e].bits() ? 1 : 0;
    diff_rne += col[e].bits() != rne[e].bits() ? 1 : 0;
  }
  CHECK(diff_row == 0);
  CHECK(diff_seed > m * n / 8);
  CHECK(diff_rne > m * n / 8);
}

// ---------------------------------------------------------------------------------------------
// Argument checks.
// ---------------------------------------------------------------------------------------------

template <class F>
void check_invalid(F&& f, const char* needle) {
  bool thrown = false;
  try {
    f();
  } catch (const std::invalid_argument& e) {
    thrown = true;
    const std::string what = e.what();
    if (what.find(needle) == std::string::npos) MESSAGE("message: " << what);
    CHECK(what.find(needle) != std::string::npos);
  }
  CHECK(thrown);
}

TEST_CASE("gemm: invalid arguments throw std::invalid_argument and leave C unchanged") {
  std::vector<float> A(200, 1.0f), B(200, 1.0f), C(200, 3.0f);
  const auto N = transpose::none, T = transpose::trans;
  auto unchanged = [&] {
    for (float x : C) {
      if (x != 3.0f) return false;
    }
    return true;
  };
  gemm_options col;
  col.order = layout::col_major;
  // m = 4, n = 5, k = 6.
  check_invalid([&] { mixprec::gemm(exec::seq, N, N, 4, 5, 6, 1.0f, A.data(), 5, B.data(), 5, 0.0f, C.data(), 5); }, "lda");
  check_invalid([&] { mixprec::gemm(exec::seq, T, N, 4, 5, 6, 1.0f, A.data(), 3, B.data(), 5, 0.0f, C.data(), 5); }, "lda");
  check_invalid([&] { mixprec::gemm(exec::seq, N, N, 4, 5, 6, 1.0f, A.data(), 6, B.data(), 4, 0.0f, C.data(), 5); }, "ldb");
  check_invalid([&] { mixprec::gemm(exec::seq, N, T, 4, 5, 6, 1.0f, A.data(), 6, B.data(), 5, 0.0f, C.data(), 5); }, "ldb");
  check_invalid([&] { mixprec::gemm(exec::par(2), N, N, 4, 5, 6, 1.0f, A.data(), 6, B.data(), 5, 0.0f, C.data(), 4); }, "ldc");
  check_invalid([&] { mixprec::gemm(exec::seq, N, N, 4, 5, 6, 1.0f, A.data(), 3, B.data(), 6, 0.0f, C.data(), 4, col); }, "lda");
  check_invalid([&] { mixprec::gemm(exec::seq, N, N, 4, 5, 6, 1.0f, A.data(), 4, B.data(), 5, 0.0f, C.data(), 4, col); }, "ldb");
  check_invalid([&] { mixprec::gemm(exec::seq, N, N, 4, 5, 6, 1.0f, A.data(), 4, B.data(), 6, 0.0f, C.data(), 3, col); }, "ldc");
  check_invalid([&] { mixprec::gemm(exec::seq, N, N, 4, 5, 6, 1.0f, static_cast<const float*>(nullptr), 6, B.data(), 5, 0.0f, C.data(), 5); }, "A is a null");
  check_invalid([&] { mixprec::gemm(exec::seq, N, N, 4, 5, 6, 1.0f, A.data(), 6, static_cast<const float*>(nullptr), 5, 0.0f, C.data(), 5); }, "B is a null");
  check_invalid([&] { mixprec::gemm(exec::seq, N, N, 4, 5, 6, 1.0f, A.data(), 6, B.data(), 5, 0.0f, static_cast<float*>(nullptr), 5); }, "C is a null");
  gemm_options dot2;
  dot2.algorithm = gemm_algorithm::bf16_dot2;
  check_invalid([&] { mixprec::gemm(exec::seq, N, N, 4, 5, 6, 1.0f, A.data(), 6, B.data(), 5, 0.0f, C.data(), 5, dot2); }, "bfloat16");
  const std::vector<bfloat16> Ab(200, bfloat16(1.0f));
  check_invalid([&] { mixprec::gemm<double>(exec::seq, N, N, 4, 5, 6, 1.0, Ab.data(), 6, Ab.data(), 5, 0.0, C.data(), 5, dot2); }, "float");
  gemm_options bad_enum;
  bad_enum.order = static_cast<layout>(7);
  check_invalid([&] { mixprec::gemm(exec::seq, N, N, 4, 5, 6, 1.0f, A.data(), 6, B.data(), 5, 0.0f, C.data(), 5, bad_enum); }, "layout");
  CHECK(unchanged());
  // Empty problems: null pointers are fine where the matrix has no elements.
  mixprec::gemm(exec::seq, N, N, 0, 5, 6, 1.0f, static_cast<const float*>(nullptr), 6, B.data(), 5, 0.0f,
                static_cast<float*>(nullptr), 5);
  mixprec::gemm(exec::par(2), N, N, 4, 0, 6, 1.0f, A.data(), 6, static_cast<const float*>(nullptr), 0, 0.0f,
                static_cast<float*>(nullptr), 0);
  mixprec::gemm(exec::seq, N, N, 4, 5, 0, 1.0f, static_cast<const float*>(nullptr), 0,
                static_cast<const float*>(nullptr), 5, 1.0f, C.data(), 5);
  CHECK(unchanged());  // k == 0, alpha * 0 + 1 * C
}

// ---------------------------------------------------------------------------------------------
// The host fast paths (AVX-512 or AVX2 kernels, vector C stores, transposed panel copies, blockings).
// The same cases run in every build; CMake also builds this file as test_gemm_avx2 (-mavx2 -mfma
// -mf16c, no AVX-512) and test_gemm_avx512 (AVX-512 without BF16) where the CPU runs them.
// ---------------------------------------------------------------------------------------------

/// Runs given A, B, C0 under every runner and compares each with the naive loop.
template <class Acc, class TA, class TB, class TC>
void check_given(transpose oa, transpose ob, std::size_t m, std::size_t n, std::size_t k, Acc alpha, Acc beta,
                 const stored<TA>& A, const stored<TB>& B, const stored<TC>& C0, const run_opts& ro) {
  stored<TC> want = C0;
  naive_gemm(expected_mode<TA, TB>(ro.alg), oa, ob, m, n, k, alpha, A, B, beta, want, ro);
  for (runner how : all_runners) {
    stored<TC> got = C0;
    run_gemm(how, oa, ob, m, n, k, alpha, A, B, beta, got, ro);
    const std::size_t bad = count_diff(got, want);
    if (bad != 0) MESSAGE("m=" << m << " n=" << n << " k=" << k << " runner " << runner_name(how));
    CHECK(bad == 0);
  }
}

/// Float values whose products with powers of two land on the edges of half and bfloat16: exact
/// ties, the largest finite values and the overflow thresholds, subnormals and their ties,
/// signed zeros, infinities, NaN, and random bit patterns of every class.
std::vector<float> store_edge_values() {
  std::vector<float> v = {0.0f, -0.0f, 1.0f, -1.0f, std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                          FLT_MAX, -FLT_MAX, FLT_MIN, -FLT_MIN, std::numeric_limits<float>::denorm_min(),
                          65504.0f, 65519.0f, 65520.0f, -65520.0f, 65536.0f,  // half: max, below / at the overflow tie
                          0x1p-24f, 0x1p-25f, -0x1p-25f, 0x1.000002p-25f, 0x3p-26f, 0x1p-14f, 0x1.ff8p-15f,  // half subnormals
                          from_bits(0x7f7f0000u), from_bits(0x7f7f7fffu), from_bits(0x7f7f8000u),  // bfloat16 overflow
                          from_bits(0x00008000u), from_bits(0x00018000u), from_bits(0x807fffffu)};  // bfloat16 subnormal ties
  rng32 g(77);
  for (int i = 0; i < 96; ++i) v.push_back(from_bits(g()));                                        // every class
  for (int i = 0; i < 64; ++i) v.push_back(from_bits((g() & 0xffff0000u) | 0x8000u));              // bfloat16 ties
  for (int i = 0; i < 64; ++i) v.push_back(from_bits((g() & 0x8fffe000u) | 0x38001000u));          // half ties
  for (int i = 0; i < 32; ++i) v.push_back(from_bits((g() & 0x80ffe000u) | 0x33001000u));          // half subnormal ties
  return v;
}

template <class TC>
void check_lowp_store(std::size_t n, float alpha, float beta, layout lo) {
  const std::vector<float> vals = store_edge_values();
  const std::size_t m = vals.size(), k = 1;
  const bool rm = lo == layout::row_major;
  stored<float> A(m, k, rm, 0, 0.0f);
  stored<float> B(k, n, rm, 1, 0.0f);
  stored<TC> C0(m, n, rm, 2, from_d<TC>(7.0));
  const float pow2[] = {1.0f, 0.5f, 2.0f, 0x1p-8f, 0x1p8f, 0x1p-14f, 0x1p16f, 0x1p-3f, 0x1p-20f};
  for (std::size_t i = 0; i < m; ++i) A.at(i, 0) = vals[i];
  for (std::size_t j = 0; j < n; ++j) B.at(0, j) = j % 2 == 0 ? pow2[j / 2 % 9] : -pow2[j / 2 % 9];
  rng32 g(static_cast<std::uint32_t>(n));
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) C0.at(i, j) = TC::from_bits(static_cast<std::uint16_t>(g()));
  }
  run_opts ro;
  ro.order = lo;
  check_given<float>(transpose::none, transpose::none, m, n, k, alpha, beta, A, B, C0, ro);
}

TEST_CASE("gemm: half and bfloat16 C (vector store): edge results, every tail width, beta, layouts") {
  settings_guard guard;
  mixprec::set_float32_matmul_precision(matmul_precision::highest);
  for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{9}, std::size_t{16},
                        std::size_t{17}, std::size_t{31}, std::size_t{33}, std::size_t{40}}) {
    for (layout lo : {layout::row_major, layout::col_major}) {
      check_lowp_store<bfloat16>(n, 1.0f, 0.0f, lo);
      check_lowp_store<half>(n, 1.0f, 0.0f, lo);
      check_lowp_store<bfloat16>(n, -0.75f, 1.0f, lo);  // C read: its NaN, infinities and subnormals too
      check_lowp_store<half>(n, 1.0f, -0.5f, lo);
    }
  }
  // Results that are exact ties, with k > 1 (through the kernel's accumulator), checked by hand:
  // 1 + 2^-8 (bfloat16 tie: to 1), 1 + 3*2^-8 (to 1 + 2^-6), 65520 (half tie: to infinity).
  std::vector<float> a = {1.0f, 0x1p-8f, 1.0f, 0x3p-8f, 32768.0f, 32752.0f};  // 3 rows, k = 2
  std::vector<float> b = {1.0f, 1.0f};                                     // k x 1
  std::vector<bfloat16> cb(3);
  std::vector<half> ch(3);
  mixprec::gemm(exec::seq, transpose::none, transpose::none, 3, 1, 2, 1.0f, a.data(), 2, b.data(), 1, 0.0f, cb.data(), 1);
  mixprec::gemm(exec::seq, transpose::none, transpose::none, 3, 1, 2, 1.0f, a.data(), 2, b.data(), 1, 0.0f, ch.data(), 1);
  CHECK(cb[0].bits() == 0x3f80);
  CHECK(cb[1].bits() == 0x3f82);
  CHECK(std::isinf(static_cast<float>(ch[2])));
}

/// Random values with ties of the tf32 and bfloat16 roundings, large values (tf32 / bfloat16
/// overflow) and subnormals mixed in.
struct tie_gen {
  rng32 g;
  explicit tie_gen(std::uint32_t seed) : g(seed) {}
  double operator()() {
    const unsigned r = g() % 100;
    if (r == 0) return -3.4028e38;
    if (r == 1) return 1e-40;
    if (r < 30) return static_cast<double>(from_bits((g() & 0x83ffe000u) | 0x3c001000u));  // tf32 ties
    if (r < 60) return static_cast<double>(from_bits((g() & 0x83ff0000u) | 0x3c008000u));  // bfloat16 ties
    std::normal_distribution<double> d;
    return d(g);
  }
};

TEST_CASE("gemm: k-contiguous (transposed) panel copy, every input conversion, k around the vector width") {
  settings_guard guard;
  tie_gen gen(21);
  const dims sizes[] = {{14, 32, 16}, {5, 3, 8}, {15, 33, 17}, {29, 47, 31}, {6, 16, 48}, {20, 70, 64}, {3, 9, 95}};
  struct mode_case {
    matmul_precision p;
    matmul_high_mode h;
  };
  const mode_case modes[] = {{matmul_precision::highest, matmul_high_mode::tf32_nearest_away},
                             {matmul_precision::high, matmul_high_mode::tf32_nearest_away},
                             {matmul_precision::high, matmul_high_mode::tf32_nearest_even},
                             {matmul_precision::medium, matmul_high_mode::tf32_nearest_away}};
  for (const mode_case& mc : modes) {
    mixprec::set_float32_matmul_precision(mc.p);
    mixprec::set_float32_matmul_high_mode(mc.h);
    for (const dims& d : sizes) {
      run_opts ro;  // row-major: op(A) = A and op(B) = B^T are k-contiguous
      const transpose N = transpose::none, T = transpose::trans;
      check_problem<float, float, float, float>(N, T, d.m, d.n, d.k, 1.0f, 0.0f, 1, ro, gen);
      check_problem<float, half, bfloat16, bfloat16>(N, T, d.m, d.n, d.k, 1.0f, 0.5f, 0, ro, gen);
      check_problem<float, bfloat16, float, half>(N, T, d.m, d.n, d.k, 2.0f, 0.0f, 3, ro, gen);
      // one-byte types: gathered from the widening table
      check_problem<float, mixprec::float8_e4m3fn, mixprec::float8_e5m2, float>(N, T, d.m, d.n, d.k, 1.0f, 0.0f, 0, ro,
                                                                                  gen);
      check_problem<double, mixprec::float4_e2m1fn, mixprec::float6_e3m2fn, float>(N, T, d.m, d.n, d.k, 1.0, 0.0, 0,
                                                                                     ro, gen);
      ro.order = layout::col_major;  // col-major: op(A) = A^T and op(B) = B are k-contiguous
      check_problem<float, float, half, float>(T, N, d.m, d.n, d.k, 1.0f, 0.0f, 0, ro, gen);
      check_problem<float, mixprec::float8_e5m2fnuz, mixprec::float8_e4m3fn, float>(T, N, d.m, d.n, d.k, 1.0f, 0.5f, 0,
                                                                                      ro, gen);
    }
  }
}

TEST_CASE("gemm: every blocking gives the same bits (A block, B panel, from the CPU's L2)") {
  settings_guard guard;
  // The default is sized from this CPU's L2 cache, within [128 KiB, 4 MiB].
  const std::size_t l2 = mixprec::detail::gemm::l2_bytes();
  const std::size_t def = mixprec::detail::gemm::blocking_for_cpu().a_block;
  MESSAGE("L2 " << l2 << " bytes, A block " << def << " bytes");
  CHECK(l2 >= (std::size_t{16} << 10));
  CHECK(def >= (std::size_t{128} << 10));
  CHECK(def <= (std::size_t{4} << 20));
  CHECK(def == std::min(std::max(l2 / 8 * 3, std::size_t{128} << 10), std::size_t{4} << 20));
  CHECK(guard.b.a_block == def);  // gemm_blocking_sizes() starts from it
  mixprec::set_float32_matmul_precision(matmul_precision::highest);
  auto& b = mixprec::detail::gemm::blocking_sizes();
  const std::size_t m = 97, n = 75, k = 300;
  normal_gen gen(31);
  stored<bfloat16> A(m, k, true, 0, bfloat16(0.0f));
  stored<float> B(k, n, true, 0, 0.0f);
  stored<half> C0(m, n, true, 0, half(0.0f));
  fill(A, gen);
  fill(B, gen);
  fill(C0, gen);
  stored<half> want = C0;
  run_opts ro;
  naive_gemm(in_mode::highest, transpose::none, transpose::none, m, n, k, 1.0f, A, B, 0.25f, want, ro);
  const std::size_t a_blocks[] = {1, 5000, 64 << 10, 384 << 10, def, std::size_t{1} << 30};
  const std::size_t b_panels[] = {1, 20000, std::size_t{16} << 20};
  for (std::size_t ab : a_blocks) {
    for (std::size_t bp : b_panels) {
      b.a_block = ab;
      b.b_panel = bp;
      b.parallel_min = bp == 1 ? std::size_t{1} << 30 : 0;  // also: a small problem on one thread
      for (unsigned t : {1u, 2u, 3u}) {
        stored<half> got = C0;
        mixprec::gemm(exec::par(t), transpose::none, transpose::none, m, n, k, 1.0f, A.ptr(), A.ld, B.ptr(), B.ld,
                      0.25f, got.ptr(), got.ld);
        const std::size_t bad = count_diff(got, want);
        if (bad != 0) MESSAGE("a_block " << ab << " b_panel " << bp << " threads " << t);
        CHECK(bad == 0);
      }
    }
  }
}

TEST_CASE("gemm: narrow C (n up to one vector: the narrow tile), every type and input mode") {
  settings_guard guard;
  tie_gen gen(41);
  for (matmul_high_mode h : {matmul_high_mode::tf32_nearest_away, matmul_high_mode::bf16x3}) {
    mixprec::set_float32_matmul_precision(matmul_precision::high);
    mixprec::set_float32_matmul_high_mode(h);
    for (std::size_t n : {std::size_t{1}, std::size_t{8}, std::size_t{10}, std::size_t{16}, std::size_t{17}}) {
      for (std::size_t m : {std::size_t{5}, std::size_t{29}, std::size_t{128}}) {
        run_opts ro;
        const transpose N = transpose::none, T = transpose::trans;
        check_problem<float, float, float, float>(N, T, m, n, 37, 1.0f, 0.0f, 0, ro, gen);
        check_problem<float, bfloat16, bfloat16, bfloat16>(N, T, m, n, 64, 1.0f, 0.5f, 1, ro, gen);
        check_problem<float, half, float, half>(T, N, m, n, 19, -1.0f, 0.0f, 0, ro, gen);
        ro.alg = gemm_algorithm::bf16_dot2;  // the narrow vdpbf16ps tile (AVX-512-BF16), odd and even k
        check_problem<float, bfloat16, bfloat16, float>(N, T, m, n, 37, 1.0f, 0.0f, 0, ro, gen);
        check_problem<float, bfloat16, bfloat16, bfloat16>(N, N, m, n, 64, 1.0f, 0.5f, 1, ro, gen);
        ro.alg = gemm_algorithm::exact;
        ro.order = layout::col_major;  // computed as the row-major C^T: narrow when m is
        check_problem<float, float, bfloat16, float>(N, N, n, m, 33, 1.0f, 0.0f, 0, ro, gen);
      }
    }
  }
}

TEST_CASE("gemm: small shapes: B read in place, C stored from the tile's registers, short last slivers") {
  // The study's short-k (m128x256x10_NN) and short-m (m10x256x128_TN) shapes, shrunk: every row
  // count of a last sliver (m = 1 .. 29: each short tile height, 2, 6 and 10, of the 14-row and
  // 6-row tiles), full and partial B slivers, B read in place (m <= 2 tiles or k <= 16) and
  // copied into a panel, beta 0 and not.
  settings_guard guard;
  mixprec::set_float32_matmul_precision(matmul_precision::highest);
  tie_gen gen(51);
  const transpose N = transpose::none, T = transpose::trans;
  for (std::size_t m = 1; m <= 29; ++m) {
    run_opts ro;
    check_problem<float, float, float, float>(N, N, m, 64, 10, 1.0f, 0.0f, 0, ro, gen);          // B in place
    check_problem<float, float, float, float>(T, N, m, 40, 33, 0.5f, 1.0f, 2, ro, gen);          // + a partial sliver
    check_problem<float, bfloat16, bfloat16, bfloat16>(T, N, m, 64, 17, 1.0f, 0.0f, 1, ro, gen);  // bfloat16 B in place
    check_problem<float, half, half, half>(N, N, m, 48, 5, -2.0f, 0.5f, 0, ro, gen);              // half B in place
  }
  for (std::size_t m : {std::size_t{30}, std::size_t{50}, std::size_t{128}}) {
    run_opts ro;
    check_problem<float, float, float, float>(N, N, m, 96, 10, 1.0f, 0.0f, 0, ro, gen);     // k <= 16: in place
    check_problem<float, bfloat16, bfloat16, float>(N, N, m, 70, 16, 1.0f, 1.0f, 3, ro, gen);
    check_problem<float, float, float, bfloat16>(T, N, m, 64, 17, 1.0f, 0.0f, 0, ro, gen);  // a panel, short last sliver
    ro.order = layout::col_major;                                                           // C^T: B^T in place
    check_problem<float, float, half, float>(T, T, m, 32, 10, 1.0f, 0.25f, 0, ro, gen);
  }
  // Float B under "high" and "medium" is rounded while copied into a panel: never read in place.
  for (matmul_precision p : {matmul_precision::high, matmul_precision::medium}) {
    mixprec::set_float32_matmul_precision(p);
    for (matmul_high_mode h : {matmul_high_mode::tf32_nearest_away, matmul_high_mode::bf16x3}) {
      mixprec::set_float32_matmul_high_mode(h);
      for (std::size_t m : {std::size_t{3}, std::size_t{10}, std::size_t{40}}) {
        run_opts ro;
        check_problem<float, float, float, float>(N, N, m, 64, 10, 1.0f, 0.0f, 0, ro, gen);
        check_problem<float, float, float, half>(T, N, m, 32, 20, 1.0f, 0.0f, 0, ro, gen);
        check_problem<float, bfloat16, float, float>(T, N, m, 32, 20, 1.0f, 0.0f, 0, ro, gen);
      }
    }
  }
  // Stochastic output rounding and a double C: through the buffer and the scalar store.
  mixprec::set_float32_matmul_precision(matmul_precision::highest);
  run_opts ro;
  ro.out = rounding::stochastic;
  ro.seed = 7;
  check_problem<float, float, float, bfloat16>(N, N, 10, 64, 10, 1.0f, 0.0f, 0, ro, gen);
  ro.out = rounding::nearest_even;
  check_problem<float, float, bfloat16, double>(T, N, 10, 64, 40, 1.0f, 0.5f, 0, ro, gen);
}

}  // namespace

#if defined(MIXPREC_GEMM_SIMD)
#include <immintrin.h>
namespace {
/// gemm_load_vec of every code of a byte format equals the scalar widening table, bit for bit,
/// under the default MXCSR and with DAZ and FTZ set (the vector decode must not depend on them).
template <class T>
void check_byte_widening() {
  const float* table = mixprec::detail::widen_table<T, float>();
  constexpr std::size_t W = mixprec::detail::gemm::vw;
  const unsigned saved = _mm_getcsr();
  for (unsigned csr : {saved, saved | 0x8040u}) {
    _mm_setcsr(csr);
    for (unsigned first = 0; first < 256; first += W) {
      T in[16];
      for (std::size_t j = 0; j < W; ++j) in[j] = T::from_bits(static_cast<std::uint8_t>(first + j));
      float out[16];
#if defined(MIXPREC_GEMM_AVX512)
      _mm512_storeu_ps(out, mixprec::detail::gemm::load_vec<mixprec::detail::gemm::input_mode::as_is>(in));
#else
      _mm256_storeu_ps(out, mixprec::detail::gemm::load_vec<mixprec::detail::gemm::input_mode::as_is>(in));
#endif
      for (std::size_t j = 0; j < W; ++j) {
        std::uint32_t got = 0, want = 0;
        std::memcpy(&got, &out[j], 4);
        std::memcpy(&want, &table[first + j], 4);
        CHECK_MESSAGE(got == want, "code " << (first + j) << " csr " << csr);
      }
    }
  }
  _mm_setcsr(saved);
}
}  // namespace

TEST_CASE("gemm: vector widening of FP8/FP6/FP4 codes equals the table for every code") {
  check_byte_widening<mixprec::float8_e4m3fn>();
  check_byte_widening<mixprec::float8_e5m2>();
  check_byte_widening<mixprec::float8_e4m3fnuz>();
  check_byte_widening<mixprec::float8_e5m2fnuz>();
}
#endif

// ---------------------------------------------------------------------------------------------
// Tensor-core presets (include/mixprec/kernels/tensor_core.hpp) against MMA-Sim's outputs in
// tests/golden/mma_vectors.txt (tests/golden/gen_mma_vectors.py): mma_dot / mma_dot_scaled per
// output, and gemm with opts.mma over each tile, every output bit for bit.
// ---------------------------------------------------------------------------------------------

#include <map>

#include <mixprec/kernels/tensor_core.hpp>

#include "mma_vectors.hpp"

namespace {

using mma_tile = mmatest::tile;

/// Checks one tile with A of TA and B of TB: mma_dot (or mma_dot_scaled) per output, then gemm.
template <class TA, class TB>
std::size_t mma_check_tile(const mma_tile& t, std::map<std::string, std::size_t>& per_preset) {
  const mixprec::mma_preset p = mixprec::mma_preset_from_name(t.preset);
  const mixprec::mma_model& md = mixprec::mma_model_of(p);
  const std::vector<TA> a = mmatest::decode<TA>(t.a);
  const std::vector<TB> b = mmatest::decode<TB>(t.b);
  REQUIRE(a.size() == t.rows * t.k);
  REQUIRE(b.size() == t.k * t.n);
  REQUIRE(t.c.size() == t.rows * t.n);
  REQUIRE(t.d.size() == t.rows * t.n);
  std::size_t bad = 0;
  std::vector<TB> col(t.k);
  for (std::size_t i = 0; i < t.rows; ++i) {
    for (std::size_t j = 0; j < t.n; ++j) {
      for (std::size_t q = 0; q < t.k; ++q) col[q] = b[q * t.n + j];
      const float c = mmatest::c_value(t.c[i * t.n + j], md.out);
      float d = 0.0f;
      if (md.scales == 0) {
        d = mixprec::mma_dot(p, a.data() + i * t.k, col.data(), t.k, c);
      } else {
        const std::size_t nb = t.k / t.block;
        std::vector<std::uint32_t> sac(t.sa.begin() + static_cast<std::ptrdiff_t>(i * nb),
                                       t.sa.begin() + static_cast<std::ptrdiff_t>((i + 1) * nb)),
            sbc(nb);
        for (std::size_t q = 0; q < nb; ++q) sbc[q] = t.sb[q * t.n + j];
        if (t.s_fmt == "ue8m0") {
          const auto sa = mmatest::decode<mixprec::float8_e8m0fnu>(sac), sb = mmatest::decode<mixprec::float8_e8m0fnu>(sbc);
          d = mixprec::mma_dot_scaled(p, a.data() + i * t.k, col.data(), t.k, c, sa.data(), sb.data(), t.block);
        } else {
          const auto sa = mmatest::decode<mixprec::float8_ue4m3>(sac), sb = mmatest::decode<mixprec::float8_ue4m3>(sbc);
          d = mixprec::mma_dot_scaled(p, a.data() + i * t.k, col.data(), t.k, c, sa.data(), sb.data(), t.block);
        }
      }
      const std::uint32_t got = mmatest::out_bits(d, md.out), want = t.d[i * t.n + j];
      if (got != want) {
        if (bad < 8) {
          INFO(t.preset << " " << t.a_fmt << "x" << t.b_fmt << " k " << t.k << " (" << i << ", " << j << "): got 0x"
                        << std::hex << got << " want 0x" << want);
          CHECK(got == want);
        }
        ++bad;
      }
    }
  }
  if (md.scales == 0) {  // gemm over the tile, C the accumulator's start (beta 1), seq and par(2)
    for (int pol = 0; pol < 2; ++pol) {
      gemm_options o;
      o.mma = p;
      std::size_t bad_gemm = 0;
      if (md.out == mixprec::mma_output::f16) {
        std::vector<half> c(t.c.size());
        for (std::size_t q = 0; q < c.size(); ++q) c[q] = half::from_bits(static_cast<std::uint16_t>(t.c[q]));
        if (pol == 0) mixprec::gemm(exec::seq, transpose::none, transpose::none, t.rows, t.n, t.k, 1.0f, a.data(), t.k, b.data(), t.n, 1.0f, c.data(), t.n, o);
        else mixprec::gemm(exec::par(2), transpose::none, transpose::none, t.rows, t.n, t.k, 1.0f, a.data(), t.k, b.data(), t.n, 1.0f, c.data(), t.n, o);
        for (std::size_t q = 0; q < c.size(); ++q) bad_gemm += c[q].bits() != t.d[q];
      } else {
        std::vector<float> c(t.c.size());
        for (std::size_t q = 0; q < c.size(); ++q) c[q] = mixprec::detail::bit_cast<float>(t.c[q]);
        if (pol == 0) mixprec::gemm(exec::seq, transpose::none, transpose::none, t.rows, t.n, t.k, 1.0f, a.data(), t.k, b.data(), t.n, 1.0f, c.data(), t.n, o);
        else mixprec::gemm(exec::par(2), transpose::none, transpose::none, t.rows, t.n, t.k, 1.0f, a.data(), t.k, b.data(), t.n, 1.0f, c.data(), t.n, o);
        for (std::size_t q = 0; q < c.size(); ++q) bad_gemm += mixprec::detail::bit_cast<std::uint32_t>(c[q]) != t.d[q];
      }
      INFO("gemm " << t.preset << " " << t.a_fmt << "x" << t.b_fmt << " k " << t.k << " policy " << pol);
      CHECK(bad_gemm == 0);
      bad += bad_gemm;
    }
  }
  per_preset[t.preset] += t.rows * t.n;
  return bad;
}

}  // namespace

TEST_CASE("tensor-core presets: mma_dot bit-identical to MMA-Sim on tests/golden/mma_vectors.txt") {
  const std::vector<mma_tile> tiles = mmatest::load_tiles("mma_vectors.txt");
  REQUIRE(tiles.size() > 100);
  std::map<std::string, std::size_t> per_preset;
  std::size_t bad = 0, total = 0;
  for (const mma_tile& t : tiles) {
    const std::string f = t.a_fmt + "." + t.b_fmt;
    if (f == "f16.f16") bad += mma_check_tile<half, half>(t, per_preset);
    else if (f == "bf16.bf16") bad += mma_check_tile<bfloat16, bfloat16>(t, per_preset);
    else if (f == "tf32.tf32") bad += mma_check_tile<float, float>(t, per_preset);
    else if (f == "e4m3.e4m3") bad += mma_check_tile<mixprec::float8_e4m3fn, mixprec::float8_e4m3fn>(t, per_preset);
    else if (f == "e4m3.e5m2") bad += mma_check_tile<mixprec::float8_e4m3fn, mixprec::float8_e5m2>(t, per_preset);
    else if (f == "e5m2.e4m3") bad += mma_check_tile<mixprec::float8_e5m2, mixprec::float8_e4m3fn>(t, per_preset);
    else if (f == "e5m2.e5m2") bad += mma_check_tile<mixprec::float8_e5m2, mixprec::float8_e5m2>(t, per_preset);
    else if (f == "e2m1.e2m1") bad += mma_check_tile<mixprec::float4_e2m1fn, mixprec::float4_e2m1fn>(t, per_preset);
    else if (f == "e4m3fnuz.e4m3fnuz") bad += mma_check_tile<mixprec::float8_e4m3fnuz, mixprec::float8_e4m3fnuz>(t, per_preset);
    else if (f == "e4m3fnuz.e5m2fnuz") bad += mma_check_tile<mixprec::float8_e4m3fnuz, mixprec::float8_e5m2fnuz>(t, per_preset);
    else if (f == "e5m2fnuz.e4m3fnuz") bad += mma_check_tile<mixprec::float8_e5m2fnuz, mixprec::float8_e4m3fnuz>(t, per_preset);
    else if (f == "e5m2fnuz.e5m2fnuz") bad += mma_check_tile<mixprec::float8_e5m2fnuz, mixprec::float8_e5m2fnuz>(t, per_preset);
    else FAIL("unknown operand formats " << f);
    total += t.rows * t.n;
  }
  CHECK(bad == 0);
  // Every preset has vectors.
  for (std::size_t i = 1; i < static_cast<std::size_t>(mixprec::mma_preset::count_); ++i) {
    const char* name = mixprec::mma_model_of(static_cast<mixprec::mma_preset>(i)).name;
    INFO(name);
    CHECK(per_preset[name] >= 200);
  }
  MESSAGE("tensor-core vectors: " << total << " outputs in " << tiles.size() << " tiles, " << bad << " differ");
}

TEST_CASE("tensor-core presets: bad input throws naming what is allowed, C unchanged") {
  std::vector<half> a(4 * 20, half(1.0f)), b(20 * 3, half(0.5f));
  std::vector<float> c(4 * 3, 7.0f);
  auto expect = [&](gemm_options o, float alpha, float beta, const char* needle, auto pa, auto pb) {
    try {
      mixprec::gemm(exec::seq, transpose::none, transpose::none, 4, 3, 20, alpha, pa, 20, pb, 3, beta, c.data(), 3, o);
      FAIL("no exception");
    } catch (const std::invalid_argument& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find(needle) != std::string::npos);
    }
    for (float x : c) CHECK(x == 7.0f);
  };
  gemm_options o;
  o.mma = mixprec::mma_preset::hopper_wgmma_fp8_f32;
  expect(o, 1.0f, 1.0f, "float8_e4m3fn, float8_e5m2", a.data(), b.data());  // f16 operands
  o.mma = mixprec::mma_preset::blackwell_tcgen05_mxf8f6f4;
  expect(o, 1.0f, 1.0f, "block_scaled_gemm", a.data(), b.data());
  o.mma = mixprec::mma_preset::ampere_mma_f16_f32;
  expect(o, 2.0f, 1.0f, "alpha == 1", a.data(), b.data());
  expect(o, 1.0f, 0.5f, "beta == 0", a.data(), b.data());
  o.mma = static_cast<mixprec::mma_preset>(200);
  expect(o, 1.0f, 1.0f, "hopper_wgmma_fp8_f32", a.data(), b.data());
  std::vector<double> ad(4 * 20, 1.0);
  o.mma = mixprec::mma_preset::volta_mma_f16_f32;
  expect(o, 1.0f, 1.0f, "half (f16)", ad.data(), b.data());
  CHECK_THROWS_WITH_AS(mixprec::mma_preset_from_name("hopper_wgmma_e4m3"),
                       doctest::Contains("ampere_mma_bf16_f32"), std::invalid_argument);
  // A good call: beta 0 ignores C; 20 products of 0.5 chained over k 16 (split 8 + 8) and 4.
  o.mma = mixprec::mma_preset::ampere_mma_f16_f32;
  mixprec::gemm(exec::seq, transpose::none, transpose::none, 4, 3, 20, 1.0f, a.data(), 20, b.data(), 3, 0.0f, c.data(), 3, o);
  for (float x : c) CHECK(x == 10.0f);
  // Transposed and column-major operands give the same bits as row-major.
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  std::vector<mixprec::float8_e4m3fn> x(7 * 45), y(45 * 5), xt(45 * 7);
  for (auto& v : x) v = mixprec::float8_e4m3fn(u(rng));
  for (auto& v : y) v = mixprec::float8_e4m3fn(u(rng) / 8.0f);
  for (std::size_t i = 0; i < 7; ++i)
    for (std::size_t p = 0; p < 45; ++p) xt[p * 7 + i] = x[i * 45 + p];
  o.mma = mixprec::mma_preset::hopper_wgmma_fp8_f32;
  std::vector<float> r1(35, 0.25f), r2(35, 0.25f), r3(35);
  mixprec::gemm(exec::seq, transpose::none, transpose::none, 7, 5, 45, 1.0f, x.data(), 45, y.data(), 5, 1.0f, r1.data(), 5, o);
  mixprec::gemm(exec::par(3), transpose::trans, transpose::none, 7, 5, 45, 1.0f, xt.data(), 7, y.data(), 5, 1.0f, r2.data(), 5, o);
  for (std::size_t i = 0; i < 7; ++i) {
    std::vector<mixprec::float8_e4m3fn> col(45);
    for (std::size_t j = 0; j < 5; ++j) {
      for (std::size_t p = 0; p < 45; ++p) col[p] = y[p * 5 + j];
      r3[i * 5 + j] = mixprec::mma_dot(o.mma, x.data() + i * 45, col.data(), 45, 0.25f);
    }
  }
  for (std::size_t q = 0; q < 35; ++q) {
    CHECK(mixprec::detail::bit_cast<std::uint32_t>(r1[q]) == mixprec::detail::bit_cast<std::uint32_t>(r3[q]));
    CHECK(mixprec::detail::bit_cast<std::uint32_t>(r2[q]) == mixprec::detail::bit_cast<std::uint32_t>(r3[q]));
    CHECK((mixprec::detail::bit_cast<std::uint32_t>(r1[q]) & 0x3FFu) == 0u);  // 13 fraction bits
  }
}
