// SPDX-License-Identifier: MIT
// examples/precision_study/mpi_ranks.hpp — the study's data-parallel collectives over MPI
// (precision_study_mpi only: main.cpp with MIXPREC_STUDY_MPI=1). Each collective is one MPI call
// on the communicator: the micro-batch gradients and statistics an MPI_Allgatherv of bytes (the
// ranks add them in micro-batch order themselves, so the sum does not depend on MPI's algorithm),
// found_inf a logical OR and the FP8 amax a MAX (mixprec/mpi.hpp), evaluation counts a SUM.
// seconds accumulates the time spent in them. Every call throws mixprec::mpi::mpi_error on failure.
//
// For the failure test (examples/precision_study/check_mpi.py): with MIXPREC_STUDY_FAIL_RANK=R in
// the environment, rank R throws at its third all-gather (in the second training step).
//   precision_study::mpi_ranks ranks(MPI_COMM_WORLD);  study_main(argc, argv, out, err, &ranks);
#ifndef MIXPREC_PRECISION_STUDY_MPI_RANKS_HPP
#define MIXPREC_PRECISION_STUDY_MPI_RANKS_HPP

#include <mixprec/mpi.hpp>

#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "study.hpp"

namespace precision_study {

class mpi_ranks : public data_parallel {
 public:
  explicit mpi_ranks(MPI_Comm comm) : comm_(comm) {
    mixprec::mpi::detail::check(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
    mixprec::mpi::detail::check(MPI_Comm_size(comm, &size_), "MPI_Comm_size");
    if (const char* f = std::getenv("MIXPREC_STUDY_FAIL_RANK")) fail_ = std::atoi(f) == rank_;
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void allgather(const void* mine, void* all, const std::vector<std::size_t>& bytes) override {
    if (fail_ && ++gathers_ == 3) {
      throw study_error("injected failure (MIXPREC_STUDY_FAIL_RANK=" + std::to_string(rank_) + ")");
    }
    std::vector<int> counts(bytes.size()), displs(bytes.size());
    std::size_t at = 0;
    for (std::size_t r = 0; r < bytes.size(); ++r) {
      if (bytes[r] > static_cast<std::size_t>(INT_MAX) || at > static_cast<std::size_t>(INT_MAX) - bytes[r]) {
        throw study_error("an all-gather of more than 2^31 - 1 bytes");
      }
      counts[r] = static_cast<int>(bytes[r]);
      displs[r] = static_cast<int>(at);
      at += bytes[r];
    }
    const timer t(seconds);
    mixprec::mpi::detail::check(MPI_Allgatherv(mine, counts[static_cast<std::size_t>(rank_)], MPI_BYTE, all,
                                               counts.data(), displs.data(), MPI_BYTE, comm_),
                                "MPI_Allgatherv");
  }
  bool any(bool v) override {
    const timer t(seconds);
    return mixprec::mpi::allreduce_found_inf(v, comm_);
  }
  void max(float* v, std::size_t n) override {
    const timer t(seconds);
    mixprec::mpi::detail::check(MPI_Allreduce(MPI_IN_PLACE, v, mixprec::mpi::detail::count_of(n), MPI_FLOAT,
                                              mixprec::mpi::max_op<float>(), comm_),
                                "MPI_Allreduce");
  }
  std::uint64_t sum(std::uint64_t v) override {
    const timer t(seconds);
    std::uint64_t s = 0;
    mixprec::mpi::detail::check(MPI_Allreduce(&v, &s, 1, MPI_UINT64_T, MPI_SUM, comm_), "MPI_Allreduce");
    return s;
  }

  /// Threads per rank when none are asked for: the cores divided among the ranks on this node.
  unsigned default_threads(unsigned cores) const {
    MPI_Comm node = MPI_COMM_NULL;
    int local = 1;
    if (MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
      MPI_Comm_size(node, &local);
      MPI_Comm_free(&node);
    }
    const unsigned t = cores / static_cast<unsigned>(local > 0 ? local : 1);
    return t > 0 ? t : 1;
  }

 private:
  struct timer {
    double& total;
    std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
    explicit timer(double& s) : total(s) {}
    ~timer() { total += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }
    timer(const timer&) = delete;
    timer& operator=(const timer&) = delete;
  };

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  bool fail_ = false;
  int gathers_ = 0;
};

}  // namespace precision_study

#endif  // MIXPREC_PRECISION_STUDY_MPI_RANKS_HPP
