// `loci report DIR [-o OUT]`: a self-contained HTML page with its figures (also as SVG and PNG) from the analysis
// in DIR (what `loci analyze` wrote there).
#include <iostream>

#include "apps/commands.hpp"
#include "apps/report/report.hpp"

namespace loci::apps {

void add_report_command(CLI::App& app) {
  struct Args {
    std::string dir, out;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("report", "Draw the report (HTML page + SVG/PNG figures) of an analysed sweep");
  cmd->add_option("dir", a->dir, "Folder holding summary.csv and runs.csv from `loci analyze`")->required();
  cmd->add_option("-o,--out", a->out, "Folder for report.html and figures/ (default: DIR)");
  cmd->callback([a] {
    const std::filesystem::path out = a->out.empty() ? a->dir : a->out;
    make_report(a->dir, out);
    std::cerr << "loci: report written to " << (out / "report.html").string() << "\n";
  });
}

}  // namespace loci::apps
