#include "datasets/array_file.hpp"
#include "datasets/checked_file.hpp"

#include <hdf5_hl.h>

#include <cstdio>
#include <map>

#include "datasets/atomic_file.hpp"
#include "datasets/detail/h5.hpp"
#include "datasets/detail/self_contained.hpp"
#include "datasets/error.hpp"

namespace loci::datasets {

namespace {

// netCDF-4 dimensions, as the shards have them (shard_writer.cpp): one empty dataset per dimension name, marked as
// a dimension scale whose NAME says it is not a variable, so xarray (h5netcdf) opens the file as it is.
std::map<std::string, h5::Handle> make_scales(hid_t file, const std::vector<Array>& arrays,
                                              const std::filesystem::path& target) {
  std::map<std::string, std::int64_t> sizes;
  std::vector<std::string> order;
  for (const auto& a : arrays)
    for (std::size_t i = 0; i < a.spec.dims.size() && i < a.spec.shape.size(); ++i) {
      const auto& d = a.spec.dims[i];
      const auto [it, fresh] = sizes.emplace(d, a.spec.shape[i]);
      if (fresh)
        order.push_back(d);
      else if (it->second != a.spec.shape[i])
        throw DataError(target, "dimension '" + d + "' is " + std::to_string(it->second) + " long in one array and " +
                                    std::to_string(a.spec.shape[i]) + " in '" + a.spec.name + "'");
    }
  std::map<std::string, h5::Handle> scales;
  std::int32_t id = 0;
  for (const auto& name : order) {
    for (const auto& a : arrays)
      if (a.spec.name == name) throw DataError(target, "an array and a dimension are both named '" + name + "'");
    const hsize_t n = static_cast<hsize_t>(sizes.at(name));
    h5::Handle space = h5::space(H5Screate_simple(1, &n, nullptr));
    h5::Handle dcpl = h5::plist(H5Pcreate(H5P_DATASET_CREATE));
    H5Pset_obj_track_times(dcpl, 0);
    h5::Handle d = h5::dataset(H5Dcreate2(file, name.c_str(), H5T_IEEE_F32BE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    char label[96];
    std::snprintf(label, sizeof label, "This is a netCDF dimension but not a netCDF variable.%10lld",
                  static_cast<long long>(n));
    if (!d.valid() || H5DSset_scale(d, label) < 0)
      throw DataError(target, "cannot make dimension '" + name + "' (" + h5::last_error() + ")");
    h5::write_attribute_i32(d, "_Netcdf4Dimid", id++);
    scales.emplace(name, std::move(d));
  }
  return scales;
}

}  // namespace

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
  const std::map<std::string, h5::Handle> scales = make_scales(file, arrays, target);
  for (const auto& a : arrays) {
    std::vector<hsize_t> dims(a.spec.shape.begin(), a.spec.shape.end());
    h5::Handle space = h5::space(dims.empty() ? H5Screate(H5S_SCALAR)
                                              : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
    // No modification times in object headers: the same content gives the same bytes.
    h5::Handle dcpl = h5::plist(H5Pcreate(H5P_DATASET_CREATE));
    H5Pset_obj_track_times(dcpl, 0);
    h5::Handle ds = h5::dataset(
        H5Dcreate2(file, a.spec.name.c_str(), h5::file_type(a.spec.dtype), space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    if (!ds.valid()) fail("cannot create array '" + a.spec.name + "'");
    if (a.bytes.size() != a.spec.bytes()) throw DataError(target, "array '" + a.spec.name + "' has the wrong size");
    if (!a.bytes.empty() &&
        H5Dwrite(ds, h5::memory_type(a.spec.dtype), H5S_ALL, H5S_ALL, H5P_DEFAULT, a.bytes.data()) < 0)
      fail("cannot write array '" + a.spec.name + "'");
    std::string dims_text;
    for (std::size_t i = 0; i < a.spec.dims.size(); ++i) dims_text += (i ? "," : "") + a.spec.dims[i];
    h5::write_attribute(ds, "dims", dims_text);
    if (!a.spec.doc.empty()) h5::write_attribute(ds, "doc", a.spec.doc);
    for (std::size_t i = 0; i < a.spec.dims.size(); ++i)
      if (H5DSattach_scale(ds, scales.at(a.spec.dims[i]), static_cast<unsigned>(i)) < 0 ||
          H5DSset_label(ds, static_cast<unsigned>(i), a.spec.dims[i].c_str()) < 0)
        fail("cannot attach dimension '" + a.spec.dims[i] + "' to '" + a.spec.name + "'");
  }
  if (H5Fflush(file, H5F_SCOPE_GLOBAL) < 0) fail("cannot flush the in-memory HDF5 file");
  const ssize_t size = H5Fget_file_image(file, nullptr, 0);
  if (size < 0) fail("cannot read back the in-memory HDF5 file");
  std::vector<char> image(static_cast<std::size_t>(size));
  if (H5Fget_file_image(file, image.data(), image.size()) < 0) fail("cannot read back the in-memory HDF5 file");
  file.reset();
  write_checked(target, image.data(), image.size());
}

}  // namespace loci::datasets

namespace loci::datasets {

ArrayFileContents read_array_file(const std::filesystem::path& source) {
  h5::quiet();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(source, ec)) throw DataError(source, "no such file");
  // Before HDF5 opens it: the library can crash on a damaged file, and the record tells damage first.
  verify_checked(source,
                 "its run's outputs cannot be read (train the run again, or remove the record to read it "
                 "unchecked)");
  if (H5Fis_hdf5(source.c_str()) <= 0) throw DataError(source, "not an HDF5 file (truncated or foreign)");
  h5::Handle file = h5::file(H5Fopen(source.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!file.valid()) throw DataError(source, "cannot open (" + h5::last_error() + ")");
  if (const std::string outside = h5::outside_storage(file); !outside.empty())
    throw DataError(source, outside + "; loci reads only bytes stored in the file itself");
  ArrayFileContents out;
  for (const auto& name : h5::attribute_names(file))
    if (auto v = h5::read_attribute(file, name)) out.attributes[name] = *v;

  std::vector<std::string> names;
  auto visit = [](hid_t, const char* name, const H5L_info_t*, void* list) -> herr_t {
    static_cast<std::vector<std::string>*>(list)->emplace_back(name);
    return 0;
  };
  hsize_t idx = 0;
  if (H5Literate(file, H5_INDEX_NAME, H5_ITER_INC, &idx, visit, &names) < 0)
    throw DataError(source, "cannot list its arrays (" + h5::last_error() + ")");
  for (const auto& name : names) {
    h5::Handle ds = h5::dataset(H5Dopen2(file, name.c_str(), H5P_DEFAULT));
    if (!ds.valid()) continue;           // a group or a link: not an array
    if (H5DSis_scale(ds) > 0) continue;  // a dimension (no data of its own), not an array
    h5::Handle type = h5::type(H5Dget_type(ds));
    const H5T_class_t cls = H5Tget_class(type);
    if (cls != H5T_INTEGER && cls != H5T_FLOAT) continue;
    h5::Handle space = h5::space(H5Dget_space(ds));
    const int rank = H5Sget_simple_extent_ndims(space);
    if (rank < 0) throw DataError(source, "array '" + name + "' has an unreadable shape");
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
    H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    NumericArray a;
    std::size_t count = 1;
    for (hsize_t d : dims) {
      a.shape.push_back(static_cast<std::int64_t>(d));
      count *= static_cast<std::size_t>(d);
    }
    a.values.resize(count);
    if (count && H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, a.values.data()) < 0)
      throw DataError(source, "cannot read array '" + name + "' (" + h5::last_error() + ")");
    if (auto dims_attr = h5::read_attribute(ds, "dims"))
      if (const auto* text = std::get_if<std::string>(&*dims_attr)) a.dims = *text;
    out.arrays.emplace(name, std::move(a));
  }
  return out;
}

}  // namespace loci::datasets
