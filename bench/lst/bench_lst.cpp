// Items per second of the 4x4 LST generator in the paper's setting: balanced classes, givens 3..11, Jaccard
// distance > 0.8 from the 108 human puzzles. Item i draws from Rng::stream(seed, "train", i), so every thread
// count must produce the same items; the run checks that too.
//
// bench_lst [--items K] [--seed S] [--human path] [--threads 1,2]
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "sim/lst/csv.hpp"
#include "sim/lst/generate.hpp"

using namespace loci::sim;
using namespace loci::sim::lst;

namespace {

struct Run {
  double seconds = 0;
  std::uint64_t attempts = 0;
  std::uint64_t digest = 0;
};

Run run(const PuzzleOptions& opt, int items, std::uint64_t seed, int threads) {
  std::vector<Item> out(static_cast<std::size_t>(items));
  const auto start = std::chrono::steady_clock::now();
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16)
  for (int i = 0; i < items; ++i) {
    Rng rng = Rng::stream(seed, "train", static_cast<std::uint64_t>(i));
    out[static_cast<std::size_t>(i)] = generate(opt, i % 3, rng);
  }
  Run r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const Item& item : out) {
    r.attempts += item.attempts;
    for (int k = 0; k < 16; ++k) r.digest = r.digest * 1099511628211ull + item.puzzle.cells[k];
    r.digest = r.digest * 1099511628211ull + static_cast<std::uint64_t>(item.puzzle.target * 8 + item.puzzle.answer);
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int items = 30000;
  std::uint64_t seed = 1;
  std::string human = std::string(LOCI_SOURCE_DIR) + "/plugins/lst_grid/data/human_puzzles.csv";
  std::string threads = "1,2";
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!std::strcmp(argv[a], "--items"))
      items = std::atoi(argv[a + 1]);
    else if (!std::strcmp(argv[a], "--seed"))
      seed = std::strtoull(argv[a + 1], nullptr, 10);
    else if (!std::strcmp(argv[a], "--human"))
      human = argv[a + 1];
    else if (!std::strcmp(argv[a], "--threads"))
      threads = argv[a + 1];
    else {
      std::fprintf(stderr, "unknown option %s\n", argv[a]);
      return 2;
    }
  }

  const auto ref = std::make_shared<const ReferenceSet>(puzzles_of(read_human_puzzles(human)));
  const PuzzleOptions opt = PuzzleOptions().n(4).min_givens(3).max_givens(11).min_jaccard(0.8).reference(ref);

  std::uint64_t first_digest = 0;
  bool first = true;
  std::stringstream list(threads);
  for (std::string t; std::getline(list, t, ',');) {
    const int nt = std::atoi(t.c_str());
    const Run r = run(opt, items, seed, nt);
    std::printf("cpp threads=%d items=%d seconds=%.3f items_per_s=%.1f attempts_per_item=%.1f\n", nt, items, r.seconds,
                items / r.seconds, static_cast<double>(r.attempts) / items);
    if (!first && r.digest != first_digest) {
      std::fprintf(stderr, "items differ between thread counts\n");
      return 1;
    }
    first_digest = r.digest;
    first = false;
  }
  return 0;
}
