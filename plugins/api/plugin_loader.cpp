#include "plugins/api/plugin_loader.hpp"

#include <dlfcn.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <system_error>

#include "core/error.hpp"
#include "plugins/api/plugin_note.hpp"

namespace loci::plugins {
namespace fs = std::filesystem;

const char* PluginRecord::kind_name() const {
  return kind == LOCI_PLUGIN_TRAINER ? "trainer" : kind == LOCI_PLUGIN_EXTENSION ? "extension" : "generator";
}

config::Schema PluginRecord::schema() const {
  if (!info && kind != LOCI_PLUGIN_EXTENSION)
    throw std::logic_error("the schema of plugin " + name + " was asked for before PluginRegistry::find loaded it");
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

std::string untrusted_reason(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "cannot be examined (" + std::string(std::strerror(errno)) + ")";
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
  if (st.st_uid != 0 && st.st_uid != ::geteuid())
    return "is owned by another user (uid " + std::to_string(st.st_uid) +
           "); loci loads plugins only from root's or "
           "your own files";
  if (st.st_mode & S_IWOTH)
    return std::string("is writable by everyone (mode ") + mode + "); anyone could plant code there";
  if (st.st_mode & S_IWGRP) {
    // A user's private group (named after the user, no other members) writes only as its owner does.
    const passwd* owner = ::getpwuid(st.st_uid);
    const group* grp = ::getgrgid(st.st_gid);
    const bool private_group =
        owner && grp && std::string(grp->gr_name) == owner->pw_name && (!grp->gr_mem || !grp->gr_mem[0]);
    if (!private_group)
      return std::string("is writable by its group (mode ") + mode + "); others than its owner could plant code there";
  }
  return "";
}

void PluginRegistry::scan(const std::vector<fs::path>& folders, const std::vector<std::string>& override_names) {
  std::set<fs::path> seen;
  searched_.insert(searched_.end(), folders.begin(), folders.end());
  for (const auto& dir : folders) {
    std::error_code ec;
    const fs::path canon = fs::weakly_canonical(dir, ec);
    if (ec || !seen.insert(canon).second || !fs::is_directory(canon, ec)) continue;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(canon, ec)) {
      const auto name = entry.path().filename().string();
      if (name.size() > 3 && name.compare(name.size() - 3, 3, ".so") == 0) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());  // a stable order makes "first wins" for overrides predictable
    const std::string folder_reason = untrusted_reason(canon);
    for (const auto& f : files) {
      if (folder_reason.empty())
        add(f, override_names);
      else
        refused_.push_back({f, "not loaded: its folder " + canon.string() + " " + folder_reason});
    }
  }
}

bool PluginRegistry::add(const fs::path& file, const std::vector<std::string>& override_names) {
  auto refuse = [&](std::string why) {
    refused_.push_back({file, std::move(why)});
    return false;
  };
  std::error_code ec;
  const fs::path real = fs::canonical(file, ec);
  if (ec) return refuse("cannot be resolved (" + ec.message() + ")");
  if (const std::string why = untrusted_reason(real); !why.empty()) return refuse("not loaded: it " + why);
  std::string why;
  const auto note = read_plugin_note(real, why);
  if (!note)
    return refuse(why.empty() ? "not a loci plugin: no " + std::string(kPluginNoteSection) +
                                    " note (a plugin built against an older loci gets one when rebuilt)"
                              : why);
  if (note->abi_version != kPluginAbi)
    return refuse("built for plugin ABI " + std::to_string(note->abi_version) + ", this loci has ABI " +
                  std::to_string(kPluginAbi) + "; rebuild the plugin");
  if (note->kind != LOCI_PLUGIN_GENERATOR && note->kind != LOCI_PLUGIN_TRAINER && note->kind != LOCI_PLUGIN_EXTENSION)
    return refuse("unknown plugin kind " + std::to_string(note->kind));
  if (!*note->name) return refuse("its note names no plugin");
  for (const auto& p : plugins_)
    if (p.name == note->name) {
      const bool overridden = std::find(override_names.begin(), override_names.end(), p.name) != override_names.end();
      if (!overridden) duplicates_.emplace_back(p.name, file);
      return refuse("duplicate plugin name '" + p.name + "' (also in " + p.file.string() + ")" +
                    (overridden ? "; plugin_override keeps that one" : ""));
    }
  PluginRecord rec;
  rec.name = note->name;
  rec.version = note->version;
  rec.description = note->description;
  rec.kind = static_cast<loci_plugin_kind>(note->kind);
  rec.file = file;
  plugins_.push_back(std::move(rec));
  return true;
}

void PluginRegistry::load(const PluginRecord& rec) const {
  if (rec.info) return;
  // An extension's registrations (a PE, an init) must be in place before a trainer builds its schema from them.
  if (rec.kind == LOCI_PLUGIN_TRAINER) load_extensions();
  auto fail = [&](const std::string& why) { throw UserError(rec.file.string() + ": " + why); };
  // RTLD_LOCAL keeps each plugin's symbols to itself; RTLD_NOW surfaces missing symbols here, not mid-run.
  void* handle = dlopen(rec.file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    fail(std::string("cannot load: ") + (err ? err : "unknown reason"));
  }
  auto entry = reinterpret_cast<loci_plugin_entry_fn>(dlsym(handle, LOCI_PLUGIN_ENTRY_SYMBOL));
  if (!entry) fail("not a loci plugin: no entry point '" LOCI_PLUGIN_ENTRY_SYMBOL "'");
  const loci_plugin_info* info = entry();
  if (!info) fail("entry point returned no metadata");
  if (info->abi_version != kPluginAbi || info->kind != rec.kind || !info->name || rec.name != info->name)
    fail("its entry point disagrees with its note (name, kind or ABI); rebuild the plugin");
  if (info->api_version < kMinPluginApi)
    fail("written for plugin API " + std::to_string(info->api_version) + ", this loci needs at least " +
         std::to_string(kMinPluginApi));
  if (!info->create && info->kind != LOCI_PLUGIN_EXTENSION) fail("metadata lacks a factory");
  rec.info = info;
}

void PluginRegistry::load_extensions() const {
  for (const auto& p : plugins_)
    if (p.kind == LOCI_PLUGIN_EXTENSION) load(p);
}

const PluginRecord& PluginRegistry::find(const std::string& name, loci_plugin_kind kind) const {
  std::vector<std::string> names;
  for (const auto& p : plugins_) {
    if (p.kind != kind) continue;
    if (p.name == name) {
      for (const auto& [dup, file] : duplicates_)
        if (dup == name)
          throw UserError("plugin '" + name + "' is provided by both " + p.file.string() + " and " + file.string() +
                          "; remove one, or list '" + name + "' in `plugin_override:` to use the first");
      load(p);
      return p;
    }
    names.push_back(p.name);
  }
  const char* what = kind == LOCI_PLUGIN_TRAINER     ? "trainer"
                     : kind == LOCI_PLUGIN_EXTENSION ? "extension"
                                                     : "generator";
  std::string msg = std::string("no ") + what + " plugin named '" + name + "'";
  for (const auto& r : refused_)
    if (r.file.stem() == name) throw UserError(msg + "; " + r.file.string() + " was refused: " + r.reason);
  const auto near = config::nearest(name, names);
  if (!near.empty()) msg += " (did you mean '" + near + "'?)";
  if (names.empty()) msg += "; no " + std::string(what) + " plugins were found (see `loci plugins`)";
  // Where it was looked for, and how to look elsewhere: a plugin built out of tree is on no search path by itself.
  std::string folders;
  for (const auto& dir : searched_) folders += (folders.empty() ? "" : ":") + dir.string();
  msg += "; searched " + (folders.empty() ? std::string("no folder") : folders) +
         " (add its folder with `plugin_path:` or LOCI_PLUGIN_PATH)";
  throw UserError(msg);
}

namespace {
template <class T>
std::unique_ptr<T> create(const PluginRecord& rec) {
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

}  // namespace loci::plugins
