#include "plugins/api/provenance.hpp"

#include <unistd.h>

#include <ctime>
#include <fstream>

#include "plugins/api/blas_kernel.hpp"
#include "plugins/api/version.hpp"

namespace loci {

namespace {

std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), out;
  for (char c : raw) out += c == '\0' ? ' ' : c;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "";
}

}  // namespace

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
  j["command"] = command_line();
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  j["host"] = host;
  j["cpu"] = cpu_model();
  if (blas) {
    const blas::Choice kernel = blas::current();
    j["blas_kernel"] = kernel.kernel;
    j["blas_kernel_why"] = kernel.why;
  }
  return j;
}

}  // namespace loci
