// SIGUSR1 is a scheduler's warning before its time limit (Slurm's `--signal=B:USR1@SECONDS`): a request to stop at
// the next safe point with a checkpoint, never a reason to die. Its default action ends the process, so every loci
// process holds it from the first line of main() and takes it before plugins load: one that arrives early is
// remembered here,
// and the training loop, installing its own handler later, honours it (plugins/torch_trainer/pause_signal.hpp).
#pragma once

namespace loci {

// Holds SIGUSR1 and the stop signals, first thing in main(): loci may restart itself with another BLAS kernel before
// it can take them (cpu::settle execs the binary again), and a signal held is kept pending across that exec, where
// one taken by a handler would be forgotten with the old image.
void hold_pause_signals();

// Installs the remembering handler and takes the held signals (a parent sweep's too): any that came while they
// were held arrives now. Called once in main(), after cpu::settle.
void catch_pause_requests();

// Whether SIGUSR1 came since catch_pause_requests().
bool pause_requested_early();

}  // namespace loci
