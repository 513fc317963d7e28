// One writer per folder: a run folder or a dataset folder is claimed by an advisory lock (flock) on a file inside
// it, held until the process ends or releases it. The kernel drops the lock when the process dies, even by SIGKILL,
// so a crashed writer never leaves the folder claimed. A second writer is refused at once with a line naming the
// folder and the process that holds it.
#pragma once

#include <filesystem>
#include <string>

#include <boost/core/noncopyable.hpp>

namespace loci::datasets {

class FolderLock : boost::noncopyable {
 public:
  // Creates `folder` if needed, then locks `folder/name`; DataError naming the folder when another process holds it.
  explicit FolderLock(const std::filesystem::path& folder, const std::string& name = ".loci-lock");
  ~FolderLock();

 private:
  int fd_ = -1;
};

// Who is writing `folder` now: the holder's line ("pid N on host") when a live process holds its claim, "" when
// none does. Only looks: never claims, never blocks, and a claim file that is not a plain file counts as no writer.
std::string folder_writer(const std::filesystem::path& folder, const std::string& name = ".loci-lock");

}  // namespace loci::datasets
