#include "apps/analysis/run_folder.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "core/config/yaml_io.hpp"
#include "core/error.hpp"
#include "datasets/bounded_read.hpp"
#include "datasets/error.hpp"
#include "datasets/folder_lock.hpp"

namespace loci::analysis {

namespace fs = std::filesystem;

namespace {

bool is_run(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p / "config.yaml", ec) && fs::is_regular_file(p / "pe.h5", ec);
}

// Whether the PE's tables are drawn from an init (models/init/), the only PEs whose init scale matters: as the
// trainer recorded it in pe.h5 (from the PE registry, so an extension's PE counts too); for runs older than that
// record, the built-in PEs that draw.
bool drawn_from_init(const std::string& pe_type, const datasets::Attributes& pe_attributes) {
  if (const auto it = pe_attributes.find("drawn_from_init"); it != pe_attributes.end())
    if (const auto* v = std::get_if<std::int64_t>(&it->second)) return *v != 0;
  return pe_type == "learned" || pe_type == "random_fixed" || pe_type == "learned_fixed_norm";
}

// The config key of the init's scale, as the trainer recorded it from the init's registration (an extension's init
// counts too); for runs older than that record, the built-in inits' keys.
std::string init_scale_key(const std::string& init, const datasets::Attributes& pe_attributes) {
  if (const auto it = pe_attributes.find("init_scale_key"); it != pe_attributes.end())
    if (const auto* v = std::get_if<std::string>(&it->second)) return *v;
  if (init == "zeros") return "";
  if (init == "uniform") return "model.pe.init.a";
  if (init == "orthogonal") return "model.pe.init.gain";
  if (init == "from_sinusoidal" || init == "from_coordinates") return "model.pe.init.scale";
  return "model.pe.init.std";
}

std::string format_number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

RunIdentity identity_of(const config::Node& c, const fs::path& file, const datasets::Attributes& pe_attributes) {
  auto text = [&](const char* key) -> std::string {
    const config::Node* n = c.find_path(key);
    if (!n || !n->is_scalar())
      throw UserError(file.string() + ": no '" + key + "' (not a config written by loci train)");
    return n->text();
  };
  RunIdentity id;
  id.pe_type = text("model.pe.type");
  id.placement = text("model.pe.placement");
  id.seed = c.at("seed").as_int();
  id.drawn = drawn_from_init(id.pe_type, pe_attributes);
  const config::Node* name = c.find_path("model.pe.init.name");
  if (!id.drawn || !name || !name->is_scalar()) return id;  // a PE that draws nothing has no init (null)
  const std::string init = name->text();
  const std::string scale_key = init_scale_key(init, pe_attributes);
  id.sigma = scale_key.empty() ? 0.0 : c.at(scale_key).as_double();
  id.init = scale_key.empty() ? init : init + "(" + format_number(id.sigma) + ")";
  return id;
}

RunSettings settings_of(const config::Node& c, const fs::path& file) {
  auto required = [&](const char* key) -> const config::Node& {
    const config::Node* n = c.find_path(key);
    if (!n || !n->is_scalar())
      throw UserError(file.string() + ": no '" + key + "' (not a config written by loci train)");
    return *n;
  };
  auto optional = [&](const char* key) -> std::optional<std::string> {
    const config::Node* n = c.find_path(key);
    return n && n->is_scalar() ? std::optional<std::string>(n->text()) : std::nullopt;
  };
  RunSettings s;
  s.data = required("data").text();
  s.d_model = required("model.d_model").as_int();
  s.pe_base = required("model.pe.base").as_double();
  s.pe_coordinate_scale = required("model.pe.coordinate_scale").as_double();
  s.task_type = optional("task.type");
  s.task_objective = optional("task.objective");
  s.pooling = optional("model.pooling");
  s.train_split = optional("task.train_split");
  s.input = optional("task.input");
  s.pe_draw = optional("model.pe.draw");
  if (const config::Node* classes = c.find_path("task.classes")) s.classes = classes->as_int();
  return s;
}

}  // namespace

std::string RunIdentity::group() const {
  std::string g = pe_type;
  if (placement != "per_block") g += " [" + placement + "]";
  if (drawn) g += " " + init;
  return g;
}

std::vector<fs::path> find_run_folders(const std::vector<fs::path>& roots) {
  std::set<fs::path> found;
  for (const auto& root : roots) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) throw UserError(root.string() + ": no such folder");
    const std::size_t before = found.size();
    if (is_run(root)) found.insert(fs::weakly_canonical(root, ec));
    for (fs::recursive_directory_iterator it(root, ec), end; it != end; it.increment(ec)) {
      if (ec) break;
      if (it->is_directory(ec) && is_run(it->path())) {
        found.insert(fs::weakly_canonical(it->path(), ec));
        it.disable_recursion_pending();  // a run's own subfolders (checkpoints/) hold no runs
      }
    }
    if (found.size() == before)
      throw UserError(root.string() + ": holds no training run (a folder with config.yaml and pe.h5)");
  }
  return {found.begin(), found.end()};
}

RunProgress run_progress(const fs::path& folder) {
  RunProgress p;
  if (const std::string writer = datasets::folder_writer(folder); !writer.empty()) {
    p.why = "being written by " + writer;
    return p;
  }
  std::optional<std::string> summary;
  try {
    summary = run_file(folder, "summary.json");
  } catch (const datasets::DataError& e) {
    p.why = e.what();
    return p;
  }
  if (!summary) {
    p.why = "no summary.json: stopped before it finished";
    return p;
  }
  try {
    const auto j = nlohmann::json::parse(*summary);
    const std::string status =
        j.is_object() && j.contains("status") && j["status"].is_string() ? j["status"].get<std::string>() : "";
    p.finished = status == "finished" || status == "early_stopped";
    if (!p.finished) p.why = "summary.json says " + (status.empty() ? std::string("no status") : "'" + status + "'");
  } catch (const nlohmann::json::exception&) {
    p.why = "summary.json is not JSON";
  }
  return p;
}

std::optional<std::string> run_file(const fs::path& folder, const std::string& name) {
  constexpr std::uintmax_t kMiB = 1 << 20;
  return datasets::read_inside(folder, name, (name == "metrics.jsonl" ? 512 : 64) * kMiB);
}

bool run_array_file(const fs::path& folder, const std::string& name) {
  return datasets::check_inside(folder, name, std::uintmax_t{64} << 30);
}

config::Node run_config(const fs::path& folder) {
  const auto text = run_file(folder, "config.yaml");
  if (!text) throw datasets::DataError(folder / "config.yaml", "does not exist");
  return config::parse_yaml(*text, (folder / "config.yaml").string());
}

RunFolder load_run_folder(const fs::path& folder) {
  RunFolder r;
  r.folder = folder;
  r.config = run_config(folder);
  const fs::path metrics = folder / "metrics.jsonl";
  const auto rows = run_file(folder, "metrics.jsonl");
  if (!rows) throw datasets::DataError(metrics, "cannot be read (the run has not evaluated yet?)");
  std::istringstream in(*rows);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    try {
      r.metrics.push_back(nlohmann::json::parse(line));
    } catch (const nlohmann::json::exception&) {
      throw datasets::DataError(metrics, "line " + std::to_string(n) + " is not JSON");
    }
  }
  if (const auto summary = run_file(folder, "summary.json")) {
    try {
      r.summary = nlohmann::ordered_json::parse(*summary);
    } catch (const nlohmann::json::exception&) {
      throw datasets::DataError(folder / "summary.json", "is not JSON");
    }
  }
  if (!run_array_file(folder, "pe.h5")) throw datasets::DataError(folder / "pe.h5", "does not exist");
  r.pe = datasets::read_array_file(folder / "pe.h5");
  r.identity = identity_of(r.config, folder / "config.yaml", r.pe.attributes);
  r.settings = settings_of(r.config, folder / "config.yaml");
  return r;
}

}  // namespace loci::analysis
