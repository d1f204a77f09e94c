// SPDX-License-Identifier: MIT
// mixprec/core/random.hpp — counter-based generators of random bits for stochastic rounding.
// Contract: the bits depend only on (seed, counter), so results do not depend on threads or order.
// counter_rng (SplitMix64's output function) is the default; philox_rng is Philox4x32-10, the
// generator of cuRAND, PyTorch, Triton and Transformer Engine; sr_rng selects one at run time.
//
//   const mixprec::counter_rng rng(42);
//   auto h = mixprec::round_stochastic<mixprec::half>(0.1f, rng, /*counter=*/i);
//   auto g = mixprec::round_stochastic<mixprec::half>(0.1f, mixprec::philox_rng(42), i);
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

/// The four 32-bit words of one Philox4x32 block (a counter or an output).
struct philox4x32_block {
  std::uint32_t x;  ///< word 0 (Random123's order)
  std::uint32_t y;  ///< word 1
  std::uint32_t z;  ///< word 2
  std::uint32_t w;  ///< word 3
  /// All four words equal.
  friend MIXPREC_HD constexpr bool operator==(const philox4x32_block& a, const philox4x32_block& b) noexcept {
    return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
  }
  /// Some word differs.
  friend MIXPREC_HD constexpr bool operator!=(const philox4x32_block& a, const philox4x32_block& b) noexcept {
    return !(a == b);
  }
};

/// Philox4x32-R (Salmon, Moraes, Dror, Shaw, SC'11; Random123's philox4x32): the block function of
/// counter ctr under the key (k0, k1). Rounds = 10 is the generator everyone ships; 7 is the
/// smallest the authors found Crush-resistant.
///   philox4x32<10>({0, 0, 0, 0}, 0, 0) == {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}
template <unsigned Rounds = 10>
MIXPREC_HD constexpr philox4x32_block philox4x32(philox4x32_block ctr, std::uint32_t k0, std::uint32_t k1) noexcept {
  static_assert(Rounds >= 1, "mixprec::philox4x32: at least one round");
  for (unsigned r = 0; r < Rounds; ++r) {
    const std::uint64_t p0 = std::uint64_t{0xD2511F53u} * ctr.x;
    const std::uint64_t p1 = std::uint64_t{0xCD9E8D57u} * ctr.z;
    ctr = philox4x32_block{static_cast<std::uint32_t>(p1 >> 32) ^ ctr.y ^ k0, static_cast<std::uint32_t>(p1),
                           static_cast<std::uint32_t>(p0 >> 32) ^ ctr.w ^ k1, static_cast<std::uint32_t>(p0)};
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return ctr;
}

/// Philox4x32-10 as a counter-based generator with cuRAND's layout: the bits for counter n are
/// word n % 4 (x, y, z, w) of the block at counter {n / 4 (64 bits), subsequence (64 bits)} under
/// the key seed. So counter n gives the n-th value of curand() after
/// curand_init(seed, subsequence, 0) on a curandStatePhilox4_32_10_t, and offset + i gives
/// element i the bits that curand_init(seed, subsequence, offset) then i + 1 calls would.
class philox_rng {
 public:
  /// The stream (seed, subsequence).
  MIXPREC_HD constexpr explicit philox_rng(std::uint64_t seed, std::uint64_t subsequence = 0) noexcept
      : seed_(seed), subsequence_(subsequence) {}

  /// The 128-bit block at block counter b (counters 4b .. 4b + 3).
  MIXPREC_HD constexpr philox4x32_block block(std::uint64_t b) const noexcept {
    return philox4x32<10>(philox4x32_block{static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(b >> 32),
                                           static_cast<std::uint32_t>(subsequence_),
                                           static_cast<std::uint32_t>(subsequence_ >> 32)},
                          static_cast<std::uint32_t>(seed_), static_cast<std::uint32_t>(seed_ >> 32));
  }
  /// 32 random bits for this counter.
  MIXPREC_HD constexpr std::uint32_t operator()(std::uint64_t counter) const noexcept {
    const philox4x32_block r = block(counter >> 2);
    switch (counter & 3u) {
      case 0: return r.x;
      case 1: return r.y;
      case 2: return r.z;
      default: return r.w;
    }
  }
  /// The key (seed low and high words).
  MIXPREC_HD constexpr std::uint64_t seed() const noexcept { return seed_; }
  /// The subsequence (the counter's words z and w).
  MIXPREC_HD constexpr std::uint64_t subsequence() const noexcept { return subsequence_; }

 private:
  std::uint64_t seed_;
  std::uint64_t subsequence_;
};

/// The counter-based generators that the kernels' stochastic rounding can draw from.
enum class rng_kind : unsigned char {
  splitmix64,     ///< counter_rng (the default)
  philox4x32_10,  ///< philox_rng, subsequence 0
};

/// True for the enumerators of rng_kind.
MIXPREC_HD constexpr bool is_valid(rng_kind k) noexcept {
  return k == rng_kind::splitmix64 || k == rng_kind::philox4x32_10;
}

/// A generator chosen at run time: (kind, seed) -> counter_rng(seed) or philox_rng(seed).
///   const mixprec::sr_rng rng(mixprec::rng_kind::philox4x32_10, 7);  // rng(i) == philox_rng(7)(i)
class sr_rng {
 public:
  /// The generator kind with this seed.
  MIXPREC_HD constexpr sr_rng(rng_kind kind, std::uint64_t seed) noexcept
      : kind_(kind), seed_(seed), splitmix_(seed) {}
  /// 32 random bits for this counter from the chosen generator.
  MIXPREC_HD constexpr std::uint32_t operator()(std::uint64_t counter) const noexcept {
    return kind_ == rng_kind::philox4x32_10 ? philox_rng(seed_)(counter) : splitmix_(counter);
  }
  /// The generator kind.
  MIXPREC_HD constexpr rng_kind kind() const noexcept { return kind_; }
  /// The seed.
  MIXPREC_HD constexpr std::uint64_t seed() const noexcept { return seed_; }
  /// counter_rng(seed) (the generator when kind() is splitmix64; vector code draws from its key).
  MIXPREC_HD constexpr const counter_rng& splitmix() const noexcept { return splitmix_; }

 private:
  rng_kind kind_;
  std::uint64_t seed_;
  counter_rng splitmix_;
};

/// Stochastic rounding of x to T with the bits of rng (counter_rng, philox_rng or sr_rng) at counter.
template <class T, class S, class Rng>
MIXPREC_HD constexpr T round_stochastic(S x, const Rng& rng, std::uint64_t counter,
                                        overflow policy = overflow::ieee) noexcept {
  return round_to<T>(x, rng(counter), policy);
}

}  // namespace mixprec

#endif  // MIXPREC_RANDOM_HPP
