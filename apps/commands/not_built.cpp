// Commands whose work arrives with later parts of loci. They parse their arguments like the finished ones will and
// say plainly that the part is not there yet.
#include "apps/commands.hpp"
#include "plugins/api/error.hpp"

namespace loci::app {

namespace {
void add_pending(CLI::App& app, const std::string& name, const std::string& help, const std::string& positional,
                 const std::string& what) {
  auto* cmd = app.add_subcommand(name, help + " [not built yet]");
  auto args = std::make_shared<std::vector<std::string>>();
  cmd->add_option(positional, *args, "see the description");
  cmd->allow_extras();
  cmd->callback([name, what, args] {  // holding args keeps the option's storage alive
    throw UserError("`loci " + name + "` is not built yet: " + what);
  });
}
}  // namespace

void add_analyze_command(CLI::App& app) {
  add_pending(app, "analyze", "Score the learned positional encodings of runs against the true positions (RUN...)",
              "runs", "it arrives with the probes of models/probe/");
}

}  // namespace loci::app
