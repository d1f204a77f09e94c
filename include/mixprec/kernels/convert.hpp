// SPDX-License-Identifier: MIT
// mixprec/kernels/convert.hpp — bulk conversion between any two floating types.
//
//   mixprec::convert(policy, src, dst, rounding = nearest_even, overflow = ieee, seed = 0, offset = 0,
//                    generator = rng_kind::splitmix64);
//
// Contract: dst[i] = round_to<D>(src[i], mode, policy), one rounding from the exact value, with
// stochastic bits counter_rng(seed)(offset + i) (or philox_rng), so the result does not depend on
// the policy, the thread count, the device or the SIMD path; bad sizes or arguments throw
// std::invalid_argument with nothing written. Arguments, errors and the x86 paths:
// docs/pages/kernels-reference.md ("Bulk conversion: the SIMD layer").
//
//   std::vector<float> x(n);  std::vector<mixprec::bfloat16> y(n);
//   mixprec::convert(mixprec::exec::par, x, y);  // y[i] = bfloat16(x[i]), nearest even
#ifndef MIXPREC_KERNELS_CONVERT_HPP
#define MIXPREC_KERNELS_CONVERT_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/kernels/convert.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "detail/simd_convert.hpp"
#include "detail/simd_narrow8.hpp"
#include "../core/detail/spans.hpp"
#include "exec.hpp"
#include "../core/random.hpp"
#include "../core/round_to.hpp"
#include "../simd/decode.hpp"
#include "../simd/encode.hpp"

namespace mixprec {
namespace detail {

/// One element of a conversion.
template <class D, class S>
MIXPREC_HD constexpr D convert_element(S x, rounding mode, overflow policy, const sr_rng& rng,
                                       std::uint64_t counter) noexcept {
  return round_to<D>(x, mode, policy, mode == rounding::stochastic ? rng(counter) : 0u);
}

#if defined(__CUDA_ARCH__)
/// float -> half / bfloat16, nearest even, overflow to infinity, on the device: the hardware's
/// cvt.rn (the same bits as round_to for every non-NaN float, tests/cuda/test_cuda_kernels.cu); a
/// NaN takes round_to, which keeps the top of its payload where cvt gives the canonical NaN.
template <class D>
__device__ inline bool device_narrow_rn(float x, D& out) noexcept {
  unsigned short u = 0;
  if constexpr (std::is_same<D, half>::value) {
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(u) : "f"(x));
    out = D::from_bits(u);
    return x == x;
  } else {
#if __CUDA_ARCH__ >= 800
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(u) : "f"(x));
    out = D::from_bits(u);
    return x == x;
#else
    (void)x;
    (void)out;
    (void)u;
    return false;
#endif
  }
}

/// half -> float on the device: cvt.f32.f16, exact for every non-NaN half (NaN: round_to).
__device__ inline bool device_widen(half x, float& out) noexcept {
  float f = 0;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(static_cast<unsigned short>(x.bits())));
  out = f;
  return f == f;
}
#endif

/// The generic kernels of simd/encode.hpp (float -> formats of at most 16 bits and tf32, every mode and
/// policy, either generator), detail::encode_doubles (double -> the same and e8m0, every mode and
/// policy, either generator) and simd/decode.hpp (one-byte formats -> float) at a level's width (avx512 levels:
/// vec512, avx2: vec256); false (nothing written): not compiled in, or a case they do not cover.
template <class S, class D>
inline bool simd_convert_modes_at(simd_level level, const S* s, D* d, std::size_t n, rounding mode, overflow policy,
                                  const sr_rng& rng, std::uint64_t counter) noexcept {
#if defined(MIXPREC_SIMD_AVX2) || defined(MIXPREC_SIMD_AVX512)
  if (!simd_level_compiled(level)) return false;
  const std::uint64_t key = rng.kind() == rng_kind::philox4x32_10 ? rng.seed() : rng.splitmix().key();
  const auto run = [&](auto v) noexcept -> bool {
    using V = decltype(v);
    if constexpr (std::is_same<S, float>::value && is_mixprec_float<D>::value) {
      using F = typename D::format_type;
      using Out = std::conditional_t<sizeof(D) == 1, std::uint8_t,
                                     std::conditional_t<sizeof(D) == 2, std::uint16_t, std::uint32_t>>;
      if constexpr (sizeof(D) <= 4 && (simd::encode_format<F>::supported || simd::e8m0_format<F>::supported)) {
        return simd::encode_floats<V, F>(s, reinterpret_cast<Out*>(d), n, mode, policy, key, counter, rng.kind());
      } else {
        return false;
      }
    } else if constexpr (std::is_same<S, double>::value && is_mixprec_float<D>::value) {
      using F = typename D::format_type;
      using Out = std::conditional_t<sizeof(D) == 1, std::uint8_t,
                                     std::conditional_t<sizeof(D) == 2, std::uint16_t, std::uint32_t>>;
      if constexpr (sizeof(D) <= 4 && double_encode_traits<F>::supported) {
        return encode_doubles<V, F>(s, reinterpret_cast<Out*>(d), n, mode, policy, key, counter, rng.kind());
      } else {
        return false;
      }
    } else if constexpr (is_mixprec_float<S>::value && std::is_same<D, float>::value) {
      using F = typename S::format_type;
      if constexpr (sizeof(S) == 1 && (simd::decode_format<F>::supported || simd::lookup_format<F>::supported ||
                                       simd::table_format<F>::supported)) {
        return simd::decode_bytes<V, F>(reinterpret_cast<const std::uint8_t*>(s), d, n);
      } else {
        return false;
      }
    } else {
      return false;
    }
  };
  switch (level) {
#if defined(MIXPREC_SIMD_AVX512)
    case simd_level::avx512_bf16:
    case simd_level::avx512: return run(simd::vec512{});
#endif
#if defined(MIXPREC_SIMD_AVX2)
    case simd_level::avx2: return run(simd::vec256{});
#endif
    default: return false;
  }
#else
  (void)level, (void)s, (void)d, (void)n, (void)mode, (void)policy, (void)rng, (void)counter;
  return false;
#endif
}

template <class S, class D>
struct convert_body {
  const S* src;
  D* dst;
  rounding mode;
  overflow policy;
  sr_rng rng;
  std::uint64_t offset;
  bool stream;  ///< large arrays: the fast path writes with non-temporal stores

  MIXPREC_HD void operator()(std::size_t begin, std::size_t end) const noexcept {
#if !defined(__CUDA_ARCH__)
    if constexpr (std::is_same<S, double>::value && is_mixprec_float<D>::value) {
      if constexpr (narrow8_traits<typename D::format_type>::supported) {
        // one byte: the buffered encoder (every mode; not under FTZ/DAZ), else simd_narrow8's fused form
        if (simd_convert_modes_at(simd_best_level, src + begin, dst + begin, end - begin, mode, policy, rng,
                                  offset + begin)) {
          return;
        }
        if (mode == rounding::nearest_even && simd_narrow8(src + begin, dst + begin, end - begin, policy)) return;
      }
    }
    if (mode == rounding::nearest_even && policy == overflow::ieee &&
        (stream ? simd_convert_streamed(src + begin, dst + begin, end - begin)
                : simd_convert(src + begin, dst + begin, end - begin))) {
      return;
    }
    if (simd_convert_modes_at(simd_best_level, src + begin, dst + begin, end - begin, mode, policy, rng, offset + begin)) {
      return;
    }
#else
    if (device_fast(begin, end)) return;
#endif
    for (std::size_t i = begin; i < end; ++i) {
      dst[i] = convert_element<D>(src[i], mode, policy, rng, offset + i);
    }
  }

#if defined(__CUDA_ARCH__)
  /// The device's hardware conversions, where they give round_to's bits; false: not handled.
  __device__ bool device_fast(std::size_t begin, std::size_t end) const noexcept {
    if constexpr (std::is_same<S, float>::value && (std::is_same<D, half>::value || std::is_same<D, bfloat16>::value)) {
      if (mode != rounding::nearest_even || policy != overflow::ieee) return false;
      for (std::size_t i = begin; i < end; ++i) {
        if (!device_narrow_rn(src[i], dst[i])) dst[i] = convert_element<D>(src[i], mode, policy, rng, offset + i);
      }
      return true;
    } else if constexpr (std::is_same<S, half>::value && std::is_same<D, float>::value) {
      for (std::size_t i = begin; i < end; ++i) {
        if (!device_widen(src[i], dst[i])) dst[i] = convert_element<D>(src[i], mode, policy, rng, offset + i);
      }
      return true;
    } else {
      (void)begin;
      (void)end;
      return false;
    }
  }
#endif
};

template <class T>
struct is_convertible_float
    : std::integral_constant<bool, std::is_same<T, float>::value || std::is_same<T, double>::value ||
                                       is_mixprec_float<T>::value> {};

}  // namespace detail

/// dst[i] = round_to<D>(src[i], mode, policy) for every i (see the top of this header).
template <class Policy, class Src, class Dst>
void convert(Policy policy, Src&& src, Dst&& dst, rounding mode = rounding::nearest_even,
             overflow ovf = overflow::ieee, std::uint64_t seed = 0, std::uint64_t offset = 0,
             rng_kind generator = rng_kind::splitmix64) {
  static_assert(exec::is_execution_policy<Policy>::value, "mixprec::convert: the first argument is an execution policy");
  const auto s = detail::as_span(src);
  const auto d = detail::as_span(dst);
  using S = std::remove_const_t<typename decltype(s)::element_type>;
  using D = typename decltype(d)::element_type;
  static_assert(!std::is_const<D>::value, "mixprec::convert: the destination is const");
  static_assert(detail::is_convertible_float<S>::value && detail::is_convertible_float<D>::value,
                "mixprec::convert: float, double or mixprec types only");
  if (!is_valid(mode)) throw std::invalid_argument("mixprec::convert: invalid rounding value");
  if (!is_valid(ovf)) throw std::invalid_argument("mixprec::convert: invalid overflow value");
  if (!is_valid(generator)) {
    throw std::invalid_argument("mixprec::convert: invalid rng_kind value (splitmix64 or philox4x32_10)");
  }
  if (s.size() != d.size()) {
    throw std::invalid_argument("mixprec::convert: source has " + std::to_string(s.size()) +
                                " elements, destination " + std::to_string(d.size()));
  }
  const bool stream = s.size() * (sizeof(S) + sizeof(D)) >= detail::simd_stream_min_bytes;
  detail::for_each_range(policy, s.size(),
                         detail::convert_body<S, D>{s.data(), d.data(), mode, ovf, sr_rng(generator, seed), offset, stream});
}

}  // namespace mixprec

#endif  // MIXPREC_KERNELS_CONVERT_HPP
