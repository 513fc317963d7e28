// Files appear whole or not at all: the bytes go to a hidden temporary in the target's folder, are fsync'ed, and are
// renamed over the target; the folder is fsync'ed so the rename survives a power cut. On any failure (full disk,
// unwritable folder) the temporary is removed and a one-line DataError names the target.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace loci::datasets {

// ".name.<host>-<pid>.tmp" beside `target`: hidden, recognisable as ours when a killed run left it behind, and
// one per process, so that ranks of one run writing the same file (index.json) never write into one temporary.
std::filesystem::path temporary_name(const std::filesystem::path& target);
bool is_temporary_name(const std::string& filename);

// How far a write goes to survive a power cut. Each fsync costs milliseconds on most disks, so the shard writer
// syncs each shard's bytes but the folder only once, before index.json (whose own folder sync then covers every
// rename before it), and journal records not at all (a lost record only means its shard is checked or made again).
enum class Durability {
  full,       // fsync the file, rename, fsync the folder
  file_only,  // fsync the file, rename
  none,       // rename only: still all-or-nothing for readers, not for a power cut
};

void write_file_atomically(const std::filesystem::path& target, const void* data, std::size_t size,
                           Durability durability = Durability::full);
inline void write_file_atomically(const std::filesystem::path& target, const std::string& text,
                                  Durability durability = Durability::full) {
  write_file_atomically(target, text.data(), text.size(), durability);
}

// Creates `target` with `text` only if no file of that name exists, atomically even among processes on several
// hosts sharing a file system (a hard link to a complete temporary: readers never see a partial file). Returns
// false, writing nothing, when the file exists already.
bool create_file_exclusively(const std::filesystem::path& target, const std::string& text);

// fsync a folder, making the renames done in it durable.
void sync_folder(const std::filesystem::path& dir);

// Creates `dir` (and parents) or throws a DataError naming it.
void make_folder(const std::filesystem::path& dir);

// make_folder for a subfolder loci keeps inside a run or dataset folder (checkpoints/, .loci-journal/): refused when
// it is a symbolic link, so that nothing loci writes there lands outside the folder through a planted link.
void make_own_subfolder(const std::filesystem::path& dir);

}  // namespace loci::datasets
