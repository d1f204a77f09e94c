// SPDX-License-Identifier: MIT
// Packed sub-byte storage (mixprec/packed.hpp, mixprec/kernels/pack.hpp): the element order of
// CUDA's __nv_fp4x2_e2m1 / __nv_fp4x4_e2m1, PTX cvt.rn.satfinite.e2m1x2.f32 and PyTorch's
// float4_e2m1fn_x2, checked against values worked out from those definitions and against an
// independent bit-by-bit packer; every FP4 byte, FP6 byte triples; the kernels under
// exec::seq and exec::par at awkward sizes.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include <mixprec/kernels.hpp>
#include <mixprec/mixprec.hpp>

namespace {

using mixprec::float4_e2m1fn;
using mixprec::float6_e2m3fn;
using mixprec::float6_e3m2fn;

// Independent reference: element i's bit t is bit (i*b + t) of the stream, byte k holding stream
// bits 8k..8k+7, least significant first.
template <class T>
std::vector<std::uint8_t> reference_pack(const std::vector<T>& v) {
  const std::size_t b = T::format_type::bits;
  std::vector<std::uint8_t> out((v.size() * b + 7) / 8, 0);
  for (std::size_t i = 0; i < v.size(); ++i) {
    for (std::size_t t = 0; t < b; ++t) {
      if ((v[i].bits() >> t) & 1u) {
        const std::size_t p = i * b + t;
        out[p / 8] = static_cast<std::uint8_t>(out[p / 8] | (1u << (p % 8)));
      }
    }
  }
  return out;
}

template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<T> v(n);
  for (auto& x : v) x = T::from_bits(static_cast<typename T::storage_type>(g() & ((1u << T::format_type::bits) - 1u)));
  return v;
}

template <class T>
bool same_codes(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].bits() != b[i].bits()) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("FP4 pairs: element 0 in the low nibble (CUDA __nv_fp4x2_e2m1, PTX e2m1x2, PyTorch x2)") {
  // __nv_cvt_float2_to_fp4x2(float2{1, -6}): .x = 1 (code 0x2) in bits 3:0, .y = -6 (0xF) in
  // bits 7:4. PTX cvt.rn.satfinite.e2m1x2.f32 d, -6, 1 (first operand to the high nibble) gives
  // the same byte; PyTorch's data[1::2] << 4 | data[::2] too.
  std::uint8_t byte = 0;
  mixprec::packed_store(&byte, 0, float4_e2m1fn(1.0f));
  mixprec::packed_store(&byte, 1, float4_e2m1fn(-6.0f));
  CHECK(byte == 0xF2);
  CHECK(mixprec::packed_load<float4_e2m1fn>(&byte, 0) == 1);
  CHECK(mixprec::packed_load<float4_e2m1fn>(&byte, 1) == -6);
  // __nv_fp4x4_e2m1(float4{0.5, 1, 1.5, -0.5}): codes 1, 2, 3, 9 in bits 3:0, 7:4, 11:8, 15:12 of
  // a 16-bit storage, little-endian: bytes 0x21, 0x93.
  const std::vector<float4_e2m1fn> four = {float4_e2m1fn(0.5f), float4_e2m1fn(1.0f), float4_e2m1fn(1.5f),
                                           float4_e2m1fn(-0.5f)};
  std::vector<std::uint8_t> bytes(2);
  mixprec::pack_elements(mixprec::exec::seq, four, bytes);
  CHECK(bytes == std::vector<std::uint8_t>{0x21, 0x93});
  // One element: the high nibble of its byte is 0.
  std::vector<std::uint8_t> one(1, 0xAB);
  mixprec::pack_elements(mixprec::exec::seq, std::vector<float4_e2m1fn>{float4_e2m1fn(-1.0f)}, one);
  CHECK(one[0] == 0x0A);
}

TEST_CASE("FP6: four elements in three bytes, LSB first") {
  // e0 | e1 << 6 | e2 << 12 | e3 << 18 with codes 0x01, 0x3F, 0x15, 0x2A (e2m3: 0.125, -7.5,
  // 2.625, -2.25): 0x01 | 0xFC0 | 0x15000 | 0xA80000 = 0xA95FC1 -> bytes C1 5F A9.
  const std::vector<float6_e2m3fn> v = {float6_e2m3fn::from_bits(0x01), float6_e2m3fn::from_bits(0x3F),
                                        float6_e2m3fn::from_bits(0x15), float6_e2m3fn::from_bits(0x2A)};
  CHECK(static_cast<float>(v[1]) == -7.5f);
  std::vector<std::uint8_t> bytes(3);
  mixprec::pack_elements(mixprec::exec::seq, v, bytes);
  CHECK(bytes == std::vector<std::uint8_t>{0xC1, 0x5F, 0xA9});
  CHECK(mixprec::packed_bytes<float6_e2m3fn>(4) == 3);
  CHECK(mixprec::packed_bytes<float6_e2m3fn>(5) == 4);
  CHECK(mixprec::packed_bytes<float4_e2m1fn>(5) == 3);
  CHECK(mixprec::packed_bytes<mixprec::float8_ue4m3>(8) == 7);  // 7-bit codes
  CHECK(mixprec::packed_bytes<mixprec::float8_e4m3fn>(3) == 3);
}

namespace {

// The four FP6 elements of the byte triple w (bits 0..23) by packed_load, checked against the
// 6-bit fields of w, and packed_store of them over inverted bytes gives w back.
long check_fp6_triple(std::uint32_t w) {
  long bad = 0;
  const std::uint8_t t[3] = {static_cast<std::uint8_t>(w), static_cast<std::uint8_t>(w >> 8),
                             static_cast<std::uint8_t>(w >> 16)};
  std::uint8_t back[3] = {static_cast<std::uint8_t>(~t[0]), static_cast<std::uint8_t>(~t[1]),
                          static_cast<std::uint8_t>(~t[2])};
  for (unsigned k = 0; k < 4; ++k) {
    const float6_e3m2fn e = mixprec::packed_load<float6_e3m2fn>(t, k);
    if (e.bits() != ((w >> (6 * k)) & 63u)) ++bad;
    mixprec::packed_store(back, k, e);
  }
  if (back[0] != t[0] || back[1] != t[1] || back[2] != t[2]) ++bad;
  return bad;
}

}  // namespace

TEST_CASE("every FP4 byte, and FP6 byte triples, unpack and pack back") {
  for (unsigned b = 0; b < 256; ++b) {
    const auto u = static_cast<std::uint8_t>(b);
    const float4_e2m1fn lo = mixprec::packed_load<float4_e2m1fn>(&u, 0);
    const float4_e2m1fn hi = mixprec::packed_load<float4_e2m1fn>(&u, 1);
    REQUIRE(lo.bits() == (b & 15u));
    REQUIRE(hi.bits() == (b >> 4));
    std::uint8_t back = static_cast<std::uint8_t>(~b);
    mixprec::packed_store(&back, 0, lo);
    mixprec::packed_store(&back, 1, hi);
    REQUIRE(back == b);
  }
  // Every code in every position (the others random), and 2^16 random triples; all 2^24 triples
  // are checked by tests/exhaustive/test_packed_exhaustive.cpp.
  std::mt19937 g(5);
  long bad = 0;
  for (unsigned k = 0; k < 4; ++k) {
    for (std::uint32_t c = 0; c < 64; ++c) {
      const std::uint32_t w = (static_cast<std::uint32_t>(g()) & 0xFFFFFFu & ~(63u << (6 * k))) | (c << (6 * k));
      bad += check_fp6_triple(w);
    }
  }
  for (int i = 0; i < 65536; ++i) bad += check_fp6_triple(static_cast<std::uint32_t>(g()) & 0xFFFFFFu);
  CHECK(bad == 0);
}

TEST_CASE_TEMPLATE("pack_elements / unpack_elements equal the reference under every policy", T, mixprec::float4_e2m1fn,
                   mixprec::float4_e1m2, mixprec::float6_e2m3fn, mixprec::float6_e3m2fn, mixprec::float8_ue4m3,
                   mixprec::float8_e4m3fn) {
  const std::size_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 33, 1001, 40000, 100003};
  for (const std::size_t n : sizes) {
    CAPTURE(n);
    const std::vector<T> v = random_values<T>(n, 77 + n);
    const std::vector<std::uint8_t> want = reference_pack(v);
    REQUIRE(want.size() == mixprec::packed_bytes<T>(n));
    std::vector<std::uint8_t> seq(want.size(), 0xA5), par(want.size(), 0x5A);
    mixprec::pack_elements(mixprec::exec::seq, v, seq);
    mixprec::pack_elements(mixprec::exec::par, v, par);
    CHECK(seq == want);
    CHECK(par == want);
    // packed_store one element at a time gives the same bytes.
    std::vector<std::uint8_t> scalar(want.size(), 0);
    for (std::size_t i = 0; i < n; ++i) mixprec::packed_store(scalar.data(), i, v[i]);
    CHECK(scalar == want);
    std::vector<T> back_seq(n, T::from_bits(1)), back_par(n, T::from_bits(1));
    mixprec::unpack_elements(mixprec::exec::seq, want, back_seq);
    mixprec::unpack_elements(mixprec::exec::par, want, back_par);
    CHECK(same_codes(back_seq, v));
    CHECK(same_codes(back_par, v));
  }
}

TEST_CASE("pack_elements / unpack_elements reject sizes that do not match and write nothing") {
  const std::vector<float4_e2m1fn> v(5, float4_e2m1fn(1.0f));
  std::vector<std::uint8_t> small(2, 0x11), large(4, 0x11);
  CHECK_THROWS_AS(mixprec::pack_elements(mixprec::exec::seq, v, small), std::invalid_argument);
  CHECK_THROWS_AS(mixprec::pack_elements(mixprec::exec::par, v, large), std::invalid_argument);
  CHECK(small == std::vector<std::uint8_t>(2, 0x11));
  CHECK(large == std::vector<std::uint8_t>(4, 0x11));
  std::vector<float4_e2m1fn> out(5, float4_e2m1fn(2.0f));
  CHECK_THROWS_AS(mixprec::unpack_elements(mixprec::exec::seq, small, out), std::invalid_argument);
  for (const auto& x : out) CHECK(x == 2);
}

TEST_CASE("packed_load and packed_store are constant expressions") {
  constexpr auto load = [] {
    std::array<std::uint8_t, 3> b{};
    mixprec::packed_store(b.data(), 3, mixprec::float6_e2m3fn::from_bits(0x3F));
    return mixprec::packed_load<mixprec::float6_e2m3fn>(b.data(), 3).bits();
  };
  static_assert(load() == 0x3F, "");
  CHECK(load() == 0x3F);
}
