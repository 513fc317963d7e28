#include "interventions.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/config/options.hpp"
#include "core/error.hpp"
#include "datasets/atomic_file.hpp"
#include "datasets/progress.hpp"
#include "evaluate.hpp"
#include "models/init/init_registry.hpp"
#include "models/interventions/intervention.hpp"
#include "models/pe/positional_encoding.hpp"

namespace loci::torch_trainer {

namespace fs = std::filesystem;
using ordered_json = nlohmann::ordered_json;

namespace {

// What one evaluation scores: accuracy for classification, MSE for masked regression.
double score(const SplitMetrics& m) { return m.accuracy >= 0 ? m.accuracy : m.mse; }

struct Scorer {
  Session& s;
  std::vector<std::string> splits;
  std::map<std::string, double> operator()() const {
    std::map<std::string, double> out;
    for (const auto& split : splits)
      out[split] = score(evaluate(s.learner.model, *s.data.ds, split, s.data.plan, s.opt.eval_batch_size, s.opt.seed,
                                  *s.learner.micro, -1, s.data.means));
    return out;
  }
};

std::vector<std::string> splits_to_score(const Session& s, const plugins::InterveneRequest& request) {
  const auto known = s.data.ds->splits();
  std::vector<std::string> out;
  for (const auto& split : request.splits) {
    if (std::find(known.begin(), known.end(), split) == known.end())
      throw UserError(request.run.string() + ": --split " + split + ": the dataset " + s.data.ds->path().string() +
                      " has no such split");
    out.push_back(split);
  }
  if (!out.empty()) return out;
  for (const auto& split : s.data.eval_splits)
    if (split != s.opt.train_split) out.push_back(split);
  return out.empty() ? s.data.eval_splits : out;
}

std::vector<const models::Intervention*> chosen(const plugins::InterveneRequest& request) {
  const auto all = models::registered_interventions();
  if (request.interventions.empty()) return all;
  std::vector<const models::Intervention*> out;
  for (const auto& name : request.interventions) {
    const auto it = std::find_if(all.begin(), all.end(), [&](const auto* i) { return i->name == name; });
    if (it == all.end()) {
      std::string known;
      for (const auto* i : all) known += (known.empty() ? "" : ", ") + i->name;
      throw UserError("--only " + name + ": no such intervention (registered: " + known + ")");
    }
    out.push_back(*it);
  }
  return out;
}

// The trained PE's matrices, refused with the PE's name when it adds none.
std::vector<torch::Tensor> trained_matrices(const Session& s) {
  const auto tables = s.learner.model->pe_matrices();
  const auto& pe = s.learner.mopt.encoder().pe();
  for (const auto& t : tables)
    if (t.dim() != 2 || t.size(0) != s.data.plan.tokens)
      throw UserError(s.folder.run.string() + ": model.pe.type '" + pe.type() +
                      "' adds no [tokens, d_model] matrix at a block's input, so no PE row can be changed; "
                      "interventions need an additive PE (learned, random_fixed, sinusoidal_*, ...)");
  if (pe.type() == "none" || tables.empty())
    throw UserError(s.folder.run.string() + ": model.pe.type 'none' has no PE rows to change");
  return tables;
}

std::vector<torch::Tensor> oracle_matrices(const Session& s, const std::vector<torch::Tensor>& trained) {
  const auto& pe = s.learner.mopt.encoder().pe();
  models::PEContext context;
  context.d_model = trained.front().size(1);
  context.heads = s.learner.mopt.encoder().heads();
  context.placements = static_cast<int64_t>(trained.size());
  context.positions = s.data.positions;
  context.generator = models::make_generator(0);
  const auto oracle = models::PERegistry::create(models::PEOptions("sinusoidal_nd")
                                                     .placement(pe.placement())
                                                     .base(pe.base())
                                                     .coordinate_scale(pe.coordinate_scale()),
                                                 context);
  std::vector<torch::Tensor> out;
  for (int64_t p = 0; p < context.placements; ++p) out.push_back(oracle->matrix(p).detach().clone());
  return out;
}

// The epoch-0 matrices the checkpoint recorded (pe.h5's first snapshot), or none when it did not.
std::vector<torch::Tensor> initial_matrices(const Session& s) {
  const auto& h = s.schedule.state.pe_history;
  if (h.empty() || h.front().epoch != 0) return {};
  for (const auto& t : h.front().matrices)
    if (t.dim() != 2) return {};
  return h.front().matrices;
}

std::string number_text(double v) { return std::isfinite(v) ? config::default_text(v) : ""; }

}  // namespace

void check_finished_run(const Session& s) {
  const fs::path summary = s.folder.run / "summary.json";
  std::string status;
  try {
    std::ifstream in(summary);
    if (in) status = nlohmann::json::parse(in).value("status", "");
  } catch (const nlohmann::json::exception&) {
    throw UserError(summary.string() + ": not readable JSON; the run's record is damaged");
  }
  if (status != "finished" && status != "early_stopped")
    throw UserError(s.folder.run.string() + ": not a finished run (" +
                    (status.empty() ? "no summary.json" : "status " + status) +
                    "); only a trained model is scored or exported: finish it with `loci train --resume` first");
  if (!fs::is_regular_file(s.folder.last))
    throw UserError(s.folder.last.string() +
                    ": no checkpoint; the run kept none (train.checkpoint) so its model is gone");
}

void write_interventions(Session& s, const plugins::InterveneRequest& request) {
  models::PEState state;
  state.trained = trained_matrices(s);
  state.initial = initial_matrices(s);
  state.positions = s.data.positions;
  state.oracle = oracle_matrices(s, state.trained);
  state.seed = s.opt.seed;
  state.permutations = request.permutations;
  const auto interventions = chosen(request);
  const Scorer scorer{s, splits_to_score(s, request)};
  const std::string metric = s.data.plan.task == Task::classification ? "accuracy" : "mse";
  const auto placements = static_cast<int64_t>(state.trained.size());

  torch::NoGradGuard no_grad;
  s.learner.model->eval();
  const auto baseline = scorer();
  ordered_json results = ordered_json::array();
  std::ostringstream csv;
  csv << "intervention,variant,scope,split,metric,value,change,distortion\n";
  auto record = [&](const std::string& name, const models::InterventionVariant& v, const std::string& scope,
                    const std::map<std::string, double>& scores) {
    for (const auto& [split, value] : scores) {
      const double change = value - baseline.at(split);
      ordered_json row{{"intervention", name}, {"variant", v.name}, {"scope", scope},
                       {"split", split},       {"value", value},    {"change", change}};
      row["distortion"] = std::isfinite(v.distortion) ? ordered_json(v.distortion) : ordered_json(nullptr);
      results.push_back(row);
      csv << name << "," << v.name << "," << scope << "," << split << "," << metric << "," << number_text(value) << ","
          << number_text(change) << "," << number_text(v.distortion) << "\n";
    }
  };

  std::vector<std::pair<const models::Intervention*, std::vector<models::InterventionVariant>>> planned;
  std::vector<std::string> skipped;
  std::int64_t evaluations = 0;
  for (const auto* iv : interventions) {
    if (iv->needs_initial && state.initial.empty()) {
      skipped.push_back(iv->name + " (the checkpoint holds no epoch-0 PE)");
      continue;
    }
    auto variants = iv->make(state);
    evaluations +=
        static_cast<std::int64_t>(variants.size()) * (1 + (request.per_block && placements > 1 ? placements : 0));
    planned.emplace_back(iv, std::move(variants));
  }
  if (request.per_position) evaluations += s.data.plan.tokens;
  datasets::Progress progress(
      datasets::ProgressOptions("interventions", evaluations).unit("evaluations").enabled(request.progress));
  for (const auto& [iv, variants] : planned)
    for (const auto& v : variants) {
      s.learner.model->set_pe_matrices(v.tables);
      record(iv->name, v, "all", scorer());
      progress.advance();
      if (request.per_block && placements > 1)
        for (int64_t p = 0; p < placements; ++p) {
          auto tables = state.trained;
          tables[static_cast<size_t>(p)] = v.tables[static_cast<size_t>(p)];
          s.learner.model->set_pe_matrices(tables);
          record(iv->name, v, "block" + std::to_string(p), scorer());
          progress.advance();
        }
      s.learner.model->set_pe_matrices(state.trained);
    }

  // Which tokens' positions the model reads: each token's row zeroed alone, at every placement, on the first split.
  ordered_json per_position = nullptr;
  if (request.per_position) {
    const Scorer first{s, {scorer.splits.front()}};
    std::vector<double> change;
    for (int64_t t = 0; t < s.data.plan.tokens; ++t) {
      auto tables = state.trained;
      for (auto& m : tables) {
        m = m.clone();
        m[t].zero_();
      }
      s.learner.model->set_pe_matrices(tables);
      change.push_back(first().at(first.splits.front()) - baseline.at(first.splits.front()));
      progress.advance();
    }
    s.learner.model->set_pe_matrices(state.trained);
    per_position = {{"intervention", "zero_row"}, {"split", first.splits.front()}, {"change", change}};
  }
  progress.finish();

  ordered_json j;
  j["loci_interventions"] = 1;
  j["epoch"] = s.schedule.state.epoch;
  j["metric"] = metric;
  j["placements"] = placements;
  j["permutations"] = request.permutations;
  j["baseline"] = baseline;
  ordered_json docs = ordered_json::object();
  for (const auto& [iv, variants] : planned) docs[iv->name] = iv->doc;
  j["interventions"] = docs;
  j["skipped"] = skipped;
  j["results"] = results;
  j["per_position"] = per_position;
  datasets::write_file_atomically(s.folder.run / "interventions.csv", csv.str());
  datasets::write_file_atomically(s.folder.run / "interventions.json", j.dump(1) + "\n");
  if (request.progress)
    std::cerr << "loci: " << s.folder.run.string() << ": " << results.size()
              << " intervention scores in interventions.json"
              << (skipped.empty() ? "" : "; skipped: " + skipped.front()) << "\n";
}

}  // namespace loci::torch_trainer
