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
//   loss.svg       every mode's loss on one log-scale chart, then one small panel per mode with
//                  its loss minus float64's (means over windows of steps); each mode has its own
//                  colour and dash pattern; a curve ends, marked x, at its first non-finite loss
//   accuracy.svg   test accuracy per mode (bars)
//   time.svg       wall time per mode (bars)
//   memory.svg     exact bytes per mode, stacked: parameters, gradients, optimizer, activations
// Each is written as NAME.tmp, all of them first, then renamed onto NAME: a write that fails (a
// full disk) leaves the previous files as they were and no half-written file.
#ifndef MIXPREC_PRECISION_STUDY_REPORT_HPP
#define MIXPREC_PRECISION_STUDY_REPORT_HPP

#include <mixprec/text/json.hpp>

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
  return std::isfinite(v) ? mixprec::json::number_text(v) : std::string("null");
}

inline std::string json_string(const std::string& s) { return mixprec::json::quote(s); }

inline std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

inline std::string csv_number(double v) { return std::isfinite(v) ? mixprec::json::number_text(v) : ""; }

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

/// Mode i's colour: twelve distinct colours (the study's modes), then again.
inline const char* palette(std::size_t i) {
  static const char* const colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                                       "#e377c2", "#000000", "#bcbd22", "#17becf", "#5254a3", "#b8860b"};
  return colors[i % 12];
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

namespace detail {

/// The line style of mode i in the loss chart: a colour and an SVG dash pattern ("" solid).
/// Twelve colours (no two modes of the study share one) and four patterns, so that a mode can
/// be told apart by either.
inline const char* loss_color(std::size_t i) { return palette(i); }
inline const char* loss_dash(std::size_t i) {
  static const char* const dashes[] = {"", "7 3", "2 2", "9 3 2 3"};
  return dashes[i % 4];
}

/// Points (step, value) of a curve: the mean of each window of steps. A window with a
/// non-finite value ends the curve (broke, at the window's first step).
struct loss_curve {
  std::vector<std::pair<double, double>> pts;
  bool broke = false;
  double break_x = 0;
};

/// The windowed means of v, or of v - ref where ref is given (over the steps both have; a
/// non-finite ref ends the curve without marking it broken).
inline loss_curve windowed(const std::vector<double>& v, std::size_t window, const std::vector<double>* ref = nullptr) {
  loss_curve c;
  const std::size_t n = ref != nullptr ? std::min(v.size(), ref->size()) : v.size();
  for (std::size_t b = 0; b < n; b += window) {
    const std::size_t e = std::min(n, b + window);
    double sum = 0;
    for (std::size_t i = b; i < e; ++i) {
      if (!std::isfinite(v[i])) {
        c.broke = true;
        c.break_x = static_cast<double>(b + 1);
        return c;
      }
      if (ref != nullptr && !std::isfinite((*ref)[i])) return c;
      sum += ref != nullptr ? v[i] - (*ref)[i] : v[i];
    }
    c.pts.emplace_back(static_cast<double>(b + e + 1) / 2.0, sum / static_cast<double>(e - b));
  }
  return c;
}

/// The mean of the finite values among the last tenth of v's steps (NaN if v breaks there).
inline double tail_mean(const std::vector<double>& v) {
  if (v.empty()) return std::nan("");
  const std::size_t from = v.size() - std::max<std::size_t>(1, v.size() / 10);
  double sum = 0;
  for (std::size_t i = from; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) return std::nan("");
    sum += v[i];
  }
  return sum / static_cast<double>(v.size() - from);
}

/// An SVG polyline through pts mapped by X and Y.
template <class FX, class FY>
void polyline(std::ostringstream& o, const std::vector<std::pair<double, double>>& pts, FX X, FY Y, const char* color,
              const char* dash, double width) {
  if (pts.empty()) return;
  o << "<polyline fill=\"none\" stroke-width=\"" << width << "\" stroke=\"" << color << '"';
  if (*dash != '\0') o << " stroke-dasharray=\"" << dash << '"';
  o << " points=\"";
  for (const auto& p : pts) o << fmt("%.1f", X(p.first)) << ',' << fmt("%.1f", Y(p.second)) << ' ';
  o << "\"/>\n";
}

/// A sample of mode i's line style, 24 px long, from (x, y).
inline void line_sample(std::ostringstream& o, double x, double y, std::size_t i) {
  o << "<line x1=\"" << x << "\" y1=\"" << y << "\" x2=\"" << x + 24 << "\" y2=\"" << y << "\" stroke=\""
    << loss_color(i) << "\" stroke-width=\"2.5\"";
  if (*loss_dash(i) != '\0') o << " stroke-dasharray=\"" << loss_dash(i) << '"';
  o << "/>";
}

/// An x marking where a curve ended at a non-finite loss.
inline void break_mark(std::ostringstream& o, double x, double y, const char* color) {
  o << "<path d=\"M" << x - 5 << ',' << y - 5 << " L" << x + 5 << ',' << y + 5 << " M" << x - 5 << ',' << y + 5 << " L"
    << x + 5 << ',' << y - 5 << "\" stroke=\"" << color << "\" stroke-width=\"2\"/>\n";
}

}  // namespace detail

/// The 1-2-5 sequence (..., 0.1, 0.2, 0.5, 1, 2, 5, ...): the largest value <= v (down) or the
/// smallest >= v (up); v > 0.
inline double one_two_five(double v, bool up) {
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  const double steps[] = {1, 2, 5, 10};
  double r = up ? 10 * p : p;
  for (double s : steps) {
    if (up && s * p >= v * (1 - 1e-12)) return s * p;
    if (!up && s * p <= v * (1 + 1e-12)) r = s * p;
  }
  return r;
}

/// The loss chart, in two parts, so that every mode can be told apart:
///   - all modes' loss (mean over windows of steps) on one panel with a log scale, each mode in
///     its own colour and dash pattern, with a legend: the shape of training;
///   - small multiples: one panel per mode other than float64 with the difference of its loss
///     from float64's (step by step, then the mean over windows), on a shared scale around a
///     zero line; each panel says the mean loss of the last tenth of the steps and its
///     difference from float64's.
/// A curve ends, marked x, at its first non-finite loss; its legend entry says "(non-finite)".
/// The reference is the mode named float64 (else the first mode).
inline std::string loss_svg(const study_report& rep) {
  using namespace detail;
  const std::size_t n = rep.modes.size();
  std::size_t ref = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (rep.modes[i].name == "float64") ref = i;
  }
  const std::string ref_name = n > 0 ? rep.modes[ref].name : std::string("float64");
  std::size_t steps = 1;
  for (const mode_result& r : rep.modes) steps = std::max(steps, r.losses.size());
  const std::size_t window = std::max<std::size_t>(1, steps / 150);
  const std::size_t dwindow = std::max<std::size_t>(1, steps / 40);
  const std::vector<double>* ref_losses = n > 0 ? &rep.modes[ref].losses : nullptr;

  std::vector<loss_curve> curves, diffs;
  double lo = 1e300, hi = 0, dhi = 0;
  for (std::size_t i = 0; i < n; ++i) {
    curves.push_back(windowed(rep.modes[i].losses, window));
    for (const auto& p : curves.back().pts) {
      if (p.second > 0) lo = std::min(lo, p.second);
      hi = std::max(hi, p.second);
    }
    diffs.push_back(i == ref ? loss_curve{} : windowed(rep.modes[i].losses, dwindow, ref_losses));
    for (const auto& p : diffs.back().pts) dhi = std::max(dhi, std::fabs(p.second));
  }
  if (!(hi > 0)) hi = 1;
  if (!(lo < hi)) lo = hi / 10;
  hi = one_two_five(std::min(hi, 10.0), true);
  lo = one_two_five(std::max(lo, hi / 1000), false);
  if (!(dhi > 0)) dhi = 0.01;
  const double dstep = nice_step(dhi, 2);
  dhi = std::ceil(dhi / dstep) * dstep;
  const double xsteps = static_cast<double>(steps);
  const double xstep = nice_step(xsteps, 4);

  // Geometry: the loss panel with its legend at the right, then the grid of difference panels.
  const double w = 960, left = 56, right = 16, top = 62, a_h = 250, legend_w = 220;
  const double a_w = w - left - right - legend_w;
  const std::size_t others = n > 0 ? n - 1 : 0;
  const std::size_t cols = std::max<std::size_t>(1, std::min<std::size_t>(4, others));
  const std::size_t rows = (others + cols - 1) / cols;
  const double gap_x = 14, cell_title = 34, cell_h = 104, gap_y = 26;
  const double cw = (w - left - right - gap_x * static_cast<double>(cols - 1)) / static_cast<double>(cols);
  const double b_top = top + a_h + 92;
  const double h = others > 0 ? b_top + static_cast<double>(rows) * (cell_title + cell_h + gap_y) + 24 : top + a_h + 44;
  auto windows_of = [](std::size_t k) {
    return k == 1 ? std::string("per step") : "mean over windows of " + std::to_string(k) + " steps";
  };

  std::ostringstream o;
  o << svg_open(w, h, others > 0 ? "Training loss of each mode, and its difference from " + ref_name
                                  : std::string("Training loss"));

  // Part 1: every mode's loss, log scale.
  auto X = [&](double t) { return left + a_w * t / xsteps; };
  auto Y = [&](double v) {
    const double c = std::max(lo, std::min(v, hi));
    return top + a_h * (1.0 - std::log(c / lo) / std::log(hi / lo));
  };
  o << "<text x=\"" << left << "\" y=\"" << top - 10 << "\" font-size=\"13\">Cross-entropy loss, log scale ("
    << windows_of(window) << "; where the curves overlap, the differences below tell them apart)</text>\n";
  o << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << a_w << "\" height=\"" << a_h
    << "\" fill=\"none\" stroke=\"#ccc\"/>\n";
  for (double t = lo; t <= hi * (1 + 1e-9); t = one_two_five(t * 1.5, true)) {
    o << "<line x1=\"" << left << "\" y1=\"" << Y(t) << "\" x2=\"" << left + a_w << "\" y2=\"" << Y(t)
      << "\" stroke=\"#eee\"/>\n<text x=\"" << left - 5 << "\" y=\"" << Y(t) + 4
      << "\" text-anchor=\"end\" font-size=\"10\">" << fmt("%g", t) << "</text>\n";
  }
  for (double t = 0; t <= xsteps * (1 + 1e-9); t += xstep) {
    o << "<line x1=\"" << X(t) << "\" y1=\"" << top << "\" x2=\"" << X(t) << "\" y2=\"" << top + a_h
      << "\" stroke=\"#f2f2f2\"/>\n<text x=\"" << X(t) << "\" y=\"" << top + a_h + 14
      << "\" text-anchor=\"middle\" font-size=\"10\">" << fmt("%g", t) << "</text>\n";
  }
  o << "<text x=\"" << left + a_w / 2 << "\" y=\"" << top + a_h + 32 << "\" text-anchor=\"middle\">step</text>\n";
  o << "<text x=\"16\" y=\"" << top + a_h / 2 << "\" text-anchor=\"middle\" transform=\"rotate(-90 16 " << top + a_h / 2
    << ")\">loss</text>\n";
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = (k + ref + 1) % n;  // the reference last: on top
    polyline(o, curves[i].pts, X, Y, loss_color(i), loss_dash(i), i == ref ? 2.2 : 1.4);
    if (curves[i].broke) break_mark(o, X(curves[i].break_x), top + 10, loss_color(i));
  }
  for (std::size_t i = 0; i < n; ++i) {
    const double lx = left + a_w + 14, ly = top + 8 + static_cast<double>(i) * 19;
    line_sample(o, lx, ly, i);
    o << "<text x=\"" << lx + 30 << "\" y=\"" << ly + 4 << "\">" << xml_escape(rep.modes[i].name)
      << (curves[i].broke ? " (non-finite)" : "") << "</text>\n";
  }

  // Part 2: one panel per other mode, its loss minus the reference's.
  if (others > 0) {
    o << "<text x=\"" << left << "\" y=\"" << b_top - 34 << "\" font-size=\"13\">Difference from "
      << xml_escape(ref_name) << ": the mode's loss minus " << xml_escape(ref_name) << "'s at the same step ("
      << windows_of(dwindow) << "; above 0: worse)</text>\n";
    o << "<text x=\"" << left << "\" y=\"" << b_top - 18
      << "\" font-size=\"11\" fill=\"#444\">\"end\": the mean loss over "
         "the last tenth of the steps, and its difference from "
      << xml_escape(ref_name) << "'s (" << fmt("%.3f", ref_losses != nullptr ? tail_mean(*ref_losses) : 0.0)
      << ")</text>\n";
  }
  const double end_ref = ref_losses != nullptr ? tail_mean(*ref_losses) : std::nan("");
  std::size_t slot = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i == ref) continue;
    const mode_result& r = rep.modes[i];
    const double cx = left + static_cast<double>(slot % cols) * (cw + gap_x);
    const double cy = b_top + static_cast<double>(slot / cols) * (cell_title + cell_h + gap_y) + cell_title;
    const bool left_col = slot % cols == 0, bottom_row = slot + cols >= others;
    ++slot;
    auto XD = [&](double t) { return cx + cw * t / xsteps; };
    auto YD = [&](double v) { return cy + cell_h * (0.5 - std::max(-dhi, std::min(v, dhi)) / (2 * dhi)); };
    line_sample(o, cx, cy - 22, i);
    o << "<text x=\"" << cx + 30 << "\" y=\"" << cy - 18 << "\" font-weight=\"bold\">" << xml_escape(r.name)
      << "</text>\n";
    const double end = tail_mean(r.losses);
    std::string note;
    if (diffs[i].broke || curves[i].broke) {
      const long long at = r.first_nonfinite_loss_step >= 0 ? static_cast<long long>(r.first_nonfinite_loss_step)
                                                            : static_cast<long long>(curves[i].break_x);
      note = "non-finite loss at step " + std::to_string(at);
    } else if (std::isfinite(end)) {
      note = "end " + fmt("%.3f", end) + (std::isfinite(end_ref) ? fmt(" (%+.3f)", end - end_ref) : std::string());
    }
    o << "<text x=\"" << cx << "\" y=\"" << cy - 4 << "\" font-size=\"11\" fill=\"#444\">" << xml_escape(note)
      << "</text>\n";
    o << "<rect x=\"" << cx << "\" y=\"" << cy << "\" width=\"" << cw << "\" height=\"" << cell_h
      << "\" fill=\"none\" stroke=\"#ccc\"/>\n";
    for (double t = -dhi; t <= dhi * (1 + 1e-9); t += dstep) {
      const bool zero = std::fabs(t) < dstep / 2;
      o << "<line x1=\"" << cx << "\" y1=\"" << YD(t) << "\" x2=\"" << cx + cw << "\" y2=\"" << YD(t) << "\" stroke=\""
        << (zero ? "#999" : "#eee") << "\"/>\n";
      if (left_col) {
        o << "<text x=\"" << cx - 5 << "\" y=\"" << YD(t) + 4 << "\" text-anchor=\"end\" font-size=\"10\">"
          << (zero ? std::string("0") : fmt("%+g", t)) << "</text>\n";
      }
    }
    if (bottom_row) {
      for (double t = 0; t <= xsteps * (1 + 1e-9); t += xstep) {
        o << "<text x=\"" << XD(t) << "\" y=\"" << cy + cell_h + 13 << "\" text-anchor=\"middle\" font-size=\"10\">"
          << fmt("%g", t) << "</text>\n";
      }
    }
    polyline(o, diffs[i].pts, XD, YD, loss_color(i), loss_dash(i), 1.6);
    if (diffs[i].broke) break_mark(o, XD(diffs[i].break_x), cy + 10, loss_color(i));
  }
  if (others > 0) {
    o << "<text x=\"" << left + (w - left - right) / 2 << "\" y=\"" << h - 6
      << "\" text-anchor=\"middle\">step</text>\n";
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
