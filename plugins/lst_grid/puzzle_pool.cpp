#include "puzzle_pool.hpp"

#include <array>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "sim/lst/classify.hpp"
#include "sim/lst/solver.hpp"
#include "sim/random/strata.hpp"
#include "sim/random/stream.hpp"

namespace loci::lst_grid {

namespace {

[[noreturn]] void fail(const PoolPuzzle& p, const std::string& what) {
  throw std::runtime_error(p.file + ":" + std::to_string(p.row.line) + ": " + what);
}

std::vector<PoolPuzzle> read_file(const std::string& file) {
  std::vector<std::pair<std::string, std::vector<sim::lst::LabelledPuzzle>>> parts;
  if (file == kBuiltinAuthors) {
    for (int c : {sim::lst::kBinary, sim::lst::kTernary, sim::lst::kQuaternary}) {
      const std::string name = std::string("authors_generated_") +
                               (c == sim::lst::kBinary    ? "binary"
                                : c == sim::lst::kTernary ? "ternary"
                                                          : "quaternary") +
                               ".csv (builtin)";
      std::istringstream in(authors_puzzles_csv(c));
      parts.emplace_back(name, sim::lst::parse_human_puzzles(in, name));
    }
  } else {
    parts.emplace_back(file, sim::lst::read_human_puzzles(file));
  }
  std::vector<PoolPuzzle> out;
  for (auto& [name, rows] : parts)
    for (auto& row : rows) out.push_back({std::move(row), name, {}});
  return out;
}

// The exact solver and the classifier agree with the row, or the row is an error naming what disagrees.
void check_row(PoolPuzzle& p) {
  const auto& puzzle = p.row.puzzle;
  const auto completion = sim::lst::solve(puzzle);
  if (!completion) fail(p, "column 'puzzles': no Latin square completes this puzzle");
  int unique = 0;
  if (!sim::lst::answer_is_unique(puzzle, &unique)) fail(p, "column 'puzzles': the target's answer is not unique");
  if (unique != puzzle.answer)
    fail(p, "column 'solutions': states " + std::to_string(puzzle.answer) + ", but the puzzle's only answer is " +
                std::to_string(unique));
  // A class is a reading of the puzzle, not a fact of it: one the classifier reads otherwise is kept with its
  // stated class, as imported splits are, and flagged (label_verified = 0).
  p.class_confirmed = sim::lst::classify(puzzle).condition == p.row.condition;
  p.solution = *completion;
}

std::string key_of(const sim::lst::Puzzle& p) {
  std::string k(p.cells.begin(), p.cells.begin() + p.n * p.n);
  k += static_cast<char>(p.target);
  return k;
}

}  // namespace

PuzzlePool load_pool(const PoolRequest& r) {
  PuzzlePool pool;
  for (const auto& file : r.files)
    for (auto& p : read_file(file)) pool.puzzles.push_back(std::move(p));
  std::unordered_map<std::string, std::size_t> seen;
  std::array<std::vector<std::size_t>, 3> by_class;
  for (std::size_t i = 0; i < pool.puzzles.size(); ++i) {
    PoolPuzzle& p = pool.puzzles[i];
    check_row(p);
    const auto [it, fresh] = seen.emplace(key_of(p.row.puzzle), i);
    if (!fresh) {
      const auto& first = pool.puzzles[it->second];
      fail(p, "column 'puzzles': repeats the puzzle of " + first.file + ":" + std::to_string(first.row.line));
    }
    if (r.exclude && !r.exclude->all_farther_than(p.row.puzzle, r.min_jaccard))
      fail(p, "column 'puzzles': lies within Jaccard distance " + std::to_string(r.min_jaccard) +
                  " of an excluded puzzle (lst.exclude), so it could leak the held-out set into training");
    by_class[static_cast<std::size_t>(p.row.condition)].push_back(i);
  }
  // One shuffle per class, by seed; the splits take consecutive runs of it in the order they are written, so a
  // split's puzzles never depend on the shards, threads or the other splits' sizes after it.
  for (std::size_t c = 0; c < by_class.size(); ++c) {
    auto rng = sim::Rng::stream(r.seed, "lst_grid.pool", c);
    rng.shuffle(by_class[c].begin(), by_class[c].end());
  }
  std::array<std::size_t, 3> taken{0, 0, 0};
  for (const auto& [split, count] : r.splits) {
    auto& indices = pool.splits[split];
    for (const std::int8_t c : sim::stratify(r.class_weights, count)) {
      const auto k = static_cast<std::size_t>(c);
      if (taken[k] >= by_class[k].size())
        throw std::runtime_error("splits ask for more " + std::string(sim::lst::condition_name(c)) +
                                 " puzzles than the files hold (" + std::to_string(by_class[k].size()) +
                                 "): lower the split sizes or add files");
      indices.push_back(by_class[k][taken[k]++]);
    }
  }
  return pool;
}

}  // namespace loci::lst_grid
