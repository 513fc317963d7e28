// The paper's attention comparison across runs (Experiment 1: each learned-PE model against the 2d-fixed one): a run's
// attention maps at its last evaluation (attention.h5, written with train.save_attention) against the mean final maps
// of the reference runs, cosine similarity of the maps read as flat vectors (probe/attention.hpp). A reference
// run is compared with the other reference runs, never with itself.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

namespace loci::analysis {

// Block b's map at the last evaluation of `folder`/attention.h5, averaged over heads; empty when the run saved none.
// DataError naming the file when it is unreadable or its arrays are not [evaluation, head, query, key].
std::vector<Eigen::MatrixXd> final_attention_maps(const std::filesystem::path& folder);

// The same at evaluation `evaluation` (-1: the last; 0: epoch 0, empty unless the file's first evaluation is epoch 0).
std::vector<Eigen::MatrixXd> attention_maps_at(const std::filesystem::path& folder, std::int64_t evaluation);

// For each analysis (analyses[i] describes folders[i]) whose run saved maps and has a reference of the same shape:
// final.attention_cosine (every block's map as one vector), final.attention_cosine_mean_block (the blocks' cosines
// averaged) and final.attention_cosine_per_block, its floor (final.attention_cosine_uniform: uniform maps against
// the same reference; final.init_attention_cosine: the run's own maps at epoch 0), plus attention_reference naming the
// reference runs' PE type and count. Reference runs are those whose PE type is `reference_type`. Returns how many
// analyses got a value.
int add_attention_similarity(const std::vector<std::filesystem::path>& folders,
                             std::vector<nlohmann::ordered_json>& analyses, const std::string& reference_type);

}  // namespace loci::analysis
