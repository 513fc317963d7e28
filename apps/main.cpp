// `loci`: parses the command line, loads plugins and calls the libraries. Every problem the user can fix is one
// line on stderr, `loci: error: ...`, and exit code 1; anything unexpected is exit code 2.
#include <CLI/CLI.hpp>
#include <algorithm>

#include <cstdio>
#include <iostream>
#include <string>

#include "apps/commands.hpp"
#include "apps/invocation.hpp"
#include "core/config/schema.hpp"
#include "core/error.hpp"
#include "core/pause_request.hpp"
#include "core/printable.hpp"
#include "core/version.hpp"
#include "cpu/blas_kernel.hpp"
#include "datasets/error.hpp"

namespace {

// "loci trian": CLI11 would say only that a subcommand is required; name the nearest command instead.
void refuse_unknown_command(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return;
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  const std::string word = argv[1];
  if (std::find(names.begin(), names.end(), word) != names.end()) return;
  const std::string near = loci::config::nearest(word, names);
  throw loci::UserError("unknown command '" + loci::printable(word, 60) + "'" +
                        (near.empty() ? "" : " (did you mean '" + near + "'?)") + "; `loci --help` lists them");
}

}  // namespace

int main(int argc, char** argv) {
  loci::hold_pause_signals();  // before anything: an early SIGUSR1 must neither end the process nor be lost
  loci::apps::set_invocation(argc, argv);
  // Before any plugin loads LibTorch, and so OpenBLAS: the kernel is read once, when OpenBLAS loads. It may restart
  // the process; a signal held until then is still pending after it.
  if (argc > 1 && (std::string(argv[1]) == "train" || std::string(argv[1]) == "run")) loci::cpu::settle(argv);
  loci::catch_pause_requests();
  CLI::App app{
      "loci: generate datasets whose tokens have known true positions, train transformers with any\n"
      "positional encoding on them, and score every learned encoding against the truth."};
  app.name("loci");
  app.set_version_flag("--version", std::string("loci ") + loci::kVersion);
  app.require_subcommand(1);
  app.fallthrough(false);

  loci::apps::add_generate_command(app);
  loci::apps::add_train_command(app);
  loci::apps::add_run_command(app);
  loci::apps::add_analyze_command(app);
  loci::apps::add_report_command(app);
  loci::apps::add_inspect_command(app);
  loci::apps::add_plugins_command(app);
  loci::apps::add_config_command(app);
  loci::apps::add_sweep_command(app);
  loci::apps::add_intervene_command(app);
  loci::apps::add_export_command(app);

  try {
    refuse_unknown_command(app, argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "loci: error: " << e.what() << " (see `loci --help`)\n";
    return 1;
  } catch (const loci::UserError& e) {
    std::cerr << "loci: error: " << e.what() << "\n";
    return 1;
  } catch (const loci::datasets::DataError& e) {
    std::cerr << "loci: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "loci: error: internal: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
