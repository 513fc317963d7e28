#include "sim/volume/label_names.hpp"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace loci::sim::volume {

std::map<std::int32_t, std::string> read_label_names(const std::string& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) throw std::runtime_error(file + ": not a readable label file");
  std::ifstream in(file);
  if (!in) throw std::runtime_error(file + ": cannot read");
  std::map<std::int32_t, std::string> names;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::istringstream words(line);
    std::string first, name;
    if (!(words >> first)) continue;
    char* end = nullptr;
    errno = 0;
    const long label = std::strtol(first.c_str(), &end, 10);
    if (*end != '\0' || errno != 0) continue;  // a header or a comment
    if (label < INT32_MIN || label > INT32_MAX)
      throw std::runtime_error(file + ":" + std::to_string(number) + ": label " + first + " is out of range");
    if (!(words >> name))
      throw std::runtime_error(file + ":" + std::to_string(number) + ": label " + first + " has no name");
    if (!names.emplace(static_cast<std::int32_t>(label), name).second)
      throw std::runtime_error(file + ":" + std::to_string(number) + ": label " + first + " is listed twice");
  }
  return names;
}

std::string label_file_beside(const std::string& nifti) {
  std::string stem = nifti;
  if (stem.size() > 3 && stem.compare(stem.size() - 3, 3, ".gz") == 0) stem.resize(stem.size() - 3);
  const std::string candidate = stem + ".txt";
  std::error_code ec;
  return std::filesystem::is_regular_file(candidate, ec) ? candidate : "";
}

}  // namespace loci::sim::volume
