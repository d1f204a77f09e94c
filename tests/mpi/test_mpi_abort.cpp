// SPDX-License-Identifier: MIT
// Rank 1 throws inside mixprec::mpi::run_guarded while the others wait in a barrier: the job must
// abort with rank 1's message (tests/mpi/check_abort.sh checks status, message and time).
#include <mixprec/mpi.hpp>

#include <stdexcept>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int rc = mixprec::mpi::run_guarded(MPI_COMM_WORLD, [&] {
    if (rank == 1) throw std::runtime_error("boom on rank 1");
    MPI_Barrier(MPI_COMM_WORLD);  // never completes: rank 1 is gone
    return 0;
  });
  MPI_Finalize();
  return rc;
}
