#include "core/launch.hpp"

#include <cctype>
#include <cstdlib>

#include "core/error.hpp"

namespace loci {

namespace {

int count_from(const char* name, const char* value, int min) {
  char* end = nullptr;
  const long v = std::strtol(value, &end, 10);
  if (!*value || *end != '\0' || v < min || v > 1 << 20)
    throw UserError(std::string("environment variable ") + name + "='" + value + "' is not " +
                    (min == 0 ? "a rank (0, 1, ...)" : "a process count (1, 2, ...)"));
  return static_cast<int>(v);
}

// Rank 0's host and a port for a job step of Slurm, alike on every rank of the step.
void slurm_rendezvous(LaunchRank& r) {
  const char* nodes = std::getenv("SLURM_STEP_NODELIST");
  if (!nodes) nodes = std::getenv("SLURM_JOB_NODELIST");
  if (nodes) r.rendezvous_host = first_slurm_host(nodes);
  const char* job = std::getenv("SLURM_JOB_ID");
  const char* step = std::getenv("SLURM_STEP_ID");
  const unsigned long id =
      (job ? std::strtoul(job, nullptr, 10) : 0) * 31 + (step ? std::strtoul(step, nullptr, 10) : 0);
  // Above the usual ephemeral range's start is avoided: 20000-29999.
  r.rendezvous_port = 20000 + static_cast<int>(id % 10000);
}

}  // namespace

std::string first_slurm_host(const std::string& nodelist) {
  std::string first;
  int depth = 0;
  for (const char c : nodelist) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) break;
    first += c;
  }
  const auto open = first.find('[');
  if (open == std::string::npos) return first;
  // The first number of the bracket, zero padding kept: "07" of "07-09,12".
  std::string number;
  for (std::size_t i = open + 1; i < first.size() && std::isdigit(static_cast<unsigned char>(first[i])); ++i)
    number += first[i];
  const auto close = first.find(']', open);
  return first.substr(0, open) + number + (close == std::string::npos ? "" : first.substr(close + 1));
}

LaunchRank launch_rank() {
  static const char* const pairs[][2] = {{"RANK", "WORLD_SIZE"},
                                         {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                         {"PMI_RANK", "PMI_SIZE"},
                                         {"SLURM_PROCID", "SLURM_STEP_NUM_TASKS"}};
  for (const auto& pair : pairs) {
    const char* rank = std::getenv(pair[0]);
    if (!rank) continue;
    const char* size = std::getenv(pair[1]);
    if (!size && std::string(pair[0]) == "SLURM_PROCID") continue;  // a batch script, not a job step
    if (!size) throw UserError(std::string(pair[0]) + " is set but " + pair[1] + " is not; a launcher sets both");
    LaunchRank r;
    r.rank = count_from(pair[0], rank, 0);
    r.world_size = count_from(pair[1], size, 1);
    r.source = std::string(pair[0]) + "/" + pair[1];
    if (r.rank >= r.world_size)
      throw UserError(std::string(pair[0]) + "=" + rank + " is not below " + pair[1] + "=" + size);
    if (std::string(pair[0]) == "SLURM_PROCID") slurm_rendezvous(r);
    return r;
  }
  return {};
}

}  // namespace loci
