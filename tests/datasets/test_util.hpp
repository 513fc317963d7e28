// Shared by the dataset tests: scratch folders, running the helper program, reading a dataset whole.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "datasets/generate.hpp"
#include "datasets/reader.hpp"
#include "synthetic_source.hpp"
#include "tests/support/temp_files.hpp"  // slurp

namespace loci::test {

// An empty folder under the build tree, readable by everyone (one test runs the helper as `nobody`).
std::filesystem::path fresh_dir(const std::string& name);

struct Run {
  int status = -1;  // exit status, or 128 + signal
  std::string out, err;
};
// Runs loci_test_generate with `args` and waits for it.
Run run_helper(const std::vector<std::string>& args);
// Starts it without waiting; the caller kills or waits for the returned pid.
pid_t spawn_helper(const std::vector<std::string>& args);

// Every split's every per-sample array (and sample_id), by "split/array".
std::map<std::string, std::vector<std::uint8_t>> read_everything(const datasets::Dataset& ds);

// File names in `dir` and below, relative, sorted.
std::vector<std::string> files_in(const std::filesystem::path& dir);

}  // namespace loci::test
