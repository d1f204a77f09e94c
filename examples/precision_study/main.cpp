// SPDX-License-Identifier: MIT
// examples/precision_study — the seed's mixed-precision experiments, reproduced on a CPU with
// mixprec: an MLP 784-512-256-10 trained on Fashion-MNIST in ten precisions (float64, float32
// under three matmul precisions, float16/bfloat16 mixed, float16/bfloat16 "regular", bfloat16
// with stochastic rounding, FP8), built on mixprec's GEMM, softmax/cross-entropy, Adam, convert
// and reduce kernels, its autocast policy, grad scaler and FP8 delayed scaling. Every format is
// emulated bit-faithfully, so float16 fails here exactly as it does on a GPU.
//
//   precision_study [--modes LIST] [--epochs N] [--threads N] [--seed N] [--data DIR] [--out DIR]
//                   [--limit N] [--init-scale S] [--log-every N] [--micro-batches M]
//                   [--reduce-dtype float32|bfloat16|float16] [--help]
//   mpirun -np N precision_study_mpi [the same options]
//
// Prints per-epoch progress and per-mode results, then a markdown table; writes summary.md,
// results.csv, epochs.csv, losses.csv, results.json and four SVG charts to --out (default
// ./precision_study_out). See train.hpp for the exact semantics of each mode, data.hpp for the
// data, report.hpp for the files, cli.hpp for the flags; the training code is compiled once, in
// study.cpp (study.hpp). The reduced study run by CTest is check_reduced.cpp.
//
// precision_study_mpi (this file with MIXPREC_STUDY_MPI=1, built when MPI is found) trains data-
// parallel: the ranks split every batch's micro-batches, all-gather their gradients and add them in
// micro-batch order (mpi_ranks.hpp), so with --reduce-dtype float32 every number it writes is the
// one precision_study writes. Rank 0 prints and writes the files; every rank prints its skip count on
// stderr; an exception on any rank aborts the job (mixprec::mpi::run_guarded). Without --threads
// (or MIXPREC_NUM_THREADS) each rank uses its share of the node's cores.
#include <iostream>

#include "study.hpp"

#if MIXPREC_STUDY_MPI
#include <mixprec/exec.hpp>

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "mpi_ranks.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 1;
  {
    precision_study::mpi_ranks ranks(MPI_COMM_WORLD);
    if (std::getenv("MIXPREC_NUM_THREADS") == nullptr) {
      mixprec::set_num_threads(ranks.default_threads(std::max(1u, std::thread::hardware_concurrency())));
    }
    std::ostream quiet(nullptr);  // ranks other than 0 print nothing but errors and their skip count
    rc = mixprec::mpi::run_guarded(MPI_COMM_WORLD, [&] {
      return precision_study::study_main(argc, argv, ranks.rank() == 0 ? std::cout : quiet, std::cerr, &ranks);
    });
  }
  MPI_Finalize();
  return rc;
}
#else
int main(int argc, char** argv) { return precision_study::study_main(argc, argv, std::cout, std::cerr); }
#endif
