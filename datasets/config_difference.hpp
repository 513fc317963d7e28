// What differs between the resolved configuration a folder's dataset was made with and the one asked for, named key
// by key, so that a refusal to overwrite says which settings to change back (or that --force is really meant).
#pragma once

#include <cstddef>
#include <string>

namespace loci::datasets {

// "seed 7 vs 8, splits.train 600 vs 64" for two resolved configs given as YAML text: the dotted keys whose values
// differ (a key only one of them has reads "(absent)"), at most `max_keys` and "and N more" after them. "" when both
// hold the same values, or when either is not YAML that loci wrote (a damaged record: the caller says so).
std::string config_difference(const std::string& had, const std::string& want, std::size_t max_keys = 3);

}  // namespace loci::datasets
