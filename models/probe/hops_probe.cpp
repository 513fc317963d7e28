// RSA against graph distance: on network data the hops between nodes are a truth of their own, beside space.
#include <cmath>
#include <limits>

#include "models/probe/distance.hpp"
#include "models/probe/registry.hpp"
#include "models/probe/rsa.hpp"

namespace loci::probe {
namespace {

ProbeValues rsa_hops(const Eigen::MatrixXd& pe, const ProbeContext& c) {
  if (c.hops.size() == 0) return {{"rsa_hops_spearman", std::numeric_limits<double>::quiet_NaN()}};
  return {{"rsa_hops_spearman", rsa_of_distances(pairwise_distance(pe, c.pe_metric), c.hops).spearman}};
}

}  // namespace

LOCI_REGISTER_PROBE({"rsa_hops", "Spearman between PE distances and graph hops (networks and parcel graphs)",
                     {"rsa_hops_spearman"}, rsa_hops});

}  // namespace loci::probe
