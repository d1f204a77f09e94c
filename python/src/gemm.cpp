// SPDX-License-Identifier: MIT
// gemm.cpp (python/src) — mixprec._core's gemm functions (kernels/gemm.hpp); its own translation unit
// so the extension's three parts compile in parallel.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "block_scaling.hpp"

#include <mixprec/format_names.hpp>
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

/// C = A B through a tensor-core preset (kernels/tensor_core.hpp): a and b hold values of the
/// operand format `fmt` ("float16", "bfloat16", "tf32", "float8_e4m3fn", "float8_e5m2", the FNUZ FP8 of
/// the CDNA3 preset, the FP6 and FP4 of kind::f8f6f4; "float32":
/// float operands, truncated to tf32 by the tf32 presets); C starts at +0. Returns float32 (an f16
/// preset's outputs are float16 values). Bad names or a format the preset does not take:
/// std::invalid_argument naming what is allowed, nothing computed.
template <class E>
void gemm_mma_as(const float* a, const float* b, std::size_t m, std::size_t n, std::size_t k, float* c,
                 mixprec::mma_preset p, unsigned threads) {
  std::vector<E> ea(a, a + m * k), eb(b, b + k * n);  // exact: the wrapper rounded them to the format
  mixprec::gemm_options o;
  o.mma = p;
  const auto none = mixprec::transpose::none;
  if (threads == 1) {
    mixprec::gemm(mixprec::exec::seq, none, none, m, n, k, 1.0f, ea.data(), k, eb.data(), n, 0.0f, c, n, o);
  } else {
    mixprec::gemm(mixprec::exec::par(threads), none, none, m, n, k, 1.0f, ea.data(), k, eb.data(), n, 0.0f, c, n, o);
  }
}

nb::object gemm_mma(nb::ndarray<const float, nb::ndim<2>, nb::c_contig, nb::device::cpu> a,
                    nb::ndarray<const float, nb::ndim<2>, nb::c_contig, nb::device::cpu> b, const std::string& fmt_in,
                    const std::string& preset, unsigned threads) {
  const mixprec::mma_preset p = mixprec::mma_preset_from_name(preset);
  if (p == mixprec::mma_preset::none) throw std::invalid_argument("gemm: mma='none' is not a preset; the presets: " + mixprec::mma_preset_names());
  const std::size_t m = a.shape(0), k = a.shape(1), n = b.shape(1);
  if (b.shape(0) != k) {
    throw std::invalid_argument("gemm: a is " + std::to_string(m) + " x " + std::to_string(k) + ", b is " +
                                std::to_string(b.shape(0)) + " x " + std::to_string(n) + " (inner sizes differ)");
  }
  float* c = new float[m * n == 0 ? 1 : m * n];
  try {
    nb::gil_scoped_release release;
    const float* pa = a.data();
    const float* pb = b.data();
    const std::string_view canon = mixprec::canonical_format_name(fmt_in);
    const std::string fmt = canon.empty() ? fmt_in : std::string(canon);
    if (fmt == "float16") gemm_mma_as<mixprec::half>(pa, pb, m, n, k, c, p, threads);
    else if (fmt == "bfloat16") gemm_mma_as<mixprec::bfloat16>(pa, pb, m, n, k, c, p, threads);
    else if (fmt == "tf32") gemm_mma_as<mixprec::tf32>(pa, pb, m, n, k, c, p, threads);
    else if (fmt == "float32") gemm_mma_as<float>(pa, pb, m, n, k, c, p, threads);
    else if (fmt == "float8_e4m3fn") gemm_mma_as<mixprec::float8_e4m3fn>(pa, pb, m, n, k, c, p, threads);
    else if (fmt == "float8_e5m2") gemm_mma_as<mixprec::float8_e5m2>(pa, pb, m, n, k, c, p, threads);
    else if (fmt == "float8_e4m3fnuz") gemm_mma_as<mixprec::float8_e4m3fnuz>(pa, pb, m, n, k, c, p, threads);
    else if (fmt == "float8_e5m2fnuz") gemm_mma_as<mixprec::float8_e5m2fnuz>(pa, pb, m, n, k, c, p, threads);
    else if (fmt == "float6_e2m3fn") gemm_mma_as<mixprec::float6_e2m3fn>(pa, pb, m, n, k, c, p, threads);
    else if (fmt == "float6_e3m2fn") gemm_mma_as<mixprec::float6_e3m2fn>(pa, pb, m, n, k, c, p, threads);
    else if (fmt == "float4_e2m1fn") gemm_mma_as<mixprec::float4_e2m1fn>(pa, pb, m, n, k, c, p, threads);
    else {
      const mixprec::mma_model& md = mixprec::mma_model_of(p);
      throw std::invalid_argument("gemm: mma='" + preset + "' takes format " + mixprec::detail::mma_operand_names(md.operands) +
                                  "; got format " + fmt);
    }
  } catch (...) {
    delete[] c;
    throw;
  }
  nb::capsule owner(c, [](void* q) noexcept { delete[] static_cast<float*>(q); });
  return nb::cast(nb::ndarray<nb::numpy, float, nb::ndim<2>>(c, {m, n}, owner));
}

/// mixprec::block_scaled_gemm with block_accumulator::tensor_core(preset) of two quantized operands
/// (the arguments of block_scaling.hpp's block_gemm): the preset checked against the element, scale
/// and K-block layout by the C++ (std::invalid_argument naming what is allowed, nothing returned).
nb::object block_gemm_mma(mixprec_py::array2d a_elements, mixprec_py::array2d a_scales, double a_tensor_scale,
                          const std::string& a_name, const nb::dict& a_params, mixprec_py::array2d b_elements,
                          mixprec_py::array2d b_scales, double b_tensor_scale, const std::string& b_name,
                          const nb::dict& b_params, const std::string& preset, std::size_t promotion, double a_global,
                          double b_global) {
  const mixprec::mma_preset p = mixprec::mma_preset_from_name(preset);
  if (p == mixprec::mma_preset::none) {
    throw std::invalid_argument("block_scaled_gemm: 'none' is not a tensor-core preset; the presets: " + mixprec::mma_preset_names());
  }
  mixprec::block_gemm_options o;
  o.acc = mixprec::block_accumulator::tensor_core(p);
  o.promotion = promotion;
  nb::object result;
  mixprec_py::with_recipe(a_name, a_params, [&](const auto& ra) {
    const auto ta = mixprec_py::make_tensor(ra, a_elements, a_scales, a_tensor_scale);
    mixprec_py::with_recipe(b_name, b_params, [&](const auto& rb) {
      const auto tb = mixprec_py::make_tensor(rb, b_elements, b_scales, b_tensor_scale);
      std::vector<float> c;
      {
        nb::gil_scoped_release release;
        c = mixprec::block_scaled_gemm(ta, tb, o, static_cast<float>(a_global), static_cast<float>(b_global));
      }
      result = mixprec_py::float_matrix(std::move(c), ta.rows, tb.cols);
    });
  });
  return result;
}

}  // namespace

namespace mixprec_py {
void bind_gemm(nb::module_& m) {
  m.def("gemm_f32", &gemm_run<float, float>);
  m.def("gemm_f64", &gemm_run<double, double>);
  m.def("gemm_bf16_dot2", &gemm_run<float, std::uint16_t>);
  m.def("gemm_mma", &gemm_mma);
  m.def("block_gemm_mma", &block_gemm_mma);
  m.def("mma_preset_names", [] { return mixprec::mma_preset_names(); });
}
}  // namespace mixprec_py
