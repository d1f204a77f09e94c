// mixprec — optimizer steps (include/mixprec/kernels/optim.hpp).
// SPDX-License-Identifier: MIT
//
// Checked three ways:
//   * against PyTorch: tests/golden/optim.golden, written by tests/golden/gen_optim.py from real
//     torch.optim.Adam / AdamW / SGD runs on float32, float16 and bfloat16 tensors, bit for bit
//     (NaN compared as NaN); see the generator for the two documented deviations (float32 sqrt
//     through MKL, the scalar tail of half/bfloat16 add-with-alpha). MIXPREC_GOLDEN_VERBOSE=1
//     prints per case how many tail values PyTorch's scalar loop rounds differently;
//   * against a plain scalar re-implementation of the PyTorch formulas below (one function per
//     tensor operation, each rounding to its dtype through round_to), bit for bit, for many type
//     combinations and options;
//   * policies (seq, par(1), par(2), par(3)) agree bit for bit on sizes spanning several blocks;
//     stochastic rounding is reproducible and unbiased; bad arguments throw and change nothing.
#include <mixprec/kernels/optim.hpp>
#include <mixprec/mixprec.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#ifndef MIXPREC_TEST_DATA_DIR
#error "MIXPREC_TEST_DATA_DIR must name the tests/golden directory (a string literal)"
#endif

namespace {

using mixprec::bfloat16;
using mixprec::half;
using mixprec::span;

// ---- bits ------------------------------------------------------------------------------------

template <class T>
std::uint64_t bits_of(T x) {
  return static_cast<std::uint64_t>(mixprec::float_traits<T>::to_bits(x));
}
template <class T>
T from_bits(std::uint64_t b) {
  return mixprec::float_traits<T>::from_bits(static_cast<typename mixprec::float_traits<T>::storage_type>(b));
}
template <class T>
bool is_nan(T x) {
  const double d = static_cast<double>(x);
  return d != d;
}
/// Bit-for-bit equality, any NaN equal to any NaN.
template <class T>
bool same(T a, T b) {
  return bits_of(a) == bits_of(b) || (is_nan(a) && is_nan(b));
}
template <class T>
std::size_t count_diff(const std::vector<T>& a, const std::vector<T>& b, std::size_t from = 0) {
  std::size_t d = 0;
  for (std::size_t i = from; i < a.size(); ++i) d += same(a[i], b[i]) ? 0 : 1;
  return d;
}
template <class T>
std::string first_diff(const std::vector<T>& a, const std::vector<T>& b, std::size_t upto) {
  for (std::size_t i = 0; i < upto; ++i) {
    if (!same(a[i], b[i])) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "element %zu: got %.9g (0x%llx), expected %.9g (0x%llx)", i,
                    static_cast<double>(a[i]), static_cast<unsigned long long>(bits_of(a[i])),
                    static_cast<double>(b[i]), static_cast<unsigned long long>(bits_of(b[i])));
      return buf;
    }
  }
  return "none";
}

// ---- the reference: PyTorch's tensor operations, one function each -----------------------------
// Every op computes in C (float, or double when a tensor is double) and rounds to the dtype D of
// the tensor it produces. Scalars are Python doubles: converted to C for mul/div/lerp/addcmul/
// addcdiv, to D (through float) for add's alpha and add(scalar).

template <class T>
constexpr bool is_dbl = std::is_same<T, double>::value;
template <class... T>
using opmath = std::conditional_t<(is_dbl<T> || ...), double, float>;
template <class X, class Y>
using promoted = std::conditional_t<std::is_same<X, Y>::value, X, opmath<X, Y>>;

template <class D, class C>
C rnd(C x) {
  return static_cast<C>(mixprec::round_to<D>(x));
}
template <class C>
C sc(double s) {
  return static_cast<C>(s);  // double -> float (nearest even) or double
}
template <class D, class C>
C sc_as(double s) {
  if constexpr (is_dbl<D>) return static_cast<C>(s);
  return static_cast<C>(mixprec::round_to<D>(static_cast<float>(s)));
}

// torch.add(a, b, alpha): fma(b, alpha, a) in the vectorized CPU kernel.
template <class D, class C>
C t_add(C a, C b, double alpha) {
  return rnd<D>(std::fma(b, sc_as<D, C>(alpha), a));
}
template <class D, class C>
C t_add_scalar(C a, double s) {
  return rnd<D>(a + sc_as<D, C>(s));
}
template <class D, class C>
C t_mul(C a, double s) {
  return rnd<D>(a * sc<C>(s));
}
template <class D, class C>
C t_div(C a, double s) {
  return rnd<D>(a / sc<C>(s));
}
template <class D, class C>
C t_sqrt(C a) {
  return rnd<D>(std::sqrt(a));
}
// at::native lerp_vec: coeff = |w| < 0.5 ? w : w - 1; base = |w| < 0.5 ? start : end; fmadd.
template <class D, class C>
C t_lerp(C start, C end, double weight) {
  const C w = sc<C>(weight);
  if (std::fabs(w) < C(0.5)) return rnd<D>(std::fma(w, end - start, start));
  return rnd<D>(std::fma(w - C(1), end - start, end));
}
// addcmul: self + value * t1 * t2, the last product fused with the addition.
template <class D, class C>
C t_addcmul(C self, C t1, C t2, double value) {
  return rnd<D>(std::fma(sc<C>(value) * t1, t2, self));
}
// addcdiv: self + value * t1 / t2.
template <class C>
C t_addcdiv_value(C self, C t1, C t2, double value) {
  return self + (sc<C>(value) * t1) / t2;  // the caller rounds (the final write's mode)
}

struct rounding_spec {
  mixprec::rounding mode = mixprec::rounding::nearest_even;
  std::uint64_t seed = 0, offset = 0;
  mixprec::rng_kind generator = mixprec::rng_kind::splitmix64;
};
template <class W, class C>
W final_round(C x, const rounding_spec& r, std::size_t i) {
  if (r.mode == mixprec::rounding::stochastic) {
    if (r.generator == mixprec::rng_kind::philox4x32_10) {
      return mixprec::round_stochastic<W>(x, mixprec::philox_rng(r.seed), r.offset + i);
    }
    return mixprec::round_stochastic<W>(x, mixprec::counter_rng(r.seed), r.offset + i);
  }
  return mixprec::round_to<W>(x, r.mode);
}

// torch/optim/adam.py _single_tensor_adam (decoupled = AdamW).
template <class W, class G, class S, class M>
void ref_adam(std::vector<W>& p, const std::vector<G>& g, std::vector<S>& m, std::vector<S>& v, std::int64_t step,
              const mixprec::adam_options& o, bool decoupled, const rounding_spec& r, std::vector<M>* copy) {
  using C = opmath<W, G, S>;
  using Gd = promoted<G, W>;
  const double lr = o.lr, b1 = o.beta1, b2 = o.beta2, eps = o.eps, wd = o.weight_decay;
  const double bc1 = 1 - std::pow(b1, static_cast<double>(step));
  const double bc2 = 1 - std::pow(b2, static_cast<double>(step));
  const double step_size = lr / bc1;
  const double bc2_sqrt = std::pow(bc2, 0.5);
  for (std::size_t i = 0; i < p.size(); ++i) {
    C param = static_cast<C>(p[i]);
    C grad = static_cast<C>(g[i]);
    if (wd != 0) {
      if (decoupled) {
        param = t_mul<W>(param, 1 - lr * wd);
      } else {
        grad = t_add<Gd>(grad, param, wd);
      }
    }
    const C exp_avg = t_lerp<S>(static_cast<C>(m[i]), grad, 1 - b1);
    C exp_avg_sq = t_mul<S>(static_cast<C>(v[i]), b2);
    exp_avg_sq = t_addcmul<S>(exp_avg_sq, grad, grad, 1 - b2);
    C denom = t_sqrt<S>(exp_avg_sq);
    denom = t_div<S>(denom, bc2_sqrt);
    denom = t_add_scalar<S>(denom, eps);
    p[i] = final_round<W>(t_addcdiv_value(param, exp_avg, denom, -step_size), r, i);
    m[i] = mixprec::round_to<S>(exp_avg);
    v[i] = mixprec::round_to<S>(exp_avg_sq);
    if (copy != nullptr) (*copy)[i] = mixprec::round_to<M>(p[i]);
  }
}

// torch/optim/sgd.py _single_tensor_sgd.
template <class W, class G, class S, class M>
void ref_sgd(std::vector<W>& p, const std::vector<G>& g, std::vector<S>& buf, std::int64_t step,
             const mixprec::sgd_options& o, const rounding_spec& r, std::vector<M>* copy) {
  using C = opmath<W, G, S>;
  using Gd = promoted<G, W>;
  using Gn = promoted<Gd, S>;
  const double lr = o.lr, mu = o.momentum, tau = o.dampening, wd = o.weight_decay;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const C param = static_cast<C>(p[i]);
    C grad = static_cast<C>(g[i]);
    if (wd != 0) grad = t_add<Gd>(grad, param, wd);
    C pn;
    if (mu != 0) {
      C b = step == 1 ? rnd<S>(grad) : t_add<Gn>(t_mul<S>(static_cast<C>(buf[i]), mu), grad, 1 - tau);
      b = rnd<S>(b);
      buf[i] = mixprec::round_to<S>(b);
      if (o.nesterov) {
        pn = std::fma(t_add<Gn>(grad, b, mu), sc_as<promoted<W, Gn>, C>(-lr), param);
      } else {
        pn = std::fma(b, sc_as<promoted<W, S>, C>(-lr), param);
      }
    } else {
      pn = std::fma(grad, sc_as<promoted<W, Gd>, C>(-lr), param);
    }
    p[i] = final_round<W>(pn, r, i);
    if (copy != nullptr) (*copy)[i] = mixprec::round_to<M>(p[i]);
  }
}

// ---- random data ---------------------------------------------------------------------------------

template <class T>
std::vector<T> random_values(std::size_t n, std::uint32_t seed, double lo_exp, double hi_exp, bool positive = false,
                             double zero_fraction = 0.0) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> e(lo_exp, hi_exp), u(0, 1);
  std::vector<T> v(n);
  for (auto& x : v) {
    double mag = std::pow(10.0, e(gen));
    if (u(gen) < zero_fraction) mag = 0;
    const double s = (positive || u(gen) < 0.5) ? 1.0 : -1.0;
    x = static_cast<T>(mixprec::round_to<T>(s * mag));
  }
  return v;
}

template <class Policy, class W, class G, class S, class M>
void run_adam(Policy pol, bool decoupled, std::vector<W>& p, const std::vector<G>& g, std::vector<S>& m,
              std::vector<S>& v, std::int64_t step, const mixprec::adam_options& o, const rounding_spec& r,
              std::vector<M>* copy) {
  const mixprec::update_rounding ur{r.mode, r.seed, r.offset, r.generator};
  span<M> c = copy != nullptr ? span<M>(copy->data(), copy->size()) : span<M>();
  if (decoupled) {
    mixprec::adamw_step(pol, span<W>(p), span<const G>(g), span<S>(m), span<S>(v), step, o, ur, c);
  } else {
    mixprec::adam_step(pol, span<W>(p), span<const G>(g), span<S>(m), span<S>(v), step, o, ur, c);
  }
}

template <class Policy, class W, class G, class S, class M>
void run_sgd(Policy pol, std::vector<W>& p, const std::vector<G>& g, std::vector<S>& b, std::int64_t step,
             const mixprec::sgd_options& o, const rounding_spec& r, std::vector<M>* copy) {
  const mixprec::update_rounding ur{r.mode, r.seed, r.offset, r.generator};
  span<M> c = copy != nullptr ? span<M>(copy->data(), copy->size()) : span<M>();
  mixprec::sgd_step(pol, span<W>(p), span<const G>(g), span<S>(b), step, o, ur, c);
}

// Several steps of kernel and reference from the same random start; bit-for-bit equal.
template <class W, class G, class S, class M>
void check_adam_against_reference(bool decoupled, const mixprec::adam_options& o, std::size_t n, std::uint32_t seed,
                                  const rounding_spec& r, double g_lo, double g_hi) {
  std::vector<W> p = random_values<W>(n, seed, -2, 0.5), rp = p;
  std::vector<S> m(n), v(n), rm(n), rv(n);
  std::vector<M> copy(n), rcopy(n);
  for (std::int64_t step = 1; step <= 4; ++step) {
    const std::vector<G> g = random_values<G>(n, seed + static_cast<std::uint32_t>(step), g_lo, g_hi, false, 0.05);
    rounding_spec rs = r;
    rs.offset += static_cast<std::uint64_t>(step) * n;
    run_adam(mixprec::exec::seq, decoupled, p, g, m, v, step, o, rs, &copy);
    ref_adam(rp, g, rm, rv, step, o, decoupled, rs, &rcopy);
    INFO("step " << step << " params: " << first_diff(p, rp, n));
    CHECK(count_diff(p, rp) == 0);
    CHECK(count_diff(m, rm) == 0);
    CHECK(count_diff(v, rv) == 0);
    CHECK(count_diff(copy, rcopy) == 0);
  }
}

template <class W, class G, class S, class M>
void check_sgd_against_reference(const mixprec::sgd_options& o, std::size_t n, std::uint32_t seed,
                                 const rounding_spec& r) {
  std::vector<W> p = random_values<W>(n, seed, -2, 0.5), rp = p;
  std::vector<S> b(n), rb(n);
  std::vector<M> copy(n), rcopy(n);
  for (std::int64_t step = 1; step <= 4; ++step) {
    const std::vector<G> g = random_values<G>(n, seed + static_cast<std::uint32_t>(step), -5, 1, false, 0.05);
    rounding_spec rs = r;
    rs.offset += static_cast<std::uint64_t>(step) * n;
    run_sgd(mixprec::exec::seq, p, g, b, step, o, rs, &copy);
    ref_sgd(rp, g, rb, step, o, rs, &rcopy);
    INFO("step " << step << " params: " << first_diff(p, rp, n));
    CHECK(count_diff(p, rp) == 0);
    if (o.momentum != 0) CHECK(count_diff(b, rb) == 0);
    CHECK(count_diff(copy, rcopy) == 0);
  }
}

// ---- the golden file -------------------------------------------------------------------------------

struct golden_case {
  std::string name, opt, dtype;
  std::size_t n = 0, exact = 0;
  int steps = 0;
  std::int64_t step0 = 0;
  std::map<std::string, std::uint32_t> options;
  std::map<std::string, std::vector<std::uint32_t>> data;  // "init param", "grad 3", "param 3", ...
};

std::vector<golden_case> load_optim_golden(std::string& error) {
  std::vector<golden_case> cases;
  const std::string path = std::string(MIXPREC_TEST_DATA_DIR) + "/optim.golden";
  std::ifstream f(path);
  if (!f) {
    error = path + " is missing (regenerate: python3 tests/golden/gen_optim.py)";
    return cases;
  }
  std::string line;
  golden_case* c = nullptr;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    std::string word;
    in >> word;
    if (word == "case") {
      cases.emplace_back();
      c = &cases.back();
      std::string n, steps, step0, exact;
      in >> c->name >> c->opt >> c->dtype >> n >> steps >> step0 >> exact;
      if (n.rfind("n=", 0) != 0 || steps.rfind("steps=", 0) != 0 || step0.rfind("step0=", 0) != 0 ||
          exact.rfind("exact=", 0) != 0) {
        error = path + ": bad case line: " + line;
        return cases;
      }
      c->n = std::stoul(n.substr(2));
      c->steps = std::stoi(steps.substr(6));
      c->step0 = std::stoll(step0.substr(6));
      c->exact = std::stoul(exact.substr(6));
    } else if (c == nullptr) {
      error = path + ": data before the first case";
      return cases;
    } else if (word == "options") {
      while (in >> word) {
        const auto eq = word.find('=');
        c->options[word.substr(0, eq)] = static_cast<std::uint32_t>(std::stoul(word.substr(eq + 1), nullptr, 16));
      }
    } else if (word == "end") {
      c = nullptr;
    } else {
      std::string key;
      in >> key;
      key = word + " " + key;
      std::vector<std::uint32_t> values;
      while (in >> word) values.push_back(static_cast<std::uint32_t>(std::stoul(word, nullptr, 16)));
      if (values.size() != c->n) {
        error = path + ": " + c->name + " '" + key + "' has " + std::to_string(values.size()) + " values, expected " +
                std::to_string(c->n);
        return cases;
      }
      c->data[key] = values;
    }
  }
  if (c != nullptr) error = path + ": truncated (no \"end\")";
  return cases;
}

float option(const golden_case& c, const char* name) {
  const auto it = c.options.find(name);
  REQUIRE_MESSAGE(it != c.options.end(), c.name << ": option " << name << " missing");
  float f;
  std::memcpy(&f, &it->second, sizeof f);
  return f;
}

template <class T>
std::vector<T> values(const golden_case& c, const std::string& key) {
  const auto it = c.data.find(key);
  REQUIRE_MESSAGE(it != c.data.end(), c.name << ": '" << key << "' missing");
  std::vector<T> v;
  for (std::uint32_t b : it->second) v.push_back(from_bits<T>(b));
  return v;
}

bool verbose() {
  const char* s = std::getenv("MIXPREC_GOLDEN_VERBOSE");
  return s != nullptr && *s != '\0' && *s != '0';
}

template <class T, class Policy>
void run_golden_case(const golden_case& c, Policy pol, std::size_t& tail_diffs) {
  const bool adam = c.opt == "adam" || c.opt == "adamw";
  std::vector<T> p = values<T>(c, "init param");
  std::vector<T> s1(c.n), s2(c.n);
  if (adam && c.step0 > 0) {
    s1 = values<T>(c, "init exp_avg");
    s2 = values<T>(c, "init exp_avg_sq");
  }
  if (!adam && c.step0 > 0) s1 = values<T>(c, "init momentum_buffer");
  mixprec::adam_options ao;
  mixprec::sgd_options so;
  ao.lr = so.lr = option(c, "lr");
  ao.beta1 = option(c, "beta1");
  ao.beta2 = option(c, "beta2");
  ao.eps = option(c, "eps");
  ao.weight_decay = so.weight_decay = option(c, "wd");
  so.momentum = option(c, "momentum");
  so.dampening = option(c, "dampening");
  so.nesterov = c.options.at("nesterov") != 0;
  for (std::int64_t step = c.step0 + 1; step <= c.step0 + c.steps; ++step) {
    const std::string k = " " + std::to_string(step);
    const std::vector<T> g = values<T>(c, "grad" + k);
    if (c.opt == "adam") {
      mixprec::adam_step(pol, span<T>(p), span<const T>(g), span<T>(s1), span<T>(s2), step, ao);
    } else if (c.opt == "adamw") {
      mixprec::adamw_step(pol, span<T>(p), span<const T>(g), span<T>(s1), span<T>(s2), step, ao);
    } else {
      mixprec::sgd_step(pol, span<T>(p), span<const T>(g), span<T>(s1), step, so);
    }
    const std::vector<T> want_p = values<T>(c, "param" + k);
    INFO(c.name << " step " << step << " param: " << first_diff(p, want_p, c.exact));
    CHECK(count_diff(p, want_p) == count_diff(p, want_p, c.exact));  // no difference before `exact`
    tail_diffs += count_diff(p, want_p, c.exact);
    if (adam) {
      const std::vector<T> want_m = values<T>(c, "exp_avg" + k), want_v = values<T>(c, "exp_avg_sq" + k);
      INFO("exp_avg: " << first_diff(s1, want_m, c.exact) << "; exp_avg_sq: " << first_diff(s2, want_v, c.exact));
      CHECK(count_diff(s1, want_m) == count_diff(s1, want_m, c.exact));
      CHECK(count_diff(s2, want_v) == count_diff(s2, want_v, c.exact));
    } else if (so.momentum != 0) {
      const std::vector<T> want_b = values<T>(c, "momentum_buffer" + k);
      INFO("momentum_buffer: " << first_diff(s1, want_b, c.exact));
      CHECK(count_diff(s1, want_b) == count_diff(s1, want_b, c.exact));
    }
    // Continue from PyTorch's values so a tail difference does not propagate.
    p = want_p;
    if (adam) {
      s1 = values<T>(c, "exp_avg" + k);
      s2 = values<T>(c, "exp_avg_sq" + k);
    } else if (so.momentum != 0) {
      s1 = values<T>(c, "momentum_buffer" + k);
    }
  }
}

template <class Policy>
void check_golden(Policy pol) {
  std::string error;
  const std::vector<golden_case> cases = load_optim_golden(error);
  REQUIRE_MESSAGE(error.empty(), error);
  REQUIRE(cases.size() >= 15);
  std::size_t checked = 0;
  for (const golden_case& c : cases) {
    CAPTURE(c.name);
    std::size_t tail = 0;
    if (c.dtype == "float32") {
      run_golden_case<float>(c, pol, tail);
    } else if (c.dtype == "float16") {
      run_golden_case<half>(c, pol, tail);
    } else if (c.dtype == "bfloat16") {
      run_golden_case<bfloat16>(c, pol, tail);
    } else {
      FAIL("unknown dtype " << c.dtype);
    }
    if (c.exact == c.n) CHECK(tail == 0);
    if (verbose()) {
      std::printf("optim golden %-32s %-8s n=%zu steps=%d: exact; %zu tail values differ (PyTorch's scalar loop)\n",
                  c.name.c_str(), c.dtype.c_str(), c.n, c.steps, tail);
    }
    ++checked;
  }
  CHECK(checked == cases.size());
}

}  // namespace

TEST_CASE("optim: PyTorch goldens, bit for bit (seq and par(3))") {
  check_golden(mixprec::exec::seq);
  check_golden(mixprec::exec::par(3));
}

TEST_CASE("optim: the golden file's fp16 Adam case fails as PyTorch's does (eps and v underflow)") {
  std::string error;
  const std::vector<golden_case> cases = load_optim_golden(error);
  REQUIRE(error.empty());
  bool found = false;
  for (const golden_case& c : cases) {
    if (c.name != "adam_f16_regular_eps_underflow") continue;
    found = true;
    const std::vector<half> p = values<half>(c, "param 1");
    std::size_t inf = 0, nan = 0;
    for (half x : p) {
      const float f = static_cast<float>(x);
      inf += std::isinf(f) ? 1 : 0;
      nan += std::isnan(f) ? 1 : 0;
    }
    CHECK(inf > 0);  // v underflowed to 0 while m did not: m / 0
    CHECK(nan > 0);  // zero gradient: 0 / 0
  }
  CHECK(found);
}

TEST_CASE("optim: Adam and AdamW against the reference, bit for bit") {
  const rounding_spec rne;
  mixprec::adam_options o;
  SUBCASE("float master weights, half model copy") {
    check_adam_against_reference<float, float, float, half>(false, o, 301, 1, rne, -6, 1);
    o.weight_decay = 0.01f;
    check_adam_against_reference<float, float, float, bfloat16>(false, o, 301, 2, rne, -6, 1);
    check_adam_against_reference<float, float, float, half>(true, o, 301, 3, rne, -6, 1);
  }
  SUBCASE("regular half and bfloat16, tiny gradients (underflow, inf, NaN)") {
    check_adam_against_reference<half, half, half, half>(false, o, 257, 4, rne, -9, 0);
    o.eps = 1e-4f;
    o.weight_decay = 0.1f;
    check_adam_against_reference<half, half, half, float>(false, o, 257, 5, rne, -6, 1);
    check_adam_against_reference<bfloat16, bfloat16, bfloat16, bfloat16>(true, o, 257, 6, rne, -8, 1);
  }
  SUBCASE("small beta1 (the other lerp branch), double, mixed types") {
    o.beta1 = 0.25f;
    o.beta2 = 0.5f;
    o.lr = 0.1f;
    check_adam_against_reference<float, float, float, float>(false, o, 99, 7, rne, -3, 1);
    check_adam_against_reference<double, double, double, float>(true, o, 99, 8, rne, -3, 1);
    o.weight_decay = 0.5f;
    check_adam_against_reference<float, half, float, half>(false, o, 99, 9, rne, -3, 1);
    check_adam_against_reference<half, half, float, half>(true, o, 99, 10, rne, -3, 1);
    check_adam_against_reference<bfloat16, half, float, float>(false, o, 99, 11, rne, -3, 1);
  }
  SUBCASE("other rounding modes of the update") {
    rounding_spec r;
    r.mode = mixprec::rounding::toward_zero;
    check_adam_against_reference<half, half, half, half>(false, o, 130, 12, r, -5, 1);
    r.mode = mixprec::rounding::stochastic;
    r.seed = 42;
    r.offset = 1000;
    check_adam_against_reference<bfloat16, bfloat16, float, bfloat16>(true, o, 130, 13, r, -5, 1);
    check_adam_against_reference<float, float, float, half>(false, o, 130, 14, r, -5, 1);
    r.generator = mixprec::rng_kind::philox4x32_10;  // the vector fast path does not draw Philox: the portable loop
    check_adam_against_reference<bfloat16, bfloat16, float, bfloat16>(true, o, 130, 15, r, -5, 1);
    check_adam_against_reference<half, half, half, half>(false, o, 130, 16, r, -5, 1);
  }
}

TEST_CASE("optim: SGD against the reference, bit for bit") {
  const rounding_spec rne;
  mixprec::sgd_options o;
  SUBCASE("plain") {
    check_sgd_against_reference<float, float, float, half>(o, 77, 21, rne);
    check_sgd_against_reference<half, half, half, half>(o, 77, 22, rne);
  }
  SUBCASE("momentum, dampening, weight decay") {
    o.momentum = 0.9f;
    o.dampening = 0.1f;
    o.weight_decay = 1e-3f;
    check_sgd_against_reference<float, float, float, bfloat16>(o, 77, 23, rne);
    check_sgd_against_reference<half, half, half, half>(o, 77, 24, rne);
    check_sgd_against_reference<bfloat16, bfloat16, bfloat16, float>(o, 77, 25, rne);
    check_sgd_against_reference<float, half, float, half>(o, 77, 26, rne);
    check_sgd_against_reference<double, double, double, double>(o, 77, 27, rne);
  }
  SUBCASE("nesterov, stochastic") {
    o.momentum = 0.9f;
    o.nesterov = true;
    o.weight_decay = 1e-2f;
    check_sgd_against_reference<half, half, half, half>(o, 77, 28, rne);
    check_sgd_against_reference<half, half, float, half>(o, 77, 29, rne);
    rounding_spec r;
    r.mode = mixprec::rounding::stochastic;
    r.seed = 7;
    check_sgd_against_reference<bfloat16, bfloat16, bfloat16, bfloat16>(o, 77, 30, r);
    r.generator = mixprec::rng_kind::philox4x32_10;
    check_sgd_against_reference<half, half, half, half>(o, 77, 31, r);
  }
}

TEST_CASE("optim: policies and thread counts agree bit for bit") {
  const std::size_t n = 3 * mixprec::detail::elementwise_grain + 77;  // four blocks
  mixprec::adam_options ao;
  ao.weight_decay = 0.01f;
  mixprec::sgd_options so;
  so.momentum = 0.9f;
  so.nesterov = true;
  const rounding_spec sr{mixprec::rounding::stochastic, 5, 17};
  const std::vector<half> g = random_values<half>(n, 99, -8, 1, false, 0.02);
  const std::vector<half> p0 = random_values<half>(n, 98, -2, 0.5);
  std::vector<half> p_seq = p0, m_seq(n), v_seq(n), b_seq(n), q_seq = p0;
  std::vector<float> c_seq(n);
  for (std::int64_t step = 1; step <= 2; ++step) {
    run_adam(mixprec::exec::seq, step == 2, p_seq, g, m_seq, v_seq, step, ao, sr, &c_seq);
    run_sgd(mixprec::exec::seq, q_seq, g, b_seq, step, so, sr, static_cast<std::vector<half>*>(nullptr));
  }
  for (unsigned threads : {1u, 2u, 3u}) {
    CAPTURE(threads);
    std::vector<half> p = p0, m(n), v(n), b(n), q = p0;
    std::vector<float> c(n);
    for (std::int64_t step = 1; step <= 2; ++step) {
      run_adam(mixprec::exec::par(threads), step == 2, p, g, m, v, step, ao, sr, &c);
      run_sgd(mixprec::exec::par(threads), q, g, b, step, so, sr, static_cast<std::vector<half>*>(nullptr));
    }
    CHECK(count_diff(p, p_seq) == 0);
    CHECK(count_diff(m, m_seq) == 0);
    CHECK(count_diff(v, v_seq) == 0);
    CHECK(count_diff(c, c_seq) == 0);
    CHECK(count_diff(q, q_seq) == 0);
    CHECK(count_diff(b, b_seq) == 0);
  }
  // The data exercised something: some parameters moved, some went non-finite.
  CHECK(count_diff(p_seq, p0) > n / 2);
}

TEST_CASE("optim: awkward sizes") {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{17}, std::size_t{65}}) {
    CAPTURE(n);
    mixprec::adam_options o;
    check_adam_against_reference<half, half, half, half>(false, o, n, 40, rounding_spec{}, -4, 0);
    mixprec::sgd_options so;
    so.momentum = 0.5f;
    check_sgd_against_reference<float, float, float, bfloat16>(so, n, 41, rounding_spec{});
  }
  // Unaligned spans (an odd offset into a buffer).
  std::vector<half> buf = random_values<half>(40, 3, -1, 0), gbuf = random_values<half>(40, 4, -3, 0);
  std::vector<half> ref(buf.begin() + 3, buf.begin() + 36);
  const std::vector<half> g(gbuf.begin() + 3, gbuf.begin() + 36);
  std::vector<half> m(33), v(33), rm(33), rv(33), m2(33), v2(33);
  mixprec::adam_step(mixprec::exec::seq, span<half>(buf.data() + 3, 33), span<const half>(gbuf.data() + 3, 33),
                     span<half>(m2), span<half>(v2), 1, mixprec::adam_options{});
  ref_adam(ref, g, rm, rv, 1, mixprec::adam_options{}, false, rounding_spec{}, static_cast<std::vector<half>*>(nullptr));
  CHECK(count_diff(std::vector<half>(buf.begin() + 3, buf.begin() + 36), ref) == 0);
  CHECK(count_diff(m2, rm) == 0);
}

TEST_CASE("optim: the momentum buffer is created from the gradient on step 1") {
  mixprec::sgd_options o;
  o.momentum = 0.9f;
  o.lr = 0.5f;
  std::vector<float> p{1.0f, 2.0f}, b{123.0f, -7.0f};
  const std::vector<float> g{0.25f, -1.0f};
  mixprec::sgd_step(mixprec::exec::seq, span<float>(p), span<const float>(g), span<float>(b), 1, o);
  CHECK(b[0] == 0.25f);
  CHECK(b[1] == -1.0f);
  CHECK(p[0] == 0.875f);
  CHECK(p[1] == 2.5f);
  // Step 2: buf = 0.9 buf + g.
  mixprec::sgd_step(mixprec::exec::seq, span<float>(p), span<const float>(g), span<float>(b), 2, o);
  CHECK(b[0] == std::fma(0.25f, 1.0f, 0.25f * 0.9f));
  // momentum == 0: the buffer may be empty and is not touched.
  mixprec::sgd_options plain;
  plain.lr = 0.5f;
  mixprec::sgd_step(mixprec::exec::seq, span<float>(p), span<const float>(g), span<float>(), 1, plain);
  // Non-const grads deduce too.
  std::vector<float> gm = g;
  mixprec::sgd_step(mixprec::exec::seq, span<float>(p), span<float>(gm), span<float>(), 1, plain);
}

TEST_CASE("optim: a float master-weight step writes the model copy in the same pass") {
  const std::size_t n = 1000;
  std::vector<float> p = random_values<float>(n, 50, -3, 1), m(n), v(n);
  const std::vector<float> g = random_values<float>(n, 51, -4, 0);
  std::vector<half> copy(n);
  mixprec::adam_step(mixprec::exec::seq, span<float>(p), span<const float>(g), span<float>(m), span<float>(v), 1,
                     mixprec::adam_options{}, {}, span<half>(copy));
  for (std::size_t i = 0; i < n; ++i) REQUIRE(bits_of(copy[i]) == bits_of(half(p[i])));
  // Adam's first step moves every parameter with a nonzero gradient by about lr.
  std::vector<float> p0 = random_values<float>(n, 50, -3, 1);
  for (std::size_t i = 0; i < n; ++i) {
    if (g[i] != 0.0f) REQUIRE(std::fabs(std::fabs(p0[i] - p[i]) - 1e-3) < 1e-5);
  }
}

TEST_CASE("optim: stochastic rounding of the update is reproducible and unbiased") {
  // SGD on half: p = 1, update lr * g = 1e-4 (a tenth of half's ulp at 1, 2^-10): nearest even
  // never moves p; stochastic rounding moves it by one ulp with probability 0.1024.
  const std::size_t n = 200000;
  mixprec::sgd_options o;
  o.lr = 1e-4f;
  const std::vector<half> g(n, half(1.0f));
  std::vector<half> p(n, half(1.0f));
  mixprec::sgd_step(mixprec::exec::seq, span<half>(p), span<const half>(g), span<half>(), 1, o);
  for (half x : p) REQUIRE(bits_of(x) == bits_of(half(1.0f)));  // stagnation

  mixprec::update_rounding ur{mixprec::rounding::stochastic, 1234, 0};
  std::fill(p.begin(), p.end(), half(1.0f));
  mixprec::sgd_step(mixprec::exec::par(2), span<half>(p), span<const half>(g), span<half>(), 1, o, ur);
  double mean = 0;
  for (half x : p) mean += static_cast<double>(x);
  mean /= static_cast<double>(n);
  // The exact float update: fma(1, -lr as half, 1) in float.
  const double exact = static_cast<double>(std::fma(1.0f, static_cast<float>(half(-1e-4f)), 1.0f));
  const double ulp = std::ldexp(1.0, -11);  // half's spacing just below 1
  const double prob = (1.0 - exact) / ulp;
  const double sigma = ulp * std::sqrt(prob * (1 - prob) / static_cast<double>(n));
  INFO("mean " << mean << " exact " << exact << " sigma " << sigma);
  CHECK(std::fabs(mean - exact) < 5 * sigma);
  CHECK(mean < 1.0);

  // Same seed and offset: same bits under another policy; another seed or offset: other bits.
  std::vector<half> p2(n, half(1.0f)), p3(n, half(1.0f)), p4(n, half(1.0f));
  mixprec::sgd_step(mixprec::exec::seq, span<half>(p2), span<const half>(g), span<half>(), 1, o, ur);
  CHECK(count_diff(p, p2) == 0);
  mixprec::update_rounding other_seed{mixprec::rounding::stochastic, 1235, 0};
  mixprec::sgd_step(mixprec::exec::seq, span<half>(p3), span<const half>(g), span<half>(), 1, o, other_seed);
  CHECK(count_diff(p, p3) > n / 20);
  // Offset k shifts the counters: element i of (offset k) is element i + k of (offset 0).
  mixprec::update_rounding shifted{mixprec::rounding::stochastic, 1234, 10};
  mixprec::sgd_step(mixprec::exec::seq, span<half>(p4), span<const half>(g), span<half>(), 1, o, shifted);
  for (std::size_t i = 0; i + 10 < n; ++i) REQUIRE(bits_of(p4[i]) == bits_of(p[i + 10]));
}

TEST_CASE("optim: bad arguments throw and change nothing") {
  std::vector<float> p(4, 1.0f), m(4, 0.5f), v(4, 0.25f), b(4, 2.0f);
  const std::vector<float> g(4, 1.0f), g3(3, 1.0f);
  std::vector<half> copy3(3);
  const std::vector<float> p0 = p, m0 = m, v0 = v, b0 = b;
  const mixprec::adam_options ao;
  mixprec::sgd_options so;
  so.momentum = 0.9f;
  auto adam = [&](span<const float> gg, std::int64_t step, const mixprec::adam_options& o, span<half> c) {
    mixprec::adam_step(mixprec::exec::seq, span<float>(p), gg, span<float>(m), span<float>(v), step, o, {}, c);
  };
  CHECK_THROWS_AS(adam(span<const float>(g3), 1, ao, span<half>()), std::invalid_argument);
  CHECK_THROWS_AS(adam(span<const float>(g), 0, ao, span<half>()), std::invalid_argument);
  CHECK_THROWS_AS(adam(span<const float>(g), 1, ao, span<half>(copy3)), std::invalid_argument);
  mixprec::adam_options bad = ao;
  bad.beta1 = 1.0f;
  CHECK_THROWS_AS(adam(span<const float>(g), 1, bad, span<half>()), std::invalid_argument);
  bad = ao;
  bad.lr = -1.0f;
  CHECK_THROWS_AS(adam(span<const float>(g), 1, bad, span<half>()), std::invalid_argument);
  CHECK_THROWS_AS(mixprec::adamw_step(mixprec::exec::seq, span<float>(p), span<const float>(g), span<float>(m),
                                      span<float>(v.data(), 3), 1, ao),
                  std::invalid_argument);
  CHECK_THROWS_AS(mixprec::sgd_step(mixprec::exec::seq, span<float>(p), span<const float>(g),
                                    span<float>(b.data(), 2), 2, so),
                  std::invalid_argument);
  CHECK_THROWS_AS(mixprec::sgd_step(mixprec::exec::seq, span<float>(p), span<const float>(g), span<float>(b), -3, so),
                  std::invalid_argument);
  mixprec::sgd_options nd = so;
  nd.nesterov = true;
  nd.dampening = 0.1f;
  CHECK_THROWS_AS(mixprec::sgd_step(mixprec::exec::seq, span<float>(p), span<const float>(g), span<float>(b), 1, nd),
                  std::invalid_argument);
  try {
    adam(span<const float>(g3), 1, ao, span<half>());
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("grads") != std::string::npos);
  }
  CHECK(p == p0);
  CHECK(m == m0);
  CHECK(v == v0);
  CHECK(b == b0);
}
