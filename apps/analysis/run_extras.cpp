#include "apps/analysis/run_extras.hpp"

#include <sstream>
#include <string>
#include <vector>

#include "datasets/error.hpp"

namespace loci::analysis {

using ordered_json = nlohmann::ordered_json;

// robustness.csv, when the run wrote one (train.robustness_noise): each split's accuracy or MSE at each noise sd.
ordered_json robustness_of(const RunFolder& run) {
  ordered_json rows = ordered_json::array();
  const auto text = run_file(run.folder, "robustness.csv");
  if (!text) return rows;
  std::istringstream in(*text);
  std::string line;
  std::getline(in, line);  // header: split,noise_std,samples,loss,accuracy,mse
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
    while (cells.size() < 6) cells.emplace_back();
    auto value = [](const std::string& c) { return c.empty() ? ordered_json(nullptr) : ordered_json(std::stod(c)); };
    try {
      rows.push_back({{"split", cells[0]},
                      {"noise_std", std::stod(cells[1])},
                      {"accuracy", value(cells[4])},
                      {"mse", value(cells[5])}});
    } catch (const std::exception&) {
      throw datasets::DataError(run.folder / "robustness.csv", "has a line that is not split,noise_std,...: " + line);
    }
  }
  return rows;
}

// interventions.json, when `loci intervene` wrote one: the model's scores with its PE changed; null otherwise.
ordered_json interventions_of(const RunFolder& run) {
  const auto text = run_file(run.folder, "interventions.json");
  if (!text) return nullptr;
  try {
    ordered_json j = ordered_json::parse(*text);
    if (j.value("loci_interventions", 0) != 1 || !j.contains("results") || !j["results"].is_array())
      throw datasets::DataError(run.folder / "interventions.json", "is not an interventions record of this loci");
    return j;
  } catch (const nlohmann::json::exception& e) {
    throw datasets::DataError(run.folder / "interventions.json", std::string("is not readable JSON (") + e.what() +
                                                                     "); run `loci intervene --force` again");
  }
}

}  // namespace loci::analysis
