// `loci generate` run as a user does, for the tests that then read what it wrote.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "datasets/reader.hpp"
#include "tests/support/run_command.hpp"

namespace loci::test {

// `loci generate CONFIG out=OUT [MORE]`, required to succeed (its output shown when it does not), and the dataset
// it wrote.
inline datasets::Dataset generated(const std::string& config, const std::string& out, const std::string& more = "") {
  const auto made = run_loci("generate " + config + " out=" + out + (more.empty() ? "" : " " + more));
  INFO(made.output);
  REQUIRE(made.exit_code == 0);
  return datasets::Dataset::open(out);
}

}  // namespace loci::test
