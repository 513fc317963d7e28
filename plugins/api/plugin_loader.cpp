#include "plugins/api/plugin_loader.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <system_error>

#include "plugins/api/error.hpp"

namespace loci {
namespace fs = std::filesystem;

const char* PluginRecord::kind_name() const {
  return kind == LOCI_PLUGIN_TRAINER ? "trainer" : kind == LOCI_PLUGIN_EXTENSION ? "extension" : "generator";
}

config::Schema PluginRecord::schema() const {
  if (kind == LOCI_PLUGIN_EXTENSION) return config::Schema::parse("{}", "extension " + name + " (no keys)");
  config::Schema s = kind == LOCI_PLUGIN_TRAINER ? trainer_common_schema() : generator_common_schema();
  s.extend(config::Schema::parse(info->schema_yaml ? info->schema_yaml : "", "schema of plugin " + name));
  return s;
}

std::vector<fs::path> PluginRegistry::search_path(const std::vector<fs::path>& extra) {
  std::vector<fs::path> dirs(extra.begin(), extra.end());
  if (const char* env = std::getenv("LOCI_PLUGIN_PATH")) {
    std::string s = env;
    std::size_t start = 0;
    while (start <= s.size()) {
      const auto colon = s.find(':', start);
      const std::string part = s.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      if (!part.empty()) dirs.emplace_back(part);
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back((exe.parent_path() / LOCI_PLUGIN_DIR_FROM_BIN).lexically_normal());
  return dirs;
}

void PluginRegistry::scan(const std::vector<fs::path>& folders) {
  std::set<fs::path> seen;
  std::vector<fs::path> all;
  for (const auto& dir : folders) {
    std::error_code ec;
    const fs::path canon = fs::weakly_canonical(dir, ec);
    if (ec || !seen.insert(canon).second || !fs::is_directory(canon, ec)) continue;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(canon, ec)) {
      const auto name = entry.path().filename().string();
      if (name.size() > 3 && name.compare(name.size() - 3, 3, ".so") == 0) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());  // a stable order makes "first wins" for duplicates predictable
    all.insert(all.end(), files.begin(), files.end());
  }
  // Every library is loaded before any entry point runs, so that an extension's registrations (a PE, an init)
  // are in place when a trainer's entry point builds its schema from the registries, whatever the file order.
  for (const auto& f : all) dlopen(f.c_str(), RTLD_NOW | RTLD_LOCAL);  // a failure is reported by load()
  for (const auto& f : all) load(f);
}

bool PluginRegistry::load(const fs::path& file) {
  auto refuse = [&](std::string why) {
    refused_.push_back({file, std::move(why)});
    return false;
  };
  // RTLD_LOCAL keeps each plugin's symbols to itself; RTLD_NOW surfaces missing symbols here, not mid-run.
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    return refuse(std::string("cannot load: ") + (err ? err : "unknown reason"));
  }
  auto entry = reinterpret_cast<loci_plugin_entry_fn>(dlsym(handle, LOCI_PLUGIN_ENTRY_SYMBOL));
  if (!entry) return refuse("not a loci plugin: no entry point '" LOCI_PLUGIN_ENTRY_SYMBOL "'");
  const loci_plugin_info* info = entry();
  if (!info) return refuse("entry point returned no metadata");
  if (info->abi_version != kPluginAbi)
    return refuse("built for plugin ABI " + std::to_string(info->abi_version) + ", this loci has ABI " +
                  std::to_string(kPluginAbi) + "; rebuild the plugin");
  if (info->api_version < kMinPluginApi)
    return refuse("written for plugin API " + std::to_string(info->api_version) + ", this loci needs at least " +
                  std::to_string(kMinPluginApi));
  if (info->kind != LOCI_PLUGIN_GENERATOR && info->kind != LOCI_PLUGIN_TRAINER && info->kind != LOCI_PLUGIN_EXTENSION)
    return refuse("unknown plugin kind " + std::to_string(info->kind));
  if (!info->name || !*info->name || (!info->create && info->kind != LOCI_PLUGIN_EXTENSION))
    return refuse("metadata lacks a name or a factory");
  for (const auto& p : plugins_)
    if (p.name == info->name)
      return refuse("duplicate plugin name '" + std::string(info->name) + "' (already loaded from " + p.file.string() +
                    ")");
  PluginRecord rec;
  rec.name = info->name;
  rec.version = info->version ? info->version : "";
  rec.description = info->description ? info->description : "";
  rec.kind = static_cast<loci_plugin_kind>(info->kind);
  rec.file = file;
  rec.info = info;
  plugins_.push_back(std::move(rec));
  return true;
}

const PluginRecord& PluginRegistry::find(const std::string& name, loci_plugin_kind kind) const {
  std::vector<std::string> names;
  for (const auto& p : plugins_) {
    if (p.kind != kind) continue;
    if (p.name == name) return p;
    names.push_back(p.name);
  }
  const char* what = kind == LOCI_PLUGIN_TRAINER ? "trainer" : "generator";
  std::string msg = std::string("no ") + what + " plugin named '" + name + "'";
  const auto near = config::nearest(name, names);
  if (!near.empty()) msg += " (did you mean '" + near + "'?)";
  if (names.empty()) msg += "; no " + std::string(what) + " plugins were found (see `loci plugins`)";
  throw UserError(msg);
}

namespace {
template <class T> std::unique_ptr<T> create(const PluginRecord& rec) {
  auto* base = static_cast<Plugin*>(rec.info->create());
  if (!base) throw UserError(rec.file.string() + ": plugin factory returned nothing");
  auto* typed = dynamic_cast<T*>(base);
  if (!typed) {
    delete base;
    throw UserError(rec.file.string() + ": plugin '" + rec.name + "' does not implement its declared kind");
  }
  return std::unique_ptr<T>(typed);
}
}  // namespace

std::unique_ptr<Generator> PluginRegistry::make_generator(const std::string& name) const {
  return create<Generator>(find(name, LOCI_PLUGIN_GENERATOR));
}

std::unique_ptr<Trainer> PluginRegistry::make_trainer(const std::string& name) const {
  return create<Trainer>(find(name, LOCI_PLUGIN_TRAINER));
}

}  // namespace loci
