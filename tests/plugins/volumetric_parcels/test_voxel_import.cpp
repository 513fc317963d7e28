// 4-D NIfTI runs as Experiment 3 data (issue 55): each block of voxels a token at its voxels' mean position, its
// series their mean; checked on runs the test writes, and on nitime's two real runs where Debian's package is present.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "sim/volume/nifti.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

namespace fs = std::filesystem;
using loci::test::refusal;
using loci::test::run_loci;
namespace vol = loci::sim::volume;

namespace {

const std::string kNitimeRun1 = "/usr/lib/python3/dist-packages/nitime/data/fmri1.nii.gz";

// A 4 x 2 x 2 run of 2 mm voxels (x flipped, as radiological files are), 12 volumes: voxel v at point t holds
// 100 v + t, except voxel 0, constant (outside the brain).
vol::SeriesVolume small_run(double offset = 0) {
  vol::SeriesVolume s;
  s.grid.dims = {4, 2, 2};
  s.grid.affine << -2, 0, 0, 3, 0, 2, 0, -1, 0, 0, 2, 5, 0, 0, 0, 1;
  s.points = 12;
  s.values.resize(static_cast<std::size_t>(s.grid.voxels() * s.points));
  for (std::int64_t t = 0; t < s.points; ++t)
    for (std::int64_t v = 0; v < s.grid.voxels(); ++v)
      s.values[static_cast<std::size_t>(t * s.grid.voxels() + v)] =
          static_cast<float>(v == 0 ? 7.0 : offset + 100.0 * static_cast<double>(v) + static_cast<double>(t));
  return s;
}

std::string config(const loci::test::TempDir& dir, const std::string& train, const std::string& test, int block) {
  return dir.write("v.yaml", "generator: volumetric_parcels\nout: " + (dir.path() / "d").string() +
                                 "\nsource: import\nsplits: {}\nimport:\n  subjects: {train: [" + train + "], test: [" +
                                 test + "]}\n  voxel_block: " + std::to_string(block) +
                                 "\nwindows: {length: 4, stride: 4}\n");
}

std::string slurp(const fs::path& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST_CASE("a 4-D NIfTI series reads back as written, volume by volume", "[parcels][import][nifti]") {
  loci::test::TempDir dir;
  const auto file = (dir.path() / "run.nii.gz").string();
  const auto written = small_run();
  vol::write_nifti_series(file, written, 2.0);
  const auto read = vol::read_nifti_series(file);
  CHECK(read.grid.dims == written.grid.dims);
  CHECK(read.grid.affine.isApprox(written.grid.affine, 1e-6));
  CHECK(read.points == 12);
  CHECK(read.values == written.values);
  CHECK(read.at(5, 3) == 503.f);
}

TEST_CASE("4-D NIfTI subjects: each block of voxels is a token at its voxels' mean position, with their mean series",
          "[parcels][import][nifti]") {
  loci::test::TempDir dir;
  const auto run1 = (dir.path() / "run1.nii.gz").string(), run2 = (dir.path() / "run2.nii").string();
  vol::write_nifti_series(run1, small_run());
  vol::write_nifti_series(run2, small_run(10000));
  const auto cfg = config(dir, run1, run2, 2);
  const auto r = run_loci("generate -q " + cfg);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // Blocks of 2 x 2 x 2: voxels i 0-1 and i 2-3. Block 1 holds voxels 1, 4, 5, 8, 9, 12, 13 (0 is constant, left out;
  // voxel (i, j, k) is i + 4 j + 8 k), block 2 voxels 2, 3, 6, 7, 10, 11, 14, 15.
  // Positions: x = 3 - 2 i, y = -1 + 2 j, z = 5 + 2 k, averaged over each block's voxels.
  const fs::path d = dir.path() / "d";
  const std::string py =
      "/usr/bin/python3 -c \"import glob, h5py, numpy; d = '" + d.string() +
      "'; "
      "h = h5py.File(sorted(glob.glob(d + '/train-*.h5'))[0]); t = h5py.File(sorted(glob.glob(d + '/test-*.h5'))[0]); "
      "p = h['positions'][:]; "
      "b1 = [1, 4, 5, 8, 9, 12, 13]; b2 = [2, 3, 6, 7, 10, 11, 14, 15]; "
      "pos = lambda vs: [numpy.mean([3 - 2 * (v % 4) for v in vs]), numpy.mean([-1 + 2 * ((v // 4) % 2) for v in vs]), "
      "numpy.mean([5 + 2 * (v // 8) for v in vs])]; "
      "assert numpy.allclose(p, [pos(b1), pos(b2)]), p; "
      "a = h['activity'][:]; assert a.shape == (3, 2, 4), a.shape; "
      "assert numpy.allclose(a[1, 0], 100 * numpy.mean(b1) + numpy.arange(4, 8)), a[1, 0]; "
      "assert numpy.allclose(a[0, 1], 100 * numpy.mean(b2) + numpy.arange(4)), a[0, 1]; "
      "assert numpy.allclose(t['activity'][0, 0], 10000 + 100 * numpy.mean(b1) + numpy.arange(4)), t['activity'][0]; "
      "assert h['labels'].shape == (4, 2, 2) and h['labels'][0, 0, 0] == 0 and h['labels'][3, 1, 1] == 2\"";
  CHECK(std::system(py.c_str()) == 0);
  CHECK_THAT(slurp(d / "dataset_card.md"), Catch::Contains("one token per block of 2 x 2 x 2 voxels, 2 tokens"));
  CHECK_THAT(slurp(d / "dataset_card.md"), Catch::Contains("1 voxels whose series is constant"));
  // voxel_block 1: every varying voxel its own token, at its own position.
  const auto one = run_loci("generate -q " + config(dir, run1, run2, 1) + " out=" + (dir.path() / "d1").string());
  INFO(one.output);
  REQUIRE(one.exit_code == 0);
  const std::string py1 = "/usr/bin/python3 -c \"import glob, h5py, numpy; h = h5py.File(sorted(glob.glob('" +
                          (dir.path() / "d1").string() +
                          "/train-*.h5'))[0]); p = h['positions'][:]; "
                          "assert p.shape == (15, 3) and numpy.allclose(p[0], [1, -1, 5]), p[:2]\"";
  CHECK(std::system(py1.c_str()) == 0);
  // import.standardize: each token's series z-scored over its run's 12 points (windows of 4 points every 4: all 12).
  const auto z = run_loci("generate -q " + config(dir, run1, run2, 2) +
                          " import.standardize=true out=" + (dir.path() / "dz").string());
  INFO(z.output);
  REQUIRE(z.exit_code == 0);
  const std::string pyz =
      "/usr/bin/python3 -c \"import glob, h5py, numpy; h = h5py.File(sorted(glob.glob('" +
      (dir.path() / "dz").string() +
      "/train-*.h5'))[0]); a = h['activity'][:]; "
      "s = numpy.concatenate(list(a), axis=1); "
      "assert numpy.allclose(s.mean(1), 0, atol=1e-6) and numpy.allclose(s.std(1), 1, atol=1e-5), s\"";
  CHECK(std::system(pyz.c_str()) == 0);
  CHECK_THAT(slurp(dir.path() / "dz" / "dataset_card.md"), Catch::Contains("z-scored"));
}

TEST_CASE("4-D NIfTI subjects: another grid, a mix with tables, an atlas or a truncated run is refused in one line",
          "[parcels][import][nifti]") {
  loci::test::TempDir dir;
  const auto run1 = (dir.path() / "run1.nii.gz").string();
  vol::write_nifti_series(run1, small_run());
  auto moved = small_run();
  moved.grid.affine(0, 3) = 9;
  const auto other = (dir.path() / "other.nii.gz").string();
  vol::write_nifti_series(other, moved);
  CHECK_THAT(refusal(run_loci("generate -q " + config(dir, run1, other, 2))),
             Catch::Contains("other.nii.gz: is not on the first subject's grid"));
  std::ofstream(dir.path() / "s.csv") << "a,b\n1,2\n3,4\n";
  CHECK_THAT(refusal(run_loci("generate -q " + config(dir, run1, (dir.path() / "s.csv").string(), 2))),
             Catch::Contains("every subject is a 4-D NIfTI run, or none is"));
  CHECK_THAT(refusal(run_loci("generate -q " + config(dir, run1, run1, 2) + " import.atlas=" + run1)),
             Catch::Contains("leave import.atlas empty"));
  CHECK_THAT(refusal(run_loci("generate -q " + config(dir, run1, run1, 0))), Catch::Contains("import.voxel_block"));
  // A run cut short: its header claims more voxels than the file holds.
  vol::write_nifti_series((dir.path() / "full.nii").string(), small_run());
  const auto bytes = slurp(dir.path() / "full.nii");
  std::ofstream(dir.path() / "cut.nii", std::ios::binary) << bytes.substr(0, bytes.size() - 200);
  CHECK_THAT(refusal(run_loci("generate -q " + config(dir, run1, (dir.path() / "cut.nii").string(), 2))),
             Catch::Contains("cut.nii"));
}

TEST_CASE("configs/fmri_nitime_voxels.yaml makes nitime's two real runs a voxel-block dataset",
          "[parcels][import][nifti]") {
  if (!fs::exists(kNitimeRun1)) {
    WARN("python3-nitime is not installed (scripts/setup.sh installs it); nitime's 4-D runs not tested");
    return;
  }
  loci::test::TempDir dir;
  const auto r = run_loci("generate -q " + std::string(LOCI_SOURCE_DIR) +
                          "/configs/fmri_nitime_voxels.yaml out=" + (dir.path() / "d").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // 10 x 10 x 18 voxels of 2.08 x 2.08 x 2.3 mm in blocks of 2: 5 x 5 x 9 = 225 tokens, every voxel varying.
  const std::string py = "/usr/bin/python3 -c \"import glob, h5py, numpy; h = h5py.File(sorted(glob.glob('" +
                         (dir.path() / "d").string() +
                         "/train-*.h5'))[0]); p = h['positions'][:]; "
                         "assert p.shape == (225, 3), p.shape; d = h['distance'][:]; "
                         "assert 4.0 < numpy.sort(d[0])[1] < 5.0, numpy.sort(d[0])[:3]\"";
  CHECK(std::system(py.c_str()) == 0);
}
