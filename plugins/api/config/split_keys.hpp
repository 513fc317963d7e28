// Maps keyed by split name beside `splits` (network_dynamics' windows.runs, volumetric_parcels' subjects, ...).
#pragma once

#include <string>
#include <vector>

#include "plugins/api/config/node.hpp"

namespace loci::config {

// An entry of `map` (the value of key `key`) for a split that is not in `splits` is a typo: UserError at the entry,
// naming the nearest split. Entries for the `defaults` splits are let through: their default entries stay in the
// map when a config trims `splits`.
void check_split_keys(const Node& map, const std::string& key, const Node& splits,
                      const std::vector<std::string>& defaults);

}  // namespace loci::config
