// End to end through the `loci` command, as a researcher runs it: a tiny LST dataset, a tiny model, a few epochs.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/plugins/torch_trainer/trainer_fixture.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

using loci::test::run_loci;
using loci::test::slurp;
namespace fs = std::filesystem;

namespace {

using loci::test::dataset;
using loci::test::train_config;

// metrics.csv without its wall-clock column (the third).
std::string strip_seconds(const std::string& csv) {
  std::ostringstream out;
  std::istringstream in(csv);
  for (std::string line; std::getline(in, line);) {
    const auto a = line.find(',', line.find(',') + 1);
    const auto b = line.find(',', a + 1);
    out << line.substr(0, a) << line.substr(b) << "\n";
  }
  return out.str();
}

// A bf16 run against its fp32 twin: bfloat16 products change the weights (so they ran), not what the model learns
// (the losses agree to a few hundredths), and the learned PE stays float32.
bool learns_like(const fs::path& fp32_run, const fs::path& bf16_run) {
  const std::string py =
      "/usr/bin/python3 -c \"import h5py, numpy, pandas; "
      "a = pandas.read_csv('" +
      (fp32_run / "metrics.csv").string() +
      "'); "
      "b = pandas.read_csv('" +
      (bf16_run / "metrics.csv").string() +
      "'); "
      "p = h5py.File('" +
      (fp32_run / "pe.h5").string() +
      "')['placement_0'][-1]; "
      "q = h5py.File('" +
      (bf16_run / "pe.h5").string() +
      "')['placement_0']; "
      "assert q.dtype == numpy.float32, q.dtype; q = q[-1]; "
      "assert not numpy.array_equal(p, q); assert numpy.abs(p - q).max() < 0.05, numpy.abs(p - q).max(); "
      "d = (a.loss - b.loss).abs().max(); assert d < 0.05, d\"";
  return std::system(py.c_str()) == 0;
}

}  // namespace

TEST_CASE("a training run writes config - metrics - pe.h5 - a checkpoint and a summary") {
  loci::test::TempDir dir;
  const auto r = run_loci("train -q " + train_config(dir));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("loci: epoch") == std::string::npos);  // -q is quiet: no evaluation lines
  const fs::path run = dir.path() / "run";
  // How it was made, apart from what it is: version, command, host, CPU, BLAS kernel, times, the data's index.
  const auto prov = slurp(run / "provenance.json");
  for (const char* key : {"\"loci_version\"", "\"command\"", "\"host\"", "\"cpu\"", "\"blas_kernel\"", "\"started\"",
                          "\"ended\"", "\"data_index_sha256\""}) {
    INFO(key);
    CHECK(prov.find(key) != std::string::npos);
  }
  CHECK(prov.find(" train -q ") != std::string::npos);
  for (const char* f : {"config.yaml", "metrics.csv", "metrics.jsonl", "pe.h5", "summary.json", "checkpoints/last.pt"})
    CHECK(fs::exists(run / f));
  const auto csv = slurp(run / "metrics.csv");
  CHECK(csv.rfind("epoch,step,seconds,lr,split,samples,loss,accuracy,accuracy_binary,accuracy_ternary,accuracy_"
                  "quaternary,mse,pe_norm,embedding_norm\n",
                  0) == 0);
  // 2 evaluations x 3 splits (train, test, human) + header.
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 7);
  CHECK(csv.find(",human,108,") != std::string::npos);
  const auto summary = slurp(run / "summary.json");
  CHECK(summary.find("\"status\": \"finished\"") != std::string::npos);
  CHECK(summary.find("\"steps\": 12") != std::string::npos);  // 96 / 32 = 3 steps x 4 epochs

  // Read back the way a researcher would, without loci.
  const std::string py = "/usr/bin/python3 -c \"import h5py, pandas; f = h5py.File('" + (run / "pe.h5").string() +
                         "'); assert f['placement_0'].shape == (3, 16, 16), f['placement_0'].shape; "
                         "assert f['placement_1'].shape == (3, 16, 16); assert f['positions'].shape == (16, 2); "
                         "assert list(f['epoch'][:]) == [0, 2, 4]; "
                         // xarray opens it as it is: every array has named dimensions (netCDF-4 dimension scales)
                         "import xarray; x = xarray.open_dataset('" +
                         (run / "pe.h5").string() +
                         "', engine='h5netcdf'); "
                         "assert x['placement_0'].dims == ('evaluation', 'token', 'dim'), x; "
                         "assert x.sizes['evaluation'] == 3 and 'evaluation' not in x.data_vars; "
                         "m = pandas.read_csv('" +
                         (run / "metrics.csv").string() +
                         "'); "
                         "assert set(m.split) == {'train', 'test', 'human'}; assert m.accuracy.between(0, 1).all()\"";
  CHECK(std::system(py.c_str()) == 0);
}

TEST_CASE("training progress reports the running loss - accuracy and rate") {
  loci::test::TempDir dir;
  const auto r = run_loci("train " + train_config(dir) + " train.progress=true");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // In a log (stderr is a pipe here) the last progress line carries the last epoch's numbers.
  const auto at = r.output.find("training: 4/4 epochs in ");
  REQUIRE(at != std::string::npos);
  const std::string line = r.output.substr(at, r.output.find('\n', at) - at);
  CHECK(line.find(", loss ") != std::string::npos);
  CHECK(line.find("  acc ") != std::string::npos);
  CHECK(line.find(" samples/s") != std::string::npos);
}

TEST_CASE("learned PEs move during training and fixed ones stay put") {
  loci::test::TempDir dir;
  REQUIRE(run_loci("train -q " + train_config(dir)).exit_code == 0);
  const std::string check =
      "/usr/bin/python3 -c \"import h5py, numpy; f = h5py.File('%s'); p = f['placement_0'][:]; "
      "import sys; sys.exit(0 if %s else 1)\"";
  char cmd[1024];
  std::snprintf(cmd, sizeof cmd, check.c_str(), (dir.path() / "run/pe.h5").c_str(), "not numpy.allclose(p[0], p[1])");
  CHECK(std::system(cmd) == 0);

  loci::test::TempDir fixed;
  REQUIRE(run_loci("train -q " + train_config(fixed) + " model.pe.type=sinusoidal_2d").exit_code == 0);
  std::snprintf(cmd, sizeof cmd, check.c_str(), (fixed.path() / "run/pe.h5").c_str(), "numpy.array_equal(p[0], p[1])");
  CHECK(std::system(cmd) == 0);
}

TEST_CASE("train.precision bf16 trains under autocast and evaluates the fp32 model") {
  loci::test::TempDir full, half;
  REQUIRE(run_loci("train -q " + train_config(full)).exit_code == 0);
  const auto r = run_loci("train -q " + train_config(half) + " train.precision=bf16");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(slurp(half.path() / "run/summary.json").find("\"precision\": \"bf16\"") != std::string::npos);
  CHECK(learns_like(full.path() / "run", half.path() / "run"));
}

TEST_CASE("train.bf16_products fused trains with bfloat16 products in the fused layers, or refuses where it cannot") {
  loci::test::TempDir full, fused, capped;
  // Capped below bfloat16 arithmetic, oneDNN cannot run the products: a user's error naming the key, no run folder.
  const auto refused = run_loci("train -q " + train_config(capped) + " train.precision=bf16 train.bf16_products=fused",
                                "ONEDNN_MAX_CPU_ISA=AVX512_CORE");
  INFO(refused.output);
  CHECK(refused.exit_code == 1);
  CHECK(refused.output.find("train.bf16_products") != std::string::npos);
  CHECK_FALSE(fs::exists(capped.path() / "run/summary.json"));

  const auto r = run_loci("train -q " + train_config(fused) + " train.precision=bf16 train.bf16_products=fused");
  INFO(r.output);
  if (r.exit_code == 1 && r.output.find("has no bfloat16 arithmetic") != std::string::npos) {
    WARN("this CPU's oneDNN has no bfloat16 arithmetic: fused bf16 products refused, as they should be");
    return;
  }
  REQUIRE(r.exit_code == 0);
  REQUIRE(run_loci("train -q " + train_config(full)).exit_code == 0);
  const std::string summary = slurp(fused.path() / "run/summary.json");
  CHECK(summary.find("\"bf16_products\": \"the fused layers on oneDNN gemm_bf16bf16f32") != std::string::npos);
  CHECK(learns_like(full.path() / "run", fused.path() / "run"));
}

TEST_CASE("a run stopped and resumed ends bit-identical to an uninterrupted one") {
  loci::test::TempDir whole, parts;
  REQUIRE(run_loci("train -q " + train_config(whole)).exit_code == 0);
  const auto cfg = train_config(parts);
  REQUIRE(run_loci("train -q --until-epoch 1 " + cfg).exit_code == 0);
  CHECK_FALSE(fs::exists(parts.path() / "run/summary.json"));
  CHECK(run_loci("train -q " + cfg).exit_code == 1);  // refuses to overwrite without --resume
  const auto resumed = run_loci("train -q --resume " + cfg);
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK(slurp(whole.path() / "run/pe.h5") == slurp(parts.path() / "run/pe.h5"));
  // Metrics agree except for the wall-clock column.
  CHECK(strip_seconds(slurp(whole.path() / "run/metrics.csv")) ==
        strip_seconds(slurp(parts.path() / "run/metrics.csv")));
}

TEST_CASE("training gives the same bytes on 1 and 2 threads - dropout included - and records its BLAS") {
  loci::test::TempDir one, two;
  const std::string extra = " model.dropout=0.1";
  REQUIRE(run_loci("train -q " + train_config(one) + extra).exit_code == 0);
  const auto r = run_loci("train -q " + train_config(two) + extra + " train.threads=2");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(slurp(one.path() / "run/pe.h5") == slurp(two.path() / "run/pe.h5"));
  CHECK(strip_seconds(slurp(one.path() / "run/metrics.csv")) == strip_seconds(slurp(two.path() / "run/metrics.csv")));
  // The number of parts, unlike the threads, is part of the computation (other dropout draws, another sum order).
  loci::test::TempDir whole;
  REQUIRE(run_loci("train -q " + train_config(whole) + " train.micro_batches=1").exit_code == 0);
  CHECK(slurp(whole.path() / "run/pe.h5") != slurp(one.path() / "run/pe.h5"));

  const auto summary = slurp(two.path() / "run/summary.json");
  CHECK(summary.find("\"micro_batches\": 2") != std::string::npos);
  // The BLAS and its kernel decide the last bits of every product, so the run records them.
  CHECK(summary.find("\"blas\": \"OpenBLAS ") != std::string::npos);
}

TEST_CASE(
    "train.save_attention writes each block's mean attention maps at every evaluation - and resumes bit-identical") {
  loci::test::TempDir whole, parts;
  const std::string extra = " train.save_attention=true";
  REQUIRE(run_loci("train -q " + train_config(whole) + extra).exit_code == 0);
  const auto cfg = train_config(parts);
  REQUIRE(run_loci("train -q --until-epoch 2 " + cfg + extra).exit_code == 0);
  const auto resumed = run_loci("train -q --resume " + cfg + extra);
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK(slurp(whole.path() / "run/attention.h5") == slurp(parts.path() / "run/attention.h5"));
  // By default the maps average the human puzzles; every row of an averaged softmax still sums to one.
  const std::string py =
      "/usr/bin/python3 -c \"import h5py, numpy; f = h5py.File('" + (whole.path() / "run/attention.h5").string() +
      "'); "
      "assert f.attrs['split'] == 'human' and f.attrs['samples'] == 108, dict(f.attrs); "
      "assert list(f['epoch'][:]) == [0, 2, 4]; "
      "b = [f['block_%d' % i][:] for i in range(2)]; assert b[0].shape == (3, 1, 16, 16), b[0].shape; "
      "assert all(numpy.allclose(x.sum(-1), 1, atol=1e-5) for x in b); "
      "assert not numpy.allclose(b[1][1], b[1][2]); "
      "import xarray; x = xarray.open_dataset('" +
      (whole.path() / "run/attention.h5").string() +
      "', engine='h5netcdf'); assert x['block_0'].dims == ('evaluation', 'head', 'query', 'key'), x\"";
  CHECK(std::system(py.c_str()) == 0);

  // `loci analyze` compares the learned run's final maps with the 2d-fixed run's (the paper's attention similarity).
  REQUIRE(run_loci("train -q " + train_config(whole) + extra +
                   " model.pe.type=sinusoidal_2d out=" + (whole.path() / "fixed").string())
              .exit_code == 0);
  const auto a = run_loci("analyze -q " + whole.path().string());
  INFO(a.output);
  REQUIRE(a.exit_code == 0);
  const std::string check = "/usr/bin/python3 -c \"import pandas; r = pandas.read_csv('" +
                            (whole.path() / "runs.csv").string() +
                            "'); "
                            "c = r.set_index('pe_type').attention_cosine; "
                            "assert 0 < c['learned'] <= 1, c; assert c.isna()['sinusoidal_2d'], c; "
                            // Every probe with its controls: the fixed PE at epoch 0 is the PE at the end and never
                            // moves (no displacement); its RSA with the grid beats every shuffle of the cells.
                            "f = r.set_index('pe_type').loc['sinusoidal_2d']; "
                            "assert abs(f.init_rsa_spearman - f.rsa_spearman) < 1e-12, f; "
                            "assert pandas.isna(f.disp_rsa_spearman), f; assert f.rsa_p_value < 0.01, f.rsa_p_value; "
                            "l = r.set_index('pe_type').loc['learned']; assert 0 < l.rsa_p_value <= 1; "
                            "assert l.disp_norm_frobenius > 0; assert not pandas.isna(l.init_rsa_spearman); "
                            // The displacement account: a moved PE has its ratio and draw-free prediction, a fixed
                            // one has none; the summary carries them.
                            "assert pandas.isna(f.disp_norm_ratio) and pandas.isna(f.disp_predicted_rsa), f; "
                            "assert l.disp_norm_ratio > 0 and -1 <= l.disp_predicted_rsa <= 1, l; "
                            "assert l.disp_predicted_rsa_sd > 0 and 0.5 < l.disp_kept_draw < 1.5, l; "
                            "s = pandas.read_csv('" +
                            (whole.path() / "summary.csv").string() +
                            "'); "
                            "assert 'disp_norm_ratio_mean' in s and 'disp_predicted_rsa_mean' in s, list(s)\"";
  CHECK(std::system(check.c_str()) == 0);
}

TEST_CASE("a diverging run stops with a clear error and keeps the last good checkpoint") {
  loci::test::TempDir dir;
  const auto cfg = train_config(dir);
  // A learning rate too large for AdamW's steps, not for the first ones: the weights grow a few epochs before the
  // loss overflows (at 1e8 this model trains 60 epochs, at 1e9 it fails at the first step). A checkpoint can no
  // longer continue under a learning rate edited into the run (it records its run's identity), so the run
  // diverges by its own settings.
  const std::string diverging = " train.lr=1.5e8 train.epochs=40 train.eval_every=1";
  const auto r = run_loci("train -q " + cfg + diverging);
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("loss is") != std::string::npos);
  CHECK(r.output.find("the last good checkpoint is") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.path() / "run/summary.json"));
  // The kept checkpoint is the last good one: resuming from it diverges again at the same step, with the same line.
  const auto before = slurp(dir.path() / "run/checkpoints/last.pt");
  const auto again = run_loci("train -q --resume " + cfg + diverging);
  CHECK(again.exit_code == 1);
  CHECK_THAT(again.output, Catch::EndsWith(r.output));  // after its "resuming ... at epoch E" line
  CHECK(slurp(dir.path() / "run/checkpoints/last.pt") == before);
}

TEST_CASE("training configs are checked before anything runs") {
  loci::test::TempDir dir;
  const auto cfg = train_config(dir, "");
  auto r = run_loci("train " + cfg + " model.pe.type=learnd");
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("'model.pe.type': expected one of") != std::string::npos);
  CHECK(r.output.find("(did you mean 'learned'?)") != std::string::npos);
  // The model's closed choices are its constants' names, offered and refused by the schema.
  r = run_loci("train " + cfg + " model.pe.placement=everywhere");
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("'model.pe.placement': expected one of per_block, shared, input_only, got 'everywhere'") !=
        std::string::npos);
  r = run_loci("train " + cfg + " train.device=cuda");
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("no CUDA") != std::string::npos);
  r = run_loci("train " + cfg + " train.save_attention=true train.attention_split=humans");
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("train.attention_split: the dataset ") != std::string::npos);
  CHECK(r.output.find("has no split 'humans'") != std::string::npos);
  r = run_loci("train " + cfg + " data=/nonexistent/data");
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("/nonexistent/data") != std::string::npos);
}

TEST_CASE("a sweep makes one run per point - in parallel - and skips finished points") {
  loci::test::TempDir dir;
  const auto cfg = train_config(dir);
  const auto out = (dir.path() / "sweep").string();
  auto r = run_loci("train -m " + cfg + " model.pe.init.std=0.1,1.0 jobs=2 train.epochs=2 out=" + out);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // Folder names carry the overrides that vary; the fixed ones apply to every point.
  for (const char* point : {"model.pe.init.std=0.1", "model.pe.init.std=1.0"}) {
    CHECK(fs::exists(fs::path(out) / point / "summary.json"));
    CHECK(slurp(fs::path(out) / point / "summary.json").find("\"epochs\": 2") != std::string::npos);
  }
  r = run_loci("train -m " + cfg + " model.pe.init.std=0.1,1.0 jobs=2 train.epochs=2 out=" + out);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("kept") != std::string::npos);
}

TEST_CASE("a sweep keeps the user's train.threads instead of sharing the cores between its jobs") {
  loci::test::TempDir dir;
  const auto cfg = train_config(dir);
  const auto out = (dir.path() / "sweep").string();
  const auto r =
      run_loci("train -m " + cfg + " model.pe.init.std=0.1,1.0 jobs=1 train.threads=1 train.epochs=1 out=" + out);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  for (const char* point : {"model.pe.init.std=0.1", "model.pe.init.std=1.0"}) {
    const std::string provenance = slurp(fs::path(out) / point / "provenance.json");
    INFO(provenance);
    // The run's command: the user's train.threads=1, and none appended after the point's own settings.
    const auto command = provenance.find("\"command\"");
    REQUIRE(command != std::string::npos);
    const auto point_at = provenance.find("model.pe.init.std=", command);
    REQUIRE(point_at != std::string::npos);
    CHECK(provenance.substr(command, point_at - command).find("train.threads=1") != std::string::npos);
    CHECK(provenance.substr(point_at, provenance.find('"', point_at) - point_at).find("train.threads") ==
          std::string::npos);
  }
}

TEST_CASE("loci run: generate then a training sweep - and a second run keeps what is finished") {
  loci::test::TempDir dir;
  const auto out = (dir.path() / "pipe").string();
  const auto cfg = dir.write(
      "pipe.yaml", "out: " + out + "\ngenerate:\n  include: " + std::string(LOCI_SOURCE_DIR) +
                       "/configs/lst.yaml\n  out: " + out +
                       "/data\n  splits: {train: 64, test: 16}\n"
                       "train:\n  trainer: torch_trainer\n  sweep: [\"model.pe.init.std=0.1,1.0\"]\n"
                       "  model: {d_model: 16, blocks: 1}\n  train: {epochs: 2, eval_every: 1, batch_size: 32}\n");
  auto r = run_loci("run -q " + cfg);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(fs::exists(fs::path(out) / "data/index.json"));
  CHECK(fs::exists(fs::path(out) / "runs/model.pe.init.std=0.1/summary.json"));
  CHECK(fs::exists(fs::path(out) / "runs/model.pe.init.std=1.0/summary.json"));
  CHECK(fs::exists(fs::path(out) / "train.yaml"));
  r = run_loci("run -q " + cfg);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("3 shards kept, 0 written") != std::string::npos);
  CHECK(r.output.find("kept   model.pe.init.std=0.1") != std::string::npos);
  // Asked again with another model, the finished runs are not kept: each is refused, naming what differs.
  r = run_loci("run -q " + cfg + " train.model.d_model=8");
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("model.d_model (16 -> 8)") != std::string::npos);
}

TEST_CASE("the trainer's masked-token regression runs unchanged on network_dynamics data") {
  loci::test::TempDir dir;
  const auto data = (dir.path() / "net").string();
  REQUIRE(run_loci("generate -q " + std::string(LOCI_SOURCE_DIR) + "/configs/network.yaml out=" + data +
                   " splits.train=64 splits.test=16 splits.test_noise=16 graph.nodes=36 windows.length=10")
              .exit_code == 0);
  const auto cfg =
      dir.write("t.yaml", "trainer: torch_trainer\ndata: " + data + "\nout: " + (dir.path() / "run").string() +
                              "\nmodel: {d_model: 16, blocks: 1}\n"
                              "train: {epochs: 3, eval_every: 3, batch_size: 16, lr: 0.003, threads: 1}\n");
  const auto r = run_loci("train -q " + cfg);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto csv = slurp(dir.path() / "run/metrics.csv");
  CHECK(csv.rfind("epoch,step,seconds,lr,split,samples,loss,accuracy,mse,mse_global_mean,mse_token_mean,r2_global_mean,"
                  "r2_token_mean,mask_ratio,pe_norm,embedding_norm\n",
                  0) == 0);
  CHECK(csv.find(",test_noise,16,") != std::string::npos);
  // Every split is also evaluated at 50% masking (train.eval_mask_ratios), beside model.mask_ratio_eval's 90%.
  CHECK(csv.find(",test@0.5,16,") != std::string::npos);
  const std::string py = "/usr/bin/python3 -c \"import h5py; f = h5py.File('" + (dir.path() / "run/pe.h5").string() +
                         "'); assert f['placement_0'].shape == (2, 36, 16); assert list(f['epoch'][:]) == [0, 3]; "
                         "assert f['positions'].shape == (36, 2)\"";
  CHECK(std::system(py.c_str()) == 0);

  // The analysis scores the PE against the network's own distances and its graph (hops), and summarises MSE.
  const auto a = run_loci("analyze -q " + (dir.path() / "run").string());
  INFO(a.output);
  REQUIRE(a.exit_code == 0);
  const auto analysis = slurp(dir.path() / "run/analysis.json");
  CHECK(analysis.find("\"true_distance_source\": \"the dataset's /distance\"") != std::string::npos);
  CHECK(analysis.find("\"rsa_hops_spearman\": ") != std::string::npos);
  CHECK(slurp(dir.path() / "run/summary.csv").find("test_noise_mse_mean") != std::string::npos);
}

TEST_CASE("the robustness test: noise of sd 0 on the embeddings changes nothing, more noise changes the numbers") {
  loci::test::TempDir dir;
  REQUIRE(run_loci("train -q " + train_config(dir) + " 'train.robustness_noise=[0, 2]'").exit_code == 0);
  const std::string py = "/usr/bin/python3 -c \"import pandas; r = pandas.read_csv('" +
                         (dir.path() / "run/robustness.csv").string() + "'); m = pandas.read_csv('" +
                         (dir.path() / "run/metrics.csv").string() +
                         "'); m = m[m.epoch == m.epoch.max()].set_index('split'); "
                         "z = r[r.noise_std == 0].set_index('split'); n = r[r.noise_std == 2].set_index('split'); "
                         "assert set(z.index) == {'train', 'test', 'human'}, z; "
                         // metrics.csv prints 9 significant digits, robustness.csv every digit
                         "assert ((z.accuracy - m.accuracy[z.index]).abs() < 1e-8).all(), (z.accuracy, m.accuracy); "
                         "assert ((z.loss - m.loss[z.index]).abs() < 1e-8 * m.loss[z.index]).all(); "
                         "assert (n.loss != z.loss).all(), (n, z)\"";
  CHECK(std::system(py.c_str()) == 0);
}

TEST_CASE("a model too large for the machine is refused naming every key that makes it large") {
  loci::test::TempDir dir;
  const auto r = run_loci("train -q " + train_config(dir) + " model.mlp_ratio=1e30");
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("model.mlp_ratio 1e+30") != std::string::npos);
  CHECK(r.output.find("e+") != std::string::npos);  // the size in scientific notation, not 27 digits
  CHECK(r.output.size() < 400);
}
