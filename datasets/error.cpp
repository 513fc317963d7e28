#include "datasets/error.hpp"

namespace loci::datasets {

namespace {
// A message that spans lines would break the one-line contract of the command line; fold any that slip in.
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}
}  // namespace

DataError::DataError(const std::filesystem::path& file, const std::string& what)
    : std::runtime_error(one_line(file.string() + ": " + what)) {}

// Out of line so the type information lives in libloci_datasets only, and a throw from a plugin is caught by the host.
DataError::~DataError() = default;

}  // namespace loci::datasets
