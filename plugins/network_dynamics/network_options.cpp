#include "network_options.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "plugins/api/config/schema.hpp"
#include "plugins/api/config/split_keys.hpp"
#include "plugins/api/error.hpp"
#include "sim/dynamics/integrator.hpp"
#include "sim/dynamics/model.hpp"

namespace loci::network_dynamics {

namespace {

using sim::ParamSpec;

// Recorded values kept in memory while a split is written; beyond this a config is surely a mistake.
constexpr double kMaxRecordedBytes = 16.0 * (1ull << 30);

// The shortest text that reads back as the same double, so `loci config schema` shows 0.1, not 0.10000000000000001.
std::string number(double v) {
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string list(const std::vector<std::string>& names) {
  std::string out = "[";
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out + "]";
}

std::string field(const ParamSpec& p) {
  std::ostringstream s;
  s << p.name << ": {";
  switch (p.kind) {
    case ParamSpec::Kind::flag: s << "type: bool, default: " << (p.fallback != 0 ? "true" : "false"); break;
    case ParamSpec::Kind::integer:
      s << "type: int, default: " << static_cast<long long>(p.fallback);
      if (std::isfinite(p.min)) s << ", min: " << static_cast<long long>(p.min);
      if (std::isfinite(p.max)) s << ", max: " << static_cast<long long>(p.max);
      break;
    case ParamSpec::Kind::real:
      s << "type: float, default: " << number(p.fallback);
      if (std::isfinite(p.min)) s << ", min: " << number(p.min);
      if (std::isfinite(p.max)) s << ", max: " << number(p.max);
      break;
  }
  // The schema's bounds are inclusive; an exclusive one is checked when the variant is built, and said here.
  s << ", doc: " << quoted(p.doc + (p.min_exclusive ? " (> " + number(p.min) + ")" : "")) << "}";
  return s.str();
}

template <class Info>
void variant_groups(std::ostringstream& s, const std::vector<std::string>& names, const Info& info_of) {
  for (const auto& name : names) {
    const auto& info = info_of(name);
    if (info.params.empty()) continue;
    s << "  " << name << ":\n";
    for (const auto& p : info.params) s << "    " << field(p) << "\n";
  }
}

std::string build_schema() {
  namespace graph = sim::graph;
  namespace dyn = sim::dynamics;
  std::ostringstream s;
  s << R"yaml(splits: {type: map, of: int, min: 1, default: {train: 2000, test: 200, test_noise: 200},
         doc: "split name -> samples (windows); each split's windows come from its own runs (windows.runs)"}
graph:
)yaml";
  s << "  topology: {type: enum, values: " << list(graph::topology_names())
    << ", default: geometric, doc: \"how nodes are joined (parameters in graph.<topology>)\"}\n";
  s << R"yaml(  nodes: {type: int, default: 100, min: 2, max: 5000,
          doc: "nodes (tokens); a lattice needs side^dims (the dataset stores three nodes x nodes matrices)"}
  dims: {type: int, default: 2, min: 1, max: 3, doc: "dimensions of the true coordinates (watts_strogatz: 1, a ring)"}
)yaml";
  variant_groups(s, graph::topology_names(),
                 [](const std::string& n) -> const graph::TopologyInfo& { return graph::topology(n); });
  s << "dynamics:\n";
  s << "  model: {type: enum, values: " << list(dyn::model_names())
    << ", default: rate, doc: \"the network model (parameters in dynamics.<model>)\"}\n";
  s << "  integrator: {type: enum, values: " << list(dyn::integrator_names())
    << ", default: heun, doc: \"stochastic integrator\"}\n";
  s << R"yaml(  coupling: {type: enum, values: [in_degree, row, none], default: in_degree,
             doc: "W from the adjacency: in_degree = each column divided by its sum (the paper),
                   row = mean of neighbours, none = 0/1"}
  dt: {type: float, default: 0.1, min: 0, doc: "integration step (model time units); must be > 0"}
  delay_steps_per_unit: {type: float, default: 0, min: 0,
                         doc: "conduction delays: node j reaches node i round(d_ij x this) steps late, d_ij their euclidean distance (coordinates in [0, 1)); 0 = instantaneous"}
  burn_in: {type: int, default: 1000, min: 0, doc: "steps integrated and discarded before the first recorded point"}
  subsample: {type: int, default: 1, min: 1, doc: "steps between recorded points"}
  observation_noise: {type: float, default: 0, min: 0, doc: "sd of Gaussian noise added to every recorded value"}
)yaml";
  variant_groups(s, dyn::model_names(),
                 [](const std::string& n) -> const dyn::ModelInfo& { return dyn::model_info(n); });
  s << R"yaml(windows:
  length: {type: int, default: 50, min: 1, doc: "w: recorded points per sample; a token is one node's w values"}
  stride: {type: int, default: 0, min: 0,
           doc: "points between the starts of a run's consecutive windows; 0 = length (no overlap)"}
  runs: {type: map, of: int, min: 1, default: {train: 8, test: 2, test_noise: 2},
         doc: "split -> independent runs its windows are cut from; runs are never shared between splits"}
  noise_seed: {type: map, of: int, min: 0, default: {test_noise: 1},
               doc: "split -> seed of its runs' noise streams (default 0); same graph, independent noise"}
)yaml";
  return s.str();
}

[[noreturn]] void fail(const config::Node& at, const std::string& message) {
  throw UserError(at.mark().str() + ": " + message);
}

// Each value is checked against its spec here, so that a bound the schema cannot state (> 0) is reported at the
// value's own position.
std::map<std::string, double> read_params(const config::Node& r, const std::string& group,
                                          const std::vector<ParamSpec>& specs) {
  std::map<std::string, double> out;
  for (const auto& p : specs) {
    const auto& node = r.at(group + "." + p.name);
    double value = 0;
    switch (p.kind) {
      case ParamSpec::Kind::flag: value = node.as_bool() ? 1.0 : 0.0; break;
      case ParamSpec::Kind::integer: value = static_cast<double>(node.as_int()); break;
      case ParamSpec::Kind::real: value = node.as_double(); break;
    }
    try {
      sim::resolve_params({p}, {{p.name, value}}, "'" + group + "'");
    } catch (const std::invalid_argument& e) {
      fail(node, e.what());
    }
    out[p.name] = value;
  }
  return out;
}

}  // namespace

const char* schema_text() {
  static const std::string text = build_schema();
  return text.c_str();
}

std::string noise_stream(std::int64_t noise_seed) { return "noise" + std::to_string(noise_seed); }

NetworkOptions read_options(const config::Node& r) {
  NetworkOptions o;
  o.seed = static_cast<std::uint64_t>(r.at("seed").as_int());

  o.topology = r.at("graph.topology").text();
  o.graph.nodes(static_cast<std::size_t>(r.at("graph.nodes").as_int()))
      .dims(static_cast<int>(r.at("graph.dims").as_int()));
  o.topology_params = read_params(r, "graph." + o.topology, sim::graph::topology(o.topology).params);

  o.model = r.at("dynamics.model").text();
  o.model_params = read_params(r, "dynamics." + o.model, sim::dynamics::model_info(o.model).params);
  o.integrator = r.at("dynamics.integrator").text();
  o.coupling_name = r.at("dynamics.coupling").text();
  o.coupling = o.coupling_name == "row"    ? sim::dynamics::Normalisation::row
               : o.coupling_name == "none" ? sim::dynamics::Normalisation::none
                                           : sim::dynamics::Normalisation::in_degree;
  o.delay_steps_per_unit = r.at("dynamics.delay_steps_per_unit").as_double();
  o.delay_mark = r.at("dynamics.delay_steps_per_unit").mark().str();
  const double dt = r.at("dynamics.dt").as_double();
  if (!(dt > 0)) fail(r.at("dynamics.dt"), "'dynamics.dt' must be > 0");
  o.simulation.dt(dt)
      .burn_in(r.at("dynamics.burn_in").as_int())
      .subsample(r.at("dynamics.subsample").as_int())
      .observation_noise(r.at("dynamics.observation_noise").as_double())
      .threads(static_cast<int>(r.at("threads").as_int()));

  o.window = r.at("windows.length").as_int();
  o.stride = r.at("windows.stride").as_int();
  if (o.stride == 0) o.stride = o.window;

  const auto& splits = r.at("splits");
  const auto& runs = r.at("windows.runs");
  const auto& seeds = r.at("windows.noise_seed");
  // The default splits' entries stay in these maps when a config trims `splits`.
  const std::vector<std::string> defaults = {"train", "test", "test_noise"};
  config::check_split_keys(runs, "windows.runs", splits, defaults);
  config::check_split_keys(seeds, "windows.noise_seed", splits, defaults);
  std::map<std::int64_t, std::int64_t> next_run;  // noise seed -> its next unused run index
  double recorded_bytes = 0;
  for (const auto& [name, count] : splits.entries()) {
    SplitPlan p;
    p.name = name;
    p.windows.samples = count.as_int();
    p.windows.length = o.window;
    p.windows.stride = o.stride;
    const auto* seed = seeds.find(name);
    p.noise_seed = seed ? seed->as_int() : 0;
    const auto* run_count = runs.find(name);
    if (!run_count) {
      if (p.windows.samples > 0)
        throw UserError(count.key_mark().str() + ": split '" + name +
                        "' has no entry in windows.runs (how many independent runs its windows are cut from)");
    } else {
      p.windows.recordings = run_count->as_int();
      p.first_run = next_run[p.noise_seed];
      next_run[p.noise_seed] += p.windows.recordings;
    }
    if (p.windows.samples > 0) {
      recorded_bytes += 4.0 * static_cast<double>(p.windows.used()) * static_cast<double>(p.windows.points()) *
                        static_cast<double>(o.graph.nodes());
    }
    o.splits.push_back(p);
  }
  if (recorded_bytes > kMaxRecordedBytes)
    fail(splits, "the runs would record " + std::to_string(static_cast<long long>(recorded_bytes / (1 << 20))) +
                     " MiB, over the 16 GiB limit: ask for fewer samples or nodes, or let windows overlap (a smaller "
                     "windows.stride)");
  return o;
}

}  // namespace loci::network_dynamics
