// The true distances a run's dataset itself records, when it records them: /distance (euclidean, periodic axes the
// short way round) and /hops (shortest-path hops on a network). The analyses prefer them to distances recomputed
// from /positions, and add RSA against graph distance where there is a graph.
#pragma once

#include <Eigen/Core>

#include <filesystem>
#include <string>

namespace loci::analysis {

struct DatasetTruth {
  Eigen::MatrixXd distance;  // T x T, empty when the dataset has none
  Eigen::MatrixXd hops;      // T x T, unreachable pairs at the largest hop count + 1; empty when none
  std::string note;          // why nothing was read, or ""
};

// `data`: the run's `data:` folder. Never throws for a dataset that moved or was deleted: the analysis then uses
// the positions saved in pe.h5, and `note` says so. Matrices whose size is not tokens x tokens are ignored.
DatasetTruth dataset_truth(const std::filesystem::path& data, Eigen::Index tokens);

}  // namespace loci::analysis
