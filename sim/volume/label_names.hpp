// Region names of an atlas: the text file that labelling tools ship beside a NIfTI label volume, one line per
// label: "<integer label> <name> [more columns]" (mricron's aal.nii.txt: "1 Precentral_L 2001"; tab-separated
// tables like JHU's too). Lines that do not start with an integer (headers, comments) are skipped.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace loci::sim::volume {

// std::runtime_error naming the file and line for an unreadable file, a label listed twice or a line without a name.
std::map<std::int32_t, std::string> read_label_names(const std::string& file);

// The label file beside a NIfTI file by mricron's convention (aal.nii.gz -> aal.nii.txt), or "" when there is none.
std::string label_file_beside(const std::string& nifti);

}  // namespace loci::sim::volume
