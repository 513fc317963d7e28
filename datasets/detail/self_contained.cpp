#include "datasets/detail/self_contained.hpp"

#include "datasets/detail/h5.hpp"

namespace loci::datasets::h5 {

namespace {

std::string dataset_outside(hid_t dataset, const std::string& name) {
  const Handle dcpl = plist(H5Dget_create_plist(dataset));
  if (!dcpl.valid()) return "array '" + name + "' has no readable storage description";
  switch (H5Pget_layout(dcpl)) {
    case H5D_CONTIGUOUS:
    case H5D_CHUNKED:
    case H5D_COMPACT:
      break;
    case H5D_VIRTUAL:
      return "array '" + name + "' is a virtual dataset (its bytes come from other files)";
    default:
      return "array '" + name + "' has a storage layout loci does not read";
  }
  if (H5Pget_external_count(dcpl) != 0) return "array '" + name + "' is stored in another file (external storage)";
  return "";
}

herr_t check_link(hid_t group, const char* name, const H5L_info_t* info, void* out) {
  auto& reason = *static_cast<std::string*>(out);
  switch (info->type) {
    case H5L_TYPE_HARD:
      break;
    case H5L_TYPE_EXTERNAL:
      reason = "'" + std::string(name) + "' is an external link to another file";
      return 1;
    case H5L_TYPE_SOFT:
      reason = "'" + std::string(name) + "' is a soft link (loci files hold hard links only)";
      return 1;
    default:
      reason = "'" + std::string(name) + "' is a user-defined link";
      return 1;
  }
  const Handle object(H5Oopen(group, name, H5P_DEFAULT), H5Oclose);
  if (!object.valid()) {
    reason = "'" + std::string(name) + "' cannot be opened";
    return 1;
  }
  if (H5Iget_type(object) == H5I_DATASET) reason = dataset_outside(object, name);
  return reason.empty() ? 0 : 1;
}

}  // namespace

std::string outside_storage(hid_t file) {
  quiet();
  std::string reason;
  // H5Lvisit walks every link once, descending through hard links only, so an external link is seen, not followed.
  if (H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, check_link, &reason) < 0 && reason.empty())
    return "its links cannot be listed (" + last_error() + ")";
  return reason;
}

}  // namespace loci::datasets::h5
