#include "datasets/folder_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "datasets/atomic_file.hpp"
#include "datasets/error.hpp"

namespace loci::datasets {

namespace {

std::string contents(int fd) {
  char buf[256] = {};
  const ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
}

std::string holder_of(int fd) {
  std::string s = contents(fd);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s.empty() ? "another process" : s;
}

// A claim this code wrote ("pid N on host"), or an empty file: the only contents loci may overwrite.
bool is_claim(const std::string& text) { return text.empty() || text.rfind("pid ", 0) == 0; }

std::string me() {
  char host[128] = {};
  gethostname(host, sizeof host - 1);
  return "pid " + std::to_string(getpid()) + " on " + host + "\n";
}

}  // namespace

FolderLock::FolderLock(const std::filesystem::path& folder, const std::string& name) {
  make_folder(folder);
  const auto file = folder / name;
  // O_NOFOLLOW: a planted link must not make the claim write through it to a file elsewhere.
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd_ < 0 && errno == ELOOP)
    throw DataError(file,
                    "is a symbolic link; loci claims a folder only through a plain file of its own (remove the link)");
  if (fd_ < 0)
    throw DataError(file, std::string("cannot be opened to claim the folder (") + std::strerror(errno) + ")");
  struct stat st {};
  const bool plain = fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1;
  if (!plain || !is_claim(contents(fd_))) {
    ::close(fd_);
    fd_ = -1;
    throw DataError(file, plain ? "holds something other than a loci claim; loci will not overwrite it (move it away)"
                                : "is not a plain file of its own (a device, a folder or a hard link to another file); "
                                  "remove it");
  }
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    const std::string holder = holder_of(fd_);
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK)
      throw DataError(folder,
                      "is being written by " + holder + "; wait for it to finish or stop it (one writer per folder)");
    throw DataError(file, std::string("cannot be locked (") + std::strerror(err) + ")");
  }
  const std::string text = me();
  if (ftruncate(fd_, 0) == 0 && pwrite(fd_, text.data(), text.size(), 0) < 0) {
    // The holder's name is a courtesy to the next writer; the lock itself is what counts.
  }
}

std::string folder_writer(const std::filesystem::path& folder, const std::string& name) {
  const auto file = folder / name;
  const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return "";
  struct stat st {};
  std::string holder;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    if (flock(fd, LOCK_SH | LOCK_NB) == 0)
      flock(fd, LOCK_UN);
    else if (errno == EWOULDBLOCK)
      holder = holder_of(fd);
  }
  ::close(fd);
  return holder;
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock; the file stays (removing it would race a new writer)
}

}  // namespace loci::datasets
