// SPDX-License-Identifier: MIT
// simd/decode.hpp's byte decoders: the shift decoder (every one-byte format with at most 16
// magnitudes off its formula: e8m0, ue5m3, ue4m3, e4m3fn, e4m3fnuz, e5m2, FP6, ...), the table
// formats' VBMI byte lookup and gather, and decode_bytes' choice give round_to<float>'s bits (itself
// checked against independent references elsewhere) for all 256 codes, at every offset of source
// and destination and every length around the vector width (the aligning head and the tail).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include <mixprec/mixprec.hpp>
#include <mixprec/simd/decode.hpp>

using namespace mixprec;

namespace {

#if defined(MIXPREC_SIMD_AVX2) || defined(MIXPREC_SIMD_AVX512)
std::uint32_t bits_of(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

enum class path { table, shift, bytes, nibble };  // decode_by_table, _by_shift, decode_bytes, _by_nibble

/// The path's decoder for V and F at source/destination offsets 0-16 and lengths 0-70, around
/// 2-6 blocks of 64 codes (the overlapped loop's edges) and 1000, and the floats around each call
/// untouched.
template <class V, class F, path P = path::table>
void check_table_decode() {
  using T = basic_float<F>;
  std::vector<std::uint8_t> src(1100);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::uint8_t>(i * 37 + i / 256);
  std::uint32_t want[256];
  for (unsigned c = 0; c < 256; ++c) want[c] = bits_of(round_to<float>(T::from_bits(static_cast<std::uint8_t>(c))));
  constexpr float guard = -1234.5f;
  std::size_t bad = 0, calls = 0;
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 70; ++n) lengths.push_back(n);
  for (std::size_t blocks = 2; blocks <= 6; ++blocks) {
    for (std::size_t n = blocks * 64 - 2; n <= blocks * 64 + 2; ++n) lengths.push_back(n);
  }
  lengths.push_back(1000);
  for (std::size_t off = 0; off <= 16; ++off) {
    for (const std::size_t n : lengths) {
      std::vector<float> dst(n + 40, guard);
      if constexpr (P == path::shift) {
        simd::decode_by_shift<V, F>(src.data() + off, dst.data() + off, n);
      } else if constexpr (P == path::nibble) {
        simd::decode_by_nibble<V, F>(src.data() + off, dst.data() + off, n);
      } else if constexpr (P == path::bytes) {
        CHECK(simd::decode_bytes<V, F>(src.data() + off, dst.data() + off, n));
      } else {
        simd::decode_by_table<V, F>(src.data() + off, dst.data() + off, n);
      }
      ++calls;
      for (std::size_t i = 0; i < dst.size(); ++i) {
        const bool in = i >= off && i < off + n;
        bad += bits_of(dst[i]) != (in ? want[src[i]] : bits_of(guard));
      }
    }
  }
  INFO(V::name);
  CHECK(calls == 17 * lengths.size());
  CHECK(bad == 0);
}

template <class F, path P = path::table>
void check_every_width() {
#if defined(MIXPREC_SIMD_AVX512)
  check_table_decode<simd::vec512, F, P>();
#endif
#if defined(MIXPREC_SIMD_AVX2)
  check_table_decode<simd::vec256, F, P>();
#endif
}
#endif

using e8m0 = float8_e8m0fnu::format_type;
using ue5m3 = float8_ue5m3::format_type;
using ue7m1 = format<7, 1, encoding::fn, 0, 63, false>;
using ue6m2 = format<6, 2, encoding::fn, 0, 31, false>;
using ue4m4 = format<4, 4, encoding::fn, 0, 7, false>;  // 4 mantissa bits: the gather
using e4m3fn = float8_e4m3fn::format_type;
using e3m3 = format<3, 3, encoding::fn>;  // signed, 7 bits: 1 + 3 + 3 fills no byte

}  // namespace

#if defined(MIXPREC_SIMD_AVX2) || defined(MIXPREC_SIMD_AVX512)
TEST_CASE("decode: which formats the shift decoder takes") {
  static_assert(simd::table_format<e8m0>::supported && simd::table_format<ue5m3>::supported, "");
  static_assert(simd::shift_format<e8m0>::supported, "e8m0: shifts, 2^-127 and the NaN from the table");
  static_assert(simd::shift_format<ue5m3>::supported, "ue5m3: shifts and eight subnormals");
  static_assert(simd::shift_format<ue6m2>::supported, "");
  static_assert(simd::shift_format<ue7m1>::supported, "");
  static_assert(!simd::shift_format<ue4m4>::supported, "17 magnitudes off the formula (16 subnormals/zero, the NaN): the gather");
  static_assert(!simd::shift_format<float8_e3m4::format_type>::supported, "32 off the formula: the half decoder");
  static_assert(simd::shift_format<e4m3fn>::supported, "e4m3fn: the sign in x, 14 subnormals/zeros and the NaNs");
  static_assert(simd::shift_format<float8_e5m2::format_type>::supported, "zero, subnormals and 0x7c-0x7f in one window");
  static_assert(simd::shift_format<float8_e4m3fnuz::format_type>::supported, "0x80 the NaN by nan_c/nan_x");
  static_assert(simd::shift_format<e3m3>::supported, "seven bits, the sign in bit 6");
  static_assert(simd::shift_format<float6_e2m3fn::format_type>::supported, "six bits, bits 6-7 ignored");
  static_assert(simd::shift_format<float8_ue4m3::format_type>::supported, "seven bits, bit 7 ignored");
  // e8m0: w = (c << 8 | x) >> 1; 2^-127 = 0x00400000 and the NaN 0x7fc00000 by x = 0x80
  const auto& e = simd::shift_decode_holder<e8m0>::table;
  CHECK((e.right && !e.fix_c));
  CHECK((e.c[0] == 0xff && e.x[0] == 0x80));  // code 255
  CHECK((e.c[1] == 0x00 && e.x[1] == 0x80));  // code 0
  CHECK((e.c[2] == 0x01 && e.x[2] == 0x00));  // code 1: 2^-126 = 0x00800000, the regular formula
  // ue5m3: w = ((x << 8 | c) << 4) + 0x3800 (mod 2^16)
  const auto& u = simd::shift_decode_holder<ue5m3>::table;
  CHECK((!u.right && u.fix_c && u.off16 == 0x3800));
  CHECK((u.c[0] == 0x7c && u.x[0] == 0x04));  // code 255: the NaN 0x7fc00000
  CHECK((u.c[1] == 0x80 && u.x[1] == 0x0c));  // code 0: +0
  CHECK((u.c[2] == 0xf0 && u.x[2] == 0x0f));  // code 1: 2^-17 = 0x37000000
  CHECK((u.c[9] == 0x08 && u.x[9] == 0x00));  // code 8: 2^-14 = 0x38800000, the regular formula
  // e4m3fn: w = (((x ^ sign << 3) << 8 | m) << 4) + 0x3c00 (mod 2^16)
  const auto& f = simd::shift_decode_holder<e4m3fn>::table;
  CHECK((!f.right && f.fix_c && f.off16 == 0x3c00));
  CHECK((f.c[0] == 0x3c && f.x[0] == 0x04));  // magnitude 0x7f: the NaN 0x7fc00000 (0xff: 0xffc00000)
  CHECK((f.c[2] == 0xf0 && f.x[2] == 0x0f));  // magnitude 1: 2^-9 = 0x3b000000
  CHECK((f.k == 1 && !f.nan_fix));
  // e4m3 (IEEE-style): 0x78 infinity, 0x79-0x7f NaNs and 0-7 in the window from 0x78 (k = 8)
  const auto& g = simd::shift_decode_holder<float8_e4m3::format_type>::table;
  CHECK((g.k == 8 && !g.nan_fix && g.off16 == 0x3c00));
  CHECK((g.c[0] == 0x38 && g.x[0] == 0x04));  // 0x78: infinity 0x7f800000 = ((0x0438 << 4) + 0x3c00) << 16
  // e4m3fnuz: zero and the subnormals in the window from 0; 0x80 the NaN 0xffc00000
  const auto& z = simd::shift_decode_holder<float8_e4m3fnuz::format_type>::table;
  CHECK((z.k == 0 && z.nan_fix && z.off16 == 0x3b80));
  CHECK(((((z.nan_x << 8 | z.nan_c) << 4) + 0x3b80) & 0xffff) == 0xffc0);
}

TEST_CASE("decode: the table decoder (VBMI byte lookup or gather) on e8m0 and ue5m3, every offset and length and width") {
  check_every_width<e8m0>();
  check_every_width<ue5m3>();
}

TEST_CASE("decode: by shifts (e4m3fn also by decode_bytes) at every offset and length, every compiled width") {
  check_every_width<e4m3fn, path::shift>();
  check_every_width<float8_e5m2::format_type, path::shift>();
  check_every_width<float8_e4m3fnuz::format_type, path::shift>();
  check_every_width<float8_e5m2fnuz::format_type, path::shift>();
  check_every_width<float8_e4m3b11fnuz::format_type, path::shift>();
  check_every_width<float8_e4m3::format_type, path::shift>();
  check_every_width<float6_e2m3fn::format_type, path::shift>();
  check_every_width<float6_e3m2fn::format_type, path::shift>();
  check_every_width<float8_ue4m3::format_type, path::shift>();
  check_every_width<e3m3, path::shift>();
  check_every_width<e8m0, path::shift>();
  check_every_width<ue5m3, path::shift>();
  check_every_width<ue6m2, path::shift>();
  check_every_width<ue7m1, path::shift>();
  check_every_width<e4m3fn, path::bytes>();
  check_every_width<float8_e4m3fnuz::format_type, path::bytes>();
  check_every_width<float8_e5m2fnuz::format_type, path::bytes>();
  check_every_width<float8_e4m3::format_type, path::bytes>();
  check_every_width<float8_e3m4::format_type, path::bytes>();
  check_every_width<float6_e2m3fn::format_type, path::bytes>();
  check_every_width<float8_ue4m3::format_type, path::bytes>();
}

TEST_CASE("decode: four-bit formats (AVX2: the nibble lookup) at every offset and length, bits above ignored") {
  static_assert(simd::nibble_format<float4_e2m1fn::format_type>::supported, "");
  static_assert(!simd::nibble_format<e4m3fn>::supported, "");
  check_every_width<float4_e2m1fn::format_type, path::bytes>();
  check_every_width<format<1, 2, encoding::fn>, path::bytes>();
  check_every_width<float4_e2m1fn::format_type, path::nibble>();
  check_every_width<format<1, 2, encoding::fn>, path::nibble>();
}

TEST_CASE("decode: the table decoder on other byte formats (the shift decoder takes ue7m1 and ue6m2 in decode_bytes)") {
  check_every_width<ue7m1>();
  check_every_width<ue6m2>();
  check_every_width<ue4m4>();
}
#endif
