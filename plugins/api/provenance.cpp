#include "plugins/api/provenance.hpp"

#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <vector>

#include "plugins/api/blas_kernel.hpp"
#include "plugins/api/shell_words.hpp"
#include "plugins/api/version.hpp"

namespace loci {

namespace {

std::vector<std::string> command_words() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> words;
  std::string word;
  for (char c : raw)
    if (c == '\0') words.push_back(std::move(word)), word.clear();
    else word += c;
  if (!word.empty()) words.push_back(word);
  return words;
}

// The /proc/cpuinfo fields of the first CPU.
std::map<std::string, std::string> cpu_fields() {
  std::ifstream in("/proc/cpuinfo");
  std::map<std::string, std::string> fields;
  for (std::string line; std::getline(in, line) && !line.empty();) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    fields[key] = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
  }
  return fields;
}

// The core generation of the CPUs loci is measured on, from vendor, family and model; "" for others. A model name
// such as "AMD EPYC" (what a virtual machine often shows) names no generation, and kernels differ by it.
std::string microarchitecture(const std::string& vendor, int family, int model) {
  struct Range {
    const char* vendor;
    int family, first, last;
    const char* name;
  };
  static const Range ranges[] = {
      {"AuthenticAMD", 23, 0x00, 0x2f, "Zen / Zen+"},  {"AuthenticAMD", 23, 0x30, 0xff, "Zen 2"},
      {"AuthenticAMD", 25, 0x00, 0x0f, "Zen 3"},       {"AuthenticAMD", 25, 0x10, 0x1f, "Zen 4"},
      {"AuthenticAMD", 25, 0x20, 0x5f, "Zen 3"},       {"AuthenticAMD", 25, 0x60, 0xaf, "Zen 4"},
      {"AuthenticAMD", 26, 0x00, 0xff, "Zen 5"},       {"GenuineIntel", 6, 85, 85, "Skylake-SP / Cascade Lake / Cooper Lake"},
      {"GenuineIntel", 6, 106, 106, "Ice Lake-SP"},    {"GenuineIntel", 6, 143, 143, "Sapphire Rapids"},
      {"GenuineIntel", 6, 207, 207, "Emerald Rapids"}, {"GenuineIntel", 6, 173, 173, "Granite Rapids"}};
  for (const Range& r : ranges)
    if (vendor == r.vendor && family == r.family && model >= r.first && model <= r.last) return r.name;
  return "";
}

int number(const std::map<std::string, std::string>& f, const std::string& key) {
  const auto it = f.find(key);
  try {
    return it == f.end() ? -1 : std::stoi(it->second);
  } catch (const std::exception&) {
    return -1;
  }
}

std::string text(const std::map<std::string, std::string>& f, const std::string& key) {
  const auto it = f.find(key);
  return it == f.end() ? "" : it->second;
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
  const auto cpu = cpu_fields();
  const std::string vendor = text(cpu, "vendor_id");
  const int family = number(cpu, "cpu family"), model = number(cpu, "model");
  j["cpu"] = text(cpu, "model name");
  j["cpu_id"] = vendor + " family " + std::to_string(family) + " model " + std::to_string(model) + " stepping " +
                std::to_string(number(cpu, "stepping"));
  j["cpu_microarchitecture"] = microarchitecture(vendor, family, model);
  if (blas) {
    const blas::Choice kernel = blas::current();
    j["blas_kernel"] = kernel.kernel;
    j["blas_kernel_why"] = kernel.why;
  }
  return j;
}

}  // namespace loci
