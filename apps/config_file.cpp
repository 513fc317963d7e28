#include "apps/config_file.hpp"

#include "core/error.hpp"
#include "core/printable.hpp"

namespace loci::apps {

namespace fs = std::filesystem;

fs::path share_folder() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return (exe.parent_path() / ".." / "share" / "loci").lexically_normal();
}

std::string locate_config(const std::string& given) {
  std::error_code ec;
  const fs::path path(given);
  // A name that exists here, an absolute one or an empty one is read as given: its own errors say what is wrong.
  if (given.empty() || path.is_absolute() || fs::symlink_status(path, ec).type() != fs::file_type::not_found)
    return given;
  const fs::path share = share_folder();
  for (const fs::path& candidate : {share / path, share / "configs" / path})
    if (fs::is_regular_file(candidate, ec)) return candidate.lexically_normal().string();
  throw UserError(printable(given) + ": no such file here (" + fs::current_path(ec).string() +
                  ") nor among the shipped configs (" + (share / "configs").string() + ")");
}

}  // namespace loci::apps
