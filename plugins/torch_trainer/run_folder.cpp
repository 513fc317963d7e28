#include "run_folder.hpp"

#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/config/options.hpp"
#include "core/config/yaml_io.hpp"
#include "core/error.hpp"
#include "core/provenance.hpp"
#include "datasets/atomic_file.hpp"
#include "datasets/checksum.hpp"
#include "numerics_summary.hpp"
#include "run_outputs.hpp"

namespace loci::torch_trainer {

namespace fs = std::filesystem;

namespace {

// A new or continued run records what it is made from.
void write_record(Session& s, const config::Identity& identity, const ResumePlan& plan) {
  if (!s.process.lead || (plan.finished && !plan.extend)) return;
  datasets::write_file_atomically(s.folder.run / "config.yaml", config::to_yaml(s.folder.recorded));
  write_identity(s.folder.run, identity);
  if (plan.extend) fs::remove(s.folder.run / "summary.json");  // running again until it finishes anew
}

}  // namespace

std::string describe_plan(const config::Node& resolved, TrainOptions opt, const plugins::TrainRequest& request) {
  fs::path run = opt.out;
  if (!fs::exists(fs::path(opt.data) / "index.json"))
    return run.string() + ": " +
           (fs::exists(run / "summary.json") ? "finished; its data " + opt.data + " are not there to check it against"
                                             : "new (its data " + opt.data + " are not made yet)");
  const datasets::Dataset ds = datasets::Dataset::open(opt.data);
  const config::Identity identity = run_identity(recorded_config(resolved, opt), ds);
  bool resume = request.resume;
  if (opt.on_other_settings == OnOtherSettings::new_folder && made_otherwise(run, identity)) {
    run = run.string() + "@" + identity.hash.substr(0, 8);
    opt.out = run.string();
    resume = true;
  }
  try {
    const ResumePlan p = plan_resume(run, identity, opt, resume);
    if (p.fresh) return run.string() + ": new, " + std::to_string(opt.epochs) + " epochs";
    if (!p.finished) return run.string() + ": interrupted; continues from its last checkpoint";
    if (p.extend)
      return run.string() + ": finished at epoch " + std::to_string(p.done_epochs) + "; continues to epoch " +
             std::to_string(opt.epochs);
    return run.string() + ": finished; kept";
  } catch (const UserError& e) {
    return std::string(kRefused) + e.what();
  }
}

void claim_run_folder(Session& s) {
  s.folder.run = s.opt.out;
  s.folder.last = s.folder.run / "checkpoints" / "last.pt";
  if (!s.process.lead) return;
  datasets::make_own_subfolder(s.folder.run / "checkpoints");
  s.folder.claim = std::make_unique<datasets::FolderLock>(s.folder.run);
  for (const fs::path dir : {s.folder.run, s.folder.run / "checkpoints"}) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.size() > 4 && name[0] == '.' && name.compare(name.size() - 4, 4, ".tmp") == 0)
        fs::remove(it->path(), ec);
    }
  }
}

ResumePlan check_identity(Session& s, const config::Node& resolved, const plugins::TrainRequest& request) {
  s.folder.recorded = recorded_config(resolved, s.opt);
  const config::Identity identity = run_identity(s.folder.recorded, *s.data.ds);
  s.folder.identity = identity;
  if (s.process.dp) s.process.dp->agree(identity);  // before any rank reads or writes the folder under its own settings
  if (s.opt.on_other_settings == OnOtherSettings::new_folder && made_otherwise(s.folder.run, identity)) {
    // Asked for: these settings get a folder of their own beside the other run, found again on a rerun.
    s.opt.out = s.folder.run.string() + "@" + identity.hash.substr(0, 8);
    if (s.process.lead)
      std::cerr << "loci: " << s.folder.run.string() << " holds a run made otherwise; training into " << s.opt.out
                << "\n";
    claim_run_folder(s);
    s.folder.recorded = recorded_config(resolved, s.opt);
    const ResumePlan plan = plan_resume(s.folder.run, identity, s.opt, true);
    write_record(s, identity, plan);
    return plan;
  }
  const ResumePlan plan = plan_resume(s.folder.run, identity, s.opt, request.resume);
  write_record(s, identity, plan);
  return plan;
}

void use_checkpoint(Session& s, const std::string& from) {
  if (!fs::is_regular_file(from)) throw UserError("--from " + from + ": no such checkpoint file");
  // Another run's checkpoint would continue that run's state under this run's identity: a silent mix-up.
  std::error_code ec;
  if (fs::weakly_canonical(fs::path(from).parent_path(), ec) != fs::weakly_canonical(s.folder.run / "checkpoints", ec))
    throw UserError("--from " + from + ": not a checkpoint of this run (" + (s.folder.run / "checkpoints").string() +
                    "); continue a run from its own checkpoints");
  s.folder.last_source = from;
  if (s.process.lead) fs::remove(s.folder.run / "summary.json");
}

void write_robustness(Session& s) {
  if (s.opt.robustness_noise.empty()) return;
  std::ostringstream csv;
  csv << "split,noise_std,samples,loss,accuracy,mse\n";
  for (const auto& split : s.data.eval_splits)
    for (const double sd : s.opt.robustness_noise) {
      const SplitMetrics m = evaluate(s.learner.model, *s.data.ds, split, s.data.plan, s.opt.eval_batch_size,
                                      s.opt.seed, *s.learner.micro, -1, s.data.means, sd);
      auto cell = [](double v) { return v < 0 ? std::string() : config::default_text(v); };
      csv << split << "," << config::default_text(sd) << "," << m.samples << "," << cell(m.loss) << ","
          << cell(m.accuracy) << "," << cell(m.mse) << "\n";
    }
  datasets::write_file_atomically(s.folder.run / "robustness.csv", csv.str());
}

void write_summary(const Session& s, const std::string& status) {
  const TrainOptions& opt = s.opt;
  const RunState& state = s.schedule.state;
  const auto& pe = s.learner.mopt.encoder().pe();
  nlohmann::ordered_json j;
  j["status"] = status;
  j["epochs"] = state.epoch;
  j["steps"] = state.step;
  j["train_seconds"] = state.seconds;
  j["samples_per_second"] = state.seconds > 0 ? static_cast<double>(state.step * opt.batch_size) / state.seconds : 0.0;
  j["seed"] = opt.seed;
  j["pe_draw"] = effective_pe_draw(opt, s.folder.identity);
  j["precision"] = choice_name(opt.precision);
  j["micro_batches"] = opt.micro_batches;
  j.update(numerics_summary(opt.precision, fused_products(opt)));
  j["data"] = s.folder.recorded.at("data").text();
  j["task"] = task_record(s.data.plan);
  j["pe"] = {{"type", pe.type()},
             {"placement", models::choice_name(pe.placement())},
             {"init", pe.init() ? pe.init()->name() : ""},
             {"init_std", pe.init() ? pe.init()->std() : 0.0}};
  j["batches_per_epoch"] = s.schedule.per_epoch;
  nlohmann::ordered_json final_metrics = nlohmann::ordered_json::object();
  if (!state.rows.empty()) {
    const auto last_epoch = state.rows.back().epoch;
    for (const auto& r : state.rows)
      if (r.epoch == last_epoch) {
        auto m = to_json(r, {});
        m.erase("epoch");
        m.erase("split");
        final_metrics[r.metrics.split] = m;
      }
  }
  j["final"] = final_metrics;
  datasets::write_file_atomically(s.folder.run / "summary.json", j.dump(2) + "\n");
}

void write_provenance(const Session& s, const std::string& status) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  if (std::ifstream in(s.folder.run / "provenance.json"); in) {
    try {
      all = nlohmann::ordered_json::parse(in);
      if (!all.is_array()) all = nlohmann::ordered_json::array();
    } catch (const std::exception&) {
      all = nlohmann::ordered_json::array();  // unreadable: start the record anew rather than stop a run
    }
  }
  nlohmann::ordered_json p = provenance(true);
  p["started"] = s.process.started_at;
  p["ended"] = utc_now();
  p["status"] = status;
  p["epochs_done"] = s.schedule.state.epoch;
  p["data"] = s.folder.recorded.at("data").text();
  const fs::path index = fs::path(s.folder.recorded.at("data").text()) / "index.json";
  std::error_code ec;
  if (fs::is_regular_file(index, ec)) p["data_index_sha256"] = datasets::sha256_file(index);
  all.push_back(p);
  datasets::write_file_atomically(s.folder.run / "provenance.json", all.dump(2) + "\n");
}

}  // namespace loci::torch_trainer
