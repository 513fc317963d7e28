// Where the geometry lives: the position-position term of each block's attention logits (pe.h5's
// position_logits_<b>, [evaluation, head, query, key], the PE through the block's query and key weights, written by
// the trainer) scored against the true distances. A grid learned in Wq and Wk rather than in the PE shows here and
// not in the PE's own RSA; the term of a fixed PE (2d-fixed, random_fixed) moves only through Wq and Wk.
#pragma once

#include <Eigen/Core>

#include <utility>
#include <vector>

#include "apps/analysis/run_folder.hpp"

namespace loci::analysis {

using LogitArrays = std::vector<std::pair<int, const datasets::NumericArray*>>;

// The position_logits_<b> arrays of a run, by block; empty for runs that have none (no [T, d] PE, or older runs).
LogitArrays position_logit_arrays(const RunFolder& run, Eigen::Index tokens);

// One T x T dissimilarity per block and head at evaluation `e`: minus the logits, each row centred first (softmax
// ignores a row's offset, so only the differences within a row decide where a token attends) and then symmetrised
// ((L + L^T) / 2). Scored like a PE's distances: positive Spearman against the true distance means near tokens
// attend to each other more.
std::vector<Eigen::MatrixXd> attention_term_dissimilarities(const LogitArrays& arrays, std::int64_t e);

}  // namespace loci::analysis
