#include "datasets/array_file.hpp"


#include "datasets/atomic_file.hpp"
#include "datasets/detail/h5.hpp"
#include "datasets/error.hpp"

namespace loci::data {

void write_array_file(const std::filesystem::path& target, const std::vector<Array>& arrays,
                      const Attributes& attributes) {
  h5::quiet();
  auto fail = [&](const std::string& what) { throw DataError(target, what + " (" + h5::last_error() + ")"); };

  // The core driver keeps the whole file in memory (no backing store); its image is then written in one go.
  h5::Handle fapl = h5::plist(H5Pcreate(H5P_FILE_ACCESS));
  if (!fapl.valid() || H5Pset_fapl_core(fapl, 1 << 20, 0) < 0) fail("cannot set up an in-memory HDF5 file");
  h5::Handle file = h5::file(H5Fcreate(target.filename().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
  if (!file.valid()) fail("cannot create an in-memory HDF5 file");

  for (const auto& [name, value] : attributes) h5::write_attribute(file, name, value);
  for (const auto& a : arrays) {
    std::vector<hsize_t> dims(a.spec.shape.begin(), a.spec.shape.end());
    h5::Handle space = h5::space(dims.empty() ? H5Screate(H5S_SCALAR)
                                              : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
    // No modification times in object headers: the same content gives the same bytes.
    h5::Handle dcpl = h5::plist(H5Pcreate(H5P_DATASET_CREATE));
    H5Pset_obj_track_times(dcpl, 0);
    h5::Handle ds = h5::dataset(H5Dcreate2(file, a.spec.name.c_str(), h5::file_type(a.spec.dtype), space,
                                           H5P_DEFAULT, dcpl, H5P_DEFAULT));
    if (!ds.valid()) fail("cannot create array '" + a.spec.name + "'");
    if (a.bytes.size() != a.spec.bytes()) throw DataError(target, "array '" + a.spec.name + "' has the wrong size");
    if (!a.bytes.empty() &&
        H5Dwrite(ds, h5::memory_type(a.spec.dtype), H5S_ALL, H5S_ALL, H5P_DEFAULT, a.bytes.data()) < 0)
      fail("cannot write array '" + a.spec.name + "'");
    std::string dims_text;
    for (std::size_t i = 0; i < a.spec.dims.size(); ++i) dims_text += (i ? "," : "") + a.spec.dims[i];
    h5::write_attribute(ds, "dims", dims_text);
    if (!a.spec.doc.empty()) h5::write_attribute(ds, "doc", a.spec.doc);
  }
  if (H5Fflush(file, H5F_SCOPE_GLOBAL) < 0) fail("cannot flush the in-memory HDF5 file");
  const ssize_t size = H5Fget_file_image(file, nullptr, 0);
  if (size < 0) fail("cannot read back the in-memory HDF5 file");
  std::vector<char> image(static_cast<std::size_t>(size));
  if (H5Fget_file_image(file, image.data(), image.size()) < 0) fail("cannot read back the in-memory HDF5 file");
  file.reset();
  write_file_atomically(target, image.data(), image.size());
}

}  // namespace loci::data
