// What a dataset made from a real atlas or a user's files says about where it came from: region names from the
// atlas's label file in /token_label (AAL's among them), the input files' checksums (and a --resume refused after
// one changed), the licence of imported data from `license`, and an imported dataset's recorded config holding only
// the keys that made it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "datasets/checksum.hpp"
#include "datasets/reader.hpp"
#include "sim/volume/nifti.hpp"
#include "tests/plugins/volumetric_parcels/plugin_fixture.hpp"
#include "tests/support/generated.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

namespace fs = std::filesystem;
using loci::test::run_loci;
using namespace loci::test::parcels;

namespace {

std::string slurp(const std::string& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), {}};
}

nlohmann::json index_of(const std::string& folder) { return nlohmann::json::parse(slurp(folder + "/index.json")); }

}  // namespace

TEST_CASE("an atlas's label file names each token in /token_label, and the atlas files are checksummed inputs",
          "[parcels][plugin][nifti][labels]") {
  const loci::test::TempDir dir;
  const auto atlas = (dir.path() / "blocks.nii.gz").string();
  vol::write_nifti_labels(atlas, block_atlas());
  // mricron's convention: blocks.nii.gz -> blocks.nii.txt, "<label> <name> [code]", found without being named.
  const auto names = dir.write("blocks.nii.txt", "10 Left_block 1001\n20 Middle_block 1002\n30 Right_block 1003\n");
  const auto config = dir.write("parcels.yaml", kConfig);
  const std::string common = " volume.mask=nifti volume.nifti=" + atlas + " activity.field.fwhm_mm=4";

  const auto out = (dir.path() / "named").string();
  const auto ds = loci::test::generated(config, out, common);
  CHECK(ds.read_text("token_label") == std::vector<std::string>{"Left_block", "Middle_block", "Right_block"});
  const auto index = index_of(out);
  REQUIRE(index["inputs"].size() == 2);
  CHECK(index["inputs"][0]["file"] == atlas);
  CHECK(index["inputs"][0]["sha256"] == loci::datasets::sha256_file(atlas));
  CHECK(index["inputs"][1]["file"] == names);
  CHECK(index["inputs"][1]["bytes"] == fs::file_size(names));
  const std::string card = slurp(out + "/dataset_card.md");
  CHECK_THAT(card, Catch::Contains("`/token_label` (its region name, from `" + names + "`: Left_block, Middle_block"));
  CHECK_THAT(card, Catch::Contains("| `" + names + "` | "));
  CHECK_THAT(card, Catch::Contains("license: cc-by-4.0"));
  const auto shown = run_loci("inspect " + out);
  CHECK_THAT(shown.output, Catch::Contains("token_label"));
  CHECK_THAT(shown.output, Catch::Contains("Left_block, Middle_block, Right_block"));

  SECTION("none leaves them out; a file without a name for a label is refused naming both") {
    const auto plain = (dir.path() / "plain").string();
    REQUIRE(run_loci("generate " + config + " out=" + plain + common + " volume.label_file=none").exit_code == 0);
    CHECK(loci::datasets::Dataset::open(plain).read_text("token_label").empty());
    CHECK(index_of(plain)["inputs"].size() == 1);

    const auto partial = dir.write("partial.txt", "# label name\n10 Left_block\n20 Middle_block\n");
    const auto r = run_loci("generate " + config + " out=" + (dir.path() / "p").string() + common +
                            " volume.label_file=" + partial);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.output, Catch::Contains("volume.label_file"));
    CHECK_THAT(r.output, Catch::Contains("partial.txt has no name for label 30 of " + atlas));
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  }
  SECTION("a label file where the tokens are not the atlas's labels is a named error") {
    const auto r =
        run_loci("generate " + config + " out=" + (dir.path() / "m").string() + common +
                 " volume.atlas_labels=mask parcels.count=4 parcels.mirror=false volume.label_file=" + names);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.output, Catch::Contains("'volume.label_file' names regions of an atlas's own labels"));
  }
  SECTION("a changed input refuses --resume instead of mixing two atlases' shards") {
    std::ofstream(names, std::ios::app) << "40 Unused_block 1004\n";
    const auto r = run_loci("generate " + config + " out=" + out + common + " --resume");
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.output, Catch::Contains("input files"));
    CHECK(loci::datasets::Dataset::open(out).verify().shards == ds.index().shards.size());
  }
}

TEST_CASE("region names from a label file reach the dataset card as text, never as HTML or links",
          "[parcels][plugin][nifti][labels]") {
  const loci::test::TempDir dir;
  const auto atlas = (dir.path() / "blocks.nii.gz").string();
  vol::write_nifti_labels(atlas, block_atlas());
  dir.write("blocks.nii.txt", "10 <script>alert(1)</script> 1\n20 [click](http://example.org) 2\n30 a*b* 3\n");
  const auto config = dir.write("parcels.yaml", kConfig);
  const auto out = (dir.path() / "named").string();
  const auto made = run_loci("generate " + config + " out=" + out + " volume.mask=nifti volume.nifti=" + atlas +
                             " activity.field.fwhm_mm=4");
  INFO(made.output);
  REQUIRE(made.exit_code == 0);
  // The names themselves are data, kept as written; the card shows them escaped.
  CHECK(loci::datasets::Dataset::open(out).read_text("token_label")[0] == "<script>alert(1)</script>");
  const std::string card = slurp(out + "/dataset_card.md");
  CHECK_THAT(card, Catch::Contains("&lt;script&gt;alert(1)&lt;/script&gt;, \\[click\\](http://example.org), a\\*b\\*"));
  CHECK(card.find("<script>") == std::string::npos);
}

TEST_CASE("AAL's region names reach /token_label", "[parcels][plugin][nifti][labels][aal]") {
  const std::string aal = "/usr/share/mricron/templates/aal.nii.gz";
  if (!fs::exists(aal) || !fs::exists("/usr/share/mricron/templates/aal.nii.txt")) {
    WARN("mricron-data is not installed (scripts/setup.sh installs it); AAL not tested");
    return;
  }
  const loci::test::TempDir dir;
  const auto config = dir.write("parcels.yaml", kConfig);
  const auto out = (dir.path() / "aal").string();
  const auto ds =
      loci::test::generated(config, out,
                            "volume.mask=nifti volume.nifti=" + aal +
                                " volume.resample_mm=6 activity.field.fwhm_mm=12 splits.train=3 splits.test=1");
  const auto labels = ds.read_text("token_label");
  const auto tokens = ds.array("positions").shape[0];
  REQUIRE(static_cast<std::int64_t>(labels.size()) == tokens);
  // AAL's label 1 is the left precentral gyrus, label 2 the right one; the tokens follow the labels' order.
  CHECK(labels[0] == "Precentral_L");
  CHECK(labels[1] == "Precentral_R");
  const auto atlas_label = values<std::int32_t>(ds.read_dataset_array("atlas_label"));
  CHECK(atlas_label[0] == 1);
}

TEST_CASE("imported data: the licence from `license`, its files checksummed, only the keys that made it recorded",
          "[parcels][plugin][import]") {
  const loci::test::TempDir dir;
  const auto atlas = (dir.path() / "atlas.nii").string();
  vol::write_nifti_labels(atlas, block_atlas());
  const auto a = dir.write("sub-a.csv", series_csv(12, 3, 0));
  const auto c = dir.write("sub-c.csv", series_csv(7, 3, 50000));
  const std::string config = dir.write("import.yaml",
                                       "generator: volumetric_parcels\nsource: import\nsplits: {}\n"
                                       "compression: none\nwindows: {length: 5}\nimport:\n  atlas: " +
                                           atlas + "\n  subjects: {train: [" + a + "], test: [" + c + "]}\n");
  const auto out = (dir.path() / "data").string();
  const auto made = run_loci("generate " + config + " out=" + out);
  INFO(made.output);
  REQUIRE(made.exit_code == 0);
  const std::string card = slurp(out + "/dataset_card.md");
  CHECK_THAT(card, Catch::Contains("license: unknown\n"));
  CHECK_THAT(card, Catch::Contains("unless the config's `license` names it"));
  const auto index = index_of(out);
  std::vector<std::string> files;
  for (const auto& i : index["inputs"]) {
    files.push_back(i["file"].get<std::string>());
    CHECK(i["sha256"] == loci::datasets::sha256_file(i["file"].get<std::string>()));
  }
  CHECK(files == std::vector<std::string>{atlas, a, c});
  // The recorded config says what made the data: the import's keys, none of a simulation's.
  const std::string recorded = index["config_yaml"].get<std::string>();
  CHECK_THAT(recorded, Catch::Contains("source: import"));
  CHECK_THAT(recorded, Catch::Contains("atlas: " + atlas));
  for (const std::string unused : {"\nvolume:", "\nparcels:", "\nactivity:", "\nsubjects:"}) {
    INFO(unused);
    CHECK(recorded.find(unused) == std::string::npos);
  }
  CHECK(recorded.find("license") == std::string::npos);  // the card's, not the samples'

  SECTION("license names the data's own, and changes the card without remaking a shard") {
    const auto before = index["shards"];
    const auto r = run_loci("generate " + config + " out=" + out + " license=odc-by --resume");
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(slurp(out + "/dataset_card.md"), Catch::Contains("license: odc-by\n"));
    CHECK(index_of(out)["shards"] == before);
  }
  SECTION("a subject's file changed since: --resume is refused, the dataset stays as it was") {
    std::ofstream(c, std::ios::app) << "1,2,3\n";
    const auto r = run_loci("generate " + config + " out=" + out + " --resume");
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.output, Catch::Contains("input files"));
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
    CHECK(loci::datasets::Dataset::open(out).verify().shards == 2);
  }
}
