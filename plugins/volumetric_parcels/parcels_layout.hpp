// A volumetric_parcels dataset's arrays and attributes: the window of activity per sample, then what is known of the
// parcels (positions, distances, hemispheres; voxels, labels and adjacency where a volume exists; region names).
#pragma once

#include "datasets/spec.hpp"
#include "parcel_source.hpp"

namespace loci::volumetric_parcels {

datasets::DatasetLayout parcels_layout(const ParcelSource& source, const ParcelsOptions& o);

}  // namespace loci::volumetric_parcels
