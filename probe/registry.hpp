// Probes beyond the built-in report (probe.hpp), looked up by name, so that a new probe is one registration (in
// loci, or in an extension library out of tree) and every analysis computes it: `loci analyze` runs every
// registered probe on every saved PE and writes its numbers beside the built-in ones (analysis.json, and
// summary.csv columns named after the probe's outputs).
#pragma once

#include <Eigen/Core>

#include "core/registry.hpp"
#include "probe/distance.hpp"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace loci::probe {

// What a probe may compare a PE with: the dataset's truths, as the analysis found them.
struct ProbeContext {
  Eigen::MatrixXd positions;             // T x k true coordinates
  Eigen::MatrixXd true_distance;         // T x T (the dataset's /distance, else euclidean between positions)
  Eigen::MatrixXd hops;                  // T x T graph hops, or empty when the data have no graph
  Eigen::MatrixXd fc;                    // T x T functional connectivity of the training split, or empty (no activity)
  Eigen::MatrixXd oracle;                // T x d sinusoids of the true positions
  Metric pe_metric = Metric::euclidean;  // distance between PE rows the analysis was asked for (--metric)
};

// Named numbers; NaN for undefined (written as null).
using ProbeValues = std::vector<std::pair<std::string, double>>;
using ProbeFn = std::function<ProbeValues(const Eigen::MatrixXd& pe, const ProbeContext& context)>;

struct ProbeInfo {
  std::string name;
  std::string doc;                   // one line: what it measures against what
  std::vector<std::string> outputs;  // the names its values carry, in order (summary columns)
  ProbeFn fn;
  int version = 1;  // raise it when the probe computes something else: kept analyses are then made again
};

// Every analysis runs the probes in the order registered (ProbeRegistry::instance().in_order()).
LOCI_DECLARE_REGISTRY(ProbeInfo)
using ProbeRegistry = ::loci::Registry<ProbeInfo>;

}  // namespace loci::probe
