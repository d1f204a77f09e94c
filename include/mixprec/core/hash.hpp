// SPDX-License-Identifier: MIT
// mixprec/core/hash.hpp — std::hash for every mixprec type, consistent with IEEE equality.
//
// Values that compare equal hash equally: +0 and -0 share one hash, and every NaN (any sign or
// payload) hashes to the same value, so that a NaN key does not scatter (NaN != NaN, so such
// keys are never found again anyway). Every other value hashes its bit pattern (whose padding
// bits are always zero), as std::hash of the storage integer does.
//
//   std::unordered_set<mixprec::half> s{mixprec::half(0.0), -mixprec::half(0.0)};  // one element
#ifndef MIXPREC_HASH_HPP
#define MIXPREC_HASH_HPP

#include <cstddef>
// Declares std::hash and its integer specializations ([unord.hash]: every header that declares
// hash provides them) at a fraction of <functional>'s compile cost.
#include <string_view>

#include "basic_float.hpp"
#include "detail/codec.hpp"

namespace std {

/// std::hash of a mixprec type: equal values (+0 and -0) hash equally; all NaNs share one hash.
template <class F>
struct hash<mixprec::basic_float<F>> {
  /// The hash of x (that of its bits, but one value for +-0 and one for every NaN).
  std::size_t operator()(mixprec::basic_float<F> x) const noexcept {
    using S = typename F::storage_type;
    const mixprec::detail::exact_value u = mixprec::detail::decode_bits<F>(x.bits());
    switch (u.cls) {
      case mixprec::detail::value_class::zero: return std::hash<S>{}(S{0});
      case mixprec::detail::value_class::nan:
        // The code of the positive quiet NaN: no number has it.
        return std::hash<S>{}(mixprec::detail::storage_of<F>(mixprec::detail::nan_code(F{}, 
            mixprec::detail::exact_value{mixprec::detail::value_class::nan, false, true, 0, 0})));
      default: return std::hash<S>{}(x.bits());
    }
  }
};

}  // namespace std

#endif  // MIXPREC_HASH_HPP
