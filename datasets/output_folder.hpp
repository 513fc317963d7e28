// What a generation run may do with its output folder, and the journal that lets a killed run resume.
//
// The journal is a hidden folder `.loci-journal/` beside the shards: `dataset.json` (the run's identity, written
// before any shard) and one `<shard>.json` per finished shard (file, samples, bytes, sha256), written right after
// the shard is renamed into place. Each shard's record is its own file, so the ranks of a multi-process run (each
// making its own shards, `shared` below) write into one folder without a shared file to contend for: the records
// are the per-rank index fragments. index.json is written only when every shard of the plan has a record, by
// whichever process finds that first, and then the journal is removed.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "datasets/format.hpp"
#include "datasets/index.hpp"

namespace loci::datasets {

class OutputFolder {
 public:
  explicit OutputFolder(std::filesystem::path out);

  struct Found {
    std::map<std::string, ShardEntry> kept;  // shards of the plan whose checksum verifies, by file name
    std::string created;                     // `created` of the run being resumed, "" if none
  };

  // Refuses (DataError naming the folder) a folder that holds another dataset, or any loci content when neither
  // `resume` nor `force` is set, or foreign files unless `force`. With `force`, removes an older dataset's files
  // (never foreign ones). With `resume`, verifies the shards of `plan` listed by index.json or the journal.
  // `shared`: other processes of the same run write here at once, each making its own `plan`; an unfinished run of
  // this dataset is theirs, not an obstacle, and only temporaries of `plan`'s shards are cleared. Never with force.
  Found prepare(const Index& wanted, const std::vector<ShardPlan>& plan, bool resume, bool force, bool shared = false);

  // Records the run's identity (and the shards it keeps) in the journal, and takes down any index.json: from now on
  // the folder is a run in progress until finish(). Returns the `created` of the journal's identity: with `shared`,
  // the first process to get here writes it and the others keep theirs, so that all can agree on one.
  std::string begin(const Index& wanted, const std::map<std::string, ShardEntry>& kept, bool shared = false);

  // The identity of the run in progress (the journal's dataset.json), or nullopt when there is none.
  std::optional<Index> in_progress() const;

  void record(const ShardEntry& entry);      // after the shard is in place
  std::vector<ShardEntry> recorded() const;  // every shard record in the journal

  // Writes dataset_card.md, then index.json; drops the journal when `drop_journal`.
  void finish(const Index& index, const std::string& card, bool drop_journal);

  const std::filesystem::path& path() const { return out_; }
  std::filesystem::path journal() const { return out_ / ".loci-journal"; }

 private:
  void remove_dataset_files();
  void remove_temporaries(const std::vector<ShardPlan>* only = nullptr);
  std::filesystem::path out_;
};

}  // namespace loci::datasets
