#include "datasets/shard_writer.hpp"

#include <hdf5_hl.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "datasets/atomic_file.hpp"
#include "datasets/checksum.hpp"
#include "datasets/detail/h5.hpp"
#include "datasets/error.hpp"
#include "datasets/format.hpp"

namespace loci::datasets {

namespace {

using h5::Handle;

class ShardBuilder {
 public:
  ShardBuilder(const ShardContent& c, std::filesystem::path target) : c_(c), target_(std::move(target)) {}

  void build(std::vector<std::uint8_t>& image) {
    h5::quiet();
    open();
    make_scales();
    const std::vector<std::string> sample_dims = {kSampleDim};
    write_array(kSampleIdArray, DType::i64, sample_dims, {c_.samples}, c_.sample_ids,
                "index of each sample within its split", true, c_.encoded_ids);
    for (std::size_t i = 0; i < c_.layout->sample_arrays.size(); ++i) {
      const ArraySpec& s = c_.layout->sample_arrays[i];
      std::vector<std::string> dims = {kSampleDim};
      dims.insert(dims.end(), s.dims.begin(), s.dims.end());
      std::vector<std::int64_t> shape = {c_.samples};
      shape.insert(shape.end(), s.shape.begin(), s.shape.end());
      write_array(s.name, s.dtype, dims, shape, c_.sample_data.at(i), s.doc, true,
                  c_.encoded.empty() ? nullptr : c_.encoded.at(i));
    }
    for (const Array& a : c_.layout->dataset_arrays)
      write_array(a.spec.name, a.spec.dtype, a.spec.dims, a.spec.shape, a.bytes.data(), a.spec.doc, false);
    for (const TextArray& t : c_.layout->text_arrays) write_text(t);
    write_root_attributes();
    scales_.clear();
    if (H5Fflush(fid_, H5F_SCOPE_GLOBAL) < 0) fail("flush");
    const ssize_t size = H5Fget_file_image(fid_, nullptr, 0);
    if (size <= 0) fail("file image size");
    image.resize(static_cast<std::size_t>(size));
    if (H5Fget_file_image(fid_, image.data(), image.size()) != size) fail("file image");
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    throw DataError(target_, "cannot build shard in memory: " + what + " (" + h5::last_error() + ")");
  }

  Handle creation_plist(hid_t cls) {
    Handle p = h5::plist(H5Pcreate(cls));
    // Modification times would make two runs of the same seed differ in their bytes, and so in their checksums.
    H5Pset_obj_track_times(p, false);
    return p;
  }

  void open() {
    // One allocation of the whole image (raw bytes are an upper bound, as filters only shrink them here).
    std::size_t raw = 1 << 20;
    for (const auto& s : c_.layout->sample_arrays) raw += s.bytes() * static_cast<std::size_t>(c_.samples);
    for (const auto& a : c_.layout->dataset_arrays) raw += a.bytes.size();
    for (const auto& t : c_.layout->text_arrays)
      for (const auto& v : t.values) raw += v.size() + 32;
    Handle fapl = h5::plist(H5Pcreate(H5P_FILE_ACCESS));
    H5Pset_fapl_core(fapl, raw, false);
    Handle fcpl = creation_plist(H5P_FILE_CREATE);
    // Nothing goes to disk from here; the name only has to differ from the files this process has open.
    const std::string label = target_.string() + ".in-memory";
    fid_ = h5::file(H5Fcreate(label.c_str(), H5F_ACC_TRUNC, fcpl, fapl));
    if (!fid_.valid()) fail("H5Fcreate");
  }

  // netCDF-4 style: each dimension is an empty dataset marked as a dimension scale, whose NAME says it is a
  // dimension and not a variable. xarray (h5netcdf) and netCDF-C read the dims from it and list no extra variable;
  // it stores no data (allocated late and never written).
  void make_scales() {
    std::vector<std::pair<std::string, std::int64_t>> dims = {{kSampleDim, c_.samples}};
    for (const auto& d : dimension_sizes(*c_.layout)) dims.push_back(d);
    std::int32_t id = 0;
    for (const auto& [name, size] : dims) {
      const hsize_t n = static_cast<hsize_t>(size);
      Handle sp = h5::space(H5Screate_simple(1, &n, nullptr));
      Handle dcpl = creation_plist(H5P_DATASET_CREATE);
      Handle d = h5::dataset(H5Dcreate2(fid_, name.c_str(), H5T_IEEE_F32BE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT));
      if (!d.valid()) fail("dimension '" + name + "'");
      char label[96];
      std::snprintf(label, sizeof label, "This is a netCDF dimension but not a netCDF variable.%10lld",
                    static_cast<long long>(size));
      if (H5DSset_scale(d, label) < 0) fail("dimension scale '" + name + "'");
      h5::write_attribute_i32(d, "_Netcdf4Dimid", id++);
      scales_.emplace(name, std::move(d));
    }
  }

  void write_array(const std::string& name, DType dtype, const std::vector<std::string>& dims,
                   const std::vector<std::int64_t>& shape, const void* data, const std::string& doc, bool per_sample,
                   const EncodedArray* encoded = nullptr) {
    std::vector<hsize_t> extent(shape.begin(), shape.end());
    Handle sp = h5::space(H5Screate_simple(static_cast<int>(extent.size()), extent.data(), nullptr));
    Handle dcpl = creation_plist(H5P_DATASET_CREATE);
    std::size_t bytes = dtype_size(dtype);
    for (auto e : extent) bytes *= e;
    // Sample arrays are chunked by samples so a reader decompresses only the samples it asks for; a dataset array
    // is read whole, and chunked (along its first axis) only when big enough for compression to matter.
    std::vector<hsize_t> chunk = extent;
    const bool chunked = per_sample || bytes > (1u << 20);
    if (per_sample) {
      chunk[0] = static_cast<hsize_t>(std::min(c_.chunk_samples, c_.samples));
    } else if (chunked) {
      std::size_t row = bytes / std::max<hsize_t>(1, extent[0]);
      chunk[0] = std::clamp<hsize_t>((1u << 20) / std::max<std::size_t>(1, row), 1, extent[0]);
    }
    if (chunked && bytes > 0) {
      H5Pset_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data());
      if (c_.compression.gzip) {
        if (c_.compression.shuffle) H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, static_cast<unsigned>(std::clamp(c_.compression.level, 0, 9)));
      }
    }
    Handle d = h5::dataset(H5Dcreate2(fid_, name.c_str(), h5::file_type(dtype), sp, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    if (!d.valid()) fail("array '" + name + "'");
    if (encoded && c_.compression.gzip && bytes > 0) {
      std::vector<hsize_t> offset(extent.size(), 0);
      for (std::size_t k = 0; k < encoded->chunks.size(); ++k) {
        offset[0] = static_cast<hsize_t>(k) * chunk[0];
        const auto& bytes_k = encoded->chunks[k];
        if (H5Dwrite_chunk(d, H5P_DEFAULT, 0, offset.data(), bytes_k.size(), bytes_k.data()) < 0)
          fail("writing a chunk of array '" + name + "'");
      }
    } else if (bytes > 0 && H5Dwrite(d, h5::memory_type(dtype), H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
      fail("writing array '" + name + "'");
    }
    finish_array(d, name, dims, doc);
  }

  // Variable-length UTF-8 strings: netCDF-4's `string` type, so xarray and netCDF-C read them as text.
  void write_text(const TextArray& t) {
    const hsize_t n = t.values.size();
    Handle sp = h5::space(H5Screate_simple(1, &n, nullptr));
    Handle type = h5::type(H5Tcopy(H5T_C_S1));
    if (H5Tset_size(type, H5T_VARIABLE) < 0 || H5Tset_cset(type, H5T_CSET_UTF8) < 0)
      fail("text type of '" + t.name + "'");
    Handle dcpl = creation_plist(H5P_DATASET_CREATE);
    Handle d = h5::dataset(H5Dcreate2(fid_, t.name.c_str(), type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    if (!d.valid()) fail("text array '" + t.name + "'");
    std::vector<const char*> values;
    for (const auto& v : t.values) values.push_back(v.c_str());
    if (H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
      fail("writing text array '" + t.name + "'");
    finish_array(d, t.name, {t.dim}, t.doc);
  }

  void finish_array(Handle& d, const std::string& name, const std::vector<std::string>& dims, const std::string& doc) {
    h5::write_attribute(d, "doc", AttrValue{doc});
    for (std::size_t i = 0; i < dims.size(); ++i)
      // The label is what h5py shows as `dims[i].label`; the attached scale is what xarray and netCDF read.
      if (H5DSattach_scale(d, scales_.at(dims[i]), static_cast<unsigned>(i)) < 0 ||
          H5DSset_label(d, static_cast<unsigned>(i), dims[i].c_str()) < 0)
        fail("attaching dimension '" + dims[i] + "' to '" + name + "'");
    if (d.close() < 0) fail("closing array '" + name + "'");
  }

  void write_root_attributes() {
    const ShardHeader& h = c_.header;
    h5::write_attribute(fid_, "loci_schema_version", AttrValue{kSchemaVersion});
    h5::write_attribute(fid_, "generator", AttrValue{h.generator});
    h5::write_attribute(fid_, "generator_version", AttrValue{h.generator_version});
    h5::write_attribute(fid_, "plugin_abi", AttrValue{h.plugin_abi});
    h5::write_attribute(fid_, "loci_version", AttrValue{h.loci_version});
    h5::write_attribute_u64(fid_, "seed", h.seed);
    h5::write_attribute(fid_, "split", AttrValue{h.split});
    h5::write_attribute(fid_, "shard_index", AttrValue{h.shard_index});
    h5::write_attribute(fid_, "shard_count", AttrValue{h.shard_count});
    h5::write_attribute(fid_, "first_sample", AttrValue{h.first_sample});
    h5::write_attribute(fid_, "config_yaml", AttrValue{h.config_yaml});
    h5::write_attribute(fid_, "created", AttrValue{h.created});
    for (const auto& [key, value] : c_.layout->attributes) h5::write_attribute(fid_, key, value);
  }

  const ShardContent& c_;
  std::filesystem::path target_;
  Handle fid_;
  std::map<std::string, Handle> scales_;  // after fid_, so the scales close before the file
};

}  // namespace

WrittenShard ShardWriter::write(const ShardContent& content, const std::filesystem::path& target) {
  if (!content.layout) throw std::invalid_argument("ShardWriter: no layout");
  ShardBuilder(content, target).build(image_);
  write_file_atomically(target, image_.data(), image_.size(), Durability::file_only);
  return {static_cast<std::int64_t>(image_.size()), sha256_hex(image_.data(), image_.size())};
}

}  // namespace loci::datasets
