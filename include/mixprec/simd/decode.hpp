// SPDX-License-Identifier: MIT
// mixprec/simd/decode.hpp — one-byte formats (FP8, FP6, FP4) -> float, written once over the
// vector traits (simd/vec_avx512.hpp, simd/vec_avx2.hpp).
//
// What: decode_bytes<V, F>(src, dst, n) stores dst[i] = float(code src[i] of F) for every
// one-byte format F (FP8, FP6, FP4, e8m0, ue4m3, ue5m3). The decoder by format and ISA:
// - four-bit formats with AVX2: one 16-entry byte shuffle (decode_by_nibble);
// - the shift decoder (decode_by_shift, shift_format: at most 16 magnitudes off one formula,
//   every format but e3m4): unsigned formats at every width, signed ones where VBMI is not
//   compiled in, except e5m2;
// - with VBMI, signed formats: a 128-entry table of the floats' high 16 bits looked up as two
//   byte tables (decode_by_byte_lookup); AVX-512 without VBMI, the rest (FP4, e3m4) as words
//   (decode_by_lookup);
// - e5m2, and e3m4 with AVX2: the code placed in a half, then vcvtph2ps (decode);
// - other table formats: the 256-entry table by byte lookup (VBMI) or vpgatherdd (decode_by_table).
// Method of each: docs/pages/kernels-reference.md. No result depends on MXCSR.
// Contract: the bits of round_to<float> for every code (NaN payloads and signs as the scalar
// path gives them); tests/test_convert.cpp and tests/test_decode_shift.cpp check all 256 codes
// of every format at every compiled width.
//   simd::decode_bytes<simd::vec512, format<4, 3, encoding::fn>>(codes, out, n);
#ifndef MIXPREC_SIMD_DECODE_HPP
#define MIXPREC_SIMD_DECODE_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../core/detail/codec.hpp"
#include "../core/format.hpp"
#include "vec_avx2.hpp"
#include "vec_avx512.hpp"

namespace mixprec {
namespace simd {

/// Whether F's one-byte codes decode through half (see the top of this header).
template <class F>
struct decode_format {
  static constexpr bool supported =
      F::storage_bits <= 8 && F::padding_bits == 0 && F::is_signed && F::mantissa_bits >= 1 &&
      (F::exponent_bits < 5 || (F::exponent_bits == 5 && F::enc == encoding::ieee && F::bias == 15)) &&
      (F::enc == encoding::ieee || F::enc == encoding::fn || F::enc == encoding::fnuz ||
       F::enc == encoding::finite);
  static constexpr int M = F::mantissa_bits;
  static constexpr int scale_exp = 15 - F::bias;  ///< the product's power of two
  static constexpr bool full_byte = F::exponent_bits + F::mantissa_bits == 7;  ///< the sign is bit 7
};

#if defined(MIXPREC_SIMD_AVX2) || defined(MIXPREC_SIMD_AVX512)
/// 16-bit lanes of codes (sign-extended from 8 bits where F fills the byte) -> floats.
template <class V, class F>
inline typename V::vf decode(typename V::vh c) noexcept {
  using t = decode_format<F>;
  using vh = typename V::vh;
  constexpr auto mag_mask = static_cast<std::uint16_t>(F::magnitude_mask);
  vh mag, sgn, h;
  if constexpr (t::full_byte) {
    // c sign-extended: c << (10 - M) puts the sign in bit 15 (and copies above F's exponent,
    // cleared by the mask; none left when the exponent field is half's)
    h = V::template h_slli<10 - t::M>(c);
    if constexpr (10 - t::M != 8) h = V::h_and(h, V::h_set1(static_cast<std::uint16_t>(0x8000u | (mag_mask << (10 - t::M)))));
    mag = V::h_and(c, V::h_set1(mag_mask));
    sgn = V::h_and(h, V::h_set1(0x8000));
  } else {
    mag = V::h_and(c, V::h_set1(mag_mask));
    sgn = V::template h_slli<15 - F::exponent_bits - t::M>(V::h_and(c, V::h_set1(static_cast<std::uint16_t>(F::sign_mask))));
    h = V::h_or(V::template h_slli<10 - t::M>(mag), sgn);
  }
  (void)mag;
  if constexpr (F::enc == encoding::ieee && F::exponent_bits < 5) {  // infinity and NaNs: half's field
    constexpr auto field = static_cast<std::uint16_t>(F::exponent_field_max << t::M);
    const vh special = V::h_eq(V::h_and(mag, V::h_set1(field)), V::h_set1(field));
    h = V::h_select(special, V::h_or(h, V::h_set1(0x7c00)), h);
  } else if constexpr (F::enc == encoding::fn) {
    const vh nan = t::full_byte ? V::h_eq(V::h_and(h, V::h_set1(0x7fff)), V::h_set1(static_cast<std::uint16_t>(mag_mask << (10 - t::M))))
                                : V::h_eq(mag, V::h_set1(mag_mask));
    h = V::h_select(nan, V::h_or(sgn, V::h_set1(0x7e00)), h);
  } else if constexpr (F::enc == encoding::fnuz) {
    const vh nan = V::h_eq(c, V::h_set1(static_cast<std::uint16_t>(t::full_byte ? 0xff80u : F::sign_mask)));
    h = V::h_select(nan, V::h_set1(0xfe00), h);
  }
  const typename V::vf f = V::h2f(h);
  if constexpr (t::scale_exp == 0) {
    return f;
  } else {
    constexpr float scale = t::scale_exp > 0 ? static_cast<float>(1ull << (t::scale_exp > 0 ? t::scale_exp : 0))
                                             : 1.0f / static_cast<float>(1ull << (t::scale_exp < 0 ? -t::scale_exp : 0));
    return V::f_mul(f, V::f_set1(scale));
  }
}

/// The 128-entry table of the lookup decoder: the high 16 bits of round_to<float> of each code
/// (every value of these formats, NaNs and infinities included, is a bfloat16: float's exponent
/// range and at most 7 mantissa bits, NaN payloads of at most 6 bits). Full-byte formats: the
/// magnitude codes (the sign is ORed in after); narrower ones: every code c < 2^bits repeated
/// over the index's 7 bits (bits above the format ignored, as decode_bits does).
template <class F>
struct bf16_table {
  std::uint16_t v[128] = {};
  std::uint8_t hi[128] = {};  ///< v's high bytes (the byte lookup)
  std::uint8_t lo[128] = {};  ///< v's low bytes
  constexpr bf16_table() noexcept {
    for (unsigned i = 0; i < 128; ++i) {
      const std::uint64_t code = F::is_signed && F::exponent_bits + F::mantissa_bits == 7 ? i : i & ((1u << F::storage_bits) - 1u);
      const detail::exact_value u = detail::decode_bits<F>(static_cast<typename F::storage_type>(code));
      v[i] = static_cast<std::uint16_t>(detail::encode_bits<format<8, 23>>(u, rounding::nearest_even, overflow::ieee) >> 16);
      hi[i] = static_cast<std::uint8_t>(v[i] >> 8);
      lo[i] = static_cast<std::uint8_t>(v[i]);
    }
  }
};
template <class F>
struct bf16_table_holder {
  static constexpr bf16_table<F> table{};
};
template <class F>
constexpr bf16_table<F> bf16_table_holder<F>::table;

/// Whether the lookup decoder takes F: one byte, signed, every value a half.
template <class F>
struct lookup_format {
  static constexpr bool supported = F::storage_bits <= 8 && F::padding_bits == 0 &&
                                    F::mantissa_bits <= 7 && F::emin - F::mantissa_bits >= -133 && F::emax <= 127 &&
                                    F::enc != encoding::exponent_only &&
                                    ((F::is_signed && F::exponent_bits + F::mantissa_bits == 7) || F::storage_bits <= 7);
  /// The sign is bit 7 (looked up by magnitude, then ORed in); otherwise the table holds every
  /// code of F's storage_bits, repeated over the index's 7 bits (bit 7 ignored, as decode_bits does).
  static constexpr bool full = F::is_signed && F::exponent_bits + F::mantissa_bits == 7;
};

/// one(p, out) (N codes to N floats) for the m < N codes at p, through buffers.
template <std::size_t N, class One>
inline void decode_part(const One& one, const std::uint8_t* p, float* out, std::size_t m) noexcept {
  std::uint8_t in[N < 16 ? 16 : N] = {};
  float buf[N] = {};
  std::memcpy(in, p, m);
  one(in, buf);
  std::memcpy(out, buf, m * sizeof(float));
}
/// The head of decode_steps: the codes before d + i is 64-byte aligned (at most N - 1), through
/// a buffer; returns i.
template <std::size_t N, class One>
inline std::size_t decode_head(const std::uint8_t* s, float* d, std::size_t n, const One& one) noexcept {
  std::size_t i = (64 - (reinterpret_cast<std::uintptr_t>(d) & 63)) % 64 / sizeof(float) % N;
  if (i > n || reinterpret_cast<std::uintptr_t>(d) % sizeof(float) != 0) i = 0;
  if (i > 0) decode_part<N>(one, s, d, i);
  return i;
}
/// Runs one(p, out) (N codes to N floats) over n codes: a head of at most N - 1 codes through
/// a buffer until d is 64-byte aligned (the stores then never split a cache line), the steps,
/// the tail through a buffer.
template <std::size_t N, class One>
inline void decode_rest(const std::uint8_t* s, float* d, std::size_t n, const One& one, std::size_t i) noexcept {
  for (; i + N <= n; i += N) one(s + i, d + i);
  if (i < n) decode_part<N>(one, s + i, d + i, n - i);
}
template <std::size_t N, class One>
inline void decode_steps(const std::uint8_t* s, float* d, std::size_t n, const One& one) noexcept {
  decode_rest<N>(s, d, n, one, decode_head<N>(s, d, n, one));
}
/// decode_steps of one(p, out) = back(front(load(p)), out), the aligned steps pipelined: step k's
/// back with step k + 1's front and step k + 2's load, so that the out-of-order core is not left
/// waiting on one step's chain of dependent shuffles.
template <std::size_t N, class Load, class Front, class Back>
inline void decode_stages(const std::uint8_t* s, float* d, std::size_t n, const Load& load_, const Front& front_,
                          const Back& back_) noexcept {
  const Load load = load_;  // local copies: their captures stay in registers across the stores
  const Front front = front_;
  const Back back = back_;
  const auto one = [&](const std::uint8_t* p, float* out) noexcept { back(front(load(p)), out); };
  std::size_t i = decode_head<N>(s, d, n, one);
  if (n - i >= 4 * N) {
    auto st0 = front(load(s + i));
    auto st1 = front(load(s + i + N));
    auto c = load(s + i + 2 * N);
    for (; i + 4 * N <= n; i += N) {
      const auto c3 = load(s + i + 3 * N);
      const auto st2 = front(c);
      back(st0, d + i);
      st0 = st1;
      st1 = st2;
      c = c3;
    }
    back(st0, d + i);
    back(st1, d + i + N);
    back(front(c), d + i + 2 * N);
    i += 3 * N;
  }
  decode_rest<N>(s, d, n, one, i);
}

#if defined(MIXPREC_SIMD_AVX512)
/// The lookup decoder, 32 codes a step (V with has_lookup128).
template <class V, class F>
inline void decode_by_lookup(const std::uint8_t* s, float* d, std::size_t n) noexcept {
  using vw = typename V::vw;
  constexpr std::size_t W = V::NW;
  constexpr bool full = lookup_format<F>::full;
  const auto& tab = bf16_table_holder<F>::table.v;
  vw t[4];
  std::memcpy(t, tab, sizeof t);
  const auto one = [&t](const std::uint8_t* p, float* out) noexcept {
    if constexpr (full) {
      const vw c = V::w_order_for_store(V::w_load8s(p));  // the sign fills bits 7-15: bit 15 is float's
      vw h = V::w_or(V::w_lookup128(t, c), V::w_and(c, V::w_set1(0x8000)));
      if constexpr (F::enc == encoding::fnuz) h = V::w_replace_eq(h, c, V::w_set1(0xff80), V::w_set1(0xffc0));
      V::w_store_high_words(out, h);
    } else {
      V::w_store_high_words(out, V::w_lookup128(t, V::w_order_for_store(V::w_load8(p))));
    }
  };
  decode_steps<W>(s, d, n, one);
}
#endif

/// Whether F decodes by a 256-entry table of its floats' bits (table[code] = round_to<float>'s
/// bits, NaNs included): the one-byte formats the two decoders above do not take (e8m0, ue5m3).
template <class F>
struct table_format {
  static constexpr bool supported = F::storage_bits == 8 && F::padding_bits == 0 && !decode_format<F>::supported &&
                                    !lookup_format<F>::supported;
};
/// The 256 floats' bits of F's codes, and whether every one is a bfloat16 (the low 16 bits zero).
template <class F>
struct float_table {
  std::uint32_t v[256] = {};
  std::uint8_t hi[256] = {};  ///< bits 24-31 (the byte lookup)
  std::uint8_t lo[256] = {};  ///< bits 16-23
  bool bf16 = true;
  constexpr float_table() noexcept {
    for (unsigned i = 0; i < 256; ++i) {
      const detail::exact_value u = detail::decode_bits<F>(static_cast<typename F::storage_type>(i));
      v[i] = static_cast<std::uint32_t>(detail::encode_bits<format<8, 23>>(u, rounding::nearest_even, overflow::ieee));
      hi[i] = static_cast<std::uint8_t>(v[i] >> 24);
      lo[i] = static_cast<std::uint8_t>(v[i] >> 16);
      bf16 = bf16 && (v[i] & 0xffffu) == 0;
    }
  }
};
template <class F>
struct float_table_holder {
  static constexpr float_table<F> table{};
};
template <class F>
constexpr float_table<F> float_table_holder<F>::table;

#if defined(MIXPREC_SIMD_AVX512_VBMI)
/// The lookup decoder on bytes (AVX-512 VBMI), 64 codes a step: the table's high and low bytes
/// by one vpermi2b each (7-bit index; a full-byte format's sign bit is ignored, then ORed in),
/// interleaved into words and widened by unpacking with zero words. The unpacks work within
/// 128-bit lanes: float o = 16 s + 4 L + d of a step comes from byte 16 L + 4 s + d, so the
/// codes are first transposed as 4 x 4 blocks of dwords (one vpermd).
/// Wide: F's 256 codes (float_table, every value a bfloat16): two lookups by the low 7 bits,
/// the one of bit 7 kept.
template <class F, bool Wide = false>
inline void decode_by_byte_lookup(const std::uint8_t* s, float* d, std::size_t n) noexcept {
  constexpr bool full = !Wide && lookup_format<F>::full;
  const auto& tab = *[] {
    if constexpr (Wide) {
      return &float_table_holder<F>::table;
    } else {
      return &bf16_table_holder<F>::table;
    }
  }();
  const __m512i h0 = _mm512_loadu_si512(tab.hi), h1 = _mm512_loadu_si512(tab.hi + 64);
  const __m512i l0 = _mm512_loadu_si512(tab.lo), l1 = _mm512_loadu_si512(tab.lo + 64);
  const __m512i h2 = _mm512_loadu_si512(tab.hi + (Wide ? 128 : 0)), h3 = _mm512_loadu_si512(tab.hi + (Wide ? 192 : 64));
  const __m512i l2 = _mm512_loadu_si512(tab.lo + (Wide ? 128 : 0)), l3 = _mm512_loadu_si512(tab.lo + (Wide ? 192 : 64));
  const auto one = [&](const std::uint8_t* p, float* out) noexcept {
    const __m512i c = vec512::b_order_for_widen(_mm512_loadu_si512(p));
    __m512i bh = _mm512_permutex2var_epi8(h0, c, h1);
    __m512i bl = _mm512_permutex2var_epi8(l0, c, l1);
    if constexpr (Wide) {  // codes from 128: the upper half's lookups
      const __mmask64 up = _mm512_movepi8_mask(c);
      bh = _mm512_mask_mov_epi8(bh, up, _mm512_permutex2var_epi8(h2, c, h3));
      bl = _mm512_mask_mov_epi8(bl, up, _mm512_permutex2var_epi8(l2, c, l3));
    } else {
      (void)h2, (void)h3, (void)l2, (void)l3;
    }
    if constexpr (full) {
      bh = _mm512_ternarylogic_epi32(bh, c, _mm512_set1_epi8(static_cast<char>(0x80)), 0xf8);  // bh | (c & 0x80)
      if constexpr (F::enc == encoding::fnuz) {  // code 0x80: the NaN (the table's zero with the sign)
        const __mmask64 nan = _mm512_cmpeq_epi8_mask(c, _mm512_set1_epi8(static_cast<char>(0x80)));
        bh = _mm512_mask_mov_epi8(bh, nan, _mm512_set1_epi8(static_cast<char>(0xff)));
        bl = _mm512_mask_mov_epi8(bl, nan, _mm512_set1_epi8(static_cast<char>(0xc0)));
      }
    }
    vec512::w_store_high_words(out, vec512::b_unpacklo(bl, bh));
    vec512::w_store_high_words(out + 32, vec512::b_unpackhi(bl, bh));
  };
  decode_steps<64>(s, d, n, one);
}
#endif

/// Whether F's codes decode by shifts (shift_format<F>): one byte (bits above F's storage ignored),
/// every float a bfloat16, at most 16 magnitudes off one formula. The high 16 bits of the float
/// of a code of magnitude m (c & mag) are w = (m << (7 - M)) + off16 (mod 2^16), computed from a
/// word of two bytes, m and x (0 for these codes): right, (m << 8 | x) >> (M + 1); else
/// (x << 8 | m) << (7 - M). The other magnitudes lie in a window of 16, (m + k) & mag < 16
/// (zero, the subnormals, infinities, NaNs, e8m0's 2^-127), and take m and x from 16-entry
/// tables indexed by m + k (right: where their w - off16 has its top M + 1 bits clear, e8m0; else
/// where it has its low 7 - M bits clear). A signed F's sign is x's bit M (w's bit 15; the left
/// form only, every negative code the negated float of its magnitude, but for the sign bit
/// alone, which may be a NaN: nan_c and nan_x, fnuz). The constructor checks all 256 codes
/// against float_table.
template <class F>
struct shift_decode {
  static constexpr int M = F::mantissa_bits;  ///< F's mantissa bits
  static constexpr int S = F::exponent_bits + M;  ///< the sign's bit (signed F)
  static constexpr auto off16 = static_cast<std::uint16_t>(static_cast<unsigned>(127 - F::bias) << 7);  ///< mod 2^16
  static constexpr unsigned mag = static_cast<unsigned>(F::magnitude_mask);  ///< the magnitude's bits
  std::uint8_t c[16] = {};  ///< the m byte of the magnitudes in the window, index m + k
  std::uint8_t x[16] = {};  ///< their x byte
  unsigned k = 0;           ///< the window's offset
  bool right = false;       ///< the form (m << 8 | x) >> (M + 1)
  bool fix_c = false;       ///< some m byte differs from the magnitude
  bool nan_fix = false;     ///< the sign bit alone (fnuz's NaN) takes nan_c and nan_x
  std::uint8_t nan_c = 0, nan_x = 0;  ///< its m and x bytes
  bool exact = false;       ///< every code's float equals float_table's
  constexpr unsigned pre(unsigned w) const noexcept {  ///< the word of two bytes that gives w
    const unsigned delta = (w - off16) & 0xffffu;
    return right ? (delta << (M + 1)) & 0xffffu : delta >> (7 - M);
  }
  constexpr unsigned word(unsigned cb, unsigned xb) const noexcept {  ///< w of the bytes cb and xb
    const unsigned w = right ? (cb << 8 | xb) >> (M + 1) : ((xb << 8 | cb) << (7 - M)) & 0xffffu;
    return (w + off16) & 0xffffu;
  }
  constexpr shift_decode() noexcept {
    const auto& t = float_table_holder<F>::table;
    if (!t.bf16 || F::storage_bits > 8 || F::padding_bits != 0 || M > 7 || F::exponent_bits > 8) return;
    constexpr unsigned sign = F::is_signed ? 1u << S : 0u;
    for (int form = 0; form < (F::is_signed ? 1 : 2) && !exact; ++form) {
      right = form == 1;
      // the window: the magnitudes off the formula, from one of them (or 0)
      bool off[256] = {};
      unsigned count = 0;
      for (unsigned m = 0; m <= mag; ++m) {
        off[m] = word(m, 0) << 16 != t.v[m];
        count += off[m];
      }
      if (count > 16) continue;
      bool found = false;
      for (unsigned start = 0; start <= mag && !found; ++start) {
        if (start != 0 && !off[start]) continue;
        k = (mag + 1 - start) & mag;
        bool all = true;
        for (unsigned m = 0; m <= mag; ++m) all = all && (!off[m] || ((m + k) & mag) < 16);
        found = all;
      }
      if (!found) continue;
      fix_c = false;
      for (unsigned i = 0; i < 16; ++i) {
        const unsigned m = (i + mag + 1 - k) & mag, p = pre(t.v[m] >> 16);
        c[i] = static_cast<std::uint8_t>(right ? p >> 8 : p & 255u);
        x[i] = static_cast<std::uint8_t>(right ? p & 255u : p >> 8);
        fix_c = fix_c || c[i] != m;
      }
      const unsigned pn = pre(t.v[sign] >> 16);
      nan_c = static_cast<std::uint8_t>(pn & 255u);
      nan_x = static_cast<std::uint8_t>(pn >> 8);
      bool ok = true, nan_differs = false;
      for (unsigned code = 0; code < 256; ++code) {
        const unsigned m = code & mag, i = (m + k) & mag, cb = i < 16 ? c[i] : m;
        const unsigned xb = (i < 16 ? x[i] : 0u) ^ (F::is_signed ? ((code >> (S - M)) & (1u << M)) : 0u);
        const bool nan = F::is_signed && (code & (mag | sign)) == sign;
        nan_differs = nan_differs || (nan && word(cb, xb) << 16 != t.v[code]);
        ok = ok && (nan ? word(nan_c, nan_x) << 16 == t.v[code] : word(cb, xb) << 16 == t.v[code]);
      }
      nan_fix = nan_differs;
      exact = ok && (!nan_fix || F::storage_bits == 8);
    }
  }
};
template <class F>
struct shift_decode_holder {
  static constexpr shift_decode<F> table{};
};
template <class F>
constexpr shift_decode<F> shift_decode_holder<F>::table;
/// Whether shift_decode takes F.
template <class F>
struct shift_format {
  static constexpr bool supported = [] {
    if constexpr (F::storage_bits <= 8 && F::padding_bits == 0 && F::mantissa_bits <= 7 && F::exponent_bits <= 8) {
      return shift_decode_holder<F>::table.exact;
    } else {
      return false;
    }
  }();
};

/// The shift decoder (shift_format<F>) on bytes, 4 V::N codes a step: x and the m byte from
/// 16-entry tables where (m + k) & mag < 16 (V::b_lt16, V::b_lookup16_z, V::b_patch16: index
/// m + k, or m where V has mask registers and the code bits outside mag), a signed F's sign XORed
/// into x, m and x interleaved into words, shifted, off16 added, the words widened by unpacking
/// with zero words, the codes first transposed as dwords (V::b_order_for_widen) so the floats come
/// out in order. Stores aligned to 64 bytes after a head, the steps pipelined (decode_stages).
template <class V, class F>
inline void decode_by_shift(const std::uint8_t* s, float* d, std::size_t n) noexcept {
  using vi = typename V::vi;
  using sd = shift_decode_holder<F>;
  constexpr int M = F::mantissa_bits, S = shift_decode<F>::S;
  constexpr bool right = sd::table.right, fix_c = sd::table.fix_c, sign = F::is_signed, nan_fix = sd::table.nan_fix;
  constexpr unsigned mag = shift_decode<F>::mag, k = sd::table.k;
  constexpr bool by_m = V::has_mask_registers && mag != 0xffu;
  std::uint8_t tc[16] = {}, tx[16] = {}, tm[16] = {};  // by index: the m byte, x, the magnitude m
  for (unsigned i = 0; i < 16; ++i) {
    const unsigned j = by_m ? (i + k) & 15u : i;
    tc[i] = sd::table.c[j];
    tx[i] = sd::table.x[j];
    tm[i] = static_cast<std::uint8_t>((j + mag + 1 - k) & mag);
  }
  const vi vtc = V::b_patch_table(tc, tm), vtx = V::b_table16(tx);
  struct bytes {
    vi lo, hi;  // the words' low and high bytes
  };
  const auto load = [](const std::uint8_t* p) noexcept { return V::b_order_for_widen(V::load(p)); };
  const auto front = [&](vi c) noexcept {
    const vi m = mag != 0xffu ? V::and_(c, V::b_set1(static_cast<std::uint8_t>(mag))) : c;
    const vi ck = k != 0 ? V::b_add(c, V::b_set1(static_cast<std::uint8_t>(k))) : c;
    const auto sel = V::template b_lt16<mag>(ck);  // (m + k) & mag < 16
    const vi ix = by_m ? m : ck;
    vi x = V::b_lookup16_z(sel, vtx, ix);
    if constexpr (sign) {  // x ^ (sign << M)
      x = V::xor_(x, V::and_(V::template w_srli<S - M>(c), V::b_set1(static_cast<std::uint8_t>(1u << M))));
    }
    vi mm = fix_c ? V::b_patch16(sel, vtc, ix, m) : m;
    if constexpr (nan_fix) {  // the sign bit alone: the NaN
      const auto nan = V::b_eq(c, V::b_set1(static_cast<std::uint8_t>(1u << S)));
      mm = V::b_blend(nan, mm, V::b_set1(sd::table.nan_c));
      x = V::b_blend(nan, x, V::b_set1(sd::table.nan_x));
    }
    return right ? bytes{x, mm} : bytes{mm, x};
  };
  const auto back = [](const bytes& b, float* out) noexcept {
    const auto word = [](typename V::vw w) noexcept {
      w = right ? V::template w_srli<M + 1>(w) : V::template w_slli<7 - M>(w);
      return shift_decode<F>::off16 != 0 ? V::w_add(w, V::w_set1(shift_decode<F>::off16)) : w;
    };
    V::w_store_high_words(out, word(V::b_unpacklo(b.lo, b.hi)));
    V::w_store_high_words(out + 2 * V::N, word(V::b_unpackhi(b.lo, b.hi)));
  };
  decode_stages<4 * V::N>(s, d, n, load, front, back);
}

/// Whether F's codes decode by a 16-entry byte lookup (AVX2): at most 4 bits (e2m1fn), every
/// value a bfloat16 (lookup_format), bits above F ignored.
template <class F>
struct nibble_format {
  static constexpr bool supported = lookup_format<F>::supported && F::storage_bits <= 4;
};

/// The nibble decoder (nibble_format<F>), 4 V::N codes a step: the floats' high and low bytes
/// by one byte shuffle each of bf16_table's first 16 entries, interleaved into words and widened
/// as in decode_by_shift.
template <class V, class F>
inline void decode_by_nibble(const std::uint8_t* s, float* d, std::size_t n) noexcept {
  using vi = typename V::vi;
  const auto& tab = bf16_table_holder<F>::table;
  const vi thi = V::b_table16(tab.hi), tlo = V::b_table16(tab.lo);
  decode_steps<4 * V::N>(s, d, n, [&](const std::uint8_t* p, float* out) noexcept {
    const vi c = V::and_(V::b_order_for_widen(V::load(p)), V::b_set1(0x0f));
    const vi lo = V::b_shuffle(tlo, c), hi = V::b_shuffle(thi, c);
    V::w_store_high_words(out, V::b_unpacklo(lo, hi));
    V::w_store_high_words(out + 2 * V::N, V::b_unpackhi(lo, hi));
  });
}

/// The table decoder (table_format<F>; decode_bytes gives the shift decoder the formats it takes
/// first): with VBMI and every value a bfloat16 the byte lookup of 256 codes, else a gather of the
/// floats' bits from the table, V::N codes a step.
template <class V, class F>
inline void decode_by_table(const std::uint8_t* s, float* d, std::size_t n) noexcept {
  constexpr std::size_t N = V::N;
#if defined(MIXPREC_SIMD_AVX512_VBMI)
  if constexpr (N == 16 && float_table_holder<F>::table.bf16) {
    decode_by_byte_lookup<F, true>(s, d, n);
    return;
  }
#endif
  decode_steps<N>(s, d, n, [](const std::uint8_t* p, float* out) noexcept {
    const auto& tab = float_table_holder<F>::table;
// GCC's -O0 macro form of _mm512_i32gather_epi32 passes a -1 mask (-Wsign-conversion in user code).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-conversion"
#endif
#if defined(MIXPREC_SIMD_AVX512)
    if constexpr (N == 16) {
      const __m512i c = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
      _mm512_storeu_si512(out, _mm512_i32gather_epi32(c, static_cast<const void*>(tab.v), 4));
      return;
    }
#endif
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
    if constexpr (N == 8) {
      const __m256i c = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out),
                          _mm256_i32gather_epi32(reinterpret_cast<const int*>(tab.v), c, 4));
    }
  });
}

/// Whether F's exponent field is half's (e5m2): decode() places the code in a half by one shift.
template <class F>
constexpr bool half_field = decode_format<F>::supported && decode_format<F>::scale_exp == 0 && F::exponent_bits == 5;

/// dst[i] = round_to<float>(code s[i] of F) for i < n; false (nothing written) when F is not
/// decode_format<F>::supported (nor, with a table lookup, lookup_format<F>::supported).
template <class V, class F>
inline bool decode_bytes(const std::uint8_t* s, float* d, std::size_t n) noexcept {
#if defined(MIXPREC_SIMD_AVX512_VBMI)
  constexpr bool vbmi = V::N == 16;
#else
  constexpr bool vbmi = false;
#endif
  // four-bit formats by one byte shuffle (AVX2); wider ones by shifts, a signed F only where VBMI's
  // byte lookup is not compiled in
  if constexpr (nibble_format<F>::supported && V::N == 8) {
    decode_by_nibble<V, F>(s, d, n);
    return true;
  } else if constexpr (shift_format<F>::supported && F::storage_bits > 4 && !(vbmi && F::is_signed) &&
                       !half_field<F>) {
    decode_by_shift<V, F>(s, d, n);
    return true;
  }
#if defined(MIXPREC_SIMD_AVX512)
  // the lookup where it saves work: not for half's own exponent field (e5m2: a shift alone)
  if constexpr (V::has_lookup128 && lookup_format<F>::supported && !half_field<F>) {
#if defined(MIXPREC_SIMD_AVX512_VBMI)
    decode_by_byte_lookup<F>(s, d, n);
#else
    decode_by_lookup<V, F>(s, d, n);
#endif
    return true;
  }
#endif
  if constexpr (table_format<F>::supported) {
    decode_by_table<V, F>(s, d, n);
    return true;
  } else if constexpr (!decode_format<F>::supported) {
    (void)s, (void)d, (void)n;
    return false;
  } else {
    constexpr std::size_t N = V::N;
    std::size_t i = 0;
    const auto load = [](const std::uint8_t* p) noexcept {
      if constexpr (decode_format<F>::full_byte) {
        return V::h_load8s(p);
      } else {
        return V::h_load8(p);
      }
    };
    for (; i + 2 * N <= n; i += 2 * N) {
      V::f_store(d + i, decode<V, F>(load(s + i)));
      V::f_store(d + i + N, decode<V, F>(load(s + i + N)));
    }
    for (; i + N <= n; i += N) V::f_store(d + i, decode<V, F>(load(s + i)));
    if (i < n) {
      std::uint8_t in[16] = {};
      float out[N] = {};
      std::memcpy(in, s + i, n - i);
      V::f_store(out, decode<V, F>(load(in)));
      std::memcpy(d + i, out, (n - i) * sizeof(float));
    }
    return true;
  }
}
#endif

}  // namespace simd
}  // namespace mixprec

#endif  // MIXPREC_SIMD_DECODE_HPP
