// One evaluation pass over a split: loss, accuracy (with accuracy per LST condition) or masked MSE.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "data_feed.hpp"
#include "models/micro_batches.hpp"
#include "models/model.hpp"

namespace loci::torch_trainer {

struct SplitMetrics {
  std::string split;
  std::int64_t samples = 0;
  double loss = 0;
  double accuracy = -1;                       // classification; -1 when not applicable
  std::vector<double> accuracy_by_condition;  // index = condition; -1 where the split holds none
  double mse = -1;                            // masked regression
  // Masked regression, on the same masked tokens: the MSE of predicting every value by the training split's global
  // mean, and by each token's own mean over the training split, and the model's R^2 against each (1 - mse /
  // baseline). A model that learned nothing about the other tokens scores R^2 <= 0 against the token means.
  double mse_global_mean = -1, mse_token_mean = -1;
  double r2_global_mean = std::numeric_limits<double>::quiet_NaN(),
         r2_token_mean = std::numeric_limits<double>::quiet_NaN();
  double mask_ratio = -1;  // masked regression: the share of tokens masked in this evaluation
};

// The training split's means, the baselines of masked regression: each token's mean over every sample and channel,
// and their mean.
struct TokenMeans {
  torch::Tensor per_token;  // [T] float
  double global = 0;
  bool defined() const { return per_token.defined(); }
};
TokenMeans token_means(const datasets::Dataset& ds, const std::string& train_split, const FeedPlan& plan);

// Deterministic: masks of masked regression come from a generator seeded by (seed, split), the same at every
// evaluation, so numbers are comparable across epochs and runs. Each batch is computed as the training step's parts
// (`micro`), side by side and single-threaded, so the numbers do not depend on the thread count either; dropout kept
// on at evaluation draws from generators seeded by (seed, split, batch, part).
// `mask_ratio` (masked regression): the share of tokens masked; the masks of one split are nested across ratios
// (the same random order of tokens, cut at another count). `means` gives the baselines and R^2.
// `noise_std` > 0 adds Gaussian noise of that sd to every token embedding (drawn from a generator seeded by
// (seed, split, noise_std, batch, part)); 0 is the plain evaluation, bit for bit.
SplitMetrics evaluate(models::Model& model, const datasets::Dataset& ds, const std::string& split, const FeedPlan& plan,
                      std::int64_t batch_size, std::uint64_t seed, models::MicroBatches& micro, double mask_ratio = -1,
                      const TokenMeans& means = {}, double noise_std = 0);

// Each block's attention weights averaged over every sample of `split`: [heads, N, N] per block (N = prefix + T; the
// last block is not pruned while maps are recorded). Computed on this thread alone and summed in float64, so the
// maps do not depend on the thread count; dropout kept on at evaluation draws from a generator seeded by (seed, epoch).
// The mean Euclidean norm of the embedded tokens (the encoder's token embedding, before any PE) over the first
// `batch_size` samples of `split`, in float64 on one thread: the scale a PE is added to (issue 33's relative-scale
// control: the paper's sigma beside it).
double token_embedding_norm(models::Model& model, const datasets::Dataset& ds, const std::string& split,
                            const FeedPlan& plan, std::int64_t batch_size);

std::vector<torch::Tensor> mean_attention(models::Model& model, const datasets::Dataset& ds, const std::string& split,
                                          const FeedPlan& plan, std::int64_t batch_size, std::uint64_t seed,
                                          std::int64_t epoch);

}  // namespace loci::torch_trainer
