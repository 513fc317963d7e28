// Data-parallel training over LibTorch's c10d, in the environment torchrun sets: RANK and WORLD_SIZE (or the
// mpirun / srun equivalents, core/launch.hpp), MASTER_ADDR and MASTER_PORT. Rank 0 serves a TCPStore there
// for the rendezvous; the collectives run on ProcessGroupGloo (CPU tensors; Debian's LibTorch has no NCCL).
// Every call names this rank and the step in its error, and every wait is bounded by `timeout`, so a rank that died
// or hangs stops the others with one line instead of a hang.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "core/config/identity.hpp"
#include "core/launch.hpp"

namespace loci::torch_trainer {

class DataParallel {
 public:
  // nullptr for one process; otherwise blocks until every rank has joined. UserError for a missing MASTER_ADDR or
  // MASTER_PORT, a port rank 0 cannot listen on, or ranks that do not all arrive within `timeout`.
  static std::unique_ptr<DataParallel> join(const LaunchRank& launch, std::chrono::seconds timeout);
  ~DataParallel();

  int rank() const { return rank_; }
  int world_size() const { return world_; }

  // After backward: every parameter's gradient becomes sum over ranks of (gradient x weight). With weight = this
  // rank's samples / the global batch's samples, that is the gradient of the loss averaged over the global batch.
  // Gradients travel flattened in buckets of a few MiB, each all-reduced while the next is packed.
  void all_reduce_gradients(const std::vector<torch::Tensor>& parameters, double weight, std::int64_t step);

  // Rank 0's value, on every rank (a stop decision taken by rank 0 alone, say). `wait` bounds how long a rank
  // waits for it when rank 0 has work of its own to finish first (an evaluation); 0 means the liveness timeout.
  std::int64_t broadcast(std::int64_t value, const std::string& what, std::int64_t step,
                         std::chrono::seconds wait = std::chrono::seconds(0));

  // Every rank publishes the identity of the run it was asked for (settings and dataset checksums) and checks it
  // against every other rank's before the first collective: ranks started with other settings would otherwise train
  // to the end on a mix of both. UserError on every rank, naming the keys that differ.
  void agree(const config::Identity& identity);

 private:
  struct Group;
  DataParallel(int rank, int world, std::unique_ptr<Group> group);

  int rank_ = 0, world_ = 1;
  std::int64_t decisions_ = 0;  // broadcasts through the store so far: each has a key of its own
  std::unique_ptr<Group> group_;
};

}  // namespace loci::torch_trainer
