// A variant's parameters (a topology's, a dynamics model's) as shard attributes, each typed as its ParamSpec
// declares it: integers and flags as int64, so a reader sees `periodic: 0`, not `0.0`.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/params.hpp"
#include "datasets/spec.hpp"

namespace loci::plugins {

inline void add_param_attributes(datasets::Attributes& attributes, const std::string& prefix,
                                 const std::vector<ParamSpec>& specs, const std::map<std::string, double>& values) {
  for (const auto& [name, value] : values) {
    bool whole = false;
    for (const auto& s : specs)
      if (s.name == name) whole = s.kind != ParamSpec::Kind::real;
    if (whole)
      attributes[prefix + name] = static_cast<std::int64_t>(value);
    else
      attributes[prefix + name] = value;
  }
}

}  // namespace loci::plugins
