#include "datasets/bounded_read.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "datasets/error.hpp"

namespace loci::datasets {

namespace {

// An open regular file, or -1 with `why` set; O_NONBLOCK so that opening a FIFO does not wait for a writer.
int open_regular(const std::filesystem::path& file, std::string& why, off_t& size) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    why = errno == ENOENT ? "" : std::string("cannot be read (") + std::strerror(errno) + ")";
    return -1;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    why = "is not a regular file (a FIFO, a device or a folder stands under its name)";
    return -1;
  }
  size = st.st_size;
  return fd;
}

std::string read_from(int fd, off_t offset, std::uintmax_t count) {
  std::string out(static_cast<std::size_t>(count), '\0');
  std::size_t got = 0;
  while (got < out.size()) {
    const ssize_t n = ::pread(fd, out.data() + got, out.size() - got, offset + static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  out.resize(got);
  return out;
}

}  // namespace

std::optional<std::string> read_bounded(const std::filesystem::path& file, std::uintmax_t limit) {
  std::string why;
  off_t size = 0;
  const int fd = open_regular(file, why, size);
  if (fd < 0) {
    if (why.empty()) return std::nullopt;
    throw DataError(file, why);
  }
  if (static_cast<std::uintmax_t>(size) > limit) {
    ::close(fd);
    throw DataError(file, "is " + std::to_string(size) + " bytes, more than the " + std::to_string(limit) +
                              " such a file can hold (planted or damaged?)");
  }
  std::string text = read_from(fd, 0, static_cast<std::uintmax_t>(size));
  ::close(fd);
  return text;
}

bool name_exists(const std::filesystem::path& path) {
  std::error_code ec;
  const auto st = std::filesystem::symlink_status(path, ec);
  return !ec && st.type() != std::filesystem::file_type::not_found;
}

bool check_inside(const std::filesystem::path& folder, const std::string& name, std::uintmax_t limit) {
  namespace fs = std::filesystem;
  const fs::path file = folder / name;
  std::error_code ec;
  const auto link = fs::symlink_status(file, ec);
  if (ec || link.type() == fs::file_type::not_found) return false;
  if (link.type() == fs::file_type::symlink) {
    const fs::path target = fs::weakly_canonical(file, ec);
    const fs::path home = fs::weakly_canonical(folder, ec);
    const auto [end, at] = std::mismatch(home.begin(), home.end(), target.begin(), target.end());
    if (ec || end != home.end())
      throw DataError(file, "is a link to " + target.string() +
                                ", outside its folder; loci reads "
                                "a run's or dataset's files only inside it (remove the link)");
  }
  const auto st = fs::status(file, ec);
  if (ec || st.type() == fs::file_type::not_found) throw DataError(file, "is a link to nothing");
  if (st.type() != fs::file_type::regular)
    throw DataError(file, "is not a regular file (a FIFO, a device or a folder stands under its name)");
  const auto size = fs::file_size(file, ec);
  if (ec) throw DataError(file, "cannot be read (" + ec.message() + ")");
  if (size > limit)
    throw DataError(file, "is " + std::to_string(size) + " bytes, more than the " + std::to_string(limit) +
                              " such a file can hold (planted or damaged?)");
  return true;
}

std::optional<std::string> read_inside(const std::filesystem::path& folder, const std::string& name,
                                       std::uintmax_t limit) {
  if (!check_inside(folder, name, limit)) return std::nullopt;
  return read_bounded(folder / name, limit);
}

std::string read_tail(const std::filesystem::path& file, std::uintmax_t bytes) {
  std::string why;
  off_t size = 0;
  const int fd = open_regular(file, why, size);
  if (fd < 0) return "";
  const auto count = std::min<std::uintmax_t>(bytes, static_cast<std::uintmax_t>(size));
  std::string text = read_from(fd, size - static_cast<off_t>(count), count);
  ::close(fd);
  return text;
}

}  // namespace loci::datasets
