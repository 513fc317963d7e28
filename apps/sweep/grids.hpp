// A sweep made of several grids, e.g. learned PEs over sigma x seeds plus each fixed PE over seeds: the union of
// their points. Within one grid the overrides with one value are shared by its points; across grids they are what
// tells the grids apart, so they become part of each point and of its folder name.
#pragma once

#include <string>
#include <vector>

#include "apps/sweep/sweep.hpp"

namespace loci::apps {

// One grid: exactly plan_sweep. Several: the union, names unique across grids (UserError if two points coincide).
Sweep plan_sweep_grids(const std::vector<std::vector<std::string>>& grids);

}  // namespace loci::apps
