// task.objective (issue 53): the LST supervised at every cell (dense) or at every blank cell (dense_blank) beside
// the paper's single readout, a declared key recorded in identity, learning, and refused on data without a solution.
#include <catch2/catch.hpp>

#include <filesystem>

#include "tests/plugins/torch_trainer/trainer_fixture.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

using loci::test::refusal;
using loci::test::run_loci;
using loci::test::slurp;
using loci::test::train_config;
namespace fs = std::filesystem;

TEST_CASE("a dense LST objective trains every blank cell from its own token and is part of the run's identity") {
  loci::test::TempDir readout, dense, blank;
  const std::string longer = " train.epochs=16 train.eval_every=4 train.lr=0.003";
  REQUIRE(run_loci("train -q " + train_config(readout) + longer).exit_code == 0);
  const auto d = run_loci("train -q " + train_config(dense) + longer + " task.objective=dense");
  INFO(d.output);
  REQUIRE(d.exit_code == 0);
  REQUIRE(run_loci("train -q " + train_config(blank) + longer + " task.objective=dense_blank").exit_code == 0);
  // Recorded, and the readout's pooling, which a dense objective does not read, left out of its identity.
  const std::string identity = slurp(dense.path() / "run" / "identity.json");
  CHECK(identity.find("\"task.objective\": \"dense\"") != std::string::npos);
  CHECK(identity.find("\"model.pooling\"") == std::string::npos);
  CHECK(slurp(readout.path() / "run" / "identity.json").find("\"task.objective\": \"readout\"") != std::string::npos);
  // Each learns: its training loss falls from one evaluation to the last, the dense one well below chance's
  // ln 4 = 1.386. Copying the given cells is easy, so the loss over every cell ends below the loss over the blank
  // cells alone (many of which the givens do not decide).
  const std::string py =
      "/usr/bin/python3 -c \"import pandas; "
      "l = lambda f: pandas.read_csv(f).query('split == \\\"train\\\"').loss.tolist(); "
      "a, b = l('" +
      (dense.path() / "run" / "metrics.csv").string() + "'), l('" + (blank.path() / "run" / "metrics.csv").string() +
      "'); "
      "assert a[-1] < 0.95 and a[-1] < a[0] - 0.1 and b[-1] < b[0] - 0.02 and a[-1] < b[-1], (a, b)\"";
  CHECK(std::system(py.c_str()) == 0);
}

TEST_CASE("a dense objective where it cannot apply is refused naming the key, not ignored") {
  loci::test::TempDir dir;
  const auto net = dir.write("net.yaml", "include: " + std::string(LOCI_SOURCE_DIR) +
                                             "/configs/network_ou.yaml\nout: " + (dir.path() / "net").string() +
                                             "\nsplits: {train: 16, test: 4, test_noise: 4}\ngraph: {nodes: 8}\n"
                                             "windows: {length: 4, stride: 4}\n");
  REQUIRE(run_loci("generate -q " + net).exit_code == 0);
  // Masked regression supervises every masked token already; the key would change nothing, silently.
  const auto r = run_loci("train -q " + train_config(dir) + " data=" + (dir.path() / "net").string() +
                          " task.objective=dense_blank");
  CHECK_THAT(refusal(r), Catch::Contains("task.objective dense_blank") && Catch::Contains("masked_regression"));
}

// The keys that delay or prevent interpolation (issue 53 item 3): each changes training as it says, and each is part
// of the run's identity.
TEST_CASE("train.data_fraction trains on the split's first share, the same samples every epoch") {
  loci::test::TempDir half;
  REQUIRE(run_loci("train -q " + train_config(half) + " train.data_fraction=0.5").exit_code == 0);
  // The train split's evaluation scores the 48 samples trained on, of 96; the test split stays whole.
  const std::string py = "/usr/bin/python3 -c \"import pandas; m = pandas.read_csv('" +
                         (half.path() / "run" / "metrics.csv").string() +
                         "'); "
                         "assert set(m[m.split == 'train'].samples) == {48}, m; "
                         "assert set(m[m.split == 'test'].samples) == {24}, m\"";
  CHECK(std::system(py.c_str()) == 0);
  CHECK(slurp(half.path() / "run" / "identity.json").find("\"train.data_fraction\": 0.5") != std::string::npos);
}

TEST_CASE("a larger train.adam_eps takes smaller steps, and label smoothing changes what is learned") {
  loci::test::TempDir plain, eps, smooth;
  REQUIRE(run_loci("train -q " + train_config(plain)).exit_code == 0);
  REQUIRE(run_loci("train -q " + train_config(eps) + " train.adam_eps=1.0").exit_code == 0);
  REQUIRE(run_loci("train -q " + train_config(smooth) + " train.label_smoothing=0.2").exit_code == 0);
  // The PE's displacement from its draw (the same draw: same seed) after the same steps.
  const auto moved = [](const loci::test::TempDir& d) {
    return "numpy.linalg.norm(numpy.diff(h5py.File('" + (d.path() / "run" / "pe.h5").string() +
           "')['placement_0'][:][[0, -1]].astype(float), axis=0))";
  };
  const std::string py = "/usr/bin/python3 -c \"import h5py, numpy; a = " + moved(plain) + "; b = " + moved(eps) +
                         "; c = " + moved(smooth) + "; assert 0 < b < 0.5 * a, (a, b); assert c != a, (a, c)\"";
  CHECK(std::system(py.c_str()) == 0);
  CHECK(slurp(eps.path() / "run" / "identity.json").find("\"train.adam_eps\": 1.0") != std::string::npos);
  CHECK(slurp(smooth.path() / "run" / "identity.json").find("\"train.label_smoothing\": 0.2") != std::string::npos);
  // AdamW's epsilon is part of an AdamW run's identity, at its default too.
  CHECK(slurp(plain.path() / "run" / "identity.json").find("\"train.adam_eps\": 1e-08") != std::string::npos);
}
