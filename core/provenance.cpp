#include "core/provenance.hpp"

#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <vector>

#include "core/shell_words.hpp"
#include "core/version.hpp"
#include "cpu/blas_kernel.hpp"
#include "cpu/features.hpp"

namespace loci {

namespace {

std::vector<std::string> command_words() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> words;
  std::string word;
  for (char c : raw)
    if (c == '\0')
      words.push_back(std::move(word)), word.clear();
    else
      word += c;
  if (!word.empty()) words.push_back(word);
  return words;
}

}  // namespace

std::string this_command() { return shell_line(command_words()); }

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

nlohmann::ordered_json provenance(bool blas) {
  nlohmann::ordered_json j;
  j["loci_version"] = kVersion;
  j["source_commit"] = kSourceCommit;
  j["command"] = this_command();
  if (const char* sweep = std::getenv(kSweepCommandVariable)) j["sweep_command"] = sweep;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  j["host"] = host;
  const cpu::Identity& id = cpu::identity();
  j["cpu"] = id.model_name;
  j["cpu_id"] = id.vendor + " family " + std::to_string(id.family) + " model " + std::to_string(id.model) +
                " stepping " + std::to_string(id.stepping);
  j["cpu_microarchitecture"] = id.microarchitecture();
  if (blas) {
    const cpu::Choice kernel = cpu::current();
    j["blas_kernel"] = kernel.kernel;
    j["blas_kernel_why"] = kernel.why;
  }
  return j;
}

}  // namespace loci
