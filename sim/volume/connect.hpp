// Face-connected pieces of labelled voxels, and the repair that leaves every label one piece.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/volume/grid.hpp"

namespace loci::sim::volume {

// Voxels of a region as a graph: neighbours[v] holds v's face neighbours within the region, -1 for none.
using FaceGraph = std::vector<std::array<std::int32_t, 6>>;

// Makes every part (part[v] >= 0) one connected piece of `graph`: a part keeps its largest piece (the first in voxel
// order on ties); every other piece joins the part it shares the most faces with among the pieces kept so far (the
// lowest part on ties), until none is left. `graph` must be connected. Returns the number of voxels that moved.
std::int64_t merge_fragments(const FaceGraph& graph, std::vector<std::int32_t>& part);

// Face-connected pieces of the voxels labelled `label`.
std::int64_t count_pieces(const LabelVolume& volume, std::int32_t label);

}  // namespace loci::sim::volume
