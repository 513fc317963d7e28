// Which process of a multi-process launch this is, read from the variables the usual launchers set:
// RANK/WORLD_SIZE (torchrun), OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE (Open MPI's mpirun), PMI_RANK/PMI_SIZE
// (MPICH, Intel MPI, Slurm's `srun --mpi=pmi2`), SLURM_PROCID/SLURM_STEP_NUM_TASKS (a plain `srun --ntasks N`).
// The first pair present wins. Slurm's pair is that of a job step: a batch script sees SLURM_PROCID and
// SLURM_NTASKS too, where one process runs alone, but no SLURM_STEP_NUM_TASKS.
#pragma once

#include <string>

namespace loci {

struct LaunchRank {
  int rank = 0;
  int world_size = 1;
  std::string source;  // "RANK/WORLD_SIZE", ...; "" when no launcher variable is set
  // Where rank 0 serves the rendezvous when the launcher says nothing of it (MASTER_ADDR / MASTER_PORT win): under
  // srun, the first node of the step and a port derived from the job and step ids, the same on every rank.
  std::string rendezvous_host;
  int rendezvous_port = 0;

  bool distributed() const { return world_size > 1; }
};

// UserError, naming the variable, for a value that is not a count, a rank without its size, or rank >= size.
LaunchRank launch_rank();

// The first host of a Slurm node list: "node[07-09,12],gpu1" -> "node07".
std::string first_slurm_host(const std::string& nodelist);

}  // namespace loci
