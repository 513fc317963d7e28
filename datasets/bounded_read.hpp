// Reading the small files of a run or dataset folder (summary.json, sweep.json, a claim, a log) without trusting
// them: a link to /dev/zero, a FIFO or a multi-gigabyte file planted under such a name must give one clear line,
// never a hang or an exhausted memory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace loci::datasets {

// The whole file when it is a regular file (after links) of at most `limit` bytes; nullopt when it does not exist.
// DataError naming it when it is a FIFO, device or folder, or larger than `limit`. Never blocks.
std::optional<std::string> read_bounded(const std::filesystem::path& file, std::uintmax_t limit);

// Whether anything stands under `path`'s name (a file, a folder, a FIFO, a link even to nothing or to itself); never
// throws. What it is, is for the reader to check (check_inside, read_bounded), with an error naming it.
bool name_exists(const std::filesystem::path& path);

// `folder / name` as a file of that folder may be trusted: a regular file (a link is followed only while it stays
// inside `folder`) of at most `limit` bytes. False when it does not exist; DataError naming it when it is a FIFO,
// device or folder, a link that leaves the folder, or larger than `limit`. Never blocks, reads nothing.
bool check_inside(const std::filesystem::path& folder, const std::string& name, std::uintmax_t limit);

// read_bounded of `folder / name` after check_inside: nullopt when it does not exist.
std::optional<std::string> read_inside(const std::filesystem::path& folder, const std::string& name,
                                       std::uintmax_t limit);

// The last `bytes` of a regular file (a log's end); "" when it is absent or not a regular file. Never blocks.
std::string read_tail(const std::filesystem::path& file, std::uintmax_t bytes);

}  // namespace loci::datasets
