// `loci intervene` in the trainer: a finished run's model evaluated with its PE changed by every registered
// intervention (models/interventions/), on the whole model and on each placement alone, and with each token's rows
// zeroed alone; written as interventions.json and interventions.csv in the run folder.
#pragma once

#include "plugins/api/plugin.hpp"
#include "session.hpp"

namespace loci::torch_trainer {

// UserError naming the run when it has not finished (no summary.json with a finished status) or has no
// checkpoints/last.pt: an intervention scores the trained model, never one still training.
void check_finished_run(const Session& s);

// `s` holds the trained model (its last checkpoint loaded), its data and eval splits. UserError naming the PE when
// it adds no [T, d] matrices (none, rope, rope_axial, relative, alibi) or an unknown intervention or split is asked.
void write_interventions(Session& s, const plugins::InterveneRequest& request);

}  // namespace loci::torch_trainer
