// SIGUSR1 is a scheduler's warning before its time limit (Slurm's `--signal=B:USR1@SECONDS`): a request to stop at
// the next safe point with a checkpoint, never a reason to die. Its default action ends the process, so every loci
// process takes it from the first line of main(), before plugins load: one that arrives early is remembered here,
// and the training loop, installing its own handler later, honours it (plugins/torch_trainer/pause_signal.hpp).
#pragma once

namespace loci {

// Installs the remembering handler and takes the signals a parent sweep held for the process. Called once, first
// thing in main().
void catch_pause_requests();

// Whether SIGUSR1 came since catch_pause_requests().
bool pause_requested_early();

}  // namespace loci
