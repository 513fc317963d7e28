#include "datasets/checked_file.hpp"

#include <optional>

#include <nlohmann/json.hpp>

#include "datasets/atomic_file.hpp"
#include "datasets/bounded_read.hpp"
#include "datasets/checksum.hpp"
#include "datasets/error.hpp"

namespace loci::datasets {

void write_checked(const std::filesystem::path& file, const char* bytes, std::size_t size) {
  const std::filesystem::path record = file.string() + ".sha256";
  const std::string now = sha256_hex(bytes, size);
  nlohmann::json accepted = nlohmann::json::array({now});
  try {
    if (const auto had = read_bounded(record, 4096)) {
      const auto j = nlohmann::json::parse(*had);
      if (j.contains("sha256") && j["sha256"].is_array() && !j["sha256"].empty()) accepted.push_back(j["sha256"][0]);
    }
  } catch (const std::exception&) {
    // An unreadable record is replaced; the file it described is about to be.
  }
  write_file_atomically(record, nlohmann::json({{"sha256", accepted}}).dump() + "\n");
  write_file_atomically(file, bytes, size);
  write_file_atomically(record, nlohmann::json({{"sha256", {now}}}).dump() + "\n");
}

void verify_checked(const std::filesystem::path& file, const std::string& remedy) {
  const std::filesystem::path record = file.string() + ".sha256";
  std::optional<std::string> text;
  try {
    text = read_bounded(record, 4096);
  } catch (const std::exception&) {
    throw DataError(record, "the checksum record is not a plain file; remove it");
  }
  if (!text) return;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(*text);
  } catch (const nlohmann::json::exception&) {
    throw DataError(record, "is not a checksum record (damaged?); remove it to read the file unchecked");
  }
  const std::string digest = sha256_file(file);
  if (j.is_object() && j.contains("sha256") && j["sha256"].is_array())
    for (const auto& accepted : j["sha256"])
      if (accepted.is_string() && accepted.get<std::string>() == digest) return;
  throw DataError(
      file, "does not match its checksum (" + file.filename().string() + ".sha256): the file is damaged; " + remedy);
}

}  // namespace loci::datasets
