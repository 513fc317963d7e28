// Options declared once and runs that know what they were made from: every schema choice reaches the model, a
// user's mistake names its key, and a run folder is never continued, kept or overwritten with other settings.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "datasets/error.hpp"
#include "datasets/folder_lock.hpp"
#include "tests/plugins/torch_trainer/trainer_fixture.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

using loci::test::dataset;
using loci::test::refusal;
using loci::test::run_loci;
using loci::test::slurp;
using loci::test::train_config;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The arrays of two pe.h5 files are equal (h5py; attributes aside).
bool same_pe_arrays(const fs::path& a, const fs::path& b) {
  const std::string py = "/usr/bin/python3 -c \"import h5py, numpy, sys; a = h5py.File('" + a.string() +
                         "'); b = h5py.File('" + b.string() +
                         "'); ks = sorted(k for k in a if isinstance(a[k], h5py.Dataset)); "
                         "assert ks == sorted(k for k in b if isinstance(b[k], h5py.Dataset)), ks; "
                         "sys.exit(0 if all(numpy.array_equal(a[k][()], b[k][()]) for k in ks) else 1)\"";
  return std::system(py.c_str()) == 0;
}

}  // namespace

TEST_CASE("every choice the trainer's schema offers for a PE builds and trains") {
  // placement input_only and offsets coordinates were unreachable from YAML before the options were declared once.
  const std::vector<std::string> settings{
      "model.pe.placement=input_only",
      "model.pe.placement=shared",
      "model.pe.type=relative model.pe.offsets=coordinates",
      "model.pe.type=relative model.pe.variant=music_causal",
      "model.pe.type=alibi model.pe.offsets=coordinates",
      "model.pe.type=learned model.pe.init.name=orthogonal",
      "model.pe.type=learned model.pe.init.name=from_sinusoidal model.pe.init.source=coordinates",
      "model.pe.type=learned model.pe.init.name=from_coordinates model.pe.init.mode=tile",
      "model.pe.type=none",
      "model.pe.type=sinusoidal_1d",
      "model.pe.type=sinusoidal_2d",
      "model.pe.type=sinusoidal_nd",
      "model.pe.type=random_fixed",
      "model.pe.type=rope",
      "model.pe.type=rope_axial",
      "model.pe.init.name=uniform",
      "model.pe.init.name=truncated_normal",
      "model.pe.init.name=zeros",
      "model.pe.type=relative model.pe.max_distance=2",
      "model.final_norm=true",
      "model.dropout=0.1",
      "model.activation_after_both=false",
      "train.precision=bf16",
      "model.activation=relu",
      "model.norm=pre",
      "model.pooling=target",
      "model.pooling=mean",
      "model.pooling=cls",
      "train.optimizer=sgd",
      "train.schedule=warmup_cosine train.warmup_steps=2"};
  for (const auto& s : settings) {
    loci::test::TempDir dir;
    // The fixture's init.std: 0.2 is cleared for an initialiser that does not read it (it would be refused).
    // (The relative bias starts from zeros, which reads no key; music_causal's table from normal.)
    const bool other_init = s.find("init.name=") != std::string::npos && s.find("normal") == std::string::npos;
    const bool bias = s.find("type=relative") != std::string::npos && s.find("music_causal") == std::string::npos;
    const bool reads_std = !other_init && !bias;
    const auto r = run_loci("train -q " + train_config(dir) + " train.epochs=1 " + s +
                            (reads_std ? "" : " model.pe.init.std=null"));
    INFO(s << "\n" << r.output);
    CHECK(r.exit_code == 0);
  }
}

TEST_CASE("a PE without model.pe.init uses its own default initialiser, recorded in config.yaml") {
  loci::test::TempDir music, learned;
  auto without_init = [](const loci::test::TempDir& dir, const std::string& pe) {
    return dir.write("t.yaml", "trainer: torch_trainer\ndata: " + dataset().string() + "\nout: " +
                                   (dir.path() / "run").string() + "\nmodel: {d_model: 16, blocks: 2, pe: " + pe +
                                   "}\ntrain: {epochs: 1, batch_size: 32, threads: 1, progress: false}\n");
  };
  REQUIRE(run_loci("train -q " + without_init(music, "{type: relative, variant: music_causal}")).exit_code == 0);
  const auto cfg = slurp(music.path() / "run/config.yaml");
  INFO(cfg);
  // The authors' Music-Transformer tables are drawn N(0, 1), not the learned PE's N(0, 0.2^2).
  CHECK(contains(cfg, "name: normal"));
  CHECK(contains(cfg, "std: 1.0"));

  REQUIRE(run_loci("train -q " + without_init(learned, "{type: learned}")).exit_code == 0);
  CHECK(contains(slurp(learned.path() / "run/config.yaml"), "std: 0.2"));
}

TEST_CASE("config mistakes the model finds are one-line user errors naming the key") {
  loci::test::TempDir dir;
  const auto cfg = train_config(dir);
  CHECK_THAT(refusal(run_loci("train -q " + cfg + " model.heads=3")),
             Catch::Contains("model.heads: must divide model.d_model"));
  const auto placement = run_loci("train -q " + cfg + " model.pe.placement=input");
  CHECK(placement.exit_code == 1);
  CHECK(contains(placement.output, "model.pe.placement"));
  CHECK(contains(placement.output, "did you mean 'input_only'"));
  const auto octal = run_loci("train -q " + cfg + " train.epochs=010");
  CHECK(octal.exit_code == 1);
  CHECK(contains(octal.output, "train.epochs"));
  CHECK(contains(octal.output, "leading zero"));
  CHECK_THAT(refusal(run_loci("train -q " + cfg + " train.lr=.inf")), Catch::Contains("train.lr"));
  // A PE the data cannot take: the 2-D sinusoid on 15 nodes of a ring (1-D positions, not a square grid).
  loci::test::TempDir ring;
  const auto data = (ring.path() / "ring").string();
  REQUIRE(run_loci("generate -q " + std::string(LOCI_SOURCE_DIR) + "/configs/network.yaml out=" + data +
                   " graph.topology=watts_strogatz graph.dims=1 graph.nodes=15 splits.train=8 splits.test=4 "
                   "splits.test_noise=4 windows.length=5")
              .exit_code == 0);
  const auto pe = run_loci("train -q " + cfg + " data=" + data + " model.pe.type=sinusoidal_2d");
  INFO(pe.output);
  CHECK(pe.exit_code == 1);
  CHECK(contains(pe.output, "model.pe.type 'sinusoidal_2d'"));
  CHECK(contains(pe.output, "square number of tokens"));
}

TEST_CASE("a resumed run with other settings is refused, naming the keys that differ") {
  loci::test::TempDir dir;
  const auto cfg = train_config(dir);
  REQUIRE(run_loci("train -q --until-epoch 1 " + cfg).exit_code == 0);
  CHECK_THAT(refusal(run_loci("train -q --resume " + cfg + " train.lr=0.01")),
             Catch::Contains("train.lr (0.001 -> 0.01)"));
  // A finished run is refused the same way, and so is another seed.
  REQUIRE(run_loci("train -q --resume " + cfg).exit_code == 0);
  CHECK_THAT(refusal(run_loci("train -q --resume " + cfg + " seed=1")), Catch::Contains("seed (0 -> 1)"));
  // What does not change the result may change: the thread count.
  CHECK(run_loci("train -q --resume " + cfg + " train.threads=2").exit_code == 0);
  // Asked for, other settings train into a folder of their own beside it, which a rerun finds again.
  const auto fork = run_loci("train -q " + cfg + " train.lr=0.01 train.on_other_settings=new_folder");
  INFO(fork.output);
  CHECK(fork.exit_code == 0);
  CHECK(contains(fork.output, "training into " + (dir.path() / "run@").string()));
  std::vector<fs::path> forks;
  for (const auto& e : fs::directory_iterator(dir.path()))
    if (e.path().filename().string().rfind("run@", 0) == 0) forks.push_back(e.path());
  REQUIRE(forks.size() == 1);
  CHECK(contains(slurp(forks[0] / "config.yaml"), "lr: 0.01"));
  CHECK(contains(slurp(forks[0] / "config.yaml"), forks[0].string()));  // its config says where it is
  CHECK(fs::exists(forks[0] / "summary.json"));
  const auto again = run_loci("train -q " + cfg + " train.lr=0.01 train.on_other_settings=new_folder");
  CHECK(again.exit_code == 0);
  CHECK(contains(again.output, "finished already"));
  CHECK(contains(slurp(dir.path() / "run/config.yaml"), "lr: 0.001"));  // the first run is untouched
}

TEST_CASE("a run made before an option existed continues as if it had that option's earlier value") {
  loci::test::TempDir dir;
  // A bf16 run, where train.bf16_products applies (an fp32 run's identity leaves it out).
  const auto cfg = train_config(dir) + " train.precision=bf16";
  REQUIRE(run_loci("train -q --until-epoch 1 " + cfg).exit_code == 0);
  // As loci wrote identity.json before train.bf16_products existed, and before task.objective, train.adam_eps,
  // train.label_smoothing and train.data_fraction (whose absence must not even hide model.pooling, which applies
  // only to the readout objective).
  const fs::path identity = dir.path() / "run/identity.json";
  std::string had = slurp(identity);
  for (const char* key : {"\"train.bf16_products\"", "\"task.objective\"", "\"train.adam_eps\"",
                          "\"train.label_smoothing\"", "\"train.data_fraction\""}) {
    const auto at = had.find(key);
    REQUIRE(at != std::string::npos);
    const auto line = had.rfind('\n', at), end = had.find('\n', at);
    had = had.substr(0, line) + had.substr(end);
  }
  std::ofstream(identity) << had;
  REQUIRE_FALSE(contains(slurp(identity), "bf16_products"));
  REQUIRE_FALSE(contains(slurp(identity), "task.objective"));
  const auto resumed = run_loci("train -q --resume " + cfg);
  INFO(resumed.output);
  CHECK(resumed.exit_code == 0);
  CHECK(fs::exists(dir.path() / "run/summary.json"));
  // Another value than the earlier one is still another setting.
  CHECK_THAT(refusal(run_loci("train -q --resume " + cfg + " train.bf16_products=fused")),
             Catch::Contains("train.bf16_products"));
}

TEST_CASE("identity.json holds typed values and only the keys that apply, and an earlier loci's record still matches") {
  loci::test::TempDir dir;
  const auto cfg = train_config(dir);
  REQUIRE(run_loci("train -q " + cfg + " train.epochs=2").exit_code == 0);
  const fs::path file = dir.path() / "run/identity.json";
  const auto keys = nlohmann::json::parse(slurp(file))["keys"];
  INFO(keys.dump(2));
  CHECK(keys["train.lr"] == 0.001);
  CHECK(keys["train.batch_size"] == 32);
  CHECK(keys["seed"] == 0);
  CHECK(keys["model.activation_after_both"] == true);
  CHECK(keys["model.pe.type"] == "learned");
  CHECK(keys["model.pe.init.name"] == "normal");
  CHECK(keys["model.pe.init.std"] == 0.2);
  CHECK(keys["train.robustness_noise"] == nlohmann::json::array());
  CHECK(keys["train.pe.weight_decay"].is_null());
  CHECK(keys["data.shards_sha256"].is_string());
  // What an fp32 AdamW run with a constant rate, no early stopping and a normal init never reads.
  for (const char* absent :
       {"train.bf16_products", "train.momentum", "train.warmup_steps", "train.min_lr", "train.early_stop_split",
        "train.early_stop_min_delta", "model.pe.init.a", "model.pe.init.gain", "model.pe.init.scale",
        "model.pe.init.source", "model.pe.init.mode", "model.pe.init.base"}) {
    INFO(absent);
    CHECK_FALSE(keys.contains(absent));
  }
  // A key that does not apply may change without making another run.
  const auto momentum = run_loci("train -q " + cfg + " train.epochs=2 train.momentum=0.5");
  INFO(momentum.output);
  CHECK(momentum.exit_code == 0);
  CHECK(contains(momentum.output, "nothing to do"));

  // As loci wrote it before: every value as text, every key whether it applies or not.
  nlohmann::json old = nlohmann::json::parse(slurp(file));
  for (auto& [k, v] : old["keys"].items()) v = v.is_string() ? v : nlohmann::json(v.is_null() ? "null" : v.dump());
  old["keys"]["train.lr"] = "1e-3";
  for (const auto& [k, v] : std::map<std::string, std::string>{{"train.bf16_products", "autocast"},
                                                               {"train.momentum", "0.9"},
                                                               {"train.warmup_steps", "0"},
                                                               {"model.pe.init.a", "0.1"},
                                                               {"model.pe.init.base", "1e+04"},
                                                               {"model.pe.init.mode", "project"}})
    old["keys"][k] = v;
  std::ofstream(file) << old.dump(2);
  const auto same = run_loci("train -q " + cfg + " train.epochs=2");
  INFO(same.output);
  CHECK(same.exit_code == 0);
  CHECK(contains(same.output, "nothing to do"));
  CHECK_THAT(refusal(run_loci("train -q " + cfg + " train.epochs=2 train.lr=0.01")),
             Catch::Contains("train.lr (0.001 -> 0.01)"));

  // Where they apply, the same keys are recorded: bf16's products, SGD's momentum, an init's own keys.
  loci::test::TempDir other_dir;
  REQUIRE(run_loci("train -q " + train_config(other_dir) +
                   " train.epochs=1 train.precision=bf16 train.optimizer=sgd train.schedule=warmup_cosine "
                   "model.pe.init.name=from_coordinates model.pe.init.mode=tile model.pe.init.std=null")
              .exit_code == 0);
  const auto applied = nlohmann::json::parse(slurp(other_dir.path() / "run/identity.json"))["keys"];
  INFO(applied.dump(2));
  CHECK(applied["train.bf16_products"] == "autocast");
  CHECK(applied["train.momentum"] == 0.9);
  CHECK(applied["train.warmup_steps"] == 0);
  CHECK(applied["model.pe.init.mode"] == "tile");
  CHECK(applied["model.pe.init.scale"] == 1.0);
  CHECK_FALSE(applied.contains("model.pe.init.std"));
  CHECK(contains(slurp(other_dir.path() / "run/config.yaml"), "mode: tile"));
}

TEST_CASE("train.epochs may grow on a finished run, which then equals a run asked for that many from the start") {
  loci::test::TempDir grown, whole;
  // 3 epochs evaluated every 2: the finished run evaluated at 2 and 3; a 4-epoch run evaluates at 2 and 4 only.
  const auto cfg = train_config(grown);
  REQUIRE(run_loci("train -q " + cfg + " train.epochs=3").exit_code == 0);
  const auto again = run_loci("train -q --resume " + cfg + " train.epochs=3");
  CHECK(again.exit_code == 0);
  CHECK(contains(again.output, "finished already"));
  // The same command again, without --resume, finds its run finished: nothing to do, as a sweep keeps it.
  const auto same = run_loci("train -q " + cfg + " train.epochs=3");
  INFO(same.output);
  CHECK(same.exit_code == 0);
  CHECK(contains(same.output, "finished already (summary.json); nothing to do"));
  // More epochs, or other settings, are not the same run: said plainly, nothing written.
  const auto grow = run_loci("train -q " + cfg + " train.epochs=4");
  CHECK(grow.exit_code == 1);
  CHECK(contains(grow.output, "finished at epoch 3; pass --resume to continue it to epoch 4"));
  CHECK_THAT(refusal(run_loci("train -q " + cfg + " train.epochs=3 train.lr=0.01")),
             Catch::Contains("holds a run made with other settings: train.lr"));
  const auto more = run_loci("train -q --resume " + cfg + " train.epochs=4");
  INFO(more.output);
  REQUIRE(more.exit_code == 0);
  REQUIRE(run_loci("train -q " + train_config(whole) + " train.epochs=4").exit_code == 0);
  CHECK(same_pe_arrays(grown.path() / "run/pe.h5", whole.path() / "run/pe.h5"));
  CHECK(contains(slurp(grown.path() / "run/summary.json"), "\"epochs\": 4"));
  CHECK_THAT(refusal(run_loci("train -q --resume " + cfg + " train.epochs=2")),
             Catch::Contains("finished 4 epochs already"));
}

TEST_CASE("a second writer of a run folder or a dataset folder is refused") {
  loci::test::TempDir dir;
  const loci::datasets::FolderLock first(dir.path() / "run");
  try {
    const loci::datasets::FolderLock second(dir.path() / "run");
    FAIL("a second lock on one folder was granted");
  } catch (const loci::datasets::DataError& e) {
    CHECK(contains(e.what(), "is being written by pid"));
  }
  // The same through the command: a training run and a generation into a folder someone holds.
  CHECK_THAT(refusal(run_loci("train -q " + train_config(dir))), Catch::Contains("is being written by"));
  const loci::datasets::FolderLock data_claim(dir.path() / "data");
  const auto cfg = dir.write("gen.yaml", "include: " + std::string(LOCI_SOURCE_DIR) + "/configs/lst.yaml\nout: " +
                                             (dir.path() / "data").string() + "\nsplits: {train: 10}\n");
  CHECK_THAT(refusal(run_loci("generate -q " + cfg)), Catch::Contains("is being written by"));
}

TEST_CASE("training refuses data whose checksums do not match index.json") {
  loci::test::TempDir dir;
  fs::copy(dataset(), dir.path() / "data", fs::copy_options::recursive);
  fs::path shard;
  for (const auto& e : fs::directory_iterator(dir.path() / "data"))
    if (e.path().filename().string().rfind("train-", 0) == 0) shard = e.path();
  REQUIRE(!shard.empty());
  {
    std::fstream f(shard, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(fs::file_size(shard) / 2));
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 0x5a);
    f.seekp(static_cast<std::streamoff>(fs::file_size(shard) / 2));
    f.write(&c, 1);
  }
  CHECK_THAT(refusal(run_loci("train -q " + train_config(dir) + " data=" + (dir.path() / "data").string())),
             Catch::Contains(shard.filename().string() + ": checksum mismatch"));
}

TEST_CASE("a split of 0 samples and non-finite class weights are named errors") {
  loci::test::TempDir dir;
  const auto cfg = dir.write("gen.yaml", "include: " + std::string(LOCI_SOURCE_DIR) +
                                             "/configs/lst.yaml\nout: " + (dir.path() / "data").string() + "\n");
  CHECK_THAT(refusal(run_loci("generate -q " + cfg + " splits.train=0")), Catch::Contains("splits.train"));
  CHECK_THAT(refusal(run_loci("generate -q " + cfg + " 'lst.class_weights=[1,1,.inf]'")),
             Catch::Contains("lst.class_weights"));
  CHECK_THAT(refusal(run_loci("generate -q " + cfg + " splits.train=010")), Catch::Contains("splits.train"));
}

TEST_CASE("loci analyze gives the same analysis from any working folder") {
  loci::test::TempDir dir, elsewhere;
  // A relative `data:`, as configs/lst_train.yaml has: the run records it absolute.
  const fs::path parent = dataset().parent_path();
  const auto cfg =
      dir.write("t.yaml", "trainer: torch_trainer\ndata: " + dataset().filename().string() +
                              "\nout: " + (dir.path() / "run").string() +
                              "\nmodel: {d_model: 16, blocks: 2}\n"
                              "train: {epochs: 2, eval_every: 2, batch_size: 32, threads: 1, progress: false}\n");
  REQUIRE(run_loci("train -q " + cfg, "cd " + parent.string() + " &&").exit_code == 0);
  const auto a = run_loci("analyze -q " + (dir.path() / "run").string(), "cd " + parent.string() + " &&");
  INFO(a.output);
  REQUIRE(a.exit_code == 0);
  const auto first = slurp(dir.path() / "run/analysis.json");
  fs::remove(dir.path() / "run/analysis.json");
  REQUIRE(
      run_loci("analyze -q " + (dir.path() / "run").string(), "cd " + elsewhere.path().string() + " &&").exit_code ==
      0);
  CHECK(slurp(dir.path() / "run/analysis.json") == first);
}

TEST_CASE("loci analyze groups runs by every setting that differs except the seed") {
  loci::test::TempDir dir;
  const auto cfg = train_config(dir);
  const auto r = run_loci("train -q " + cfg +
                          " train.epochs=2 -m train.lr=0.001,0.01 seed=0,1 out=" + (dir.path() / "sweep").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // One line as each run starts and one as it ends, with its headline number, its time and what is left.
  auto lines_with = [&](const std::string& part) {
    std::size_t n = 0;
    for (std::size_t at = r.output.find(part); at != std::string::npos; at = r.output.find(part, at + 1)) ++n;
    return n;
  };
  CHECK(lines_with("] start  ") == 4);
  CHECK(lines_with("] done   ") == 4);
  // A run ends under the number it started with (runs of a parallel sweep end out of order).
  for (int k = 1; k <= 4; ++k) {
    const std::string tag = "[" + std::to_string(k) + "/4] ";
    const auto at = r.output.find(tag + "start  ");
    REQUIRE(at != std::string::npos);
    const auto from = at + tag.size() + 7;
    const std::string name = r.output.substr(from, r.output.find('\n', from) - from);
    CHECK(contains(r.output, tag + "done   " + name + ": "));
  }
  CHECK(contains(r.output, "3 to go, about "));
  CHECK(contains(r.output, ": human "));
  // Each run's train.log holds its own evaluation lines (the sweep's children are not quiet, only without a bar).
  CHECK(contains(slurp(dir.path() / "sweep/train.lr=0.01,seed=1/train.log"), "loci: epoch 2 step"));
  REQUIRE(run_loci("analyze -q " + (dir.path() / "sweep").string()).exit_code == 0);
  const auto summary = slurp(dir.path() / "sweep/summary.csv");
  INFO(summary);
  CHECK(contains(summary, "train.lr=0.001"));
  CHECK(contains(summary, "train.lr=0.01"));
  const auto runs = slurp(dir.path() / "sweep/runs.csv");
  CHECK(contains(runs.substr(0, runs.find('\n')), ",train.lr,"));

  // A key that is not part of a run's identity never splits a group: checkpoint cadence, threads.
  const auto cadence = run_loci(
      "train -q " + cfg + " train.epochs=2 -m train.checkpoint.every=1,2 out=" + (dir.path() / "cadence").string());
  REQUIRE(cadence.exit_code == 0);
  REQUIRE(run_loci("analyze -q " + (dir.path() / "cadence").string()).exit_code == 0);
  const auto one_group = slurp(dir.path() / "cadence/summary.csv");
  INFO(one_group);
  CHECK(std::count(one_group.begin(), one_group.end(), '\n') == 2);  // the header and one group
  CHECK_FALSE(contains(one_group, "checkpoint"));
  // One flag says so, in the trainer's option table: the schema prints it, identity.json records it, and a run
  // recorded without identity.json (an earlier loci's) is grouped by its config less the keys the others record.
  const auto schema = run_loci("config schema torch_trainer").output;
  auto schema_line = [&](const std::string& key) {
    const auto at = schema.find("\n" + key + "  [");
    return at == std::string::npos ? std::string() : schema.substr(at + 1, schema.find('\n', at + 1) - at - 1);
  };
  CHECK(contains(schema_line("train.checkpoint.every"), "(not part of a run's identity)"));
  CHECK(contains(schema_line("train.threads"), "(not part of a run's identity)"));
  CHECK_FALSE(contains(schema_line("train.lr"), "identity"));
  const auto recorded = slurp(dir.path() / "cadence/train.checkpoint.every=1/identity.json");
  CHECK(contains(recorded, "\"outside_identity\""));
  CHECK(contains(recorded, "\"train.checkpoint.every\""));
  fs::remove(dir.path() / "cadence/train.checkpoint.every=2/identity.json");
  REQUIRE(run_loci("analyze -q " + (dir.path() / "cadence").string()).exit_code == 0);
  const auto still_one = slurp(dir.path() / "cadence/summary.csv");
  INFO(still_one);
  CHECK(std::count(still_one.begin(), still_one.end(), '\n') == 2);

  // The same sweep asked with another model keeps nothing it was not made for: each point is refused by name.
  const auto changed =
      run_loci("train -q " + cfg + " train.epochs=2 model.d_model=8 -m train.lr=0.001,0.01 seed=0,1 out=" +
               (dir.path() / "sweep").string());
  INFO(changed.output);
  CHECK(changed.exit_code != 0);
  CHECK(contains(changed.output, "model.d_model (16 -> 8)"));
  const auto same = run_loci("train -q " + cfg +
                             " train.epochs=2 -m train.lr=0.001,0.01 seed=0,1 out=" + (dir.path() / "sweep").string());
  CHECK(same.exit_code == 0);
  CHECK(contains(same.output, "kept"));
}
