// SPDX-License-Identifier: MIT
// examples/precision_study/report.hpp — the study's outputs: a markdown table, CSV files, a JSON
// document and SVG charts.
//
// Files written to the output directory:
//   summary.md     the markdown table (also printed)
//   results.csv    one row per mode, every per-mode number
//   epochs.csv     one row per mode and epoch: train loss, train / validation accuracy, seconds
//   losses.csv     one row per mode and step: the loss (empty when not finite)
//   results.json   all of the above in one document (non-finite numbers are written as null,
//                  so that strict JSON readers accept it; first_nonfinite_*_step tell where)
//   loss.svg       the loss curves of all modes on one chart (mean over windows of steps; a
//                  curve ends, marked x, at its first non-finite loss)
//   accuracy.svg   test accuracy per mode (bars)
//   time.svg       wall time per mode (bars)
//   memory.svg     exact bytes per mode, stacked: parameters, gradients, optimizer, activations
// Each is written as NAME.tmp, all of them first, then renamed onto NAME: a write that fails (a
// full disk) leaves the previous files as they were and no half-written file.
#ifndef MIXPREC_PRECISION_STUDY_REPORT_HPP
#define MIXPREC_PRECISION_STUDY_REPORT_HPP

#include <mixprec/detail/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "train.hpp"

namespace precision_study {

/// Everything the study produced.
struct study_report {
  std::string data_source;
  std::size_t train_count = 0, val_count = 0, test_count = 0;
  run_config config;
  unsigned threads_used = 0;
  int ranks = 1;  ///< MPI ranks (1: one process)
  bool gzip = false;
  std::vector<mode_result> modes;
  double total_seconds = 0;
};

namespace detail {

inline std::string fmt(const char* f, double v) {
  char s[64];
  std::snprintf(s, sizeof s, f, v);
  return s;
}

inline std::string mib(std::size_t bytes) { return fmt("%.2f", static_cast<double>(bytes) / (1024.0 * 1024.0)); }

inline std::string json_number(double v) {
  return std::isfinite(v) ? mixprec::detail::json::format_double(v) : std::string("null");
}

inline std::string json_string(const std::string& s) { return mixprec::detail::json::quote(s); }

inline std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

inline std::string csv_number(double v) { return std::isfinite(v) ? mixprec::detail::json::format_double(v) : ""; }

inline std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '&':
        o += "&amp;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

/// Writes text to the file `path` (errors name `shown`).
inline void write_text(const std::string& path, const std::string& text, const std::string& shown) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw study_error(shown + ": cannot write");
  f << text;
  f.close();
  if (!f) throw study_error(shown + ": write failed (disk full?)");
}

/// The temporary name a file is written under before it is renamed onto its own.
inline std::string temp_name(const std::string& path) { return path + ".tmp"; }

/// Writes every (path, text): all to temp_name(path) first, then each renamed onto its path. A
/// failed write (a full disk) removes the temporary files and leaves every path as it was: no
/// file is ever left half-written under its own name. Throws study_error naming the file.
inline void write_files(const std::vector<std::pair<std::string, std::string>>& files) {
  std::size_t made = 0;
  auto remove_temps = [&](std::size_t from) {
    for (std::size_t i = from; i < made; ++i) std::remove(temp_name(files[i].first).c_str());
  };
  try {
    for (const auto& f : files) {
      ++made;  // the temporary may exist (half-written) even when write_text throws
      write_text(temp_name(f.first), f.second, f.first);
    }
  } catch (...) {
    remove_temps(0);
    throw;
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::error_code ec;
    std::filesystem::rename(temp_name(files[i].first), files[i].first, ec);
    if (ec) {
      remove_temps(i);
      throw study_error(files[i].first + ": cannot replace it (" + ec.message() + ")");
    }
  }
}

inline const char* palette(std::size_t i) {
  static const char* const colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                       "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return colors[i % 10];
}

inline std::string nan_text(const mode_result& r) {
  if (!r.nan_seen) return "no";
  std::string s;
  if (r.first_nonfinite_loss_step >= 0) s += "loss at step " + std::to_string(r.first_nonfinite_loss_step);
  if (r.first_nonfinite_param_step >= 0) {
    if (!s.empty()) s += ", ";
    s += "params after step " + std::to_string(r.first_nonfinite_param_step);
  }
  return s;
}

}  // namespace detail

/// The summary table in markdown.
inline std::string markdown_table(const study_report& rep) {
  std::ostringstream o;
  o << "| Mode | Test acc. | Val acc. | Time (s) | Params (MiB) | Grads (MiB) | Optimizer (MiB) | Activations (MiB) "
       "| Total (MiB) | Peak RSS (MiB) | Skipped steps | Final loss scale | Non-finite |\n";
  o << "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n";
  for (const mode_result& r : rep.modes) {
    const double val = r.epochs.empty() ? 0.0 : r.epochs.back().val_acc;
    o << "| " << r.name << " | " << detail::fmt("%.2f%%", 100.0 * r.test_acc) << " | "
      << detail::fmt("%.2f%%", 100.0 * val) << " | " << detail::fmt("%.1f", r.seconds) << " | "
      << detail::mib(r.memory.params) << " | " << detail::mib(r.memory.grads) << " | "
      << detail::mib(r.memory.optimizer) << " | " << detail::mib(r.memory.activations) << " | "
      << detail::mib(r.memory.total()) << " | "
      << (r.peak_rss >= 0 ? detail::mib(static_cast<std::size_t>(r.peak_rss)) : std::string("n/a")) << " | "
      << (r.loss_scaling ? std::to_string(r.skipped_steps) : std::string("-")) << " | "
      << (r.loss_scaling ? detail::fmt("%g", r.final_scale) : std::string("-")) << " | " << detail::nan_text(r)
      << " |\n";
  }
  return o.str();
}

inline std::string results_csv(const study_report& rep) {
  std::ostringstream o;
  o << "mode,test_acc,final_val_acc,final_train_acc,final_train_loss,seconds,params_bytes,grads_bytes,optimizer_bytes,"
       "activation_bytes,total_bytes,peak_rss_bytes,steps,optimizer_steps,loss_scaling,skipped_steps,init_scale,"
       "final_scale,nan_seen,first_nonfinite_loss_step,first_nonfinite_param_step\n";
  for (const mode_result& r : rep.modes) {
    const epoch_record last = r.epochs.empty() ? epoch_record{} : r.epochs.back();
    o << detail::csv_field(r.name) << ',' << detail::csv_number(r.test_acc) << ',' << detail::csv_number(last.val_acc)
      << ',' << detail::csv_number(last.train_acc) << ',' << detail::csv_number(last.train_loss) << ','
      << detail::csv_number(r.seconds) << ',' << r.memory.params << ',' << r.memory.grads << ','
      << r.memory.optimizer << ',' << r.memory.activations << ',' << r.memory.total() << ',' << r.peak_rss << ','
      << r.steps << ',' << r.optimizer_steps << ',' << (r.loss_scaling ? "true" : "false") << ','
      << r.skipped_steps << ',' << detail::csv_number(r.init_scale) << ',' << detail::csv_number(r.final_scale)
      << ',' << (r.nan_seen ? "true" : "false") << ',' << r.first_nonfinite_loss_step << ','
      << r.first_nonfinite_param_step << '\n';
  }
  return o.str();
}

inline std::string epochs_csv(const study_report& rep) {
  std::ostringstream o;
  o << "mode,epoch,train_loss,train_acc,val_acc,seconds\n";
  for (const mode_result& r : rep.modes) {
    for (const epoch_record& e : r.epochs) {
      o << detail::csv_field(r.name) << ',' << e.epoch << ',' << detail::csv_number(e.train_loss) << ','
        << detail::csv_number(e.train_acc) << ',' << detail::csv_number(e.val_acc) << ','
        << detail::csv_number(e.seconds) << '\n';
    }
  }
  return o.str();
}

inline std::string losses_csv(const study_report& rep) {
  std::ostringstream o;
  o << "mode,step,loss\n";
  for (const mode_result& r : rep.modes) {
    for (std::size_t i = 0; i < r.losses.size(); ++i) {
      o << detail::csv_field(r.name) << ',' << (i + 1) << ',' << detail::csv_number(r.losses[i]) << '\n';
    }
  }
  return o.str();
}

inline std::string results_json(const study_report& rep) {
  using detail::json_number;
  using detail::json_string;
  std::ostringstream o;
  const run_config& c = rep.config;
  o << "{\n  \"data\": " << json_string(rep.data_source) << ",\n  \"gzip_support\": " << (rep.gzip ? "true" : "false")
    << ",\n  \"train_images\": " << rep.train_count << ",\n  \"val_images\": " << rep.val_count
    << ",\n  \"test_images\": " << rep.test_count << ",\n  \"epochs\": " << c.epochs << ",\n  \"batch\": " << c.batch
    << ",\n  \"seed\": " << c.seed << ",\n  \"threads\": " << rep.threads_used << ",\n  \"ranks\": " << rep.ranks
    << ",\n  \"micro_batches\": " << c.micro_batches << ",\n  \"reduce_dtype\": " << json_string(reduce_precision_name(c.reduce))
    << ",\n  \"total_seconds\": " << json_number(rep.total_seconds) << ",\n  \"modes\": [";
  for (std::size_t m = 0; m < rep.modes.size(); ++m) {
    const mode_result& r = rep.modes[m];
    o << (m ? "," : "") << "\n    {\n      \"name\": " << json_string(r.name)
      << ",\n      \"description\": " << json_string(r.description)
      << ",\n      \"test_acc\": " << json_number(r.test_acc) << ",\n      \"seconds\": " << json_number(r.seconds)
      << ",\n      \"memory\": {\"params\": " << r.memory.params << ", \"grads\": " << r.memory.grads
      << ", \"optimizer\": " << r.memory.optimizer << ", \"activations\": " << r.memory.activations
      << ", \"total\": " << r.memory.total() << ", \"detail\": " << json_string(r.memory_detail) << "}"
      << ",\n      \"peak_rss_bytes\": " << r.peak_rss << ",\n      \"steps\": " << r.steps
      << ",\n      \"optimizer_steps\": " << r.optimizer_steps
      << ",\n      \"loss_scaling\": " << (r.loss_scaling ? "true" : "false")
      << ",\n      \"skipped_steps\": " << r.skipped_steps << ",\n      \"init_scale\": " << json_number(r.init_scale)
      << ",\n      \"final_scale\": " << json_number(r.final_scale)
      << ",\n      \"nan_seen\": " << (r.nan_seen ? "true" : "false")
      << ",\n      \"first_nonfinite_loss_step\": " << r.first_nonfinite_loss_step
      << ",\n      \"first_nonfinite_param_step\": " << r.first_nonfinite_param_step
      << ",\n      \"train_seconds\": " << json_number(r.train_seconds)
      << ",\n      \"mpi_seconds\": " << json_number(r.mpi_seconds)
      << ",\n      \"grad_reduce_err_max\": " << json_number(r.grad_reduce_err_max)
      << ",\n      \"grad_reduce_err_mean\": " << json_number(r.grad_reduce_err_mean);
    o << ",\n      \"fp8_final_scales\": [";
    for (std::size_t i = 0; i < r.fp8_final_scales.size(); ++i) {
      o << (i ? ", " : "") << json_number(static_cast<double>(r.fp8_final_scales[i]));
    }
    o << "],\n      \"epochs\": [";
    for (std::size_t i = 0; i < r.epochs.size(); ++i) {
      const epoch_record& e = r.epochs[i];
      o << (i ? "," : "") << "\n        {\"epoch\": " << e.epoch << ", \"train_loss\": " << json_number(e.train_loss)
        << ", \"train_acc\": " << json_number(e.train_acc) << ", \"val_acc\": " << json_number(e.val_acc)
        << ", \"seconds\": " << json_number(e.seconds) << "}";
    }
    o << "],\n      \"losses\": [";
    for (std::size_t i = 0; i < r.losses.size(); ++i) {
      o << (i ? ", " : "") << json_number(r.losses[i]);
    }
    o << "]\n    }";
  }
  o << "\n  ]\n}\n";
  return o.str();
}

// ----------------------------------------------------------------------------------- SVG ----

namespace detail {

constexpr double svg_w = 900, svg_h = 480;

inline std::string svg_open(double w, double h, const std::string& title) {
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h << "\" viewBox=\"0 0 " << w
    << ' ' << h << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << w / 2 << "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">" << xml_escape(title)
    << "</text>\n";
  return o.str();
}

/// A "nice" step for about n ticks over [0, hi].
inline double nice_step(double hi, int n) {
  const double raw = hi / n;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / p;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

/// Horizontal bars, one per mode; values formatted with fmt_value.
template <class Value, class Label>
std::string bar_chart(const study_report& rep, const std::string& title, const std::string& axis, Value value,
                      Label label) {
  const double left = 170, right = 120, top = 40, bottom = 45;
  const double n = static_cast<double>(rep.modes.size());
  const double bar_h = 26, gap = 8;
  const double h = top + bottom + n * (bar_h + gap);
  const double w = svg_w;
  double hi = 0;
  for (const mode_result& r : rep.modes) hi = std::max(hi, value(r));
  if (!(hi > 0)) hi = 1;
  const double step = nice_step(hi, 5);
  hi = std::ceil(hi / step) * step;
  const double pw = w - left - right;
  std::ostringstream o;
  o << svg_open(w, h, title);
  for (double t = 0; t <= hi + step / 2; t += step) {
    const double x = left + pw * t / hi;
    o << "<line x1=\"" << x << "\" y1=\"" << top << "\" x2=\"" << x << "\" y2=\"" << h - bottom
      << "\" stroke=\"#ddd\"/>\n<text x=\"" << x << "\" y=\"" << h - bottom + 16 << "\" text-anchor=\"middle\">"
      << fmt("%g", t) << "</text>\n";
  }
  o << "<text x=\"" << left + pw / 2 << "\" y=\"" << h - 8 << "\" text-anchor=\"middle\">" << xml_escape(axis)
    << "</text>\n";
  for (std::size_t i = 0; i < rep.modes.size(); ++i) {
    const mode_result& r = rep.modes[i];
    const double y = top + static_cast<double>(i) * (bar_h + gap) + gap / 2;
    const double v = std::max(0.0, value(r));
    o << "<text x=\"" << left - 8 << "\" y=\"" << y + bar_h * 0.68 << "\" text-anchor=\"end\">" << xml_escape(r.name)
      << "</text>\n<rect x=\"" << left << "\" y=\"" << y << "\" width=\"" << pw * v / hi << "\" height=\"" << bar_h
      << "\" fill=\"" << palette(i) << "\"/>\n<text x=\"" << left + pw * v / hi + 6 << "\" y=\""
      << y + bar_h * 0.68 << "\">" << xml_escape(label(r)) << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace detail

inline std::string accuracy_svg(const study_report& rep) {
  return detail::bar_chart(
      rep, "Test accuracy", "test accuracy (%)", [](const mode_result& r) { return 100.0 * r.test_acc; },
      [](const mode_result& r) { return detail::fmt("%.2f%%", 100.0 * r.test_acc); });
}

inline std::string time_svg(const study_report& rep) {
  return detail::bar_chart(
      rep, "Wall time (training and evaluation)", "seconds", [](const mode_result& r) { return r.seconds; },
      [](const mode_result& r) { return detail::fmt("%.1f s", r.seconds); });
}

inline std::string memory_svg(const study_report& rep) {
  using namespace detail;
  const double left = 170, right = 150, top = 40, bottom = 70;
  const double n = static_cast<double>(rep.modes.size());
  const double bar_h = 26, gap = 8;
  const double h = top + bottom + n * (bar_h + gap);
  const double w = svg_w;
  const double mb = 1024.0 * 1024.0;
  double hi = 0;
  for (const mode_result& r : rep.modes) hi = std::max(hi, static_cast<double>(r.memory.total()) / mb);
  if (!(hi > 0)) hi = 1;
  const double step = nice_step(hi, 5);
  hi = std::ceil(hi / step) * step;
  const double pw = w - left - right;
  const char* parts[4] = {"parameters", "gradients", "optimizer state", "activations"};
  const char* colors[4] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"};
  std::ostringstream o;
  o << svg_open(w, h, "Memory held by each mode (exact bytes of its buffers)");
  for (double t = 0; t <= hi + step / 2; t += step) {
    const double x = left + pw * t / hi;
    o << "<line x1=\"" << x << "\" y1=\"" << top << "\" x2=\"" << x << "\" y2=\"" << h - bottom
      << "\" stroke=\"#ddd\"/>\n<text x=\"" << x << "\" y=\"" << h - bottom + 16 << "\" text-anchor=\"middle\">"
      << fmt("%g", t) << "</text>\n";
  }
  o << "<text x=\"" << left + pw / 2 << "\" y=\"" << h - bottom + 34 << "\" text-anchor=\"middle\">MiB</text>\n";
  for (std::size_t i = 0; i < rep.modes.size(); ++i) {
    const mode_result& r = rep.modes[i];
    const double y = top + static_cast<double>(i) * (bar_h + gap) + gap / 2;
    const std::size_t vals[4] = {r.memory.params, r.memory.grads, r.memory.optimizer, r.memory.activations};
    double x = left;
    o << "<text x=\"" << left - 8 << "\" y=\"" << y + bar_h * 0.68 << "\" text-anchor=\"end\">" << xml_escape(r.name)
      << "</text>\n";
    for (int k = 0; k < 4; ++k) {
      const double wd = pw * static_cast<double>(vals[k]) / mb / hi;
      o << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << wd << "\" height=\"" << bar_h << "\" fill=\""
        << colors[k] << "\"><title>" << parts[k] << ": " << vals[k] << " bytes</title></rect>\n";
      x += wd;
    }
    o << "<text x=\"" << x + 6 << "\" y=\"" << y + bar_h * 0.68 << "\">" << mib(r.memory.total()) << " MiB</text>\n";
  }
  for (int k = 0; k < 4; ++k) {
    const double lx = left + static_cast<double>(k) * 150;
    o << "<rect x=\"" << lx << "\" y=\"" << h - 24 << "\" width=\"12\" height=\"12\" fill=\"" << colors[k]
      << "\"/><text x=\"" << lx + 16 << "\" y=\"" << h - 14 << "\">" << parts[k] << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

/// The loss curves: each point the mean loss over a window of steps (about 120 points per
/// curve); a window with a non-finite loss ends the curve, marked with an x.
inline std::string loss_svg(const study_report& rep) {
  using namespace detail;
  const double left = 60, right = 230, top = 40, bottom = 50;
  const double w = svg_w, h = svg_h, pw = w - left - right, ph = h - top - bottom;
  std::size_t steps = 1;
  for (const mode_result& r : rep.modes) steps = std::max(steps, r.losses.size());
  const std::size_t window = std::max<std::size_t>(1, steps / 120);
  struct curve {
    std::vector<std::pair<double, double>> pts;
    bool broke = false;
    double break_x = 0;
  };
  std::vector<curve> curves;
  double hi = 0;
  for (const mode_result& r : rep.modes) {
    curve c;
    for (std::size_t b = 0; b < r.losses.size(); b += window) {
      const std::size_t e = std::min(r.losses.size(), b + window);
      double s = 0;
      bool bad = false;
      for (std::size_t i = b; i < e; ++i) {
        if (!std::isfinite(r.losses[i])) bad = true;
        s += r.losses[i];
      }
      if (bad) {
        c.broke = true;
        c.break_x = static_cast<double>(b + 1);
        break;
      }
      const double m = s / static_cast<double>(e - b);
      c.pts.emplace_back(static_cast<double>(b + e + 1) / 2.0, m);
      hi = std::max(hi, m);
    }
    curves.push_back(c);
  }
  hi = std::min(std::max(hi, 0.5), 3.0);
  const double ystep = nice_step(hi, 6);
  hi = std::ceil(hi / ystep) * ystep;
  const double xstep = nice_step(static_cast<double>(steps), 8);
  auto X = [&](double s) { return left + pw * s / static_cast<double>(steps); };
  auto Y = [&](double v) { return top + ph * (1.0 - std::min(v, hi) / hi); };
  std::ostringstream o;
  o << svg_open(w, h, "Training loss (mean over windows of " + std::to_string(window) + " steps)");
  for (double t = 0; t <= hi + ystep / 2; t += ystep) {
    o << "<line x1=\"" << left << "\" y1=\"" << Y(t) << "\" x2=\"" << left + pw << "\" y2=\"" << Y(t)
      << "\" stroke=\"#ddd\"/>\n<text x=\"" << left - 6 << "\" y=\"" << Y(t) + 4 << "\" text-anchor=\"end\">"
      << fmt("%g", t) << "</text>\n";
  }
  for (double t = 0; t <= static_cast<double>(steps) + xstep / 2; t += xstep) {
    o << "<line x1=\"" << X(t) << "\" y1=\"" << top << "\" x2=\"" << X(t) << "\" y2=\"" << top + ph
      << "\" stroke=\"#eee\"/>\n<text x=\"" << X(t) << "\" y=\"" << top + ph + 16 << "\" text-anchor=\"middle\">"
      << fmt("%g", t) << "</text>\n";
  }
  o << "<text x=\"" << left + pw / 2 << "\" y=\"" << h - 10 << "\" text-anchor=\"middle\">step</text>\n";
  o << "<text x=\"16\" y=\"" << top + ph / 2 << "\" text-anchor=\"middle\" transform=\"rotate(-90 16 " << top + ph / 2
    << ")\">cross-entropy loss</text>\n";
  for (std::size_t i = 0; i < curves.size(); ++i) {
    const curve& c = curves[i];
    if (!c.pts.empty()) {
      o << "<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"" << palette(i) << "\" points=\"";
      for (const auto& p : c.pts) o << fmt("%.1f", X(p.first)) << ',' << fmt("%.1f", Y(p.second)) << ' ';
      o << "\"/>\n";
    }
    if (c.broke) {
      const double x = X(c.break_x), y = top + 8;
      o << "<path d=\"M" << x - 5 << ',' << y - 5 << " L" << x + 5 << ',' << y + 5 << " M" << x - 5 << ',' << y + 5
        << " L" << x + 5 << ',' << y - 5 << "\" stroke=\"" << palette(i) << "\" stroke-width=\"2\"/>\n";
    }
    const double ly = top + 14 + static_cast<double>(i) * 18;
    o << "<line x1=\"" << left + pw + 12 << "\" y1=\"" << ly - 4 << "\" x2=\"" << left + pw + 32 << "\" y2=\""
      << ly - 4 << "\" stroke=\"" << palette(i) << "\" stroke-width=\"3\"/><text x=\"" << left + pw + 36
      << "\" y=\"" << ly << "\">" << xml_escape(rep.modes[i].name) << (c.broke ? " (non-finite)" : "")
      << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

/// Writes every output file into dir (which must exist) through detail::write_files (none is
/// left half-written); returns their paths.
inline std::vector<std::string> write_outputs(const study_report& rep, const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> files;
  auto put = [&](const char* name, std::string text) { files.emplace_back(dir + "/" + name, std::move(text)); };
  put("summary.md", "Precision study: " + rep.data_source + ", " + std::to_string(rep.train_count) + " training / " +
                        std::to_string(rep.val_count) + " validation / " + std::to_string(rep.test_count) +
                        " test images, " + std::to_string(rep.config.epochs) + " epoch(s), seed " +
                        std::to_string(rep.config.seed) + ", " + std::to_string(rep.threads_used) +
                        " thread(s), total " + detail::fmt("%.1f", rep.total_seconds) + " s.\n\n" +
                        markdown_table(rep));
  put("results.csv", results_csv(rep));
  put("epochs.csv", epochs_csv(rep));
  put("losses.csv", losses_csv(rep));
  put("results.json", results_json(rep));
  put("loss.svg", loss_svg(rep));
  put("accuracy.svg", accuracy_svg(rep));
  put("time.svg", time_svg(rep));
  put("memory.svg", memory_svg(rep));
  detail::write_files(files);
  std::vector<std::string> written;
  for (const auto& f : files) written.push_back(f.first);
  return written;
}

}  // namespace precision_study

#endif  // MIXPREC_PRECISION_STUDY_REPORT_HPP
