// What a run was made from, and whether a folder's run is the one a config asks for. A run records its identity
// (identity.json: every key of its resolved config that decides its result, the checksum of the data it read, and
// loci's version); resuming compares it and refuses a run made otherwise, naming the keys that differ. Only
// train.epochs may differ: a finished run asked for more epochs continues as if asked for that many from the start.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "core/config/identity.hpp"
#include "datasets/reader.hpp"
#include "train_options.hpp"

namespace loci::torch_trainer {

// The config a run writes as config.yaml: the resolved one with the initialiser it really uses and absolute
// `data` and `out`, so that reading the run never depends on the folder it is read from.
config::Node recorded_config(const config::Node& resolved, const TrainOptions& options);

// The identity of a run of `recorded` on `dataset` (its shards' checksums stand for the data, wherever it lies).
config::Identity run_identity(const config::Node& recorded, const datasets::Dataset& dataset);

// The identity's keys less train.epochs: what stays the same when a finished run is asked for more epochs, so
// that its checkpoints belong to it at any length; and their hash, from which model.pe.draw=run draws.
config::FlatConfig lasting_keys(const config::Identity& identity);
// A run's keys as a loci before some keys existed recorded them (a checkpoint's run identity), with those keys filled
// in at the value every such run had in effect, so that an earlier run's checkpoint still belongs to it.
config::FlatConfig with_keys_added_later(config::FlatConfig recorded);
std::string lasting_hash(const config::Identity& identity);

// The seed of the PE's own draw (models::PEOptions::draw_seed) that model.pe.draw asks for: none for "seed" (the
// model's generator, as before the key existed, so such runs keep their bytes), N for a number, and for "run" a
// number taken from lasting_hash(identity) (a run extended later draws what it drew).
std::optional<std::uint64_t> pe_draw_seed(const TrainOptions& options, const config::Identity& identity);

// The seed a run's PE tables were drawn from, seed or not: runs with equal values share a draw (summary.json's
// pe_draw, which the analysis pairs runs by).
std::uint64_t effective_pe_draw(const TrainOptions& options, const config::Identity& identity);

void write_identity(const std::filesystem::path& run, const config::Identity& identity);

// True when `run` holds a run (identity.json) made with other settings than `identity`.
bool made_otherwise(const std::filesystem::path& run, const config::Identity& identity);

// What an existing run folder means for this request.
struct ResumePlan {
  bool fresh = true;      // nothing there yet
  bool finished = false;  // summary.json: finished (or early-stopped)
  bool extend = false;    // finished, and train.epochs asks for more
  std::int64_t done_epochs = 0;
};

// UserError naming `run` when it holds a run this request may not continue: made with other settings (the keys
// listed), finished with more epochs than asked, a changed train.steps, or any run without --resume.
ResumePlan plan_resume(const std::filesystem::path& run, const config::Identity& identity, const TrainOptions& options,
                       bool resume);

}  // namespace loci::torch_trainer
