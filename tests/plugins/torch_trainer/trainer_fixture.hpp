// What the trainer's tests share: one small LST dataset (made once per test binary; generation is deterministic)
// and a tiny model's training config around it.
#pragma once

#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

namespace loci::test {

namespace fs = std::filesystem;

// One small dataset shared by every test of a binary (generation is deterministic, so sharing is safe).
inline const fs::path& dataset() {
  static TempDir dir;
  static const fs::path data = [] {
    const auto cfg = dir.write("data.yaml", "include: " + std::string(LOCI_SOURCE_DIR) +
                                                "/configs/lst.yaml\nout: " + (dir.path() / "data").string() +
                                                "\nsplits: {train: 96, test: 24}\nsamples_per_shard: 64\n");
    const auto r = run_loci("generate -q " + cfg);
    REQUIRE(r.exit_code == 0);
    return dir.path() / "data";
  }();
  return data;
}

inline std::string train_config(const TempDir& dir, const std::string& extra = "") {
  return dir.write("train.yaml",
                   "trainer: torch_trainer\ndata: " + dataset().string() + "\nout: " + (dir.path() / "run").string() +
                       "\nmodel: {d_model: 16, blocks: 2, pe: {type: learned, init: {std: 0.2}}}\n"
                       "train: {epochs: 4, eval_every: 2, batch_size: 32, threads: 1, lr: 0.001, progress: false}\n" +
                       extra);
}

}  // namespace loci::test
