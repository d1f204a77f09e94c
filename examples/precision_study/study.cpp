// SPDX-License-Identifier: MIT
// examples/precision_study/study.cpp — study_main (study.hpp): the one translation unit that
// compiles the study's training code; precision_study, precision_study_mpi and
// precision_study_check link it (examples/CMakeLists.txt, examples/meson.build).
#include "study.hpp"

#include "cli.hpp"

namespace precision_study {

int study_main(int argc, const char* const* argv, std::ostream& out, std::ostream& err, data_parallel* dp) {
  const int ranks = dp != nullptr ? dp->size() : 1;
  const bool writer = dp == nullptr || dp->rank() == 0;
  options o;
  try {
    o = parse_options(argc, argv);
    if (o.micro_batches == 0) o.micro_batches = dp != nullptr ? 4 : 1;
  } catch (const study_error& e) {
    err << "precision_study: " << e.what() << "\n\n" << usage();
    return 2;
  }
  if (o.help) {
    out << usage();
    return 0;
  }
  try {
    // The output directory first: a study must not fail at its end for want of a place to write.
    std::error_code ec;
    if (writer) std::filesystem::create_directories(o.out, ec);
    if (ec) throw study_error("--out " + o.out + ": cannot create the directory (" + ec.message() + ")");
    if (writer) {
      const std::string probe = o.out + "/.precision_study_probe";
      std::ofstream f(probe);
      if (!f) throw study_error("--out " + o.out + ": cannot write there");
      f.close();
      std::remove(probe.c_str());
    }
    if (o.threads != 0) mixprec::set_num_threads(o.threads);

    const auto t0 = std::chrono::steady_clock::now();
    const dataset d = load_data(o, out);
    if (d.train.size() <= validation_images) {
      throw study_error("the training set has " + std::to_string(d.train.size()) + " images; the study needs more than " +
                        std::to_string(validation_images) + " (the last 5000 validate)");
    }
    const std::size_t cap = o.limit == 0 ? ~std::size_t{0} : o.limit;
    const std::size_t n_train_all = d.train.size() - validation_images;
    split train{d.train.pixels.data(), d.train.labels.data(), std::min(cap, n_train_all)};
    split val{d.train.pixels.data() + n_train_all * image_pixels, d.train.labels.data() + n_train_all,
              std::min(cap, validation_images)};
    split test{d.test.pixels.data(), d.test.labels.data(), std::min(cap, d.test.size())};

    run_config cfg;
    cfg.epochs = o.epochs;
    cfg.seed = o.seed;
    cfg.threads = o.threads;
    cfg.init_scale = o.init_scale;
    cfg.log_every = o.log_every == 0 ? ~std::size_t{0} : o.log_every;
    cfg.log = &out;
    cfg.micro_batches = o.micro_batches;
    cfg.reduce = o.reduce;
    cfg.dp = dp;
    if (static_cast<std::size_t>(ranks) > o.micro_batches) {
      throw study_error(std::to_string(ranks) + " ranks but --micro-batches " + std::to_string(o.micro_batches) +
                        ": every rank needs at least one micro-batch");
    }

    study_report rep;
    rep.data_source = d.source;
    rep.train_count = train.count;
    rep.val_count = val.count;
    rep.test_count = test.count;
    rep.config = cfg;
    rep.config.log = nullptr;
    rep.config.dp = nullptr;
    rep.ranks = ranks;
    rep.threads_used = o.threads != 0 ? o.threads : mixprec::num_threads();
    rep.gzip = have_gzip();

    out << "mixprec precision study: MLP 784-512-256-10, Adam(1e-3), batch " << cfg.batch << ", " << cfg.epochs
        << " epoch(s), seed " << cfg.seed << ", " << rep.threads_used << " thread(s)\n"
        << "Data: " << d.source << " | train " << train.count << " | validation " << val.count << " | test "
        << test.count << (have_gzip() ? "" : " | (built without zlib: gzip files cannot be read)") << "\n"
        << "Gradient: the sum of " << cfg.micro_batches << " micro-batch gradients in " << reduce_precision_name(cfg.reduce)
        << (ranks > 1 ? ", all-gathered over " + std::to_string(ranks) + " MPI ranks" : std::string(", one process"))
        << "\n";
    for (const mode_spec* m : o.modes) {
      out << "\n## " << m->name << ": " << m->description << "\n" << std::flush;
      mode_result r = run_mode(*m, cfg, train, val, test);
      char line[256];
      std::snprintf(line, sizeof line, "Time elapsed %.2f min (%.1f s)\n", r.seconds / 60.0, r.seconds);
      out << line;
      std::snprintf(line, sizeof line,
                    "Memory: params %s MiB, grads %s MiB, optimizer %s MiB, activations %s MiB (total %s MiB); "
                    "peak RSS %s MiB\n",
                    detail::mib(r.memory.params).c_str(), detail::mib(r.memory.grads).c_str(),
                    detail::mib(r.memory.optimizer).c_str(), detail::mib(r.memory.activations).c_str(),
                    detail::mib(r.memory.total()).c_str(),
                    r.peak_rss >= 0 ? detail::mib(static_cast<std::size_t>(r.peak_rss)).c_str() : "n/a");
      out << line << "  (" << r.memory_detail << ")\n";
      if (r.loss_scaling) {
        out << "Loss scaling: " << r.skipped_steps << " of " << r.steps << " steps skipped; scale " << r.init_scale
            << " -> " << r.final_scale << "\n";
      }
      out << "Non-finite values: " << detail::nan_text(r) << "\n";
      if (cfg.reduce != reduce_precision::float32) {
        out << "Gradient sum in " << reduce_precision_name(cfg.reduce) << ": relative error against float32 "
            << detail::fmt("%.3g", r.grad_reduce_err_max) << " at most, " << detail::fmt("%.3g", r.grad_reduce_err_mean)
            << " on average (2-norm, per step)\n";
      }
      const double per_step = r.steps > 0 ? r.train_seconds / static_cast<double>(r.steps) : 0.0;
      out << "Training: " << detail::fmt("%.2f", 1000.0 * per_step) << " ms per step";
      if (ranks > 1) {
        out << ", " << detail::fmt("%.1f", r.train_seconds > 0 ? 100.0 * r.mpi_seconds / r.train_seconds : 0.0)
            << "% of it in MPI collectives (rank 0: " << detail::fmt("%.2f", r.mpi_seconds) << " s, waiting included)";
      }
      out << "\n";
      if (ranks > 1) {
        // one write per line: the ranks' lines must not interleave
        const std::string note = "rank " + std::to_string(dp->rank()) + ": " + r.name + ": " + std::to_string(r.steps) +
                                 " steps, " + std::to_string(r.skipped_steps) + " skipped, final scale " +
                                 detail::fmt("%.17g", r.final_scale) + ", test accuracy " +
                                 detail::fmt("%.17g", r.test_acc) + "\n";
        err.write(note.data(), static_cast<std::streamsize>(note.size()));
        err.flush();
      }
      std::snprintf(line, sizeof line, "Test accuracy %.2f%%\n", 100.0 * r.test_acc);
      out << line << std::flush;
      rep.modes.push_back(std::move(r));
    }
    rep.total_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    out << "\n# Summary (" << d.source << ", " << cfg.epochs << " epoch(s), total "
        << detail::fmt("%.1f", rep.total_seconds) << " s)\n\n"
        << markdown_table(rep) << "\n";
    if (writer) {
      const std::vector<std::string> files = write_outputs(rep, o.out);
      out << "Wrote:";
      for (const std::string& f : files) out << ' ' << f;
      out << "\n";
    }
    return 0;
  } catch (const study_error& e) {
    if (ranks > 1) throw;
    err << "precision_study: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    if (ranks > 1) throw;
    err << "precision_study: unexpected error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace precision_study
