#pragma once
// Small models and inputs shared by the model tests: sizes chosen so that every PE type fits (even head width for
// rope, d divisible by 4 for the 2D sinusoid) and a forward/backward takes milliseconds.

#include "models/model.hpp"
#include "models/positions/sinusoid.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace loci::models::test {

// n draws of N(mean, std) from a fixed seed: inputs of the row kernels' tests.
inline std::vector<float> normal_values(std::int64_t n, unsigned seed, float mean = 0.0f, float std = 1.0f) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(mean, std);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = normal(gen);
  return v;
}

inline EncoderOptions small_encoder(const PEOptions& pe, int64_t d = 16, int64_t heads = 2, int64_t blocks = 2) {
  return EncoderOptions().in_channels(5).d_model(d).heads(heads).blocks(blocks).pe(pe);
}

inline ModelOptions small_model(const PEOptions& pe, Pooling pooling = Pooling::last) {
  return ModelOptions().encoder(small_encoder(pe)).classification(ClassificationOptions().pooling(pooling));
}

// The largest absolute entry of a tensor, 0 for an empty one.
inline double max_abs(const torch::Tensor& t) { return t.numel() == 0 ? 0.0 : t.abs().max().item<double>(); }

// The largest absolute difference between paired tensors of two lists (parameters, gradients).
inline double max_difference(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, (a[i] - b[i]).abs().max().item<double>());
  return d;
}

// A 4x4 grid, as in the Latin Square Task.
inline torch::Tensor grid() { return grid_positions(4, 4); }

// [B, 16, 5] inputs with one-hot symbols and blanks, like LST puzzles, drawn from `seed`.
inline torch::Tensor puzzle_batch(int64_t batch, uint64_t seed) {
  auto gen = make_generator(seed);
  auto symbol = torch::randint(0, 6, {batch, 16}, gen, torch::kInt64);  // 5 = blank
  return torch::one_hot(symbol, 6).narrow(2, 0, 5).to(torch::kFloat32);
}

// Every PE configuration the tests sweep, with a readable label.
struct PECase {
  std::string label;
  PEOptions options;
};

// Every registered PE at its defaults, so that a new PE file is swept by every test here without an edit, then the
// options that change what a PE computes.
inline std::vector<PECase> all_pe_cases() {
  std::vector<PECase> cases;
  for (const auto& name : PERegistry::names()) cases.push_back({name, PEOptions(name)});
  cases.push_back({"relative bias grid", PEOptions("relative").offsets(PeOffsets::coordinates)});
  cases.push_back({"relative music_causal", PEOptions("relative").variant(RelativeVariant::music_causal)});
  cases.push_back({"alibi coordinates", PEOptions("alibi").offsets(PeOffsets::coordinates)});
  return cases;
}

inline bool is_fixed(const std::string& type) {
  return type == "sinusoidal_1d" || type == "sinusoidal_2d" || type == "sinusoidal_nd" || type == "random_fixed" ||
         type == "alibi";
}

}  // namespace loci::models::test
