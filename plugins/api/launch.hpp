// Which process of a multi-process launch this is, read from the variables the usual launchers set:
// RANK/WORLD_SIZE (torchrun), OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE (Open MPI's mpirun), PMI_RANK/PMI_SIZE
// (MPICH, Intel MPI, Slurm's `srun --mpi=pmi2`). The first pair present wins. SLURM_PROCID is deliberately not read:
// a batch script sees it too, where one process runs alone.
#pragma once

#include <string>

namespace loci {

struct LaunchRank {
  int rank = 0;
  int world_size = 1;
  std::string source;  // "RANK/WORLD_SIZE", ...; "" when no launcher variable is set

  bool distributed() const { return world_size > 1; }
};

// UserError, naming the variable, for a value that is not a count, a rank without its size, or rank >= size.
LaunchRank launch_rank();

}  // namespace loci
