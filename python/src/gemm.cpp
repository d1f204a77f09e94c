// SPDX-License-Identifier: MIT
// gemm.cpp (python/src) — mixprec._core's gemm functions (kernels/gemm.hpp); its own translation unit
// so the extension's three parts compile in parallel.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <mixprec/kernels/gemm.hpp>
#include <mixprec/matmul_precision.hpp>
#include <mixprec/mixprec.hpp>

namespace nb = nanobind;

namespace {

/// C = A B (row-major, C order) in accumulate type Acc with mixprec::gemm's exact algorithm (or
/// bf16_dot2 for bfloat16 codes): one fma per k step in k order, on every thread count.
/// precision / high_mode: mixprec::matmul_precision and matmul_high_mode as ints, set process-wide
/// for the call (under a lock, so concurrent Python threads do not see each other's setting) and
/// restored after it.
template <class Acc, class T>
nb::object gemm_run(nb::ndarray<const T, nb::ndim<2>, nb::c_contig, nb::device::cpu> a,
                    nb::ndarray<const T, nb::ndim<2>, nb::c_contig, nb::device::cpu> b, unsigned threads,
                    int precision, int high_mode) {
  const auto prec = static_cast<mixprec::matmul_precision>(precision);
  const auto hm = static_cast<mixprec::matmul_high_mode>(high_mode);
  if (!mixprec::is_valid(prec) || !mixprec::is_valid(hm)) throw std::invalid_argument("invalid matmul precision");
  const std::size_t m = a.shape(0), k = a.shape(1), n = b.shape(1);
  if (b.shape(0) != k) {
    throw std::invalid_argument("gemm: a is " + std::to_string(m) + " x " + std::to_string(k) + ", b is " +
                                std::to_string(b.shape(0)) + " x " + std::to_string(n) + " (inner sizes differ)");
  }
  Acc* c = new Acc[m * n == 0 ? 1 : m * n];
  try {
    nb::gil_scoped_release release;
    static std::mutex lock;
    const std::lock_guard<std::mutex> hold(lock);
    struct restore {
      mixprec::matmul_precision p = mixprec::float32_matmul_precision();
      mixprec::matmul_high_mode m = mixprec::float32_matmul_high_mode();
      ~restore() {
        mixprec::set_float32_matmul_precision(p);
        mixprec::set_float32_matmul_high_mode(m);
      }
    } restore_after;
    mixprec::set_float32_matmul_precision(prec);
    mixprec::set_float32_matmul_high_mode(hm);
    mixprec::gemm_options o;
    using E = std::conditional_t<std::is_same<T, std::uint16_t>::value, mixprec::bfloat16, T>;
    if (std::is_same<T, std::uint16_t>::value) o.algorithm = mixprec::gemm_algorithm::bf16_dot2;
    const E* pa = reinterpret_cast<const E*>(a.data());
    const E* pb = reinterpret_cast<const E*>(b.data());
    const auto none = mixprec::transpose::none;
    if (threads == 1) {
      mixprec::gemm<Acc>(mixprec::exec::seq, none, none, m, n, k, Acc{1}, pa, k, pb, n, Acc{0}, c, n, o);
    } else {
      mixprec::gemm<Acc>(mixprec::exec::par(threads), none, none, m, n, k, Acc{1}, pa, k, pb, n, Acc{0}, c, n, o);
    }
  } catch (...) {
    delete[] c;
    throw;
  }
  nb::capsule owner(c, [](void* p) noexcept { delete[] static_cast<Acc*>(p); });
  return nb::cast(nb::ndarray<nb::numpy, Acc, nb::ndim<2>>(c, {m, n}, owner));
}

}  // namespace

namespace mixprec_py {
void bind_gemm(nb::module_& m) {
  m.def("gemm_f32", &gemm_run<float, float>);
  m.def("gemm_f64", &gemm_run<double, double>);
  m.def("gemm_bf16_dot2", &gemm_run<float, std::uint16_t>);
}
}  // namespace mixprec_py
