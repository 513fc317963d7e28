// Distances between the rows of a matrix (tokens of a PE, or true coordinates), and the upper triangle of a
// square matrix as a vector, the two inputs of every representational comparison.
#pragma once

#include <Eigen/Core>

#include <string>
#include <string_view>
#include <vector>

namespace loci::probe {

enum class Metric {
  euclidean,    // ||x_i - x_j||
  cosine,       // 1 - <x_i, x_j> / (||x_i|| ||x_j||); NaN where a row is zero, as scipy's cdist
  correlation,  // cosine distance of the rows after each is centred on its own mean; NaN for a constant row
};

// T x T symmetric matrix of distances between the rows of x, with an exact zero diagonal.
Eigen::MatrixXd pairwise_distance(const Eigen::MatrixXd& x, Metric metric = Metric::euclidean);

// Entries above the diagonal in row-major order, (0,1), (0,2), ..., (1,2), ...: the order of scipy's squareform,
// so vectors line up with Python's. Throws std::invalid_argument for a non-square matrix.
Eigen::VectorXd upper_triangle(const Eigen::MatrixXd& m);

// "euclidean", "cosine", "correlation".
const char* metric_name(Metric metric);
// Inverse of metric_name; throws std::invalid_argument naming the choices for anything else.
Metric parse_metric(std::string_view name);
// Every metric's name, in the enum's order: the choices a config or flag offers.
std::vector<std::string> metric_names();

}  // namespace loci::probe
