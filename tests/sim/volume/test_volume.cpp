// Grids, the ellipsoid mask and NIfTI label volumes (sim/volume).
#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "sim/volume/mask.hpp"
#include "sim/volume/nifti.hpp"
#include "tests/support/temp_files.hpp"

namespace vol = loci::sim::volume;

namespace {

// The bytes of a NIfTI file of a side[0] x side[1] x side[2] volume of label 1, written by loci itself.
std::string small_nifti_bytes(const loci::test::TempDir& dir, std::array<std::int64_t, 3> side) {
  vol::LabelVolume v;
  v.grid.dims = side;
  v.grid.affine.setIdentity();
  v.labels.assign(static_cast<std::size_t>(side[0] * side[1] * side[2]), 1);
  const auto path = (dir.path() / "small.nii").string();
  vol::write_nifti_labels(path, v);
  return loci::test::slurp(path);
}

}  // namespace

TEST_CASE("ellipsoid mask: centred grid - hemispheres split at x = 0 - mirror map", "[parcels][volume]") {
  const auto mask = vol::ellipsoid_mask(vol::EllipsoidOptions().semi_axes_mm({20, 30, 16}).voxel_mm(4));
  // ceil(a / v - 1/2) voxel centres on each side plus a margin of one, twice.
  CHECK(mask.grid.dims == std::array<std::int64_t, 3>{12, 16, 10});
  CHECK(mask.grid.mm(0).isApprox(Eigen::Vector3d(-22, -30, -18)));
  const auto image = vol::mirror_map(mask.grid);
  std::int64_t left = 0, right = 0;
  for (std::int64_t v = 0; v < mask.grid.voxels(); ++v) {
    const auto l = mask.labels[static_cast<std::size_t>(v)];
    const Eigen::Vector3d p = mask.grid.mm(v);
    REQUIRE(p.x() != 0.0);
    CHECK((l != 0) == (p.cwiseQuotient(Eigen::Vector3d(20, 30, 16)).squaredNorm() <= 1));
    if (l == 1) {
      ++left;
      CHECK(p.x() < 0);
    }
    if (l == 2) {
      ++right;
      CHECK(p.x() > 0);
    }
    const auto m = image[static_cast<std::size_t>(v)];
    REQUIRE(m >= 0);
    CHECK(mask.grid.mm(m).isApprox(Eigen::Vector3d(-p.x(), p.y(), p.z())));
    CHECK(mask.labels[static_cast<std::size_t>(m)] == (l == 0 ? 0 : 3 - l));
  }
  CHECK(left == right);
  CHECK(left > 0);
  // About the ellipsoid's volume, 4/3 pi a b c.
  CHECK(static_cast<double>(left + right) * 64 == Approx(4.0 / 3.0 * 3.14159265 * 20 * 30 * 16).epsilon(0.1));
}

TEST_CASE("NIfTI label volumes round-trip through libnifti2 with their affine", "[parcels][volume][nifti]") {
  const loci::test::TempDir dir;
  vol::LabelVolume v;
  v.grid.dims = {5, 4, 3};
  v.grid.affine << -2, 0, 0, 10, 0, 2.5, 0, -20, 0, 0, 3, 7, 0, 0, 0, 1;
  v.labels.resize(60);
  for (std::size_t i = 0; i < 60; ++i) v.labels[i] = static_cast<std::int32_t>((i * 7) % 5 == 0 ? 0 : 1000 + i);
  for (const char* name : {"labels.nii", "labels.nii.gz"}) {
    const auto path = (dir.path() / name).string();
    vol::write_nifti_labels(path, v);
    const auto back = vol::read_nifti_labels(path);
    CHECK(back.grid.dims == v.grid.dims);
    CHECK(back.grid.affine.isApprox(v.grid.affine, 1e-6));
    CHECK(back.labels == v.labels);
    CHECK(back.grid.mm(v.grid.index(1, 2, 1)).isApprox(Eigen::Vector3d(8, -15, 10)));
  }
  CHECK_THROWS_WITH(vol::read_nifti_labels((dir.path() / "none.nii").string()),
                    Catch::Contains("none.nii: no such file"));
  const auto junk = dir.write("junk.nii", "not a nifti file at all");
  CHECK_THROWS_WITH(vol::read_nifti_labels(junk), Catch::Contains("junk.nii: not a readable NIfTI"));
}

TEST_CASE("a NIfTI header that claims more voxels than its file holds is refused before anything is allocated",
          "[parcels][volume][nifti]") {
  const loci::test::TempDir dir;
  std::string bytes = small_nifti_bytes(dir, {4, 3, 2});
  SECTION("dimensions of 30000 x 30000 x 30000 (a fuzzer's find: 147 GB asked of calloc)") {
    const std::int16_t big = 30000;  // NIfTI-1 dim[1..3] at byte 42, little-endian
    for (int k = 0; k < 3; ++k) std::memcpy(&bytes[42 + 2 * k], &big, 2);
    const auto huge = dir.write("huge.nii", bytes);
    CHECK_THROWS_WITH(vol::read_nifti_labels(huge),
                      Catch::Contains("huge.nii: its header claims 30000 x 30000 x 30000 voxels"));
  }
  SECTION("voxels cut off") {
    const auto cut = dir.write("cut.nii", bytes.substr(0, bytes.size() - 10));
    CHECK_THROWS_WITH(vol::read_nifti_labels(cut), Catch::Contains("cut.nii: "));
  }
}

TEST_CASE("a small .nii.gz whose 512^3 voxels would not fit in memory is refused by name, not grown into",
          "[parcels][volume][nifti]") {
  const loci::test::TempDir dir;
  std::string header = small_nifti_bytes(dir, {2, 2, 2});
  header.resize(352);  // the header and its 4-byte extension flag; the voxels follow at vox_offset 352
  const std::int16_t side = 512, uint8 = 2, bits = 8;  // dim[1..3] at byte 42, datatype at 70, bitpix at 72
  for (int k = 0; k < 3; ++k) std::memcpy(&header[42 + 2 * k], &side, 2);
  std::memcpy(&header[70], &uint8, 2);
  std::memcpy(&header[72], &bits, 2);
  // 512^3 zero bytes deflate to about 130 KB: within deflate's ratio of what the file claims.
  const auto path = (dir.path() / "zeros.nii.gz").string();
  gzFile gz = gzopen(path.c_str(), "wb9");
  REQUIRE(gz);
  gzwrite(gz, header.data(), static_cast<unsigned>(header.size()));
  const std::string zeros(1 << 20, '\0');
  for (int i = 0; i < 128; ++i) gzwrite(gz, zeros.data(), static_cast<unsigned>(zeros.size()));
  gzclose(gz);
  REQUIRE(std::filesystem::file_size(path) < 1 << 20);
  // Under a 4 GiB address-space limit the 8.7 GiB it would take is refused before anything is inflated.
  rlimit before{};
  getrlimit(RLIMIT_AS, &before);
  rlimit capped = before;
  capped.rlim_cur = 4ull << 30;
  REQUIRE(setrlimit(RLIMIT_AS, &capped) == 0);
  CHECK_THROWS_WITH(
      vol::read_nifti_labels(path),
      Catch::Contains("zeros.nii.gz: its 512 x 512 x 512 voxels need about") && Catch::Contains("crop or downsample"));
  setrlimit(RLIMIT_AS, &before);
}

TEST_CASE("the AAL atlas of mricron-data reads as 116 regions in MNI millimetres", "[parcels][volume][nifti]") {
  const std::string aal = "/usr/share/mricron/templates/aal.nii.gz";
  if (!std::filesystem::exists(aal)) {
    WARN("mricron-data is not installed; skipped");
    return;
  }
  const auto v = vol::read_nifti_labels(aal);
  CHECK(v.distinct_labels().size() == 116);
  const Eigen::Vector3d spacing = v.grid.spacing_mm();
  CHECK(spacing.x() == Approx(spacing.y()));
  // MNI space: the brain straddles x = 0.
  CHECK(v.grid.mm(0).x() * v.grid.mm(v.grid.voxels() - 1).x() < 0);
  // At 3 mm every region keeps voxels.
  const auto coarse = vol::resample(v, 3.0);
  CHECK(coarse.distinct_labels() == v.distinct_labels());
  CHECK(coarse.grid.spacing_mm().isApprox(Eigen::Vector3d(3, 3, 3)));
}

TEST_CASE("resampling takes the nearest voxel's label on a grid symmetric about x = 0", "[parcels][volume]") {
  vol::LabelVolume v;
  v.grid.dims = {8, 4, 4};
  v.grid.affine << -1, 0, 0, 3.5, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1;  // x from 3.5 down to -3.5 mm
  v.labels.assign(128, 0);
  for (std::int64_t v_ = 0; v_ < v.grid.voxels(); ++v_)
    v.labels[static_cast<std::size_t>(v_)] = v.grid.mm(v_).x() < 0 ? 1 : 2;
  const auto r = vol::resample(v, 2.0);
  CHECK(r.grid.dims[0] == 6);  // centres at -5, -3, -1, 1, 3, 5 mm: the outer ones an empty margin
  CHECK(r.grid.mm(0).x() == Approx(-5));
  for (std::int64_t i = 0; i < r.grid.voxels(); ++i) {
    const Eigen::Vector3d p = r.grid.mm(i);  // beyond the original's last centre plus half a voxel: nothing
    const bool outside = std::abs(p.x()) > 4 || p.y() > 3.5 || p.z() > 3.5;
    CHECK(r.labels[static_cast<std::size_t>(i)] == (outside ? 0 : p.x() < 0 ? 1 : 2));
  }
  CHECK_THROWS(vol::resample(v, 0.0));
}
