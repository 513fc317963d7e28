// volumetric_parcels end to end: `loci generate` on tiny configs, read back through the dataset reader: simulated
// brains (ellipsoid, an atlas written here), imported series (CSV and HDF5) with a NIfTI or centroid atlas, the
// arrays the trainer reads, determinism across thread counts, and one-line errors naming bad files.
#include <algorithm>
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "datasets/array_file.hpp"
#include "datasets/reader.hpp"
#include "sim/volume/nifti.hpp"
#include "tests/plugins/volumetric_parcels/plugin_fixture.hpp"
#include "tests/support/generated.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

namespace fs = std::filesystem;
namespace vol = loci::sim::volume;
using loci::datasets::DType;
using loci::test::refusal;
using loci::test::run_loci;

using namespace loci::test::parcels;

TEST_CASE("loci generate: volumetric_parcels shards hold windows of parcel activity and the parcels' geometry",
          "[parcels][plugin]") {
  const loci::test::TempDir dir;
  const auto config = dir.write("parcels.yaml", kConfig);
  const auto out = (dir.path() / "data").string();
  const auto ds = loci::test::generated(config, out);
  REQUIRE(ds.samples("train") == 12);
  REQUIRE(ds.samples("test") == 4);
  ds.expect("activity", DType::f32, {16, 10});
  ds.expect("subject", DType::i64, {});
  ds.expect("positions", DType::f32, {16, 3});
  ds.expect("distance", DType::f32, {16, 16});
  ds.expect("adjacency", DType::u8, {16, 16});
  ds.expect("volumes", DType::f32, {16});
  ds.expect("hemisphere", DType::u8, {16});
  ds.expect("labels", DType::i32, {12, 14, 10});
  ds.expect("affine", DType::f64, {4, 4});

  // Held out by subject: train windows come from subjects 0..2, test windows from subject 3.
  const auto train_subjects = ds.read<std::int64_t>("train", "subject", 0, 12);
  const auto test_subjects = ds.read<std::int64_t>("test", "subject", 0, 4);
  CHECK(std::set<std::int64_t>(train_subjects.begin(), train_subjects.end()) == std::set<std::int64_t>{0, 1, 2});
  CHECK(test_subjects == std::vector<std::int64_t>(4, 3));
  CHECK(ds.read<std::int64_t>("train", "start", 0, 12)[5] == 10);  // sample 5: subject 2, second window

  // /positions are the centroids of /labels through /affine, /labels indexed [x, y, z].
  const auto labels = values<std::int32_t>(ds.read_dataset_array("labels"));
  const auto affine = values<double>(ds.read_dataset_array("affine"));
  const auto positions = values<float>(ds.read_dataset_array("positions"));
  std::vector<Eigen::Vector3d> sum(16, Eigen::Vector3d::Zero());
  std::vector<double> count(16, 0);
  for (int i = 0; i < 12; ++i)
    for (int j = 0; j < 14; ++j)
      for (int k = 0; k < 10; ++k) {
        const auto l = labels[static_cast<std::size_t>((i * 14 + j) * 10 + k)];
        if (l == 0) continue;
        Eigen::Vector3d mm;
        for (int r = 0; r < 3; ++r)
          mm[r] = affine[r * 4] * i + affine[r * 4 + 1] * j + affine[r * 4 + 2] * k + affine[r * 4 + 3];
        sum[static_cast<std::size_t>(l - 1)] += mm;
        count[static_cast<std::size_t>(l - 1)] += 1;
      }
  const auto hemisphere = values<std::uint8_t>(ds.read_dataset_array("hemisphere"));
  for (int p = 0; p < 16; ++p) {
    REQUIRE(count[static_cast<std::size_t>(p)] > 0);
    const Eigen::Vector3d c = sum[static_cast<std::size_t>(p)] / count[static_cast<std::size_t>(p)];
    for (int a = 0; a < 3; ++a) CHECK(positions[static_cast<std::size_t>(p * 3 + a)] == Approx(c[a]).margin(1e-3));
    CHECK(hemisphere[static_cast<std::size_t>(p)] == (p < 8 ? 0 : 1));  // mirrored: parcels 8.. are the right half
  }

  // What torch_trainer's masked regression reads: a [token, channel] `activity` and /positions with as many tokens.
  const auto& activity = ds.array("activity");
  CHECK(activity.dims == std::vector<std::string>{"token", "time"});
  CHECK(ds.array("positions").shape[0] == activity.shape[0]);
  const auto train = ds.read<float>("train", "activity", 0, 12);
  for (float v : train) REQUIRE(std::isfinite(v));

  SECTION("same seed with 2 threads: identical samples") {
    const auto out2 = (dir.path() / "data2").string();
    REQUIRE(run_loci("generate " + config + " out=" + out2 + " threads=2").exit_code == 0);
    const auto ds2 = loci::datasets::Dataset::open(out2);
    CHECK(ds2.read<float>("train", "activity", 0, 12) == train);
    CHECK(ds2.read<float>("test", "activity", 0, 4) == ds.read<float>("test", "activity", 0, 4));
  }
  SECTION("another seed: other parcels and activity") {
    const auto out3 = (dir.path() / "data3").string();
    REQUIRE(run_loci("generate " + config + " out=" + out3 + " seed=5").exit_code == 0);
    CHECK(loci::datasets::Dataset::open(out3).read<float>("train", "activity", 0, 12) != train);
  }
  SECTION("inspect --show draws the window") {
    const auto shown = run_loci("inspect " + out + " --show 1");
    INFO(shown.output);
    CHECK(shown.exit_code == 0);
    CHECK(shown.output.find("subject 0, points 0..9") != std::string::npos);
    CHECK(shown.output.find("parcel   0 (") != std::string::npos);
  }
}

TEST_CASE("volumetric_parcels jitters each subject's parcellation and records its centroids", "[parcels][plugin]") {
  const loci::test::TempDir dir;
  const auto config = dir.write("parcels.yaml", kConfig);
  const auto out = (dir.path() / "data").string();
  const auto ds = loci::test::generated(config, out, "parcels.jitter_mm=2 activity.hemodynamics=none");
  ds.expect("subject_positions", DType::f32, {4, 16, 3});
  const auto own = values<float>(ds.read_dataset_array("subject_positions"));
  const auto shared = values<float>(ds.read_dataset_array("positions"));
  double moved = 0;
  for (std::size_t k = 0; k < shared.size(); ++k) moved = std::max(moved, double(std::abs(own[k] - shared[k])));
  CHECK(moved > 0);
  CHECK(moved < 12);
}

TEST_CASE("volumetric_parcels on a NIfTI atlas written here: its labels as parcels - or parcellated as a mask",
          "[parcels][plugin][nifti]") {
  const loci::test::TempDir dir;
  const auto atlas = (dir.path() / "atlas.nii.gz").string();
  vol::write_nifti_labels(atlas, block_atlas());
  const auto config = dir.write("parcels.yaml", kConfig);
  const std::string common = " volume.mask=nifti volume.nifti=" + atlas + " activity.field.fwhm_mm=4";

  const auto out = (dir.path() / "as_parcels").string();
  const auto ds = loci::test::generated(config, out, common);
  ds.expect("activity", DType::f32, {3, 10});
  CHECK(values<std::int32_t>(ds.read_dataset_array("atlas_label")) == std::vector<std::int32_t>{10, 20, 30});
  const auto positions = values<float>(ds.read_dataset_array("positions"));
  const auto expected = label_centroids(block_atlas());
  int p = 0;
  for (const auto& [label, c] : expected) {
    for (int a = 0; a < 3; ++a) CHECK(positions[static_cast<std::size_t>(p * 3 + a)] == Approx(c[a]));
    ++p;
  }
  const auto adjacency = values<std::uint8_t>(ds.read_dataset_array("adjacency"));
  CHECK(adjacency == std::vector<std::uint8_t>{0, 1, 0, 1, 0, 1, 0, 1, 0});

  const auto out2 = (dir.path() / "as_mask").string();
  const auto masked = run_loci("generate " + config + " out=" + out2 + common +
                               " volume.atlas_labels=mask parcels.count=4 parcels.mirror=false");
  INFO(masked.output);
  REQUIRE(masked.exit_code == 0);
  loci::datasets::Dataset::open(out2).expect("positions", DType::f32, {4, 3});
}

TEST_CASE("an atlas of 262 144 distinct labels is refused by its token count, not by std::bad_alloc",
          "[parcels][plugin][nifti]") {
  const loci::test::TempDir dir;
  vol::LabelVolume every_voxel;
  every_voxel.grid.dims = {64, 64, 64};
  every_voxel.grid.affine.setIdentity();
  every_voxel.labels.resize(64 * 64 * 64);
  for (std::size_t v = 0; v < every_voxel.labels.size(); ++v) every_voxel.labels[v] = static_cast<std::int32_t>(v + 1);
  const auto atlas = (dir.path() / "every_voxel.nii.gz").string();
  vol::write_nifti_labels(atlas, every_voxel);
  const auto config = dir.write("parcels.yaml", kConfig);
  const auto r = run_loci("generate " + config + " out=" + (dir.path() / "out").string() +
                          " volume.mask=nifti volume.nifti=" + atlas + " activity.field.fwhm_mm=4");
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::StartsWith("loci: error: ") && Catch::Contains("262144 parcels make 262144 tokens") &&
                           Catch::Contains("GiB"));
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
}

TEST_CASE("source: import writes a user's series and atlas into the same layout", "[parcels][plugin][import]") {
  const loci::test::TempDir dir;
  const auto atlas = (dir.path() / "atlas.nii").string();
  vol::write_nifti_labels(atlas, block_atlas());
  const auto a = dir.write("sub-a.csv", series_csv(12, 3, 0));
  const auto c = dir.write("sub-c.csv", series_csv(7, 3, 50000));
  // Subject b as HDF5: time x parcels in the file's only 2-D dataset.
  const auto b = (dir.path() / "sub-b.h5").string();
  std::vector<double> bold;
  for (int t = 0; t < 10; ++t)
    for (int p = 0; p < 3; ++p) bold.push_back(-1000.0 - 100 * t - p);
  loci::datasets::write_array_file(
      b, {loci::datasets::Array::of({"bold", DType::f64, {"time", "parcel"}, {10, 3}, "series"}, bold)}, {});
  const std::string config =
      dir.write("import.yaml",
                "generator: volumetric_parcels\nsource: import\nsplits: {}\n"
                "compression: none\nwindows: {length: 5}\nimport:\n  atlas: " +
                    atlas + "\n  subjects: {train: [" + a + ", " + b + "], test: [" + c + "]}\n");
  const auto out = (dir.path() / "data").string();
  const auto ds = loci::test::generated(config, out);
  // Windows of 5 every 5 points, subject after subject: a has 2, b has 2, c has 1.
  REQUIRE(ds.samples("train") == 4);
  REQUIRE(ds.samples("test") == 1);
  ds.expect("activity", DType::f32, {3, 5});
  CHECK(ds.read<std::int64_t>("train", "subject", 0, 4) == std::vector<std::int64_t>{0, 0, 1, 1});
  CHECK(ds.read<std::int64_t>("train", "start", 0, 4) == std::vector<std::int64_t>{0, 5, 0, 5});
  CHECK(ds.read<std::int64_t>("test", "subject", 0, 1) == std::vector<std::int64_t>{2});
  const auto train = ds.read<float>("train", "activity", 0, 4);
  CHECK(train[0] == 0.0f);                   // a, parcel 0, t = 0
  CHECK(train[1 * 5 + 2] == 201.0f);         // a, parcel 1, t = 2
  CHECK(train[15 + 0 * 5 + 1] == 600.0f);    // a's second window starts at t = 5
  CHECK(train[30 + 2 * 5 + 4] == -1402.0f);  // b, parcel 2, t = 4
  CHECK(ds.read<float>("test", "activity", 0, 1)[0] == 50000.0f);
  const auto positions = values<float>(ds.read_dataset_array("positions"));
  const auto expected = label_centroids(block_atlas());
  CHECK(positions[3] == Approx(expected.at(20).x()));
  CHECK(values<std::int32_t>(ds.read_dataset_array("atlas_label")) == std::vector<std::int32_t>{10, 20, 30});
  ds.expect("labels", DType::i32, {6, 5, 4});

  SECTION("a centroid table as the atlas: positions from it, no label volume") {
    const auto table = dir.write("centroids.csv", "label,x,y,z\n1,-10,0,5\n2,0,1,5\n3,10,0,5\n");
    const auto out2 = (dir.path() / "data2").string();
    const auto r = run_loci("generate " + config + " out=" + out2 + " import.atlas=" + table);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const auto ds2 = loci::datasets::Dataset::open(out2);
    CHECK(values<float>(ds2.read_dataset_array("positions")) == std::vector<float>{-10, 0, 5, 0, 1, 5, 10, 0, 5});
    CHECK(values<std::uint8_t>(ds2.read_dataset_array("hemisphere")) == std::vector<std::uint8_t>{0, 1, 1});
    CHECK_THROWS(ds2.array("labels"));
  }
  SECTION("bad files are one-line errors naming them") {
    const auto wide = dir.write("sub-wide.csv", series_csv(12, 4, 0));
    auto r = run_loci("generate " + config + " out=" + (dir.path() / "x").string() + " import.subjects.train=[" + wide +
                      "]");
    CHECK(r.exit_code == 1);
    CHECK(r.output.find("sub-wide.csv: 4 columns (parcels) but the atlas has 3 parcels") != std::string::npos);
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
    const auto broken = dir.write("sub-broken.csv", "1,2,3\n4,x,6\n");
    r = run_loci("generate " + config + " out=" + (dir.path() / "y").string() + " import.subjects.train=[" + broken +
                 "]");
    CHECK(r.exit_code == 1);
    CHECK(r.output.find("sub-broken.csv:2: field 2 ('x') is not a finite number") != std::string::npos);
    r = run_loci("generate " + config + " out=" + (dir.path() / "z").string() +
                 " import.atlas=" + (dir.path() / "nope.nii").string());
    CHECK(r.exit_code == 1);
    CHECK(r.output.find("nope.nii: no such file") != std::string::npos);
    r = run_loci("generate " + config + " out=" + (dir.path() / "w").string() + " splits.train=5");
    CHECK(r.exit_code == 1);
    CHECK(r.output.find("set `splits: {}`") != std::string::npos);
  }
}

TEST_CASE("volumetric_parcels config errors name the key", "[parcels][plugin]") {
  const loci::test::TempDir dir;
  const auto config = dir.write("parcels.yaml", kConfig);
  CHECK_THAT(refusal(run_loci("generate " + config + " out=" + (dir.path() / "a").string() + " parcels.count=15")),
             Catch::Contains("even number of parcels"));
  CHECK_THAT(refusal(run_loci("generate " + config + " out=" + (dir.path() / "b").string() + " subjects.trian=2")),
             Catch::Contains("did you mean 'train'"));
  CHECK_THAT(refusal(run_loci("generate " + config + " out=" + (dir.path() / "c").string() + " splits.val=3")),
             Catch::Contains("split 'val' has no entry in `subjects`"));
  CHECK_THAT(refusal(run_loci("generate " + config + " out=" + (dir.path() / "d").string() +
                              " activity.network.weight=1 activity.network.params.gg=3")),
             Catch::Contains("'g'"));
  const auto slow = run_loci("generate " + config + " out=" + (dir.path() / "e").string() +
                             " activity.network.weight=1 activity.network.velocity_m_s=50");
  CHECK(slow.exit_code == 1);
  CHECK(slow.output.find("every delay is under half a step of 100") != std::string::npos);
  CHECK(slow.output.find("error") == slow.output.rfind("error"));  // one line says it
  const auto shipped = run_loci("config show " + std::string(LOCI_SOURCE_DIR) + "/configs/parcels.yaml");
  INFO(shipped.output);
  CHECK(shipped.exit_code == 0);
  const auto schema = run_loci("config schema volumetric_parcels");
  CHECK(schema.exit_code == 0);
  CHECK(schema.output.find("activity.field.fwhm_mm") != std::string::npos);
}
