#include "datasets/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "datasets/error.hpp"

namespace loci::datasets {

namespace fs = std::filesystem;

namespace {

std::string process_tag() {
  char host[65] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  std::string tag;
  for (const char* c = host; *c && tag.size() < 32; ++c)
    tag += (std::isalnum(static_cast<unsigned char>(*c)) || *c == '-') ? *c : '_';
  return tag + "-" + std::to_string(::getpid());
}

}  // namespace

fs::path temporary_name(const fs::path& target) {
  // Computed per call: a forked child (a sweep's run) has its own pid.
  return target.parent_path() / ("." + target.filename().string() + "." + process_tag() + ".tmp");
}

bool is_temporary_name(const std::string& filename) {
  return filename.size() > 5 && filename[0] == '.' && filename.compare(filename.size() - 4, 4, ".tmp") == 0;
}

namespace {

std::string reason(int err) { return std::strerror(err); }

}  // namespace

void sync_folder(const fs::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // some file systems refuse to open folders for sync; the rename has still happened
  ::fsync(fd);
  ::close(fd);
}

void write_file_atomically(const fs::path& target, const void* data, std::size_t size, Durability durability) {
  const fs::path tmp = temporary_name(target);
  // A leftover (a crash's, or a link someone planted) is removed, never written through: O_EXCL | O_NOFOLLOW.
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) throw DataError(target, "cannot write (" + reason(errno) + ")");

  auto fail = [&](const std::string& what, int err) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw DataError(target, what + " (" + reason(err) + ")");
  };
  const char* p = static_cast<const char*>(data);
  std::size_t left = size;
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write failed", errno);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (durability != Durability::none && ::fsync(fd) != 0) fail("fsync failed", errno);
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw DataError(target, "close failed (" + reason(err) + ")");
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw DataError(target, "cannot rename into place (" + reason(err) + ")");
  }
  if (durability == Durability::full) sync_folder(target.parent_path());
}

bool create_file_exclusively(const fs::path& target, const std::string& text) {
  const fs::path tmp = temporary_name(target);
  write_file_atomically(tmp, text, Durability::file_only);
  const int linked = ::link(tmp.c_str(), target.c_str());
  const int err = errno;
  ::unlink(tmp.c_str());
  if (linked == 0) {
    sync_folder(target.parent_path());
    return true;
  }
  if (err == EEXIST) return false;
  throw DataError(target, "cannot create (" + reason(err) + ")");
}

void make_folder(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw DataError(dir, "cannot create folder (" + ec.message() + ")");
  if (!fs::is_directory(dir)) throw DataError(dir, "not a folder");
}

void make_own_subfolder(const fs::path& dir) {
  std::error_code ec;
  if (fs::is_symlink(dir, ec))
    throw DataError(dir,
                    "is a symbolic link; loci writes this folder's own files only into a plain folder inside it "
                    "(remove the link)");
  make_folder(dir);
}

}  // namespace loci::datasets
