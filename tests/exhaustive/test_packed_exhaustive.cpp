// SPDX-License-Identifier: MIT
// Every FP6 byte triple (2^24): packed_load gives the four 6-bit fields of the 24-bit
// little-endian word (element k = bits 6k..6k+5), and packed_store of them gives the bytes
// back; and every FP4 pair of codes through the bulk kernels.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <mixprec/kernels.hpp>
#include <mixprec/mixprec.hpp>

TEST_CASE("every FP6 byte triple unpacks to its 6-bit fields and packs back") {
  using T = mixprec::float6_e2m3fn;
  long bad = 0;
  for (std::uint32_t w = 0; w < (1u << 24); ++w) {
    const std::uint8_t t[3] = {static_cast<std::uint8_t>(w), static_cast<std::uint8_t>(w >> 8),
                               static_cast<std::uint8_t>(w >> 16)};
    std::uint8_t back[3] = {static_cast<std::uint8_t>(~t[0]), static_cast<std::uint8_t>(~t[1]),
                            static_cast<std::uint8_t>(~t[2])};
    for (unsigned k = 0; k < 4; ++k) {
      const T e = mixprec::packed_load<T>(t, k);
      if (e.bits() != ((w >> (6 * k)) & 63u)) ++bad;
      mixprec::packed_store(back, k, e);
    }
    if (back[0] != t[0] || back[1] != t[1] || back[2] != t[2]) ++bad;
  }
  CHECK(bad == 0);
}

TEST_CASE("the bulk kernels: all 2^24 FP6 triples and all 256 FP4 bytes, seq and par") {
  std::vector<std::uint8_t> bytes(3u << 24);
  for (std::uint32_t w = 0; w < (1u << 24); ++w) {
    bytes[3 * w] = static_cast<std::uint8_t>(w);
    bytes[3 * w + 1] = static_cast<std::uint8_t>(w >> 8);
    bytes[3 * w + 2] = static_cast<std::uint8_t>(w >> 16);
  }
  std::vector<mixprec::float6_e3m2fn> v(4u << 24);
  mixprec::unpack_elements(mixprec::exec::par, bytes, v);
  long bad = 0;
  for (std::uint32_t w = 0; w < (1u << 24); ++w) {
    for (unsigned k = 0; k < 4; ++k) bad += v[4 * w + k].bits() != ((w >> (6 * k)) & 63u) ? 1 : 0;
  }
  CHECK(bad == 0);
  std::vector<std::uint8_t> back(bytes.size(), 0);
  mixprec::pack_elements(mixprec::exec::par, v, back);
  CHECK(back == bytes);
  std::vector<std::uint8_t> seq(bytes.size(), 0);
  mixprec::pack_elements(mixprec::exec::seq, v, seq);
  CHECK(seq == bytes);

  std::vector<std::uint8_t> fp4(256);
  for (unsigned b = 0; b < 256; ++b) fp4[b] = static_cast<std::uint8_t>(b);
  std::vector<mixprec::float4_e2m1fn> e(512);
  mixprec::unpack_elements(mixprec::exec::seq, fp4, e);
  for (unsigned b = 0; b < 256; ++b) {
    CHECK(e[2 * b].bits() == (b & 15u));
    CHECK(e[2 * b + 1].bits() == (b >> 4));
  }
}
