// A run folder as `loci train` leaves it, written directly: the trainer's files are the contract analyses read.
#pragma once

#include <Eigen/Core>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "datasets/array_file.hpp"

namespace loci::test {

// The 4x4 grid of the LST, (row, column) per token in row-major order.
inline Eigen::MatrixXd grid4() {
  Eigen::MatrixXd p(16, 2);
  for (int t = 0; t < 16; ++t) p(t, 0) = t / 4, p(t, 1) = t % 4;
  return p;
}

struct FakeRun {
  std::string pe_type = "learned";
  double sigma = 0.2;
  int seed = 0;
  int d_model = 8;
  std::vector<Eigen::MatrixXd> pe_per_eval;      // one placement, T x d_model per evaluation
  std::vector<double> human_accuracy;            // one per evaluation
  std::vector<double> test_mse;                  // masked regression instead: the test split's MSE per evaluation
  std::vector<Eigen::MatrixXd> logits_per_eval;  // block 0's position-position attention term (one head), or none
  bool from_epoch_0 = false;                     // evaluations at epochs 0, 10, 20, ... (else 10, 20, ...)
  std::string draw;                              // model.pe.draw, when set
  bool finished = true;                          // writes summary.json, as a run that ended does
  Eigen::MatrixXd positions;                     // the tokens' true positions; empty: grid4()
};

inline void write_run(const std::filesystem::path& folder, const FakeRun& r) {
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "config.yaml") << "trainer: torch_trainer\ndata: d\nout: " << folder.string()
                                        << "\nseed: " << r.seed << "\nmodel:\n  d_model: " << r.d_model
                                        << "\n  pe:\n    type: " << r.pe_type
                                        << "\n    placement: per_block\n    init: {name: normal, std: " << r.sigma
                                        << ", a: 0.1, gain: 1.0, scale: 1.0}\n    base: 10000.0\n"
                                        << "    coordinate_scale: 1.0\n"
                                        << (r.draw.empty() ? "" : "    draw: " + r.draw + "\n");
  if (r.finished) std::ofstream(folder / "summary.json") << "{\"status\": \"finished\"}\n";
  std::ofstream metrics(folder / "metrics.jsonl");
  for (std::size_t e = 0; e < r.human_accuracy.size(); ++e)
    metrics << "{\"epoch\":" << (e + 1) * 10 << ",\"step\":" << (e + 1) * 100 << ",\"split\":\"human\",\"loss\":1.0,"
            << "\"accuracy\":" << r.human_accuracy[e] << "}\n";
  for (std::size_t e = 0; e < r.test_mse.size(); ++e)
    metrics << "{\"epoch\":" << (e + 1) * 10 << ",\"step\":" << (e + 1) * 100
            << ",\"split\":\"test\",\"loss\":" << r.test_mse[e] << ",\"mse\":" << r.test_mse[e] << "}\n";
  const Eigen::MatrixXd pos = r.positions.size() > 0 ? r.positions : grid4();
  const auto tokens = static_cast<std::int64_t>(pos.rows()), axes = static_cast<std::int64_t>(pos.cols());
  const auto evals = static_cast<std::int64_t>(r.pe_per_eval.size());
  std::vector<float> pe, positions;
  std::vector<std::int64_t> epochs, steps;
  const std::int64_t first = r.from_epoch_0 ? 0 : 1;
  for (std::int64_t e = 0; e < evals; ++e) {
    epochs.push_back((e + first) * 10);
    steps.push_back((e + first) * 100);
    for (Eigen::Index i = 0; i < tokens; ++i)
      for (Eigen::Index j = 0; j < r.d_model; ++j) pe.push_back(static_cast<float>(r.pe_per_eval[e](i, j)));
  }
  for (Eigen::Index i = 0; i < tokens; ++i)
    for (Eigen::Index j = 0; j < axes; ++j) positions.push_back(static_cast<float>(pos(i, j)));
  using datasets::Array;
  using datasets::ArraySpec;
  std::vector<Array> arrays{
      Array::of(ArraySpec{"epoch", {}, {"evaluation"}, {evals}, ""}, epochs),
      Array::of(ArraySpec{"step", {}, {"evaluation"}, {evals}, ""}, steps),
      Array::of(ArraySpec{"placement_0", {}, {"evaluation", "token", "dim"}, {evals, tokens, r.d_model}, ""}, pe),
      Array::of(ArraySpec{"positions", {}, {"token", "axis"}, {tokens, axes}, ""}, positions)};
  if (!r.logits_per_eval.empty()) {
    std::vector<float> logits;
    for (const auto& l : r.logits_per_eval)
      for (Eigen::Index i = 0; i < 16; ++i)
        for (Eigen::Index j = 0; j < 16; ++j) logits.push_back(static_cast<float>(l(i, j)));
    const auto n = static_cast<std::int64_t>(r.logits_per_eval.size());
    arrays.push_back(Array::of(
        ArraySpec{"position_logits_0", {}, {"evaluation", "head", "query", "key"}, {n, 1, 16, 16}, ""}, logits));
  }
  datasets::write_array_file(folder / "pe.h5", arrays, {{"pe_type", r.pe_type}});
}

}  // namespace loci::test
