// SPDX-License-Identifier: MIT
// examples/precision_study/cli.hpp — the command line of the precision study: flags, data
// selection and splits, the run of every mode, the printed report and the output files.
//
// Splits: the first 55000 training images train, the last 5000 validate (the seed's setup: a
// validation set cut from the training set), the 10000 test images test. --limit N keeps the first
// N of each of the three (for quick runs and the reduced test).
#ifndef MIXPREC_PRECISION_STUDY_CLI_HPP
#define MIXPREC_PRECISION_STUDY_CLI_HPP

#include <mixprec/exec.hpp>
#include <mixprec/loss_scale.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "data.hpp"
#include "report.hpp"
#include "train.hpp"

namespace precision_study {

constexpr const char* default_data_dir = "/usr/share/datasets/fashion-mnist";
constexpr const char* default_out_dir = "precision_study_out";
constexpr std::size_t validation_images = 5000;

struct options {
  std::vector<const mode_spec*> modes;
  std::size_t epochs = 3;
  unsigned threads = 0;
  std::uint64_t seed = 1;
  std::string data = default_data_dir;
  bool data_given = false;
  std::string out = default_out_dir;
  std::size_t limit = 0;  ///< 0: no limit
  double init_scale = 65536;
  std::size_t log_every = 100;
  /// 0: the default, 1 for one process (the whole batch at once, the fastest) and 4 for
  /// precision_study_mpi (so that up to 4 ranks share the work); see study_main
  std::size_t micro_batches = 0;
  reduce_precision reduce = reduce_precision::float32;
  bool help = false;
};

inline std::string usage() {
  std::string modes;
  for (const mode_spec& m : all_modes()) {
    std::string name = m.name;
    name.resize(21, ' ');
    modes += "\n                        " + name + m.description;
  }
  return std::string(
             "usage: precision_study [options]\n"
             "Trains an MLP 784-512-256-10 on Fashion-MNIST in twelve precisions with mixprec's kernels and reports\n"
             "test accuracy, time, memory, loss scaling and NaNs per mode (table, CSV, JSON, SVG).\n"
             "\n"
             "  --modes LIST        comma-separated modes, or all (default: all twelve); a mode listed again runs once,\n"
             "                      where first listed:") +
         modes +
         "\n"
         "  --epochs N          epochs (default 3)\n"
         "  --threads N         threads for the kernels (default: $MIXPREC_NUM_THREADS or all cores)\n"
         "  --seed N            seed of the initialization, the shuffles and stochastic rounding (default 1)\n"
         "  --data DIR          Fashion-MNIST IDX files, gzip or raw (default " +
         default_data_dir +
         ");\n"
         "                      'synthetic' for the built-in task (also used when the default directory is empty)\n"
         "  --out DIR           output directory (default ./" +
         default_out_dir +
         ")\n"
         "  --limit N           use only the first N training, validation and test images\n"
         "  --init-scale S      float16-mixed: the loss scaler's initial scale (default 65536)\n"
         "  --log-every N       a progress line every N batches (default 100; 0: epoch lines only)\n"
         "  --micro-batches M   every batch's gradient is the sum of M micro-batch gradients, added in order\n"
         "                      (default 1; precision_study_mpi: 4): the same bits with any number of MPI\n"
         "                      ranks up to M (12: an even split over 1, 2, 3 or 4 ranks)\n"
         "  --reduce-dtype T    float32 (default), bfloat16 or float16: the precision of that sum (as an\n"
         "                      all-reduce in T); other than float32, its error against float32 is reported\n"
         "  -h, --help          this text\n";
}

namespace detail {

inline bool parse_unsigned(const std::string& s, std::uint64_t& v) {
  if (s.empty() || s[0] < '0' || s[0] > '9') return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long r = std::strtoull(s.c_str(), &end, 10);
  if (errno != 0 || end == nullptr || *end != '\0') return false;
  v = static_cast<std::uint64_t>(r);
  return true;
}

}  // namespace detail

/// Parses and checks every flag before anything runs; throws study_error naming the bad flag.
inline options parse_options(int argc, const char* const* argv) {
  options o;
  bool modes_given = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_value = false;
    const std::size_t eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    if (arg == "-h" || arg == "--help") {
      if (has_value) throw study_error(arg + " takes no value");
      o.help = true;
      continue;
    }
    const bool known = arg == "--modes" || arg == "--epochs" || arg == "--threads" || arg == "--seed" ||
                       arg == "--data" || arg == "--out" || arg == "--limit" || arg == "--init-scale" ||
                       arg == "--log-every" || arg == "--micro-batches" || arg == "--reduce-dtype";
    if (!known) throw study_error("unknown option '" + arg + "'");
    if (!has_value) {
      if (i + 1 >= argc) throw study_error(arg + " needs a value");
      value = argv[++i];
    }
    std::uint64_t n = 0;
    auto number = [&](std::uint64_t lo, std::uint64_t hi) {
      if (!detail::parse_unsigned(value, n) || n < lo || n > hi) {
        throw study_error(arg + ": '" + value + "' is not an integer in [" + std::to_string(lo) + ", " +
                          std::to_string(hi) + "]");
      }
      return n;
    };
    if (arg == "--modes") {
      modes_given = true;
      o.modes.clear();
      std::size_t at = 0;
      for (;;) {
        const std::size_t comma = value.find(',', at);
        const std::string name = value.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        // A mode listed again (by name or through "all") runs once, where it was first listed.
        auto add = [&](const mode_spec* m) {
          if (std::find(o.modes.begin(), o.modes.end(), m) == o.modes.end()) o.modes.push_back(m);
        };
        if (name == "all") {
          for (const mode_spec& m : all_modes()) add(&m);
        } else {
          const mode_spec* m = find_mode(name);
          if (m == nullptr) {
            std::string names;
            for (const mode_spec& s : all_modes()) names += std::string(names.empty() ? "" : ", ") + s.name;
            throw study_error("--modes: unknown mode '" + name + "' (modes: " + names + ", or all)");
          }
          add(m);
        }
        if (comma == std::string::npos) break;
        at = comma + 1;
      }
    } else if (arg == "--epochs") {
      o.epochs = static_cast<std::size_t>(number(1, 1000));
    } else if (arg == "--threads") {
      o.threads = static_cast<unsigned>(number(1, 4096));
    } else if (arg == "--seed") {
      if (!detail::parse_unsigned(value, n)) throw study_error("--seed: '" + value + "' is not an unsigned integer");
      o.seed = n;
    } else if (arg == "--data") {
      if (value.empty()) throw study_error("--data: empty directory name");
      o.data = value;
      o.data_given = true;
    } else if (arg == "--out") {
      if (value.empty()) throw study_error("--out: empty directory name");
      o.out = value;
    } else if (arg == "--limit") {
      o.limit = static_cast<std::size_t>(number(1, ~std::uint64_t{0} >> 1));
    } else if (arg == "--init-scale") {
      char* end = nullptr;
      const double s = std::strtod(value.c_str(), &end);
      if (value.empty() || end == nullptr || *end != '\0' || !(s > 0) || !std::isfinite(s) || s > 3.0e38) {
        throw study_error("--init-scale: '" + value + "' is not a positive finite number");
      }
      // The scaler's own rule, checked here rather than when float16-mixed starts (after the
      // modes before it have trained): e.g. 1e-50 is 0 as a float32 scale.
      mixprec::loss_scale_config c = mixprec::loss_scale_config::pytorch();
      c.init_scale = s;
      try {
        c.validate();
      } catch (const std::invalid_argument& e) {
        throw study_error("--init-scale: '" + value + "' is refused by the loss scaler: " + e.what());
      }
      o.init_scale = s;
    } else if (arg == "--log-every") {
      o.log_every = static_cast<std::size_t>(number(0, ~std::uint64_t{0} >> 1));
    } else if (arg == "--micro-batches") {
      o.micro_batches = static_cast<std::size_t>(number(1, 128));
    } else if (arg == "--reduce-dtype") {
      if (value == "float32") {
        o.reduce = reduce_precision::float32;
      } else if (value == "bfloat16") {
        o.reduce = reduce_precision::bfloat16;
      } else if (value == "float16") {
        o.reduce = reduce_precision::float16;
      } else {
        throw study_error("--reduce-dtype: '" + value + "' is not float32, bfloat16 or float16");
      }
    }
  }
  if (!modes_given) {
    for (const mode_spec& m : all_modes()) o.modes.push_back(&m);
  }
  return o;
}

/// Loads the data the options ask for (see --data); notes go to out. The default directory falls
/// back to the synthetic task when it holds no data, or only gzip files and this build cannot
/// read them; a directory given with --data must hold readable data.
inline dataset load_data(const options& o, std::ostream& out) {
  if (o.data == "synthetic") {
    out << "Data: the built-in synthetic task (--data synthetic).\n";
    return make_synthetic();
  }
  dataset d;
  try {
    if (load_fashion_mnist(o.data, d)) return d;
  } catch (const gzip_unavailable& e) {
    if (o.data_given) throw;
    out << "Cannot read the Fashion-MNIST copy in " << o.data << ": " << e.what()
        << "\nRunning on the built-in synthetic task instead: the numbers are NOT Fashion-MNIST's.\n";
    return make_synthetic();
  }
  if (o.data_given) {
    throw study_error("--data " + o.data + ": no Fashion-MNIST files there (" + idx_file_names()[0] +
                      "[.gz] and the three others); use --data synthetic for the built-in task");
  }
  out << "No Fashion-MNIST found in " << o.data
      << " (Debian/Ubuntu: apt-get install dataset-fashion-mnist; or --data DIR).\n"
         "Running on the built-in synthetic task instead: the numbers are NOT Fashion-MNIST's.\n";
  return make_synthetic();
}

}  // namespace precision_study

#endif  // MIXPREC_PRECISION_STUDY_CLI_HPP
