// import.regions tables shipped with the plugin, named `builtin:<name>`.
#pragma once

#include <optional>
#include <string>

namespace loci::volumetric_parcels {

// The table's text, or nullopt for a name that is not built in. builtin:nitime_aal places nitime's resting-state
// regions at AAL regions (nitime_aal_regions.csv says which and why).
std::optional<std::string> builtin_region_table(const std::string& name);

}  // namespace loci::volumetric_parcels
