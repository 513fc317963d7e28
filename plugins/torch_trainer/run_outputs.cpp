#include "run_outputs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <sstream>

#include "datasets/array_file.hpp"
#include "datasets/atomic_file.hpp"
#include "models/init/init_registry.hpp"

namespace loci::torch_trainer {

namespace {

std::string condition_column(const std::string& name) {
  std::string s = "accuracy_";
  for (char c : name) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A value that may be negative (an R^2); NaN is an empty cell.
std::string signed_number(double v) {
  if (!std::isfinite(v)) return "";
  std::ostringstream s;
  s.precision(9);
  s << v;
  return s.str();
}

std::string number(double v) {
  if (v < 0) return "";  // not applicable: an empty CSV cell (NaN for pandas)
  std::ostringstream s;
  s.precision(9);
  s << v;
  return s.str();
}

template <class T>
datasets::Array array_of(const std::string& name, std::vector<std::string> dims, std::vector<std::int64_t> shape,
                         const std::vector<T>& v, const std::string& doc) {
  return datasets::Array::of(datasets::ArraySpec{name, datasets::dtype_of<T>(), std::move(dims), std::move(shape), doc},
                             v);
}

}  // namespace

nlohmann::ordered_json to_json(const MetricsRow& r, const std::vector<std::string>& names) {
  nlohmann::ordered_json j;
  j["epoch"] = r.epoch;
  j["step"] = r.step;
  j["seconds"] = r.seconds;
  j["lr"] = r.lr;
  j["split"] = r.metrics.split;
  j["samples"] = r.metrics.samples;
  j["loss"] = r.metrics.loss;
  if (r.metrics.accuracy >= 0) j["accuracy"] = r.metrics.accuracy;
  for (std::size_t c = 0; c < r.metrics.accuracy_by_condition.size() && c < names.size(); ++c)
    if (r.metrics.accuracy_by_condition[c] >= 0) j[condition_column(names[c])] = r.metrics.accuracy_by_condition[c];
  if (r.metrics.mse >= 0) j["mse"] = r.metrics.mse;
  if (r.metrics.mse_global_mean >= 0) {
    j["mse_global_mean"] = r.metrics.mse_global_mean;
    j["mse_token_mean"] = r.metrics.mse_token_mean;
    if (std::isfinite(r.metrics.r2_global_mean)) j["r2_global_mean"] = r.metrics.r2_global_mean;
    if (std::isfinite(r.metrics.r2_token_mean)) j["r2_token_mean"] = r.metrics.r2_token_mean;
  }
  if (r.metrics.mask_ratio >= 0) j["mask_ratio"] = r.metrics.mask_ratio;
  if (r.pe_norm >= 0) j["pe_norm"] = r.pe_norm;
  if (r.embedding_norm >= 0) j["embedding_norm"] = r.embedding_norm;
  j["by_condition"] = r.metrics.accuracy_by_condition;
  return j;
}

MetricsRow row_from_json(const nlohmann::ordered_json& j) {
  MetricsRow r;
  r.epoch = j.at("epoch").get<std::int64_t>();
  r.step = j.at("step").get<std::int64_t>();
  r.seconds = j.at("seconds").get<double>();
  r.lr = j.at("lr").get<double>();
  r.metrics.split = j.at("split").get<std::string>();
  r.metrics.samples = j.at("samples").get<std::int64_t>();
  r.metrics.loss = j.at("loss").get<double>();
  r.metrics.accuracy = j.value("accuracy", -1.0);
  r.metrics.mse = j.value("mse", -1.0);
  r.metrics.mse_global_mean = j.value("mse_global_mean", -1.0);
  r.metrics.mse_token_mean = j.value("mse_token_mean", -1.0);
  r.metrics.r2_global_mean = j.value("r2_global_mean", std::numeric_limits<double>::quiet_NaN());
  r.metrics.r2_token_mean = j.value("r2_token_mean", std::numeric_limits<double>::quiet_NaN());
  r.metrics.mask_ratio = j.value("mask_ratio", -1.0);
  r.pe_norm = j.value("pe_norm", -1.0);
  r.embedding_norm = j.value("embedding_norm", -1.0);
  r.metrics.accuracy_by_condition = j.at("by_condition").get<std::vector<double>>();
  return r;
}

void write_metrics(const std::filesystem::path& run, const std::vector<MetricsRow>& rows,
                   const std::vector<std::string>& names) {
  std::ostringstream csv, jsonl;
  // Masked regression's rows carry their baselines (classification's header stays as it was).
  const bool regression = std::any_of(rows.begin(), rows.end(), [](const MetricsRow& r) { return r.metrics.mse >= 0; });
  csv << "epoch,step,seconds,lr,split,samples,loss,accuracy";
  for (const auto& n : names) csv << "," << condition_column(n);
  csv << ",mse" << (regression ? ",mse_global_mean,mse_token_mean,r2_global_mean,r2_token_mean,mask_ratio" : "")
      << ",pe_norm,embedding_norm\n";
  for (const auto& r : rows) {
    csv << r.epoch << "," << r.step << "," << number(r.seconds) << "," << number(r.lr) << "," << r.metrics.split << ","
        << r.metrics.samples << "," << number(r.metrics.loss) << "," << number(r.metrics.accuracy);
    for (std::size_t c = 0; c < names.size(); ++c)
      csv << "," << (c < r.metrics.accuracy_by_condition.size() ? number(r.metrics.accuracy_by_condition[c]) : "");
    csv << "," << number(r.metrics.mse);
    if (regression)
      csv << "," << number(r.metrics.mse_global_mean) << "," << number(r.metrics.mse_token_mean) << ","
          << signed_number(r.metrics.r2_global_mean) << "," << signed_number(r.metrics.r2_token_mean) << ","
          << number(r.metrics.mask_ratio);
    csv << "," << number(r.pe_norm) << "," << number(r.embedding_norm) << "\n";
    auto j = to_json(r, names);
    j.erase("by_condition");
    jsonl << j.dump() << "\n";
  }
  datasets::write_file_atomically(run / "metrics.csv", csv.str());
  datasets::write_file_atomically(run / "metrics.jsonl", jsonl.str());
}

namespace {

// The [evaluation, ...] stack of one tensor per snapshot, as float32 values.
std::vector<float> stacked(const std::vector<const torch::Tensor*>& per_evaluation) {
  std::vector<float> values;
  for (const auto* t : per_evaluation) {
    const auto c = t->to(torch::kCPU, torch::kFloat32).contiguous();
    values.insert(values.end(), c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
  }
  return values;
}

void add_pe_tables(std::vector<datasets::Array>& arrays, const std::vector<PeSnapshot>& history,
                   const torch::Tensor& positions) {
  const auto evals = static_cast<std::int64_t>(history.size());
  const std::size_t placements = history.empty() ? 0 : history.front().matrices.size();
  for (std::size_t p = 0; p < placements; ++p) {
    const auto& first = history.front().matrices[p];
    if (!first.defined() || first.numel() == 0) continue;
    std::vector<std::int64_t> shape{evals};
    std::vector<std::string> dims{"evaluation"};
    // A [token, dim] table added to the input; anything else (a relative PE's [head, offset] biases, alibi's
    // [head, token, token]) gets axis names of its own.
    const bool table = first.dim() == 2 && first.size(0) == positions.size(0);
    for (std::int64_t d = 0; d < first.dim(); ++d) {
      shape.push_back(first.size(d));
      dims.push_back(table ? (d == 0 ? "token" : "dim") : "axis" + std::to_string(d));
    }
    std::vector<const torch::Tensor*> per;
    for (const auto& h : history) per.push_back(&h.matrices[p]);
    arrays.push_back(array_of("placement_" + std::to_string(p), dims, shape, stacked(per),
                              table ? "the [token, dim] PE this placement adds, at each evaluation"
                                    : "the PE's attention table at each evaluation"));
  }
}

// Only when every evaluation has the term (a run resumed from a checkpoint older than it has not).
void add_position_logits(std::vector<datasets::Array>& arrays, const std::vector<PeSnapshot>& history) {
  if (history.empty()) return;
  const std::size_t blocks = history.front().position_logits.size();
  for (const auto& h : history)
    if (h.position_logits.size() != blocks) return;
  for (std::size_t b = 0; b < blocks; ++b) {
    const auto& first = history.front().position_logits[b];
    if (first.numel() == 0 || first.dim() != 3) continue;
    std::vector<const torch::Tensor*> per;
    for (const auto& h : history) per.push_back(&h.position_logits[b]);
    arrays.push_back(array_of("position_logits_" + std::to_string(b), {"evaluation", "head", "query", "key"},
                              {static_cast<std::int64_t>(history.size()), first.size(0), first.size(1), first.size(2)},
                              stacked(per),
                              "the block's position-position attention term: its PE through its query and key "
                              "weights, (P Wq^T)(P Wk^T)^T / sqrt(d_head), per head"));
  }
}

}  // namespace

PeDescription describe_pe(const models::PEOptions& pe, models::Model& model) {
  PeDescription d;
  d.type = pe.type();
  d.placement = models::choice_name(pe.placement());
  d.init_std = pe.init() ? pe.init()->std() : 0.0;
  if (pe.init()) {
    d.init_name = pe.init()->name();
    const std::string& key = models::InitRegistry::scale_key(d.init_name);
    d.init_scale_key = key.empty() ? "" : "model.pe.init." + key;
    d.init_scale = models::init_scale(*pe.init());
  }
  const auto tables = model->pe_matrices();
  d.drawn = pe.init().has_value() && !tables.empty() && tables.front().dim() == 2 &&
            tables.front().size(0) == model->tokens();
  return d;
}

void write_pe_file(const std::filesystem::path& run, const std::vector<PeSnapshot>& history,
                   const torch::Tensor& positions, const PeDescription& pe) {
  std::vector<datasets::Array> arrays;
  const auto evals = static_cast<std::int64_t>(history.size());
  std::vector<std::int64_t> epochs, steps;
  for (const auto& h : history) {
    epochs.push_back(h.epoch);
    steps.push_back(h.step);
  }
  arrays.push_back(array_of("epoch", {"evaluation"}, {evals}, epochs, "epoch of each evaluation"));
  arrays.push_back(array_of("step", {"evaluation"}, {evals}, steps, "optimizer steps done at each evaluation"));
  add_pe_tables(arrays, history, positions);
  add_position_logits(arrays, history);
  const auto pos = positions.to(torch::kCPU, torch::kFloat32).contiguous();
  std::vector<float> pv(pos.data_ptr<float>(), pos.data_ptr<float>() + pos.numel());
  arrays.push_back(array_of("positions", {"token", "axis"}, {pos.size(0), pos.size(1)}, pv,
                            "true position of each token (from the dataset)"));
  const std::size_t placements = history.empty() ? 0 : history.front().matrices.size();
  datasets::Attributes attrs{{"pe_type", pe.type},
                             {"init_std", pe.init_std},
                             {"placement", pe.placement},
                             {"placements", static_cast<std::int64_t>(placements)},
                             {"drawn_from_init", static_cast<std::int64_t>(pe.drawn ? 1 : 0)},
                             {"init_name", pe.init_name},
                             {"init_scale_key", pe.init_scale_key},
                             {"init_scale", pe.init_scale}};
  datasets::write_array_file(run / "pe.h5", arrays, attrs);
}

void write_attention_file(const std::filesystem::path& run, const std::vector<PeSnapshot>& history,
                          const std::string& split, std::int64_t samples) {
  // Evaluations from before save_attention was turned on (a run resumed with it) have no maps.
  std::vector<const PeSnapshot*> with_maps;
  for (const auto& h : history)
    if (!h.attention.empty()) with_maps.push_back(&h);
  std::vector<datasets::Array> arrays;
  const auto evals = static_cast<std::int64_t>(with_maps.size());
  std::vector<std::int64_t> epochs, steps;
  for (const auto* h : with_maps) {
    epochs.push_back(h->epoch);
    steps.push_back(h->step);
  }
  arrays.push_back(array_of("epoch", {"evaluation"}, {evals}, epochs, "epoch of each evaluation"));
  arrays.push_back(array_of("step", {"evaluation"}, {evals}, steps, "optimizer steps done at each evaluation"));
  const std::size_t blocks = with_maps.empty() ? 0 : with_maps.front()->attention.size();
  for (std::size_t b = 0; b < blocks; ++b) {
    const auto& first = with_maps.front()->attention[b];
    std::vector<float> values;
    values.reserve(static_cast<std::size_t>(evals * first.numel()));
    for (const auto* h : with_maps) {
      const auto t = h->attention.at(b).to(torch::kCPU, torch::kFloat32).contiguous();
      values.insert(values.end(), t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
    }
    arrays.push_back(array_of("block_" + std::to_string(b), {"evaluation", "head", "query", "key"},
                              {evals, first.size(0), first.size(1), first.size(2)}, values,
                              "the block's attention weights averaged over the split's samples (rows sum to 1)"));
  }
  datasets::Attributes attrs{{"split", split}, {"samples", samples}, {"blocks", static_cast<std::int64_t>(blocks)}};
  datasets::write_array_file(run / "attention.h5", arrays, attrs);
}

}  // namespace loci::torch_trainer
