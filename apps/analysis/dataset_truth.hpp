// The truths a run's dataset itself records, when it records them: /distance (euclidean, periodic axes the short
// way round), /hops (shortest-path hops on a network; from /adjacency when only that is stored), a partition of
// the tokens that means something (/hemisphere of parcels, /block of a block-model graph), and the functional
// connectivity of the training split (activity data). The analyses prefer them to distances recomputed from
// /positions, and add RSA against graph distance and FC where there are a graph and activity.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace loci::analysis {

struct DatasetTruth {
  Eigen::MatrixXd distance;    // T x T, empty when the dataset has none
  Eigen::MatrixXd hops;        // T x T, unreachable pairs at the largest hop count + 1; empty when none
  std::vector<int> partition;  // a label per token from the dataset, empty when it stores none
  std::string partition_name;  // e.g. "hemispheres (the dataset's /hemisphere)"
  Eigen::MatrixXd fc;          // T x T functional connectivity of fc_split, empty when there is no activity
  std::string fc_split;        // the split FC was computed from (the run's training split)
  std::string note;            // why nothing was read, or ""
  std::string generator;       // the generator that made the dataset (index.json), "" when unreadable
  std::int64_t grid_n = 0;     // the LST grid's N (the root attribute grid_n the trainer reads), 0 when none
  // How often each token is the target (/target_cell, per sample) in target_split, as a share of its samples;
  // empty when the dataset has no such array.
  Eigen::VectorXd target_frequency;
  std::string target_split;
};

// Where and what to read: the run's `data:` folder, its training split and its `task.input`.
struct TruthRequest {
  std::filesystem::path data;
  Eigen::Index tokens = 0;
  std::string train_split = "train";
  std::string input = "auto";
};

// Never throws for a dataset that moved or was deleted: the analysis then uses the positions saved in pe.h5, and
// `note` says so. Matrices and labels whose size does not match the tokens are ignored.
DatasetTruth dataset_truth(const TruthRequest& request);

}  // namespace loci::analysis
