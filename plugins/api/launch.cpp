#include "plugins/api/launch.hpp"

#include <cstdlib>

#include "plugins/api/error.hpp"

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

}  // namespace

LaunchRank launch_rank() {
  static const char* const pairs[][2] = {
      {"RANK", "WORLD_SIZE"}, {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}, {"PMI_RANK", "PMI_SIZE"}};
  for (const auto& pair : pairs) {
    const char* rank = std::getenv(pair[0]);
    if (!rank) continue;
    const char* size = std::getenv(pair[1]);
    if (!size) throw UserError(std::string(pair[0]) + " is set but " + pair[1] + " is not; a launcher sets both");
    LaunchRank r;
    r.rank = count_from(pair[0], rank, 0);
    r.world_size = count_from(pair[1], size, 1);
    r.source = std::string(pair[0]) + "/" + pair[1];
    if (r.rank >= r.world_size)
      throw UserError(std::string(pair[0]) + "=" + rank + " is not below " + pair[1] + "=" + size);
    return r;
  }
  return {};
}

}  // namespace loci
