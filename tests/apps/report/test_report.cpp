// `loci run` of the quickstart pipeline on a tiny dataset gives a report page that a browser renders without a
// console error, with every figure inline and on disk, a chance line, the page's opening sentences and plain tick
// labels; a hand-written masked-regression analysis gives a page in MSE without a chance line.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "tests/support/processes.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

namespace fs = std::filesystem;
using loci::test::children_of;
using loci::test::has_ended;

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
  const std::string out = capture(
      "timeout 120 chromium --headless --no-sandbox --disable-gpu --enable-logging=stderr "
      "--v=0 --dump-dom file://" +
      page.string());
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

// Matplotlib draws text as paths (svg.fonttype: path) and writes each string it draws as an XML comment before
// the glyphs: the texts of a figure are its comments.
std::vector<std::string> svg_texts(const std::string& svg) {
  std::vector<std::string> texts;
  for (auto p = svg.find("<!--"); p != std::string::npos; p = svg.find("<!--", p + 4)) {
    const auto end = svg.find("-->", p + 4);
    if (end == std::string::npos) break;
    std::string t = svg.substr(p + 4, end - p - 4);
    const auto first = t.find_first_not_of(' '), last = t.find_last_not_of(' ');
    texts.push_back(first == std::string::npos ? "" : t.substr(first, last - first + 1));
  }
  return texts;
}

// A tick label in matplotlib's offset or scientific form ("1e−5+7.718e−1", "+7.7e−1", "1e−5"): a number-like text
// (digits, '.', 'e', signs, U+2212 minus) with an exponent or a '+'. Plain labels ("0.25", "−0.1", "2") pass.
bool offset_notation(const std::string& text) {
  const std::string minus = "\xE2\x88\x92";
  bool marked = false, digit = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (text.compare(i, minus.size(), minus) == 0) {
      i += minus.size() - 1;
    } else if (c >= '0' && c <= '9') {
      digit = true;
    } else if (c == 'e' || c == '+') {
      marked = true;
    } else if (c != '.' && c != '-') {
      return false;
    }
  }
  return digit && marked;
}

// Every figure's texts in offset notation, as "figure: text".
std::vector<std::string> offset_labels(const fs::path& figures) {
  std::vector<std::string> found;
  for (const auto& f : fs::directory_iterator(figures))
    if (f.path().extension() == ".svg")
      for (const auto& t : svg_texts(loci::test::slurp(f.path())))
        if (offset_notation(t)) found.push_back(f.path().filename().string() + ": " + t);
  return found;
}

bool has_text(const fs::path& svg, const std::string& text) {
  const auto texts = svg_texts(loci::test::slurp(svg));
  return std::find(texts.begin(), texts.end(), text) != texts.end();
}

}  // namespace

TEST_CASE("The offset check tells matplotlib's offset and scientific tick labels from plain ones") {
  for (const char* bad : {"1e\xE2\x88\x92"
                          "5+7.718e\xE2\x88\x92"
                          "1",
                          "+2.5e1", "1e-5", "+7.7"}) {
    INFO(bad);
    CHECK(offset_notation(bad));
  }
  for (const char* good :
       {"0.25",
        "\xE2\x88\x92"
        "0.100",
        "2", "25", "chance", "learned normal(0.2)", "1,0", "init scale \xCF\x83", "$\\mathdefault{10^{0}}$"}) {
    INFO(good);
    CHECK_FALSE(offset_notation(good));
  }
  const auto texts = svg_texts("<svg><!-- 0.25 --><g/><!-- chance --></svg>");
  CHECK(texts == std::vector<std::string>{"0.25", "chance"});
}

TEST_CASE("The console check catches a page with a script error") {
  loci::test::TempDir dir;
  const auto page =
      dir.write("bad.html", "<html><body><script>console.error('boom'); missing();</script></body></html>");
  const Rendered r = render(page);
  CHECK(r.console.size() == 2);
}

TEST_CASE("The quickstart pipeline's report renders in Chromium with every figure and no console error") {
  loci::test::TempDir dir;
  const fs::path out = dir.path() / "qs";
  const auto run = loci::test::run_loci(
      "run -q " + std::string(LOCI_SOURCE_DIR) + "/configs/quickstart.yaml out=" + out.string() + " generate.out=" +
      (out / "data").string() + " train.data=" + (out / "data").string() + " train.out=" + (out / "runs").string() +
      " analyze.out=" + (out / "analysis").string() + " report.out=" + (out / "report").string() +
      " generate.splits.train=160 generate.splits.test=32 train.train.epochs=2 train.train.eval_every=1");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  for (const char* f : {"summary.csv", "summary.md", "runs.csv"}) CHECK(fs::exists(out / "analysis" / f));
  const fs::path page = out / "report" / "report.html";
  REQUIRE(fs::exists(page));
  const char* figures[] = {"task_vs_sigma",   "probes_vs_sigma",      "pe_similarity", "pe_mds",
                           "learning_curves", "probes_over_training", "robustness",    "accuracy_by_condition"};
  for (const char* f : figures) {
    INFO(f);
    CHECK(fs::file_size(out / "report" / "figures" / (std::string(f) + ".svg")) > 1000);
    CHECK(fs::file_size(out / "report" / "figures" / (std::string(f) + ".png")) > 1000);
  }
  const Rendered r = render(page);
  for (const auto& line : r.console) UNSCOPED_INFO(line);
  CHECK(r.console.empty());
  CHECK(r.dom.find("<h1>loci report</h1>") != std::string::npos);
  CHECK(count(r.dom, "<svg") >= 7);  // figures inline: the page stands alone
  CHECK(r.dom.find("id=\"robustness\"") != std::string::npos);
  CHECK(r.dom.find("id=\"probes_over_training\"") != std::string::npos);
  CHECK(r.dom.find("learned normal(0.2)") != std::string::npos);
  CHECK(r.dom.find("learned normal(2)") != std::string::npos);
  // The opening says what the page shows and what the paper found; accuracy is in % against 25% chance (4 classes).
  CHECK(r.dom.find("This page compares transformers trained on the 4×4 Latin Square Task") != std::string::npos);
  CHECK(r.dom.find("generalise to the 108 human puzzles") != std::string::npos);
  CHECK(r.dom.find("Accuracies in %") != std::string::npos);
  CHECK(r.dom.find("Dashed grey line: chance (25%, one class in 4)") != std::string::npos);
  // Captions say only what their figure draws: no fixed PE here, so no dash-dotted levels; the runs are named where
  // they are, not where the analysis went; the probes' axes are named, and disparity is told apart from residual.
  CHECK(r.dom.find("Dash-dotted") == std::string::npos);
  CHECK(r.dom.find("runs in <code>" + (out / "runs").string() + "</code>") != std::string::npos);
  CHECK(r.dom.find("scale-free Procrustes disparity") != std::string::npos);
  CHECK(r.dom.find("rsa fc spearman") == std::string::npos);  // no functional connectivity on the LST grid
  CHECK(has_text(out / "report" / "figures" / "probes_vs_sigma.svg", "Procrustes disparity (0 = same shape)"));
  CHECK(has_text(out / "report" / "figures" / "probes_vs_sigma.svg", "R² of decoded coordinates"));
  CHECK(!has_text(out / "report" / "figures" / "probes_vs_sigma.svg", "value"));
  // The reading: each group's accuracy against chance, each drawn PE's RSA and its attention term's beside epoch 0,
  // with the permutation p printed; two epochs move neither shape, so each kept the shape it started with.
  CHECK(r.dom.find("What these runs found") != std::string::npos);
  CHECK(r.dom.find("Chance is 25%") != std::string::npos);
  CHECK(count(r.dom, "permutation p") >= 4);  // the PE and its attention term, both groups
  CHECK(r.dom.find("learned normal(0.2): the PE's RSA") != std::string::npos);
  CHECK(r.dom.find("its attention's position term") != std::string::npos);
  CHECK(r.dom.find("took the shape of the positions") == std::string::npos);
  // One seed and 2 epochs: sigma 0.2 and 2 are still one draw rescaled, and the captions say so.
  CHECK(r.dom.find("the normal inits of different σ are the same draw rescaled") != std::string::npos);
  for (const char* f : {"task_vs_sigma", "learning_curves"}) {
    INFO(f);
    const fs::path svg = out / "report" / "figures" / (std::string(f) + ".svg");
    CHECK(has_text(svg, "chance"));
    CHECK(has_text(svg, "accuracy (%)"));
  }
  const auto offsets = offset_labels(out / "report" / "figures");
  for (const auto& t : offsets) UNSCOPED_INFO(t);
  CHECK(offsets.empty());

  // The report reads only what loci analyze wrote: analysis.json names the generator and the resolved class count,
  // so a page drawn after the runs' configs and the dataset are gone still knows the task and its chance.
  bool any_analysis = false;
  for (const auto& e : fs::recursive_directory_iterator(out / "runs")) {
    if (e.path().filename() == "config.yaml") fs::remove(e.path());
    if (e.path().filename() != "analysis.json") continue;
    any_analysis = true;
    std::ifstream in(e.path());
    const auto analysis = nlohmann::json::parse(in);
    CHECK(analysis.at("dataset").at("generator") == "lst_grid");
    CHECK(analysis.at("task").at("type") == "classification");
    CHECK(analysis.at("task").at("classes") == 4);
  }
  CHECK(any_analysis);
  fs::remove_all(out / "data");
  fs::remove_all(out / "report");
  const auto again =
      loci::test::run_loci("report " + (out / "analysis").string() + " --out " + (out / "report").string());
  INFO(again.output);
  REQUIRE(again.exit_code == 0);
  const Rendered redrawn = render(out / "report" / "report.html");
  CHECK(redrawn.dom.find("the 4×4 Latin Square Task") != std::string::npos);
  CHECK(redrawn.dom.find("Chance is 25%") != std::string::npos);
}

namespace {

// An analysis as `loci analyze` writes it (apps/analysis/summary.cpp, analyze_run.cpp) of two masked-regression
// runs of learned PEs, seed 0, sigma 0.2 and 2: the same draw rescaled, MSEs that differ in the 5th digit.
void write_regression_analysis(const loci::test::TempDir& dir) {
  const std::vector<std::string> columns = {"test_mse",
                                            "train_mse",
                                            "test_loss",
                                            "train_loss",
                                            "rsa_spearman",
                                            "rsa_hops_spearman",
                                            "procrustes_oracle_disparity",
                                            "procrustes_coords_disparity",
                                            "decode_r2",
                                            "knn_overlap",
                                            "modularity",
                                            "norm_frobenius",
                                            "attention_cosine"};
  std::string runs = "folder,group,pe_type,placement,init,sigma,seed",
              summary = "group,pe_type,placement,init,sigma,runs,seeds";
  for (const auto& c : columns) runs += "," + c, summary += "," + c + "_mean," + c + "_sd";
  runs += "\n";
  summary += "\n";
  const double emb[5][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {2, 1.5}};
  for (int k = 0; k < 2; ++k) {
    const double scale = k == 0 ? 0.2 : 2.0;
    const std::string sigma = k == 0 ? "0.2" : "2", init = "normal(" + sigma + ")", group = "learned " + init;
    const std::string mse = k == 0 ? "0.77181" : "0.77182";
    const fs::path folder = dir.path() / "runs" / ("r" + std::to_string(k));
    std::ostringstream mds, curves;
    for (int i = 0; i < 5; ++i) mds << (i ? "," : "") << "[" << emb[i][0] * scale << "," << emb[i][1] * scale << "]";
    bool first = true;
    for (int e = 0; e < 3; ++e)
      for (const char* split : {"test", "train"}) {
        curves << (first ? "" : ",") << R"j({"epoch":)j" << e << R"j(,"step":)j" << 4 * e << R"j(,"split":")j" << split
               << R"j(","loss":0.7718,"mse":0.7718)j" << e << "}";
        first = false;
      }
    dir.write("runs/r" + std::to_string(k) + "/analysis.json",
              R"j({"loci_analysis":1,"run":{"folder":")j" + folder.string() + R"j(","group":")j" + group +
                  R"j(","pe_type":"learned","placement":"per_block","init":")j" + init + R"j(","sigma":)j" + sigma +
                  R"j(,"drawn":true,"seed":0},"metrics":{"test":{"loss":0.7718,"mse":)j" + mse +
                  R"j(},"train":{"loss":0.7718,"mse":)j" + mse + R"j(}},"curves":[)j" + curves.str() +
                  R"j(],"tokens":5,"positions":[[0,0,0],[10,0,0],[0,10,0],[10,10,0],[20,15,5]],)j"
                  R"j("true_distance":[[0,1,1,1.4,2.5],[1,0,1.4,1,1.8],[1,1.4,0,1,2],[1.4,1,1,0,1.1],)j"
                  R"j([2.5,1.8,2,1.1,0]],"final":{"rsa_spearman":0.9712,"procrustes_oracle_disparity":0.1234,)j"
                  R"j("decode_r2":0.5},"final_mds":[)j" +
                  mds.str() +
                  R"j(],"final_similarity":[[1,0.5,0.5,0,-0.5],[0.5,1,0,0.5,-0.2],[0.5,0,1,0.5,-0.1],)j"
                  R"j([0,0.5,0.5,1,0.3],[-0.5,-0.2,-0.1,0.3,1]]})j");
    const std::vector<std::string> values = {mse, mse,   "0.7718", "0.7718", "0.9712", "", "0.1234",
                                             "",  "0.5", "",       "",       "",       ""};
    runs += folder.string() + "," + group + ",learned,per_block," + init + "," + sigma + ",0";
    summary += group + ",learned,per_block," + init + "," + sigma + ",1,0";
    for (const auto& v : values) runs += "," + v, summary += "," + v + "," + (v.empty() ? "" : "0");
    runs += "\n";
    summary += "\n";
  }
  dir.write("analysis/runs.csv", runs);
  dir.write("analysis/summary.csv", summary);
}

}  // namespace

TEST_CASE("A masked-regression analysis gives a report in MSE, without a chance line, with plain tick labels") {
  loci::test::TempDir dir;
  write_regression_analysis(dir);
  const fs::path out = dir.path() / "report";
  const auto run = loci::test::run_loci("report " + (dir.path() / "analysis").string() + " -o " + out.string());
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const std::string page = loci::test::slurp(out / "report.html");
  CHECK(page.find("trained on masked-token regression") != std::string::npos);
  CHECK(page.find("lower held-out MSE") != std::string::npos);
  CHECK(page.find("108 human puzzles") == std::string::npos);
  CHECK(page.find("Accuracies in %") == std::string::npos);
  CHECK(page.find("chance") == std::string::npos);
  CHECK(page.find("A negative R²") == std::string::npos);  // every decoding R² here is 0.5
  // One seed: the two inits are one draw rescaled, and the MDS caption says why the two panels coincide.
  CHECK(page.find("the same draw rescaled") != std::string::npos);
  CHECK(has_text(out / "figures" / "task_vs_sigma.svg", "MSE"));
  const auto offsets = offset_labels(out / "figures");
  for (const auto& t : offsets) UNSCOPED_INFO(t);
  CHECK(offsets.empty());
}

TEST_CASE("A loci report killed outright takes its Python script with it") {
  loci::test::TempDir dir;
  write_regression_analysis(dir);
  const std::string analysis = (dir.path() / "analysis").string(), out = (dir.path() / "report").string();
  const pid_t loci = fork();
  if (loci == 0) {
    execl(LOCI_BIN, LOCI_BIN, "report", analysis.c_str(), "-o", out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  std::vector<pid_t> script;
  for (int i = 0; i < 500 && script.empty(); ++i) {
    script = children_of(loci);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(script.size() == 1);
  kill(loci, SIGKILL);
  waitpid(loci, nullptr, 0);
  bool gone = false;
  for (int i = 0; i < 50 && !gone; ++i) {
    gone = has_ended(script[0]);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(gone);  // within half a second: the script alone takes longer than that just to import matplotlib
}

TEST_CASE("A sigma sweep's report draws what the paper draws: Procrustes against accuracy, attention maps, classes") {
  // Three init scales x two seeds and a 2d-fixed run, with attention maps and the robustness test, a few epochs.
  loci::test::TempDir dir;
  const auto data = dir.path() / "data";
  REQUIRE(loci::test::run_loci("generate -q " + std::string(LOCI_SOURCE_DIR) + "/configs/lst.yaml out=" +
                               data.string() + " splits.train=96 splits.test=24 samples_per_shard=64")
              .exit_code == 0);
  const auto cfg = dir.write("t.yaml", "trainer: torch_trainer\ndata: " + data.string() +
                                           "\nout: x\n"
                                           "model: {d_model: 16, blocks: 2}\n"
                                           "train: {epochs: 2, eval_every: 1, batch_size: 32, threads: 1, lr: 0.001, "
                                           "progress: false, save_attention: true, robustness_noise: [0, 1]}\n");
  const fs::path sweep = dir.path() / "sweep";
  REQUIRE(loci::test::run_loci("train -q " + cfg + " -m model.pe.init.std=0.1,0.5,2.0 seed=0,1 out=" + sweep.string())
              .exit_code == 0);
  REQUIRE(loci::test::run_loci("train -q " + cfg + " model.pe.type=sinusoidal_2d out=" + (sweep / "fixed").string())
              .exit_code == 0);
  REQUIRE(loci::test::run_loci("analyze -q " + sweep.string()).exit_code == 0);
  const auto r = loci::test::run_loci("report " + sweep.string() + " -o " + (dir.path() / "report").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  for (const char* f : {"procrustes_vs_accuracy", "attention_maps", "accuracy_by_condition", "robustness",
                        "probes_over_training", "displacement_account"}) {
    INFO(f);
    CHECK(fs::file_size(dir.path() / "report" / "figures" / (std::string(f) + ".svg")) > 1000);
  }
  const Rendered page = render(dir.path() / "report" / "report.html");
  for (const auto& line : page.console) UNSCOPED_INFO(line);
  CHECK(page.console.empty());
  CHECK(page.dom.find("id=\"procrustes_vs_accuracy\"") != std::string::npos);
  CHECK(page.dom.find("id=\"attention_maps\"") != std::string::npos);
  CHECK(page.dom.find("id=\"displacement_account\"") != std::string::npos);
  // Experiment 1's table as a figure, the authors' released values marked on the rows they released (learned 0.5 and
  // 2.0 here, and 2d-fixed).
  CHECK(page.dom.find("id=\"table_vs_authors\"") != std::string::npos);
  CHECK(page.dom.find("Marked: learned normal(0.1), learned normal(0.5), learned normal(2)") != std::string::npos);
  CHECK(offset_labels(dir.path() / "report" / "figures").empty());
  // The correlations across sigma come as a table for pandas too.
  CHECK(fs::exists(sweep / "correlations.csv"));
}

TEST_CASE(
    "The report shows every comparison's interval, test and Holm p, each trend, and each correlation beside its "
    "control") {
  loci::test::TempDir dir;
  write_regression_analysis(dir);
  // As apps/analysis/statistics.cpp writes them (its tests check the numbers against scipy).
  dir.write("analysis/comparisons.csv",
            "metric,group_a,group_b,design,n_a,n_b,mean_a,mean_b,difference,ci_low,ci_high,effect_size,test,p_value,"
            "p_holm,family\ntest_mse,learned normal(0.2),learned normal(2),paired,5,5,0.5,0.7,0.2,0.1,0.3,2.5,exact "
            "sign-flip,0.0625,0.125,2\n");
  dir.write("analysis/correlations.csv",
            "statistic,against,control_of,runs,spearman,ci_low,ci_high,p_value,exact,p_holm,family,reading\n"
            "procrustes_oracle_residual,test_mse,,10,0.9,0.7,0.97,0.001,false,0.004,4,explained by the PE's scale: "
            "init_procrustes_oracle_residual correlates alike\n"
            "init_procrustes_oracle_residual,test_mse,procrustes_oracle_residual,10,0.88,0.6,0.95,0.002,false,,0,\n");
  dir.write("analysis/trends.csv",
            "setting,family,metric,runs,numbers,spearman,ci_low,ci_high,test,p_value,p_holm,family_size,reading\n"
            "model.pe.init.std,all runs,test_mse,20,4,-0.56,-0.78,-0.27,Monte Carlo permutation (10000),0.0004,"
            "0.0008,3,falls with model.pe.init.std\n");
  dir.write("analysis/onsets.csv",
            "statistic,group,epoch,at_risk,onsets,censored,fraction_with_onset,ci_low,ci_high\n"
            "rsa,learned normal(0.2),100,5,2,0,0.4,0.1,0.8\nrsa,learned normal(0.2),200,3,0,3,0.4,"
            "0.1,0.8\n");
  const fs::path out = dir.path() / "report";
  const auto run = loci::test::run_loci("report " + (dir.path() / "analysis").string() + " -o " + out.string());
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const std::string page = loci::test::slurp(out / "report.html");
  CHECK(page.find("<h2>Comparisons between groups</h2>") != std::string::npos);
  CHECK(page.find("<td>0.200 [0.100, 0.300]</td>") != std::string::npos);
  CHECK(page.find("exact sign-flip, 5 pairs") != std::string::npos);
  CHECK(page.find("<td>0.12</td>") != std::string::npos);  // the Holm p
  CHECK(page.find("<h2>Trends along a swept number</h2>") != std::string::npos);
  CHECK(page.find("<td>-0.560 [-0.780, -0.270]</td>") != std::string::npos);
  CHECK(page.find("<td>falls with model.pe.init.std</td>") != std::string::npos);
  CHECK(page.find("↳ init_procrustes_oracle_residual") != std::string::npos);
  CHECK(page.find("explained by the PE&#x27;s scale") != std::string::npos);
  CHECK(page.find("<td>rsa</td><td>learned normal(0.2)</td><td>5</td><td>2</td><td>0.40 [0.10, 0.80]</td>") !=
        std::string::npos);
}

TEST_CASE("A report whose figures/ is a symbolic link is refused, and no figure lands outside") {
  loci::test::TempDir dir;
  write_regression_analysis(dir);
  const fs::path out = dir.path() / "report", elsewhere = dir.path() / "elsewhere";
  fs::create_directories(out);
  fs::create_directories(elsewhere);
  fs::create_directory_symlink(elsewhere, out / "figures");
  const auto run = loci::test::run_loci("report " + (dir.path() / "analysis").string() + " -o " + out.string());
  CHECK(run.exit_code == 1);
  CHECK_THAT(run.output, Catch::Contains((out / "figures").string() + ": is a symbolic link"));
  CHECK(fs::is_empty(elsewhere));
}
