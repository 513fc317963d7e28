#include "apps/pipeline/stage_schemas.hpp"

#include <string>
#include <vector>

#include "apps/analysis/analyze_options.hpp"
#include "core/config/options.hpp"

namespace loci::apps {

namespace {

// A pipeline file's own keys; each stage is read as any value here and resolved against its own schema later.
struct PipelineKeys {
  std::string out;
  config::Node generate, train, analyze, report;
  std::vector<std::string> plugin_path, plugin_override;
};

config::OptionTable<PipelineKeys> make_pipeline_keys() {
  config::OptionTable<PipelineKeys> t;
  using P = PipelineKeys;
  t.add("out", [](P& p) -> std::string& { return p.out; })
      .path()
      .required()
      .doc("pipeline folder: every stage writes below it");
  t.add("generate", [](P& p) -> config::Node& { return p.generate; })
      .any()
      .doc(
          "generator config (see `loci config schema GENERATOR`); out defaults to <out>/data. With `sweep:` "
          "([seed=0,1,2]) one dataset per point, each in <out>/data/<point>, and the train stage's grid runs on each");
  t.add("train", [](P& p) -> config::Node& { return p.train; })
      .any()
      .doc(
          "training config (see `loci config schema TRAINER`) plus `sweep:` (one grid [key=v1,v2, ...] or a list of "
          "grids, run as their union); data defaults to the generate stage's out, out to <out>/runs");
  t.add("analyze", [](P& p) -> config::Node& { return p.analyze; })
      .any()
      .doc(
          "analysis of the trained runs (`loci analyze`): {runs, out, metric, knn, mds_dims, attention_reference}; "
          "runs default to the train stage's out, out to <out>/analysis");
  t.add("report", [](P& p) -> config::Node& { return p.report; })
      .any()
      .doc("report of the analysis (`loci report`): {out}; out defaults to <out>/report");
  t.add("plugin_path", [](P& p) -> std::vector<std::string>& { return p.plugin_path; })
      .path()
      .doc("extra folders searched for plugins");
  t.add("plugin_override", [](P& p) -> std::vector<std::string>& { return p.plugin_override; })
      .doc(
          "plugin names that more than one library may provide, the first found on the search path winning; any "
          "other name found twice is an error");
  return t;
}

// Where an analyze stage reads and writes; its options are the analysis's own (apps/analysis/analyze_options.cpp).
struct AnalyzeFolders {
  std::vector<std::string> runs;
  std::string out;
};

config::OptionTable<AnalyzeFolders> make_analyze_folders() {
  config::OptionTable<AnalyzeFolders> t;
  t.add("runs", [](AnalyzeFolders& a) -> std::vector<std::string>& { return a.runs; })
      .path()
      .doc("run folders or folders holding runs; [] = the train stage's out");
  t.add("out", [](AnalyzeFolders& a) -> std::string& { return a.out; })
      .path()
      .doc("folder of summary.csv / summary.md / runs.csv; empty = <pipeline out>/analysis");
  return t;
}

struct ReportFolder {
  std::string out;
};

config::OptionTable<ReportFolder> make_report_folder() {
  config::OptionTable<ReportFolder> t;
  t.add("out", [](ReportFolder& r) -> std::string& { return r.out; })
      .path()
      .doc("folder of report.html and figures/; empty = <pipeline out>/report");
  return t;
}

}  // namespace

const config::Schema& pipeline_schema() {
  static const config::Schema s = config::Schema::parse(make_pipeline_keys().schema(), "pipeline schema");
  return s;
}

const config::Schema& analyze_stage_schema() {
  static const config::Schema s = config::Schema::parse(
      make_analyze_folders().schema() + analysis::analyze_options().schema(), "analyze stage schema");
  return s;
}

const config::Schema& report_stage_schema() {
  static const config::Schema s = config::Schema::parse(make_report_folder().schema(), "report stage schema");
  return s;
}

}  // namespace loci::apps
