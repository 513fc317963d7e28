// provenance.json says how a run was made in a form a researcher can act on: the command pastes back into a shell
// and does the same thing, a sweep's run names the sweep's command too, and the CPU is named past its marketing name.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/plugins/torch_trainer/trainer_fixture.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

using loci::test::run_loci;
using loci::test::slurp;
namespace fs = std::filesystem;

namespace {

std::size_t occurrences(const std::string& text, const std::string& word) {
  std::size_t n = 0;
  for (auto p = text.find(word); p != std::string::npos; p = text.find(word, p + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("a sweep's run records a command that pastes back, and the sweep's own command") {
  loci::test::TempDir dir;
  const std::string cfg = loci::test::train_config(dir);
  const fs::path sweep = dir.path() / "sweep";
  const auto r = run_loci("train -q " + cfg + " -m seed=0,1 'train.lr=1e-3' out=" + sweep.string() + " jobs=2");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  fs::path run;
  for (const auto& e : fs::directory_iterator(sweep))
    if (fs::exists(e.path() / "provenance.json")) run = e.path();
  REQUIRE(!run.empty());
  const auto prov = nlohmann::json::parse(slurp(run / "provenance.json")).back();  // one entry per session of the run
  const std::string command = prov.at("command");
  INFO(command);
  // The program is this loci by its own path (not /proc/self/exe), and out= is given once: the run's folder.
  const fs::path program = command.substr(0, command.find(' '));
  CHECK(program.is_absolute());
  CHECK(fs::exists(program));
  CHECK(occurrences(command, "out=") == 1);
  CHECK(command.find("out=" + run.string()) != std::string::npos);
  const std::string parent = prov.at("sweep_command");
  CHECK(parent.find(" -m seed=0,1 ") != std::string::npos);
  CHECK(parent.find("out=" + sweep.string()) != std::string::npos);
  CHECK(std::string(prov.at("cpu_id")).find(" family ") != std::string::npos);
  CHECK(prov.contains("cpu_microarchitecture"));
  // Pasted into a shell, the command is the same run: finished, so there is nothing to do, and nothing changes.
  const auto before = slurp(run / "pe.h5");
  CHECK(std::system((command + " -q > /dev/null 2>&1").c_str()) == 0);
  CHECK(slurp(run / "pe.h5") == before);
}

TEST_CASE("an fp32 run's summary does not claim bf16 products") {
  loci::test::TempDir dir;
  const auto r = run_loci("train -q " + loci::test::train_config(dir) + " train.epochs=1 train.eval_every=1");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto summary = nlohmann::json::parse(slurp(dir.path() / "run" / "summary.json"));
  CHECK(summary.at("onednn").at("bf16_products") == "none (fp32 run)");
  CHECK(std::string(summary.at("onednn").at("why")).rfind("this fp32 run has no bf16 products", 0) == 0);
}
