#include "apps/sweep/grids.hpp"

#include <set>

#include "core/error.hpp"
#include "core/printable.hpp"

namespace loci::apps {

Sweep plan_sweep_grids(const std::vector<std::vector<std::string>>& grids) {
  if (grids.size() == 1) return plan_sweep(grids.front());
  Sweep all;
  std::set<std::string> names;
  for (const auto& grid : grids) {
    const Sweep s = plan_sweep(grid);
    for (const auto& p : s.points) {
      SweepPoint q;
      q.overrides = s.fixed;
      q.overrides.insert(q.overrides.end(), p.overrides.begin(), p.overrides.end());
      q.name = point_folder_name(q.overrides);
      if (q.name.empty()) q.name = "run";
      if (!names.insert(q.name).second)
        throw UserError("sweep: the point '" + printable(q.name) +
                        "' is in two grids; make each grid differ in a fixed key");
      all.points.push_back(std::move(q));
    }
  }
  return all;
}

}  // namespace loci::apps
