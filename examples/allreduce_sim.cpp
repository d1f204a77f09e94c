// SPDX-License-Identifier: MIT
// allreduce_sim: the rounding of an all-reduce, simulated exactly. NCCL's ring adds one rank at a
// time in the data type (each hop rounds), a tree adds pairs; mixprec::mpi::allreduce_gradients
// adds in rank order. This program sums the same per-rank gradients (normal values, one per element)
// all three ways in bfloat16, float16 and float8_e5m2, and once in float32 rounded once at the end,
// and measures the error against the exact sum (long double; exact for these sizes) for 2..64 ranks.
// It also shows why users see bf16 results change with the MESSAGE SIZE: the ring splits the message
// into one chunk per rank and starts each chunk's sum at a different rank, so moving the chunk
// boundaries (a longer message) changes the order in which an element's values are added.
//
//   allreduce_sim [--elements N] [--out DIR]     (default 16384 elements; writes DIR/allreduce_sim.svg, .csv)
// example-test-args: --elements 2048 --out .
// example-test-regex: ring bfloat16 .*\n(.|\n)*message size
#include <mixprec/mixprec.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using mixprec::round_to;

template <class T>
T add(T a, T b) {  // one hop: computed in float, rounded once to T (as NCCL's kernels do)
  return round_to<T>(static_cast<float>(a) + static_cast<float>(b));
}

/// Ring reduce-scatter order: element i of an n-element message lies in chunk c = i / ceil(n / N);
/// chunk c is summed starting at rank (c + 1) mod N and going around the ring.
template <class T>
T ring_sum(const std::vector<std::vector<T>>& x, std::size_t i, std::size_t n) {
  const std::size_t N = x.size();
  const std::size_t chunk = (n + N - 1) / N;
  const std::size_t c = i / chunk;
  std::size_t r = (c + 1) % N;
  T acc = x[r][i];
  for (std::size_t k = 1; k < N; ++k) {
    r = (r + 1) % N;
    acc = add(acc, x[r][i]);
  }
  return acc;
}

/// Binary tree: pairs (0,1), (2,3), ..., then pairs of those results, and so on.
template <class T>
T tree_sum(const std::vector<std::vector<T>>& x, std::size_t i) {
  std::vector<T> level;
  for (const auto& rank : x) level.push_back(rank[i]);
  while (level.size() > 1) {
    std::vector<T> next;
    for (std::size_t k = 0; k + 1 < level.size(); k += 2) next.push_back(add(level[k], level[k + 1]));
    if (level.size() % 2 == 1) next.push_back(level.back());
    level.swap(next);
  }
  return level[0];
}

template <class T>
T rank_order_sum(const std::vector<std::vector<T>>& x, std::size_t i) {
  T acc = x[0][i];
  for (std::size_t r = 1; r < x.size(); ++r) acc = add(acc, x[r][i]);
  return acc;
}

struct result {
  std::string method;
  int ranks;
  double mean_rel;      // mean |got - exact| / |exact|
  double differs;       // share of elements that differ from the once-rounded exact sum
};

template <class T>
void run_type(const char* name, int ranks, std::size_t n, std::mt19937_64& gen, std::vector<result>& out) {
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<std::vector<T>> x(static_cast<std::size_t>(ranks), std::vector<T>(n));
  std::vector<long double> exact(n, 0.0L);
  for (auto& rank : x) {
    for (std::size_t i = 0; i < n; ++i) {
      rank[i] = round_to<T>(normal(gen) * 0.01);  // gradients of one scale, stored in T
      exact[i] += static_cast<long double>(static_cast<double>(rank[i]));
    }
  }
  struct acc {
    double rel = 0;
    std::size_t diff = 0, counted = 0;
  } ring, tree, order, f32;
  auto account = [&](acc& a, T got, std::size_t i) {
    const long double e = exact[i];
    const T once = round_to<T>(static_cast<double>(e));
    if (mixprec::float_traits<T>::to_bits(got) != mixprec::float_traits<T>::to_bits(once)) ++a.diff;
    if (std::fpclassify(e) != FP_ZERO && std::isfinite(static_cast<double>(got))) {
      a.rel += static_cast<double>(std::fabs((static_cast<long double>(static_cast<double>(got)) - e) / e));
      ++a.counted;
    }
  };
  for (std::size_t i = 0; i < n; ++i) {
    account(ring, ring_sum(x, i, n), i);
    account(tree, tree_sum(x, i), i);
    account(order, rank_order_sum(x, i), i);
    float s = 0;  // float32 accumulation in rank order, one rounding to T at the end
    for (const auto& rank : x) s += static_cast<float>(rank[i]);
    account(f32, round_to<T>(s), i);
  }
  auto push = [&](const char* m, const acc& a) {
    out.push_back({std::string(m) + " " + name, ranks, a.counted ? a.rel / static_cast<double>(a.counted) : 0.0,
                   static_cast<double>(a.diff) / static_cast<double>(n)});
  };
  push("ring", ring);
  push("tree", tree);
  push("rank-order", order);
  push("float32, rounded once:", f32);
}

std::string svg_plot(const std::vector<result>& rs, const std::vector<int>& ranks) {
  std::vector<std::string> methods;
  for (const auto& r : rs)
    if (std::find(methods.begin(), methods.end(), r.method) == methods.end()) methods.push_back(r.method);
  const double W = 780, H = 400, L = 70, T = 30, PW = 420, PH = 320;
  double lo = 1e300, hi = 0;
  for (const auto& r : rs)
    if (r.mean_rel > 0) lo = std::min(lo, r.mean_rel), hi = std::max(hi, r.mean_rel);
  const double llo = std::floor(std::log10(lo)), lhi = std::ceil(std::log10(hi));
  auto X = [&](int n) { return L + PW * (std::log2(n) - 1) / (std::log2(ranks.back()) - 1); };
  auto Y = [&](double v) { return T + PH * (lhi - std::log10(v)) / (lhi - llo); };
  const char* colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                          "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000000", "#aec7e8"};
  std::ostringstream s;
  s << "<svg xmlns='http://www.w3.org/2000/svg' width='" << W << "' height='" << H
    << "' font-family='sans-serif' font-size='11'>\n<text x='" << L << "' y='18'>mean relative error of the "
    << "all-reduce sum vs ranks</text>\n<rect x='" << L << "' y='" << T << "' width='" << PW << "' height='" << PH
    << "' fill='none' stroke='black'/>\n";
  for (int n : ranks) s << "<text x='" << X(n) << "' y='" << T + PH + 15 << "' text-anchor='middle'>" << n << "</text>\n";
  for (double e = llo; e <= lhi; e += 1) s << "<text x='" << L - 5 << "' y='" << Y(std::pow(10, e)) + 4 << "' text-anchor='end'>1e" << e << "</text>\n";
  for (std::size_t m = 0; m < methods.size(); ++m) {
    std::ostringstream pts;
    for (const auto& r : rs)
      if (r.method == methods[m] && r.mean_rel > 0) pts << X(r.ranks) << ',' << Y(r.mean_rel) << ' ';
    s << "<polyline fill='none' stroke='" << colors[m % 12] << "' points='" << pts.str() << "'/>\n";
    s << "<text x='" << L + PW + 10 << "' y='" << T + 12 + 14 * static_cast<double>(m) << "' fill='" << colors[m % 12]
      << "'>" << methods[m] << "</text>\n";
  }
  s << "</svg>\n";
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t n = 16384;
  std::string dir = ".";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--elements" && i + 1 < argc) {
      const long v = std::strtol(argv[++i], nullptr, 10);
      if (v < 64 || v > (1L << 24)) return std::fprintf(stderr, "allreduce_sim: --elements takes 64 .. 2^24\n"), 2;
      n = static_cast<std::size_t>(v);
    } else if (a == "--out" && i + 1 < argc) {
      dir = argv[++i];
    } else {
      return std::fprintf(stderr, "usage: allreduce_sim [--elements N] [--out DIR]\n"), 2;
    }
  }
  const std::vector<int> ranks = {2, 4, 8, 16, 32, 64};
  std::vector<result> rs;
  for (int N : ranks) {
    std::fprintf(stderr, "simulating %d ranks...\n", N);
    std::mt19937_64 gen(static_cast<std::uint64_t>(N) * 7919);
    run_type<mixprec::bfloat16>("bfloat16", N, n, gen, rs);
    run_type<mixprec::half>("float16", N, n, gen, rs);
    run_type<mixprec::float8_e5m2>("float8_e5m2", N, n, gen, rs);
  }
  std::printf("%zu elements, values N(0, 0.01^2) per rank; error against the exact sum\n\n", n);
  std::printf("%-38s %6s %16s %28s\n", "method", "ranks", "mean rel. error", "differs from one rounding");
  for (const auto& r : rs) std::printf("%-38s %6d %16.3e %27.1f%%\n", r.method.c_str(), r.ranks, r.mean_rel, 100 * r.differs);

  // Message size: the same first 1024 elements, reduced as part of messages of different lengths.
  {
    const int N = 8;
    std::mt19937_64 gen(42);
    std::normal_distribution<double> normal(0.0, 0.01);
    const std::size_t base = 1024;
    std::vector<std::vector<mixprec::bfloat16>> x(N, std::vector<mixprec::bfloat16>(4 * base));
    for (auto& r : x)
      for (auto& v : r) v = round_to<mixprec::bfloat16>(normal(gen));
    std::vector<mixprec::bfloat16> ref(base);
    for (std::size_t i = 0; i < base; ++i) ref[i] = ring_sum(x, i, base);
    std::printf("\nmessage size: ring bfloat16, %d ranks; the first %zu elements' sums, as part of a longer message\n", N, base);
    for (std::size_t len : {base, base + 8, 2 * base, 4 * base}) {
      std::size_t diff = 0;
      for (std::size_t i = 0; i < base; ++i)
        diff += mixprec::float_traits<mixprec::bfloat16>::to_bits(ring_sum(x, i, len)) !=
                mixprec::float_traits<mixprec::bfloat16>::to_bits(ref[i]);
      std::printf("  message of %5zu elements: %5.1f%% of those sums differ from the %zu-element message's\n", len,
                  100.0 * static_cast<double>(diff) / static_cast<double>(base), base);
    }
  }

  const std::string csv = dir + "/allreduce_sim.csv", svg = dir + "/allreduce_sim.svg";
  std::ofstream c(csv + ".tmp");
  c << "method,ranks,mean_rel_error,differs_from_one_rounding\n";
  for (const auto& r : rs) c << r.method << ',' << r.ranks << ',' << r.mean_rel << ',' << r.differs << '\n';
  std::ofstream g(svg + ".tmp");
  g << svg_plot(rs, ranks);
  c.close();
  g.close();
  if (!c || !g || std::rename((csv + ".tmp").c_str(), csv.c_str()) != 0 || std::rename((svg + ".tmp").c_str(), svg.c_str()) != 0) {
    std::fprintf(stderr, "allreduce_sim: cannot write %s\n", dir.c_str());
    return 1;
  }
  std::fprintf(stderr, "wrote %s and %s\n", csv.c_str(), svg.c_str());
  return 0;
}
