// network_dynamics: stochastic nonlinear dynamics on a spatial graph (Experiment 2). One graph per dataset, from
// (seed, "graph"); a sample is a window of one run's recording. A split's runs are simulated together the first
// time one of its samples is asked for (so `inspect --show` and resumed runs simulate nothing they do not need),
// then every sample is a copy out of the recordings.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "core/config/fail_at.hpp"
#include "core/error.hpp"
#include "network_card.hpp"
#include "network_options.hpp"
#include "plugins/api/param_attributes.hpp"
#include "plugins/api/plugin.hpp"
#include "sim/dynamics/integrator.hpp"
#include "sim/dynamics/model.hpp"
#include "sim/graph/metrics.hpp"

namespace loci::network_dynamics {

namespace {

using datasets::DType;

enum Slot : std::size_t { kActivity, kRun, kStart };

class NetworkDynamics final : public plugins::Generator {
 public:
  void configure(const config::Node& resolved) override {
    opt_ = read_options(resolved);
    try {
      auto rng = sim::Rng::stream(opt_.seed, "graph", 0);
      graph_ = sim::graph::make_topology(opt_.topology, opt_.graph, opt_.topology_params, rng);
    } catch (const std::invalid_argument& e) {
      config::fail_at(resolved.at("graph.topology").mark(), e.what());
    }
    coupling_ = sim::dynamics::Coupling::from_edges(graph_.nodes(), sim::graph::edge_list(graph_), opt_.coupling);
    if (opt_.delay_steps_per_unit > 0) {
      coupling_.delay_by([&](std::size_t i, std::size_t j) {
        return static_cast<std::int64_t>(std::llround(sim::graph::distance(graph_, i, j) * opt_.delay_steps_per_unit));
      });
      if (!coupling_.has_delays()) {  // asked for delays and would silently get none
        std::ostringstream s;
        s << opt_.delay_mark << ": dynamics.delay_steps_per_unit = " << opt_.delay_steps_per_unit
          << " rounds every edge's delay to 0 steps; raise it (edges are at most " << max_edge_length() << " long)";
        throw UserError(s.str());
      }
    }
    model_ = sim::dynamics::make_model(opt_.model, opt_.model_params);
    integrator_ = sim::dynamics::make_integrator(opt_.integrator);
    facts_ = {graph_.edges(), sim::graph::connected_components(graph_),
              2.0 * static_cast<double>(graph_.edges()) / static_cast<double>(graph_.nodes())};
    build_layout();
    splits_.clear();
    for (const auto& plan : opt_.splits) splits_[plan.name] = std::make_unique<SplitState>(plan);
  }

  const datasets::DatasetLayout& layout() const override { return layout_; }

  double max_edge_length() const {
    double longest = 0;
    for (const auto& [u, v] : sim::graph::edge_list(graph_))
      longest = std::max(longest, sim::graph::distance(graph_, u, v));
    return longest;
  }

  void fill(const datasets::SampleKey& key, const datasets::SampleSlots& out) const override {
    const auto it = splits_.find(key.split);
    if (it == splits_.end()) throw std::logic_error("network_dynamics: unknown split " + key.split);
    SplitState& split = *it->second;
    std::call_once(split.simulated, [&] { simulate(split); });
    const SplitPlan& p = split.plan;
    const auto cut = p.windows.cut(key.index);
    const auto& recording = split.recordings[static_cast<std::size_t>(cut.recording)];
    datasets::copy_window(recording.values.data(), graph_.nodes(), recording.points, cut.start, opt_.window,
                          out.get<float>(kActivity));
    *out.get<std::int64_t>(kRun) = p.first_run + cut.recording;
    *out.get<std::int64_t>(kStart) = cut.start;
  }

  std::string card_prose() const override { return network_dynamics::card_prose(opt_, facts_); }

  std::string render_sample(const datasets::SampleSlots& sample) const override {
    return render_window(opt_, graph_, sample);
  }

 private:
  struct SplitState {
    explicit SplitState(SplitPlan p) : plan(std::move(p)) {}
    SplitPlan plan;
    std::once_flag simulated;
    std::vector<sim::dynamics::Recording> recordings;
  };

  void simulate(SplitState& split) const {
    const SplitPlan& p = split.plan;
    std::vector<sim::dynamics::RunId> runs;
    for (std::int64_t r = 0; r < p.windows.used(); ++r)
      runs.push_back({noise_stream(p.noise_seed), static_cast<std::uint64_t>(p.first_run + r)});
    auto options = opt_.simulation;
    options.points(p.windows.points());
    try {
      split.recordings = sim::dynamics::simulate(*model_, *integrator_, coupling_, opt_.seed, runs, options);
    } catch (const std::runtime_error& e) {
      throw UserError(std::string("network_dynamics: split '") + p.name + "': " + e.what());
    }
  }

  void build_layout() {
    const auto n = static_cast<std::int64_t>(graph_.nodes());
    layout_ = {};
    layout_.sample_arrays = {
        {"activity",
         DType::f32,
         {"token", "time"},
         {n, opt_.window},
         "one token per node: its observed variable over the window's w recorded points"},
        {"run", DType::i64, {}, {}, "index of the run in its split's noise stream (see the runs.* attributes)"},
        {"start", DType::i64, {}, {}, "the window's first recorded point within the run (0 = right after burn-in)"},
    };
    std::vector<float> positions;
    for (std::int64_t i = 0; i < n; ++i)
      for (int a = 0; a < graph_.dims(); ++a) positions.push_back(static_cast<float>(graph_.positions(i, a)));
    layout_.dataset_arrays = {
        datasets::Array::of({"positions",
                             DType::f32,
                             {"token", "axis"},
                             {n, graph_.dims()},
                             "true coordinates of each node, in the unit cube"},
                            positions),
        datasets::Array::of({"adjacency", DType::u8, {"token", "peer"}, {n, n}, "1 where an edge joins two nodes"},
                            sim::graph::adjacency_matrix(graph_)),
        datasets::Array::of({"distance",
                             DType::f32,
                             {"token", "peer"},
                             {n, n},
                             "euclidean distance between coordinates (periodic axes the short way round)"},
                            sim::graph::distance_matrix(graph_)),
        datasets::Array::of(
            {"hops", DType::i32, {"token", "peer"}, {n, n}, "shortest-path hop count; -1 where no path exists"},
            sim::graph::hop_matrix(graph_)),
    };
    if (!graph_.groups.empty()) {
      std::vector<std::int32_t> block(graph_.groups.begin(), graph_.groups.end());
      layout_.dataset_arrays.push_back(
          datasets::Array::of({"block", DType::i32, {"token"}, {n}, "the block (community) of each node"}, block));
    }
    auto& a = layout_.attributes;
    a["topology"] = opt_.topology;
    plugins::add_param_attributes(a, "topology.", sim::graph::topology(opt_.topology).params, opt_.topology_params);
    a["nodes"] = n;
    a["dims"] = static_cast<std::int64_t>(graph_.dims());
    a["periodic"] = static_cast<std::int64_t>(graph_.periodic);
    a["edges"] = static_cast<std::int64_t>(facts_.edges);
    a["mean_degree"] = facts_.mean_degree;
    a["components"] = static_cast<std::int64_t>(facts_.components);
    a["model"] = opt_.model;
    plugins::add_param_attributes(a, "model.", sim::dynamics::model_info(opt_.model).params, opt_.model_params);
    a["observed_variable"] = model_->variable_names().at(static_cast<std::size_t>(model_->observed()));
    a["integrator"] = opt_.integrator;
    a["coupling"] = coupling_name(opt_.coupling);
    a["dt"] = opt_.simulation.dt();
    a["delay_steps_per_unit"] = opt_.delay_steps_per_unit;
    a["burn_in"] = opt_.simulation.burn_in();
    a["subsample"] = opt_.simulation.subsample();
    a["record_dt"] = opt_.simulation.dt() * static_cast<double>(opt_.simulation.subsample());
    a["observation_noise"] = opt_.simulation.observation_noise();
    a["window"] = opt_.window;
    a["stride"] = opt_.stride;
    for (const auto& p : opt_.splits) {
      a["runs." + p.name] = p.windows.used();
      a["first_run." + p.name] = p.first_run;
      a["noise_seed." + p.name] = p.noise_seed;
      a["points_per_run." + p.name] = p.windows.points();
    }
  }

  NetworkOptions opt_;
  sim::graph::SpatialGraph graph_;
  sim::dynamics::Coupling coupling_;
  std::unique_ptr<sim::dynamics::Model> model_;
  std::unique_ptr<sim::dynamics::Integrator> integrator_;
  GraphFacts facts_;
  datasets::DatasetLayout layout_;
  std::map<std::string, std::unique_ptr<SplitState>> splits_;
};

}  // namespace

}  // namespace loci::network_dynamics

LOCI_PLUGIN(LOCI_PLUGIN_GENERATOR, "network_dynamics", "0.1.0",
            "Stochastic network dynamics on a spatial graph (Experiment 2): node tokens, true positions = coordinates",
            loci::network_dynamics::schema_text(), loci::network_dynamics::NetworkDynamics)
