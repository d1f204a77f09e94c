// SPDX-License-Identifier: MIT
// mixprec/text/detail/decimal.hpp — exact decimal arithmetic for text/charconv.hpp: a fixed-capacity
// unsigned big integer (bignum) and decimal digit strings (decimal), with exact conversion of
// m * 2^q to decimal and rounding of a digit string at a position. No allocation; a size bound
// the callers guarantee is checked (std::abort if exceeded).
#ifndef MIXPREC_TEXT_DETAIL_DECIMAL_HPP
#define MIXPREC_TEXT_DETAIL_DECIMAL_HPP

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "../../core/config.hpp"
#include "../../core/detail/bits.hpp"

namespace mixprec {
namespace detail {

/// Called only if a size bound that the algorithms below guarantee were exceeded.
[[noreturn]] inline void charconv_bound_exceeded() noexcept { std::abort(); }

class bignum {
 public:
  /// 4096 bits. The largest numbers used: 10^801 * 2^64 / 5^1201 while parsing (< 2900 bits)
  /// and (2^55) * 5^1077 while printing (< 2560 bits).
  static constexpr int capacity = 128;

  bignum() noexcept = default;
  explicit bignum(std::uint64_t v) noexcept { assign(v); }

  void assign(std::uint64_t v) noexcept {
    size_ = 0;
    while (v != 0) {
      limb_[size_++] = static_cast<std::uint32_t>(v);
      v >>= 32;
    }
  }
  /// The value of n decimal digits ('0'..'9').
  void assign_decimal(const char* digits, int n) noexcept {
    static constexpr std::uint32_t pow10[10] = {1u,      10u,      100u,      1000u,      10000u,
                                                100000u, 1000000u, 10000000u, 100000000u, 1000000000u};
    size_ = 0;
    int i = 0;
    while (i < n) {
      const int chunk = n - i < 9 ? n - i : 9;
      std::uint32_t v = 0;
      for (int k = 0; k < chunk; ++k) v = v * 10u + static_cast<std::uint32_t>(digits[i + k] - '0');
      mul_small(pow10[chunk]);
      add_small(v);
      i += chunk;
    }
  }

  bool is_zero() const noexcept { return size_ == 0; }
  int bit_length() const noexcept {
    return size_ == 0 ? 0 : (size_ - 1) * 32 + 64 - clz64(limb_[size_ - 1]);
  }

  void mul_small(std::uint32_t m) noexcept {
    std::uint64_t carry = 0;
    for (int i = 0; i < size_; ++i) {
      const std::uint64_t t = std::uint64_t{limb_[i]} * m + carry;
      limb_[i] = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
    if (carry != 0) push(static_cast<std::uint32_t>(carry));
    trim();
  }
  void add_small(std::uint32_t a) noexcept {
    std::uint64_t carry = a;
    for (int i = 0; carry != 0 && i < size_; ++i) {
      const std::uint64_t t = std::uint64_t{limb_[i]} + carry;
      limb_[i] = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
    if (carry != 0) push(static_cast<std::uint32_t>(carry));
  }
  /// Subtracts 1 from a non-zero value.
  void sub_one() noexcept {
    for (int i = 0; i < size_; ++i) {
      if (limb_[i] != 0) {
        --limb_[i];
        break;
      }
      limb_[i] = 0xFFFFFFFFu;
    }
    trim();
  }
  void mul_pow5(int n) noexcept {
    static constexpr std::uint32_t pow5[13] = {1u,      5u,       25u,       125u,       625u,
                                               3125u,   15625u,   78125u,    390625u,    1953125u,
                                               9765625u, 48828125u, 244140625u};
    while (n >= 13) {
      mul_small(1220703125u);  // 5^13
      n -= 13;
    }
    if (n > 0) mul_small(pow5[n]);
  }
  void shl(int bits) noexcept {
    if (size_ == 0 || bits <= 0) return;
    const int limbs = bits / 32;
    const int rest = bits % 32;
    if (size_ + limbs + 1 > capacity) charconv_bound_exceeded();
    limb_[size_ + limbs] = 0;
    for (int i = size_ - 1; i >= 0; --i) {
      const std::uint64_t v = std::uint64_t{limb_[i]} << rest;
      limb_[i + limbs + 1] |= static_cast<std::uint32_t>(v >> 32);
      limb_[i + limbs] = static_cast<std::uint32_t>(v);
    }
    for (int i = 0; i < limbs; ++i) limb_[i] = 0;
    size_ += limbs + 1;
    trim();
  }
  /// *this -= b, where *this >= b.
  void sub(const bignum& b) noexcept {
    std::uint64_t borrow = 0;
    for (int i = 0; i < size_; ++i) {
      const std::uint64_t bi = i < b.size_ ? b.limb_[i] : 0u;
      const std::uint64_t t = std::uint64_t{limb_[i]} - bi - borrow;
      limb_[i] = static_cast<std::uint32_t>(t);
      borrow = t >> 63;
    }
    trim();
  }
  /// Divides by d (non-zero); returns the remainder.
  std::uint32_t div_small(std::uint32_t d) noexcept {
    std::uint64_t rem = 0;
    for (int i = size_ - 1; i >= 0; --i) {
      const std::uint64_t cur = (rem << 32) | limb_[i];
      limb_[i] = static_cast<std::uint32_t>(cur / d);
      rem = cur % d;
    }
    trim();
    return static_cast<std::uint32_t>(rem);
  }
  /// The 64 leading bits of a non-zero value (the leading one in bit 63); sticky tells whether
  /// any bit below them is set.
  std::uint64_t top64(bool& sticky) const noexcept {
    const int bl = bit_length();
    if (bl <= 64) {
      sticky = false;
      return (std::uint64_t{limb(0)} | (std::uint64_t{limb(1)} << 32)) << (64 - bl);
    }
    const int s = bl - 64;
    const int li = s / 32;
    const int bi = s % 32;
    const std::uint64_t lo = std::uint64_t{limb(li)} | (std::uint64_t{limb(li + 1)} << 32);
    std::uint64_t r = lo >> bi;
    if (bi != 0) r |= std::uint64_t{limb(li + 2)} << (64 - bi);
    sticky = bi != 0 && (limb(li) & ((std::uint32_t{1} << bi) - 1u)) != 0;
    for (int i = 0; i < li && !sticky; ++i) sticky = limb_[i] != 0;
    return r;
  }

  friend int compare(const bignum& a, const bignum& b) noexcept {
    if (a.size_ != b.size_) return a.size_ < b.size_ ? -1 : 1;
    for (int i = a.size_ - 1; i >= 0; --i) {
      if (a.limb_[i] != b.limb_[i]) return a.limb_[i] < b.limb_[i] ? -1 : 1;
    }
    return 0;
  }

 private:
  std::uint32_t limb(int i) const noexcept { return i < size_ ? limb_[i] : 0u; }
  void push(std::uint32_t v) noexcept {
    if (size_ == capacity) charconv_bound_exceeded();
    limb_[size_++] = v;
  }
  void trim() noexcept {
    while (size_ > 0 && limb_[size_ - 1] == 0) --size_;
  }

  std::uint32_t limb_[capacity] = {};
  int size_ = 0;
};

/// n / d (both non-zero) as a 64-bit significand with its leading one in bit 63 and every
/// discarded bit folded into bit 0; e receives the exponent: n / d lies in [2^e, 2^(e+1)).
inline std::uint64_t divide_top64(bignum n, bignum d, int& e) noexcept {
  int k = n.bit_length() - d.bit_length();
  if (k > 0) d.shl(k);
  if (k < 0) n.shl(-k);
  if (compare(n, d) < 0) {
    n.shl(1);
    --k;
  }
  std::uint64_t q = 0;
  for (int i = 0; i < 64; ++i) {  // restoring division, one bit at a time; n < 2d throughout
    q <<= 1;
    if (compare(n, d) >= 0) {
      n.sub(d);
      q |= 1u;
    }
    n.shl(1);
  }
  if (!n.is_zero()) q |= 1u;
  e = k;
  return q;
}

// ---------------------------------------------------------------------------------------------
// Decimal digit strings.

/// Enough for every decimal digit string used here (the bignum capacity: 4096 bits < 1234 digits).
inline constexpr int max_decimal_digits = 1280;

/// A non-negative decimal d[0].d[1]d[2]... * 10^x with n significant digits (no leading or
/// trailing zeros); zero has n == 0 and x == 0.
struct decimal {
  char d[max_decimal_digits];
  int n;
  int x;
};

/// Writes the decimal digits of x (non-zero; destroyed) to out, most significant first, and
/// returns their count.
inline int to_decimal_digits(bignum& x, char* out) noexcept {
  constexpr int max_chunks = max_decimal_digits / 9;
  std::uint32_t chunks[max_chunks];
  int nc = 0;
  while (!x.is_zero()) {
    if (nc == max_chunks) charconv_bound_exceeded();
    chunks[nc++] = x.div_small(1000000000u);
  }
  int len = 0;
  char tmp[10];
  int k = 0;
  std::uint32_t c = chunks[nc - 1];
  do {
    tmp[k++] = static_cast<char>('0' + c % 10u);
    c /= 10u;
  } while (c != 0);
  while (k > 0) out[len++] = tmp[--k];
  for (int i = nc - 2; i >= 0; --i) {
    c = chunks[i];
    for (int j = 8; j >= 0; --j) {
      out[len + j] = static_cast<char>('0' + c % 10u);
      c /= 10u;
    }
    len += 9;
  }
  return len;
}

/// Sets r to the digit string s[0..len) (leading zeros allowed) times 10^scale, normalized.
inline void set_decimal(decimal& r, const char* s, int len, int scale) noexcept {
  int z = 0;
  while (z < len && s[z] == '0') ++z;
  int end = len;
  while (end > z && s[end - 1] == '0') --end;
  if (z == end) {
    r.n = 0;
    r.x = 0;
    return;
  }
  r.n = end - z;
  std::memcpy(r.d, s + z, static_cast<std::size_t>(r.n));
  r.x = scale + (len - 1 - z);
}

/// The exact decimal value of m * 2^q (m > 0).
inline void exact_decimal(std::uint64_t m, int q, decimal& r) noexcept {
  bignum b(m);
  int scale = 0;
  if (q >= 0) {
    b.shl(q);
  } else {
    b.mul_pow5(-q);
    scale = q;
  }
  char buf[max_decimal_digits];
  const int len = to_decimal_digits(b, buf);
  set_decimal(r, buf, len, scale);
}

/// Rounds r to a multiple of 10^pos, ties to even.
inline void round_decimal(decimal& r, long long pos) noexcept {
  if (r.n == 0) return;
  const long long keep = static_cast<long long>(r.x) - pos + 1;  // digits kept
  if (keep >= r.n) return;
  if (keep < 0) {  // r < 10^(pos-1): below half of 10^pos
    r.n = 0;
    r.x = 0;
    return;
  }
  const int k = static_cast<int>(keep);
  const char next = r.d[k];
  const bool rest = r.n > k + 1;  // digits after `next` (the last digit is never zero)
  bool up = next > '5' || (next == '5' && rest);
  if (next == '5' && !rest) up = k > 0 && ((r.d[k - 1] - '0') & 1) != 0;  // tie: to even
  if (k == 0) {
    if (up) {
      r.d[0] = '1';
      r.n = 1;
      r.x = static_cast<int>(pos);
    } else {
      r.n = 0;
      r.x = 0;
    }
    return;
  }
  r.n = k;
  if (up) {
    int i = k - 1;
    while (i >= 0 && r.d[i] == '9') --i;
    if (i < 0) {
      r.d[0] = '1';
      r.n = 1;
      ++r.x;
      return;
    }
    ++r.d[i];
    r.n = i + 1;
  }
  while (r.n > 0 && r.d[r.n - 1] == '0') --r.n;
}

}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_TEXT_DETAIL_DECIMAL_HPP
