// The emitters with hostile values: `loci train -m ... --emit list|slurm` and `loci run --emit slurm`, with the
// input deciding the out folder, the config's path, the sweep's keys and values (through the real sweep parser),
// the fixed overrides, --sbatch values and the words of the invocation header. Each input either is refused with a
// one-line UserError, or gives a script that a shell reads (tests/fuzz/harnesses/shell_reading.hpp) as:
//   - no more expansions, globs or lines than the same script made from harmless values of the same shape;
//   - every command loci means to run, word for word: each value arrives as exactly one word, intact;
//   - no NUL byte.
// A value that breaks any of these makes the harness abort: a finding. Files the emitters write (sweep.json,
// train-array.sh, train.yaml) go to a folder of this process's own in /dev/shm, emptied after each input; the
// config's path stays relative to where the harness runs, as a user's would, and is only made absolute.
#include <fuzzer/FuzzedDataProvider.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "apps/invocation.hpp"
#include "apps/pipeline/emit.hpp"
#include "apps/pipeline/stage_sweep.hpp"
#include "apps/sweep/sweep.hpp"
#include "core/config/yaml_io.hpp"
#include "core/error.hpp"
#include "core/shell_words.hpp"
#include "shell_reading.hpp"

namespace fs = std::filesystem;
using loci::fuzz::op;
using loci::fuzz::read_shell;
using loci::fuzz::ShellReading;
using loci::fuzz::ShellWord;
using loci::fuzz::word;

namespace {

[[noreturn]] void finding(const std::string& what, const std::string& script) {
  std::fprintf(stderr, "fuzz_emit: %s\n--- script ---\n%s\n--- end ---\n", what.c_str(), script.c_str());
  std::abort();
}

const fs::path& scratch() {
  static const fs::path dir = [] {
    const fs::path d =
        fs::path(fs::is_directory("/dev/shm") ? "/dev/shm" : "/tmp") / ("loci-fuzz-emit-" + std::to_string(getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

const std::vector<std::string> kKeys{"seed", "model.pe.init.std", "data", "train.lr", "out"};
const std::vector<std::string> kSbatchKeys{"partition", "time", "output", "array", "requeue", "cpus-per-task"};

// What the input decides, and its harmless twin of the same shape.
struct Values {
  int format = 0;  // 0 list, 1 slurm, 2 pipeline
  std::string out, config;
  std::vector<std::string> sweep_args, fixed, sbatch, argv;
};

Values hostile(FuzzedDataProvider& in) {
  Values v;
  v.format = in.ConsumeIntegralInRange(0, 2);
  v.out = in.ConsumeRandomLengthString(48);
  v.config = "c" + in.ConsumeRandomLengthString(48);  // a file the user named: never empty
  const int axes = in.ConsumeIntegralInRange(1, 3);
  for (int a = 0; a < axes; ++a) {
    const bool own_key = in.ConsumeBool();
    const std::string key =
        own_key ? in.ConsumeRandomLengthString(16) : kKeys[in.ConsumeIntegralInRange<std::size_t>(0, kKeys.size() - 1)];
    v.sweep_args.push_back(key + "=" + in.ConsumeRandomLengthString(48));
  }
  for (int f = in.ConsumeIntegralInRange(0, 2); f > 0; --f)
    v.fixed.push_back(kKeys[in.ConsumeIntegralInRange<std::size_t>(0, kKeys.size() - 1)] + "=" +
                      in.ConsumeRandomLengthString(24));
  if (v.format != 0)
    for (int s = in.ConsumeIntegralInRange(0, 2); s > 0; --s)
      v.sbatch.push_back(kSbatchKeys[in.ConsumeIntegralInRange<std::size_t>(0, kSbatchKeys.size() - 1)] + "=" +
                         in.ConsumeRandomLengthString(24));
  v.argv = {"loci"};
  for (int w = in.ConsumeIntegralInRange(0, 4); w > 0; --w) v.argv.push_back(in.ConsumeRandomLengthString(24));
  return v;
}

// The same shape with harmless words: the sweep's points and overrides are rebuilt from the hostile sweep's shape.
struct Shape {
  std::vector<loci::apps::SweepPoint> points;
  std::vector<std::string> fixed;
};

Shape harmless(const loci::apps::Sweep& sweep) {
  Shape s;
  for (std::size_t i = 0; i < sweep.points.size(); ++i) {
    loci::apps::SweepPoint p;
    for (std::size_t j = 0; j < sweep.points[i].overrides.size(); ++j)
      p.overrides.push_back("k" + std::to_string(j) + "=v" + std::to_string(i));
    p.name = loci::apps::point_folder_name(p.overrides);
    s.points.push_back(p);
  }
  for (std::size_t f = 0; f < sweep.fixed.size(); ++f) s.fixed.push_back("f" + std::to_string(f) + "=x");
  return s;
}

void set_invocation(const std::vector<std::string>& words) {
  std::vector<std::string> copy = words;
  std::vector<char*> argv;
  for (auto& w : copy) argv.push_back(w.data());
  argv.push_back(nullptr);
  loci::apps::set_invocation(static_cast<int>(copy.size()), argv.data());
}

// The harmless invocation: as many words, and a line break where the hostile header had to be left out.
std::vector<std::string> harmless_invocation(const std::vector<std::string>& hostile_words, bool header_left_out) {
  std::vector<std::string> w{"loci"};
  for (std::size_t i = 1; i < hostile_words.size(); ++i) w.push_back("w" + std::to_string(i));
  if (header_left_out) w.push_back("a\nb");
  return w;
}

void same_shape(const ShellReading& h, const ShellReading& ref, const std::string& script) {
  if (h.unterminated) finding("a quote is left open", script);
  if (h.lines.size() != ref.lines.size()) finding("a value added lines", script);
  if (h.expansions != ref.expansions) finding("a value added an expansion ($, backtick or ~)", script);
  if (h.globs != ref.globs) finding("a value added an unquoted glob or brace", script);
  if (script.find('\0') != std::string::npos) finding("the script holds a NUL", script);
}

std::vector<ShellWord> plain_words(const std::vector<std::string>& texts) {
  std::vector<ShellWord> w;
  for (const auto& t : texts) w.push_back(word(t));
  return w;
}

// The command of point `p` in a job-array script, as the shell reads its `cmd=(...)` line.
std::vector<ShellWord> array_command(const std::string& program, const std::vector<std::string>& args) {
  std::vector<ShellWord> w{word("cmd="), op("(")};
  w.push_back(word(program));
  for (const auto& a : args) w.push_back(word(a));
  w.push_back(word("--resume"));
  w.push_back(op(")"));
  w.push_back(op(";;"));
  return w;
}

void check_list(const std::string& script, const loci::apps::SweepRequest& r,
                const std::vector<loci::apps::SweepPoint>& points) {
  const ShellReading read = read_shell(script);
  if (read.lines.size() != points.size() + 1) finding("--emit list: not one line per point", script);
  const std::string program = fs::read_symlink("/proc/self/exe").string();
  for (std::size_t i = 0; i < points.size(); ++i) {
    std::vector<ShellWord> expected{word("cd"), word(fs::current_path().string()), op("&&"), word(program)};
    for (const auto& a : loci::apps::point_arguments(r, points[i])) expected.push_back(word(a));
    expected.push_back(word("--resume"));
    if (read.lines[i] != expected) finding("--emit list: point " + std::to_string(i) + " reads back otherwise", script);
  }
}

void check_slurm(const std::string& script, const loci::apps::SweepRequest& r,
                 const std::vector<loci::apps::SweepPoint>& points) {
  const ShellReading read = read_shell(script);
  const std::string program = fs::read_symlink("/proc/self/exe").string();
  std::size_t found = 0;
  for (std::size_t l = 0; l + 1 < read.lines.size(); ++l) {
    const auto& line = read.lines[l];
    if (line.size() != 3 || !line[1].is_operator || line[1].text != ")" || line[0].is_operator) continue;
    const std::size_t i = std::strtoul(line[0].text.c_str(), nullptr, 10);
    if (line[0].text != std::to_string(i) || i >= points.size()) continue;
    if (line[2] != word("name=" + points[i].name))
      finding("slurm: point " + line[0].text + "'s name reads back otherwise", script);
    if (read.lines[l + 1] != array_command(program, loci::apps::point_arguments(r, points[i])))
      finding("slurm: point " + line[0].text + "'s command reads back otherwise", script);
    ++found;
  }
  if (found != points.size())
    finding("slurm: " + std::to_string(found) + " of " + std::to_string(points.size()) + " points found", script);
}

// The request as emit_sweep makes it: absolute config and out.
loci::apps::SweepRequest absolute(loci::apps::SweepRequest r) {
  r.config = fs::absolute(r.config).lexically_normal().string();
  r.out = fs::absolute(r.out).lexically_normal().string();
  return r;
}

// A sweep's script for the hostile values and for their harmless twin; nothing when the hostile one is refused.
void sweep_emitter(const Values& v, const loci::apps::Sweep& sweep, const std::string& out) {
  const std::string format = v.format == 0 ? "list" : "slurm";
  loci::apps::SweepRequest r;
  r.config = v.config;
  r.out = out;
  r.fixed_overrides = sweep.fixed;
  r.scheduler_options = v.sbatch;
  set_invocation(v.argv);
  const bool header_left_out = loci::apps::invocation_for_script().empty();
  std::string script;
  try {
    script = loci::apps::emit_sweep(format, r, sweep.points);
  } catch (const loci::UserError& e) {
    if (std::string(e.what()).find_first_of(std::string("\n\r\0", 3)) != std::string::npos)
      finding(std::string("a refusal of more than one line: ") + e.what(), "");
    return;
  }
  const Shape shape = harmless(sweep);
  loci::apps::SweepRequest ref = r;
  ref.config = "c.yaml";
  ref.out = (scratch() / "ref").string();
  ref.fixed_overrides = shape.fixed;
  for (std::size_t s = 0; s < r.scheduler_options.size(); ++s)
    ref.scheduler_options[s] = r.scheduler_options[s].substr(0, r.scheduler_options[s].find('=')) + "=x";
  set_invocation(harmless_invocation(v.argv, header_left_out));
  const std::string reference = loci::apps::emit_sweep(format, ref, shape.points);
  same_shape(read_shell(script), read_shell(reference), script);
  if (v.format == 0)
    check_list(script, absolute(r), sweep.points);
  else
    check_slurm(script, absolute(r), sweep.points);
}

// The pipeline `loci run --emit slurm` reads: out and a train stage whose sweep is the input's.
loci::config::Node pipeline(const std::string& out, const std::vector<std::string>& sweep_args,
                            const std::string& data) {
  YAML::Emitter e;
  e << YAML::BeginMap << YAML::Key << "out" << YAML::Value << out;
  e << YAML::Key << "train" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "trainer" << YAML::Value << "torch_trainer" << YAML::Key << "data" << YAML::Value << data;
  e << YAML::Key << "out" << YAML::Value << (out + "/runs") << YAML::Key << "jobs" << YAML::Value << 2;
  e << YAML::Key << "sweep" << YAML::Value << YAML::BeginSeq << YAML::Flow << sweep_args << YAML::EndSeq;
  e << YAML::EndMap << YAML::Key << "analyze" << YAML::Value << YAML::BeginMap << YAML::Key << "knn" << YAML::Value << 4
    << YAML::EndMap << YAML::EndMap;
  return loci::config::parse_yaml(e.c_str(), "fuzz pipeline");
}

void pipeline_emitter(const Values& v, const std::string& out) {
  loci::apps::PipelineEmit request{v.config, v.fixed, v.sbatch};
  set_invocation(v.argv);
  const bool header_left_out = loci::apps::invocation_for_script().empty();
  std::string script;
  loci::config::Node resolved;
  try {
    resolved = pipeline(out, v.sweep_args, "data");
  } catch (const std::exception&) {
    return;  // bytes YAML cannot carry: the harness's own limit, not the emitter's
  }
  try {
    script = loci::apps::emit_pipeline_slurm(resolved, request);
  } catch (const loci::UserError& e) {
    if (std::string(e.what()).find_first_of(std::string("\n\r\0", 3)) != std::string::npos)
      finding(std::string("a refusal of more than one line: ") + e.what(), "");
    return;
  }
  // The harmless twin: the same number of overrides, sweep entries and options.
  loci::apps::PipelineEmit ref{"p.yaml", {}, {}};
  for (std::size_t f = 0; f < v.fixed.size(); ++f) ref.overrides.push_back("f" + std::to_string(f) + "=x");
  for (const auto& s : v.sbatch) ref.sbatch.push_back(s.substr(0, s.find('=')) + "=x");
  const auto [stage, sweep] = loci::apps::stage_sweep(resolved.at("train"));
  std::vector<std::string> ref_args;
  for (std::size_t a = 0; a < v.sweep_args.size(); ++a) ref_args.push_back("k" + std::to_string(a) + "=1,2");
  set_invocation(harmless_invocation(v.argv, header_left_out));
  const std::string reference =
      loci::apps::emit_pipeline_slurm(pipeline((scratch() / "ref").string(), ref_args, "data"), ref);
  same_shape(read_shell(script), read_shell(reference), script);
  // The pipeline's own commands, word for word, inside its --wrap too.
  const ShellReading read = read_shell(script);
  const std::string program = fs::read_symlink("/proc/self/exe").string();
  std::vector<std::string> run{program, "run", fs::absolute(request.file).lexically_normal().string()};
  for (const auto& o : request.overrides) run.push_back(o);
  run.push_back("--stages");
  bool wrapped = false;
  for (const auto& sub : read.substitutions) {
    const auto& words = sub.lines.front();
    for (std::size_t w = 0; w + 1 < words.size(); ++w)
      if (words[w] == word("--wrap")) {
        std::vector<ShellWord> expected{word("cd"), word(fs::current_path().string()), op("&&")};
        for (const auto& t : plain_words(run)) expected.push_back(t);
        expected.push_back(word("analyze"));  // the harness's pipeline has an analyze stage and no report
        if (read_shell(words[w + 1].text).lines.front() != expected)
          finding("pipeline: --wrap reads back otherwise", script);
        wrapped = true;
      }
  }
  if (!wrapped) finding("pipeline: no --wrap of the analysis job", script);
  // The train stage's array script, where the pipeline wrote it.
  // Where the pipeline put it: out as YAML carried it (the emitter writes bytes that are not text as escapes).
  const std::string out_read = resolved.at("out").text();
  const fs::path array = fs::absolute(out_read).lexically_normal() / "train-array.sh";
  std::string text;
  if (std::FILE* f = std::fopen(array.c_str(), "rb")) {
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;) text.append(buffer, n);
    std::fclose(f);
  } else {
    finding("pipeline: no train-array.sh at " + array.string(), script);
  }
  loci::apps::SweepRequest r = loci::apps::sweep_request(stage, sweep, fs::absolute(out_read).lexically_normal());
  r.scheduler_options = request.sbatch;
  check_slurm(text, absolute(r), sweep.points);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fs::path& dir = scratch();
  FuzzedDataProvider in(data, size);
  const Values v = hostile(in);
  // The out folder stays inside this process's own folder, whatever the value ('..' parts are the only way out).
  const fs::path out = (dir / "o" / v.out).lexically_normal();
  if (out.string().rfind((dir / "o").string(), 0) != 0) return 0;
  try {
    if (v.format == 2) {
      pipeline_emitter(v, out.string());
    } else {
      loci::apps::Sweep sweep;
      try {
        sweep = loci::apps::plan_sweep(v.sweep_args);
      } catch (const loci::UserError& e) {
        if (std::string(e.what()).find_first_of(std::string("\n\r\0", 3)) != std::string::npos)
          finding(std::string("a refusal of more than one line: ") + e.what(), "");
        return 0;
      }
      for (const auto& f : v.fixed) sweep.fixed.push_back(f);
      if (!sweep.points.empty()) sweep_emitter(v, sweep, out.string());
    }
  } catch (const loci::UserError&) {
    // Refusals of the harmless twin's own shape (the hostile one passed): not a finding of injection.
  }
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) fs::remove_all(e.path(), ec);
  return 0;
}
