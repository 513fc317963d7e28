// The lst_grid plugin end to end: `loci generate` makes the dataset, the reader and the exact solver check it.
#include <catch2/catch.hpp>

#include <array>
#include <filesystem>
#include <set>
#include <vector>

#include "datasets/checksum.hpp"
#include "datasets/reader.hpp"
#include "sim/lst/classify.hpp"
#include "sim/lst/csv.hpp"
#include "sim/lst/reference.hpp"
#include "sim/lst/solver.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

using loci::test::run_loci;
namespace fs = std::filesystem;
namespace lst = loci::sim::lst;

namespace {

std::string config(const loci::test::TempDir& dir, const std::string& name, const std::string& body) {
  return dir.write(name + ".yaml", "include: " + std::string(LOCI_SOURCE_DIR) +
                                       "/configs/lst.yaml\nout: " + (dir.path() / name).string() + "\n" + body);
}

// Rebuilds a puzzle from its stored one-hot tokens.
lst::Puzzle puzzle_from(const std::uint8_t* tokens, int n, int label) {
  lst::Puzzle p;
  p.n = n;
  for (int t = 0; t < n * n; ++t) {
    const std::uint8_t* cell = tokens + t * (n + 1);
    if (cell[n]) p.target = t;
    for (int k = 0; k < n; ++k)
      if (cell[k]) p.cells[t] = static_cast<std::uint8_t>(k + 1);
  }
  p.answer = label + 1;
  return p;
}

}  // namespace

TEST_CASE("lst_grid: every generated item is proved - classed and kept far from the human puzzles") {
  loci::test::TempDir dir;
  const auto cfg = config(dir, "paper", "splits: {train: 240, test: 60}\nsamples_per_shard: 100\n");
  const auto r = run_loci("generate -q " + cfg);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto ds = loci::datasets::Dataset::open(dir.path() / "paper");
  CHECK(ds.splits() == std::vector<std::string>{"train", "test", "human"});
  CHECK(ds.samples("human") == 108);

  const auto human = lst::read_human_puzzles(std::string(LOCI_SOURCE_DIR) + "/plugins/lst_grid/data/human_puzzles.csv");
  const lst::ReferenceSet reference(lst::puzzles_of(human));
  for (const std::string split : {"train", "test"}) {
    const auto n = ds.samples(split);
    const auto tokens = ds.read<std::uint8_t>(split, "tokens", 0, n);
    const auto label = ds.read<std::uint8_t>(split, "label", 0, n);
    const auto condition = ds.read<std::uint8_t>(split, "condition", 0, n);
    const auto givens = ds.read<std::uint8_t>(split, "givens", 0, n);
    std::array<int, 3> per_class{};
    std::array<int, 4> per_label{};
    for (std::int64_t i = 0; i < n; ++i) {
      const auto p = puzzle_from(tokens.data() + i * 80, 4, label[i]);
      int unique = 0;
      REQUIRE(lst::answer_is_unique(p, &unique));
      CHECK(unique == label[i] + 1);
      const auto c = lst::classify(p);
      CHECK(c.condition == condition[i]);
      CHECK(c.answer == label[i] + 1);
      CHECK(givens[i] >= 3);
      CHECK(givens[i] <= 11);
      CHECK(reference.all_farther_than(p, 0.8));
      ++per_class.at(condition[i]);
      ++per_label.at(label[i]);
    }
    // Stratified by class and balanced by answer, exactly.
    CHECK(per_class == std::array<int, 3>{int(n / 3), int(n / 3), int(n / 3)});
    CHECK(per_label == std::array<int, 4>{int(n / 4), int(n / 4), int(n / 4), int(n / 4)});
  }
  // The human split is the CSV, verified by the classifier and the solver.
  const auto verified = ds.read<std::uint8_t>("human", "label_verified", 0, 108);
  CHECK(std::count(verified.begin(), verified.end(), 1) == 108);
  const auto hl = ds.read<std::uint8_t>("human", "label", 0, 108);
  for (std::size_t i = 0; i < 108; ++i) CHECK(hl[i] + 1 == human[i].puzzle.answer);
  const auto pos = ds.read_dataset_array("positions");
  CHECK(pos.spec.shape == std::vector<std::int64_t>{16, 2});
}

TEST_CASE("lst_grid: the same seed gives identical shards for 1 and 2 threads and any shard size") {
  loci::test::TempDir dir;
  REQUIRE(
      run_loci("generate -q " + config(dir, "a", "splits: {train: 90, test: 30}\nsamples_per_shard: 50\nthreads: 1\n"))
          .exit_code == 0);
  REQUIRE(
      run_loci("generate -q " + config(dir, "b", "splits: {train: 90, test: 30}\nsamples_per_shard: 50\nthreads: 2\n"))
          .exit_code == 0);
  REQUIRE(
      run_loci("generate -q " + config(dir, "c", "splits: {train: 90, test: 30}\nsamples_per_shard: 7\nthreads: 2\n"))
          .exit_code == 0);
  const auto a = loci::datasets::Dataset::open(dir.path() / "a");
  const auto b = loci::datasets::Dataset::open(dir.path() / "b");
  const auto c = loci::datasets::Dataset::open(dir.path() / "c");
  for (const std::string split : {"train", "test", "human"})
    for (const std::string array : {"tokens", "label", "solution", "strategy"}) {
      const auto n = a.samples(split);
      const auto va = a.read<std::uint8_t>(split, array, 0, n);
      CHECK(va == b.read<std::uint8_t>(split, array, 0, n));
      CHECK(va == c.read<std::uint8_t>(split, array, 0, n));
    }
  // Whole shards too: what a dataset stores of its config leaves out threads and out, which never change the data.
  for (const auto& e : fs::directory_iterator(dir.path() / "a"))
    if (e.path().extension() == ".h5") {
      INFO(e.path().filename());
      CHECK(loci::test::slurp(e.path()) == loci::test::slurp(dir.path() / "b" / e.path().filename()));
    }
  // Provenance sits beside the data (its command names the config, so a and b differ there), never in it.
  CHECK(loci::test::slurp(dir.path() / "a" / "provenance.json").find("a.yaml") != std::string::npos);
  CHECK(loci::test::slurp(dir.path() / "b" / "provenance.json").find("b.yaml") != std::string::npos);
  // So a dataset made on one thread count resumes on another.
  const auto resumed = run_loci("generate -q --resume " +
                                config(dir, "a", "splits: {train: 90, test: 30}\nsamples_per_shard: 50\nthreads: 2\n"));
  INFO(resumed.output);
  CHECK(resumed.exit_code == 0);
}

TEST_CASE("lst_grid: class mix and givens range are what the config asks") {
  loci::test::TempDir dir;
  const auto cfg =
      config(dir, "mix", "splits: {train: 60}\nlst: {class_weights: [0, 0, 1], min_givens: 6, max_givens: 8}\n");
  REQUIRE(run_loci("generate -q " + cfg).exit_code == 0);
  const auto ds = loci::datasets::Dataset::open(dir.path() / "mix");
  const auto cond = ds.read<std::uint8_t>("train", "condition", 0, 60);
  const auto giv = ds.read<std::uint8_t>("train", "givens", 0, 60);
  CHECK(std::all_of(cond.begin(), cond.end(), [](auto c) { return c == 2; }));
  CHECK(std::all_of(giv.begin(), giv.end(), [](auto g) { return g >= 6 && g <= 8; }));
}

TEST_CASE("lst_grid: N = 6 and 9x9 Sudoku make valid items") {
  loci::test::TempDir dir;
  for (const std::string body : {"lst: {n: 6, min_givens: 8, max_givens: 30, removal: hidden_single, fill: "
                                 "restart_row, exclude: none, imports: {}}\n",
                                 "lst: {n: 9, boxes: true, min_givens: 20, max_givens: 60, removal: hidden_single, "
                                 "fill: restart_row, exclude: none, imports: {}}\n"}) {
    const auto name = body.find("n: 6") != std::string::npos ? std::string("six") : std::string("nine");
    const auto cfg = config(dir, name, "splits: {train: 9}\n" + body);
    const auto r = run_loci("generate -q " + cfg);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const auto ds = loci::datasets::Dataset::open(dir.path() / name);
    const int n = name == "six" ? 6 : 9;
    CHECK(ds.array("tokens").shape == std::vector<std::int64_t>{n * n, n + 1});
    const auto tokens = ds.read<std::uint8_t>("train", "tokens", 0, 9);
    const auto label = ds.read<std::uint8_t>("train", "label", 0, 9);
    for (int i = 0; i < 9; ++i) {
      auto p = puzzle_from(tokens.data() + i * n * n * (n + 1), n, label[i]);
      p.boxes = n == 9;
      int unique = 0;
      CHECK(lst::answer_is_unique(p, &unique));
      CHECK(unique == label[i] + 1);
    }
  }
}

TEST_CASE("lst_grid: bad settings and malformed CSV rows are one-line errors naming where") {
  loci::test::TempDir dir;
  auto r = run_loci("generate -q " + config(dir, "x", "lst: {n: 6}\n"));
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("set lst.exclude: none") != std::string::npos);
  const auto csv =
      dir.write("bad.csv", "ID,LST_num,condition,puzzles,solutions\n1,1,Binary,0040405210200030,1\n2,1,Binary,12,3\n");
  r = run_loci("generate -q " + config(dir, "y", "splits: {}\nlst: {imports: {mine: " + csv + "}}\n"));
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("bad.csv:3:") != std::string::npos);
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
}

TEST_CASE("lst_grid: a CSV row whose stated class disagrees is reported and flagged - not dropped") {
  loci::test::TempDir dir;
  // The first human puzzle, stated as Quaternary although it is Binary.
  const auto human = lst::read_human_puzzles(std::string(LOCI_SOURCE_DIR) + "/plugins/lst_grid/data/human_puzzles.csv");
  std::string digits = lst::to_digits(human[0].puzzle);
  const auto csv = dir.write("wrong.csv", "ID,LST_num,condition,puzzles,solutions\n7,1,Quaternary," + digits + "," +
                                              std::to_string(human[0].puzzle.answer) + "\n");
  const auto r = run_loci("generate -q " + config(dir, "w", "splits: {}\nlst: {imports: {mine: " + csv + "}}\n"));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("puzzle ID 7 states Quaternary") != std::string::npos);
  const auto ds = loci::datasets::Dataset::open(dir.path() / "w");
  CHECK(ds.read<std::uint8_t>("mine", "label_verified", 0, 1)[0] == 0);
  CHECK(ds.read<std::uint8_t>("mine", "condition", 0, 1)[0] == 2);
  // The user's file is an input with its checksum; the builtin human puzzles (part of loci) are not.
  REQUIRE(ds.index().inputs.size() == 1);
  CHECK(ds.index().inputs[0].file == csv);
  CHECK(ds.index().inputs[0].sha256 == loci::datasets::sha256_file(csv));
}

TEST_CASE("lst_grid: inspect --show draws puzzles as grids with class and answer") {
  loci::test::TempDir dir;
  REQUIRE(run_loci("generate -q " + config(dir, "s", "splits: {train: 6}\n")).exit_code == 0);
  const auto r = run_loci("inspect --show 2 " + (dir.path() / "s").string());
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("Binary (binary_") != std::string::npos);
  CHECK(r.output.find(", answer ") != std::string::npos);
  CHECK(r.output.find("?") != std::string::npos);
}

TEST_CASE("lst_grid: no test puzzle repeats a training puzzle (lst.disjoint_splits), as independent draws would") {
  loci::test::TempDir dir;
  auto overlap = [&](const std::string& name, const std::string& extra) {
    const auto r = run_loci("generate -q " + config(dir, name, "splits: {train: 3000, test: 600}\n" + extra));
    REQUIRE(r.exit_code == 0);
    const auto ds = loci::datasets::Dataset::open(dir.path() / name);
    std::set<std::vector<std::uint8_t>> train;
    const auto t = ds.read<std::uint8_t>("train", "tokens", 0, 3000);
    for (std::size_t i = 0; i < 3000; ++i) train.emplace(t.begin() + i * 80, t.begin() + (i + 1) * 80);
    const auto s = ds.read<std::uint8_t>("test", "tokens", 0, 600);
    int repeated = 0;
    for (std::size_t i = 0; i < 600; ++i) repeated += train.count({s.begin() + i * 80, s.begin() + (i + 1) * 80}) > 0;
    return repeated;
  };
  CHECK(overlap("disjoint", "") == 0);
  CHECK(overlap("independent", "lst: {disjoint_splits: false}\n") > 0);
}
