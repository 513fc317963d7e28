// Each `loci` subcommand registers itself on the CLI11 app; its callback does the work and throws UserError /
// DataError for problems the user can fix (main prints them as one line and exits 1).
#pragma once

#include <CLI/CLI.hpp>

namespace loci::apps {

void add_generate_command(CLI::App& app);
void add_train_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_analyze_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_inspect_command(CLI::App& app);
void add_plugins_command(CLI::App& app);
void add_config_command(CLI::App& app);
void add_sweep_command(CLI::App& app);
void add_intervene_command(CLI::App& app);
void add_export_command(CLI::App& app);

}  // namespace loci::apps
