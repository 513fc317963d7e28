// `loci run` of the quickstart pipeline on a tiny dataset gives a report page that a browser renders without a
// console error, with every figure inline and on disk.
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../cli/run_command.hpp"
#include "../config/temp_files.hpp"

namespace fs = std::filesystem;

namespace {

std::string capture(const std::string& cmd) {
  std::string out;
  FILE* pipe = popen((cmd + " 2>&1").c_str(), "r");
  if (!pipe) return out;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), pipe)) out += buf.data();
  pclose(pipe);
  return out;
}

// Chromium prints each console message as "...:CONSOLE:<line>] "<message>", source: ...".
struct Rendered {
  std::string dom;
  std::vector<std::string> console;
};

Rendered render(const fs::path& page) {
  const std::string out = capture("timeout 120 chromium --headless --no-sandbox --disable-gpu --enable-logging=stderr "
                                  "--v=0 --dump-dom file://" + page.string());
  Rendered r;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);)
    (line.find(":CONSOLE") != std::string::npos ? r.console.push_back(line) : void(r.dom += line + "\n"));
  return r;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("The console check catches a page with a script error") {
  loci::test::TempDir dir;
  const auto page = dir.write("bad.html", "<html><body><script>console.error('boom'); missing();</script></body></html>");
  const Rendered r = render(page);
  CHECK(r.console.size() == 2);
}

TEST_CASE("The quickstart pipeline's report renders in Chromium with every figure and no console error") {
  loci::test::TempDir dir;
  const fs::path out = dir.path() / "qs";
  const auto run = loci::test::run_loci(
      "run -q " + std::string(LOCI_SOURCE_DIR) + "/configs/quickstart.yaml out=" + out.string() +
      " generate.out=" + (out / "data").string() + " train.data=" + (out / "data").string() +
      " train.out=" + (out / "runs").string() + " analyze.out=" + (out / "analysis").string() +
      " report.out=" + (out / "report").string() +
      " generate.splits.train=160 generate.splits.test=32 train.train.epochs=2 train.train.eval_every=1");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  for (const char* f : {"summary.csv", "summary.md", "runs.csv"}) CHECK(fs::exists(out / "analysis" / f));
  const fs::path page = out / "report" / "report.html";
  REQUIRE(fs::exists(page));
  const char* figures[] = {"task_vs_sigma", "probes_vs_sigma", "pe_similarity", "pe_mds", "learning_curves"};
  for (const char* f : figures) {
    INFO(f);
    CHECK(fs::file_size(out / "report" / "figures" / (std::string(f) + ".svg")) > 1000);
    CHECK(fs::file_size(out / "report" / "figures" / (std::string(f) + ".png")) > 1000);
  }
  const Rendered r = render(page);
  for (const auto& line : r.console) UNSCOPED_INFO(line);
  CHECK(r.console.empty());
  CHECK(r.dom.find("<h1>loci report</h1>") != std::string::npos);
  CHECK(count(r.dom, "<svg") >= 5);  // figures inline: the page stands alone
  CHECK(r.dom.find("learned normal(0.2)") != std::string::npos);
  CHECK(r.dom.find("learned normal(2)") != std::string::npos);
}
