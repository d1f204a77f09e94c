// SPDX-License-Identifier: MIT
// mixprec/kernels/detail/simd_convert.hpp — x86 fast paths of the bulk conversions (host only).
//
// simd_convert() runs the best simd_level compiled in (avx512_bf16, avx512, avx2 or portable, by
// the target macros; MIXPREC_NO_SIMD: portable only); simd_convert_at(level, ...) runs a given
// one and returns false where that level is not compiled in or does not take the pair. Only
// nearest-even with overflow::ieee comes here (kernels/convert.hpp). Contract: every level
// converts all n elements to the portable scalar path's bits, whatever the MXCSR rounding mode,
// DAZ or FTZ. The non-obvious steps are commented at their kernels below; each pair's method:
// docs/pages/kernels-reference.md ("Bulk conversion: the SIMD layer").
//   detail::simd_convert_at(detail::simd_level::avx2, src, dst, n);  // false: not compiled in
#ifndef MIXPREC_DETAIL_SIMD_CONVERT_HPP
#define MIXPREC_DETAIL_SIMD_CONVERT_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../../simd/encode.hpp"
#include "../../simd/vec_avx2.hpp"
#include "../../simd/vec_f16c.hpp"
#include "../../simd/vec_avx512.hpp"
#include "../../core/types.hpp"

#include "../../simd/isa.hpp"  // MIXPREC_SIMD_X86, MIXPREC_SIMD_AVX2, MIXPREC_SIMD_AVX512

namespace mixprec {
namespace detail {

/// The instruction-set levels of the bulk conversions (see the top of the header).
enum class simd_level : unsigned char { portable = 0, avx2 = 1, avx512 = 2, avx512_bf16 = 3 };

inline const char* simd_level_name(simd_level l) noexcept {
  switch (l) {
    case simd_level::avx2: return "avx2";
    case simd_level::avx512: return "avx512";
    case simd_level::avx512_bf16: return "avx512_bf16";
    default: return "portable";
  }
}

/// Whether a level is compiled in (portable always is).
constexpr bool simd_level_compiled(simd_level l) noexcept {
  return l == simd_level::portable
#if defined(MIXPREC_SIMD_X86)
         || l == simd_level::avx2
#endif
#if defined(MIXPREC_SIMD_AVX512)
         || l == simd_level::avx512
#if defined(MIXPREC_SIMD_AVX512_BF16)
         || l == simd_level::avx512_bf16
#endif
#endif
      ;
}

/// The level simd_convert() uses.
constexpr simd_level simd_best_level =
    simd_level_compiled(simd_level::avx512_bf16) ? simd_level::avx512_bf16
    : simd_level_compiled(simd_level::avx512)    ? simd_level::avx512
    : simd_level_compiled(simd_level::avx2)      ? simd_level::avx2
                                                 : simd_level::portable;

/// The names of the fast paths compiled in (for benchmarks and logs).
inline const char* simd_convert_paths() noexcept {
#if defined(MIXPREC_SIMD_AVX512_BF16) && defined(MIXPREC_SIMD_AVX512_FP16)
  return "avx512_bf16 (best; double->half by AVX-512-FP16 vcvtpd2ph), avx512, avx2: float<->half, float<->bfloat16, "
         "double->half, double->bfloat16, half->double";
#elif defined(MIXPREC_SIMD_AVX512_BF16)
  return "avx512_bf16 (best), avx512, avx2: float<->half, float<->bfloat16, double->half, double->bfloat16, half->double";
#elif defined(MIXPREC_SIMD_AVX512)
  return "avx512 (best), avx2: float<->half, float<->bfloat16, double->half, double->bfloat16, half->double";
#elif defined(MIXPREC_SIMD_AVX2)
  return "avx2: float<->half, float<->bfloat16, double->half, double->bfloat16, half->double";
#elif defined(MIXPREC_SIMD_X86)
  return "avx2 level without AVX2 (AVX + F16C): float<->half, half->double";
#else
  return "none (portable)";
#endif
}

#if defined(MIXPREC_SIMD_X86)
namespace simd_x86 {

constexpr int rne = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

/// The last n < W elements: through a zero-padded buffer of W, with the kernel of W elements.
template <std::size_t W, class S, class D, class K>
inline void tail_by_buffer(const S* s, D* d, std::size_t n, K kernel) noexcept {
  S in[W] = {};
  D out[W] = {};
  std::memcpy(in, s, n * sizeof(S));
  kernel(in, out);
  std::memcpy(d, out, n * sizeof(D));
}

inline std::uint16_t* bits_of(half* p) noexcept { return reinterpret_cast<std::uint16_t*>(p); }
inline std::uint16_t* bits_of(bfloat16* p) noexcept { return reinterpret_cast<std::uint16_t*>(p); }
inline const std::uint16_t* bits_of(const half* p) noexcept { return reinterpret_cast<const std::uint16_t*>(p); }
inline const std::uint16_t* bits_of(const bfloat16* p) noexcept {
  return reinterpret_cast<const std::uint16_t*>(p);
}

using simd::daz_on;         // MXCSR.DAZ
using simd::ftz_or_daz_on;  // either: the float step of double -> bfloat16 needs neither

#if !defined(MIXPREC_SIMD_AVX2)
using simd::vec_f16c;  // the avx2 level without AVX2 (AVX + F16C)
#endif

/// Memory access of one vector of V: every lane (whole) or the lanes of m (part: V's masked tails).
template <class V>
struct whole {
  static typename V::vi load(const void* p) noexcept { return V::load(p); }
  static typename V::vh h_load(const void* p) noexcept { return V::h_load(p); }
  static void store(void* p, typename V::vi a) noexcept { V::store(p, a); }
  static void h_store(void* p, typename V::vh h) noexcept { V::h_store(p, h); }
  static void d_store(double* p, typename V::vf f) noexcept { V::d_store(p, f); }
  static typename V::vi d_odd(const double* p) noexcept { return V::d_odd(p); }
  static typename V::vi d_odd_half(const double* p) noexcept { return V::d_odd_half(p); }
};
template <class V>
struct part {
  typename V::mask m;
  typename V::vi load(const void* p) const noexcept { return V::load_z(p, m); }
  typename V::vh h_load(const void* p) const noexcept { return V::h_load_z(p, m); }
  void store(void* p, typename V::vi a) const noexcept { V::store_m(p, a, m); }
  void h_store(void* p, typename V::vh h) const noexcept { V::h_store_m(p, h, m); }
  void d_store(double* p, typename V::vf f) const noexcept { V::d_store_m(p, f, m); }
  typename V::vi d_odd(const double* p) const noexcept { return V::d_odd_z(p, m); }
  typename V::vi d_odd_half(const double* p) const noexcept { return V::d_odd_half_z(p, m); }
};

/// float bits -> bfloat16 bits (32-bit lanes), nearest even: the generic encoder (simd/encode.hpp;
/// (u + 0x7fff + lsb) >> 16 where no lane is a NaN or overflows).
#if defined(MIXPREC_SIMD_AVX2)
template <class V>
inline typename V::vi bf16_bits(typename V::vi u) noexcept {
  using F = float_traits<bfloat16>::format_type;
  return simd::encode_fast<V, F, rounding::nearest_even>(u, V::zero(),
                                                         simd::encode_format<F>::overflow_away(overflow::ieee));
}
#else
template <class V>
typename V::vi bf16_bits(typename V::vi u) noexcept;  // no bfloat16 path without AVX2 (vec_f16c)
#endif

// The kernels, written once over V: one(s, d, io) converts one vector of N elements (io: whole or
// part); the main loop runs unroll<V> vectors at a time, two through block() where `joined` (one
// store of 2N results, streamed where asked).
struct f2h_k {  // vcvtps2ph, nearest even by the immediate
  template <class V>
  static constexpr std::size_t unroll = 2;
  static constexpr bool joined = true;
  template <class V, class IO>
  static void one(const float* s, std::uint16_t* d, IO io) noexcept {
    io.h_store(d, V::template to_half<rne>(io.load(s)));
  }
  template <class V, bool Stream>
  static void block(const float* s, std::uint16_t* d) noexcept {
    V::template h_store2<Stream>(d, V::template to_half<rne>(V::load(s)), V::template to_half<rne>(V::load(s + V::N)));
  }
};
struct h2f_k {  // vcvtph2ps
  template <class V>
  static constexpr std::size_t unroll = 2;
  static constexpr bool joined = false;
  template <class V, class IO>
  static void one(const std::uint16_t* s, float* d, IO io) noexcept {
    io.store(d, V::f_bits(V::h2f(io.h_load(s))));
  }
};
/// half -> double: vcvtph2ps then vcvtps2pd, both exact (a half subnormal is a normal float, so
/// DAZ does not apply; a signalling NaN comes out quiet with its payload, as round_to).
struct h2d_k {
  template <class V>
  static constexpr std::size_t unroll = 1;
  static constexpr bool joined = false;
  template <class V, class IO>
  static void one(const std::uint16_t* s, double* d, IO io) noexcept {
    io.d_store(d, V::h2f(io.h_load(s)));
  }
};
struct f2b_k {
  template <class V>
  static constexpr std::size_t unroll = 2;
  static constexpr bool joined = true;
  template <class V, class IO>
  static void one(const float* s, std::uint16_t* d, IO io) noexcept {
    io.h_store(d, V::narrow16(bf16_bits<V>(io.load(s))));
  }
  template <class V, bool Stream>
  static void block(const float* s, std::uint16_t* d) noexcept {
    const typename V::vi a = bf16_bits<V>(V::load(s)), b = bf16_bits<V>(V::load(s + V::N));
    V::template store16x2<Stream>(d, a, b);
  }
};
struct b2f_k {  // a shift (bit extension, NaNs kept as they are, as the scalar path)
  template <class V>
  static constexpr std::size_t unroll = 2;
  static constexpr bool joined = false;
  template <class V, class IO>
  static void one(const std::uint16_t* s, float* d, IO io) noexcept {
    io.store(d, V::template slli<16>(V::widen16(io.h_load(s))));
  }
};
struct d2h_k {  // doubles rounded to odd at float's precision, then vcvtps2ph
  template <class V>
  static constexpr std::size_t unroll = 1;
  static constexpr bool joined = false;
  template <class V, class IO>
  static void one(const double* s, std::uint16_t* d, IO io) noexcept {
    io.h_store(d, V::template to_half<rne>(io.d_odd_half(s)));
  }
};
struct d2b_k {  // doubles rounded to odd at float's precision, then the bfloat16 encoder
  template <class V>
  static constexpr std::size_t unroll = 16 / V::N;  // 16 results: one 256-bit store
  static constexpr bool joined = true;
  template <class V, class IO>
  static void one(const double* s, std::uint16_t* d, IO io) noexcept {
    io.h_store(d, V::narrow16(bf16_bits<V>(io.d_odd(s))));
  }
  template <class V, bool Stream>
  static void block(const double* s, std::uint16_t* d) noexcept {
    const typename V::vi a = V::d_odd(s), b = V::d_odd(s + V::N);
    V::template store16x2<Stream>(d, bf16_bits<V>(a), bf16_bits<V>(b));
  }
};

/// unroll vectors of K from s to d.
template <class V, class K, bool Stream, class S, class D>
inline void block(const S* s, D* d) noexcept {
  if constexpr (K::joined && K::template unroll<V> == 2) {
    K::template block<V, Stream>(s, d);
  } else {
    for (std::size_t u = 0; u < K::template unroll<V>; ++u) K::template one<V>(s + u * V::N, d + u * V::N, whole<V>{});
  }
}

/// n elements by K: blocks of unroll vectors, then the tail by lane masks or through a buffer.
template <class V, class K, bool Stream = false, class S, class D>
inline void run(const S* s, D* d, std::size_t n) noexcept {
  constexpr std::size_t B = K::template unroll<V> * V::N;
  std::size_t i = 0;
  for (; i + B <= n; i += B) block<V, K, Stream>(s + i, d + i);
  if constexpr (V::has_masked_tail) {
    for (; i < n; i += V::N) K::template one<V>(s + i, d + i, part<V>{V::first(n - i)});
  } else if (i < n) {
    tail_by_buffer<B>(s + i, d + i, n - i, block<V, K, false, S, D>);
  }
}

/// float -> bfloat16. HW (the avx512_bf16 level): 2N at a time by vcvtne2ps2bf16 where no input
/// is subnormal (it reads those as zero; under DAZ the test does not see them: the encoder only).
template <class V, bool HW, bool Stream>
inline void f2b(const float* s, std::uint16_t* d, std::size_t n) noexcept {
  std::size_t i = 0;
  if constexpr (HW) {
    if (!daz_on()) {
      for (; i + 2 * V::N <= n; i += 2 * V::N) {
        if (!V::template bf16_pair_store<Stream>(d + i, s + i)) block<V, f2b_k, Stream>(s + i, d + i);
      }
    }
  }
  run<V, f2b_k, Stream>(s + i, d + i, n - i);
}

#if defined(MIXPREC_SIMD_AVX512_FP16)
/// 8 doubles -> 8 halves by vcvtpd2ph with embedded nearest-even ({rn-sae}): one correct
/// rounding, overflow to infinity, NaN quieted with sign and leading payload kept, as round_to;
/// the embedded rounding ignores MXCSR.RC, and double subnormal inputs (which DAZ would read as
/// zero) round to the same signed zero anyway; FTZ does not flush the half results
/// (tests/test_convert.cpp checks every MXCSR setting).
inline __m128i cvtpd_ph(__m512d x) noexcept { return _mm_castph_si128(_mm512_cvt_roundpd_ph(x, rne)); }

template <bool Stream = false>
inline void d2h_fp16(const double* s, std::uint16_t* out, std::size_t n) noexcept {
  std::size_t i = 0;
  for (; Stream && i + 32 <= n; i += 32) {
    const __m256i lo = _mm256_inserti128_si256(_mm256_castsi128_si256(cvtpd_ph(_mm512_loadu_pd(s + i))),
                                               cvtpd_ph(_mm512_loadu_pd(s + i + 8)), 1);
    const __m256i hi = _mm256_inserti128_si256(_mm256_castsi128_si256(cvtpd_ph(_mm512_loadu_pd(s + i + 16))),
                                               cvtpd_ph(_mm512_loadu_pd(s + i + 24)), 1);
    simd::vec512::h_store2<true>(out + i, lo, hi);
  }
  for (; i + 16 <= n; i += 16) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), cvtpd_ph(_mm512_loadu_pd(s + i)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i + 8), cvtpd_ph(_mm512_loadu_pd(s + i + 8)));
  }
  for (; i < n; i += 8) {
    const __mmask8 m = n - i >= 8 ? static_cast<__mmask8>(0xff) : static_cast<__mmask8>((1u << (n - i)) - 1u);
    _mm_mask_storeu_epi16(out + i, m, cvtpd_ph(_mm512_maskz_loadu_pd(m, s + i)));
  }
}
#endif

/// Elements before the first 64-byte boundary of p (at most n).
inline std::size_t head_to_align64(const std::uint16_t* p, std::size_t n) noexcept {
  const std::size_t h = ((64 - (reinterpret_cast<std::uintptr_t>(p) & 63)) & 63) / 2;
  return h < n ? h : n;
}

/// The fast paths at width V; HW: the avx512_bf16 level (vcvtne2ps2bf16; vcvtpd2ph where
/// AVX-512-FP16 is compiled in). convert_streamed: the direct non-temporal forms (V::has_stream64).
template <class V, bool HW>
struct path {
  template <class S, class D>
  static bool convert(const S*, D*, std::size_t) noexcept {
    return false;
  }
  static bool convert(const float* s, half* d, std::size_t n) noexcept {
    run<V, f2h_k>(s, bits_of(d), n);
    return true;
  }
  static bool convert(const half* s, float* d, std::size_t n) noexcept {
    run<V, h2f_k>(bits_of(s), d, n);
    return true;
  }
  static bool convert(const half* s, double* d, std::size_t n) noexcept {
    run<V, h2d_k>(bits_of(s), d, n);
    return true;
  }
  static bool convert(const float* s, bfloat16* d, std::size_t n) noexcept {
    f2b<V, HW, false>(s, bits_of(d), n);
    return true;
  }
  static bool convert(const bfloat16* s, float* d, std::size_t n) noexcept {
    run<V, b2f_k>(bits_of(s), d, n);
    return true;
  }
  /// double -> half / bfloat16: double -> float rounded to ODD (truncate, OR the sticky bit into
  /// the last place), then one nearest-even rounding (see the top of the header).
  static bool convert(const double* s, half* d, std::size_t n) noexcept {
#if defined(MIXPREC_SIMD_AVX512_FP16)
    if (HW) {
      d2h_fp16(s, bits_of(d), n);
      return true;
    }
#endif
    run<V, d2h_k>(s, bits_of(d), n);
    return true;
  }
  static bool convert(const double* s, bfloat16* d, std::size_t n) noexcept {
    if (ftz_or_daz_on()) return false;
    run<V, d2b_k>(s, bits_of(d), n);
    return true;
  }

  template <class S, class D>
  static bool convert_streamed(const S*, D*, std::size_t) noexcept {
    return false;
  }
  static bool convert_streamed(const float* s, half* d, std::size_t n) noexcept {
    if constexpr (!V::has_stream64) {
      return false;
    } else {
      std::uint16_t* out = bits_of(d);
      const std::size_t h = head_to_align64(out, n);
      run<V, f2h_k>(s, out, h);
      run<V, f2h_k, true>(s + h, out + h, n - h);
      return true;
    }
  }
  static bool convert_streamed(const float* s, bfloat16* d, std::size_t n) noexcept {
    if constexpr (!V::has_stream64) {
      return false;
    } else {
      std::uint16_t* out = bits_of(d);
      const std::size_t h = head_to_align64(out, n);
      f2b<V, HW, false>(s, out, h);
      f2b<V, HW, true>(s + h, out + h, n - h);
      return true;
    }
  }
#if defined(MIXPREC_SIMD_AVX512_FP16)
  /// Streamed double -> half: direct at the avx512_bf16 level only; else the buffered form.
  static bool convert_streamed(const double* s, half* d, std::size_t n) noexcept {
    if (!HW) return false;
    std::uint16_t* out = bits_of(d);
    const std::size_t h = head_to_align64(out, n);
    d2h_fp16(s, out, h);
    d2h_fp16<true>(s + h, out + h, n - h);
    return true;
  }
#endif
};

#if defined(MIXPREC_SIMD_AVX2)
using avx2_path = path<simd::vec256, false>;
#else
/// AVX + F16C without AVX2: float <-> half and half -> double only.
struct avx2_path {
  template <class S, class D>
  static bool convert(const S*, D*, std::size_t) noexcept {
    return false;
  }
  static bool convert(const float* s, half* d, std::size_t n) noexcept { return path<vec_f16c, false>::convert(s, d, n); }
  static bool convert(const half* s, float* d, std::size_t n) noexcept { return path<vec_f16c, false>::convert(s, d, n); }
  static bool convert(const half* s, double* d, std::size_t n) noexcept { return path<vec_f16c, false>::convert(s, d, n); }
};
#endif

}  // namespace simd_x86

#endif  // MIXPREC_SIMD_X86

/// Converts n elements with the given level's fast path; false (nothing written) when the level
/// is not compiled in or has no fast path for this pair (the caller runs the portable loop).
template <class S, class D>
inline bool simd_convert_at(simd_level level, const S* s, D* d, std::size_t n) noexcept {
  switch (level) {
#if defined(MIXPREC_SIMD_AVX512)
#if defined(MIXPREC_SIMD_AVX512_BF16)
    case simd_level::avx512_bf16:
      return simd_x86::path<simd::vec512, true>::convert(s, d, n);
#endif
    case simd_level::avx512:
      return simd_x86::path<simd::vec512, false>::convert(s, d, n);
#endif
#if defined(MIXPREC_SIMD_X86)
    case simd_level::avx2:
      return simd_x86::avx2_path::convert(s, d, n);
#endif
    default:
      (void)s;
      (void)d;
      (void)n;
      return false;
  }
}

/// Source plus destination bytes from which mixprec::convert writes the destination with
/// non-temporal stores (simd_convert_streamed): beyond the caches, they save the read of every
/// destination line before it is written and leave the cache to other data.
constexpr std::size_t simd_stream_min_bytes = std::size_t{32} << 20;

#if defined(MIXPREC_SIMD_X86)
namespace simd_x86 {
/// memcpy with non-temporal stores for the 64-byte-aligned (32 without AVX-512) middle.
inline void stream_copy(void* dst, const void* src, std::size_t bytes) noexcept {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
#if defined(MIXPREC_SIMD_AVX512)
  constexpr std::size_t a = 64;
#else
  constexpr std::size_t a = 32;
#endif
  std::size_t head = (a - (reinterpret_cast<std::uintptr_t>(d) & (a - 1))) & (a - 1);
  if (head > bytes) head = bytes;
  std::memcpy(d, s, head);
  d += head;
  s += head;
  bytes -= head;
  for (; bytes >= a; bytes -= a, d += a, s += a) {
#if defined(MIXPREC_SIMD_AVX512)
    _mm512_stream_si512(reinterpret_cast<__m512i*>(d), _mm512_loadu_si512(s));
#else
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s)));
#endif
  }
  std::memcpy(d, s, bytes);
}
}  // namespace simd_x86
#endif

/// simd_convert_at with the best level compiled in.
template <class S, class D>
inline bool simd_convert(const S* s, D* d, std::size_t n) noexcept {
  return simd_convert_at(simd_best_level, s, d, n);
}

/// simd_convert, the destination written with non-temporal stores (for arrays far larger than
/// the caches, see simd_stream_min_bytes): converts 2048 elements at a time into a buffer in L1,
/// then streams it out. The same results; false (nothing written) where simd_convert is false.
template <class S, class D>
inline bool simd_convert_streamed(const S* s, D* d, std::size_t n) noexcept {
#if defined(MIXPREC_SIMD_X86)
#if defined(MIXPREC_SIMD_AVX512)
  if (simd_x86::path<simd::vec512, simd_best_level == simd_level::avx512_bf16>::convert_streamed(s, d, n)) {  // direct
    _mm_sfence();
    return true;
  }
#endif
  if (!simd_convert(s, d, 0)) return false;  // no fast path (or not in this FP environment)
  constexpr std::size_t chunk = 2048;
  alignas(64) unsigned char raw[chunk * sizeof(D)];
  D* buf = reinterpret_cast<D*>(raw);
  for (std::size_t i = 0; i < n; i += chunk) {
    const std::size_t m = n - i < chunk ? n - i : chunk;
    simd_convert(s + i, buf, m);
    simd_x86::stream_copy(d + i, buf, m * sizeof(D));
  }
  _mm_sfence();  // the streamed stores are visible before whatever synchronises with this thread
  return true;
#else
  return simd_convert(s, d, n);
#endif
}

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_SIMD_CONVERT_HPP
