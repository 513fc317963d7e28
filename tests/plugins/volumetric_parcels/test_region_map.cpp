// import.regions: a user's series columns placed at an atlas's named regions (issue 55), checked on a label volume
// the test writes, and nitime's real resting-state regions at AAL's centroids where Debian's packages are present.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/volume/label_names.hpp"
#include "sim/volume/nifti.hpp"
#include "sim/volume/parcel_facts.hpp"
#include "tests/support/generated.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

namespace fs = std::filesystem;
using loci::test::refusal;
using loci::test::run_loci;

namespace {

const std::string kNitime = "/usr/lib/python3/dist-packages/nitime/data/fmri_timeseries.csv";
const std::string kAal = "/usr/share/mricron/templates/aal.nii.gz";

std::string slurp(const fs::path& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST_CASE("import.regions keeps the named columns in its order, each at its region's centroid", "[parcels][import]") {
  loci::test::TempDir dir;
  // Three labelled blocks of a 6x2x2 volume: label 5 'Left' at x 0-1, 7 'Middle' at 2-3, 9 'Right' at 4-5.
  loci::sim::volume::LabelVolume v;
  v.grid.dims = {6, 2, 2};
  v.grid.affine.topLeftCorner<3, 3>() *= 2.0;  // 2 mm voxels
  v.grid.affine(0, 3) = -5.0;                  // x from -5 to 5 mm: Left at x < 0
  v.labels.assign(static_cast<std::size_t>(v.grid.voxels()), 0);
  for (std::int64_t k = 0; k < v.grid.voxels(); ++k)
    v.labels[static_cast<std::size_t>(k)] = 5 + 2 * static_cast<std::int32_t>(v.grid.ijk(k)[0] / 2);
  loci::sim::volume::write_nifti_labels((dir.path() / "atlas.nii.gz").string(), v);
  std::ofstream(dir.path() / "atlas.nii.txt") << "5 Left\n7 Middle\n9 Right\n";
  // A series with a header: 'c', 'noise', 'a' columns; the table keeps c at Right and a at Left, in that order.
  std::ostringstream series;
  series << "\"a\",\"noise\",\"c\"\n";
  for (int t = 0; t < 30; ++t) series << t << "," << 100 + t << "," << 1000 + t << "\n";
  std::ofstream(dir.path() / "s.csv") << series.str();
  std::ofstream(dir.path() / "regions.csv") << "# test\ncolumn,region\nc,Right\na,Left\n";
  const auto cfg = dir.write(
      "p.yaml", "generator: volumetric_parcels\nout: " + (dir.path() / "d").string() +
                    "\nsource: import\nsplits: {}\nimport:\n  subjects: {train: [" + (dir.path() / "s.csv").string() +
                    "], test: [" + (dir.path() / "s.csv").string() +
                    "]}\n  points: {train: [0, 20], test: [20, 30]}\n"
                    "  atlas: " +
                    (dir.path() / "atlas.nii.gz").string() + "\n  regions: " + (dir.path() / "regions.csv").string() +
                    "\nwindows: {length: 5, stride: 5}\n");
  const auto r = run_loci("generate -q " + cfg);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const fs::path d = dir.path() / "d";
  const std::string py =
      "/usr/bin/python3 -c \"import glob, h5py, numpy; d = '" + d.string() +
      "'; "
      "h = h5py.File(sorted(glob.glob(d + '/train-*.h5'))[0]); t = h5py.File(sorted(glob.glob(d + '/test-*.h5'))[0]); "
      "assert [x.decode() if isinstance(x, bytes) else x for x in h['token_label'][:]] == ['Right', 'Left'], "
      "h['token_label'][:]; "
      "p = h['positions'][:]; assert p[0, 0] > p[1, 0], p; "
      "a = h['activity'][:]; assert a.shape[1:] == (2, 5), a.shape; "
      "assert numpy.allclose(a[0, 0], [1000, 1001, 1002, 1003, 1004]) and numpy.allclose(a[0, 1], [0, 1, 2, 3, 4]), "
      "a[0]; "
      "assert len(h['activity']) == 4 and numpy.allclose(t['activity'][0, 1], [20, 21, 22, 23, 24]), "
      "t['activity'][0]\"";
  CHECK(std::system(py.c_str()) == 0);
  // The card names the mapping and what it left out.
  CHECK_THAT(slurp(d / "dataset_card.md"), Catch::Contains("Left out, with no region in that table: noise"));
  // A region the label file does not name, and a column the series lacks: one line each.
  std::ofstream(dir.path() / "regions.csv") << "column,region\nc,Nowhere\n";
  CHECK_THAT(refusal(run_loci("generate -q " + cfg + " out=" + (dir.path() / "e1").string())),
             Catch::Contains("maps column 'c' to 'Nowhere'"));
  std::ofstream(dir.path() / "regions.csv") << "column,region\nzz,Left\n";
  CHECK_THAT(refusal(run_loci("generate -q " + cfg + " out=" + (dir.path() / "e2").string())),
             Catch::Contains("has no column 'zz'"));
  std::ofstream(dir.path() / "regions.csv") << "column,region\na,Left\nc,Left\n";
  CHECK_THAT(refusal(run_loci("generate -q " + cfg + " out=" + (dir.path() / "e3").string())),
             Catch::Contains("region 'Left' is given to two columns"));
  // Points past the end of a file.
  std::ofstream(dir.path() / "regions.csv") << "column,region\nc,Right\na,Left\n";
  CHECK_THAT(refusal(run_loci("generate -q " + cfg + " out=" + (dir.path() / "e4").string() +
                              " 'import.points={train: [0, 40]}'")),
             Catch::Contains("asks for points 0 to 40") && Catch::Contains("which has 30"));
}

TEST_CASE("configs/fmri_nitime.yaml puts each of nitime's named regions at its AAL centroid",
          "[parcels][import][aal]") {
  if (!fs::exists(kNitime) || !fs::exists(kAal)) {
    WARN(
        "python3-nitime or mricron-data is not installed (scripts/setup.sh installs both); nitime's regions not "
        "tested");
    return;
  }
  loci::test::TempDir dir;
  const auto r = run_loci("generate -q " + std::string(LOCI_SOURCE_DIR) +
                          "/configs/fmri_nitime.yaml out=" + (dir.path() / "d").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // AAL's own centroid of each mapped region, computed here from the atlas and its label file.
  auto aal = loci::sim::volume::read_nifti_labels(kAal);
  const auto names = loci::sim::volume::read_label_names("/usr/share/mricron/templates/aal.nii.txt");
  auto original = loci::sim::volume::relabel_consecutive(aal);
  const auto facts = loci::sim::volume::describe_parcels(aal, static_cast<std::int64_t>(original.size()));
  std::ostringstream want;
  for (std::size_t p = 0; p < original.size(); ++p)
    want << names.at(original[p]) << " " << facts.centroids(static_cast<Eigen::Index>(p), 0) << " "
         << facts.centroids(static_cast<Eigen::Index>(p), 1) << " " << facts.centroids(static_cast<Eigen::Index>(p), 2)
         << "\n";
  std::ofstream(dir.path() / "aal_centroids.txt") << want.str();
  const std::string py = "/usr/bin/python3 -c \"import glob, h5py, numpy; d = '" + (dir.path() / "d").string() +
                         "'; "
                         "c = {l.split()[0]: [float(v) for v in l.split()[1:]] for l in open('" +
                         (dir.path() / "aal_centroids.txt").string() +
                         "')}; "
                         "h = h5py.File(sorted(glob.glob(d + '/train-*.h5'))[0]); "
                         "names = [x.decode() if isinstance(x, bytes) else x for x in h['token_label'][:]]; "
                         "assert len(names) == 20 and names[0] == 'Caudate_L' and names[-1] == 'Precuneus_R', names; "
                         "p = h['positions'][:]; "
                         "assert all(numpy.allclose(p[i], c[n], atol=1e-3) for i, n in enumerate(names)), (p, names); "
                         "assert all((p[i, 0] < 0) == n.endswith('_L') for i, n in enumerate(names))\"";
  CHECK(std::system(py.c_str()) == 0);
  // The card lists what was left out.
  CHECK_THAT(slurp(dir.path() / "d" / "dataset_card.md"), Catch::Contains("Left out") && Catch::Contains("WM"));
}

TEST_CASE("the built-in nitime table is the shipped CSV beside the plugin, word for word", "[parcels][import]") {
  const std::string csv = slurp(std::string(LOCI_SOURCE_DIR) + "/plugins/volumetric_parcels/nitime_aal_regions.csv");
  const std::string cpp = slurp(std::string(LOCI_SOURCE_DIR) + "/plugins/volumetric_parcels/builtin_regions.cpp");
  REQUIRE(!csv.empty());
  CHECK(cpp.find("R\"csv(" + csv + ")csv\"") != std::string::npos);
}

TEST_CASE("import.points and import.regions at their defaults stay out of a dataset's recorded config",
          "[parcels][import]") {
  // Datasets made before the two keys existed must still be the same bytes and resume: a simulation (and an import
  // that does not use them) records neither.
  loci::test::TempDir dir;
  const auto cfg =
      dir.write("p.yaml", "include: " + std::string(LOCI_SOURCE_DIR) +
                              "/configs/parcels.yaml\nout: " + (dir.path() / "d").string() +
                              "\nsplits: {train: 4, test: 2}\nsubjects: {train: 2, test: 1}\n"
                              "parcels: {count: 12}\nvolume: {voxel_mm: 12}\nwindows: {length: 5, stride: 5}\n");
  REQUIRE(run_loci("generate -q " + cfg).exit_code == 0);
  const std::string index = slurp(dir.path() / "d" / "index.json");
  CHECK(index.find("import:\\n  subjects: {}") != std::string::npos);
  CHECK(index.find("points:") == std::string::npos);
  CHECK(index.find("regions:") == std::string::npos);
}
