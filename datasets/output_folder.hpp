// What a generation run may do with its output folder, and the journal that lets a killed run resume.
//
// The journal is a hidden folder `.loci-journal/` beside the shards: `dataset.json` (the run's identity, written
// before any shard) and one `<shard>.json` per finished shard (file, samples, bytes, sha256), written right after
// the shard is renamed into place. Each shard's record is its own file, so shard making stays independent per
// shard (a later multi-process runner can give each process `only_shards` without a shared file to contend for).
// index.json is written only when every shard of the plan has a record, and then the journal is removed.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "datasets/format.hpp"
#include "datasets/index.hpp"

namespace loci::data {

class OutputFolder {
 public:
  explicit OutputFolder(std::filesystem::path out);

  struct Found {
    std::map<std::string, ShardEntry> kept;  // shards of the plan whose checksum verifies, by file name
    std::string created;                     // `created` of the run being resumed, "" if none
  };

  // Refuses (DataError naming the folder) a folder that holds another dataset, or any loci content when neither
  // `resume` nor `force` is set, or foreign files unless `force`. With `force`, removes an older dataset's files
  // (never foreign ones). With `resume`, verifies the shards listed by index.json or the journal.
  Found prepare(const Index& wanted, const std::vector<ShardPlan>& plan, bool resume, bool force);

  // Records the run's identity (and the shards it keeps) in the journal, and takes down any index.json: from now on
  // the folder is a run in progress until finish().
  void begin(const Index& wanted, const std::map<std::string, ShardEntry>& kept);

  void record(const ShardEntry& entry);       // after the shard is in place
  std::vector<ShardEntry> recorded() const;   // every shard record in the journal

  // Writes dataset_card.md, then index.json; drops the journal when `drop_journal`.
  void finish(const Index& index, const std::string& card, bool drop_journal);

  const std::filesystem::path& path() const { return out_; }
  std::filesystem::path journal() const { return out_ / ".loci-journal"; }

 private:
  void remove_dataset_files();
  void remove_temporaries();
  std::filesystem::path out_;
};

}  // namespace loci::data
