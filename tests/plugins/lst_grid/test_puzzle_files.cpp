// lst.source: file: the splits drawn by seed from puzzle files in the authors' layout, the authors' 9,000 shipped
// as builtin:authors; every bad row is a one-line error naming its file and line, and nothing is written.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "datasets/reader.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

using loci::test::run_loci;
namespace fs = std::filesystem;

namespace {

std::string config(const loci::test::TempDir& dir, const std::string& name, const std::string& body) {
  return dir.write(name + ".yaml", "include: " + std::string(LOCI_SOURCE_DIR) +
                                       "/configs/lst.yaml\nout: " + (dir.path() / name).string() + "\n" + body);
}

// The rows of one of the authors' files, header first.
std::vector<std::string> authors_rows(const std::string& condition) {
  std::ifstream in(std::string(LOCI_SOURCE_DIR) + "/plugins/lst_grid/data/authors_generated_" + condition + ".csv");
  std::vector<std::string> rows;
  for (std::string line; std::getline(in, line);) rows.push_back(line);
  return rows;
}

// A file of the first `k` puzzles of each class, plus `extra` rows.
std::string small_file(const loci::test::TempDir& dir, int k, const std::string& extra = "") {
  std::string text = authors_rows("binary").front() + "\n";
  for (const char* c : {"binary", "ternary", "quaternary"}) {
    const auto rows = authors_rows(c);
    for (int i = 1; i <= k; ++i) text += rows[static_cast<std::size_t>(i)] + "\n";
  }
  return dir.write("pool.csv", text + extra);
}

// Each sample's 80 one-hot token bytes of a split, as strings, in order.
std::vector<std::string> puzzles_of(const fs::path& data, const std::string& split) {
  const auto ds = loci::datasets::Dataset::open(data);
  const auto n = ds.samples(split);
  const auto tokens = ds.read<std::uint8_t>(split, "tokens", 0, n);
  std::vector<std::string> out;
  for (std::int64_t i = 0; i < n; ++i) out.emplace_back(tokens.begin() + i * 80, tokens.begin() + (i + 1) * 80);
  return out;
}

}  // namespace

TEST_CASE("lst_grid from the authors' puzzles: 8100 and 900 drawn by seed, stratified, disjoint, all of them") {
  loci::test::TempDir dir;
  const auto r = run_loci("generate -q " + config(dir, "a", "lst: {source: file, puzzle_files: [builtin:authors]}\n"));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto train = puzzles_of(dir.path() / "a", "train"), test = puzzles_of(dir.path() / "a", "test");
  REQUIRE(train.size() == 8100);
  REQUIRE(test.size() == 900);
  std::set<std::string> all(train.begin(), train.end());
  all.insert(test.begin(), test.end());
  CHECK(all.size() == 9000);  // every puzzle once: none drawn twice, none left out
  const auto ds = loci::datasets::Dataset::open(dir.path() / "a");
  const auto classes = ds.read<std::uint8_t>("test", "condition", 0, 900);
  for (std::uint8_t c = 0; c < 3; ++c) CHECK(std::count(classes.begin(), classes.end(), c) == 300);
  const auto verified = ds.read<std::uint8_t>("train", "label_verified", 0, 8100);
  CHECK(std::count(verified.begin(), verified.end(), 1) == 8100);
  CHECK(ds.attributes().count("authors_puzzles_license") == 1);
}

TEST_CASE("lst_grid from a puzzle file: the seed decides the draw, and the same seed the same bytes") {
  loci::test::TempDir dir;
  const auto file = small_file(dir, 4);
  const std::string body = "splits: {train: 6, test: 6}\nlst: {source: file, puzzle_files: [" + file + "]}\n";
  REQUIRE(run_loci("generate -q " + config(dir, "s0", body)).exit_code == 0);
  REQUIRE(run_loci("generate -q " + config(dir, "s0again", body)).exit_code == 0);
  REQUIRE(run_loci("generate -q " + config(dir, "s1", body + "seed: 1\n")).exit_code == 0);
  CHECK(puzzles_of(dir.path() / "s0", "train") == puzzles_of(dir.path() / "s0again", "train"));
  CHECK(puzzles_of(dir.path() / "s0", "train") != puzzles_of(dir.path() / "s1", "train"));
  const auto ds = loci::datasets::Dataset::open(dir.path() / "s0");
  REQUIRE(ds.index().inputs.size() == 1);  // the user's file is an input of record, with its checksum
  CHECK(ds.index().inputs[0].file == file);
  const auto too_many =
      run_loci("generate -q " +
               config(dir, "big", "splits: {train: 9, test: 6}\nlst: {source: file, puzzle_files: [" + file + "]}\n"));
  CHECK(too_many.exit_code == 1);
  CHECK_THAT(too_many.output, Catch::Contains("more Binary puzzles than the files hold (4)"));
}

TEST_CASE("lst_grid from a puzzle file: a bad row is one line naming file and line, and nothing is written") {
  loci::test::TempDir dir;
  const auto first = authors_rows("binary")[1];
  std::istringstream fields(first);
  std::vector<std::string> f;
  for (std::string cell; std::getline(fields, cell, ',');)
    f.push_back(cell);  // ID, LST_num, condition, puzzles, solutions
  std::string wrong_answer = f[4] == "1" ? "2" : "1";
  const std::vector<std::pair<std::string, std::string>> cases{
      {"1,,Binary,12,3", "expected 16 digits"},
      {"1,,Binary," + f[3] + "," + wrong_answer, "column 'solutions': states " + wrong_answer},
      {"1,,Binary,1100000000000005,1", "repeats a symbol"},
      {"1,,Binary,1230000400000005,3", "no Latin square completes this puzzle"},
      {"1,,Binary,0000000000000005,1", "the target's answer is not unique"},
      {first, "repeats the puzzle of"},
      {"9,1,Binary,0040405210200030,1", "excluded puzzle"}};  // the first human puzzle
  for (const auto& [row, says] : cases) {
    INFO(row);
    fs::remove_all(dir.path() / "bad");
    const auto file = small_file(dir, 2, row + "\n");
    const auto r = run_loci(
        "generate -q " +
        config(dir, "bad", "splits: {train: 3, test: 3}\nlst: {source: file, puzzle_files: [" + file + "]}\n"));
    INFO(r.output);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.output, Catch::Contains("pool.csv:8:") && Catch::Contains(says));
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
    CHECK_FALSE(fs::exists(dir.path() / "bad" / "index.json"));
  }
}
