#include "apps/analysis/analyze_options.hpp"

namespace loci::analysis {

const config::OptionTable<AnalyzeOptions>& analyze_options() {
  static const config::OptionTable<AnalyzeOptions> table = [] {
    config::OptionTable<AnalyzeOptions> t;
    t.add("metric", [](AnalyzeOptions& o) -> std::string& { return o.metric; })
        .choices(probe::metric_names())
        .doc("distance between PE rows for RSA and k-NN");
    t.add("knn", [](AnalyzeOptions& o) -> int& { return o.knn_k; }).min(1).doc("k of the k-nearest-neighbour overlap");
    t.add("mds_dims", [](AnalyzeOptions& o) -> int& { return o.mds_dims; })
        .within(1, 3)
        .doc("dimensions of the MDS embedding");
    t.add("attention_reference", [](AnalyzeOptions& o) -> std::string& {
       return o.attention_reference;
     }).doc("PE type of the runs whose attention maps (train.save_attention) the others are compared with");
    t.add("shuffle_positions", [](AnalyzeOptions& o) -> int& { return o.shuffle_positions; })
        .min(0)
        .doc(
            "the shuffled-positions control: permute the true positions among the tokens (seed; 0 = off) before "
            "scoring, so every probe of position must fall to its null");
    t.add("include_partial", [](AnalyzeOptions& o) -> bool& { return o.include_partial; })
        .doc(
            "also score runs that have not finished (training, paused, killed), marked partial with their epoch; "
            "by default they are left out and named");
    t.add_choice(
         "comparisons", [](AnalyzeOptions& o) -> Comparisons& { return o.comparisons; },
         Choices<Comparisons>{{"all", Comparisons::all}, {"one_setting", Comparisons::one_setting}})
        .doc(
            "which pairs of groups are compared, with Holm's adjustment over that family: all = every pair; "
            "one_setting = pairs that differ in exactly one setting (a grid's planned contrasts), a smaller family");
    t.add("pool_datasets", [](AnalyzeOptions& o) -> bool& { return o.pool_datasets; })
        .doc(
            "summarise runs on different datasets together (the dataset a replicate like the seed: a swept "
            "generate stage's graphs or parcellations); comparisons still pair runs that share a dataset and PE "
            "draw; by default each dataset's runs form their own groups");
    t.add("force", [](AnalyzeOptions& o) -> bool& { return o.force; })
        .doc(
            "analyse every run again, even where its analysis.json is current (an analysis is otherwise kept while "
            "the run's files, the options and the registered probes are unchanged)");
    return t;
  }();
  return table;
}

}  // namespace loci::analysis
