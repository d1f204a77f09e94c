// SPDX-License-Identifier: MIT
// gemm_algorithm::exact on the vdpbf16ps kernel (include/mixprec/kernels/gemm.hpp,
// detail::gemm::dot2_auto; docs/pages/kernels-reference.md, "exact on vdpbf16ps"): with the path
// forced on (detail::gemm::dot2_mode() = 1), every result equals a naive fma loop written here
// from the documented exact semantics (sequential k, std::fma in float, mixprec::round_to), bit for
// bit (NaN with NaN), and the kernel that ran is asserted through detail::gemm::dot2_runs(): taken
// where the proof holds (no subnormal input, EA + EB >= 142), not taken where it fails — with
// inputs for which vdpbf16ps's DAZ/FTZ WOULD change the bits, so a weakened condition fails here.
// Built without AVX-512-BF16 the same comparisons run (nothing is taken).
#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <mixprec/kernels/gemm.hpp>
#include <mixprec/types.hpp>

using mixprec::bfloat16;
using mixprec::float8_e4m3fn;
using mixprec::float8_e5m2;
using mixprec::half;
using mixprec::layout;
using mixprec::matmul_high_mode;
using mixprec::matmul_precision;
using mixprec::transpose;
namespace exec = mixprec::exec;

namespace {

/// Forces the path (1 on, 2 off) and restores the setting and the matmul precision.
struct mode_guard {
#if defined(MIXPREC_GEMM_AVX512BF16)
  int saved = mixprec::detail::gemm::dot2_mode().load();
#endif
  matmul_precision p = mixprec::float32_matmul_precision();
  matmul_high_mode h = mixprec::float32_matmul_high_mode();
  explicit mode_guard(int mode) { set(mode); }
  static void set([[maybe_unused]] int mode) {
#if defined(MIXPREC_GEMM_AVX512BF16)
    mixprec::detail::gemm::dot2_mode().store(mode);
#endif
  }
  mode_guard(const mode_guard&) = delete;
  mode_guard& operator=(const mode_guard&) = delete;
  ~mode_guard() {
#if defined(MIXPREC_GEMM_AVX512BF16)
    mixprec::detail::gemm::dot2_mode().store(saved);
#endif
    mixprec::set_float32_matmul_precision(p);
    mixprec::set_float32_matmul_high_mode(h);
  }
};

std::size_t runs() {
#if defined(MIXPREC_GEMM_AVX512BF16)
  return mixprec::detail::gemm::dot2_runs().load();
#else
  return 0;
#endif
}
#if defined(MIXPREC_GEMM_AVX512BF16)
constexpr bool have_dot2 = true;
#else
constexpr bool have_dot2 = false;
#endif

template <class T>
T from_f(float x) {
  if constexpr (std::is_same<T, float>::value) {
    return x;
  } else {
    return mixprec::round_to<T>(x);
  }
}
template <class T>
bool same(T x, T y) {
  const double dx = static_cast<double>(x), dy = static_cast<double>(y);
  if (std::isnan(dx) || std::isnan(dy)) return std::isnan(dx) && std::isnan(dy);
  return std::memcmp(&x, &y, sizeof(T)) == 0;
}

/// A float operand under the current float32_matmul_precision, as the documented semantics reads it.
template <class T>
float ref_in(T x) {
  if constexpr (std::is_same<T, float>::value) {
    switch (mixprec::float32_matmul_precision()) {
      case matmul_precision::medium: return static_cast<float>(mixprec::round_to<bfloat16>(x));
      case matmul_precision::high:
        return static_cast<float>(mixprec::round_to<mixprec::tf32>(
            x, mixprec::float32_matmul_high_mode() == matmul_high_mode::tf32_nearest_even
                   ? mixprec::rounding::nearest_even
                   : mixprec::rounding::nearest_away));
      default: return x;
    }
  } else {
    return static_cast<float>(x);
  }
}

/// One problem: op(A) is m x k given row by row in a (i*k + p), op(B) k x n in b (p*n + j); stored
/// as op / layout ask, C0 as the initial C. Runs gemm and the naive loop, compares every element,
/// and checks whether the vdpbf16ps path ran (`taken`).
template <class TA, class TB, class TC>
void check(std::size_t m, std::size_t n, std::size_t k, const std::vector<TA>& a, const std::vector<TB>& b,
           float alpha, float beta, transpose oa, transpose ob, layout order, unsigned threads, bool taken) {
  // taken: whether the vdpbf16ps path must run (where the build has it).
  const bool rm = order == layout::row_major, ta = oa == transpose::trans, tb = ob == transpose::trans;
  // Stored: A (m x k or k x m), B (k x n or n x k), C m x n; leading dimension + 3 (padding).
  const std::size_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
  const std::size_t lda = (rm ? ac : ar) + 3, ldb = (rm ? bc : br) + 3, ldc = (rm ? n : m) + 3;
  auto at = [rm](std::size_t r, std::size_t c, std::size_t ld) { return rm ? r * ld + c : c * ld + r; };
  std::vector<TA> A((rm ? ar : ac) * lda, from_f<TA>(7.0f));
  std::vector<TB> B((rm ? br : bc) * ldb, from_f<TB>(7.0f));
  std::vector<TC> C((rm ? m : n) * ldc, from_f<TC>(3.0f));
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t p = 0; p < k; ++p) A[ta ? at(p, i, lda) : at(i, p, lda)] = a[i * k + p];
  }
  for (std::size_t p = 0; p < k; ++p) {
    for (std::size_t j = 0; j < n; ++j) B[tb ? at(j, p, ldb) : at(p, j, ldb)] = b[p * n + j];
  }
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) C[at(i, j, ldc)] = from_f<TC>(static_cast<float>((i * 7 + j * 3) % 11) - 5.0f);
  }
  std::vector<TC> want = C;
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (std::size_t p = 0; p < k; ++p) acc = std::fma(ref_in(a[i * k + p]), ref_in(b[p * n + j]), acc);
      float r = alpha * acc;
      TC& w = want[at(i, j, ldc)];
      if (beta != 0.0f) r = std::fma(beta, static_cast<float>(w), r);
      if constexpr (std::is_same<TC, float>::value) {
        w = r;
      } else {
        w = mixprec::round_to<TC>(r);
      }
    }
  }
  const std::size_t before = runs();
  mixprec::gemm_options o;
  o.order = order;
  mixprec::gemm(exec::par(threads), oa, ob, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, C.data(), ldc, o);
  const std::size_t ran = runs() - before;
  std::size_t bad = 0;
  for (std::size_t e = 0; e < C.size(); ++e) bad += same(C[e], want[e]) ? 0 : 1;
  INFO("m=" << m << " n=" << n << " k=" << k << " op_a=" << ta << " op_b=" << tb << " col_major=" << !rm
            << " threads=" << threads);
  CHECK(bad == 0);
  CHECK(ran == (have_dot2 && taken ? 1u : 0u));
}

/// Random bfloat16 values (as T): N(0,1) times 2^[-3, 3], rounded to bfloat16.
template <class T>
std::vector<T> random_bf16(std::size_t count, std::uint32_t seed) {
  std::mt19937 g(seed);
  std::normal_distribution<float> d;
  std::uniform_int_distribution<int> e(-3, 3);
  std::vector<T> v(count);
  for (T& x : v) x = from_f<T>(static_cast<float>(mixprec::round_to<bfloat16>(std::ldexp(d(g), e(g)))));
  return v;
}

/// x = mant * 2^(E - 134): a bfloat16 with biased exponent E for mant in [128, 255].
float bf(int mant, int biased_exp) { return std::ldexp(static_cast<float>(mant), biased_exp - 134); }

}  // namespace

TEST_CASE("gemm exact on vdpbf16ps: random bfloat16 operands, every C type, transpose, layout, odd k, threads") {
  mode_guard guard(1);
  const std::size_t shapes[][3] = {{19, 37, 33}, {30, 9, 20}, {1, 40, 7}, {29, 67, 1}};
  for (const auto& s : shapes) {
    const std::size_t m = s[0], n = s[1], k = s[2];
    const auto a = random_bf16<bfloat16>(m * k, 1), b = random_bf16<bfloat16>(k * n, 2);
    for (transpose oa : {transpose::none, transpose::trans}) {
      for (transpose ob : {transpose::none, transpose::trans}) {
        for (layout order : {layout::row_major, layout::col_major}) {
          for (unsigned t : {1u, 2u}) {
            check<bfloat16, bfloat16, float>(m, n, k, a, b, 1.0f, 0.0f, oa, ob, order, t, true);
          }
          check<bfloat16, bfloat16, bfloat16>(m, n, k, a, b, 0.75f, 0.5f, oa, ob, order, 2, true);
        }
      }
    }
    check<bfloat16, bfloat16, half>(m, n, k, a, b, -1.5f, 0.0f, transpose::none, transpose::none, layout::row_major, 1, true);
    check<bfloat16, bfloat16, half>(m, n, k, a, b, 1.0f, 2.0f, transpose::trans, transpose::none, layout::row_major, 2, true);
    check<bfloat16, bfloat16, double>(m, n, k, a, b, 1.0f, -1.0f, transpose::none, transpose::trans, layout::row_major, 1, true);
    check<bfloat16, bfloat16, float8_e4m3fn>(m, n, k, a, b, 0.25f, 0.0f, transpose::none, transpose::none, layout::col_major, 2, true);
    check<bfloat16, bfloat16, float>(m, n, k, a, b, 1.0f, 1.0f, transpose::none, transpose::none, layout::row_major, 2, true);
  }
}

TEST_CASE("gemm exact on vdpbf16ps: the exponent bound EA + EB >= 142 at 141, 142, 143") {
  mode_guard guard(1);
  // 129*129 - 128*130 = 1: the sum is exactly 2^(EA + EB - 268), a float subnormal (2^-127) at
  // EA + EB = 141, where vdpbf16ps would flush it to zero; 2^-126 and 2^-125 above.
  for (int sum : {141, 142, 143}) {
    const int ea = sum / 2, eb = sum - ea;
    const std::vector<float> a = {bf(129, ea), -bf(128, ea), bf(200, ea + 3)};
    const std::vector<float> b = {bf(129, eb), bf(130, eb), 0.0f};  // (the third product is 0)
    const std::vector<bfloat16> ab = {bfloat16(a[0]), bfloat16(a[1]), bfloat16(a[2])};
    const std::vector<bfloat16> bb = {bfloat16(b[0]), bfloat16(b[1]), bfloat16(b[2])};
    for (std::size_t k : {2u, 3u}) {
      const std::vector<bfloat16> ak(ab.begin(), ab.begin() + static_cast<std::ptrdiff_t>(k));
      const std::vector<bfloat16> bk(bb.begin(), bb.begin() + static_cast<std::ptrdiff_t>(k));
      check<bfloat16, bfloat16, float>(1, 1, k, ak, bk, 1.0f, 0.0f, transpose::none, transpose::none, layout::row_major, 1,
                                       sum >= 142);
      check<bfloat16, bfloat16, float>(1, 1, k, ak, bk, 1.0f, 0.0f, transpose::trans, transpose::trans, layout::col_major, 1,
                                       sum >= 142);
    }
    float c = -1.0f;
    mixprec::gemm(exec::seq, transpose::none, transpose::none, 1, 1, 2, 1.0f, ab.data(), 2, bb.data(), 1, 0.0f, &c, 1);
    CHECK(c == std::ldexp(1.0f, sum - 268));  // exact's value, not vdpbf16ps's 0
  }
  // A sum in [2^-126 - 2^-150, 2^-126): 2^-126 - 2^-150 rounds (ties to even) to 2^-126 in exact;
  // vdpbf16ps finds it tiny (before rounding to the subnormal grid) and gives 0. EA + EB = 104.
  const std::vector<bfloat16> a = {bfloat16(0x1p-63f), bfloat16(-0x1p-75f)}, b = {bfloat16(0x1p-63f), bfloat16(0x1p-75f)};
  check<bfloat16, bfloat16, float>(1, 1, 2, a, b, 1.0f, 0.0f, transpose::none, transpose::none, layout::row_major, 1, false);
  // The same in the middle of a 16 x 40 problem: one tiny element among normal ones.
  std::vector<bfloat16> A = random_bf16<bfloat16>(16 * 2, 3), B = random_bf16<bfloat16>(2 * 40, 4);
  A[5 * 2] = a[0];
  A[5 * 2 + 1] = a[1];
  B[7] = b[0];
  B[40 + 7] = b[1];
  check<bfloat16, bfloat16, float>(16, 40, 2, A, B, 1.0f, 0.0f, transpose::none, transpose::none, layout::row_major, 2, false);
}

TEST_CASE("gemm exact on vdpbf16ps: subnormal inputs are never taken") {
  mode_guard guard(1);
  // B's values are >= 2^15 (biased exponent >= 142): EA + EB >= 142 even with A's subnormal
  // counted as exponent 0, so only the subnormal check keeps vdpbf16ps (which would read 0) away.
  for (float sub : {0x1p-130f, -0x1p-133f, 0x1.fcp-127f}) {
    std::vector<bfloat16> a = random_bf16<bfloat16>(5 * 9, 5), b(9 * 33);
    for (std::size_t e = 0; e < b.size(); ++e) b[e] = bfloat16(std::ldexp(1.0f + static_cast<float>(e % 8) / 8, 15 + static_cast<int>(e % 3)));
    for (std::size_t p = 0; p < 9; ++p) a[4 * 9 + p] = bfloat16(p == 8 ? sub : 0.0f);  // row 4: only the subnormal
    check<bfloat16, bfloat16, float>(5, 33, 9, a, b, 1.0f, 0.0f, transpose::none, transpose::none, layout::row_major, 1, false);
    check<bfloat16, bfloat16, float>(33, 5, 9, [&] {  // the subnormal in B
      std::vector<bfloat16> bt(33 * 9);
      for (std::size_t i = 0; i < 33; ++i) {
        for (std::size_t p = 0; p < 9; ++p) bt[i * 9 + p] = b[p * 33 + i];
      }
      return bt;
    }(), [&] {
      std::vector<bfloat16> at(9 * 5);
      for (std::size_t p = 0; p < 9; ++p) {
        for (std::size_t j = 0; j < 5; ++j) at[p * 5 + j] = a[j * 9 + p];
      }
      return at;
    }(), 1.0f, 0.0f, transpose::trans, transpose::none, layout::row_major, 2, false);
  }
}

TEST_CASE("gemm exact on vdpbf16ps: infinities, NaN, zeros of both signs") {
  mode_guard guard(1);
  const float inf = INFINITY, nan = NAN;
  auto a = random_bf16<bfloat16>(7 * 11, 6), b = random_bf16<bfloat16>(11 * 20, 7);
  a[4] = bfloat16(inf);
  a[2 * 11 + 4] = bfloat16(-inf);
  a[5 * 11 + 10] = bfloat16(nan);
  b[4 * 20 + 3] = bfloat16(0.0f);  // inf * 0
  b[10 * 20 + 19] = bfloat16(-inf);
  check<bfloat16, bfloat16, float>(7, 20, 11, a, b, 1.0f, 0.0f, transpose::none, transpose::none, layout::row_major, 1, true);
  check<bfloat16, bfloat16, bfloat16>(7, 20, 11, a, b, 1.0f, 0.5f, transpose::trans, transpose::trans, layout::row_major, 2, true);
  // Only zeros (and infinities): nothing bounds the exponents, taken; -0 products, odd k: +0
  // sums (the odd k's padding pair adds -0 * +0), -0 after alpha = -1.
  for (std::size_t k : {1u, 4u, 5u}) {
    std::vector<bfloat16> za(3 * k, bfloat16(-0.0f)), zb(k * 17, bfloat16(2.0f));
    check<bfloat16, bfloat16, float>(3, 17, k, za, zb, 1.0f, 0.0f, transpose::none, transpose::none, layout::row_major, 1, true);
    check<bfloat16, bfloat16, float>(3, 17, k, za, zb, -1.0f, 0.0f, transpose::trans, transpose::none, layout::row_major, 1, true);
    check<bfloat16, bfloat16, half>(3, 17, k, za, zb, -1.0f, 0.0f, transpose::none, transpose::trans, layout::col_major, 2, true);
    za[0] = bfloat16(inf);
    check<bfloat16, bfloat16, float>(3, 17, k, za, zb, 1.0f, 0.0f, transpose::none, transpose::none, layout::row_major, 1, true);
  }
}

TEST_CASE("gemm exact on vdpbf16ps: float operands, bfloat16-exact or not, every float32 matmul precision") {
  mode_guard guard(1);
  const std::size_t m = 21, n = 35, k = 19;
  const auto a = random_bf16<float>(m * k, 8), b = random_bf16<float>(k * n, 9);
  const auto abf = random_bf16<bfloat16>(m * k, 8);
  auto not_exact = b;
  not_exact[k * n - 1] = std::nextafter(not_exact[k * n - 1], 10.0f);  // one float with low bits set
  for (matmul_precision p : {matmul_precision::highest, matmul_precision::high, matmul_precision::medium}) {
    mixprec::set_float32_matmul_precision(p);
    for (matmul_high_mode h : {matmul_high_mode::tf32_nearest_away, matmul_high_mode::tf32_nearest_even}) {
      mixprec::set_float32_matmul_high_mode(h);
      for (transpose oa : {transpose::none, transpose::trans}) {
        for (transpose ob : {transpose::none, transpose::trans}) {
          check<float, float, float>(m, n, k, a, b, 1.0f, 0.0f, oa, ob, layout::row_major, 2, true);
          // Mixed bfloat16 x float: not covered (A and B must have the same type).
          check<bfloat16, float, bfloat16>(m, n, k, abf, b, 1.0f, 0.5f, oa, ob, layout::col_major, 1, false);
          // "medium" rounds every float to bfloat16: then taken; otherwise the low bits fail the scan.
          check<float, float, float>(m, n, k, a, not_exact, 1.0f, 0.0f, oa, ob, layout::row_major, 1,
                                     p == matmul_precision::medium);
        }
      }
    }
  }
  mixprec::set_float32_matmul_precision(matmul_precision::medium);  // arbitrary floats, rounded
  std::mt19937 g(10);
  std::normal_distribution<float> d;
  std::vector<float> fa(m * k), fb(k * n);
  for (float& x : fa) x = d(g);
  for (float& x : fb) x = d(g);
  check<float, float, float>(m, n, k, fa, fb, 1.0f, 0.0f, transpose::none, transpose::trans, layout::row_major, 2, true);
  fa[7] = 0x1.0p-127f;  // rounds to a subnormal bfloat16: not taken
  check<float, float, float>(m, n, k, fa, fb, 1.0f, 0.0f, transpose::none, transpose::none, layout::row_major, 1, false);
  mixprec::set_float32_matmul_precision(matmul_precision::high);  // bf16x3: three fma per step, not this path
  mixprec::set_float32_matmul_high_mode(matmul_high_mode::bf16x3);
  check<float, float, float>(m, n, k, a, b, 1.0f, 0.0f, transpose::none, transpose::none, layout::row_major, 1, false);
}

TEST_CASE("gemm exact on vdpbf16ps: MIXPREC_GEMM_DOT2 values; off is never taken; auto gives the same bits") {
#if defined(MIXPREC_GEMM_AVX512BF16)
  std::string w;
  CHECK(mixprec::detail::gemm::dot2_parse(nullptr, w) == 0);
  CHECK(mixprec::detail::gemm::dot2_parse("auto", w) == 0);
  CHECK(mixprec::detail::gemm::dot2_parse("on", w) == 1);
  CHECK(mixprec::detail::gemm::dot2_parse("off", w) == 2);
  CHECK(w.empty());
  CHECK(mixprec::detail::gemm::dot2_parse("yes", w) == 0);
  CHECK(w.find("MIXPREC_GEMM_DOT2=\"yes\"") != std::string::npos);
#endif
  mode_guard guard(2);
  const auto a = random_bf16<bfloat16>(40 * 64, 11), b = random_bf16<bfloat16>(64 * 48, 12);
  check<bfloat16, bfloat16, float>(40, 48, 64, a, b, 1.0f, 0.0f, transpose::none, transpose::none, layout::row_major, 2, false);
  mode_guard::set(0);  // auto: taken when this CPU's vdpbf16ps tile is the faster (40*48*64 >= dot2_min)
#if defined(MIXPREC_GEMM_AVX512BF16)
  const bool prefers = mixprec::detail::gemm::dot2_cpu_prefers();
  const std::string what = std::string(prefers ? "this CPU prefers" : "this CPU does not prefer") + " the vdpbf16ps tile";
  MESSAGE(what);
#else
  const bool prefers = false;
#endif
  check<bfloat16, bfloat16, float>(40, 48, 64, a, b, 1.0f, 0.0f, transpose::none, transpose::none, layout::row_major, 2,
                                   prefers);
}

TEST_CASE("gemm exact on vdpbf16ps: FP8 operands (no scan: every FP8 value is a normal bfloat16), subnormal codes") {
  mode_guard guard(1);
  // Every code of each format, the subnormal ones (2^-9, 2^-16: still EA + EB >= 222), NaN and
  // (e5m2) infinities included.
  std::vector<float8_e4m3fn> a4(23 * 64);
  std::vector<float8_e5m2> a5(23 * 64);
  for (std::size_t e = 0; e < a4.size(); ++e) {
    a4[e] = float8_e4m3fn::from_bits(static_cast<std::uint8_t>((e * 37) % 256));
    a5[e] = float8_e5m2::from_bits(static_cast<std::uint8_t>((e * 53) % 256));
  }
  std::vector<float8_e4m3fn> b4(64 * 45);
  for (std::size_t e = 0; e < b4.size(); ++e) b4[e] = float8_e4m3fn::from_bits(static_cast<std::uint8_t>((e * 11 + 3) % 120));
  for (std::size_t k : {64u, 63u}) {
    for (transpose oa : {transpose::none, transpose::trans}) {
      check<float8_e4m3fn, float8_e4m3fn, float>(23, 45, k, a4, b4, 0.5f, 0.0f, oa, transpose::trans, layout::row_major, 2, true);
      check<float8_e5m2, float8_e4m3fn, float>(23, 45, k, a5, b4, 1.0f, 1.0f, oa, transpose::none, layout::col_major, 1, true);
      check<float8_e5m2, float8_e4m3fn, bfloat16>(23, 45, k, a5, b4, 1.0f, 0.0f, oa, transpose::trans, layout::row_major, 1, true);
    }
  }
  // k beyond the FP8 panel copier's 256-long chunks (odd: the padding pair in the last chunk).
  std::vector<float8_e5m2> l5(9 * 517);
  std::vector<float8_e4m3fn> l4(517 * 20);
  for (std::size_t e = 0; e < l5.size(); ++e) l5[e] = float8_e5m2::from_bits(static_cast<std::uint8_t>((e * 29 + 1) % 120));
  for (std::size_t e = 0; e < l4.size(); ++e) l4[e] = float8_e4m3fn::from_bits(static_cast<std::uint8_t>((e * 13 + 5) % 256));
  for (transpose oa : {transpose::none, transpose::trans}) {
    for (transpose ob : {transpose::none, transpose::trans}) {
      check<float8_e5m2, float8_e4m3fn, float>(9, 20, 517, l5, l4, 1.0f, 0.0f, oa, ob, layout::row_major, 2, true);
    }
  }
  // Only the subnormal codes: the smallest products (2^-16 * 2^-9) are far above 2^-126.
  std::vector<float8_e5m2> s5(5 * 7, float8_e5m2::from_bits(0x01));
  std::vector<float8_e4m3fn> s4(7 * 33, float8_e4m3fn::from_bits(0x81));
  check<float8_e5m2, float8_e4m3fn, float>(5, 33, 7, s5, s4, 1.0f, 0.0f, transpose::none, transpose::none, layout::row_major, 1, true);
  // FP8 x bfloat16: not covered.
  const auto bb = random_bf16<bfloat16>(64 * 45, 13);
  check<float8_e4m3fn, bfloat16, float>(23, 45, 64, a4, bb, 1.0f, 0.0f, transpose::none, transpose::none, layout::row_major, 1, false);
}
