// Seconds per probe_pe call, the unit of work of `loci analyze` (one call per block's PE per saved evaluation per
// run), at the paper's LST size (16 tokens x 160 dims) and at a network/parcel size (300 tokens x 160 dims), with
// the time split by probe so a slow one is visible.
//
// bench_probe [--repeats N] [--seed S]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>

#include "probe/decode.hpp"
#include "probe/distance.hpp"
#include "probe/mds.hpp"
#include "probe/neighbours.hpp"
#include "probe/probe.hpp"
#include "probe/procrustes.hpp"
#include "probe/rsa.hpp"

using namespace loci::probe;

namespace {

Eigen::MatrixXd normal_matrix(Eigen::Index rows, Eigen::Index cols, std::mt19937_64& rng, double sd) {
  std::normal_distribution<double> normal(0.0, sd);
  Eigen::MatrixXd m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = normal(rng);
  return m;
}

// Mean seconds of fn over repeats calls, after one warm-up call.
double seconds_per_call(int repeats, const std::function<void()>& fn) {
  fn();
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < repeats; ++r) fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / repeats;
}

void run(Eigen::Index tokens, Eigen::Index dims, int coord_dims, int repeats, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  // A PE of the shape training produces: a linear image of the coordinates plus noise, as a partly learned PE.
  const Eigen::MatrixXd coords = normal_matrix(tokens, coord_dims, rng, 1.0);
  const Eigen::MatrixXd pe = coords * normal_matrix(coord_dims, dims, rng, 0.1) + normal_matrix(tokens, dims, rng, 0.1);
  const Eigen::MatrixXd oracle = coords * normal_matrix(coord_dims, dims, rng, 1.0);
  ProbeOptions options;
  options.partition.resize(static_cast<std::size_t>(tokens));
  for (Eigen::Index t = 0; t < tokens; ++t) options.partition[static_cast<std::size_t>(t)] = static_cast<int>(t % 4);
  const Eigen::MatrixXd pe_d = pairwise_distance(pe);
  const Eigen::MatrixXd true_d = pairwise_distance(coords);

  double sink = 0;
  const double total = seconds_per_call(repeats, [&] { sink += probe_pe(pe, coords, options, &oracle).rsa_spearman; });
  const double dist = seconds_per_call(repeats, [&] { sink += pairwise_distance(pe)(0, 1); });
  const double rsa_s = seconds_per_call(repeats, [&] { sink += rsa_of_distances(pe_d, true_d).spearman; });
  const double proc =
      seconds_per_call(repeats, [&] { sink += procrustes_disparity(pe, oracle) + procrustes_residual(pe, oracle); });
  const double dec = seconds_per_call(repeats, [&] { sink += decode(pe, coords).r2; });
  const double knn = seconds_per_call(repeats, [&] { sink += knn_overlap(pe_d, true_d); });
  const double mds = seconds_per_call(repeats, [&] { sink += classical_mds(pe_d, 2).explained; });
  std::printf(
      "T=%-4ld d=%-4ld k=%d  probe_pe %9.3f ms | distance %.3f  rsa %.3f  procrustes(x2) %.3f  decode %.3f  "
      "knn %.3f  mds %.3f ms  (checksum %.6g)\n",
      static_cast<long>(tokens), static_cast<long>(dims), coord_dims, total * 1e3, dist * 1e3, rsa_s * 1e3, proc * 1e3,
      dec * 1e3, knn * 1e3, mds * 1e3, sink);
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 200;
  std::uint64_t seed = 1;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!std::strcmp(argv[a], "--repeats"))
      repeats = std::atoi(argv[a + 1]);
    else if (!std::strcmp(argv[a], "--seed"))
      seed = std::strtoull(argv[a + 1], nullptr, 10);
  }
  std::printf("bench_probe --repeats %d --seed %llu\n", repeats, static_cast<unsigned long long>(seed));
  run(16, 160, 2, repeats, seed);
  run(300, 160, 3, std::max(1, repeats / 20), seed);
  return 0;
}
