// SPDX-License-Identifier: MIT
// mixprec/kernels/matmul_precision.hpp — torch.set_float32_matmul_precision for mixprec's GEMM.
//
// Contract: a PROCESS-WIDE setting (one atomic, as PyTorch's global), read once per gemm() call
// for float (and only float) A and B: highest = float inputs as they are; high = inputs rounded
// to tf32 (ties away by default, like cvt.rna; set_float32_matmul_high_mode: nearest-even or the
// bf16x3 split); medium = inputs rounded to bfloat16. Accumulation stays in the GEMM's
// accumulate type. Details: docs/pages/kernels-reference.md#float32-matmul-precision.
//
//   mixprec::set_float32_matmul_precision("high");
//   mixprec::get_float32_matmul_precision();   // "high" (the default is "highest")
#ifndef MIXPREC_MATMUL_PRECISION_HPP
#define MIXPREC_MATMUL_PRECISION_HPP

#include "../core/config.hpp"
#define MIXPREC_NEEDS_EXCEPTIONS mixprec/kernels/matmul_precision.hpp
#include "../core/detail/needs_exceptions.hpp"

#include <atomic>
#include <stdexcept>
#include <string>
#include <string_view>

#include "../core/detail/quote_input.hpp"

namespace mixprec {

/// The three precisions of torch.set_float32_matmul_precision.
enum class matmul_precision : unsigned char {
  highest,  ///< float products of the float inputs (the default)
  high,     ///< inputs rounded to tf32 first (see matmul_high_mode)
  medium    ///< inputs rounded to bfloat16 (nearest-even) first
};

/// How "high" treats float inputs.
enum class matmul_high_mode : unsigned char {
  tf32_nearest_away,  ///< round to tf32, ties away from zero (NVIDIA hardware; the default)
  tf32_nearest_even,  ///< round to tf32, ties to even
  bf16x3              ///< split into bfloat16 high + low parts, three bf16 products
};

namespace detail {
inline std::atomic<unsigned char>& matmul_precision_state() noexcept {
  static std::atomic<unsigned char> s{static_cast<unsigned char>(matmul_precision::highest)};
  return s;
}
inline std::atomic<unsigned char>& matmul_high_mode_state() noexcept {
  static std::atomic<unsigned char> s{static_cast<unsigned char>(matmul_high_mode::tf32_nearest_away)};
  return s;
}
}  // namespace detail

/// Whether p / m names an enumerator (the rule for invalid enum values: see rounding.hpp).
constexpr bool is_valid(matmul_precision p) noexcept {
  return p == matmul_precision::highest || p == matmul_precision::high || p == matmul_precision::medium;
}
/// Whether m names an enumerator.
constexpr bool is_valid(matmul_high_mode m) noexcept {
  return m == matmul_high_mode::tf32_nearest_away || m == matmul_high_mode::tf32_nearest_even ||
         m == matmul_high_mode::bf16x3;
}

/// The name PyTorch uses for p ("invalid" for a value that names no enumerator).
constexpr std::string_view to_string(matmul_precision p) noexcept {
  return p == matmul_precision::highest ? "highest"
         : p == matmul_precision::high  ? "high"
         : p == matmul_precision::medium ? "medium"
                                         : "invalid";
}

/// Parses "highest", "high" or "medium" (exactly, as PyTorch). Throws std::invalid_argument
/// naming the bad string otherwise.
inline matmul_precision parse_matmul_precision(std::string_view name) {
  if (name == "highest") return matmul_precision::highest;
  if (name == "high") return matmul_precision::high;
  if (name == "medium") return matmul_precision::medium;
  throw std::invalid_argument("mixprec: unknown float32 matmul precision " + detail::quote_input(name) +
                              " (expected \"highest\", \"high\" or \"medium\")");
}

/// Sets the process-wide float32 matmul precision. An invalid value (static_cast from an
/// integer) throws std::invalid_argument and changes nothing.
inline void set_float32_matmul_precision(matmul_precision p) {
  if (!is_valid(p)) throw std::invalid_argument("mixprec: invalid matmul_precision value");
  detail::matmul_precision_state().store(static_cast<unsigned char>(p), std::memory_order_relaxed);
}
/// Sets it by PyTorch's name; an unknown name throws std::invalid_argument and changes nothing.
inline void set_float32_matmul_precision(std::string_view name) {
  set_float32_matmul_precision(parse_matmul_precision(name));
}
/// Sets it by PyTorch's name (nullptr reads as "" and throws std::invalid_argument).
inline void set_float32_matmul_precision(const char* name) {
  set_float32_matmul_precision(parse_matmul_precision(name ? std::string_view(name) : std::string_view()));
}

/// The current setting as the enum.
inline matmul_precision float32_matmul_precision() noexcept {
  return static_cast<matmul_precision>(detail::matmul_precision_state().load(std::memory_order_relaxed));
}
/// The current setting as PyTorch's getter reports it: "highest", "high" or "medium".
inline std::string_view get_float32_matmul_precision() noexcept {
  return to_string(float32_matmul_precision());
}

/// Selects how "high" rounds float inputs (process-wide; default tf32_nearest_away). An invalid
/// value throws std::invalid_argument and changes nothing.
inline void set_float32_matmul_high_mode(matmul_high_mode m) {
  if (!is_valid(m)) throw std::invalid_argument("mixprec: invalid matmul_high_mode value");
  detail::matmul_high_mode_state().store(static_cast<unsigned char>(m), std::memory_order_relaxed);
}
/// The current "high" mode (default tf32_nearest_away).
inline matmul_high_mode float32_matmul_high_mode() noexcept {
  return static_cast<matmul_high_mode>(detail::matmul_high_mode_state().load(std::memory_order_relaxed));
}

/// Sets the float32 matmul precision for a scope and restores the previous one at its end (the
/// setting stays process-wide meanwhile, as PyTorch's). A bad name throws
/// std::invalid_argument from the constructor and changes nothing.
///
///   { mixprec::matmul_precision_scope s("medium"); mixprec::gemm(...); }  // back to the old one
class matmul_precision_scope {
 public:
  /// Saves the current precision, then sets p.
  explicit matmul_precision_scope(matmul_precision p) : saved_(float32_matmul_precision()) {
    set_float32_matmul_precision(p);
  }
  /// Saves the current precision, then sets the one named ("highest", "high", "medium").
  explicit matmul_precision_scope(std::string_view name) : saved_(float32_matmul_precision()) {
    set_float32_matmul_precision(name);
  }
  /// As the string_view constructor (a string literal picks this one; null is a bad name).
  explicit matmul_precision_scope(const char* name) : saved_(float32_matmul_precision()) {
    set_float32_matmul_precision(name);
  }
  /// Restores the precision saved by the constructor.
  ~matmul_precision_scope() { set_float32_matmul_precision(saved_); }
  matmul_precision_scope(const matmul_precision_scope&) = delete;             ///< not copyable
  matmul_precision_scope& operator=(const matmul_precision_scope&) = delete;  ///< not assignable

 private:
  matmul_precision saved_;
};

}  // namespace mixprec

#endif  // MIXPREC_MATMUL_PRECISION_HPP
