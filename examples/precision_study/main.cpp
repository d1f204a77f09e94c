// SPDX-License-Identifier: MIT
// examples/precision_study — the seed's mixed-precision experiments, reproduced on a CPU with
// mixprec: an MLP 784-512-256-10 trained on Fashion-MNIST in ten precisions (float64, float32
// under three matmul precisions, float16/bfloat16 mixed, float16/bfloat16 "regular", bfloat16
// with stochastic rounding, FP8), built on mixprec's GEMM, softmax/cross-entropy, Adam, convert
// and reduce kernels, its autocast policy, grad scaler and FP8 delayed scaling. Every format is
// emulated bit-faithfully, so float16 fails here exactly as it does on a GPU.
//
//   precision_study [--modes LIST] [--epochs N] [--threads N] [--seed N] [--data DIR] [--out DIR]
//                   [--limit N] [--init-scale S] [--log-every N] [--help]
//
// Prints per-epoch progress and per-mode results, then a markdown table; writes summary.md,
// results.csv, epochs.csv, losses.csv, results.json and four SVG charts to --out (default
// ./precision_study_out). See train.hpp for the exact semantics of each mode, data.hpp for the
// data, report.hpp for the files. The reduced study run by CTest is check_reduced.cpp.
#include <iostream>

#include "cli.hpp"

int main(int argc, char** argv) { return precision_study::study_main(argc, argv, std::cout, std::cerr); }
