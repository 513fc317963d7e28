// `loci export` in the trainer: a finished run's model written as one file that PyTorch's torch.load reads
// (torch::pickle_save of a dict), for python/loci/torch.py to rebuild: the model's options, every parameter and
// buffer by its LibTorch name, the true positions, and a reference batch (inputs and loci's own outputs) that the
// Python side checks itself against when it loads.
#pragma once

#include "plugins/api/plugin.hpp"
#include "session.hpp"

namespace loci::torch_trainer {

// UserError naming the target when it exists and --force was not given; checked before any model is built.
void check_export_target(const plugins::ExportRequest& request);

// `s` holds the trained model (load_trained in torch_trainer.cpp).
void write_export(Session& s, const plugins::ExportRequest& request);

}  // namespace loci::torch_trainer
