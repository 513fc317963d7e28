// `loci report`: the page and figures are drawn by matplotlib (apps/report/loci_report.py, installed under
// share/loci/) from what `loci analyze` wrote; this runs that script and turns its failures into one-line errors.
#pragma once

#include <filesystem>

namespace loci::apps {

// Writes out/report.html and out/figures/*.{svg,png} from the summary in `analysis`. UserError when Python,
// matplotlib or the script is missing, or when the analysis folder is incomplete.
void make_report(const std::filesystem::path& analysis, const std::filesystem::path& out);

}  // namespace loci::apps
