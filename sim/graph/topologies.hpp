// The built-in topologies as typed C++ calls. Each is also registered by name (topology.hpp) with the same
// parameters; the registered builders take nodes and dims from GraphOptions.
#pragma once

#include <cstddef>

#include "core/option.hpp"
#include "sim/graph/graph.hpp"
#include "sim/random/stream.hpp"

namespace loci::sim::graph {

// side^dims grid points joined to their axis neighbours; periodic wraps every axis (a ring in 1D, a torus in 2D).
class LatticeOptions {
  LOCI_OPTION(std::size_t, side) = 10;
  LOCI_OPTION(int, dims) = 2;
  LOCI_OPTION(bool, periodic) = false;
};
SpatialGraph lattice(const LatticeOptions& o);

// Uniform points; an edge joins every pair closer than radius.
class GeometricOptions {
  LOCI_OPTION(std::size_t, nodes) = 100;
  LOCI_OPTION(int, dims) = 2;
  LOCI_OPTION(double, radius) = 0.15;
  LOCI_OPTION(bool, periodic) = false;
};
SpatialGraph random_geometric(const GeometricOptions& o, Rng& rng);

// Uniform points; each pair is joined with probability beta * exp(-d / (alpha * L)), L the largest distance.
class WaxmanOptions {
  LOCI_OPTION(std::size_t, nodes) = 100;
  LOCI_OPTION(int, dims) = 2;
  LOCI_OPTION(double, alpha) = 0.1;
  LOCI_OPTION(double, beta) = 0.6;
};
SpatialGraph waxman(const WaxmanOptions& o, Rng& rng);

// Nodes evenly on a ring (1D periodic coordinate i / nodes), each joined to its k nearest; then each edge, lap by
// lap, has its far end moved with probability p to a node that is neither itself nor already a neighbour. The edge
// count stays nodes * k / 2.
class WattsStrogatzOptions {
  LOCI_OPTION(std::size_t, nodes) = 100;
  LOCI_OPTION(std::size_t, k) = 4;
  LOCI_OPTION(double, p) = 0.1;
};
SpatialGraph watts_strogatz(const WattsStrogatzOptions& o, Rng& rng);

// G(n, p): every pair independently with probability p; coordinates are uniform and play no part.
class ErdosRenyiOptions {
  LOCI_OPTION(std::size_t, nodes) = 100;
  LOCI_OPTION(int, dims) = 2;
  LOCI_OPTION(double, p) = 0.05;
};
SpatialGraph erdos_renyi(const ErdosRenyiOptions& o, Rng& rng);

// Stochastic block model: pairs in one block join with probability p_in, others with p_out. Spatial blocks are the
// Voronoi cells of `blocks` uniform centres (communities are places); otherwise node i is in block i mod blocks.
class BlockModelOptions {
  LOCI_OPTION(std::size_t, nodes) = 100;
  LOCI_OPTION(int, dims) = 2;
  LOCI_OPTION(std::size_t, blocks) = 4;
  LOCI_OPTION(double, p_in) = 0.2;
  LOCI_OPTION(double, p_out) = 0.01;
  LOCI_OPTION(bool, spatial) = true;
};
SpatialGraph block_model(const BlockModelOptions& o, Rng& rng);

}  // namespace loci::sim::graph
