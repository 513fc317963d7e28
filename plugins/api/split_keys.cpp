#include "plugins/api/split_keys.hpp"

#include <algorithm>

#include "core/config/fail_at.hpp"
#include "core/config/schema.hpp"
#include "core/error.hpp"

namespace loci::plugins {

using config::fail_at;
using config::nearest;
using config::Node;

void check_split_keys(const Node& map, const std::string& key, const Node& splits,
                      const std::vector<std::string>& defaults) {
  std::vector<std::string> names;
  for (const auto& [name, count] : splits.entries()) names.push_back(name);
  for (const auto& [name, value] : map.entries()) {
    if (splits.find(name) || std::find(defaults.begin(), defaults.end(), name) != defaults.end()) continue;
    const std::string near = nearest(name, names);
    fail_at(value.key_mark(), "'" + key + "' names split '" + name + "', which is not in `splits`" +
                                  (near.empty() ? "" : " (did you mean '" + near + "'?)"));
  }
}

datasets::WindowPlan split_windows(const std::string& name, const Node& count, const Node& map, const std::string& key,
                                   std::int64_t length, std::int64_t stride, const std::string& meaning) {
  datasets::WindowPlan w;
  w.samples = count.as_int();
  w.length = length;
  w.stride = stride;
  if (const Node* entry = map.find(name))
    w.recordings = entry->as_int();
  else if (w.samples > 0)
    fail_at(count.key_mark(), "split '" + name + "' has no entry in " + key + " (" + meaning + ")");
  return w;
}

}  // namespace loci::plugins
