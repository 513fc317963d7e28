// The epochs of one training run: each epoch's batches as optimizer steps (micro-batches on the threads, gradients
// averaged over ranks), and at each evaluation every split scored, the PE recorded and the run's files and
// checkpoints rewritten. The run folder around it is run_folder.hpp's.
#pragma once

#include <string>

#include "plugins/api/plugin.hpp"
#include "session.hpp"

namespace loci::torch_trainer {

// The PE at initialisation, epoch 0 of pe.h5 (and attention.h5): the baseline of every probe, and what the
// displacement PE(t) - PE(0) is measured from.
void record_initial_pe(Session& s);

// The epochs still to go; returns the run's status: finished, early_stopped or paused.
std::string run_epochs(Session& s, const plugins::TrainRequest& request);

}  // namespace loci::torch_trainer
