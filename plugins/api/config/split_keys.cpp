#include "plugins/api/config/split_keys.hpp"

#include <algorithm>

#include "plugins/api/config/schema.hpp"
#include "plugins/api/error.hpp"

namespace loci::config {

void check_split_keys(const Node& map, const std::string& key, const Node& splits,
                      const std::vector<std::string>& defaults) {
  std::vector<std::string> names;
  for (const auto& [name, count] : splits.entries()) names.push_back(name);
  for (const auto& [name, value] : map.entries()) {
    if (splits.find(name) || std::find(defaults.begin(), defaults.end(), name) != defaults.end()) continue;
    const std::string near = nearest(name, names);
    throw UserError(value.key_mark().str() + ": '" + key + "' names split '" + name + "', which is not in `splits`" +
                    (near.empty() ? "" : " (did you mean '" + near + "'?)"));
  }
}

}  // namespace loci::config
