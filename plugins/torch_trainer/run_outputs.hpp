// What a run leaves in its folder besides checkpoints: metrics.csv + metrics.jsonl (one row per split per
// evaluation), pe.h5 (every PE of every placement at every evaluation) and summary.json. Everything is rewritten
// from the in-memory history, so a resumed run's files equal an uninterrupted run's.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include "evaluate.hpp"
#include "models/model.hpp"

namespace loci::torch_trainer {

struct MetricsRow {
  std::int64_t epoch = 0, step = 0;
  double seconds = 0, lr = 0, pe_norm = -1;
  // The mean norm of an embedded token (before the PE is added) over the first evaluation batch of the training
  // split: the scale the PE's rows (pe_norm / sqrt(tokens)) compete with. -1: not recorded.
  double embedding_norm = -1;
  SplitMetrics metrics;
};

nlohmann::ordered_json to_json(const MetricsRow& row, const std::vector<std::string>& condition_names);
MetricsRow row_from_json(const nlohmann::ordered_json& j);

// Rewrites metrics.csv and metrics.jsonl atomically from every row so far.
void write_metrics(const std::filesystem::path& run, const std::vector<MetricsRow>& rows,
                   const std::vector<std::string>& condition_names);

struct PeSnapshot {
  std::int64_t epoch = 0, step = 0;
  std::vector<torch::Tensor> matrices;   // one per placement; empty tensors for PEs without a table
  std::vector<torch::Tensor> attention;  // train.save_attention: one [heads, N, N] mean map per block, else empty
  // Model::position_logits(): one [heads, T, T] per block (numel 0 for a block without a [T, d] PE); empty in the
  // snapshots of checkpoints written before loci recorded it.
  std::vector<torch::Tensor> position_logits;
};

// What pe.h5's attributes say of the PE.
struct PeDescription {
  std::string type, placement;
  double init_std = 0;  // the init's std (0 when it has none)
  // The init's name, the key of its scale (model.pe.init.std, ..., from its registration; "" for none) and value.
  std::string init_name, init_scale_key;
  double init_scale = 0;
  bool drawn = false;  // its [T, d] tables are drawn from an initialiser (learned, random_fixed, ...): sigma matters
};

// The PE of a run as pe.h5 describes it. It is drawn from its init when it has an initialiser and adds [T, d]
// tables: sigma is then its scale, named by the init's registration.
PeDescription describe_pe(const models::PEOptions& pe, models::Model& model);

// pe.h5: `epoch` and `step` [evaluation], `placement_<p>` [evaluation, ...] for each placement with a table,
// `position_logits_<b>` [evaluation, head, query, key] for each block whose attention sees a [T, d] PE (when every
// evaluation recorded it), `positions` [token, axis] (the dataset's true positions), and attributes describing the PE.
void write_pe_file(const std::filesystem::path& run, const std::vector<PeSnapshot>& history,
                   const torch::Tensor& positions, const PeDescription& pe);

// attention.h5: `epoch` and `step` [evaluation], `block_<b>` [evaluation, head, query, key] (each block's attention
// weights averaged over the samples of `split`), attributes split and samples.
void write_attention_file(const std::filesystem::path& run, const std::vector<PeSnapshot>& history,
                          const std::string& split, std::int64_t samples);

}  // namespace loci::torch_trainer
