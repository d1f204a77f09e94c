// SPDX-License-Identifier: MIT
// simd/philox.hpp: the vector Philox4x32-10 stream equals the scalar philox_rng(seed)(counter + i)
// word for word, through next() and next_batch() and both mixed, at every compiled width, from
// counters at every word of a block and around the block counter's carry into its high word
// (batches whose blocks do not share a high word take the general rounds) and past 2^64.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <ios>
#include <vector>

#include <mixprec/core/random.hpp>
#include <mixprec/simd/philox.hpp>

using namespace mixprec;

namespace {

#if defined(MIXPREC_SIMD_AVX2) || defined(MIXPREC_SIMD_AVX512)
template <class V>
std::vector<std::uint32_t> words_of(typename V::vi v) {
  std::vector<std::uint32_t> w(V::N);
  std::memcpy(w.data(), &v, V::N * sizeof(std::uint32_t));
  return w;
}

/// The first `vectors` vectors of the stream at (seed, counter) equal philox_rng's words; calls:
/// 0 = next() only, 1 = next_batch only, 2 = one next_batch then next().
template <class V>
void check_stream(std::uint64_t seed, std::uint64_t counter, int calls) {
  using stream = simd::philox_stream<V>;
  const philox_rng ref(seed);
  stream g(seed, counter);
  const std::size_t vectors = 3 * stream::batch + 2;
  std::vector<std::uint32_t> got;
  std::size_t k = 0;
  if (calls != 0) {
    for (; k + stream::batch <= vectors; k += stream::batch) {
      typename V::vi b[stream::batch];
      g.next_batch(b);
      for (std::size_t j = 0; j < stream::batch; ++j) {
        const auto w = words_of<V>(b[j]);
        got.insert(got.end(), w.begin(), w.end());
      }
      if (calls == 2) break;
    }
  }
  for (; k < vectors; ++k) {
    const auto w = words_of<V>(g.next());
    got.insert(got.end(), w.begin(), w.end());
  }
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != ref(counter + i) && bad++ < 3) {
      MESSAGE("seed " << std::hex << seed << " counter " << counter << " word " << std::dec << i << ": got "
                      << std::hex << got[i] << " want " << ref(counter + i));
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
      for (int calls = 0; calls < 3; ++calls) {
        INFO("width " << V::N << ", calls " << calls);
        check_stream<V>(seed, counter, calls);
      }
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
