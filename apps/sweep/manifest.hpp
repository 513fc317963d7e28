// A sweep's list of points, written beside its runs (<out>/sweep.json) when it runs here or is emitted for a
// scheduler, so that `loci sweep status` can say of every point, started or not, where it stands.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "apps/sweep/sweep.hpp"

namespace loci::apps {

void write_sweep_manifest(const SweepRequest& request, const std::vector<SweepPoint>& points);

// Where one point stands, read from its run folder alone (works on any node that sees the folder).
struct PointState {
  std::string name;
  std::string state;   // done, running, interrupted, failed, not started
  std::string detail;  // the headline of a finished run, the error line of a failed one, who holds a running one
};

// Every point of the sweep in `folder` (its sweep.json; without one, every run folder below it), in sweep order.
std::vector<PointState> sweep_status(const std::filesystem::path& folder);

}  // namespace loci::apps
