// The region tables volumetric_parcels ships for import.regions (`builtin:<name>`), compiled in so that a shipped
// config names them from any folder. The text is nitime_aal_regions.csv beside this file, kept identical by
// tests/plugins/volumetric_parcels (it reads both).
#include "builtin_regions.hpp"

namespace loci::volumetric_parcels {

std::optional<std::string> builtin_region_table(const std::string& name) {
  if (name == "builtin:nitime_aal")
    return std::string(
        R"csv(# nitime's resting-state regions (python3-nitime: nitime/data/fmri_timeseries.csv) placed at AAL regions
# (mricron-data: /usr/share/mricron/templates/aal.nii.gz, names from aal.nii.txt), for
# `import.regions: builtin:nitime_aal` (configs/fmri_nitime.yaml). Only regions with a one-to-one AAL
# counterpart are kept:
#   left out: WM, Vent, Brain (not grey-matter regions); LFpol, RFpol (AAL has no frontal pole); LParaCing,
#   RParaCing (the paracingulate gyrus has no AAL region of its own); LPostPHG, APHG, RPostPHG, RAntPHG (AAL has one
#   ParaHippocampal region per side, so the anterior and posterior parts would share one centroid; APHG is the left
#   anterior part by its place in the file's column order).
# The file's L/R prefix gives the hemisphere.
column,region
LCau,Caudate_L
RCau,Caudate_R
LPut,Putamen_L
RPut,Putamen_R
LThal,Thalamus_L
RThal,Thalamus_R
LAng,Angular_L
RAng,Angular_R
LSupraM,SupraMarginal_L
RSupraM,SupraMarginal_R
LMTG,Temporal_Mid_L
RMTG,Temporal_Mid_R
LHip,Hippocampus_L
RHip,Hippocampus_R
LAmy,Amygdala_L
RAmy,Amygdala_R
LPCC,Cingulum_Post_L
RPCC,Cingulum_Post_R
LPrec,Precuneus_L
RPrec,Precuneus_R
)csv");
  return std::nullopt;
}

}  // namespace loci::volumetric_parcels
