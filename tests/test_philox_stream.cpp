// SPDX-License-Identifier: MIT
// simd/philox.hpp: the vector Philox4x32-10 stream equals the scalar philox_rng(seed)(counter + i)
// word for word, through next(), next_few() and next_batch() and mixed, at every compiled width, from
// counters at every word of a block and around the block counter's carry into its high word
// (batches whose blocks do not share a high word take the general rounds) and past 2^64; and
// simd/encode.hpp's stochastic rounding to half from that stream equals the scalar round_to with
// philox_rng's bits, with batches of normal halves (one test per batch with AVX2) and with one
// lane out of that range in the first, last or a middle lane of a batch.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include <mixprec/core/random.hpp>
#include <mixprec/core/round_to.hpp>
#include <mixprec/core/types.hpp>
#include <mixprec/simd/encode.hpp>
#include <mixprec/simd/philox.hpp>

using namespace mixprec;

namespace {

#if defined(MIXPREC_SIMD_AVX2) || defined(MIXPREC_SIMD_AVX512)
float from_bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

std::string hex(std::uint32_t b) {
  std::ostringstream o;
  o << std::hex << b;
  return o.str();
}

std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

template <class V>
std::vector<std::uint32_t> words_of(typename V::vi v) {
  std::vector<std::uint32_t> w(V::N);
  std::memcpy(w.data(), &v, V::N * sizeof(std::uint32_t));
  return w;
}

/// The first `vectors` vectors of the stream at (seed, counter) equal philox_rng's words; calls:
/// 0 = next() only, 1 = next_batch only, 2 = one next_batch then next(), 3 = next_few() only,
/// 4 = one next_batch, then next_few() and next() in turn.
template <class V>
void check_stream(std::uint64_t seed, std::uint64_t counter, int calls) {
  using stream = simd::philox_stream<V>;
  const philox_rng ref(seed);
  stream g(seed, counter);
  const std::size_t vectors = 3 * stream::batch + 2;
  std::vector<std::uint32_t> got;
  std::size_t k = 0;
  if (calls == 1 || calls == 2 || calls == 4) {
    for (; k + stream::batch <= vectors; k += stream::batch) {
      typename V::vi b[stream::batch];
      g.next_batch(b);
      for (std::size_t j = 0; j < stream::batch; ++j) {
        const auto w = words_of<V>(b[j]);
        got.insert(got.end(), w.begin(), w.end());
      }
      if (calls != 1) break;
    }
  }
  for (; k < vectors; ++k) {
    const auto w = words_of<V>(calls == 3 || (calls == 4 && k % 2 == 0) ? g.next_few() : g.next());
    got.insert(got.end(), w.begin(), w.end());
  }
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != ref(counter + i) && bad++ < 3) {
      MESSAGE("seed " << seed << " counter " << counter << " word " << i << ": got " << hex(got[i]) << " want "
                      << hex(ref(counter + i)));
    }
  }
  CHECK(bad == 0);
}

template <class V>
void check_width() {
  const std::uint64_t carry = std::uint64_t{1} << 34;  // block 2^32: the high word turns 1
  for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{0x0123456789abcdefull}, ~std::uint64_t{0}}) {
    for (std::uint64_t counter :
         {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{3}, std::uint64_t{77}, carry - 4,
          carry - 13, carry - 256, carry - 258, carry - 401, carry + 5, 3 * carry - 1000, std::uint64_t{1} << 60,
          ~std::uint64_t{0} - 301, ~std::uint64_t{0} - 2}) {  // the last two: counter + i wraps at 2^64
      for (int calls = 0; calls < 5; ++calls) {
        INFO("width " << V::N << ", calls " << calls);
        check_stream<V>(seed, counter, calls);
      }
    }
  }
}

/// encode_floats to half with Philox bits against round_to for src, at offsets inside a block.
template <class V>
void check_half(const std::vector<float>& src, std::uint64_t seed) {
  const philox_rng ref(seed);
  for (std::uint64_t off : {std::uint64_t{0}, std::uint64_t{3}, std::uint64_t{1} << 40}) {
    for (overflow ovf : {overflow::ieee, overflow::saturate}) {
      std::vector<std::uint16_t> got(src.size());
      REQUIRE(simd::encode_floats<V, half::format_type>(src.data(), got.data(), src.size(), rounding::stochastic, ovf,
                                                         seed, off, rng_kind::philox4x32_10));
      std::size_t bad = 0;
      for (std::size_t i = 0; i < src.size(); ++i) {
        const std::uint16_t want = round_to<half>(src[i], ref(off + i), ovf).bits();
        if (got[i] != want && bad++ < 3) {
          MESSAGE("width " << V::N << ", offset " << off << ", element " << i << " (float " << hex(bits_of(src[i]))
                           << "): got " << hex(got[i]) << " want " << hex(want));
        }
      }
      CHECK(bad == 0);
    }
  }
}

/// Normal halves (the range's ends, zeros, random values of both signs) for many batches, then
/// the same with one value out of the range (below the normals, above 65504, infinite, NaN,
/// float subnormal) at each of several positions: first, last and middle lanes of a batch.
template <class V>
void check_half_width() {
  const std::size_t batch = simd::philox_stream<V>::batch * V::N, n = 5 * batch + 11;
  std::vector<float> src(n);
  std::uint64_t s = 0x9e3779b97f4a7c15ull;
  for (std::size_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const std::uint32_t r = static_cast<std::uint32_t>(s >> 32);
    // |x| in [2^-14, 65504]: biased exponents 113 to 142, the largest only up to 0x477fe000
    std::uint32_t mag = 0x38800000u + r % (0x477fe000u - 0x38800000u + 1u);
    if (i % 97 == 5) mag = 0x38800000u;
    if (i % 89 == 7) mag = 0x477fe000u;
    if (i % 83 == 9) mag = 0;
    src[i] = from_bits(mag | (r & 0x80000000u));
  }
  check_half<V>(src, 0x0123456789abcdefull);
  const std::uint32_t outside[] = {0x387fffffu, 0x477fe001u, 0x477ff000u, 0x7f800000u, 0x7fc00001u, 0x00000001u,
                                   0x0d000000u, 0x33c00000u, 0x387fe000u, 0xb3c00000u, 0xc77fe001u, 0xb87fffffu};
  for (std::size_t pos : {std::size_t{0}, V::N - 1, V::N, batch / 2 + 3, batch - 1, 3 * batch + V::N + 2}) {
    for (std::uint32_t o : outside) {
      std::vector<float> one = src;
      one[pos] = from_bits(o);
      INFO("width " << V::N << ", position " << pos << ", float " << hex(o));
      check_half<V>(one, 7);
    }
  }
}
#endif

}  // namespace

TEST_CASE("philox_stream: the words of philox_rng(seed)(counter + i) at every compiled width") {
#if defined(MIXPREC_SIMD_AVX2)
  check_width<simd::vec256>();
#endif
#if defined(MIXPREC_SIMD_AVX512)
  check_width<simd::vec512>();
#endif
  // the scalar stream itself: Random123's known answer for philox4x32_10 at counter 0, key 0
  CHECK(philox_rng(0)(0) == 0x6627e8d5u);
  CHECK(philox_rng(0)(3) == 0x9b00dbd8u);
}

TEST_CASE("philox_stream: stochastic rounding to half from the stream equals round_to with philox_rng's bits") {
#if defined(MIXPREC_SIMD_AVX2)
  check_half_width<simd::vec256>();
#endif
#if defined(MIXPREC_SIMD_AVX512)
  check_half_width<simd::vec512>();
#endif
  CHECK(round_to<half>(1.0f, 0u, overflow::ieee).bits() == 0x3c00);
}
