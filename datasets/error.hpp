// The one exception type for data problems a user can cause and fix: an unreadable or corrupt file, a full disk, an
// unwritable folder, a shard of another schema. Its message is one line that starts with the file it is about, so
// the `loci` command can print it as is.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace loci::datasets {

class DataError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  DataError(const std::filesystem::path& file, const std::string& what);
  ~DataError() override;
};

}  // namespace loci::datasets
