#include "sim/volume/nifti.hpp"

#include <nifti2_io.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "cpu/memory_available.hpp"

namespace loci::sim::volume {

namespace {

struct Free {
  void operator()(nifti_image* nim) const { nifti_image_free(nim); }
};
using Image = std::unique_ptr<nifti_image, Free>;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error(path + ": " + what);
}

// The library prints its own diagnostics to stderr unless told not to; ours say the same in one line.
void quiet() {
  static const bool done = [] {
    nifti_set_debug_level(0);
    return true;
  }();
  (void)done;
}

template <class T>
void convert(const nifti_image& nim, const std::string& path, std::vector<std::int32_t>& out) {
  const T* data = static_cast<const T*>(nim.data);
  const bool scaled = nim.scl_slope != 0 && (nim.scl_slope != 1 || nim.scl_inter != 0);
  for (std::size_t v = 0; v < out.size(); ++v) {
    double x = static_cast<double>(data[v]);
    if (scaled) x = x * nim.scl_slope + nim.scl_inter;
    if (!(x >= 0) || x > 2147483647.0 || x != std::floor(x))
      fail(path, "voxel " + std::to_string(v) + " holds " + std::to_string(x) +
                     "; a label volume holds non-negative integer labels");
    out[v] = static_cast<std::int32_t>(x);
  }
}

// The voxels a header claims must be in the image file: as many bytes, or for a gzip file at most deflate's
// largest ratio (about 1032:1) of its size.
void check_claimed_size(const nifti_image& nim, const std::string& path) {
  const std::string image = nim.iname ? nim.iname : path;
  std::error_code ec;
  const auto on_disk = std::filesystem::file_size(image, ec);
  if (ec) fail(path, "its image file " + image + " cannot be read");
  const double claimed = static_cast<double>(nim.nvox) * static_cast<double>(std::max(nim.nbyper, 1));
  const double most =
      nifti_is_gzfile(image.c_str()) ? 1032.0 * static_cast<double>(on_disk) : static_cast<double>(on_disk);
  if (claimed > most)
    fail(path, "its header claims " + std::to_string(nim.nx) + " x " + std::to_string(nim.ny) + " x " +
                   std::to_string(nim.nz) + " voxels of " + std::to_string(nim.nbyper) + " bytes, more than " + image +
                   " holds (" + std::to_string(on_disk) + " bytes)");
  // A gzip file of zeros inflates a thousandfold, so the ratio alone lets a small file claim gigabytes: the
  // voxels must also fit in memory, with room for what parcellation builds per voxel (grids, labels, distances).
  constexpr double kBytesPerVoxelDownstream = 64;
  const double needed = claimed + kBytesPerVoxelDownstream * static_cast<double>(nim.nvox);
  const double available = static_cast<double>(cpu::memory_available());
  if (needed > available)
    fail(path, "its " + std::to_string(nim.nx) + " x " + std::to_string(nim.ny) + " x " + std::to_string(nim.nz) +
                   " voxels need about " + cpu::gib_text(needed) + " to parcellate, more than the " +
                   cpu::gib_text(available) + " this process may use; crop or downsample the volume first");
}

// Calls f(T{}) with the C++ type of a NIfTI datatype; false for one that holds no real number (complex, RGB).
template <class F>
bool with_element_type(int datatype, F&& f) {
  switch (datatype) {
    case DT_UINT8:
      f(std::uint8_t{});
      return true;
    case DT_INT8:
      f(std::int8_t{});
      return true;
    case DT_UINT16:
      f(std::uint16_t{});
      return true;
    case DT_INT16:
      f(std::int16_t{});
      return true;
    case DT_UINT32:
      f(std::uint32_t{});
      return true;
    case DT_INT32:
      f(std::int32_t{});
      return true;
    case DT_UINT64:
      f(std::uint64_t{});
      return true;
    case DT_INT64:
      f(std::int64_t{});
      return true;
    case DT_FLOAT32:
      f(float{});
      return true;
    case DT_FLOAT64:
      f(double{});
      return true;
    default:
      return false;
  }
}

// The header alone: it can claim any size, and nothing is allocated before the claim is checked.
Image read_header(const std::string& path) {
  quiet();
  if (!std::filesystem::is_regular_file(path)) fail(path, "no such file");
  Image nim(nifti_image_read(path.c_str(), 0));
  if (!nim) fail(path, "not a readable NIfTI-1/NIfTI-2 image");
  if (nim->nx < 1 || nim->ny < 1 || nim->nz < 1) fail(path, "has an empty dimension");
  check_claimed_size(*nim, path);
  return nim;
}

void load(nifti_image& nim, const std::string& path) {
  if (nifti_image_load(&nim) != 0 || !nim.data) fail(path, "its voxels could not be read (truncated?)");
}

Grid grid_of(const nifti_image& nim, const std::string& path) {
  Grid g;
  g.dims = {nim.nx, nim.ny, nim.nz};
  const nifti_dmat44& m = nim.sform_code > 0 ? nim.sto_xyz : nim.qto_xyz;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) g.affine(r, c) = m.m[r][c];
  if (!(std::abs(g.affine.topLeftCorner<3, 3>().determinant()) > 0)) fail(path, "its affine is singular");
  return g;
}

template <class T>
void to_float(const nifti_image& nim, const std::string& path, std::vector<float>& out) {
  const T* data = static_cast<const T*>(nim.data);
  const bool scaled = nim.scl_slope != 0 && (nim.scl_slope != 1 || nim.scl_inter != 0);
  for (std::size_t v = 0; v < out.size(); ++v) {
    double x = static_cast<double>(data[v]);
    if (scaled) x = x * nim.scl_slope + nim.scl_inter;
    if (!std::isfinite(x)) fail(path, "value " + std::to_string(v) + " is not finite");
    out[v] = static_cast<float>(x);
  }
}

// The affine as both sform and qform (the qform keeps only its rigid part and voxel sizes, as NIfTI defines it).
void set_affine(nifti_image& nim, const Grid& g) {
  nifti_dmat44 m;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) m.m[r][c] = g.affine(r, c);
  nim.sform_code = NIFTI_XFORM_ALIGNED_ANAT;
  nim.sto_xyz = m;
  nim.sto_ijk = nifti_dmat44_inverse(m);
  nim.qform_code = NIFTI_XFORM_ALIGNED_ANAT;
  nifti_dmat44_to_quatern(m, &nim.quatern_b, &nim.quatern_c, &nim.quatern_d, &nim.qoffset_x, &nim.qoffset_y,
                          &nim.qoffset_z, &nim.dx, &nim.dy, &nim.dz, &nim.qfac);
  nim.pixdim[1] = nim.dx, nim.pixdim[2] = nim.dy, nim.pixdim[3] = nim.dz;
  nim.qto_xyz = nifti_quatern_to_dmat44(nim.quatern_b, nim.quatern_c, nim.quatern_d, nim.qoffset_x, nim.qoffset_y,
                                        nim.qoffset_z, nim.dx, nim.dy, nim.dz, nim.qfac);
  nim.qto_ijk = nifti_dmat44_inverse(nim.qto_xyz);
  nim.xyz_units = NIFTI_UNITS_MM;
}

void write_image(nifti_image& nim, const std::string& path) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
  if (nifti_set_filenames(&nim, path.c_str(), 0, 1) != 0) fail(path, "not a NIfTI file name (.nii, .nii.gz, .hdr)");
  nifti_image_write(&nim);
  // nifti_image_write reports nothing; a file that is absent or empty afterwards is its failure.
  if (!std::filesystem::is_regular_file(nim.fname, ec) || std::filesystem::file_size(nim.fname, ec) == 0)
    fail(path, "could not be written");
}

}  // namespace

LabelVolume read_nifti_labels(const std::string& path) {
  Image nim = read_header(path);
  if (nim->nvox != nim->nx * nim->ny * nim->nz)
    fail(path, "not a 3-D volume (dimensions " + std::to_string(nim->nx) + " x " + std::to_string(nim->ny) + " x " +
                   std::to_string(nim->nz) + " x " +
                   std::to_string(nim->nvox / std::max<int64_t>(1, nim->nx * nim->ny * nim->nz)) + ")");
  load(*nim, path);
  LabelVolume out;
  out.grid = grid_of(*nim, path);
  out.labels.assign(static_cast<std::size_t>(nim->nvox), 0);
  const bool known =
      with_element_type(nim->datatype, [&](auto element) { convert<decltype(element)>(*nim, path, out.labels); });
  if (!known) fail(path, std::string("datatype ") + nifti_datatype_string(nim->datatype) + " cannot hold labels");
  return out;
}

void write_nifti_labels(const std::string& path, const LabelVolume& volume) {
  quiet();
  const auto& g = volume.grid;
  if (static_cast<std::int64_t>(volume.labels.size()) != g.voxels())
    throw std::invalid_argument(path + ": " + std::to_string(volume.labels.size()) + " labels for a grid of " +
                                std::to_string(g.voxels()) + " voxels");
  const int64_t dims[8] = {3, g.dims[0], g.dims[1], g.dims[2], 1, 1, 1, 1};
  Image nim(nifti_make_new_nim(dims, DT_INT32, 1));
  if (!nim) fail(path, "libnifti2 could not allocate the image");
  std::memcpy(nim->data, volume.labels.data(), volume.labels.size() * sizeof(std::int32_t));
  set_affine(*nim, g);
  nim->intent_code = NIFTI_INTENT_LABEL;
  write_image(*nim, path);
}

SeriesVolume read_nifti_series(const std::string& path) {
  Image nim = read_header(path);
  const std::int64_t voxels = nim->nx * nim->ny * nim->nz;
  if (nim->nvox != voxels * std::max<int64_t>(1, nim->nt))
    fail(path, "not a 4-D series (dimensions beyond time: " + std::to_string(nim->nu) + " x " +
                   std::to_string(nim->nv) + " x " + std::to_string(nim->nw) + ")");
  load(*nim, path);
  SeriesVolume out;
  out.grid = grid_of(*nim, path);
  out.points = nim->nvox / voxels;
  out.values.assign(static_cast<std::size_t>(nim->nvox), 0.f);
  const bool known =
      with_element_type(nim->datatype, [&](auto element) { to_float<decltype(element)>(*nim, path, out.values); });
  if (!known) fail(path, std::string("datatype ") + nifti_datatype_string(nim->datatype) + " is not a real number");
  return out;
}

void write_nifti_series(const std::string& path, const SeriesVolume& series, double tr_s) {
  quiet();
  const auto& g = series.grid;
  if (static_cast<std::int64_t>(series.values.size()) != g.voxels() * series.points)
    throw std::invalid_argument(path + ": " + std::to_string(series.values.size()) + " values for " +
                                std::to_string(series.points) + " volumes of " + std::to_string(g.voxels()) +
                                " voxels");
  const int64_t dims[8] = {4, g.dims[0], g.dims[1], g.dims[2], series.points, 1, 1, 1};
  Image nim(nifti_make_new_nim(dims, DT_FLOAT32, 1));
  if (!nim) fail(path, "libnifti2 could not allocate the image");
  std::memcpy(nim->data, series.values.data(), series.values.size() * sizeof(float));
  set_affine(*nim, g);
  nim->dt = tr_s, nim->pixdim[4] = tr_s;
  nim->time_units = NIFTI_UNITS_SEC;
  write_image(*nim, path);
}

}  // namespace loci::sim::volume
