// Masked regression is scored against what needs no model: the training split's global mean and each token's own
// mean, on the same masked values. Checked against numbers computed here from the shards with h5py.
#include <catch2/catch.hpp>

#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

using loci::test::run_loci;

TEST_CASE("masked-regression baselines and R^2 are computed as defined, from the training split only") {
  loci::test::TempDir dir;
  const auto data = (dir.path() / "net").string();
  REQUIRE(run_loci("generate -q " + std::string(LOCI_SOURCE_DIR) + "/configs/network.yaml out=" + data +
                   " splits.train=48 splits.test=16 splits.test_noise=16 graph.nodes=16 windows.length=6")
              .exit_code == 0);
  // mask ratio 1: every token masked, so the baselines are plain MSEs over the whole split.
  const auto cfg =
      dir.write("t.yaml", "trainer: torch_trainer\ndata: " + data + "\nout: " + (dir.path() / "run").string() +
                              "\nmodel: {d_model: 8, blocks: 1, mask_ratio_eval: 1.0}\n"
                              "train: {epochs: 1, batch_size: 16, threads: 1, eval_mask_ratios: [], "
                              "progress: false}\n");
  const auto r = run_loci("train -q " + cfg);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // The token means come from train only: a test split's own means would give a lower MSE than reported.
  const std::string py =
      "/usr/bin/python3 -c \"import glob, h5py, numpy, pandas; "
      "read = lambda s: numpy.concatenate([h5py.File(f)['activity'][:] for f in sorted(glob.glob('" +
      data +
      "/' + s + '-*.h5'))]).astype(numpy.float64); "
      "tr, te = read('train'), read('test'); tok = tr.mean(axis=(0, 2)); g = tok.mean(); "
      "m = pandas.read_csv('" +
      (dir.path() / "run/metrics.csv").string() +
      "').set_index('split'); "
      "want_tok = ((te - tok[None, :, None]) ** 2).mean(); want_g = ((te - g) ** 2).mean(); "
      "own = ((te - te.mean(axis=(0, 2))[None, :, None]) ** 2).mean(); "
      "t = m.loc['test']; assert abs(t.mse_token_mean - want_tok) < 1e-5 * want_tok, (t.mse_token_mean, want_tok); "
      "assert abs(t.mse_global_mean - want_g) < 1e-5 * want_g, (t.mse_global_mean, want_g); "
      "assert own < want_tok; "
      "assert abs(t.r2_token_mean - (1 - t.mse / t.mse_token_mean)) < 1e-6; assert t.mask_ratio == 1.0\"";
  CHECK(std::system(py.c_str()) == 0);
}
