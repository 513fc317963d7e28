// Checkpoints besides last.pt (train.checkpoint.every, train.checkpoint.best) and continuing from any of them with
// `loci train --from FILE`: a run continued from its epoch-2 checkpoint ends bit-identical to the uninterrupted
// run, and best.pt holds the evaluation with the lowest loss on the chosen split.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/plugins/torch_trainer/trainer_fixture.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

using loci::test::refusal;
using loci::test::run_loci;
using loci::test::slurp;
namespace fs = std::filesystem;

namespace {

// The lowest test loss in metrics.csv and its epoch (columns epoch, ..., split 5th, ..., loss 7th).
std::pair<int, double> best_test(const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  std::pair<int, double> best{-1, 1e300};
  while (std::getline(in, line)) {
    std::vector<std::string> c;
    for (std::stringstream s(line); std::getline(s, line, ',');) c.push_back(line);
    if (c.size() > 6 && c[4] == "test" && std::stod(c[6]) < best.second) best = {std::stoi(c[0]), std::stod(c[6])};
  }
  return best;
}

}  // namespace

TEST_CASE("train.checkpoint keeps every-N and best checkpoints, and --from continues from any bit-identically") {
  loci::test::TempDir dir;
  // The checkpoint keys as overrides (train_config's file already has its `train:` block).
  const std::string keys = " train.checkpoint.every=2 train.checkpoint.best=test train.eval_every=1";
  const auto plain = loci::test::train_config(dir);
  const auto r = run_loci("train -q " + plain + keys);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const fs::path run = dir.path() / "run";
  CHECK(fs::exists(run / "checkpoints/epoch_2.pt"));
  CHECK(fs::exists(run / "checkpoints/epoch_4.pt"));
  CHECK_FALSE(fs::exists(run / "checkpoints/epoch_1.pt"));
  REQUIRE(fs::exists(run / "checkpoints/best.pt"));
  const std::string whole_pe = slurp(run / "pe.h5");
  const auto [best_epoch, best_loss] = best_test(slurp(run / "metrics.csv"));

  // Continued from epoch 2: the same run to the same bytes.
  const auto from =
      run_loci("train " + plain + keys + " train.progress=true --from " + (run / "checkpoints/epoch_2.pt").string());
  INFO(from.output);
  REQUIRE(from.exit_code == 0);
  CHECK(from.output.find("from " + (run / "checkpoints/epoch_2.pt").string() + " (epoch 2,") != std::string::npos);
  CHECK(slurp(run / "pe.h5") == whole_pe);
  CHECK(fs::exists(run / "summary.json"));

  // best.pt is the lowest test loss: continued from it, the run starts at that epoch.
  const auto again = run_loci("train " + plain + keys + " --from " + (run / "checkpoints/best.pt").string());
  INFO(again.output);
  REQUIRE(again.exit_code == 0);
  CHECK(again.output.find("(epoch " + std::to_string(best_epoch) + ",") != std::string::npos);
  CHECK(best_loss < 1e300);

  CHECK(run_loci("train -q " + plain + keys + " --from " + (run / "checkpoints/nothing.pt").string())
            .output.find("--from " + (run / "checkpoints/nothing.pt").string() + ": no such checkpoint file") !=
        std::string::npos);
  // Another run's checkpoint, and --from in a sweep, are refused.
  CHECK_THAT(refusal(run_loci("train -q " + plain + keys + " out=" + (dir.path() / "second").string() + " --from " +
                              (run / "checkpoints/epoch_2.pt").string())),
             Catch::Contains(": not a checkpoint of this run ("));
  CHECK_FALSE(fs::exists(dir.path() / "second" / "pe.h5"));
  CHECK_THAT(
      refusal(run_loci("train -q " + plain + " -m seed=0,1 --from " + (run / "checkpoints/epoch_2.pt").string())),
      Catch::Contains("cannot be combined with -m"));
  CHECK_THAT(refusal(run_loci("train -q " + plain +
                              " train.checkpoint.best=validation out=" + (dir.path() / "other").string())),
             Catch::Contains("train.checkpoint.best: split 'validation' is not evaluated"));
}

TEST_CASE("loci train --resume refuses a checkpoint of another run swapped into the run's folder") {
  loci::test::TempDir small, large;
  const std::string small_cfg = loci::test::train_config(small), large_cfg = loci::test::train_config(large);
  REQUIRE(run_loci("train -q --until-epoch 2 " + small_cfg).exit_code == 0);
  REQUIRE(run_loci("train -q --until-epoch 2 " + large_cfg + " model.pe.init.std=2.0").exit_code == 0);
  // The same model and optimizer shapes: only the record of whose run it is tells the two apart.
  const fs::path last = small.path() / "run/checkpoints/last.pt";
  fs::copy_file(large.path() / "run/checkpoints/last.pt", last, fs::copy_options::overwrite_existing);
  // Without its checksum record the swapped file does not match the run's own record.
  CHECK_THAT(refusal(run_loci("train -q --resume " + small_cfg)), Catch::Contains(last.string() + ": does not match"));
  // Swapped with its record, it is intact, but another run's.
  fs::copy_file(large.path() / "run/checkpoints/last.pt.sha256", last.string() + ".sha256",
                fs::copy_options::overwrite_existing);
  const auto resumed = run_loci("train -q --resume " + small_cfg);
  CHECK_THAT(refusal(resumed), Catch::Contains(last.string() + ": a checkpoint of another run"));
  CHECK(std::count(resumed.output.begin(), resumed.output.end(), '\n') == 1);
  // The run the checkpoint belongs to continues from it.
  CHECK(run_loci("train -q --resume " + large_cfg + " model.pe.init.std=2.0").exit_code == 0);
  CHECK(fs::exists(large.path() / "run/summary.json"));
}

TEST_CASE("a checkpoints/ that is a symbolic link is refused, and nothing is written through it") {
  loci::test::TempDir dir;
  const fs::path elsewhere = dir.path() / "elsewhere", run = dir.path() / "run";
  fs::create_directories(elsewhere);
  fs::create_directories(run);
  fs::create_directory_symlink(elsewhere, run / "checkpoints");
  const auto r = run_loci("train -q " + loci::test::train_config(dir));
  CHECK_THAT(refusal(r), Catch::Contains((run / "checkpoints").string() + ": is a symbolic link"));
  CHECK(fs::is_empty(elsewhere));
}

TEST_CASE("a run's records that are folders, and a damaged checkpoint, are one-line user errors naming the file") {
  loci::test::TempDir dir;
  const std::string cfg = loci::test::train_config(dir);
  REQUIRE(run_loci("train -q --until-epoch 2 " + cfg).exit_code == 0);
  const fs::path run = dir.path() / "run";
  fs::remove(run / "identity.json");
  fs::create_directory(run / "identity.json");
  const auto folder = run_loci("train -q --resume " + cfg);
  CHECK_THAT(refusal(folder), Catch::Contains((run / "identity.json").string() + ": is not a regular file"));
  fs::remove(run / "identity.json");
  REQUIRE(run_loci("train -q --until-epoch 2 " + cfg + " out=" + (dir.path() / "second").string()).exit_code == 0);
  // A checkpoint whose bytes are damaged: one printable line, whatever bytes LibTorch quotes from it.
  const fs::path last = dir.path() / "second/checkpoints/last.pt";
  std::string bytes = slurp(last);
  for (std::size_t i = bytes.size() / 3; i < bytes.size() / 3 + 64 && i < bytes.size(); ++i) bytes[i] ^= 0x5a;
  std::ofstream(last, std::ios::binary | std::ios::trunc) << bytes;
  const auto damaged = run_loci("train -q --resume " + cfg + " out=" + (dir.path() / "second").string());
  INFO(damaged.output);
  CHECK_THAT(refusal(damaged), Catch::Contains(last.string() + ": does not match its checksum"));
  CHECK(std::count(damaged.output.begin(), damaged.output.end(), '\n') == 1);
  CHECK(std::all_of(damaged.output.begin(), damaged.output.end(), [](char c) {
    return c == '\n' || (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f);
  }));
  // More micro-batches than samples in a batch is refused at its key.
  CHECK_THAT(refusal(run_loci("train -q " + cfg + " train.micro_batches=1000000")),
             Catch::Contains("train.micro_batches: 1000000 parts are more than the 32 samples"));
}
