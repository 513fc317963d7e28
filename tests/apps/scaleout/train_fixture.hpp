// What the multi-process training tests share: small datasets made once per test program, a small training
// config, and metrics.csv columns.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

namespace loci::test::scaleout {

namespace fs = std::filesystem;
using loci::test::run_loci;
using loci::test::slurp;

// One small dataset per generator for the whole file (generation is deterministic, so sharing is safe).
inline const fs::path& dataset(const std::string& config, const std::string& extra, std::string name = "") {
  static loci::test::TempDir dir;
  static std::map<std::string, fs::path> made;
  if (name.empty()) name = fs::path(config).stem().string();
  auto& data = made[name];
  if (data.empty()) {
    data = dir.path() / name;
    const auto cfg =
        dir.write(fs::path(config).filename().string(), "include: " + std::string(LOCI_SOURCE_DIR) + "/configs/" +
                                                            config + "\nout: " + data.string() + "\n" + extra);
    const auto r = run_loci("generate -q " + cfg);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  }
  return data;
}

inline const fs::path& lst() { return dataset("lst.yaml", "splits: {train: 96, test: 24}\nsamples_per_shard: 64\n"); }

// The same puzzles but a large test split: an evaluation that takes rank 0 seconds.
inline const fs::path& lst_long_test() {
  return dataset("lst.yaml", "splits: {train: 64, test: 12000}\nsamples_per_shard: 4000\n", "lst_long_test");
}

// Masked-token regression: 12 nodes, one token each.
inline const fs::path& network() {
  return dataset(
      "network.yaml",
      "splits: {train: 60, test: 12, test_noise: 12}\nsamples_per_shard: 40\ngraph: {nodes: 12}\n"
      "dynamics: {burn_in: 50}\nwindows: {length: 8, stride: 8, runs: {train: 2, test: 1, test_noise: 1}}\n");
}

inline std::string train_config(const loci::test::TempDir& dir, const fs::path& data, const std::string& train,
                                const std::string& extra = "") {
  return dir.write("train.yaml", "trainer: torch_trainer\ndata: " + data.string() +
                                     "\nout: unused\n"
                                     "model: {d_model: 16, blocks: 2, pe: {type: learned, init: {std: 0.2}}}\n"
                                     "train: {threads: 1, lr: 0.003, progress: false, dist_timeout: 60, " +
                                     train + "}\n" + extra);
}

// Every `loss` (or `mse`) of metrics.csv, in order.
inline std::vector<double> column(const fs::path& csv, const std::string& name) {
  std::istringstream in(slurp(csv));
  std::string line, cell;
  std::getline(in, line);
  std::size_t at = 0, k = 0;
  for (std::istringstream h(line); std::getline(h, cell, ','); ++k)
    if (cell == name) at = k;
  std::vector<double> out;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    for (k = 0; std::getline(row, cell, ','); ++k)
      if (k == at) out.push_back(cell.empty() ? NAN : std::stod(cell));
  }
  return out;
}

}  // namespace loci::test::scaleout
