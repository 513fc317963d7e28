#include "apps/analysis/summary.hpp"
#include "apps/analysis/run_folder.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "apps/analysis/analyze_run.hpp"
#include "apps/analysis/csv_cells.hpp"
#include "apps/analysis/statistics.hpp"
#include "apps/analysis/trends.hpp"
#include "core/common_options.hpp"
#include "core/config/identity.hpp"
#include "core/config/options.hpp"
#include "core/config/yaml_io.hpp"
#include "datasets/atomic_file.hpp"
#include "probe/bootstrap.hpp"
#include "probe/correlation.hpp"
#include "probe/registry.hpp"

namespace loci::analysis {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The final probes the summary carries, in column order: the built-in ones, then every registered probe's outputs
// (probe/registry.hpp; an extension's too).
const std::vector<std::string>& probe_columns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> c = {"rsa_spearman",
                                  "rsa_hops_spearman",
                                  "procrustes_oracle_disparity",
                                  "procrustes_oracle_residual",
                                  "procrustes_coords_disparity",
                                  "decode_r2",
                                  "knn_overlap",
                                  "modularity",
                                  "norm_frobenius",
                                  "attention_cosine",
                                  "attention_cosine_uniform",
                                  "init_attention_cosine",
                                  "data_fc_distance_spearman",
                                  "data_fc_hops_spearman",
                                  "data_fc_mean",
                                  "data_fc_mean_neighbours"};
    for (const auto* p : probe::ProbeRegistry::instance().in_order())
      for (const auto& o : p->outputs)
        if (std::find(c.begin(), c.end(), o) == c.end()) c.push_back(o);
    // Each probe's controls: its permutation p-value, its value at initialisation, and on the displacement.
    c.push_back("rsa_p_value");
    // RSA with the task's own structure taken out (task_structure.hpp), and at initialisation.
    for (const char* k :
         {"rsa_no_readout_spearman", "rsa_no_readout_p_value", "partial_rsa_spearman", "partial_rsa_p_value"})
      c.push_back(k), c.push_back(std::string("init_") + k);
    // Where the geometry lives (attention_term.hpp) and when it appears (onset.hpp).
    for (const char* k : {"qk_rsa_spearman", "init_qk_rsa_spearman", "qk_rsa_p_value", "rsa_onset_epoch",
                          "qk_rsa_onset_epoch", "pe_to_embedding_norm"})
      c.push_back(k);
    for (const auto& n : baseline_probes()) c.push_back("init_" + n);
    for (const auto& n : baseline_probes()) c.push_back("draw_" + n);
    for (const auto& n : baseline_probes()) c.push_back("disp_" + n);
    // The displacement account (probe/displacement.hpp).
    for (const char* k : {"disp_norm_ratio", "disp_predicted_rsa", "disp_predicted_rsa_sd", "disp_kept_draw"})
      c.push_back(k);
    return c;
  }();
  return columns;
}

// The probes the summary also gives block by block ("<probe>_block<k>").
const std::vector<std::string>& block_probes() {
  static const std::vector<std::string> names{"rsa_spearman", "procrustes_oracle_disparity", "decode_r2"};
  return names;
}

double value_or_nan(const ordered_json& j, const std::string& key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : kNaN;
}

// One number per run, named "<split>_accuracy", "<split>_mse", "<split>_loss" or a probe name.
std::map<std::string, double> values_of(const ordered_json& a) {
  std::map<std::string, double> v;
  for (const auto& [split, m] : a["metrics"].items())
    for (const char* key :
         {"accuracy", "mse", "loss", "r2_token_mean", "r2_global_mean", "mse_token_mean", "mse_global_mean"})
      if (m.contains(key) && m[key].is_number()) v[split + "_" + key] = m[key].get<double>();
  for (const auto& p : probe_columns()) v[p] = value_or_nan(a["final"], p);
  // Every block's own probes beside their mean: a geometry in one block can hide in the mean of four.
  if (a.contains("evaluations") && a["evaluations"].is_array() && !a["evaluations"].empty() &&
      a["evaluations"].back().contains("placements"))
    for (const auto& p : a["evaluations"].back()["placements"])
      for (const auto& name : block_probes())
        v[name + "_block" + std::to_string(p["placement"].get<int>())] = value_or_nan(p, name);
  // Interventions (loci intervene): "<split>_<metric>_change_<intervention>", the change against the unchanged
  // model averaged over the intervention's variants, and "..._block<k>" for block k's PE changed alone.
  if (a.contains("interventions") && a["interventions"].is_object()) {
    std::map<std::string, std::pair<double, int>> sums;
    const std::string metric = a["interventions"].value("metric", "accuracy");
    for (const auto& r : a["interventions"]["results"]) {
      if (!r.contains("change") || !r["change"].is_number()) continue;
      const std::string scope = r.value("scope", "all");
      auto& [sum, n] = sums[r.value("split", "") + "_" + metric + "_change_" + r.value("intervention", "") +
                            (scope == "all" ? "" : "_" + scope)];
      sum += r["change"].get<double>();
      ++n;
    }
    for (const auto& [column, s] : sums) v[column] = s.first / s.second;
    // Each symmetry against its matched relabellings (the same tokens moved at random), averaged over the
    // symmetries: "<split>_<metric>_symmetry_minus_matched". Above 0 for accuracy (below for MSE): the symmetry,
    // which keeps the geometry, hurts less than moving the same tokens without it.
    std::map<std::string, std::map<std::string, double>> symmetry;                 // split -> symmetry -> change
    std::map<std::string, std::map<std::string, std::pair<double, int>>> matched;  // split -> symmetry -> sum, n
    for (const auto& r : a["interventions"]["results"]) {
      if (!r.contains("change") || !r["change"].is_number() || r.value("scope", "all") != "all") continue;
      const std::string variant = r.value("variant", ""), split = r.value("split", "");
      const auto colon = variant.find(':');
      if (colon == std::string::npos) continue;
      if (r.value("intervention", "") == "permute_symmetry") symmetry[split][variant.substr(colon + 1)] = r["change"];
      if (r.value("intervention", "") == "permute_matched") {
        auto& [sum, n] = matched[split][variant.substr(colon + 1, variant.rfind('#') - colon - 1)];
        sum += r["change"].get<double>();
        ++n;
      }
    }
    for (const auto& [split, changes] : symmetry) {
      double total = 0;
      int count = 0;
      for (const auto& [name, change] : changes)
        if (const auto it = matched[split].find(name); it != matched[split].end() && it->second.second > 0)
          total += change - it->second.first / it->second.second, ++count;
      if (count > 0) v[split + "_" + metric + "_symmetry_minus_matched"] = total / count;
    }
  }
  // The robustness test: "<split>_accuracy_noise<sd>" (or _mse_noise<sd>) for each noise sd.
  if (a.contains("robustness"))
    for (const auto& r : a["robustness"])
      for (const char* key : {"accuracy", "mse"})
        if (r.contains(key) && r[key].is_number())
          v[r["split"].get<std::string>() + "_" + key + "_noise" + config::default_text(r["noise_std"].get<double>())] =
              r[key].get<double>();
  return v;
}

struct Stat {
  double mean = kNaN, sd = kNaN;
  int n = 0;
  probe::Interval ci{kNaN, kNaN};  // 95% percentile bootstrap of the mean over seeds (2000 resamples)
};

Stat stat_of(const std::vector<double>& xs) {
  Stat s;
  double sum = 0;
  for (double x : xs)
    if (std::isfinite(x)) sum += x, ++s.n;
  if (s.n == 0) return s;
  s.mean = sum / s.n;
  double ss = 0;
  for (double x : xs)
    if (std::isfinite(x)) ss += (x - s.mean) * (x - s.mean);
  s.sd = s.n > 1 ? std::sqrt(ss / (s.n - 1)) : 0.0;
  std::vector<double> finite;
  for (double x : xs)
    if (std::isfinite(x)) finite.push_back(x);
  s.ci = probe::bootstrap_mean_ci(finite, 2000, 0.95, 0);
  return s;
}

// Metric columns: accuracies and MSEs of every split first (sorted by split), then losses, then the probes.
std::vector<std::string> columns_of(const std::vector<std::map<std::string, double>>& runs) {
  std::vector<std::string> task, loss, blocks;
  for (const auto& r : runs)
    for (const auto& [k, v] : r) {
      if (std::find(probe_columns().begin(), probe_columns().end(), k) != probe_columns().end()) continue;
      auto& list = k.find("_block") != std::string::npos                      ? blocks
                   : k.size() > 5 && k.compare(k.size() - 5, 5, "_loss") == 0 ? loss
                                                                              : task;
      if (std::find(list.begin(), list.end(), k) == list.end()) list.push_back(k);
    }
  std::sort(task.begin(), task.end());
  std::sort(loss.begin(), loss.end());
  std::sort(blocks.begin(), blocks.end());
  std::vector<std::string> cols = task;
  cols.insert(cols.end(), loss.begin(), loss.end());
  cols.insert(cols.end(), probe_columns().begin(), probe_columns().end());
  cols.insert(cols.end(), blocks.begin(), blocks.end());
  return cols;
}

struct Group {
  ordered_json run;  // identity of the first run
  std::vector<std::map<std::string, double>> values;
  std::vector<std::int64_t> seeds;
  std::set<std::string> datasets;
};

std::string pm(const Stat& s, int precision) {
  if (s.n == 0) return "n/a";
  std::ostringstream o;
  o << std::fixed << std::setprecision(precision) << s.mean;
  if (s.n > 1) o << " ± " << s.sd;
  return o.str();
}

bool is_percentage(const std::string& col) {
  return col.size() > 9 && col.compare(col.size() - 9, 9, "_accuracy") == 0;
}

// A run's identity.json, or null where it has none or it is damaged.
nlohmann::json identity_record(const ordered_json& run) {
  const auto text = run_file(fs::path(run["folder"].get<std::string>()), "identity.json");
  if (!text) return nullptr;
  try {
    return nlohmann::json::parse(*text);
  } catch (const nlohmann::json::exception&) {
    return nullptr;
  }
}

// The keys no identity holds, as the runs' own identity.json records them (the trainer's option table marks them);
// where none records it, those the shared trainer vocabulary marks (core/common_options.cpp).
std::vector<std::string> keys_outside_identity(const std::vector<nlohmann::json>& identities) {
  for (const auto& id : identities)
    if (id.is_object() && id.contains("outside_identity") && id["outside_identity"].is_array())
      return id["outside_identity"].get<std::vector<std::string>>();
  return trainer_common_schema().outside_identity();
}

bool has_identity_keys(const nlohmann::json& identity) {
  return identity.is_object() && identity.contains("keys") && identity["keys"].is_object();
}

// The settings a run's results depend on, seed aside (a group is summarised over seeds), plus train.epochs, which
// identity compares on its own: the keys of its identity.json (which the option tables decide: no thread counts,
// checkpoint cadence, keys that do not apply), or, with `from_config`, its config.yaml less the keys `outside` no
// identity holds. Runs are compared in one of the two forms, never a mix: an identity leaves out keys that do not
// apply and spells values as typed, so the two forms of one setting differ.
config::FlatConfig settings_of(const ordered_json& run, const nlohmann::json& identity, bool from_config,
                               const std::vector<std::string>& outside, bool pool_datasets) {
  const fs::path folder = fs::path(run["folder"].get<std::string>());
  std::error_code ec;
  const bool has_config = fs::exists(folder / "config.yaml", ec);
  config::FlatConfig out;
  if (!from_config) {
    for (const auto& [k, v] : identity["keys"].items()) out[k] = v.is_string() ? v.get<std::string>() : v.dump();
  } else if (has_config) {
    out = config::flatten(config::without(run_config(folder), outside));
  } else {
    return {};
  }
  out.erase("seed");
  if (pool_datasets) out.erase("data.shards_sha256"), out.erase("data");
  if (has_config)
    if (const auto* epochs = run_config(folder).find_path("train.epochs")) out["train.epochs"] = epochs->text();
  return out;
}

// The keys whose values are not the same in every run.
std::vector<std::string> varying_keys(const std::vector<config::FlatConfig>& settings) {
  std::map<std::string, std::set<std::string>> values;
  std::size_t known = 0;
  for (const auto& s : settings) {
    known += !s.empty();
    for (const auto& [k, v] : s) values[k].insert(v);
  }
  std::vector<std::string> out;
  for (const auto& [k, vs] : values) {
    std::size_t present = 0;
    for (const auto& s : settings) present += s.count(k);
    if (vs.size() > 1 || present != known) out.push_back(k);
  }
  return out;
}

std::string setting(const config::FlatConfig& s, const std::string& key) {
  const auto it = s.find(key);
  return it == s.end() ? "" : it->second;
}

}  // namespace

namespace {

// Every run's numbers and settings, the columns they fill and the settings that vary between runs.
struct Table {
  std::vector<ordered_json> runs;  // each analysis's "run" block
  std::vector<std::map<std::string, double>> values;
  std::vector<config::FlatConfig> settings;
  std::vector<std::string> columns, varying;
  std::vector<std::string> names;  // each run's group name
  std::size_t datasets = 0;        // how many datasets the runs were trained on
  std::vector<RunRecord> records;  // for the statistics, once named
};

Table gather(const std::vector<ordered_json>& analyses, bool pool_datasets) {
  Table t;
  std::vector<nlohmann::json> identities;
  for (const auto& a : analyses) identities.push_back(identity_record(a["run"]));
  // A run without identity.json (made by a loci before it recorded one, or an analysis handed in alone) puts every
  // run on its config.
  const bool from_config = !std::all_of(identities.begin(), identities.end(), has_identity_keys);
  const std::vector<std::string> outside = keys_outside_identity(identities);
  for (std::size_t i = 0; i < analyses.size(); ++i) {
    t.runs.push_back(analyses[i]["run"]);
    t.values.push_back(values_of(analyses[i]));
    t.settings.push_back(settings_of(analyses[i]["run"], identities[i], from_config, outside, pool_datasets));
  }
  t.columns = columns_of(t.values);
  t.varying = varying_keys(t.settings);
  std::set<std::string> data;
  for (const auto& run : t.runs)
    if (run.contains("data")) data.insert(run["data"].get<std::string>());
  t.datasets = data.size();
  return t;
}

using Bucket = std::tuple<std::string, double, std::string>;  // PE type, sigma (-1 when not drawn), group name

Bucket bucket_of(const ordered_json& r, const std::string& group) {
  const double sigma = r["drawn"].get<bool>() ? r["sigma"].get<double>() : -1.0;
  return Bucket{r["pe_type"].get<std::string>(), sigma, group};
}

// Runs are grouped by every setting that differs between them, seed aside. A group's name is its PE's (type,
// init) plus, where that does not already tell groups apart, the other settings that do ("train.lr=0.01").
void name_groups(Table& t) {
  std::map<Bucket, std::map<std::string, std::set<std::string>>> within;
  for (std::size_t i = 0; i < t.runs.size(); ++i)
    for (const auto& k : t.varying)
      within[bucket_of(t.runs[i], t.runs[i]["group"].get<std::string>())][k].insert(setting(t.settings[i], k));
  t.names.resize(t.runs.size());
  for (std::size_t i = 0; i < t.runs.size(); ++i) {
    const std::string pe_group = t.runs[i]["group"].get<std::string>();
    t.names[i] = pe_group;
    for (const auto& k : t.varying)
      if (within[bucket_of(t.runs[i], pe_group)][k].size() > 1) t.names[i] += " " + k + "=" + setting(t.settings[i], k);
  }
}

// runs.csv: one row per run, with a column for every setting that varies.
void write_runs_csv(const Table& t, const fs::path& folder) {
  std::ostringstream runs;
  runs << "folder,group,pe_type,placement,init,sigma,seed,partial,last_epoch";
  for (const auto& k : t.varying) runs << "," << csv_text(k);
  for (const auto& c : t.columns) runs << "," << c;
  runs << "\n";
  for (std::size_t i = 0; i < t.runs.size(); ++i) {
    const auto& r = t.runs[i];
    runs << csv_text(r["folder"].get<std::string>()) << "," << csv_text(t.names[i]) << ","
         << r["pe_type"].get<std::string>() << "," << r["placement"].get<std::string>() << ","
         << csv_text(r["init"].get<std::string>()) << "," << csv_number(r["sigma"].get<double>()) << ","
         << r["seed"].get<std::int64_t>() << ","
         << csv_text(r.contains("partial") && r["partial"].is_string() ? r["partial"].get<std::string>() : "") << ","
         << csv_number(t.records[i].last_epoch);
    for (const auto& k : t.varying) runs << "," << csv_text(setting(t.settings[i], k));
    for (const auto& c : t.columns) runs << "," << csv_number(t.values[i].count(c) ? t.values[i].at(c) : kNaN);
    runs << "\n";
  }
  datasets::write_file_atomically(folder / "runs.csv", runs.str());
}

// The groups, ordered by PE type, sigma and name.
std::map<Bucket, Group> groups_of(const Table& t) {
  std::map<Bucket, Group> groups;
  for (std::size_t i = 0; i < t.runs.size(); ++i) {
    Group& g = groups[bucket_of(t.runs[i], t.names[i])];
    if (g.values.empty()) {
      g.run = t.runs[i];
      g.run["group"] = t.names[i];
    }
    g.values.push_back(t.values[i]);
    g.seeds.push_back(t.runs[i]["seed"].get<std::int64_t>());
    if (t.runs[i].contains("data")) g.datasets.insert(t.runs[i]["data"].get<std::string>());
  }
  return groups;
}

std::map<std::string, Stat> stats_of(const Group& g, const std::vector<std::string>& columns) {
  std::map<std::string, Stat> stats;
  for (const auto& c : columns) {
    std::vector<double> xs;
    for (const auto& v : g.values) xs.push_back(v.count(c) ? v.at(c) : kNaN);
    stats[c] = stat_of(xs);
  }
  return stats;
}

// The columns summary.md shows (summary.csv has every one).
std::vector<std::string> shown_columns(const std::vector<std::string>& columns) {
  std::vector<std::string> shown;
  for (const auto& c : columns)
    if (is_percentage(c) || (c.find("_mse") != std::string::npos && c.find("_mean") == std::string::npos) ||
        c.find("_r2_token_mean") != std::string::npos || c == "rsa_spearman" || c == "procrustes_oracle_disparity" ||
        c == "procrustes_coords_disparity" || c == "decode_r2" || c == "knn_overlap" || c == "disp_norm_ratio" ||
        c == "disp_predicted_rsa")
      shown.push_back(c);
  return shown;
}

std::string md_header(std::size_t runs, std::size_t pooled_datasets, const std::vector<std::string>& columns,
                      const std::vector<std::string>& shown) {
  std::ostringstream md;
  md << "# Summary of " << runs << " runs\n\n"
     << "Mean ± sd over seeds"
     << (pooled_datasets > 1 ? " and the " + std::to_string(pooled_datasets) + " datasets, pooled," : "")
     << " of the last evaluation"
     << (std::any_of(columns.begin(), columns.end(), is_percentage) ? ", accuracies in %" : "")
     << ". Probes of the PE averaged over its blocks: "
        "RSA = Spearman between PE and true distances, Procrustes = disparity to the oracle (sinusoids of the true "
        "positions) and to the true coordinates (0 = same shape), R² = cross-validated linear decoding of the "
        "coordinates.\n\n";
  md << "| PE | runs |";
  for (const auto& c : shown) md << " " << c << " |";
  md << "\n|---|---|";
  for (std::size_t i = 0; i < shown.size(); ++i) md << "---|";
  md << "\n";
  return md.str();
}

// The paper's two correlations across sigma (Procrustes distance to the oracle with accuracy, rho = -0.98;
// attention cosine to the 2d-fixed models with accuracy, rho = 0.96), over the groups of drawn PEs, on the raw PE
// and on its displacement, scale-free and raw, beside the norm-only control: where the raw residual tracks
// accuracy no better than a random PE of the same norm does, the correlation is the PE's size, not its shape.
const std::vector<std::string>& correlated_statistics() {
  static const std::vector<std::string> s{"procrustes_oracle_disparity",
                                          "procrustes_oracle_residual",
                                          "control_procrustes_oracle_residual",
                                          "disp_procrustes_oracle_disparity",
                                          "disp_procrustes_oracle_residual",
                                          "rsa_spearman",
                                          "disp_rsa_spearman",
                                          "rsa_fc_spearman",
                                          "decode_r2",
                                          "attention_cosine",
                                          "norm_frobenius"};
  return s;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Every split's accuracy, in the columns' order.
std::vector<std::string> accuracy_metrics(const std::vector<std::string>& columns) {
  std::vector<std::string> task;
  for (const auto& c : columns)
    if (is_percentage(c)) task.push_back(c);
  return task;
}

// The held-out MSE of every split but the training one, at each mask ratio.
std::vector<std::string> held_out_mse_metrics(const std::vector<std::string>& columns) {
  std::vector<std::string> task;
  for (const auto& c : columns)
    if (ends_with(c, "_mse") && c.rfind("train_", 0) != 0 && c.rfind("train@", 0) != 0) task.push_back(c);
  return task;
}

// The task columns the statistics are correlated with: every split's accuracy, or for masked regression (no
// accuracy) the held-out MSEs.
std::vector<std::string> task_metrics(const std::vector<std::string>& columns) {
  const auto accuracy = accuracy_metrics(columns);
  return accuracy.empty() ? held_out_mse_metrics(columns) : accuracy;
}

// Unfinished runs scored on purpose (analyze.include_partial): named with the epoch each reached, below the table
// they are averaged into.
std::string partial_note(const Table& t) {
  std::string list;
  for (std::size_t i = 0; i < t.runs.size(); ++i)
    if (t.runs[i].contains("partial") && t.runs[i]["partial"].is_string())
      list += std::string(list.empty() ? "" : "; ") + t.runs[i]["folder"].get<std::string>() + " at epoch " +
              csv_number(t.records[i].last_epoch) + " (" + t.runs[i]["partial"].get<std::string>() + ")";
  return list.empty() ? "" : "\n**Partial runs, not finished, scored at their last evaluation:** " + list + ".\n";
}

// Each run as the statistics see it: its group, what pairs it with runs of other groups (its dataset and PE
// draw), its numbers and its onsets.
std::vector<RunRecord> records_of(const Table& t, const std::vector<ordered_json>& analyses) {
  std::vector<RunRecord> records;
  for (std::size_t i = 0; i < t.runs.size(); ++i) {
    const ordered_json& run = t.runs[i];
    RunRecord r;
    r.group = t.names[i];
    const ordered_json draw = run.contains("pe_draw") ? run["pe_draw"] : run["seed"];
    r.pairing = (run.contains("data") ? run["data"].get<std::string>() : std::string()) + "|" +
                (draw.is_string() ? draw.get<std::string>() : draw.dump());
    r.drawn = run["drawn"].get<bool>();
    r.values = t.values[i];
    for (const auto& k : t.varying) r.settings[k] = setting(t.settings[i], k);
    const ordered_json& a = analyses[i];
    const ordered_json& evaluations = a.contains("evaluations") ? a["evaluations"] : ordered_json();
    if (!evaluations.is_array() || evaluations.empty()) {
      records.push_back(r);
      continue;
    }
    r.last_epoch = evaluations.back()["epoch"].get<double>();
    // Onsets are measured only against an evaluation at epoch 0; where one was, a run without an onset is censored.
    // A run restored from a bundle has only its first and last evaluations: no onset is measured from it.
    const bool measurable = evaluations.front()["epoch"].get<double>() == 0 && !a["run"].contains("abridged_history");
    for (const auto& [stat, key] :
         {std::pair<std::string, std::string>{"rsa", "rsa_onset_epoch"}, {"qk_rsa", "qk_rsa_onset_epoch"}}) {
      const ordered_json& f = a["final"];
      if (!measurable || !f.is_object() || !f.contains(key)) continue;
      r.onset[stat] = f[key].is_number() ? f[key].get<double>() : kNaN;
    }
    records.push_back(r);
  }
  return records;
}

// The metrics a trend is tested on: the held-out ones, and of those the test split's where there is one, since the
// validation split measures the same thing on fewer samples and would only enlarge Holm's family.
std::vector<std::string> trend_metrics(const std::vector<std::string>& compared) {
  auto split_of = [](const std::string& c) { return c.substr(0, c.find_first_of("_@")); };
  bool has_test = false;
  for (const auto& c : compared) has_test |= split_of(c) == "test";
  std::vector<std::string> out;
  for (const auto& c : compared)
    if (split_of(c) != "train" && !(has_test && split_of(c) == "validation")) out.push_back(c);
  return out;
}

// summary.md's statistics: comparisons between groups, trends along a swept number, correlations with the task
// over runs, onsets.
std::string statistics_sections(const Table& t, const std::vector<std::string>& groups, const fs::path& folder,
                                bool one_setting) {
  if (t.columns.empty()) return "";
  const std::vector<std::string> task = task_metrics(t.columns);
  const bool accuracy = !task.empty() && is_percentage(task.front());
  // Compared: both tasks' metrics where a sweep trains both (each among the groups that have it), then RSA.
  std::vector<std::string> compared = accuracy_metrics(t.columns);
  for (const auto& c : held_out_mse_metrics(t.columns)) compared.push_back(c);
  compared.push_back("rsa_spearman");
  return write_comparisons(groups, t.records, compared, folder, one_setting) +
         write_trends(t.records, trend_metrics(compared), folder) +
         write_correlations(t.records, correlated_statistics(), task, accuracy, folder) +
         write_onsets(groups, t.records, folder);
}

// summary.csv (every column, mean and sd per group) and summary.md (the main columns, and the correlation).
void write_group_tables(const Table& t, const fs::path& folder, bool one_setting, bool pooled) {
  const std::vector<std::string> shown = shown_columns(t.columns);
  std::ostringstream csv, md;
  csv << "group,pe_type,placement,init,sigma,runs,seeds,datasets";
  for (const auto& c : t.columns) csv << "," << c << "_mean," << c << "_sd," << c << "_ci_low," << c << "_ci_high";
  csv << "\n";
  md << md_header(t.runs.size(), pooled ? t.datasets : 0, t.columns, shown);
  std::vector<std::string> order;
  for (const auto& [key, g] : groups_of(t)) {
    order.push_back(g.run["group"].get<std::string>());
    std::string seeds;
    for (std::size_t i = 0; i < g.seeds.size(); ++i) seeds += (i ? " " : "") + std::to_string(g.seeds[i]);
    const auto stats = stats_of(g, t.columns);
    csv << csv_text(g.run["group"].get<std::string>()) << "," << g.run["pe_type"].get<std::string>() << ","
        << g.run["placement"].get<std::string>() << "," << csv_text(g.run["init"].get<std::string>()) << ","
        << (g.run["drawn"].get<bool>() ? csv_number(g.run["sigma"].get<double>()) : "") << "," << g.values.size() << ","
        << seeds << "," << g.datasets.size();
    for (const auto& c : t.columns) {
      const Stat& st = stats.at(c);
      csv << "," << csv_number(st.mean) << "," << csv_number(st.sd) << "," << csv_number(st.ci.low) << ","
          << csv_number(st.ci.high);
    }
    csv << "\n";
    md << "| " << g.run["group"].get<std::string>() << " | " << g.values.size() << " |";
    for (const auto& c : shown) {
      Stat s = stats.at(c);
      if (is_percentage(c)) s.mean *= 100, s.sd *= 100;
      md << " " << pm(s, is_percentage(c) ? 1 : 3) << " |";
    }
    md << "\n";
  }
  md << partial_note(t) << statistics_sections(t, order, folder, one_setting);
  datasets::write_file_atomically(folder / "summary.csv", csv.str());
  datasets::write_file_atomically(folder / "summary.md", md.str());
}

}  // namespace

void write_summary(const std::vector<ordered_json>& analyses, const fs::path& folder, Comparisons comparisons,
                   bool pool_datasets) {
  Table t = gather(analyses, pool_datasets);
  name_groups(t);
  t.records = records_of(t, analyses);
  write_runs_csv(t, folder);
  write_group_tables(t, folder, comparisons == Comparisons::one_setting, pool_datasets);
}

}  // namespace loci::analysis
