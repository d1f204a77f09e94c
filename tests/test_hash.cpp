// mixprec — std::hash agrees with == : +0 and -0 hash equal, all NaNs hash equal, other values
// hash (almost always) apart.
// SPDX-License-Identifier: MIT
#include <mixprec/hash.hpp>
#include <mixprec/mixprec.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "formats_list.hpp"

namespace {

template <class T>
std::size_t hash_of(T x) {
  return std::hash<T>{}(x);
}

template <class T>
std::vector<T> values_of() {
  // every code of formats up to 16 bits, a sample of tf32
  using F = typename T::format_type;
  std::vector<T> v;
  const std::uint64_t n = std::uint64_t{1} << F::bits;
  const std::uint64_t step = F::bits <= 16 ? 1u : 37u;
  for (std::uint64_t c = 0; c < n; c += step) v.push_back(mixprec::detail::from_code<T>(c));
  return v;
}

template <class T>
bool is_nan(T x) {
  return mixprec::detail::decode_bits<typename T::format_type>(x.bits()).cls == mixprec::detail::value_class::nan;
}

TEST_CASE_TEMPLATE("std::hash agrees with ==", T, MIXPREC_ALL_FORMATS) {
  using F = typename T::format_type;
  const std::vector<T> values = values_of<T>();

  // +0 and -0 compare equal and hash equal.
  if (F::has_signed_zero) {
    const T pz = mixprec::detail::from_code<T>(0);
    const T nz = mixprec::detail::from_code<T>(F::sign_mask);
    CHECK(pz == nz);
    CHECK(hash_of(pz) == hash_of(nz));
  }
  // Every NaN hashes like every other NaN.
  const std::size_t nan_hash = hash_of(std::numeric_limits<T>::quiet_NaN());
  long nans = 0;
  for (const T x : values) {
    if (is_nan(x)) {
      ++nans;
      CHECK(hash_of(x) == nan_hash);
    }
  }
  if (F::has_nan) CHECK(nans > 0);

  // a == b implies equal hashes: check within each class of equal values (grouped by value,
  // which is exact in double for every format here).
  std::unordered_map<double, std::size_t> hash_by_value;
  long mismatches = 0;
  for (const T x : values) {
    if (is_nan(x)) continue;
    const auto it = hash_by_value.emplace(static_cast<double>(x), hash_of(x)).first;
    if (it->second != hash_of(x)) ++mismatches;
  }
  CHECK(mismatches == 0);

  // Distinct values: distinct hashes, nearly always (all of them with libstdc++'s hash of
  // integers).
  std::unordered_set<std::size_t> distinct;
  for (const auto& kv : hash_by_value) distinct.insert(kv.second);
  CHECK(static_cast<double>(distinct.size()) >= 0.99 * static_cast<double>(hash_by_value.size()));

  // Usable as a key: +0 and -0 are one key.
  std::unordered_set<T> set;
  for (const T x : values) {
    if (!is_nan(x)) set.insert(x);
  }
  CHECK(set.size() == hash_by_value.size());
}

TEST_CASE("pairs of 8-bit values: equal values hash equal") {
  using T = mixprec::float8_e4m3fn;
  for (std::uint32_t a = 0; a < 256; ++a) {
    for (std::uint32_t b = 0; b < 256; ++b) {
      const T x = T::from_bits(static_cast<std::uint8_t>(a));
      const T y = T::from_bits(static_cast<std::uint8_t>(b));
      if (x == y) CHECK(hash_of(x) == hash_of(y));
    }
  }
  using E = mixprec::float8_e5m2;
  for (std::uint32_t a = 0; a < 256; ++a) {
    for (std::uint32_t b = 0; b < 256; ++b) {
      const E x = E::from_bits(static_cast<std::uint8_t>(a));
      const E y = E::from_bits(static_cast<std::uint8_t>(b));
      if (x == y) CHECK(hash_of(x) == hash_of(y));
    }
  }
}

}  // namespace
