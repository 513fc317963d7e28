// The run folder of one training run: who writes it (one claim), what it was made from (config.yaml,
// identity.json; a folder holding another run is refused or set aside), where a `--from` run goes on, and what it
// ends with (summary.json, robustness.csv, provenance.json). The epochs themselves are training_loop.hpp's.
#pragma once

#include <string>

#include "core/config/node.hpp"
#include "plugins/api/plugin.hpp"
#include "run_identity.hpp"
#include "session.hpp"

namespace loci::torch_trainer {

// What `--dry-run` says begins with this when the run would be refused.
inline constexpr const char* kRefused = "refused: ";

// `--dry-run`: "<run folder>: <what training would do>", decided as a real start decides it.
std::string describe_plan(const config::Node& resolved, TrainOptions opt, const plugins::TrainRequest& request);

// One writer per run folder; temporary files a killed writer left are removed under the claim.
void claim_run_folder(Session& s);

// The run in the folder must be the one asked for (or, asked for, goes to a folder of its own); a new or continued
// run records what it is made from.
ResumePlan check_identity(Session& s, const config::Node& resolved, const plugins::TrainRequest& request);

// `--from FILE`: that checkpoint, not last.pt, is where the run goes on; a finished run runs again from it.
void use_checkpoint(Session& s, const std::string& from);

// The trained model under Gaussian noise on its token embeddings, each split at each sd (train.robustness_noise).
void write_robustness(Session& s);

// summary.json: the run's status, settings that describe it, and its last evaluation.
void write_summary(const Session& s, const std::string& status);

// How this invocation ran (provenance.json, one entry per start: a resumed run keeps its earlier ones), apart
// from what decides the result, so identical runs keep identical result files.
void write_provenance(const Session& s, const std::string& status);

}  // namespace loci::torch_trainer
