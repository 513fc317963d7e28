// Hostile and unlucky configs: each is a one-line error naming where, never a crash, a hang or a memory blow-up.
// Run through the `loci` command under a time and memory limit, as a user would meet them.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

using loci::test::run_loci;

namespace {

// At most 20 s and 2 GB of address space: a recursion, a bomb or an endless read fails the test instead of the machine.
loci::test::CommandResult bounded(const std::string& args) { return run_loci(args, "ulimit -v 2000000; timeout 20"); }

void one_line_error(const loci::test::CommandResult& r, const std::string& part) {
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(r.output.rfind("loci: error: ", 0) == 0);
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  CHECK(r.output.find(part) != std::string::npos);
}

}  // namespace

TEST_CASE("a self-referencing YAML alias is refused, in a file and in an override") {
  loci::test::TempDir dir;
  one_line_error(bounded("config show " + dir.write("a.yaml", "top: &top\n  self: *top\n")), "a recursive alias");
  one_line_error(bounded("config show " + dir.write("b.yaml", "&top\nself: *top\ngenerator: lst_grid\n")),
                 "a recursive alias");
  const std::string cfg = std::string(LOCI_SOURCE_DIR) + "/configs/lst.yaml";
  one_line_error(bounded("generate " + cfg + " out=" + (dir.path() / "d").string() + " 'lst.exclude=&a [*a]'"),
                 "a recursive alias");
}

TEST_CASE("an alias bomb is refused before it expands") {
  loci::test::TempDir dir;
  std::string text = "generator: lst_grid\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int i = 1; i < 9; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 9; ++k) text += std::string(k ? ", " : "") + "*a" + std::to_string(i - 1);
    text += "]\n";
  }
  one_line_error(bounded("config show " + dir.write("bomb.yaml", text)), "expands to more than");
}

TEST_CASE("includes must be regular files of a sensible size") {
  loci::test::TempDir dir;
  one_line_error(bounded("config show " + dir.write("dir.yaml", "include: " + dir.path().string() + "\n")),
                 "is not a regular file");
  one_line_error(bounded("config show " + dir.write("zero.yaml", "include: /dev/zero\n")), "is not a regular file");
  one_line_error(bounded("config show " + dir.write("mem.yaml", "include: /proc/self/mem\n")),
                 "cannot read /proc/self/mem");
  // A FIFO would block a reader forever.
  const std::string fifo = (dir.path() / "fifo").string();
  REQUIRE(std::system(("mkfifo " + fifo).c_str()) == 0);
  one_line_error(bounded("config show " + dir.write("fifo.yaml", "include: " + fifo + "\n")), "is not a regular file");
  // A 1 MB include path and a 1 MB value: named, and cut to a readable length.
  const std::string long_path(1 << 20, 'x');
  const auto r = bounded("config show " + dir.write("long.yaml", "include: " + long_path + "\n"));
  one_line_error(r, "characters)");
  CHECK(r.output.size() < 1000);
  const auto v =
      bounded("config show " +
              dir.write("value.yaml", "generator: lst_grid\nout: x\nseed: " + std::string(1 << 20, '7') + "x\n"));
  one_line_error(v, "characters)");
  CHECK(v.output.size() < 1000);
}
