// SPDX-License-Identifier: MIT
// bench/bench_kernels.cpp — the bulk kernels against their data-movement limit, in one run.
//
//   convert/<pair>/<impl>/<bytes>   bulk conversion of an array whose INPUT is <bytes> long
//     pairs  f2h (float -> half), h2f, f2b (float -> bfloat16), b2f, d2h (double -> half),
//            d2b (double -> bfloat16), f2e4 (float -> float8_e4m3fn), f2e5 (float -> float8_e5m2)
//     impl   mixprec      mixprec::convert(exec::seq, ...)  (exact; x86 fast paths when built
//                         with -march=native)
//            copy         the plain narrowing / widening copy of the same element sizes
//                         (uint32 -> uint16, uint16 -> uint32, uint64 -> uint16): the
//                         data-movement limit the targets are stated against (f2e4/copy:
//                         uint32 -> uint8, the limit of f2e4 and f2e5)
//            stream       the same copy with non-temporal stores (DRAM size only; AVX-512
//                         builds): the limit beyond the caches, where mixprec streams too
//            intrinsic    the raw instruction loop: vcvtps2ph / vcvtph2ps (F16C, AVX-512),
//                         vcvtneps2bf16 (AVX-512-BF16: flushes subnormal inputs, NOT exact),
//                         shift for b2f (keeps signalling NaNs), vcvtpd2ps + vcvtps2ph for
//                         d2h (double rounding, NOT exact)
//            scalar       a loop of mixprec::round_to / static_cast (per-element code)
//            avx2         detail::simd_convert_at(avx2, ...) on the whole array: the AVX2 + F16C
//                         level (what an -mavx2 -mf16c build runs, without streaming), in an
//                         AVX-512 build
//            avx512       d2h only, in AVX-512-FP16 builds (where mixprec runs vcvtpd2ph):
//                         detail::simd_convert_at(avx512, ...), the round-to-odd form that
//                         AVX-512 CPUs without FP16 run (without streaming)
//     bytes  4096 (L1), 262144 (L2), 268435456 (DRAM)
//   unscale/<impl>/268435456     256 MiB of float gradients, in place
//            mixprec      unscale_and_check(exec::seq, g, inv)   (one fused pass)
//            mul          a plain in-place x *= s loop (the data-movement limit)
//            naive        x *= s, then a second pass testing isfinite (two passes)
//   optim/<step>/<dtype>[+<copy>]/<rounding>/<impl>/<n>   one optimizer step over n parameters
//     step     adam, adamw (weight_decay 0.01), sgd (momentum 0.9, step > 1)
//     dtype    f32 (params, grads, states float: the master-weight step; +bf16 / +f16: with the
//              model copy written in the same pass), bf16, f16 (params, grads, states all that type)
//     rounding rne (nearest even) or sr (stochastic) for the final write of the parameters
//     impl     fast (the x86 fast path, detail/simd_optim.hpp) or portable (the scalar loop)
//     counter  per_elem: seconds per parameter (printed with an SI prefix: 3.2n = 3.2 ns)
// Counters: bytes_per_second counts input + output bytes; "vs_copy" (set by
// scripts/bench_ratios.py from the JSON output) is computed after the run.
//
// Reproduce: see bench/README.md ("Bulk kernels").
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <mixprec/mixprec.hpp>
#include <mixprec/kernels.hpp>

#if defined(__x86_64__) && (defined(__AVX512F__) || defined(__F16C__))
#include <mixprec/detail/x86.hpp>
#endif

namespace {

using namespace mixprec;

const std::size_t kSizes[] = {4096, 262144, 268435456};

std::vector<float> normal_floats(std::size_t n) {
  std::mt19937 g(42);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

template <class T>
void touch(std::vector<T>& v) {
  benchmark::DoNotOptimize(v.data());
  benchmark::ClobberMemory();
}

// --- peers -----------------------------------------------------------------------------------
// The copies are written with the widest truncating/extending moves this build has
// (vpmovdw / vpmovzxwd / vpmovqw), so that they really are the data-movement limit.
/// uint32 -> uint8 (the low byte): the data-movement limit of float -> FP8.
void copy_narrow32to8(const std::uint32_t* __restrict in, std::uint8_t* __restrict out, std::size_t n) {
  std::size_t i = 0;
#if defined(__AVX512F__)
  for (; i + 16 <= n; i += 16) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm512_cvtepi32_epi8(_mm512_loadu_si512(in + i)));
  }
#endif
  for (; i < n; ++i) out[i] = static_cast<std::uint8_t>(in[i]);
}
void copy_narrow32(const std::uint32_t* __restrict in, std::uint16_t* __restrict out, std::size_t n) {
  std::size_t i = 0;
#if defined(__AVX512F__)
  for (; i + 16 <= n; i += 16) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm512_cvtepi32_epi16(_mm512_loadu_si512(in + i)));
  }
#endif
  for (; i < n; ++i) out[i] = static_cast<std::uint16_t>(in[i]);
}
void copy_widen16(const std::uint16_t* __restrict in, std::uint32_t* __restrict out, std::size_t n) {
  std::size_t i = 0;
#if defined(__AVX512F__)
  for (; i + 16 <= n; i += 16) {
    _mm512_storeu_si512(out + i, _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i))));
  }
#endif
  for (; i < n; ++i) out[i] = in[i];
}
void copy_narrow64(const std::uint64_t* __restrict in, std::uint16_t* __restrict out, std::size_t n) {
  std::size_t i = 0;
#if defined(__AVX512F__)
  for (; i + 8 <= n; i += 8) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm512_cvtepi64_epi16(_mm512_loadu_si512(in + i)));
  }
#endif
  for (; i < n; ++i) out[i] = static_cast<std::uint16_t>(in[i]);
}

// The same copies with non-temporal stores (64-byte aligned, after a scalar head): the limit for
// arrays beyond the caches, where a plain store first reads every destination line.
#if defined(__AVX512F__)
template <class T>
std::size_t head_to_align64(const T* p, std::size_t n) {
  const std::size_t h = ((64 - (reinterpret_cast<std::uintptr_t>(p) & 63)) & 63) / sizeof(T);
  return h < n ? h : n;
}
void stream_narrow32(const std::uint32_t* __restrict in, std::uint16_t* __restrict out, std::size_t n) {
  std::size_t i = 0;
  for (const std::size_t h = head_to_align64(out, n); i < h; ++i) out[i] = static_cast<std::uint16_t>(in[i]);
  for (; i + 32 <= n; i += 32) {
    const __m256i a = _mm512_cvtepi32_epi16(_mm512_loadu_si512(in + i));
    const __m256i b = _mm512_cvtepi32_epi16(_mm512_loadu_si512(in + i + 16));
    _mm512_stream_si512(reinterpret_cast<__m512i*>(out + i), _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1));
  }
  _mm_sfence();
  for (; i < n; ++i) out[i] = static_cast<std::uint16_t>(in[i]);
}
void stream_widen16(const std::uint16_t* __restrict in, std::uint32_t* __restrict out, std::size_t n) {
  std::size_t i = 0;
  for (const std::size_t h = head_to_align64(out, n); i < h; ++i) out[i] = in[i];
  for (; i + 16 <= n; i += 16) {
    _mm512_stream_si512(reinterpret_cast<__m512i*>(out + i),
                        _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i))));
  }
  _mm_sfence();
  for (; i < n; ++i) out[i] = in[i];
}
void stream_narrow64(const std::uint64_t* __restrict in, std::uint16_t* __restrict out, std::size_t n) {
  std::size_t i = 0;
  for (const std::size_t h = head_to_align64(out, n); i < h; ++i) out[i] = static_cast<std::uint16_t>(in[i]);
  for (; i + 32 <= n; i += 32) {
    const __m128i a = _mm512_cvtepi64_epi16(_mm512_loadu_si512(in + i));
    const __m128i b = _mm512_cvtepi64_epi16(_mm512_loadu_si512(in + i + 8));
    const __m128i c = _mm512_cvtepi64_epi16(_mm512_loadu_si512(in + i + 16));
    const __m128i d = _mm512_cvtepi64_epi16(_mm512_loadu_si512(in + i + 24));
    const __m256i ab = _mm256_inserti128_si256(_mm256_castsi128_si256(a), b, 1);
    const __m256i cd = _mm256_inserti128_si256(_mm256_castsi128_si256(c), d, 1);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(out + i), _mm512_inserti64x4(_mm512_castsi256_si512(ab), cd, 1));
  }
  _mm_sfence();
  for (; i < n; ++i) out[i] = static_cast<std::uint16_t>(in[i]);
}
#endif

#if defined(__AVX512F__)
void intr_f2h(const float* in, std::uint16_t* out, std::size_t n) {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                        _mm512_cvtps_ph(_mm512_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
}
void intr_h2f(const std::uint16_t* in, float* out, std::size_t n) {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm512_storeu_ps(out + i, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i))));
  }
}
void intr_b2f(const std::uint16_t* in, float* out, std::size_t n) {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i u = _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i))), 16);
    _mm512_storeu_si512(out + i, u);
  }
}
void intr_d2h(const double* in, std::uint16_t* out, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 f = _mm512_cvtpd_ps(_mm512_loadu_pd(in + i));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
}
#endif
#if defined(__AVX512BF16__) && defined(__AVX512VL__)
void intr_f2b(const float* in, std::uint16_t* out, std::size_t n) {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256bh b = _mm512_cvtneps_pbh(_mm512_loadu_ps(in + i));
    std::memcpy(out + i, &b, 32);
  }
}
#endif

// --- benchmarks ------------------------------------------------------------------------------
template <class S, class D, class Fn>
void run_pair(benchmark::State& state, std::size_t in_bytes, const std::vector<S>& src, Fn fn) {
  const std::size_t n = in_bytes / sizeof(S);
  std::vector<D> dst(n);
  for (auto _ : state) {
    fn(src.data(), dst.data(), n);
    touch(dst);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(n * (sizeof(S) + sizeof(D))));
}

template <class S>
std::vector<S> source(std::size_t n) {
  const auto f = normal_floats(n);
  std::vector<S> v(n);
  convert(exec::seq, f, v);
  return v;
}

template <class T>
void register_fp8(const char* pair, const std::string& b, std::size_t bytes, const std::vector<float>* src) {
  const std::string p = std::string("convert/") + pair;
  benchmark::RegisterBenchmark((p + "/mixprec" + b).c_str(), [=](benchmark::State& s) {
    run_pair<float, T>(s, bytes, *src, [](const float* i, T* o, std::size_t n) {
      convert(exec::seq, span<const float>(i, n), span<T>(o, n));
    });
  });
  if (detail::simd_best_level != detail::simd_level::avx2 && detail::simd_level_compiled(detail::simd_level::avx2)) {
    benchmark::RegisterBenchmark((p + "/avx2" + b).c_str(), [=](benchmark::State& s) {
      run_pair<float, T>(s, bytes, *src, [](const float* i, T* o, std::size_t n) {
        detail::simd_narrow8_at(detail::simd_level::avx2, i, o, n, overflow::ieee);
      });
    });
  }
  benchmark::RegisterBenchmark((p + "/scalar" + b).c_str(), [=](benchmark::State& s) {
    run_pair<float, T>(s, bytes, *src, [](const float* i, T* o, std::size_t n) {
      for (std::size_t k = 0; k < n; ++k) o[k] = T(i[k]);
    });
  });
}

void register_convert() {
  for (std::size_t bytes : kSizes) {
    const std::string b = "/" + std::to_string(bytes);
    // f2h
    {
      auto* src = new std::vector<float>(normal_floats(bytes / 4));
      auto* bits = reinterpret_cast<const std::vector<std::uint32_t>*>(src);
      benchmark::RegisterBenchmark(("convert/f2h/mixprec" + b).c_str(), [=](benchmark::State& s) {
        run_pair<float, half>(s, bytes, *src, [](const float* i, half* o, std::size_t n) {
          convert(exec::seq, span<const float>(i, n), span<half>(o, n));
        });
      });
      if (detail::simd_best_level != detail::simd_level::avx2 && detail::simd_level_compiled(detail::simd_level::avx2)) {
        benchmark::RegisterBenchmark(("convert/f2h/avx2" + b).c_str(), [=](benchmark::State& s) {
          run_pair<float, half>(s, bytes, *src, [](const float* i, half* o, std::size_t n) {
            detail::simd_convert_at(detail::simd_level::avx2, i, o, n);
          });
        });
      }
      benchmark::RegisterBenchmark(("convert/f2h/copy" + b).c_str(), [=](benchmark::State& s) {
        run_pair<std::uint32_t, std::uint16_t>(s, bytes, *bits, copy_narrow32);
      });
#if defined(__AVX512F__)
      if (bytes >= (std::size_t{1} << 24)) {
        benchmark::RegisterBenchmark(("convert/f2h/stream" + b).c_str(), [=](benchmark::State& s) {
          run_pair<std::uint32_t, std::uint16_t>(s, bytes, *bits, stream_narrow32);
        });
      }
#endif
#if defined(__AVX512F__)
      benchmark::RegisterBenchmark(("convert/f2h/intrinsic" + b).c_str(), [=](benchmark::State& s) {
        run_pair<float, std::uint16_t>(s, bytes, *src, intr_f2h);
      });
#endif
      benchmark::RegisterBenchmark(("convert/f2h/scalar" + b).c_str(), [=](benchmark::State& s) {
        run_pair<float, half>(s, bytes, *src, [](const float* i, half* o, std::size_t n) {
          for (std::size_t k = 0; k < n; ++k) o[k] = half(i[k]);
        });
      });
      // f2b
      benchmark::RegisterBenchmark(("convert/f2b/mixprec" + b).c_str(), [=](benchmark::State& s) {
        run_pair<float, bfloat16>(s, bytes, *src, [](const float* i, bfloat16* o, std::size_t n) {
          convert(exec::seq, span<const float>(i, n), span<bfloat16>(o, n));
        });
      });
      if (detail::simd_best_level != detail::simd_level::avx2 && detail::simd_level_compiled(detail::simd_level::avx2)) {
        benchmark::RegisterBenchmark(("convert/f2b/avx2" + b).c_str(), [=](benchmark::State& s) {
          run_pair<float, bfloat16>(s, bytes, *src, [](const float* i, bfloat16* o, std::size_t n) {
            detail::simd_convert_at(detail::simd_level::avx2, i, o, n);
          });
        });
      }
      benchmark::RegisterBenchmark(("convert/f2b/copy" + b).c_str(), [=](benchmark::State& s) {
        run_pair<std::uint32_t, std::uint16_t>(s, bytes, *bits, copy_narrow32);
      });
#if defined(__AVX512F__)
      if (bytes >= (std::size_t{1} << 24)) {
        benchmark::RegisterBenchmark(("convert/f2b/stream" + b).c_str(), [=](benchmark::State& s) {
          run_pair<std::uint32_t, std::uint16_t>(s, bytes, *bits, stream_narrow32);
        });
      }
#endif
#if defined(__AVX512BF16__) && defined(__AVX512VL__)
      benchmark::RegisterBenchmark(("convert/f2b/intrinsic" + b).c_str(), [=](benchmark::State& s) {
        run_pair<float, std::uint16_t>(s, bytes, *src, intr_f2b);
      });
#endif
      benchmark::RegisterBenchmark(("convert/f2b/scalar" + b).c_str(), [=](benchmark::State& s) {
        run_pair<float, bfloat16>(s, bytes, *src, [](const float* i, bfloat16* o, std::size_t n) {
          for (std::size_t k = 0; k < n; ++k) o[k] = bfloat16(i[k]);
        });
      });
    }
    // f2e4 / f2e5: float -> float8_e4m3fn / float8_e5m2, nearest even, overflow::ieee
    {
      auto* src = new std::vector<float>(normal_floats(bytes / 4));
      auto* bits = reinterpret_cast<const std::vector<std::uint32_t>*>(src);
      register_fp8<float8_e4m3fn>("f2e4", b, bytes, src);
      register_fp8<float8_e5m2>("f2e5", b, bytes, src);
      benchmark::RegisterBenchmark(("convert/f2e4/copy" + b).c_str(), [=](benchmark::State& s) {
        run_pair<std::uint32_t, std::uint8_t>(s, bytes, *bits, copy_narrow32to8);
      });
    }
    // h2f, b2f: inputs of `bytes` bytes of 16-bit values
    {
      auto* h = new std::vector<half>(source<half>(bytes / 2));
      auto* bf = new std::vector<bfloat16>(source<bfloat16>(bytes / 2));
      auto* hb = reinterpret_cast<const std::vector<std::uint16_t>*>(h);
      auto* bb = reinterpret_cast<const std::vector<std::uint16_t>*>(bf);
      benchmark::RegisterBenchmark(("convert/h2f/mixprec" + b).c_str(), [=](benchmark::State& s) {
        run_pair<half, float>(s, bytes, *h, [](const half* i, float* o, std::size_t n) {
          convert(exec::seq, span<const half>(i, n), span<float>(o, n));
        });
      });
      if (detail::simd_best_level != detail::simd_level::avx2 && detail::simd_level_compiled(detail::simd_level::avx2)) {
        benchmark::RegisterBenchmark(("convert/h2f/avx2" + b).c_str(), [=](benchmark::State& s) {
          run_pair<half, float>(s, bytes, *h, [](const half* i, float* o, std::size_t n) {
            detail::simd_convert_at(detail::simd_level::avx2, i, o, n);
          });
        });
      }
      benchmark::RegisterBenchmark(("convert/h2f/copy" + b).c_str(), [=](benchmark::State& s) {
        run_pair<std::uint16_t, std::uint32_t>(s, bytes, *hb, copy_widen16);
      });
#if defined(__AVX512F__)
      if (bytes >= (std::size_t{1} << 24)) {
        benchmark::RegisterBenchmark(("convert/h2f/stream" + b).c_str(), [=](benchmark::State& s) {
          run_pair<std::uint16_t, std::uint32_t>(s, bytes, *hb, stream_widen16);
        });
      }
#endif
#if defined(__AVX512F__)
      benchmark::RegisterBenchmark(("convert/h2f/intrinsic" + b).c_str(), [=](benchmark::State& s) {
        run_pair<std::uint16_t, float>(s, bytes, *hb, intr_h2f);
      });
#endif
      benchmark::RegisterBenchmark(("convert/h2f/scalar" + b).c_str(), [=](benchmark::State& s) {
        run_pair<half, float>(s, bytes, *h, [](const half* i, float* o, std::size_t n) {
          for (std::size_t k = 0; k < n; ++k) o[k] = static_cast<float>(i[k]);
        });
      });
      benchmark::RegisterBenchmark(("convert/b2f/mixprec" + b).c_str(), [=](benchmark::State& s) {
        run_pair<bfloat16, float>(s, bytes, *bf, [](const bfloat16* i, float* o, std::size_t n) {
          convert(exec::seq, span<const bfloat16>(i, n), span<float>(o, n));
        });
      });
      if (detail::simd_best_level != detail::simd_level::avx2 && detail::simd_level_compiled(detail::simd_level::avx2)) {
        benchmark::RegisterBenchmark(("convert/b2f/avx2" + b).c_str(), [=](benchmark::State& s) {
          run_pair<bfloat16, float>(s, bytes, *bf, [](const bfloat16* i, float* o, std::size_t n) {
            detail::simd_convert_at(detail::simd_level::avx2, i, o, n);
          });
        });
      }
      benchmark::RegisterBenchmark(("convert/b2f/copy" + b).c_str(), [=](benchmark::State& s) {
        run_pair<std::uint16_t, std::uint32_t>(s, bytes, *bb, copy_widen16);
      });
#if defined(__AVX512F__)
      if (bytes >= (std::size_t{1} << 24)) {
        benchmark::RegisterBenchmark(("convert/b2f/stream" + b).c_str(), [=](benchmark::State& s) {
          run_pair<std::uint16_t, std::uint32_t>(s, bytes, *bb, stream_widen16);
        });
      }
#endif
#if defined(__AVX512F__)
      benchmark::RegisterBenchmark(("convert/b2f/intrinsic" + b).c_str(), [=](benchmark::State& s) {
        run_pair<std::uint16_t, float>(s, bytes, *bb, intr_b2f);
      });
#endif
      benchmark::RegisterBenchmark(("convert/b2f/scalar" + b).c_str(), [=](benchmark::State& s) {
        run_pair<bfloat16, float>(s, bytes, *bf, [](const bfloat16* i, float* o, std::size_t n) {
          for (std::size_t k = 0; k < n; ++k) o[k] = static_cast<float>(i[k]);
        });
      });
    }
    // d2h
    {
      const auto f = normal_floats(bytes / 8);
      auto* d = new std::vector<double>(f.begin(), f.end());
      for (std::size_t k = 0; k < d->size(); ++k) (*d)[k] *= 1.0 + 1e-9 * static_cast<double>(k % 1000);
      auto* db = reinterpret_cast<const std::vector<std::uint64_t>*>(d);
      benchmark::RegisterBenchmark(("convert/d2h/mixprec" + b).c_str(), [=](benchmark::State& s) {
        run_pair<double, half>(s, bytes, *d, [](const double* i, half* o, std::size_t n) {
          convert(exec::seq, span<const double>(i, n), span<half>(o, n));
        });
      });
#if defined(__AVX512FP16__)
      if (detail::simd_best_level == detail::simd_level::avx512_bf16) {  // mixprec: vcvtpd2ph
        benchmark::RegisterBenchmark(("convert/d2h/avx512" + b).c_str(), [=](benchmark::State& s) {
          run_pair<double, half>(s, bytes, *d, [](const double* i, half* o, std::size_t n) {
            detail::simd_convert_at(detail::simd_level::avx512, i, o, n);
          });
        });
      }
#endif
      if (detail::simd_best_level != detail::simd_level::avx2 && detail::simd_level_compiled(detail::simd_level::avx2)) {
        benchmark::RegisterBenchmark(("convert/d2h/avx2" + b).c_str(), [=](benchmark::State& s) {
          run_pair<double, half>(s, bytes, *d, [](const double* i, half* o, std::size_t n) {
            detail::simd_convert_at(detail::simd_level::avx2, i, o, n);
          });
        });
      }
      benchmark::RegisterBenchmark(("convert/d2h/copy" + b).c_str(), [=](benchmark::State& s) {
        run_pair<std::uint64_t, std::uint16_t>(s, bytes, *db, copy_narrow64);
      });
#if defined(__AVX512F__)
      if (bytes >= (std::size_t{1} << 24)) {
        benchmark::RegisterBenchmark(("convert/d2h/stream" + b).c_str(), [=](benchmark::State& s) {
          run_pair<std::uint64_t, std::uint16_t>(s, bytes, *db, stream_narrow64);
        });
      }
#endif
#if defined(__AVX512F__)
      benchmark::RegisterBenchmark(("convert/d2h/intrinsic" + b).c_str(), [=](benchmark::State& s) {
        run_pair<double, std::uint16_t>(s, bytes, *d, intr_d2h);
      });
#endif
      benchmark::RegisterBenchmark(("convert/d2h/scalar" + b).c_str(), [=](benchmark::State& s) {
        run_pair<double, half>(s, bytes, *d, [](const double* i, half* o, std::size_t n) {
          for (std::size_t k = 0; k < n; ++k) o[k] = half(i[k]);
        });
      });
      // d2b: the same doubles to bfloat16
      benchmark::RegisterBenchmark(("convert/d2b/mixprec" + b).c_str(), [=](benchmark::State& s) {
        run_pair<double, bfloat16>(s, bytes, *d, [](const double* i, bfloat16* o, std::size_t n) {
          convert(exec::seq, span<const double>(i, n), span<bfloat16>(o, n));
        });
      });
      if (detail::simd_best_level != detail::simd_level::avx2 && detail::simd_level_compiled(detail::simd_level::avx2)) {
        benchmark::RegisterBenchmark(("convert/d2b/avx2" + b).c_str(), [=](benchmark::State& s) {
          run_pair<double, bfloat16>(s, bytes, *d, [](const double* i, bfloat16* o, std::size_t n) {
            detail::simd_convert_at(detail::simd_level::avx2, i, o, n);
          });
        });
      }
      benchmark::RegisterBenchmark(("convert/d2b/copy" + b).c_str(), [=](benchmark::State& s) {
        run_pair<std::uint64_t, std::uint16_t>(s, bytes, *db, copy_narrow64);
      });
#if defined(__AVX512F__)
      if (bytes >= (std::size_t{1} << 24)) {
        benchmark::RegisterBenchmark(("convert/d2b/stream" + b).c_str(), [=](benchmark::State& s) {
          run_pair<std::uint64_t, std::uint16_t>(s, bytes, *db, stream_narrow64);
        });
      }
#endif
      benchmark::RegisterBenchmark(("convert/d2b/scalar" + b).c_str(), [=](benchmark::State& s) {
        run_pair<double, bfloat16>(s, bytes, *d, [](const double* i, bfloat16* o, std::size_t n) {
          for (std::size_t k = 0; k < n; ++k) o[k] = bfloat16(i[k]);
        });
      });
    }
  }
}

void register_unscale() {
  const std::size_t bytes = 268435456;
  const std::size_t n = bytes / 4;
  auto* g = new std::vector<float>(normal_floats(n));
  auto per_iter = [=](benchmark::State& s) {
    s.SetBytesProcessed(static_cast<std::int64_t>(s.iterations()) * static_cast<std::int64_t>(2 * bytes));
  };
  // Alternate the factor so the data stay in range: 2^-1 then 2^1.
  benchmark::RegisterBenchmark("unscale/mixprec/268435456", [=](benchmark::State& s) {
    float inv = 0.5f;
    for (auto _ : s) {
      bool found = unscale_and_check(exec::seq, *g, inv);
      benchmark::DoNotOptimize(found);
      inv = 1.0f / inv;
    }
    per_iter(s);
  });
  benchmark::RegisterBenchmark("unscale/mul/268435456", [=](benchmark::State& s) {
    float inv = 0.5f;
    for (auto _ : s) {
      float* p = g->data();
      for (std::size_t i = 0; i < n; ++i) p[i] *= inv;
      touch(*g);
      inv = 1.0f / inv;
    }
    per_iter(s);
  });
  benchmark::RegisterBenchmark("unscale/naive/268435456", [=](benchmark::State& s) {
    float inv = 0.5f;
    for (auto _ : s) {
      float* p = g->data();
      for (std::size_t i = 0; i < n; ++i) p[i] *= inv;
      bool found = false;
      for (std::size_t i = 0; i < n; ++i) found |= !std::isfinite(p[i]);
      benchmark::DoNotOptimize(found);
      inv = 1.0f / inv;
    }
    per_iter(s);
  });
}

// --- optimizer steps ---------------------------------------------------------------------------
// Data that stays in range over many repeated steps: N(0,1) parameters scaled by 0.05,
// gradients of scale 1e-2 whose sign alternates between iterations (two arrays, so that the
// parameters oscillate instead of drifting), states of matching scale, eps = 1e-4 (which half
// holds; PyTorch's default 1e-8 is 0 in half and sends some fp16 parameters to infinity and NaN
// after a few thousand steps, which would time the rare-case code). Stochastic rounding still
// makes the parameters a random walk: after 20000 steps a third of the half vectors hold a
// subnormal, and the time per step depended on how long the benchmark had run (half Adam: 1.40
// ns per parameter at 150 iterations, 2.96 at 25000). So every 64 iterations the parameters
// are restored (a copy of n values per 64 steps, in the timed loop, for every row alike).
template <class T, class M>
struct optim_data {
  std::vector<T> p, g, neg_g, m, v, p0;
  std::vector<M> copy;
};

template <class T, class M>
optim_data<T, M>* make_optim_data(std::size_t n, bool with_copy) {
  auto* d = new optim_data<T, M>;
  const auto f = normal_floats(n);
  d->p.resize(n);
  d->g.resize(n);
  d->neg_g.resize(n);
  d->m.resize(n);
  d->v.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const float g = 1e-2f * f[(i * 7 + 3) % n];
    d->p[i] = round_to<T>(0.05f * f[i]);
    d->g[i] = round_to<T>(g);
    d->neg_g[i] = round_to<T>(-g);
    d->m[i] = round_to<T>(1e-3f * f[(i * 13 + 5) % n]);
    d->v[i] = round_to<T>(1e-4f * std::fabs(f[(i * 17 + 1) % n]) + g * g);
  }
  if (with_copy) d->copy.resize(n);
  d->p0 = d->p;
  return d;
}

template <class T, class M>
void register_optim_case(const std::string& step, const std::string& dtype, bool with_copy, rounding mode,
                         std::size_t n) {
  namespace oi = detail::optim_impl;
  auto* d = make_optim_data<T, M>(n, with_copy);
  for (const bool simd : {true, false}) {
    const std::string name = "optim/" + step + "/" + dtype + "/" + (mode == rounding::stochastic ? "sr" : "rne") + "/" +
                             (simd ? "fast" : "portable") + "/" + std::to_string(n);
    benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) {
      const update_rounding ur{mode, 7, 0};
      adam_options ao;
      ao.eps = 1e-4f;
      if (step == "adamw") ao.weight_decay = 0.01f;
      sgd_options so;
      so.momentum = 0.9f;
      const span<M> c = with_copy ? span<M>(d->copy) : span<M>();
      bool flip = false;
      unsigned age = 0;
      for (auto _ : s) {
        if (++age == 64) {
          age = 0;
          std::copy(d->p0.begin(), d->p0.end(), d->p.begin());
        }
        const span<const T> g(flip ? d->neg_g : d->g);
        flip = !flip;
        if (step == "sgd") {
          oi::sgd_impl(exec::seq, span<T>(d->p), g, span<T>(d->m), 10, so, ur, c, simd);
        } else if (step == "adamw") {
          oi::adam_impl<exec::sequenced_policy, T, T, T, M, true>("adamw_step", exec::seq, span<T>(d->p), g,
                                                                 span<T>(d->m), span<T>(d->v), 10, ao, ur, c, simd);
        } else {
          oi::adam_impl<exec::sequenced_policy, T, T, T, M, false>("adam_step", exec::seq, span<T>(d->p), g,
                                                                  span<T>(d->m), span<T>(d->v), 10, ao, ur, c, simd);
        }
        touch(d->p);
      }
      // seconds per parameter, printed with an SI prefix (3.2n = 3.2 ns)
      s.counters["per_elem"] = benchmark::Counter(static_cast<double>(s.iterations()) * static_cast<double>(n),
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    });
  }
}

void register_optim() {
  for (std::size_t n : {std::size_t{65536}, std::size_t{1} << 20}) {
    register_optim_case<float, float>("adam", "f32", false, rounding::nearest_even, n);
    register_optim_case<float, bfloat16>("adam", "f32+bf16", true, rounding::nearest_even, n);
    register_optim_case<float, half>("adam", "f32+f16", true, rounding::nearest_even, n);
    register_optim_case<float, float>("adamw", "f32", false, rounding::nearest_even, n);
    register_optim_case<float, float>("sgd", "f32", false, rounding::nearest_even, n);
    for (rounding mode : {rounding::nearest_even, rounding::stochastic}) {
      for (const char* step : {"adam", "adamw", "sgd"}) {
        register_optim_case<bfloat16, bfloat16>(step, "bf16", false, mode, n);
        register_optim_case<half, half>(step, "f16", false, mode, n);
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_convert();
  register_unscale();
  register_optim();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("mixprec fast paths", detail::simd_convert_paths());
  benchmark::AddCustomContext("mixprec optimizer fast path", detail::simd_optim_path());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
