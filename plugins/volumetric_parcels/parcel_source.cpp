#include "parcel_source.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "core/config/fail_at.hpp"
#include "sim/volume/label_names.hpp"

namespace loci::volumetric_parcels {

void name_tokens(ParcelTemplate& t, const ParcelsOptions& o, const std::string& atlas) {
  if (o.label_file.empty()) return;
  std::map<std::int32_t, std::string> names;
  try {
    names = sim::volume::read_label_names(o.label_file);
  } catch (const std::exception& e) {
    config::fail_at(o.label_file_mark, e.what());
  }
  for (const std::int32_t label : t.original_labels) {
    const auto it = names.find(label);
    if (it == names.end())
      config::fail_at(o.label_file_mark, o.label_file + " has no name for label " + std::to_string(label) + " of " +
                                             atlas + " (is it that atlas's label file?)");
    t.facts.token_labels.push_back(it->second);
  }
}

void describe_grid(ParcelTemplate& t, const sim::volume::Grid& g) {
  const Eigen::Vector3d v = g.spacing_mm();
  std::ostringstream s;
  s << g.dims[0] << " x " << g.dims[1] << " x " << g.dims[2] << " voxels of " << v.x() << " x " << v.y() << " x "
    << v.z() << " mm";
  t.facts.grid = s.str();
  const auto& volumes = t.parcel_facts.volumes_mm3;
  if (!volumes.empty()) {
    const auto [lo, hi] = std::minmax_element(volumes.begin(), volumes.end());
    t.facts.min_volume_mm3 = *lo, t.facts.max_volume_mm3 = *hi;
    for (auto a : t.parcel_facts.adjacency) t.facts.edges += a;
    t.facts.edges /= 2;
  }
}

}  // namespace loci::volumetric_parcels
