#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "sim/lst/csv.hpp"
#include "tests/sim/lst/lst_helpers.hpp"

using namespace loci::sim::lst;

namespace {

const char* kHeader = "ID,LST_num,condition,puzzles,solutions\n";

// Writes `text` to a fresh temporary file and reads it back through the file-based API.
class TempCsv {
 public:
  explicit TempCsv(const std::string& text) {
    char name[] = "/tmp/lst_csv_XXXXXX";
    const int fd = mkstemp(name);
    REQUIRE(fd >= 0);
    close(fd);
    path_ = name;
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~TempCsv() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string read_error(const std::string& text) {
  TempCsv f(text);
  try {
    read_human_puzzles(f.path());
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    REQUIRE(msg.rfind(f.path() + ":", 0) == 0);  // starts with the file's name
    return msg.substr(f.path().size());
  }
  FAIL("no error for:\n" << text);
  return {};
}

}  // namespace

TEST_CASE("lst csv: the shipped human puzzles file", "[lst][csv]") {
  const auto rows = read_human_puzzles(lst_test::human_csv());
  REQUIRE(rows.size() == 108);
  const LabelledPuzzle& first = rows.front();
  CHECK(first.id == 0);
  CHECK(first.lst_num == 1);
  CHECK(first.condition == kBinary);
  CHECK(to_digits(first.puzzle) == "0040405210200030");
  CHECK(first.puzzle.target == 6);
  CHECK(first.puzzle.answer == 1);
  int per_class[3] = {0, 0, 0};
  for (const auto& r : rows) ++per_class[r.condition];
  CHECK(per_class[0] == 36);
  CHECK(per_class[1] == 36);
  CHECK(per_class[2] == 36);
}

TEST_CASE("lst csv: quoting - whitespace - CRLF - BOM - blank lines - leading zeros", "[lst][csv]") {
  TempCsv f(
      "\xEF\xBB\xBF"
      " ID , LST_num ,Condition, puzzles ,solutions\r\n"
      "0,1,Binary,\"0040405210200030\",1\r\n"
      "\r\n"
      "1, ,\" ternary \",  5120300000000000 , 4\r\n"
      "2,,Quaternary,1001001005000,1");  // stored as a number: 0001001001005000 lost its 3 leading zeros
  const auto rows = read_human_puzzles(f.path());
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].condition == kBinary);
  CHECK(rows[1].condition == kTernary);
  CHECK(rows[1].lst_num == -1);
  CHECK(rows[1].puzzle.answer == 4);
  CHECK(to_digits(rows[2].puzzle) == "0001001001005000");
  CHECK(rows[2].puzzle.target == 12);
}

TEST_CASE("lst csv: malformed rows name the file and line", "[lst][csv]") {
  const std::string ok = "0,1,Binary,0040405210200030,1\n";
  CHECK(read_error(std::string(kHeader) + ok + "1,1,Binary,12,1\n") == ":3: expected 16 digits in 'puzzles', got '12'");
  CHECK(read_error(std::string(kHeader) + ok + ok + "1,1,Binary,00404052102000301,1\n") ==
        ":4: expected 16 digits in 'puzzles', got '00404052102000301'");
  CHECK(read_error(std::string(kHeader) + "1,1,Binary,004040521020003x,1\n") ==
        ":2: expected 16 digits in 'puzzles', got '004040521020003x'");
  CHECK(read_error(std::string(kHeader) + "1,1,Binary,0040405210200530,1\n") ==
        ":2: 'puzzles' marks more than one target (digit 5) in '0040405210200530'");
  CHECK(read_error(std::string(kHeader) + "1,1,Binary,0040400210200030,1\n") ==
        ":2: 'puzzles' has no target (digit 5) in '0040400210200030'");
  CHECK(read_error(std::string(kHeader) + "1,1,Binary,0040405210200070,1\n").find(":2: 'puzzles' digit 7") == 0);
  CHECK(read_error(std::string(kHeader) + "1,1,Binary,4040405210200030,1\n").find(":2: 'puzzles' repeats") == 0);
  CHECK(read_error(std::string(kHeader) + ok + "\n1,1,Senary,0040405210200030,1\n") ==
        ":4: 'condition' must be Binary, Ternary or Quaternary, got 'Senary'");
  CHECK(read_error(std::string(kHeader) + "1,1,Binary,0040405210200030,5\n") ==
        ":2: 'solutions' must be a symbol 1..4, got '5'");
  CHECK(read_error(std::string(kHeader) + "1,1,Binary,0040405210200030\n") == ":2: expected 5 fields, got 4");
  CHECK(read_error(std::string(kHeader) + "x,1,Binary,0040405210200030,1\n") == ":2: 'ID' must be an integer, got 'x'");
  CHECK(read_error(std::string(kHeader) + "1,1,\"Binary,0040405210200030,1\n") == ":2: unterminated quoted field");
  CHECK(read_error("ID,condition,solutions\n") == ":1: missing column 'puzzles' in the header");
  CHECK(read_error("") == ":1: no header line");
}

TEST_CASE("lst csv: a quoted field spanning lines keeps later line numbers right", "[lst][csv]") {
  CHECK(read_error(std::string(kHeader) + "0,1,\"Bin\nary\",0040405210200030,1\n1,1,Binary,12,1\n") ==
        ":2: 'condition' must be Binary, Ternary or Quaternary, got 'Bin\nary'");
  CHECK(read_error(std::string(kHeader) + "0,1,\"Binary\n\",0040405210200030,1\n1,1,Binary,12,1\n") ==
        ":4: expected 16 digits in 'puzzles', got '12'");
}

TEST_CASE("lst csv: a missing file is reported", "[lst][csv]") {
  CHECK_THROWS_WITH(read_human_puzzles("/nonexistent/human_puzzles.csv"),
                    "/nonexistent/human_puzzles.csv: cannot open file");
}
