// SIGUSR1 asks a run to stop at the end of its epoch with a checkpoint, so that `--resume` loses nothing: what a
// scheduler's warning before a time limit sends (Slurm's `--signal=B:USR1@SECONDS`). SIGTERM still ends a run at
// once, keeping the checkpoint of its last evaluation.
#pragma once

#include <boost/core/noncopyable.hpp>

namespace loci::torch_trainer {

class PauseSignal : boost::noncopyable {
 public:
  // Installs the handler for the object's lifetime; the disposition before is put back after.
  PauseSignal();
  ~PauseSignal();

  // Whether SIGUSR1 came since the handler was installed, or before it, since the process started.
  static bool requested();
};

}  // namespace loci::torch_trainer
