#include "datasets/output_folder.hpp"

#include <fstream>
#include <regex>

#include "datasets/atomic_file.hpp"
#include "datasets/checksum.hpp"
#include "datasets/error.hpp"

namespace loci::datasets {

namespace fs = std::filesystem;

namespace {

bool is_shard_name(const std::string& name) {
  static const std::regex pattern(R"([A-Za-z0-9_][A-Za-z0-9_.-]*-[0-9]{5,}-of-[0-9]{5,}\.h5)");
  return std::regex_match(name, pattern);
}

std::vector<fs::path> entries_of(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) out.push_back(it->path());
  if (ec) throw DataError(dir, "cannot list folder (" + ec.message() + ")");
  return out;
}

void remove_path(const fs::path& p) {
  std::error_code ec;
  fs::remove_all(p, ec);
  if (ec) throw DataError(p, "cannot remove (" + ec.message() + ")");
}

}  // namespace

OutputFolder::OutputFolder(fs::path out) : out_(std::move(out)) {}

OutputFolder::Found OutputFolder::prepare(const Index& wanted, const std::vector<ShardPlan>& plan, bool resume,
                                          bool force, bool shared) {
  std::error_code ec;
  if (!fs::exists(out_, ec)) {
    make_folder(out_);
    return {};
  }
  if (!fs::is_directory(out_, ec)) throw DataError(out_, "exists and is not a folder");

  const fs::path index_file = out_ / "index.json", identity_file = journal() / "dataset.json";
  const bool complete = fs::exists(index_file, ec);
  const fs::path source = complete ? index_file : identity_file;
  std::optional<Index> prior;
  if (fs::exists(source, ec)) {
    try {
      prior = Index::load(source);
    } catch (const DataError& e) {
      if (!force)
        throw DataError(
            out_, std::string("holds a dataset this run cannot read (") + e.what() + "); pass --force to replace it");
    }
  }

  if (!prior) {
    bool empty = true;
    for (const auto& p : entries_of(out_)) {
      const std::string name = p.filename().string();
      const bool lock = name.rfind(".loci-lock", 0) == 0;  // this run's own claim on the folder (folder_lock.hpp)
      if (!is_temporary_name(name) && name != journal().filename().string() && !lock) empty = false;
    }
    if (!empty && !force)
      throw DataError(out_, "is not empty and holds no loci dataset; choose an empty folder or pass --force");
    // Even with force, files we did not make stay: force only lets the run write among them.
    remove_temporaries(shared ? &plan : nullptr);
    return {};
  }

  if (auto diff = identity_difference(prior->identity(), wanted.identity())) {
    if (!force)
      throw DataError(out_, "holds a different dataset (" + *diff + " in " + source.filename().string() +
                                "); pass --force to replace it");
    remove_dataset_files();
    return {};
  }
  if (!resume) {
    if (shared && !complete) return Found{{}, prior->created};  // the run the other ranks are making
    if (!force)
      throw DataError(out_,
                      std::string(complete ? "already holds this dataset" : "holds an unfinished run of this dataset") +
                          "; pass --resume to keep its verified shards or --force to remake it");
    remove_dataset_files();
    return {};
  }

  remove_temporaries(shared ? &plan : nullptr);
  Found found;
  found.created = prior->created;
  std::map<std::string, ShardEntry> listed;
  for (const auto& e : complete ? prior->shards : recorded()) listed[e.file] = e;
  for (const auto& p : plan) {
    auto it = listed.find(p.file);
    if (it == listed.end()) continue;
    const ShardEntry& e = it->second;
    const fs::path file = out_ / e.file;
    if (e.split != p.split || e.first_sample != p.first || e.samples != p.samples) continue;
    if (!fs::exists(file, ec) || static_cast<std::int64_t>(fs::file_size(file, ec)) != e.bytes) continue;
    if (sha256_file(file) == e.sha256) found.kept.emplace(e.file, e);
  }
  return found;
}

std::string OutputFolder::begin(const Index& wanted, const std::map<std::string, ShardEntry>& kept, bool shared) {
  make_own_subfolder(journal());
  Index identity = wanted;
  identity.shards.clear();
  const fs::path identity_file = journal() / "dataset.json";
  const std::string text = identity.to_json().dump(2) + "\n";
  std::string created = wanted.created;
  if (!shared) {
    write_file_atomically(identity_file, text);
  } else if (!create_file_exclusively(identity_file, text)) {
    const Index had = Index::load(identity_file);
    if (auto diff = identity_difference(had.identity(), wanted.identity()))
      throw DataError(out_, "another process is making a different dataset here (" + *diff + " in " +
                                identity_file.filename().string() + ")");
    created = had.created;
  }
  for (const auto& [file, entry] : kept)
    if (!fs::exists(journal() / (file + ".json"))) record(entry);
  std::error_code ec;
  fs::remove(out_ / "index.json", ec);
  if (ec) throw DataError(out_ / "index.json", "cannot remove (" + ec.message() + ")");
  return created;
}

std::optional<Index> OutputFolder::in_progress() const {
  std::error_code ec;
  if (!fs::exists(journal() / "dataset.json", ec)) return std::nullopt;
  return Index::load(journal() / "dataset.json");
}

void OutputFolder::record(const ShardEntry& e) {
  const nlohmann::ordered_json j{{"file", e.file},       {"split", e.split}, {"first_sample", e.first_sample},
                                 {"samples", e.samples}, {"bytes", e.bytes}, {"sha256", e.sha256}};
  write_file_atomically(journal() / (e.file + ".json"), j.dump(2) + "\n", Durability::none);
}

std::vector<ShardEntry> OutputFolder::recorded() const {
  std::vector<ShardEntry> out;
  std::error_code ec;
  std::vector<fs::path> entries;
  for (fs::directory_iterator it(journal(), ec), end; !ec && it != end; it.increment(ec)) entries.push_back(it->path());
  // Another rank that found the run complete may be removing the journal: what is gone counts as not recorded.
  if (ec && ec != std::errc::no_such_file_or_directory)
    throw DataError(journal(), "cannot list folder (" + ec.message() + ")");
  for (const auto& p : entries) {
    const std::string name = p.filename().string();
    if (name == "dataset.json" || is_temporary_name(name) || p.extension() != ".json") continue;
    // A record that does not parse is treated as absent: its shard is simply made again.
    try {
      std::ifstream in(p);
      const auto j = nlohmann::json::parse(in);
      ShardEntry e{j.at("file").get<std::string>(),          j.at("split").get<std::string>(),
                   j.at("first_sample").get<std::int64_t>(), j.at("samples").get<std::int64_t>(),
                   j.at("bytes").get<std::int64_t>(),        j.at("sha256").get<std::string>()};
      if (e.file + ".json" == name) out.push_back(std::move(e));
    } catch (const std::exception&) {
    }
  }
  return out;
}

void OutputFolder::finish(const Index& index, const std::string& card, bool drop_journal) {
  sync_folder(out_);  // every shard's rename is durable before index.json can list it
  write_file_atomically(out_ / "dataset_card.md", card);
  write_file_atomically(out_ / "index.json", index.to_json().dump(2) + "\n");
  if (drop_journal) {
    // Ranks finishing together may both drop it: what the other has removed already is no error.
    std::error_code ec;
    fs::remove_all(journal(), ec);
    if (ec && ec != std::errc::no_such_file_or_directory)
      throw DataError(journal(), "cannot remove (" + ec.message() + ")");
  }
}

void OutputFolder::remove_dataset_files() {
  for (const auto& p : entries_of(out_)) {
    const std::string name = p.filename().string();
    if (name == "index.json" || name == "dataset_card.md" || is_shard_name(name) || is_temporary_name(name) ||
        name == journal().filename().string())
      remove_path(p);
  }
}

void OutputFolder::remove_temporaries(const std::vector<ShardPlan>* only) {
  auto ours = [&](const std::string& name) {
    if (!only) return true;
    for (const auto& s : *only)
      if (name.rfind("." + s.file + ".", 0) == 0) return true;
    return false;
  };
  for (const auto& p : entries_of(out_)) {
    const std::string name = p.filename().string();
    if (is_temporary_name(name) && ours(name)) remove_path(p);
  }
}

}  // namespace loci::datasets
