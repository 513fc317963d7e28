// `loci sweep status DIR`: where every point of a sweep stands (done, running, interrupted, failed, not started),
// read from the run folders alone, so it answers the same for a sweep run here and a job array on a cluster.
// `loci sweep stop DIR`: ends the sweep running there, as Ctrl-C would; the same command resumes it.
#include <iomanip>
#include <iostream>
#include <map>

#include "apps/commands.hpp"
#include "apps/sweep/manifest.hpp"
#include "apps/sweep/stop.hpp"

namespace loci::apps {

void add_sweep_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("sweep", "Inspect or stop a sweep");
  cmd->require_subcommand(1);
  auto folder = std::make_shared<std::string>();
  auto* status = cmd->add_subcommand(
      "status", "Every point of the sweep under DIR: done, running, interrupted, failed or not started, one a line");
  status->add_option("dir", *folder, "The sweep's folder (its `out`)")->required();
  status->callback([folder] {
    const auto points = sweep_status(*folder);
    std::map<std::string, int> count;
    std::size_t width = 0;
    for (const auto& p : points) ++count[p.state], width = std::max(width, p.name.size());
    std::cout << *folder << ": " << points.size() << " point" << (points.size() == 1 ? "" : "s");
    const char* order[] = {"done", "running", "interrupted", "failed", "not started"};
    bool first = true;
    for (const char* s : order)
      if (count[s]) std::cout << (first ? ": " : ", ") << count[s] << " " << s, first = false;
    std::cout << "\n";
    for (const auto& p : points)
      std::cout << "  " << std::left << std::setw(12) << p.state << std::setw(static_cast<int>(width) + 2) << p.name
                << p.detail << "\n";
  });
  auto stop_folder = std::make_shared<std::string>();
  auto* stop = cmd->add_subcommand(
      "stop",
      "End the sweep running under DIR (its claim names the process), as Ctrl-C would: its runs keep their "
      "last checkpoints and the same command resumes it");
  stop->add_option("dir", *stop_folder, "The sweep's folder (its `out`)")->required();
  stop->callback([stop_folder] {
    const std::string holder = stop_sweep(*stop_folder, std::chrono::seconds(120));
    std::cout << *stop_folder << ": stopped the sweep of " << holder
              << "; its runs keep their last checkpoints, and the same command resumes it\n";
  });
}

}  // namespace loci::apps
