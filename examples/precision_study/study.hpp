// SPDX-License-Identifier: MIT
// examples/precision_study/study.hpp — the study's entry point and the two types its callers need,
// without the training code: main.cpp, the MPI build and check_reduced.cpp include this and link
// study.cpp, so the training code (train.hpp, the GEMM and every recipe) is compiled once.
//
//   int rc = precision_study::study_main(argc, argv, std::cout, std::cerr);
#ifndef MIXPREC_PRECISION_STUDY_STUDY_HPP
#define MIXPREC_PRECISION_STUDY_STUDY_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <stdexcept>
#include <vector>

namespace precision_study {

/// Every error the study reports to its user (bad data, bad flags, unwritable output).
class study_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The collectives data-parallel training needs; this base class is one process (every
/// collective is the identity). examples/precision_study/mpi_ranks.hpp implements it over MPI.
/// Every rank must call the same collectives in the same order. seconds: time spent in them.
class data_parallel {
 public:
  virtual ~data_parallel() = default;
  virtual int rank() const { return 0; }
  virtual int size() const { return 1; }
  /// all = every rank's block, in rank order; bytes[r]: the size of rank r's block.
  virtual void allgather(const void* mine, void* all, const std::vector<std::size_t>& bytes) {
    if (bytes[0] != 0) std::memcpy(all, mine, bytes[0]);
  }
  /// Whether v is true on any rank.
  virtual bool any(bool v) { return v; }
  /// v[i] = the largest v[i] over the ranks.
  virtual void max(float* v, std::size_t n) { (void)v, (void)n; }
  /// The sum of v over the ranks.
  virtual std::uint64_t sum(std::uint64_t v) { return v; }
  double seconds = 0;
};

/// The whole program; returns the exit status. Messages to out, errors to err. dp: the ranks of a
/// data-parallel run (nullptr: one process; then --micro-batches defaults to 1, else to 4); every
/// rank trains, rank 0 alone writes the files, every rank reports its own steps, skips and scale on
/// err, and with more than one rank an error is rethrown (the caller aborts the job: the other
/// ranks would wait for this one forever). Defined in study.cpp.
int study_main(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
               data_parallel* dp = nullptr);

}  // namespace precision_study

#endif  // MIXPREC_PRECISION_STUDY_STUDY_HPP
