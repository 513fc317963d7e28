#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

using loci::test::refusal;
using loci::test::run_loci;
namespace fs = std::filesystem;

TEST_CASE("loci --help lists every command and exits 0") {
  const auto r = run_loci("--help");
  CHECK(r.exit_code == 0);
  for (const char* c : {"generate", "train", "run", "analyze", "report", "inspect", "plugins", "config"})
    CHECK(r.output.find(c) != std::string::npos);
  CHECK(run_loci("generate --help").exit_code == 0);
  CHECK(run_loci("config show --help").exit_code == 0);
}

TEST_CASE("unknown commands and options are one-line errors with exit code 1") {
  const auto r = run_loci("frobnicate");
  CHECK(r.exit_code == 1);
  CHECK(r.output.rfind("loci: error: ", 0) == 0);
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
}

TEST_CASE("analyze and report name a folder without runs or analysis in one line") {
  loci::test::TempDir dir;
  auto r = run_loci("analyze " + dir.path().string() + "/nowhere");
  CHECK(r.exit_code == 1);
  CHECK(r.output == "loci: error: " + dir.path().string() + "/nowhere: no such folder\n");
  r = run_loci("analyze " + dir.path().string());
  CHECK(r.exit_code == 1);
  CHECK(r.output ==
        "loci: error: " + dir.path().string() + ": holds no training run (a folder with config.yaml and pe.h5)\n");
  r = run_loci("report " + dir.path().string());
  CHECK(r.exit_code == 1);
  CHECK(r.output ==
        "loci: error: " + dir.path().string() + ": no summary.csv (run `loci analyze` on the runs first)\n");
}

TEST_CASE("config show prints the resolved YAML of every shipped config") {
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(LOCI_SOURCE_DIR) / "configs")) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path());
    const auto r = run_loci("config show " + entry.path().string());
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("seed:") != std::string::npos);
  }
}

TEST_CASE("a misspelled key in a config is reported with its position and a suggestion") {
  loci::test::TempDir dir;
  const auto f = dir.write("typo.yaml", "generator: lst_grid\nout: x\nseeed: 3\n");
  CHECK(refusal(run_loci("config show " + f)) ==
        "loci: error: " + f + ":3:1: unknown key 'seeed' (did you mean 'seed'?)\n");
}

TEST_CASE("an unknown generator is named with its position and the nearest plugin") {
  loci::test::TempDir dir;
  const auto f = dir.write("bad.yaml", "generator: lst_grd\nout: x\n");
  const std::string said = refusal(run_loci("generate " + f));
  CHECK(said.rfind(
            "loci: error: " + f + ":1:12: no generator plugin named 'lst_grd' (did you mean 'lst_grid'?); searched ",
            0) == 0);
  // Where plugins are looked for, and how to add a folder: the build's own plugin folder is among them.
  CHECK_THAT(said,
             Catch::Contains(std::string(LOCI_BUILD_DIR) + "/lib/loci/plugins") && Catch::Contains("LOCI_PLUGIN_PATH"));
}

TEST_CASE("overrides on the command line are typed and checked") {
  const std::string cfg = std::string(LOCI_SOURCE_DIR) + "/configs/lst.yaml";
  const auto ok = run_loci("config show " + cfg + " seed=42 splits.train=600");
  REQUIRE(ok.exit_code == 0);
  CHECK(ok.output.find("seed: 42") != std::string::npos);
  CHECK(ok.output.find("train: 600") != std::string::npos);
  CHECK(refusal(run_loci("config show " + cfg + " seed=-3")) ==
        "loci: error: command line 'seed=-3': 'seed': expected an integer >= 0, got '-3'\n");
}

TEST_CASE("a pipeline's command-line key one level short of a stage's is named with its full path") {
  const std::string qs = std::string(LOCI_SOURCE_DIR) + "/configs/quickstart.yaml";
  const auto short_key = run_loci("config show " + qs + " train.epochs=2");
  CHECK(short_key.exit_code == 1);
  CHECK(short_key.output ==
        "loci: error: command line 'train.epochs=2': the train stage has no key 'epochs'; did "
        "you mean 'train.train.epochs'?\n");
  const auto bare = run_loci("config show " + qs + " lr=0.01");
  CHECK(bare.exit_code == 1);
  CHECK(bare.output.find("the pipeline has no key 'lr'") != std::string::npos);
  CHECK(bare.output.find("did you mean 'train.train.lr'?") != std::string::npos);
  // A key two stages have: both offered.
  CHECK_THAT(refusal(run_loci("config show " + qs + " seed=3")),
             Catch::Contains("did you mean 'generate.seed' or 'train.seed'?"));
  // The full path works; a key inside a stage's mapping field is the field's (no hint), a plain typo keeps its own.
  const auto full = run_loci("config show " + qs + " train.train.epochs=2 generate.splits.train=64");
  CHECK(full.exit_code == 0);
  CHECK(full.output.find("epochs: 2") != std::string::npos);
  const auto typo = run_loci("config show " + qs + " train.seeed=1");
  CHECK(typo.output.find("command line 'train.seeed=1': unknown key 'seeed' (did you mean 'seed'?)") !=
        std::string::npos);
}

TEST_CASE("thread counts, path lengths and split sizes past any machine's are one-line errors naming the key") {
  const std::string gen = std::string(LOCI_SOURCE_DIR) + "/configs/lst.yaml";
  const std::string train = std::string(LOCI_SOURCE_DIR) + "/configs/lst_train.yaml";
  for (const std::string& args :
       {"config show " + train + " train.threads=1000000", "config show " + gen + " threads=1000000",
        "config show " + gen + " out=/tmp/" + std::string(10000, 'x'),
        "generate " + gen + " out=/tmp/loci-never-made splits.train=1000000000000"}) {
    INFO(args.substr(0, 120));
    const auto r = run_loci(args);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.output, Catch::StartsWith("loci: error: command line '"));
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  }
}

TEST_CASE("loci plugins lists the built plugins and config schema documents one") {
  const auto r = run_loci("plugins");
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("generator") != std::string::npos);
  CHECK(r.output.find("lst_grid") != std::string::npos);
  const auto s = run_loci("config schema lst_grid");
  CHECK(s.exit_code == 0);
  CHECK(s.output.find("samples_per_shard") != std::string::npos);
  // Without a name: the names it takes.
  const auto all = run_loci("config schema");
  INFO(all.output);
  CHECK(all.exit_code == 0);
  for (const char* plugin : {"lst_grid", "network_dynamics", "volumetric_parcels", "torch_trainer"})
    CHECK(all.output.find(std::string("  ") + plugin) != std::string::npos);
}

TEST_CASE("loci plugins reports refused libraries from LOCI_PLUGIN_PATH") {
  const std::string fixtures = std::string(LOCI_BUILD_DIR) + "/tests/plugins/api/fixtures";
  const auto r = run_loci("plugins", "LOCI_PLUGIN_PATH=" + fixtures);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("echo_fixture") != std::string::npos);
  CHECK(r.output.find("bad_abi_plugin.so: built for plugin ABI") != std::string::npos);
  CHECK(r.output.find("no_entry_library.so: not a loci plugin") != std::string::npos);
}

TEST_CASE("the analysis options are one declaration: the analyze stage's keys and loci analyze's flags agree") {
  const std::string qs = std::string(LOCI_SOURCE_DIR) + "/configs/quickstart.yaml";
  // Every key has its flag, with the same default.
  const auto help = run_loci("analyze --help");
  for (const char* flag : {"--metric TEXT:{euclidean,cosine,correlation}=euclidean", "--knn INT=4", "--mds-dims INT=2",
                           "--attention-reference TEXT=sinusoidal_2d"}) {
    INFO(flag);
    CHECK(help.output.find(flag) != std::string::npos);
  }
  const auto shown = run_loci("config show " + qs + " analyze.attention_reference=learned analyze.knn=3");
  INFO(shown.output);
  CHECK(shown.exit_code == 0);
  CHECK(shown.output.find("attention_reference: learned") != std::string::npos);
  // One range, checked in both places.
  CHECK_THAT(refusal(run_loci("config show " + qs + " analyze.mds_dims=4")), Catch::Contains("mds_dims"));
  CHECK(refusal(run_loci("analyze " + qs + " --mds-dims 4")) ==
        "loci: error: --mds-dims: '4' is above the maximum 3 (see `loci --help`)\n");
}

TEST_CASE("loci sweep status reads within bounds and lists every run in the folder") {
  loci::test::TempDir dir;
  const fs::path sweep = dir.path() / "sweep";
  // The point list names one run; a second sweep wrote another into the same folder and its list was replaced.
  dir.write("sweep/sweep.json", R"({"points": [{"name": "listed", "overrides": []}]})");
  dir.write("sweep/listed/config.yaml", "seed: 0\n");
  fs::create_symlink("/dev/zero", sweep / "listed" / "summary.json");  // a planted link: no hang, no bad_alloc
  dir.write("sweep/other/config.yaml", "seed: 1\n");
  fs::create_symlink("/dev/zero", sweep / "other" / "train.log");
  REQUIRE(mkfifo((sweep / "other" / ".loci-lock").c_str(), 0644) == 0);  // a FIFO as the claim: no hang
  const auto r = run_loci("sweep status " + sweep.string(), "timeout 20");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains(": 2 points"));
  CHECK_THAT(r.output, Catch::Contains("listed") && Catch::Contains("summary.json unreadable"));
  CHECK_THAT(r.output, Catch::Contains("other"));
}

TEST_CASE("sweep points whose values differ only in '/' or ' ' get folders of their own") {
  loci::test::TempDir dir;
  const auto cfg = dir.write("t.yaml", "trainer: torch_trainer\ndata: d\nout: s\n");
  const auto r = run_loci("train " + cfg + " -m 'data=../data/lst,.._data_lst,a b' --emit list",
                          "cd " + dir.path().string() + " &&");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("/s/data=..%2Fdata%2Flst ") && Catch::Contains("/s/data=.._data_lst ") &&
                           Catch::Contains("/s/data=a%20b "));
}

TEST_CASE("sizes no machine holds are refused at their key before anything is allocated") {
  const std::string parcels = std::string(LOCI_SOURCE_DIR) + "/configs/parcels.yaml";
  const std::string network = std::string(LOCI_SOURCE_DIR) + "/configs/network.yaml";
  const auto voxel = run_loci("generate " + parcels + " out=/tmp/loci-never-made volume.voxel_mm=0.001");
  CHECK(voxel.exit_code == 1);
  CHECK_THAT(voxel.output, Catch::Contains("'volume.voxel_mm' is too small"));
  CHECK(std::count(voxel.output.begin(), voxel.output.end(), '\n') == 1);
  for (const std::string& config : {parcels, network}) {
    const auto window = run_loci("generate " + config + " out=/tmp/loci-never-made windows.length=1000000000");
    INFO(window.output);
    CHECK(window.exit_code == 1);
    CHECK_THAT(window.output, Catch::Contains("windows.length = 1000000000"));
  }
}

TEST_CASE("a config value that is not UTF-8 text is refused at its key, in one line without the raw bytes") {
  loci::test::TempDir dir;
  const auto cfg = dir.write("t.yaml", "trainer: torch_trainer\ndata: \"d\xc0\x01\"\nout: s\n");
  const auto r = run_loci("config show " + cfg);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output,
             Catch::Contains("t.yaml:2:") && Catch::Contains("is not UTF-8 text") && Catch::Contains("\\x01"));
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
}

TEST_CASE("a run's files are read only inside its folder: a link out, a FIFO or a self-link is one line naming it") {
  loci::test::TempDir dir;
  dir.write("elsewhere/summary.json", R"({"status": "finished"})");
  dir.write("sweep/sweep.json", R"({"points": [{"name": "../elsewhere", "overrides": []}]})");
  const auto escape = run_loci("sweep status " + (dir.path() / "sweep").string(), "timeout 20");
  CHECK(escape.exit_code == 1);
  CHECK_THAT(escape.output, Catch::Contains("point name '../elsewhere' is not a folder name"));
  dir.write("sweep/sweep.json", R"({"points": [{"name": "a", "overrides": []}]})");
  dir.write("sweep/a/train.log", "loci: epoch 1\n");
  fs::create_symlink(dir.path() / "elsewhere" / "summary.json", dir.path() / "sweep" / "a" / "summary.json");
  fs::create_symlink("config.yaml", dir.path() / "sweep" / "a" / "config.yaml");  // a link to itself
  const auto linked = run_loci("sweep status " + (dir.path() / "sweep").string(), "timeout 20");
  INFO(linked.output);
  CHECK(linked.exit_code == 0);
  CHECK_THAT(linked.output, Catch::Contains("outside its folder"));
  CHECK_THAT(linked.output, !Catch::Contains("internal"));
}

TEST_CASE("first-day slips get a message that names the fix") {
  loci::test::TempDir dir;
  const auto command = run_loci("trian x.yaml");
  CHECK(command.exit_code == 1);
  CHECK_THAT(command.output, Catch::Contains("unknown command 'trian' (did you mean 'train'?)"));
  const auto cfg = dir.write("t.yaml", "trainer: torch_trainer\ndata: " + (dir.path() / "nope").string() +
                                           "\nout: " + (dir.path() / "r").string() + "\n");
  const auto sweep = run_loci("config show " + cfg + " model.pe.init.std=0.2,2.0");
  CHECK(sweep.exit_code == 1);
  CHECK_THAT(sweep.output, Catch::Contains("-m model.pe.init.std=0.2,2.0"));
  const auto data = run_loci("train " + cfg);
  CHECK(data.exit_code == 1);
  CHECK_THAT(data.output, Catch::Contains("no such dataset folder") && Catch::Contains("loci generate"));
  // A dataset folder made with other settings: the refusal names the keys that differ and the flag as typed.
  const std::string lst = std::string(LOCI_SOURCE_DIR) + "/configs/lst.yaml out=" + (dir.path() / "d").string();
  REQUIRE(run_loci("generate -q " + lst + " splits.train=8 splits.test=4").exit_code == 0);
  const auto other = run_loci("generate -q " + lst + " splits.train=12 splits.test=4");
  CHECK(other.exit_code == 1);
  CHECK_THAT(other.output, Catch::Contains("splits.train 8 vs 12") && Catch::Contains("pass --force"));
  // A run that ended before its first checkpoint with no error is interrupted, not failed.
  dir.write("sweep/a/config.yaml", "seed: 0\n");
  dir.write("sweep/a/train.log", "loci: chunk products: libxsmm 1.17 (cpx)\n");
  const auto status = run_loci("sweep status " + (dir.path() / "sweep").string());
  INFO(status.output);
  CHECK_THAT(status.output, Catch::Contains("interrupted") && Catch::Contains("before its first checkpoint"));
  CHECK_THAT(status.output, !Catch::Contains("failed"));
}
