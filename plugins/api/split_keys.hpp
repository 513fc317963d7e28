// What generator plugins share of their configs: maps keyed by split name beside `splits` (network_dynamics'
// windows.runs, volumetric_parcels' subjects, ...).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config/node.hpp"
#include "datasets/windows.hpp"

namespace loci::plugins {

// An entry of `map` (the value of key `key`) for a split that is not in `splits` is a typo: UserError at the entry,
// naming the nearest split. Entries for the `defaults` splits are let through: their default entries stay in the
// map when a config trims `splits`.
void check_split_keys(const config::Node& map, const std::string& key, const config::Node& splits,
                      const std::vector<std::string>& defaults);

// Split `name`'s windows: `count` (its entry in `splits`) windows of `length` points every `stride`, cut from as many
// recordings as its entry in `map` (the value of key `key`) says. A split that asks for windows without an entry is
// a UserError at its count, saying what the entry is (`meaning`, e.g. "how many subjects its windows are cut
// from"); without an entry it has no recordings.
datasets::WindowPlan split_windows(const std::string& name, const config::Node& count, const config::Node& map,
                                   const std::string& key, std::int64_t length, std::int64_t stride,
                                   const std::string& meaning);

}  // namespace loci::plugins
