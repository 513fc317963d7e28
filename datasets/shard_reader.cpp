#include "datasets/shard_reader.hpp"

#include <hdf5_hl.h>

#include <map>

#include "datasets/detail/h5.hpp"
#include "datasets/detail/self_contained.hpp"
#include "datasets/error.hpp"
#include "datasets/format.hpp"

namespace loci::datasets {

namespace fs = std::filesystem;
using h5::Handle;

std::string describe_type(const ArrayInfo& a) {
  std::string s = std::string(dtype_name(a.dtype)) + " [";
  bool first = true;
  if (a.per_sample) {
    s += kSampleDim;
    first = false;
  }
  for (std::size_t i = 0; i < a.dims.size(); ++i) {
    s += (first ? "" : ", ") + a.dims[i] + "=" + std::to_string(a.shape[i]);
    first = false;
  }
  return s + "]";
}

struct ShardFile::Impl {
  fs::path path;
  Handle file;
  std::int64_t samples = 0;
  mutable std::map<std::string, Handle> datasets;

  [[noreturn]] void fail(const std::string& what) const {
    const std::string detail = h5::last_error();
    throw DataError(path, detail.empty() ? what : what + " (HDF5: " + detail + ")");
  }

  hid_t open_dataset(const std::string& name) const {
    h5::quiet();  // this thread may not be the one that opened the file
    auto it = datasets.find(name);
    if (it != datasets.end()) return it->second;
    if (H5Lexists(file, name.c_str(), H5P_DEFAULT) <= 0) throw DataError(path, "no array '" + name + "'");
    Handle dapl = h5::plist(H5Pcreate(H5P_DATASET_ACCESS));
    // Room for a few of our chunks (~256 KiB each), so reading one sample at a time does not inflate its chunk anew.
    H5Pset_chunk_cache(dapl, 521, 4u << 20, 1.0);
    Handle d = h5::dataset(H5Dopen2(file, name.c_str(), dapl));
    if (!d.valid()) fail("cannot open array '" + name + "'");
    return datasets.emplace(name, std::move(d)).first->second;
  }

  std::vector<std::string> dim_names(hid_t d, int rank) const {
    std::vector<std::string> names(static_cast<std::size_t>(rank));
    for (int i = 0; i < rank; ++i) {
      auto visit = [](hid_t, unsigned, hid_t scale, void* out) -> herr_t {
        char buf[256] = {0};
        H5Iget_name(scale, buf, sizeof buf);
        std::string n = buf;
        *static_cast<std::string*>(out) = n.substr(n.rfind('/') + 1);
        return 1;
      };
      int idx = 0;
      if (H5DSget_num_scales(d, static_cast<unsigned>(i)) > 0)
        H5DSiterate_scales(d, static_cast<unsigned>(i), &idx, visit, &names[i]);
    }
    return names;
  }

  // The file's datasets but /sample_id and the dimension scales: the text arrays, or the numeric ones.
  std::vector<std::string> dataset_names(bool text) const {
    h5::quiet();
    std::vector<std::string> names;
    auto visit = [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
      static_cast<std::vector<std::string>*>(out)->emplace_back(name);
      return 0;
    };
    hsize_t idx = 0;
    H5Literate(file, H5_INDEX_NAME, H5_ITER_INC, &idx, visit, &names);
    std::vector<std::string> out;
    for (const auto& name : names) {
      H5O_info_t oi;
      if (H5Oget_info_by_name(file, name.c_str(), &oi, H5P_DEFAULT) < 0 || oi.type != H5O_TYPE_DATASET) continue;
      if (name == kSampleIdArray) continue;
      hid_t d = open_dataset(name);
      if (H5DSis_scale(d) > 0) continue;
      Handle t = h5::type(H5Dget_type(d));
      if ((H5Tget_class(t) == H5T_STRING) == text) out.push_back(name);
    }
    return out;
  }

  ArrayInfo info(const std::string& name) const {
    hid_t d = open_dataset(name);
    Handle t = h5::type(H5Dget_type(d));
    auto dtype = h5::dtype_of_type(t);
    if (!dtype) throw DataError(path, "array '" + name + "' has an element type loci does not read");
    Handle sp = h5::space(H5Dget_space(d));
    const int rank = H5Sget_simple_extent_ndims(sp);
    std::vector<hsize_t> extent(static_cast<std::size_t>(std::max(rank, 0)));
    H5Sget_simple_extent_dims(sp, extent.data(), nullptr);
    ArrayInfo a;
    a.name = name;
    a.dtype = *dtype;
    a.dims = dim_names(d, rank);
    a.shape.assign(extent.begin(), extent.end());
    if (auto doc = h5::read_attribute(d, "doc"); doc && std::holds_alternative<std::string>(*doc))
      a.doc = std::get<std::string>(*doc);
    a.per_sample = rank > 0 && a.dims[0] == kSampleDim;
    if (a.per_sample) {
      a.dims.erase(a.dims.begin());
      a.shape.erase(a.shape.begin());
    }
    return a;
  }
};

ShardFile::ShardFile(fs::path path) : impl_(std::make_unique<Impl>()) {
  h5::quiet();
  impl_->path = std::move(path);
  const fs::path& p = impl_->path;
  std::error_code ec;
  if (!fs::exists(p, ec)) throw DataError(p, "missing");
  impl_->file = h5::file(H5Fopen(p.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!impl_->file.valid()) impl_->fail("not a readable HDF5 file");
  if (const std::string outside = h5::outside_storage(impl_->file); !outside.empty())
    throw DataError(p, outside + "; its checksum cannot vouch for those bytes");
  auto version = h5::read_attribute(impl_->file, "loci_schema_version");
  if (!version || !std::holds_alternative<std::int64_t>(*version))
    throw DataError(p, "not a loci shard (no loci_schema_version attribute)");
  if (std::get<std::int64_t>(*version) != kSchemaVersion)
    throw DataError(p, "unknown schema version " + std::to_string(std::get<std::int64_t>(*version)) +
                           " (this loci reads version " + std::to_string(kSchemaVersion) + ")");
  Handle sp = h5::space(H5Dget_space(impl_->open_dataset(kSampleIdArray)));
  hsize_t n = 0;
  if (H5Sget_simple_extent_ndims(sp) != 1 || H5Sget_simple_extent_dims(sp, &n, nullptr) < 0)
    throw DataError(p, "/sample_id is not one-dimensional");
  impl_->samples = static_cast<std::int64_t>(n);
}

ShardFile::~ShardFile() {
  if (impl_) {
    impl_->datasets.clear();
    impl_->file.reset();
  }
}
ShardFile::ShardFile(ShardFile&&) noexcept = default;
ShardFile& ShardFile::operator=(ShardFile&&) noexcept = default;

const fs::path& ShardFile::path() const { return impl_->path; }
std::int64_t ShardFile::samples() const { return impl_->samples; }

Attributes ShardFile::attributes() const {
  h5::quiet();
  Attributes out;
  for (const auto& name : h5::attribute_names(impl_->file))
    if (auto v = h5::read_attribute(impl_->file, name)) out[name] = *v;
  return out;
}

std::vector<ArrayInfo> ShardFile::arrays() const {
  std::vector<ArrayInfo> out;
  for (const auto& name : impl_->dataset_names(false)) out.push_back(impl_->info(name));
  return out;
}

std::vector<std::string> ShardFile::text_arrays() const { return impl_->dataset_names(true); }

std::vector<std::string> ShardFile::read_text(const std::string& name) const {
  h5::quiet();
  hid_t d = impl_->open_dataset(name);
  Handle type = h5::type(H5Dget_type(d));
  if (H5Tget_class(type) != H5T_STRING || H5Tis_variable_str(type) <= 0)
    throw DataError(impl_->path, "array '" + name + "' is not text");
  Handle sp = h5::space(H5Dget_space(d));
  hsize_t n = 0;
  if (H5Sget_simple_extent_ndims(sp) != 1 || H5Sget_simple_extent_dims(sp, &n, nullptr) < 0)
    throw DataError(impl_->path, "text array '" + name + "' is not one-dimensional");
  Handle memory = h5::type(H5Tcopy(H5T_C_S1));
  H5Tset_size(memory, H5T_VARIABLE);
  H5Tset_cset(memory, H5T_CSET_UTF8);
  std::vector<char*> raw(static_cast<std::size_t>(n), nullptr);
  if (n > 0 && H5Dread(d, memory, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()) < 0) impl_->fail("reading '" + name + "'");
  std::vector<std::string> out;
  for (char* s : raw) out.emplace_back(s ? s : "");
  if (n > 0) H5Dvlen_reclaim(memory, sp, H5P_DEFAULT, raw.data());
  return out;
}

ArrayInfo ShardFile::array(const std::string& name) const { return impl_->info(name); }

std::int64_t ShardFile::chunk_samples(const std::string& name) const {
  Handle dcpl = h5::plist(H5Dget_create_plist(impl_->open_dataset(name)));
  if (H5Pget_layout(dcpl) != H5D_CHUNKED) return impl_->samples;
  hsize_t chunk[H5S_MAX_RANK];
  if (H5Pget_chunk(dcpl, H5S_MAX_RANK, chunk) < 1) return impl_->samples;
  return static_cast<std::int64_t>(chunk[0]);
}

void ShardFile::read(const std::string& name, std::int64_t first, std::int64_t count, void* out, DType dtype) const {
  const ArrayInfo a = impl_->info(name);
  if (!a.per_sample && name != kSampleIdArray) throw DataError(impl_->path, "array '" + name + "' is not per-sample");
  if (a.dtype != dtype)
    throw DataError(impl_->path, "array '" + name + "' is " + dtype_name(a.dtype) + ", not " + dtype_name(dtype));
  if (first < 0 || count < 0 || first + count > impl_->samples)
    throw DataError(impl_->path, "samples " + std::to_string(first) + "+" + std::to_string(count) + " of '" + name +
                                     "' out of range (shard holds " + std::to_string(impl_->samples) + ")");
  if (count == 0) return;
  hid_t d = impl_->open_dataset(name);
  Handle fspace = h5::space(H5Dget_space(d));
  const int rank = H5Sget_simple_extent_ndims(fspace);
  std::vector<hsize_t> start(static_cast<std::size_t>(rank), 0), extent(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(fspace, extent.data(), nullptr);
  start[0] = static_cast<hsize_t>(first);
  extent[0] = static_cast<hsize_t>(count);
  H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start.data(), nullptr, extent.data(), nullptr);
  Handle mspace = h5::space(H5Screate_simple(rank, extent.data(), nullptr));
  if (H5Dread(d, h5::memory_type(dtype), mspace, fspace, H5P_DEFAULT, out) < 0)
    impl_->fail("cannot read array '" + name + "', samples " + std::to_string(first) + ".." +
                std::to_string(first + count - 1) + " of this shard");
}

std::vector<std::uint8_t> ShardFile::read_all(const std::string& name) const {
  const ArrayInfo a = impl_->info(name);
  std::size_t bytes = a.bytes() * static_cast<std::size_t>(a.per_sample ? impl_->samples : 1);
  std::vector<std::uint8_t> out(bytes);
  if (bytes > 0 &&
      H5Dread(impl_->open_dataset(name), h5::memory_type(a.dtype), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
    impl_->fail("cannot read array '" + name + "'");
  return out;
}

}  // namespace loci::datasets
