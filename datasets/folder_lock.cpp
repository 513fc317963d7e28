#include "datasets/folder_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "datasets/error.hpp"
#include "datasets/atomic_file.hpp"

namespace loci::data {

namespace {

std::string holder_of(int fd) {
  char buf[256] = {};
  const ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  std::string s = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s.empty() ? "another process" : s;
}

std::string me() {
  char host[128] = {};
  gethostname(host, sizeof host - 1);
  return "pid " + std::to_string(getpid()) + " on " + host + "\n";
}

}  // namespace

FolderLock::FolderLock(const std::filesystem::path& folder, const std::string& name) {
  make_folder(folder);
  const auto file = folder / name;
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw DataError(file, std::string("cannot be opened to claim the folder (") + std::strerror(errno) + ")");
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    const std::string holder = holder_of(fd_);
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK)
      throw DataError(folder, "is being written by " + holder + "; wait for it to finish or stop it (one writer per folder)");
    throw DataError(file, std::string("cannot be locked (") + std::strerror(err) + ")");
  }
  const std::string text = me();
  if (ftruncate(fd_, 0) == 0 && pwrite(fd_, text.data(), text.size(), 0) < 0) {
    // The holder's name is a courtesy to the next writer; the lock itself is what counts.
  }
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock; the file stays (removing it would race a new writer)
}

}  // namespace loci::data
