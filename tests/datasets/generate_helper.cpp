// loci_test_generate: runs generate_dataset on the synthetic source, for tests that need a separate process (to
// kill it half-way, to drop privileges, to cap the file size) and for the Python interop fixture.
//   loci_test_generate OUT [--train N] [--test N] [--per-shard N (10)] [--chunk N] [--threads N] [--delay-us N]
//                          [--seed N] [--created TEXT] [--resume] [--force] [--no-gzip] [--label-i64]
//                          [--fsize-limit BYTES] [--as-nobody] [--progress]
// Prints "written=W kept=K samples=S complete=C" on success; a DataError's message on stderr and exit status 2.
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>

#include "datasets/error.hpp"
#include "datasets/generate.hpp"
#include "synthetic_source.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: loci_test_generate OUT [options]\n");
    return 64;
  }
  loci::datasets::GenerateOptions o = loci::test::small_options(argv[1]);
  loci::test::SyntheticOptions so;
  std::int64_t train = 40, test = 13;
  long long fsize = 0;
  bool nobody = false;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(64);
      }
      return argv[++i];
    };
    if (a == "--train")
      train = std::stoll(value());
    else if (a == "--test")
      test = std::stoll(value());
    else if (a == "--per-shard")
      o.samples_per_shard = std::stoll(value());
    else if (a == "--chunk")
      o.chunk_samples = std::stoll(value());
    else if (a == "--threads")
      o.threads = std::stoi(value());
    else if (a == "--delay-us")
      so.delay_us = std::stoi(value());
    else if (a == "--seed")
      o.seed = std::stoull(value());
    else if (a == "--created")
      o.created = value();
    else if (a == "--resume")
      o.resume = true;
    else if (a == "--force")
      o.force = true;
    else if (a == "--no-gzip")
      o.compression.gzip = false;
    else if (a == "--label-i64")
      so.label_i64 = true;
    else if (a == "--fsize-limit")
      fsize = std::stoll(value());
    else if (a == "--as-nobody")
      nobody = true;
    else if (a == "--progress")
      o.progress = true;
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 64;
    }
  }
  o.splits = {{"train", train}, {"test", test}};
  if (nobody && ::getuid() == 0) {
    // Root writes anywhere, so an unwritable folder can only be shown by a user who is not root.
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) {
      std::perror("setuid");
      return 65;
    }
  }
  if (fsize > 0) {
    // Past the limit write() fails with EFBIG, as it fails with ENOSPC on a full disk, once SIGXFSZ is ignored.
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit r{static_cast<rlim_t>(fsize), static_cast<rlim_t>(fsize)};
    ::setrlimit(RLIMIT_FSIZE, &r);
  }
  try {
    const loci::test::SyntheticSource source(so);
    const auto report = loci::datasets::generate_dataset(source, o);
    std::printf("written=%lld kept=%lld samples=%lld complete=%d\n", static_cast<long long>(report.shards_written),
                static_cast<long long>(report.shards_kept), static_cast<long long>(report.samples_written),
                report.complete ? 1 : 0);
    return 0;
  } catch (const loci::datasets::DataError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
