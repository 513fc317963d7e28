#include "run_identity.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "core/common_options.hpp"
#include "core/config/yaml_io.hpp"
#include "core/error.hpp"
#include "core/sha256.hpp"
#include "core/version.hpp"
#include "datasets/atomic_file.hpp"
#include "datasets/bounded_read.hpp"

namespace loci::torch_trainer {

namespace fs = std::filesystem;

namespace {

// Keys that change where or how fast a run goes, never what it computes: those the shared trainer vocabulary and
// the trainer's option table mark `identity: false` (train.epochs among them: it is compared on its own).
const std::vector<std::string>& not_identity() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k = trainer_common_schema().outside_identity();
    for (const auto& key : keys_outside_identity()) k.push_back(key);
    return k;
  }();
  return keys;
}

// Keys added after runs already existed, each with the value every run made before it had in effect: a run
// recorded without one reads as having that value, so a new option does not refuse every earlier run. A new key
// whose default changes what a run computes does not belong here.
const std::map<std::string, std::string>& keys_added_later() {
  static const std::map<std::string, std::string> added{
      {"train.bf16_products", "autocast"}, {"train.pe.weight_decay", "null"}, {"train.pe.lr_scale", "1.0"},
      {"task.objective", "readout"},       {"train.adam_eps", "1e-08"},       {"train.label_smoothing", "0.0"},
      {"train.data_fraction", "1.0"}};
  return added;
}

// The keys of an identity that the trainer's option table does not declare, with their types: the shared trainer
// vocabulary's (seed, trainer) and the shards' checksum that stands for `data`.
const config::OptionSpec* identity_spec(const std::string& key) {
  static const config::OptionSpec shards = [] {
    config::OptionSpec s;
    s.path = "data.shards_sha256";
    s.type = "string";
    return s;
  }();
  if (const auto* spec = option_spec(key)) return spec;
  if (key == shards.path) return &shards;
  return trainer_common_options().spec(key);
}

// A plain YAML scalar as JSON by the core schema's rules (null, bool, integer, float, else a string).
nlohmann::json inferred(const std::string& t) {
  if (t == "null" || t == "~") return nullptr;
  if (t == "true" || t == "false") return t == "true";
  if (t.empty() || std::isspace(static_cast<unsigned char>(t[0]))) return t;
  char* end = nullptr;
  errno = 0;
  const long long i = std::strtoll(t.c_str(), &end, 10);
  if (end == t.c_str() + t.size() && errno == 0) return i;
  const double d = std::strtod(t.c_str(), &end);
  if (end == t.c_str() + t.size() && std::isfinite(d)) return d;
  return t;
}

// A scalar of a declared type; text that does not read as that type stays text (then it differs from any value
// written as that type, and the run is named as made otherwise, not misread).
nlohmann::json scalar_of(const std::string& type, const std::string& t, bool nullable) {
  if (t == "null" && nullable) return nullptr;
  if (type == "bool" || type == "int" || type == "float") {
    const auto v = inferred(t);
    if ((type == "bool" && v.is_boolean()) || (type == "int" && v.is_number_integer()) ||
        (type == "float" && v.is_number()))
      return type == "float" ? nlohmann::json(v.get<double>()) : v;
    return t;
  }
  return type.empty() ? inferred(t) : nlohmann::json(t);
}

nlohmann::json node_json(const config::Node& n, const std::string& element) {
  if (n.is_sequence()) {
    auto out = nlohmann::json::array();
    for (const auto& e : n.items()) out.push_back(node_json(e, element));
    return out;
  }
  if (n.is_map()) {
    auto out = nlohmann::json::object();
    for (const auto& [k, v] : n.entries()) out[k] = node_json(v, element);
    return out;
  }
  if (n.is_null()) return nullptr;
  return n.quoted() ? nlohmann::json(n.text()) : scalar_of(element == "any" ? "" : element, n.text(), true);
}

// The value of an identity key, typed by its declaration: identity.json says 0.001 and true, not "0.001" and "true".
nlohmann::json typed_value(const std::string& key, const std::string& text) {
  const config::OptionSpec* spec = identity_spec(key);
  const bool collection = spec ? spec->type == "list" || spec->type == "map"
                               : !text.empty() && (text.front() == '[' || text.front() == '{');
  if (!collection) return spec ? scalar_of(spec->type, text, spec->nullable) : inferred(text);
  try {
    return node_json(config::parse_yaml(text, key), spec ? spec->element : "");
  } catch (const std::exception&) {
    return text;
  }
}

// One spelling per value (0.0001 for 1e-4, [0.5,0.9] for [0.5, 0.9]): identities compare and hash on it.
std::string canonical(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// `keys` in canonical spelling, without the keys that do not apply to them.
config::FlatConfig canonical_keys(const config::FlatConfig& keys) {
  config::FlatConfig out;
  for (const auto& [k, v] : keys) out[k] = canonical(typed_value(k, v));
  return applicable_keys(out);
}

// A run's own record, read within bounds: a folder, FIFO or device under its name, or a huge file, is one line
// naming it (datasets/bounded_read.hpp), never an internal error or a hang.
nlohmann::json read_json(const fs::path& file) {
  const auto text = datasets::read_bounded(file, 64u << 20);
  if (!text) throw UserError(file.string() + ": cannot be read");
  try {
    return nlohmann::json::parse(*text);
  } catch (const nlohmann::json::exception&) {
    throw UserError(file.string() + ": is not JSON (a damaged run folder?)");
  }
}

// A run's recorded keys as this loci spells them: typed values (and the text of earlier versions) read back the
// same way, keys added later filled in, keys that do not apply (earlier versions recorded every key) left out.
config::FlatConfig recorded_keys(const fs::path& run) {
  const auto had = read_json(run / "identity.json");
  config::FlatConfig keys;
  if (had.contains("keys") && had["keys"].is_object())
    for (const auto& [k, v] : had["keys"].items()) keys[k] = canonical(v);
  for (const auto& [k, v] : keys_added_later()) keys.emplace(k, v);
  return canonical_keys(keys);
}

}  // namespace

bool made_otherwise(const fs::path& run, const config::Identity& identity) {
  return fs::exists(run / "identity.json") && !config::same_settings(recorded_keys(run), identity.keys);
}

config::Node recorded_config(const config::Node& resolved, const TrainOptions& options) {
  config::Node out = with_effective_init(resolved, options);
  for (const char* key : {"data", "out"}) {
    const fs::path p = std::string(key) == "out" ? options.out : options.data;  // out may be a new folder's
    out.set(key, config::Node::scalar(fs::absolute(p).lexically_normal().string(), out.at(key).mark()));
  }
  return out;
}

config::Identity run_identity(const config::Node& recorded, const datasets::Dataset& dataset) {
  config::FlatConfig keys = config::flatten(config::without(recorded, not_identity()));
  std::string shards;
  for (const auto& s : dataset.index().shards) shards += s.file + " " + s.sha256 + "\n";
  keys["data.shards_sha256"] = sha256_hex(shards.data(), shards.size());
  return config::identity_of(canonical_keys(keys));
}

config::FlatConfig lasting_keys(const config::Identity& identity) {
  config::FlatConfig keys = identity.keys;
  keys.erase("train.epochs");
  return keys;
}

config::FlatConfig with_keys_added_later(config::FlatConfig recorded) {
  for (const auto& [k, v] : keys_added_later()) recorded.emplace(k, v);
  return canonical_keys(recorded);
}

std::string lasting_hash(const config::Identity& identity) { return config::identity_of(lasting_keys(identity)).hash; }

std::optional<std::uint64_t> pe_draw_seed(const TrainOptions& options, const config::Identity& identity) {
  if (options.pe_draw == "seed") return std::nullopt;
  if (options.pe_draw != "run") return std::stoull(options.pe_draw);
  // 15 hex digits: a seed below 2^60, which every consumer of a seed (JSON, LibTorch's generator) keeps exactly.
  return std::stoull(lasting_hash(identity).substr(0, 15), nullptr, 16);
}

std::uint64_t effective_pe_draw(const TrainOptions& options, const config::Identity& identity) {
  return pe_draw_seed(options, identity).value_or(options.seed);
}

void write_identity(const fs::path& run, const config::Identity& identity) {
  nlohmann::ordered_json j;
  j["hash"] = identity.hash;
  j["loci_version"] = kVersion;
  nlohmann::ordered_json keys = nlohmann::ordered_json::object();
  for (const auto& [k, v] : identity.keys) keys[k] = typed_value(k, v);
  j["keys"] = keys;
  // What this loci leaves out of every identity: the summary groups a run recorded without identity.json by its
  // config less these.
  j["outside_identity"] = not_identity();
  datasets::write_file_atomically(run / "identity.json", j.dump(2) + "\n");
}

ResumePlan plan_resume(const fs::path& run, const config::Identity& identity, const TrainOptions& o, bool resume) {
  ResumePlan plan;
  const bool has_checkpoint = fs::exists(run / "checkpoints" / "last.pt");
  plan.finished = fs::exists(run / "summary.json");
  plan.fresh = !has_checkpoint && !plan.finished;
  if (plan.fresh) return plan;
  if (made_otherwise(run, identity))
    throw UserError(run.string() + ": holds a run made with other settings: " +
                    config::describe_difference(recorded_keys(run), identity.keys) +
                    "; choose another `out`, or train.on_other_settings=new_folder (or delete the run to remake it)");
  if (!resume) {
    if (!plan.finished)
      throw UserError(run.string() +
                      ": holds this run, interrupted; pass --resume to continue it, or choose another `out`");
    // The very run asked for, finished: nothing to do, as a sweep keeps it. Extending it needs --resume.
    const ResumePlan kept = plan_resume(run, identity, o, true);
    if (!kept.extend) return kept;
    throw UserError(run.string() + ": holds this run finished at epoch " + std::to_string(kept.done_epochs) +
                    "; pass --resume to continue it to epoch " + std::to_string(o.epochs) +
                    ", or choose another `out`");
  }
  if (!plan.finished) return plan;
  const auto summary = read_json(run / "summary.json");
  plan.done_epochs = summary.value("epochs", std::int64_t{0});
  const auto done_steps = summary.value("steps", std::int64_t{0});
  const std::string status = summary.value("status", std::string("finished"));
  if (o.steps > 0) {
    if (o.steps != done_steps)
      throw UserError(run.string() + ": train.steps is " + std::to_string(o.steps) + " but the finished run made " +
                      std::to_string(done_steps) + " steps; a run stopped by steps cannot be extended (it stopped " +
                      "inside an epoch); choose another `out`");
    return plan;
  }
  if (o.epochs < plan.done_epochs)
    throw UserError(run.string() + ": train.epochs is " + std::to_string(o.epochs) + " but the run has finished " +
                    std::to_string(plan.done_epochs) + " epochs already; choose another `out` for a shorter run");
  if (o.epochs == plan.done_epochs) return plan;
  if (status == "early_stopped")
    throw UserError(run.string() + ": the run stopped early (train.early_stop_patience); it cannot be extended");
  if (o.schedule != Schedule::constant)
    throw UserError(run.string() + ": train.epochs cannot grow under train.schedule " + choice_name(o.schedule) +
                    " (its curve depends on the total); choose another `out`");
  plan.extend = true;
  return plan;
}

}  // namespace loci::torch_trainer
