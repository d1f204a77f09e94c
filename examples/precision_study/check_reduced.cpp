// SPDX-License-Identifier: MIT
// examples/precision_study/check_reduced.cpp — the test of the precision study (CTest / Meson:
// example_precision_study_reduced). It runs the study's real entry point (study_main) on reduced
// settings, reads back the JSON it wrote, and checks the numbers are sane and true:
//
//   1. the reduced study: --limit 2000 --epochs 1 --modes float32,float16-regular,float16-mixed
//      - float32 learns (test accuracy > 60%, 10% is chance), no non-finite value, 16 steps;
//      - float16-regular breaks down at once: Adam's eps (1e-8) rounds to 0 in float16 and the
//        second moment 0.001 * g^2 underflows to 0 for |g| < ~5.5e-3, so the first update divides
//        by 0: the parameters are non-finite after step 1, the loss from step 2 on, and the
//        accuracy collapses to chance (NaN logits: argmax 0). The reason is checked separately on
//        mixprec::half itself;
//      - float16-mixed learns, and at PyTorch's initial scale 65536 this model's gradients never
//        overflow float16: 0 skipped steps, the scale still 65536 (growth needs 2000 clean steps);
//      - the exact memory of each mode: parameter count x element sizes, computed here from the
//        layer sizes;
//   2. skipped-step counting: float16-mixed from an initial scale of 2^24, where the scaled
//      output gradient (2^24 / 128 * |p - y|) overflows float16: at least one step is skipped,
//      every skip halves the scale (final = 2^24 / 2^skipped), optimizer steps = steps - skipped;
//   3. all ten modes run (a few steps each), and every number is the same with 1 and 2 threads;
//   4. bad flags: usage on stderr and exit status 2; --help: exit 0;
//   4b. flags are checked before anything trains (--init-scale 1e-50: status 2, nothing run);
//      --modes lists each mode once, where first listed (all,all: ten modes);
//   5. the IDX reader: truncated, corrupt and wrong files give an error naming the file; gzip
//      files are read (with zlib) or refused with a message saying gzip is unavailable; the
//      header is read first and then at most its payload + 1 byte (64 MiB after one image, a
//      2^32 - 1 count, a 256 MiB gzip bomb: counted bytes and the peak RSS);
//   6. output files: renamed from NAME.tmp; a full disk (/dev/full) leaves no half-written file;
//   7. micro-batches: the float64 losses with 1, 4 and 12 micro-batches agree to 1e-12.
//
//   precision_study_check [WORK_DIR [STUDY_ARGS...]]   (default ./precision_study_check_out; STUDY_ARGS,
//                                                     e.g. --data synthetic, go to every study run)
#include <mixprec/text/json.hpp>
#include <mixprec/types.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#if defined(__unix__)
#include <sys/resource.h>  // getrusage
#endif
#if defined(MIXPREC_STUDY_HAVE_ZLIB)
#include <zlib.h>
#endif

#include "cli.hpp"
#include "study.hpp"

namespace {

namespace json = mixprec::json;
namespace ps = precision_study;

int failures = 0;
std::string work_dir;  // argv[1]
std::vector<std::string> extra_args;  // from the command line, put before every study run's own

void check(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::cerr << "FAILED: " << what << "\n";
  }
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

void write_bytes(const std::string& path, const std::vector<std::uint8_t>& b) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

/// Runs study_main with args; returns its status, the output and the errors.
int run(const std::vector<std::string>& args, std::string* out_text = nullptr, std::string* err_text = nullptr) {
  std::vector<const char*> argv{"precision_study"};
  for (const std::string& a : extra_args) argv.push_back(a.c_str());  // first: args may override them
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int rc = ps::study_main(static_cast<int>(argv.size()), argv.data(), out, err);
  if (out_text != nullptr) *out_text = out.str();
  if (err_text != nullptr) *err_text = err.str();
  if (rc != 0 && err_text == nullptr) std::cerr << err.str();
  return rc;
}

const json::value* member(const json::value& v, const std::string& key) {
  for (std::size_t i = 0; i < v.keys.size(); ++i) {
    if (v.keys[i] == key) return &v.items[i];
  }
  return nullptr;
}

double num(const json::value& v, const std::string& key) {
  const json::value* m = member(v, key);
  double d = std::nan("");
  if (m == nullptr || m->type != json::kind::number || !json::to_double(m->text, d)) {
    check(false, "JSON: no number \"" + key + "\"");
    return std::nan("");
  }
  return d;
}

bool flag(const json::value& v, const std::string& key) {
  const json::value* m = member(v, key);
  check(m != nullptr && m->type == json::kind::boolean, "JSON: no boolean \"" + key + "\"");
  return m != nullptr && m->boolean;
}

/// The study's results.json, parsed; the modes by name.
struct study_json {
  json::value doc;
  std::vector<const json::value*> modes;
  const json::value* mode(const std::string& name) const {
    for (const json::value* m : modes) {
      const json::value* n = member(*m, "name");
      if (n != nullptr && n->text == name) return m;
    }
    check(false, "JSON: no mode " + name);
    return nullptr;
  }
};

bool load_json(const std::string& path, study_json& s) {
  try {
    s.doc = json::parse(read_text(path));
  } catch (const std::exception& e) {
    check(false, path + ": " + e.what());
    return false;
  }
  const json::value* modes = member(s.doc, "modes");
  if (modes == nullptr || modes->type != json::kind::array) {
    check(false, path + ": no \"modes\" array");
    return false;
  }
  for (const json::value& m : modes->items) s.modes.push_back(&m);
  return true;
}

std::vector<std::string> loss_texts(const json::value& mode) {
  std::vector<std::string> out;
  const json::value* l = member(mode, "losses");
  if (l == nullptr) return out;
  for (const json::value& v : l->items) out.push_back(v.type == json::kind::null ? "null" : v.text);
  return out;
}

// Parameter count of 784-512-256-10, from the layer sizes.
constexpr std::size_t n_params = 784 * 512 + 512 + 512 * 256 + 256 + 256 * 10 + 10;

void reduced_study(const std::string& dir) {
  const std::string out = dir + "/reduced";
  check(run({"--limit", "2000", "--epochs", "1", "--modes", "float32,float16-regular,float16-mixed", "--out", out,
             "--threads", "2", "--log-every", "0"}) == 0,
        "the reduced study runs");
  study_json s;
  if (!load_json(out + "/results.json", s)) return;
  check(s.modes.size() == 3, "three modes");
  check(num(s.doc, "train_images") == 2000 && num(s.doc, "test_images") == 2000, "--limit caps the splits");

  const json::value* f32 = s.mode("float32");
  const json::value* r16 = s.mode("float16-regular");
  const json::value* m16 = s.mode("float16-mixed");
  if (f32 == nullptr || r16 == nullptr || m16 == nullptr) return;

  // float32 learns.
  check(num(*f32, "test_acc") > 0.60, "float32 learns: test accuracy > 60% (got " + std::to_string(num(*f32, "test_acc")) + ")");
  check(num(*f32, "steps") == 16, "float32: 16 steps of 128 (the last one 80) for 2000 images");
  check(!flag(*f32, "nan_seen") && num(*f32, "first_nonfinite_loss_step") == -1 &&
            num(*f32, "first_nonfinite_param_step") == -1,
        "float32: no non-finite value");
  const std::vector<std::string> l32 = loss_texts(*f32);
  check(l32.size() == 16, "float32: one loss per step");
  double first = 0, last = 0;
  json::to_double(l32.front(), first);
  json::to_double(l32.back(), last);
  check(std::fabs(first - std::log(10.0)) < 0.1, "float32: the first loss is about ln 10 (uniform guess)");
  check(last < first - 0.5, "float32: the loss falls");

  // float16-regular: the first update divides by Adam's denominator rounded to 0.
  check(static_cast<float>(mixprec::half(1e-8f)) == 0.0f, "eps = 1e-8 rounds to 0 in float16");
  check(static_cast<float>(mixprec::half(0.001f * 1e-3f * 1e-3f)) == 0.0f,
        "the second moment 0.001 g^2 underflows in float16 for g = 1e-3");
  check(flag(*r16, "nan_seen"), "float16-regular: non-finite values detected");
  check(num(*r16, "first_nonfinite_param_step") == 1, "float16-regular: parameters non-finite after step 1");
  check(num(*r16, "first_nonfinite_loss_step") == 2, "float16-regular: loss non-finite from step 2");
  const std::vector<std::string> l16 = loss_texts(*r16);
  check(l16.size() == 16 && l16[0] != "null" && l16[1] == "null" && l16.back() == "null",
        "float16-regular: finite loss at step 1, null (non-finite) after");
  check(num(*r16, "test_acc") < 0.2, "float16-regular: accuracy collapses to chance");

  // float16-mixed: learns; no overflow at 65536.
  check(flag(*m16, "loss_scaling"), "float16-mixed uses loss scaling");
  check(num(*m16, "init_scale") == 65536 && num(*m16, "final_scale") == 65536,
        "float16-mixed: the scale stays at 65536");
  check(num(*m16, "skipped_steps") == 0 && num(*m16, "optimizer_steps") == 16,
        "float16-mixed: no overflow at 65536 for this model, so no skipped step");
  check(!flag(*m16, "nan_seen"), "float16-mixed: no non-finite loss or parameter");
  check(num(*m16, "test_acc") > 0.60, "float16-mixed learns");
  check(std::fabs(num(*m16, "test_acc") - num(*f32, "test_acc")) < 0.05, "float16-mixed is close to float32");

  // Exact memory.
  auto mem = [](const json::value& m, const char* k) {
    const json::value* mm = member(m, "memory");
    return mm != nullptr ? num(*mm, k) : -1.0;
  };
  const double n = static_cast<double>(n_params);
  // one micro-batch (the default): no buffer for a micro-batch sum
  check(mem(*f32, "params") == 4 * n && mem(*f32, "grads") == 4 * n && mem(*f32, "optimizer") == 8 * n,
        "float32 memory: 4 bytes per parameter, gradient and moment");
  check(mem(*r16, "params") == 2 * n && mem(*r16, "grads") == 2 * n && mem(*r16, "optimizer") == 4 * n,
        "float16-regular memory: 2 bytes each");
  check(mem(*m16, "params") == 6 * n && mem(*m16, "grads") == 6 * n && mem(*m16, "optimizer") == 8 * n,
        "float16-mixed memory: float master + float16 copy");
  const double act32 = 128.0 * (784 + 512 + 256 + 10 + 512 + 256 + 10) * 4 + 128 * 4;
  check(mem(*f32, "activations") == act32, "float32 activations: one batch of inputs, outputs, gradients, targets");

  // The other files.
  for (const char* f : {"summary.md", "results.csv", "epochs.csv", "losses.csv", "loss.svg", "accuracy.svg",
                        "time.svg", "memory.svg"}) {
    check(std::filesystem::exists(out + "/" + f), std::string("wrote ") + f);
  }
  bool temps = false;
  for (const auto& entry : std::filesystem::directory_iterator(out)) temps = temps || entry.path().extension() == ".tmp";
  check(!temps, "no temporary file left in the output directory");
  const std::string csv = read_text(out + "/results.csv");
  check(csv.rfind("mode,test_acc,", 0) == 0 && csv.find("\nfloat16-mixed,") != std::string::npos,
        "results.csv has a header and a row per mode");
  const std::string svg = read_text(out + "/loss.svg");
  check(svg.find("<svg") != std::string::npos && svg.find("float16-regular (non-finite)") != std::string::npos,
        "loss.svg marks the non-finite curve");
}

// 7. micro-batches: in float64 the batch gradient summed over 1, 4 or 12 micro-batches (the last
//    batch, 44 rows, cut unevenly) is the same gradient up to float64 rounding, so the losses agree
//    to ~1e-12 (a micro-batch dropped, counted twice or divided by its own row count instead of the
//    batch's would move them by ~1e-3); in float32 the sums round differently, so the bits differ.
//    Bad --micro-batches and --reduce-dtype values are refused.
void micro_batches(const std::string& dir) {
  std::vector<std::vector<double>> losses;
  std::vector<std::vector<std::string>> texts32;
  for (const char* m : {"1", "4", "12"}) {
    const std::string out = dir + "/micro" + m;
    check(run({"--limit", "300", "--epochs", "2", "--modes", "float64,float32", "--micro-batches", m, "--out", out,
               "--log-every", "0"}) == 0,
          std::string("--micro-batches ") + m + " runs");
    study_json s;
    if (!load_json(out + "/results.json", s) || s.mode("float64") == nullptr || s.mode("float32") == nullptr) return;
    check(num(s.doc, "micro_batches") == std::stod(m), std::string("results.json: micro_batches ") + m);
    std::vector<double> l;
    for (const std::string& t : loss_texts(*s.mode("float64"))) {
      double v = std::nan("");
      json::to_double(t, v);
      l.push_back(v);
    }
    losses.push_back(l);
    texts32.push_back(loss_texts(*s.mode("float32")));
  }
  if (losses.size() != 3) return;
  double worst = 0;
  for (std::size_t k = 1; k < 3; ++k) {
    check(losses[k].size() == 6 && losses[0].size() == 6, "float64: 6 steps");
    for (std::size_t i = 0; i < losses[k].size() && i < losses[0].size(); ++i) {
      worst = std::fmax(worst, std::fabs(losses[k][i] - losses[0][i]) / losses[0][i]);
    }
  }
  check(worst < 1e-12, "float64: 1, 4 and 12 micro-batches give the same losses to 1e-12 (worst " +
                           std::to_string(worst) + ")");
  check(texts32[0] != texts32[1] && texts32[1] != texts32[2], "float32: the micro-batch sums round differently");
  std::string out, err;
  check(run({"--micro-batches", "0"}, &out, &err) == 2 && err.find("--micro-batches") != std::string::npos,
        "--micro-batches 0 is refused");
  check(run({"--reduce-dtype", "float8"}, &out, &err) == 2 && err.find("--reduce-dtype") != std::string::npos,
        "--reduce-dtype float8 is refused");
  std::cout << "micro-batches: float64 losses with 1, 4, 12 micro-batches within " << worst << " (relative)\n";
}

void overflow_study(const std::string& dir) {
  const std::string out = dir + "/overflow";
  check(run({"--limit", "1024", "--epochs", "1", "--modes", "float16-mixed", "--init-scale", "16777216", "--out", out,
             "--log-every", "0"}) == 0,
        "float16-mixed from 2^24 runs");
  study_json s;
  if (!load_json(out + "/results.json", s)) return;
  const json::value* m = s.mode("float16-mixed");
  if (m == nullptr) return;
  const double skipped = num(*m, "skipped_steps");
  check(num(*m, "init_scale") == 16777216, "init scale 2^24");
  check(skipped >= 1, "a scale of 2^24 overflows float16 gradients: steps are skipped");
  check(num(*m, "final_scale") * std::pow(2.0, skipped) == 16777216, "every skipped step halves the scale");
  check(num(*m, "optimizer_steps") == num(*m, "steps") - skipped, "skipped steps do not reach the optimizer");
  check(!flag(*m, "nan_seen"), "skipped steps keep the parameters finite");
  std::cout << "overflow run: " << skipped << " skipped step(s), final scale " << num(*m, "final_scale") << "\n";
}

void all_modes_and_threads(const std::string& dir) {
  std::string text;
  check(run({"--limit", "384", "--epochs", "1", "--modes", "all", "--threads", "1", "--out", dir + "/t1",
             "--log-every", "0"},
            &text) == 0,
        "all modes, 1 thread");
  check(run({"--limit", "384", "--epochs", "1", "--modes", "all", "--threads", "2", "--out", dir + "/t2",
             "--log-every", "0"}) == 0,
        "all modes, 2 threads");
  study_json a, b;
  if (!load_json(dir + "/t1/results.json", a) || !load_json(dir + "/t2/results.json", b)) return;
  check(a.modes.size() == ps::all_modes().size() && b.modes.size() == ps::all_modes().size() &&
            ps::all_modes().size() == 12,
        "twelve modes");
  for (const ps::mode_spec& spec : ps::all_modes()) {
    const json::value* ma = a.mode(spec.name);
    const json::value* mb = b.mode(spec.name);
    if (ma == nullptr || mb == nullptr) continue;
    check(loss_texts(*ma) == loss_texts(*mb) && num(*ma, "test_acc") == num(*mb, "test_acc"),
          std::string(spec.name) + ": the same losses and accuracy with 1 and 2 threads");
    check(loss_texts(*ma).size() == 3, std::string(spec.name) + ": 3 steps");
  }
  check(text.find("Test accuracy") != std::string::npos && text.find("| fp8-mixed |") != std::string::npos,
        "the printed report has per-mode lines and the table");
}

void flags() {
  std::string out, err;
  check(run({"--bogus"}, &out, &err) == 2 && err.find("unknown option '--bogus'") != std::string::npos &&
            err.find("usage:") != std::string::npos,
        "an unknown flag: usage and status 2");
  check(run({"--epochs", "0"}, &out, &err) == 2 && err.find("--epochs") != std::string::npos, "--epochs 0 is refused");
  check(run({"--modes", "float32,float17"}, &out, &err) == 2 && err.find("float17") != std::string::npos,
        "an unknown mode is refused, named");
  check(run({"--threads"}, &out, &err) == 2 && err.find("needs a value") != std::string::npos,
        "a flag without its value is refused");
  check(run({"--init-scale", "-1"}, &out, &err) == 2, "a negative scale is refused");
  // 1e-50 is positive and finite as a double but 0 as the scaler's float32 scale: refused while
  // parsing (status 2, nothing trained, no output directory), not when float16-mixed starts.
  const std::string never = work_dir + "/never-created";
  check(run({"--init-scale", "1e-50", "--modes", "float32,float16-mixed", "--limit", "300", "--epochs", "1", "--out",
             never, "--log-every", "0"},
            &out, &err) == 2 &&
            err.find("--init-scale: '1e-50'") != std::string::npos && out.find("## ") == std::string::npos &&
            !std::filesystem::exists(never),
        "--init-scale 1e-50 is refused up front, before any mode trains");
  check(run({"--init-scale", "1e-45", "--help"}, &out, &err) == 0, "--init-scale 1e-45 (a float32 subnormal) is taken");
  check(run({"--help"}, &out, &err) == 0 && out.find("--modes LIST") != std::string::npos, "--help prints the usage");
}

/// --modes: a mode listed again runs once, where first listed.
void modes_dedup() {
  auto names = [](std::vector<const char*> args) {
    args.insert(args.begin(), "precision_study");
    const ps::options o = ps::parse_options(static_cast<int>(args.size()), args.data());
    std::vector<std::string> n;
    for (const ps::mode_spec* m : o.modes) n.push_back(m->name);
    return n;
  };
  std::vector<std::string> all;
  for (const ps::mode_spec& m : ps::all_modes()) all.push_back(m.name);
  check(names({"--modes", "all,all"}) == all, "--modes all,all: each mode once, in the usual order");
  check(names({"--modes", "all"}) == all && names({}) == all, "--modes all and the default: the ten modes");
  std::vector<std::string> mixed_first = {"float16-mixed"};
  for (const std::string& n : all) {
    if (n != "float16-mixed") mixed_first.push_back(n);
  }
  check(names({"--modes", "float16-mixed,all,float32,float16-mixed"}) == mixed_first,
        "--modes float16-mixed,all,...: float16-mixed first, every other mode once after it");
  check(names({"--modes", "float32,float32"}) == std::vector<std::string>{"float32"}, "--modes float32,float32: once");
}

std::vector<std::uint8_t> idx_images(std::uint32_t n, std::uint32_t magic = 0x803, std::size_t keep = ~std::size_t{0}) {
  std::vector<std::uint8_t> b = {static_cast<std::uint8_t>(magic >> 24), static_cast<std::uint8_t>(magic >> 16),
                                 static_cast<std::uint8_t>(magic >> 8), static_cast<std::uint8_t>(magic),
                                 static_cast<std::uint8_t>(n >> 24),   static_cast<std::uint8_t>(n >> 16),
                                 static_cast<std::uint8_t>(n >> 8),    static_cast<std::uint8_t>(n),
                                 0, 0, 0, 28, 0, 0, 0, 28};
  for (std::size_t i = 0; i < static_cast<std::size_t>(n) * 784; ++i) b.push_back(static_cast<std::uint8_t>(i * 7));
  if (keep < b.size()) b.resize(keep);
  return b;
}

std::vector<std::uint8_t> idx_labels(std::uint32_t n, std::uint8_t bad_at = 255) {
  std::vector<std::uint8_t> b = {0, 0, 8, 1, static_cast<std::uint8_t>(n >> 24), static_cast<std::uint8_t>(n >> 16),
                                 static_cast<std::uint8_t>(n >> 8), static_cast<std::uint8_t>(n)};
  for (std::uint32_t i = 0; i < n; ++i) b.push_back(i == bad_at ? 12 : static_cast<std::uint8_t>(i % 10));
  return b;
}

/// Whether f throws study_error whose message contains every one of parts.
template <class F>
bool throws_naming(F f, const std::vector<std::string>& parts) {
  try {
    f();
  } catch (const ps::study_error& e) {
    const std::string msg = e.what();
    for (const std::string& p : parts) {
      if (msg.find(p) == std::string::npos) {
        std::cerr << "  message was: " << msg << "\n";
        return false;
      }
    }
    return true;
  }
  return false;
}

#if defined(__unix__) && defined(MIXPREC_STUDY_HAVE_ZLIB)
/// The process's peak resident set so far, in bytes (getrusage: a high-water mark).
long long peak_rss() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<long long>(u.ru_maxrss) * 1024;
}
#endif

/// The reader reads the header, then at most the payload it announces and one byte more:
/// counted on a byte_source (what it delivered), and as the peak RSS for a gzip bomb.
void bounded_reads(const std::string& d) {
  constexpr std::size_t one_image = 16 + 784;
  std::size_t count = 0;
  // A raw file: a header announcing one image, then 64 MiB of zeros.
  {
    std::vector<std::uint8_t> b = idx_images(1);
    b.resize(b.size() + (std::size_t{64} << 20), 0);
    write_bytes(d + "/raw-trailing", b);
    ps::detail::byte_source src(d + "/raw-trailing");
    check(throws_naming([&] { ps::detail::read_idx_images(src, count); }, {d + "/raw-trailing", "corrupt"}),
          "64 MiB after one image: an error naming the file");
    check(src.delivered() <= one_image + 1, "64 MiB after one image: at most header + payload + 1 bytes read (read " +
                                                std::to_string(src.delivered()) + ")");
    std::filesystem::remove(d + "/raw-trailing");
  }
  // A header announcing 2^32 - 1 images: refused before any payload is read.
  {
    std::vector<std::uint8_t> huge = idx_images(1);  // then the count patched to 2^32 - 1
    huge[4] = huge[5] = huge[6] = huge[7] = 0xff;
    write_bytes(d + "/huge-count", huge);
    ps::detail::byte_source src(d + "/huge-count");
    check(throws_naming([&] { ps::detail::read_idx_images(src, count); }, {d + "/huge-count", "4294967295", "more than"}),
          "a header announcing 2^32 - 1 images: refused, naming the count");
    check(src.delivered() == 16, "a header announcing 2^32 - 1 images: only the header read");
    std::vector<std::uint8_t> labels = idx_labels(0);
    labels[4] = labels[5] = labels[6] = labels[7] = 0xff;
    write_bytes(d + "/huge-labels", labels);
    check(throws_naming([&] { ps::read_idx_labels(d + "/huge-labels"); }, {d + "/huge-labels", "more than"}),
          "a header announcing 2^32 - 1 labels: refused");
  }
#if defined(MIXPREC_STUDY_HAVE_ZLIB)
  // A gzip bomb: a member holding a one-image file, then 256 members of 1 MiB of zeros each
  // (about 256 MiB decompressed from about 256 KiB). Reading it costs header + payload + 1 bytes.
  {
    auto gzip = [](const std::vector<std::uint8_t>& raw) {
      z_stream z{};
      std::vector<std::uint8_t> out(compressBound(static_cast<uLong>(raw.size())) + 64);
      if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) return std::vector<std::uint8_t>{};
      z.next_in = const_cast<Bytef*>(raw.data());
      z.avail_in = static_cast<uInt>(raw.size());
      z.next_out = out.data();
      z.avail_out = static_cast<uInt>(out.size());
      const int rc = deflate(&z, Z_FINISH);
      out.resize(z.total_out);
      deflateEnd(&z);
      return rc == Z_STREAM_END ? out : std::vector<std::uint8_t>{};
    };
    std::vector<std::uint8_t> bomb = gzip(idx_images(1));
    const std::vector<std::uint8_t> zeros = gzip(std::vector<std::uint8_t>(std::size_t{1} << 20, 0));
    check(!bomb.empty() && !zeros.empty(), "zlib compresses the test's gzip bomb");
    for (int i = 0; i < 256; ++i) bomb.insert(bomb.end(), zeros.begin(), zeros.end());
    write_bytes(d + "/bomb.gz", bomb);
#if defined(__unix__)
    const long long rss_before = peak_rss();
#endif
    {
      ps::detail::byte_source src(d + "/bomb.gz");
      check(throws_naming([&] { ps::detail::read_idx_images(src, count); }, {d + "/bomb.gz", "corrupt"}),
            "a gzip bomb after one image: an error naming the file");
      check(src.delivered() <= one_image + 1, "a gzip bomb: at most header + payload + 1 bytes decompressed (got " +
                                                  std::to_string(src.delivered()) + ")");
    }
    check(throws_naming([&] { ps::read_idx_images(d + "/bomb.gz", count); }, {d + "/bomb.gz", "corrupt"}),
          "a gzip bomb through the public reader: the same error");
#if defined(__unix__)
    const long long grown = peak_rss() - rss_before;
    check(grown < (32ll << 20), "a gzip bomb (256 MiB inflated): the peak RSS grows by less than 32 MiB (grew " +
                                    std::to_string(grown >> 20) + " MiB)");
#endif
    std::filesystem::remove(d + "/bomb.gz");
  }
#endif
}

void idx_reader(const std::string& dir) {
  const std::string d = dir + "/idx";
  std::filesystem::create_directories(d);
  std::size_t count = 0;
  // A good pair.
  write_bytes(d + "/good-images", idx_images(3));
  write_bytes(d + "/good-labels", idx_labels(3));
  const std::vector<std::uint8_t> px = ps::read_idx_images(d + "/good-images", count);
  check(count == 3 && px.size() == 3 * 784 && px[784] == static_cast<std::uint8_t>(784 * 7),
        "a good IDX image file reads back");
  check(ps::read_idx_labels(d + "/good-labels") == std::vector<std::int32_t>({0, 1, 2}), "a good label file reads back");
  // Bad ones.
  write_bytes(d + "/short-images", idx_images(3, 0x803, 16 + 784 * 2 + 100));
  check(throws_naming([&] { ps::read_idx_images(d + "/short-images", count); }, {d + "/short-images", "truncated"}),
        "a truncated image file: an error naming it");
  write_bytes(d + "/header-only", idx_images(0, 0x803, 10));
  check(throws_naming([&] { ps::read_idx_images(d + "/header-only", count); }, {d + "/header-only", "truncated"}),
        "a file shorter than its header: an error naming it");
  write_bytes(d + "/wrong-magic", idx_images(2, 0x801));
  check(throws_naming([&] { ps::read_idx_images(d + "/wrong-magic", count); }, {d + "/wrong-magic", "magic"}),
        "a label file read as images: an error naming it");
  std::vector<std::uint8_t> extra = idx_images(2);
  extra.push_back(0);
  write_bytes(d + "/extra", extra);
  check(throws_naming([&] { ps::read_idx_images(d + "/extra", count); }, {d + "/extra", "corrupt"}),
        "bytes after the data: an error naming the file");
  bounded_reads(d);
  write_bytes(d + "/bad-label", idx_labels(20, 7));
  check(throws_naming([&] { ps::read_idx_labels(d + "/bad-label"); }, {d + "/bad-label", "label 12"}),
        "a label outside 0..9: an error naming the file");
  check(throws_naming([&] { ps::read_idx_labels(d + "/missing"); }, {d + "/missing", "cannot open"}),
        "a missing file: an error naming it");

  // A directory with only some of the four files.
  const std::string partial = d + "/partial";
  std::filesystem::create_directories(partial);
  write_bytes(partial + "/train-images-idx3-ubyte", idx_images(1));
  ps::dataset ds;
  check(throws_naming([&] { ps::load_fashion_mnist(partial, ds); }, {partial, "train-labels-idx1-ubyte"}),
        "a partial data directory: an error naming the missing file");
  const std::string empty = d + "/empty";
  std::filesystem::create_directories(empty);
  check(!ps::load_fashion_mnist(empty, ds), "an empty directory: no data (the study falls back)");
  std::string out, err;
  check(run({"--data", empty, "--out", d + "/o"}, &out, &err) == 1 && err.find(empty) != std::string::npos,
        "--data DIR without data: an error naming DIR");

  // gzip: a real gzip member (stored block) of a good label file, and a truncated copy.
  const std::vector<std::uint8_t> raw = idx_labels(3);
  std::vector<std::uint8_t> gz = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff};
  gz.push_back(1);  // final stored block
  gz.push_back(static_cast<std::uint8_t>(raw.size()));
  gz.push_back(0);
  gz.push_back(static_cast<std::uint8_t>(~raw.size()));
  gz.push_back(0xff);
  gz.insert(gz.end(), raw.begin(), raw.end());
  std::uint32_t crc = 0xffffffffu;  // CRC-32 (IEEE), bit by bit
  for (std::uint8_t byte : raw) {
    crc ^= byte;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  crc ^= 0xffffffffu;
  for (int k = 0; k < 4; ++k) gz.push_back(static_cast<std::uint8_t>(crc >> (8 * k)));
  for (int k = 0; k < 4; ++k) gz.push_back(static_cast<std::uint8_t>(raw.size() >> (8 * k)));
  write_bytes(d + "/labels.gz", gz);
  std::vector<std::uint8_t> cut(gz.begin(), gz.begin() + 20);
  write_bytes(d + "/cut.gz", cut);
  std::vector<std::uint8_t> bad = gz;
  bad[bad.size() - 6] ^= 0x5a;  // the CRC no longer matches
  write_bytes(d + "/badcrc.gz", bad);
  if (ps::have_gzip()) {
    check(ps::read_idx_labels(d + "/labels.gz") == std::vector<std::int32_t>({0, 1, 2}), "a gzip file reads back");
    check(throws_naming([&] { ps::read_idx_labels(d + "/cut.gz"); }, {d + "/cut.gz"}),
          "a truncated gzip file: an error naming it");
    check(throws_naming([&] { ps::read_idx_labels(d + "/badcrc.gz"); }, {d + "/badcrc.gz", "corrupt"}),
          "a gzip file with a bad CRC: an error naming it");
  } else {
    check(throws_naming([&] { ps::read_idx_labels(d + "/labels.gz"); }, {d + "/labels.gz", "gzip"}),
          "without zlib a gzip file is refused, saying why");
  }
}

void synthetic() {
  const ps::dataset a = ps::make_synthetic(300, 50), b = ps::make_synthetic(300, 50);
  check(a.train.pixels == b.train.pixels && a.train.labels == b.train.labels && a.test.pixels == b.test.pixels,
        "the synthetic task is deterministic");
  std::vector<int> seen(10, 0);
  for (std::int32_t l : a.train.labels) {
    if (l >= 0 && l < 10) ++seen[static_cast<std::size_t>(l)];
  }
  bool all = true;
  for (int s : seen) all = all && s > 10;
  check(all && a.train.pixels.size() == 300 * 784, "the synthetic task has all ten classes");
}

/// Output files go to NAME.tmp and are renamed: a failed write (a full disk) leaves no file
/// half-written under its name and the previous files as they were.
void atomic_outputs(const std::string& dir) {
  namespace fs = std::filesystem;
  const std::string d = dir + "/atomic";
  fs::remove_all(d);
  fs::create_directories(d);
  auto gone = [](const std::string& p) { return !fs::exists(fs::symlink_status(p)); };
  const std::string a = d + "/a.csv", b = d + "/b.csv";
  ps::detail::write_files({{a, "old a\n"}, {b, "old b\n"}});
  check(read_text(a) == "old a\n" && read_text(b) == "old b\n", "write_files writes every file");
  check(gone(ps::detail::temp_name(a)) && gone(ps::detail::temp_name(b)), "write_files leaves no temporary file");
#if defined(__linux__)
  // A full disk: b's temporary file is /dev/full, where every write fails (ENOSPC).
  fs::create_symlink("/dev/full", ps::detail::temp_name(b));
  check(throws_naming([&] { ps::detail::write_files({{a, "new a\n"}, {b, "new b\n"}}); }, {b, "write failed"}),
        "a full disk: an error naming the file");
  check(read_text(a) == "old a\n" && read_text(b) == "old b\n",
        "a full disk: the previous files are intact, none half-written");
  check(gone(ps::detail::temp_name(a)) && gone(ps::detail::temp_name(b)), "a full disk: no temporary file left");
  // The study's files, into an empty directory: losses.csv fails, so no file is there at all.
  const std::string e = d + "/study";
  fs::create_directories(e);
  fs::create_symlink("/dev/full", ps::detail::temp_name(e + "/losses.csv"));
  ps::study_report rep;
  check(throws_naming([&] { ps::write_outputs(rep, e); }, {e + "/losses.csv", "write failed"}),
        "write_outputs on a full disk: an error naming losses.csv");
  check(fs::is_empty(e), "write_outputs on a full disk: no file (not a 0-byte losses.csv), no temporary file");
  const std::vector<std::string> written = ps::write_outputs(rep, e);
  std::size_t n = 0;
  for (const auto& entry : fs::directory_iterator(e)) n += entry.path().extension() != ".tmp";
  check(written.size() == 9 && n == 9 && fs::file_size(e + "/losses.csv") > 0, "write_outputs then writes all nine");
#endif
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "precision_study_check_out";
  for (int i = 2; i < argc; ++i) extra_args.push_back(argv[i]);
  std::filesystem::create_directories(dir);
  work_dir = dir;
  flags();
  modes_dedup();
  atomic_outputs(dir);
  idx_reader(dir);
  synthetic();
  reduced_study(dir);
  overflow_study(dir);
  micro_batches(dir);
  all_modes_and_threads(dir);
  if (failures != 0) {
    std::cerr << failures << " check(s) failed\n";
    return 1;
  }
  std::cout << "precision_study: all checks passed\n";
  return 0;
}
