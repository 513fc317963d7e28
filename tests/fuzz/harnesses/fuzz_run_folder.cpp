// Run folders as a hostile user or a damaged disk leaves them, read the way `loci sweep status` and `loci analyze`
// read them. Each input builds a sweep folder of one or two runs in which every file loci reads or writes (config,
// metrics, summary, pe.h5, identity, train.log, the claim, analysis.json, robustness.csv, attention.h5, sweep.json,
// checkpoints/, .loci-journal/) is, as the input decides: absent, the good file, the good file cut short or with
// bytes spliced in, bytes of the input's own, a folder, a FIFO, a link to /dev/zero, a link to a file outside the
// folder, a link inside it, a dangling link, or a hard link to a file outside. The run folder itself may be a link
// out. Then the readers run. A finding (the harness aborts): an exception other than loci's one-line user and data
// errors (which the loci command would report as an internal error, exit 2), an error of more than one line, any
// change to the files outside the folder, or (libFuzzer's own) a crash, a hang or memory exhausted.
#include <fuzzer/FuzzedDataProvider.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "apps/analysis/run_folder.hpp"
#include "apps/sweep/manifest.hpp"
#include "core/error.hpp"
#include "datasets/array_file.hpp"
#include "datasets/atomic_file.hpp"
#include "datasets/error.hpp"
#include "datasets/folder_lock.hpp"

namespace fs = std::filesystem;

namespace {

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz_run_folder: %s\n", what.c_str());
  std::abort();
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A good run's files, made once: what the trainer writes.
struct Templates {
  fs::path root, outside;
  std::string config, metrics, summary, identity, log, analysis, robustness, sweep, pe, pe_record;
};

const Templates& templates() {
  static const Templates t = [] {
    Templates t;
    t.root =
        fs::path(fs::is_directory("/dev/shm") ? "/dev/shm" : "/tmp") / ("loci-fuzz-run-" + std::to_string(getpid()));
    fs::remove_all(t.root);
    t.outside = t.root / "outside";
    fs::create_directories(t.outside);
    write(t.outside / "secret.json", "{\"status\": \"finished\", \"secret\": 1}\n");
    t.config =
        "trainer: torch_trainer\ndata: d\nout: run\nseed: 0\nmodel:\n  d_model: 2\n  pe:\n    type: learned\n"
        "    placement: per_block\n    init: {name: normal, std: 0.2, a: 0.1, gain: 1.0, scale: 1.0}\n"
        "    base: 10000.0\n    coordinate_scale: 1.0\ntrain: {epochs: 10}\n";
    t.metrics =
        "{\"epoch\":10,\"step\":100,\"split\":\"human\",\"loss\":1.0,\"accuracy\":0.5}\n"
        "{\"epoch\":10,\"step\":100,\"split\":\"test\",\"loss\":1.0,\"accuracy\":0.4}\n";
    t.summary = "{\"status\": \"finished\", \"pe_draw\": 0, \"final\": {\"human\": {\"accuracy\": 0.5}}}\n";
    t.identity =
        "{\"identity\": \"abc\", \"keys\": {\"model.pe.type\": \"learned\"}, \"outside_identity\": "
        "[\"train.threads\"]}\n";
    t.log = "loci: epoch 10 step 100: | human acc 0.500\n";
    t.analysis = "{\"loci_analysis\": 10, \"options\": {}, \"inputs\": {}}\n";
    t.robustness = "split,noise_std,samples,loss,accuracy,mse\nhuman,0.1,10,1.0,0.5,\n";
    t.sweep =
        "{\"command\": \"loci\", \"points\": [{\"name\": \"a\", \"overrides\": [\"seed=0\"]}, "
        "{\"name\": \"b\", \"overrides\": [\"seed=1\"]}]}\n";
    using loci::datasets::Array;
    using loci::datasets::ArraySpec;
    const fs::path pe = t.root / "pe.h5";
    loci::datasets::write_array_file(
        pe,
        {Array::of(ArraySpec{"epoch", {}, {"evaluation"}, {1}, ""}, std::vector<std::int64_t>{10}),
         Array::of(ArraySpec{"step", {}, {"evaluation"}, {1}, ""}, std::vector<std::int64_t>{100}),
         Array::of(ArraySpec{"placement_0", {}, {"evaluation", "token", "dim"}, {1, 4, 2}, ""},
                   std::vector<float>{0, 1, 1, 0, 1, 1, 0, 0}),
         Array::of(ArraySpec{"positions", {}, {"token", "axis"}, {4, 2}, ""},
                   std::vector<float>{0, 0, 0, 1, 1, 0, 1, 1})},
        {{"pe_type", "learned"}});
    t.pe = read_all(pe);
    t.pe_record = read_all(t.root / "pe.h5.sha256");
    return t;
  }();
  return t;
}

enum Kind {
  kAbsent,
  kGood,
  kCut,
  kSpliced,
  kOwnBytes,
  kFolder,
  kFifo,
  kDevZero,
  kLinkOut,
  kLinkIn,
  kDangling,
  kHardLinkOut,
  kKinds
};

// Places `name` in `folder` as the input decides; `good` is its good contents.
void place(FuzzedDataProvider& in, const fs::path& folder, const std::string& name, const std::string& good,
           bool may_damage = true) {
  const fs::path p = folder / name;
  const Templates& t = templates();
  auto kind = static_cast<Kind>(in.ConsumeIntegralInRange<int>(0, kKinds - 1));
  if (!may_damage && (kind == kCut || kind == kSpliced || kind == kOwnBytes)) kind = kGood;
  switch (kind) {
    case kAbsent:
      break;
    case kGood:
      write(p, good);
      break;
    case kCut:
      write(p, good.substr(0, in.ConsumeIntegralInRange<std::size_t>(0, good.size())));
      break;
    case kSpliced: {
      std::string bytes = good;
      const std::size_t at = in.ConsumeIntegralInRange<std::size_t>(0, bytes.size());
      const std::size_t cut = in.ConsumeIntegralInRange<std::size_t>(0, bytes.size() - at);
      bytes.replace(at, cut, in.ConsumeRandomLengthString(64));
      write(p, bytes);
      break;
    }
    case kOwnBytes:
      write(p, in.ConsumeRandomLengthString(512));
      break;
    case kFolder:
      fs::create_directories(p);
      break;
    case kFifo:
      ::mkfifo(p.c_str(), 0644);
      break;
    case kDevZero:
      fs::create_symlink("/dev/zero", p);
      break;
    case kLinkOut:
      fs::create_symlink(t.outside / "secret.json", p);
      break;
    case kLinkIn:
      fs::create_symlink("config.yaml", p);
      break;
    case kDangling:
      fs::create_symlink(folder / "nothing-here", p);
      break;
    case kHardLinkOut: {
      std::error_code ec;
      fs::create_hard_link(t.outside / "secret.json", p, ec);
      break;
    }
    default:
      break;
  }
}

void run_folder(FuzzedDataProvider& in, const fs::path& sweep, const std::string& name) {
  const Templates& t = templates();
  const fs::path folder = sweep / name;
  if (in.ConsumeIntegralInRange(0, 15) == 0) {
    fs::create_symlink(t.outside, folder);  // the run folder itself a link out
    return;
  }
  fs::create_directories(folder);
  place(in, folder, "config.yaml", t.config);
  place(in, folder, "metrics.jsonl", t.metrics);
  place(in, folder, "summary.json", t.summary);
  // pe.h5 and attention.h5 with their checksum records (datasets/checked_file.hpp), which loci verifies before HDF5
  // opens the file: HDF5 can crash on a damaged file. A file without a record (written before records existed) is
  // trusted to be intact HDF5, so without one only the kinds that keep HDF5's bytes whole are placed.
  place(in, folder, "pe.h5.sha256", t.pe_record);
  place(in, folder, "attention.h5.sha256", t.pe_record);
  std::error_code ec;
  place(in, folder, "pe.h5", t.pe, fs::exists(folder / "pe.h5.sha256", ec));
  place(in, folder, "identity.json", t.identity);
  place(in, folder, "train.log", t.log);
  place(in, folder, ".loci-lock", "");
  place(in, folder, "analysis.json", t.analysis);
  place(in, folder, "robustness.csv", t.robustness);
  place(in, folder, "attention.h5", t.pe, fs::exists(folder / "attention.h5.sha256", ec));
  for (const char* sub : {"checkpoints", ".loci-journal"}) {
    const int k = in.ConsumeIntegralInRange(0, 3);
    if (k == 1) fs::create_directories(folder / sub);
    if (k == 2) fs::create_directory_symlink(t.outside, folder / sub);
    if (k == 3) write(folder / sub, "not a folder");
  }
}

// Runs one reader; loci's user and data errors are answers, of one line each; anything else is a finding.
template <typename F>
void expect_answer(const char* reader, F&& f) {
  try {
    f();
  } catch (const loci::UserError& e) {
    if (std::string(e.what()).find('\n') != std::string::npos)
      finding(std::string(reader) + ": a two-line error: " + e.what());
  } catch (const loci::datasets::DataError& e) {
    if (std::string(e.what()).find('\n') != std::string::npos)
      finding(std::string(reader) + ": a two-line error: " + e.what());
  } catch (const std::exception& e) {
    finding(std::string(reader) + ": an internal error: " + e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Templates& t = templates();
  FuzzedDataProvider in(data, size);
  const fs::path sweep = t.root / "sweep";
  fs::remove_all(sweep);
  fs::create_directories(sweep);
  place(in, sweep, "sweep.json", t.sweep);
  const int runs = in.ConsumeIntegralInRange(1, 2);
  for (int r = 0; r < runs; ++r) run_folder(in, sweep, r == 0 ? "a" : "b");

  expect_answer("sweep status", [&] { (void)loci::apps::sweep_status(sweep); });
  std::vector<fs::path> folders;
  expect_answer("find run folders", [&] { folders = loci::analysis::find_run_folders({sweep}); });
  for (const char* name : {"a", "b"}) {
    const fs::path folder = sweep / name;
    expect_answer("run progress", [&] { (void)loci::analysis::run_progress(folder); });
    expect_answer("load run folder", [&] { (void)loci::analysis::load_run_folder(folder); });
    expect_answer("run file", [&] { (void)loci::analysis::run_file(folder, "analysis.json"); });
    expect_answer("attention file", [&] { (void)loci::analysis::run_array_file(folder, "attention.h5"); });
    // A run folder that is itself a link is where its user put it (another disk): loci writes through it. Only
    // what is planted inside a folder must not take writes elsewhere.
    std::error_code ec;
    if (fs::is_symlink(folder, ec)) continue;
    expect_answer("claim", [&] { const loci::datasets::FolderLock claim(folder); });
    for (const char* sub : {"checkpoints", ".loci-journal"})
      expect_answer("own subfolder", [&] {
        loci::datasets::make_own_subfolder(folder / sub);
        loci::datasets::write_file_atomically(folder / sub / "probe.txt", "x");
      });
  }
  // Nothing outside the sweep folder changed: the one file there, unchanged, alone.
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(t.outside)) (void)e, ++files;
  if (files != 1 || read_all(t.outside / "secret.json") != "{\"status\": \"finished\", \"secret\": 1}\n")
    finding("a file outside the run folders was written");
  return 0;
}
