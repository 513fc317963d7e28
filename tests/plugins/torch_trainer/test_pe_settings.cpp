// The PE's own optimizer settings (train.pe.weight_decay, train.pe.lr_scale), the fixed-norm learned PE and the
// position-position attention term, through `loci train` as a researcher uses them.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "tests/plugins/torch_trainer/trainer_fixture.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

using loci::test::run_loci;
using loci::test::slurp;
using loci::test::train_config;
namespace fs = std::filesystem;

namespace {

// Runs a Python check over a run's pe.h5 (`f`, h5py) and returns whether it passed.
bool pe_file_check(const fs::path& run, const std::string& assertion) {
  const std::string py = "/usr/bin/python3 -c \"import h5py, numpy; f = h5py.File('" + (run / "pe.h5").string() +
                         "'); " + assertion + "\"";
  return std::system(py.c_str()) == 0;
}

// Each block's PE norm at the last evaluation over its norm at epoch 0, as a Python expression.
const char* kShrink = "n = lambda e: numpy.linalg.norm(f['placement_0'][e]); s = n(-1) / n(0); ";

double shrink(const fs::path& run) {
  const fs::path out = run / "shrink.txt";
  const std::string py = "/usr/bin/python3 -c \"import h5py, numpy; f = h5py.File('" + (run / "pe.h5").string() +
                         "'); " + kShrink + "open('" + out.string() + "', 'w').write(str(s))\"";
  REQUIRE(std::system(py.c_str()) == 0);
  return std::stod(slurp(out));
}

}  // namespace

TEST_CASE("train.pe.lr_scale 0 freezes the PE alone, and train.pe.weight_decay decays or exempts the PE alone") {
  loci::test::TempDir frozen, plain, pe_decay, all_decay, exempt;
  REQUIRE(run_loci("train -q " + train_config(frozen) + " train.pe.lr_scale=0").exit_code == 0);
  CHECK(pe_file_check(frozen.path() / "run", "p = f['placement_0']; assert numpy.array_equal(p[0], p[-1])"));
  CHECK(slurp(frozen.path() / "run/identity.json").find("\"train.pe.lr_scale\": 0.0") != std::string::npos);

  const std::string fast = " train.lr=0.01";
  REQUIRE(run_loci("train -q " + train_config(plain) + fast).exit_code == 0);
  REQUIRE(run_loci("train -q " + train_config(pe_decay) + fast + " train.pe.weight_decay=10").exit_code == 0);
  REQUIRE(run_loci("train -q " + train_config(all_decay) + fast + " train.weight_decay=10").exit_code == 0);
  REQUIRE(run_loci("train -q " + train_config(exempt) + fast + " train.weight_decay=10 train.pe.weight_decay=0")
              .exit_code == 0);
  const double s_plain = shrink(plain.path() / "run"), s_pe = shrink(pe_decay.path() / "run"),
               s_all = shrink(all_decay.path() / "run"), s_exempt = shrink(exempt.path() / "run");
  INFO("PE norm ratio: plain " << s_plain << ", PE decayed " << s_pe << ", all decayed " << s_all << ", PE exempt "
                               << s_exempt);
  CHECK(s_pe < 0.5 * s_plain);
  CHECK(s_all < 0.5 * s_plain);
  CHECK(s_exempt > 0.8 * s_plain);
  // Decay of the PE alone leaves the rest of the model undecayed, so the two decayed runs differ.
  CHECK(slurp(pe_decay.path() / "run/metrics.csv") != slurp(all_decay.path() / "run/metrics.csv"));
  CHECK(slurp(pe_decay.path() / "run/identity.json").find("\"train.pe.weight_decay\": 10.0") != std::string::npos);
}

TEST_CASE("a run whose PE has settings of its own resumes bit-identical, and refuses other PE settings") {
  loci::test::TempDir whole, parts;
  const std::string own = " train.pe.weight_decay=1 train.pe.lr_scale=3";
  REQUIRE(run_loci("train -q " + train_config(whole) + own).exit_code == 0);
  const auto cfg = train_config(parts);
  REQUIRE(run_loci("train -q --until-epoch 1 " + cfg + own).exit_code == 0);
  CHECK_THAT(loci::test::refusal(run_loci("train -q --resume " + cfg + " train.pe.weight_decay=1 train.pe.lr_scale=2")),
             Catch::Contains("train.pe.lr_scale"));
  REQUIRE(run_loci("train -q --resume " + cfg + own).exit_code == 0);
  CHECK(slurp(whole.path() / "run/pe.h5") == slurp(parts.path() / "run/pe.h5"));
}

TEST_CASE("learned_fixed_norm trains with each block's PE norm held at its draw's, and counts as drawn from its init") {
  loci::test::TempDir dir;
  REQUIRE(
      run_loci("train -q " + train_config(dir) + " model.pe.type=learned_fixed_norm train.weight_decay=5").exit_code ==
      0);
  CHECK(pe_file_check(dir.path() / "run",
                      "p = f['placement_0'][:]; n = numpy.linalg.norm(p.reshape(len(p), -1), axis=1); "
                      "assert numpy.allclose(n, n[0], rtol=1e-5), n; assert not numpy.array_equal(p[0], p[-1]); "
                      "assert f.attrs['drawn_from_init'] == 1"));
  REQUIRE(run_loci("analyze -q " + (dir.path() / "run").string()).exit_code == 0);
  CHECK(slurp(dir.path() / "run/analysis.json").find("\"sigma\": 0.2") != std::string::npos);
}

TEST_CASE("pe.h5 holds each block's position-position attention term at every evaluation, and analysis scores it") {
  loci::test::TempDir dir;
  REQUIRE(run_loci("train -q " + train_config(dir)).exit_code == 0);
  CHECK(pe_file_check(dir.path() / "run",
                      "a = f['position_logits_0']; assert a.shape == (3, 1, 16, 16), a.shape; "
                      "assert 'position_logits_1' in f; assert not numpy.array_equal(a[0], a[-1])"));
  REQUIRE(run_loci("analyze -q " + (dir.path() / "run").string()).exit_code == 0);
  const std::string a = slurp(dir.path() / "run/analysis.json");
  CHECK(a.find("\"attention_term\"") != std::string::npos);
  CHECK(a.find("\"qk_rsa_p_value\"") != std::string::npos);
  CHECK(a.find("\"init_qk_rsa_spearman\"") != std::string::npos);
}

TEST_CASE("every evaluation records the embedded tokens' norm, and the analysis gives the PE's scale relative to it") {
  loci::test::TempDir small, large;
  REQUIRE(run_loci("train -q " + train_config(small) + " model.pe.init.std=0.2").exit_code == 0);
  REQUIRE(run_loci("train -q " + train_config(large) + " model.pe.init.std=2.0").exit_code == 0);
  CHECK(slurp(small.path() / "run/metrics.csv").find(",pe_norm,embedding_norm\n") != std::string::npos);
  const std::string py =
      "/usr/bin/python3 -c \"import json; r = [json.load(open(p))['final']['pe_to_embedding_norm'] for p in ('" +
      (small.path() / "run/analysis.json").string() + "', '" + (large.path() / "run/analysis.json").string() +
      "')]; assert 0 < r[0] and 5 < r[1] / r[0] < 20, r\"";
  REQUIRE(run_loci("analyze -q " + (small.path() / "run").string()).exit_code == 0);
  REQUIRE(run_loci("analyze -q " + (large.path() / "run").string()).exit_code == 0);
  // Same seed, so the same embedding; sigma ten times larger gives a PE about ten times larger beside it.
  CHECK(std::system(py.c_str()) == 0);
}

namespace {

// Whether block 0's PE at epoch 0 of run `a`, over `scale_a`, equals run `b`'s over `scale_b` (float32 rounding
// allowed): the same draw, rescaled by each run's sigma.
bool same_draw(const fs::path& a, double scale_a, const fs::path& b, double scale_b) {
  const std::string py =
      "/usr/bin/python3 -c \"import h5py, numpy; "
      "p = h5py.File('" +
      (a / "pe.h5").string() + "')['placement_0'][0] / " + std::to_string(scale_a) + "; q = h5py.File('" +
      (b / "pe.h5").string() + "')['placement_0'][0] / " + std::to_string(scale_b) +
      "; assert numpy.allclose(p, q, rtol=1e-5, atol=1e-6)\" 2>/dev/null";
  return std::system(py.c_str()) == 0;
}

}  // namespace

TEST_CASE("model.pe.draw separates the PE's draw from the training seed, and identity and summary record it") {
  loci::test::TempDir seed0, seed1_draw0, low, high, own_low, own_high;
  const std::string short_run = " train.epochs=1 train.eval_every=1";
  REQUIRE(run_loci("train -q " + train_config(seed0) + short_run).exit_code == 0);
  // Another seed drawing seed 0's PE on purpose: the same tables, everything else its own.
  REQUIRE(run_loci("train -q " + train_config(seed1_draw0) + short_run + " seed=1 model.pe.draw=0").exit_code == 0);
  CHECK(same_draw(seed0.path() / "run", 1, seed1_draw0.path() / "run", 1));
  CHECK(slurp(seed0.path() / "run/metrics.csv") != slurp(seed1_draw0.path() / "run/metrics.csv"));
  CHECK(slurp(seed1_draw0.path() / "run/identity.json").find("\"model.pe.draw\": \"0\"") != std::string::npos);
  CHECK(slurp(seed1_draw0.path() / "run/summary.json").find("\"pe_draw\": 0") != std::string::npos);
  CHECK(slurp(seed0.path() / "run/identity.json").find("\"model.pe.draw\": \"seed\"") != std::string::npos);

  // By seed (the default) two sigmas share one draw, rescaled: the cells of a sweep are paired.
  REQUIRE(run_loci("train -q " + train_config(low) + short_run + " model.pe.init.std=0.2").exit_code == 0);
  REQUIRE(run_loci("train -q " + train_config(high) + short_run + " model.pe.init.std=0.5").exit_code == 0);
  CHECK(same_draw(low.path() / "run", 0.2, high.path() / "run", 0.5));
  // model.pe.draw=run: each cell draws its own, independent of the other's.
  REQUIRE(run_loci("train -q " + train_config(own_low) + short_run + " model.pe.init.std=0.2 model.pe.draw=run")
              .exit_code == 0);
  REQUIRE(run_loci("train -q " + train_config(own_high) + short_run + " model.pe.init.std=0.5 model.pe.draw=run")
              .exit_code == 0);
  CHECK_FALSE(same_draw(own_low.path() / "run", 0.2, own_high.path() / "run", 0.5));
  CHECK_FALSE(same_draw(own_low.path() / "run", 0.2, low.path() / "run", 0.2));
  CHECK(slurp(own_low.path() / "run/summary.json") != slurp(own_high.path() / "run/summary.json"));

  // Anything but seed, run or a whole number is refused at its key.
  loci::test::TempDir bad;
  const auto refused = run_loci("train -q " + train_config(bad) + " model.pe.draw=sometimes");
  CHECK(refused.exit_code == 1);
  CHECK_THAT(loci::test::refusal(refused), Catch::Contains("model.pe.draw"));
}

TEST_CASE("an initialiser key the chosen initialiser does not read is refused at its key, naming what it reads") {
  loci::test::TempDir dir;
  const auto r = run_loci("train -q " + train_config(dir) + " model.pe.init.name=uniform model.pe.init.std=0.3");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("'model.pe.init.std' is not read by the uniform initialiser") &&
                           Catch::Contains("model.pe.init.a"));
  CHECK_FALSE(std::filesystem::exists(dir.path() / "run" / "checkpoints"));
  // The PE's own default initialiser (learned: normal) reads std: no refusal.
  CHECK(run_loci("config show " + train_config(dir) + " model.pe.init.std=0.3").exit_code == 0);
}
