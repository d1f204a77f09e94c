// SPDX-License-Identifier: MIT
// examples/loss_scaling — gradient underflow made visible: why fp16 training scales the loss.
//
// Gradients of a deep network spread over many powers of two (here a log-normal spread,
// log2|g| ~ N(-20, 6) cut to [-40, 0]). Stored in fp16 they lose everything below 2^-25 (zero)
// and most of their bits below 2^-14 (subnormal). Multiplying the loss by S multiplies every
// gradient by S and moves the whole spread up by log2(S) powers of two, away from the underflow,
// as long as the largest gradient stays below 65504. mixprec::grad_scaler finds S on its own:
// this program runs it on simulated fp16 backward passes, then prints a histogram by power of
// two of what fp16 does to the gradients without scaling and with the scale it found, and
// writes the same picture as an SVG.
//
//   loss_scaling [--out PATH]     (default: ./loss_scaling.svg; the path is printed)
#include <mixprec/amp.hpp>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int lo_exp = -40;  // bins [2^e, 2^(e+1)) for e in [lo_exp, hi_exp)
constexpr int hi_exp = 0;
constexpr int bins = hi_exp - lo_exp;

/// Portable normal deviates (Box-Muller on mt19937 bits, which every standard library produces
/// identically), so the output is the same everywhere.
class normal_source {
 public:
  explicit normal_source(std::uint32_t seed) : rng_(seed) {}
  double next() {
    if (have_) {
      have_ = false;
      return spare_;
    }
    const double u1 = (static_cast<double>(rng_()) + 1.0) / 4294967297.0;
    const double u2 = static_cast<double>(rng_()) / 4294967296.0;
    const double r = std::sqrt(-2.0 * std::log(u1));
    spare_ = r * std::sin(6.283185307179586 * u2);
    have_ = true;
    return r * std::cos(6.283185307179586 * u2);
  }
  bool coin() { return (rng_() & 1u) != 0; }

 private:
  std::mt19937 rng_;
  double spare_ = 0.0;
  bool have_ = false;
};

/// A gradient: sign * 2^t with t ~ N(-20, 6) restricted to [-40, 0).
float draw_gradient(normal_source& src) {
  double t;
  do {
    t = -20.0 + 6.0 * src.next();
  } while (t < lo_exp || t >= hi_exp);
  const auto g = static_cast<float>(std::exp2(t));
  return src.coin() ? -g : g;
}

enum fate : std::size_t { lost, subnormal, kept, overflowed, fates };
const char* const fate_name[fates] = {"zero", "subnormal", "normal", "overflow"};
const char* const fate_color[fates] = {"#d62728", "#ff9f1c", "#2ca02c", "#6a3d9a"};

/// What storing g * scale in fp16 does to it.
fate fp16_fate(float g, float scale) {
  const mixprec::half h(g * scale);
  if (mixprec::isinf(h)) return overflowed;
  if (static_cast<float>(h) == 0.0f) return lost;
  if (mixprec::issubnormal(h)) return subnormal;
  return kept;
}

/// The optimizer of the simulation: fp32 master gradients (copied from the fp16 backward pass).
struct master_optimizer {
  std::vector<float> grad;
  int steps = 0;
  std::array<mixprec::gradient_ref, 1> gradients() { return {mixprec::gradient_ref(grad)}; }
  void step() { ++steps; }
};

struct histogram {
  std::array<std::array<long, fates>, bins> count{};
  std::array<long, bins> total{};
  std::array<long, fates> all{};
  long n = 0;
};

histogram classify(const std::vector<float>& g, float scale) {
  histogram h;
  for (float x : g) {
    const int e = std::ilogb(x);
    const int b = e - lo_exp;
    if (b < 0 || b >= bins) continue;
    const fate f = fp16_fate(x, scale);
    ++h.count[static_cast<std::size_t>(b)][f];
    ++h.total[static_cast<std::size_t>(b)];
    ++h.all[f];
    ++h.n;
  }
  return h;
}

double pct(long part, long whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

std::string fmt(const char* f, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}

/// One panel of the SVG: stacked bars per power of two, colored by fp16 fate.
void svg_panel(std::string& s, const histogram& h, double x0, double y0, double w, double ht,
               const std::string& title) {
  long peak = 1;
  for (long t : h.total) peak = t > peak ? t : peak;
  const double bw = w / bins;
  s += "<text x='" + fmt("%.1f", x0) + "' y='" + fmt("%.1f", y0 - 8) + "' font-size='15' font-weight='bold'>" + title +
       "</text>\n";
  s += "<rect x='" + fmt("%.1f", x0) + "' y='" + fmt("%.1f", y0) + "' width='" + fmt("%.1f", w) + "' height='" +
       fmt("%.1f", ht) + "' fill='none' stroke='#999'/>\n";
  for (int b = 0; b < bins; ++b) {
    double y = y0 + ht;
    for (std::size_t f = 0; f < fates; ++f) {
      const double bh = ht * static_cast<double>(h.count[static_cast<std::size_t>(b)][f]) / static_cast<double>(peak);
      if (bh <= 0) continue;
      y -= bh;
      s += "<rect x='" + fmt("%.2f", x0 + b * bw + 1) + "' y='" + fmt("%.2f", y) + "' width='" + fmt("%.2f", bw - 2) +
           "' height='" + fmt("%.2f", bh) + "' fill='" + fate_color[f] + "'/>\n";
    }
    if ((b + lo_exp) % 5 == 0) {
      s += "<text x='" + fmt("%.1f", x0 + b * bw) + "' y='" + fmt("%.1f", y0 + ht + 16) + "' font-size='11'>2^" +
           std::to_string(b + lo_exp) + "</text>\n";
    }
  }
  std::string legend;
  double lx = x0 + w - 350;
  for (std::size_t f = 0; f < fates; ++f) {
    s += "<rect x='" + fmt("%.1f", lx) + "' y='" + fmt("%.1f", y0 + 8) + "' width='10' height='10' fill='" +
         fate_color[f] + "'/>";
    s += "<text x='" + fmt("%.1f", lx + 14) + "' y='" + fmt("%.1f", y0 + 17) + "' font-size='11'>" + fate_name[f] +
         " " + fmt("%.1f", pct(h.all[f], h.n)) + "%</text>\n";
    lx += 82;
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string out = "loss_scaling.svg";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
      out = argv[++i];
    } else if (std::strncmp(argv[i], "--out=", 6) == 0) {
      out = argv[i] + 6;
    } else {
      std::fprintf(stderr, "usage: %s [--out PATH]   (writes an SVG; default ./loss_scaling.svg)\n", argv[0]);
      return 2;
    }
  }

  // 1. Let the dynamic loss scale settle: 600 simulated steps of an fp16 backward pass. The
  //    growth interval is shortened from PyTorch's 2000 to 25 so that it moves within the demo.
  mixprec::loss_scale_config cfg = mixprec::loss_scale_config::pytorch();
  cfg.growth_interval = 25;
  mixprec::grad_scaler scaler(cfg);
  normal_source src(2024);
  master_optimizer opt;
  opt.grad.resize(4096);
  int skipped = 0;
  std::map<int, int> steps_at;  // log2(scale) -> steps
  std::printf(
      "dynamic loss scale (PyTorch's rule, growth_interval shortened to %lld), 600 steps of an fp16\n"
      "backward pass over 4096 gradients each:\n",
      static_cast<long long>(cfg.growth_interval));
  for (int step = 0; step < 600; ++step) {
    const auto s = static_cast<float>(scaler.get_scale());
    ++steps_at[std::ilogb(s)];
    for (float& g : opt.grad)
      g = static_cast<float>(mixprec::half(draw_gradient(src) * s));  // fp16 grads of scale(loss)
    if (!scaler.step(opt)) ++skipped;                                 // an fp16 gradient overflowed: skip, and back off
    scaler.update();
  }
  for (const auto& kv : steps_at) std::printf("  scale 2^%d during %d steps\n", kv.first, kv.second);
  const auto scale = static_cast<float>(scaler.get_scale());
  std::printf("  %d of 600 steps skipped for inf gradients; final scale S = 2^%d\n\n", skipped, std::ilogb(scale));

  // 2. What fp16 does to 400000 gradients, without scaling and with S.
  std::vector<float> g(400000);
  for (float& x : g) x = std::fabs(draw_gradient(src));
  const histogram plain = classify(g, 1.0f);
  const histogram scaled = classify(g, scale);

  std::printf("gradients by power of two (log2|g| ~ N(-20, 6) on [-40, 0)), and their fate in fp16:\n");
  std::printf("  %-6s %6s %-32s | %16s %8s | %17s %8s\n", "bin", "share", "", "no scaling: zero", "subnorm",
              "scaled by S: zero", "subnorm");
  for (int b = 0; b < bins; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    const double share = pct(plain.total[ub], plain.n);
    std::string bar(static_cast<std::size_t>(share * 3.0 + 0.5), '#');
    if (bar.size() > 32) bar.resize(32);
    std::printf("  2^%-4d %5.2f%% %-32s | %15.1f%% %7.1f%% | %16.1f%% %7.1f%%\n", b + lo_exp, share, bar.c_str(),
                pct(plain.count[ub][lost], plain.total[ub]), pct(plain.count[ub][subnormal], plain.total[ub]),
                pct(scaled.count[ub][lost], scaled.total[ub]), pct(scaled.count[ub][subnormal], scaled.total[ub]));
  }
  std::printf("\n  all gradients          no scaling   scaled by S = 2^%d\n", std::ilogb(scale));
  for (std::size_t f = 0; f < fates; ++f) {
    std::printf("  %-20s %10.2f%% %12.2f%%\n", fate_name[f], pct(plain.all[f], plain.n), pct(scaled.all[f], scaled.n));
  }
  std::printf(
      "\nGradients require scaling, especially small ones: without it fp16 flushes every gradient\n"
      "below 2^-25 to zero and keeps only a few bits of those below 2^-14.\n");

  // 3. The SVG.
  std::string svg =
      "<svg xmlns='http://www.w3.org/2000/svg' width='960' height='620' font-family='sans-serif'>\n"
      "<rect width='100%' height='100%' fill='white'/>\n"
      "<text x='40' y='28' font-size='17'>Gradient magnitudes by power of two, and what fp16 keeps of them</text>\n";
  svg_panel(svg, plain, 40, 70, 880, 200, "fp16, no loss scaling");
  svg_panel(svg, scaled, 40, 350, 880, 200, "fp16, dynamic loss scale S = 2^" + std::to_string(std::ilogb(scale)));
  svg +=
      "<text x='40' y='600' font-size='12'>log2|g| ~ N(-20, 6) on [-40, 0); fp16 keeps normal numbers from 2^-14, "
      "subnormals down to 2^-24, and rounds the rest to zero.</text>\n</svg>\n";
  std::FILE* f = std::fopen(out.c_str(), "wb");
  if (f == nullptr) {
    std::fprintf(stderr, "loss_scaling: cannot write %s: %s\n", out.c_str(), std::strerror(errno));
    return 1;
  }
  const bool ok = std::fwrite(svg.data(), 1, svg.size(), f) == svg.size();
  if (std::fclose(f) != 0 || !ok) {
    std::fprintf(stderr, "loss_scaling: error writing %s\n", out.c_str());
    return 1;
  }
  std::printf("\nwrote %s\n", out.c_str());

  // The picture must show what it claims.
  return pct(scaled.all[lost], scaled.n) < pct(plain.all[lost], plain.n) && scale > 1.0f ? 0 : 1;
}
