// SPDX-License-Identifier: MIT
// mixprec/random.hpp — a counter-based generator of random bits for stochastic rounding.
// Contract: the bits depend only on (seed, counter), so results do not depend on threads or order.
//
//   const mixprec::counter_rng rng(42);
//   auto h = mixprec::round_stochastic<mixprec::half>(0.1f, rng, /*counter=*/i);
#ifndef MIXPREC_RANDOM_HPP
#define MIXPREC_RANDOM_HPP

#include <cstdint>

#include "round_to.hpp"

namespace mixprec {

/// A stateless, counter-based generator: the bits for (seed, counter) are a fixed function of
/// the two (SplitMix64's output function), so element i of a tensor gets the same bits on any
/// thread, any device and in any order. Use one counter per rounded value (e.g. offset + index).
class counter_rng {
 public:
  /// The generator of seed (the key is seed mixed once).
  MIXPREC_HD constexpr explicit counter_rng(std::uint64_t seed) noexcept : key_(mix(seed)) {}

  /// 64 random bits for this counter.
  MIXPREC_HD constexpr std::uint64_t bits64(std::uint64_t counter) const noexcept {
    return mix(key_ + (counter + 1) * 0x9E3779B97F4A7C15ull);
  }
  /// 32 random bits for this counter (the high half of bits64).
  MIXPREC_HD constexpr std::uint32_t operator()(std::uint64_t counter) const noexcept {
    return static_cast<std::uint32_t>(bits64(counter) >> 32);
  }
  /// The mixed seed.
  MIXPREC_HD constexpr std::uint64_t key() const noexcept { return key_; }

 private:
  MIXPREC_HD static constexpr std::uint64_t mix(std::uint64_t z) noexcept {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t key_;
};

/// Stochastic rounding of x to T with the bits of rng at counter.
template <class T, class S>
MIXPREC_HD constexpr T round_stochastic(S x, const counter_rng& rng, std::uint64_t counter,
                                        overflow policy = overflow::ieee) noexcept {
  return round_to<T>(x, rng(counter), policy);
}

}  // namespace mixprec

#endif  // MIXPREC_RANDOM_HPP
