// A command's flags from an option table (core/config/options.hpp): one flag per declared key, `--mds-dims`
// for `mds_dims`, checked against the key's type, range and choices, with its default and doc in --help. What the
// user gave is read through the table's own reader, so a flag and its YAML key cannot drift apart.
#pragma once

#include <CLI/CLI.hpp>

#include <deque>
#include <map>
#include <memory>
#include <string>

#include "core/config/node.hpp"
#include "core/config/options.hpp"

namespace loci::apps {

class OptionFlags {
 public:
  OptionFlags(CLI::App* command, const std::deque<config::OptionSpec>& specs);

  // The keys the user set, as a mapping a table's read() takes (the others keep the struct's defaults).
  config::Node given() const;

 private:
  std::shared_ptr<std::map<std::string, std::string>> values_;
  std::map<std::string, CLI::Option*> flags_;
};

}  // namespace loci::apps
