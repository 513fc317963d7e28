#include "apps/analysis/attention_similarity.hpp"
#include "apps/analysis/analysis_json.hpp"
#include "apps/analysis/run_folder.hpp"

#include "datasets/array_file.hpp"
#include "datasets/error.hpp"
#include "probe/attention.hpp"

#include <algorithm>
#include <cmath>

namespace loci::analysis {

namespace fs = std::filesystem;

std::vector<Eigen::MatrixXd> final_attention_maps(const fs::path& folder) { return attention_maps_at(folder, -1); }

std::vector<Eigen::MatrixXd> attention_maps_at(const fs::path& folder, std::int64_t evaluation) {
  const fs::path file = folder / "attention.h5";
  if (!run_array_file(folder, "attention.h5")) return {};
  const auto contents = datasets::read_array_file(file);
  if (evaluation == 0) {
    // Only an evaluation at epoch 0 is the untrained model's.
    const auto epochs = contents.arrays.find("epoch");
    if (epochs == contents.arrays.end() || epochs->second.values.empty() || epochs->second.values.front() != 0)
      return {};
  }
  std::vector<Eigen::MatrixXd> maps;
  for (std::size_t b = 0;; ++b) {
    const auto it = contents.arrays.find("block_" + std::to_string(b));
    if (it == contents.arrays.end()) break;
    const auto& a = it->second;
    if (a.shape.size() != 4 || a.shape[0] < 1 || a.shape[2] != a.shape[3])
      throw datasets::DataError(file, "array 'block_" + std::to_string(b) + "' is not [evaluation, head, query, key]");
    const auto heads = a.shape[1], n = a.shape[2];
    const auto last =
        (evaluation < 0 ? a.shape[0] - 1 : std::min<std::int64_t>(evaluation, a.shape[0] - 1)) * heads * n * n;
    Eigen::MatrixXd mean = Eigen::MatrixXd::Zero(n, n);
    for (std::int64_t h = 0; h < heads; ++h)
      for (std::int64_t q = 0; q < n; ++q)
        for (std::int64_t k = 0; k < n; ++k)
          mean(q, k) += a.values[static_cast<std::size_t>(last + (h * n + q) * n + k)];
    maps.push_back(mean / static_cast<double>(heads));
  }
  return maps;
}

namespace {

bool same_shape(const std::vector<Eigen::MatrixXd>& a, const std::vector<Eigen::MatrixXd>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t l = 0; l < a.size(); ++l)
    if (a[l].rows() != b[l].rows() || a[l].cols() != b[l].cols()) return false;
  return true;
}

}  // namespace

int add_attention_similarity(const std::vector<fs::path>& folders, std::vector<nlohmann::ordered_json>& analyses,
                             const std::string& reference_type) {
  std::vector<std::vector<Eigen::MatrixXd>> maps;
  std::vector<bool> reference;
  for (std::size_t i = 0; i < folders.size(); ++i) {
    maps.push_back(final_attention_maps(folders[i]));
    reference.push_back(analyses[i]["run"].value("pe_type", std::string()) == reference_type);
  }
  int compared = 0;
  for (std::size_t i = 0; i < folders.size(); ++i) {
    if (maps[i].empty()) continue;
    std::vector<Eigen::MatrixXd> mean;
    int count = 0;
    for (std::size_t j = 0; j < folders.size(); ++j) {
      if (j == i || !reference[j] || !same_shape(maps[j], maps[i])) continue;
      if (mean.empty()) {
        mean = maps[j];
      } else {
        for (std::size_t l = 0; l < mean.size(); ++l) mean[l] += maps[j][l];
      }
      ++count;
    }
    if (count == 0) continue;
    for (auto& m : mean) m /= static_cast<double>(count);
    const auto s = probe::attention_cosine(maps[i], mean);
    auto& final = analyses[i]["final"];
    final["attention_cosine"] = number(s.overall);
    // Its floor: maps are non-negative, so any two score above 0. The same cosine for uniform maps, and for this
    // run's own untrained model (its maps at epoch 0, when saved).
    std::vector<Eigen::MatrixXd> uniform;
    for (const auto& m : maps[i])
      uniform.push_back(Eigen::MatrixXd::Constant(m.rows(), m.cols(), 1.0 / static_cast<double>(m.cols())));
    final["attention_cosine_uniform"] = number(probe::attention_cosine(uniform, mean).overall);
    const auto initial = attention_maps_at(folders[i], 0);
    final["init_attention_cosine"] = same_shape(initial, maps[i])
                                         ? number(probe::attention_cosine(initial, mean).overall)
                                         : nlohmann::ordered_json();
    final["attention_cosine_mean_block"] = number(s.mean_per_layer);
    final["attention_cosine_per_block"] = nlohmann::ordered_json::array();
    for (Eigen::Index l = 0; l < s.per_layer.size(); ++l)
      final["attention_cosine_per_block"].push_back(number(s.per_layer(l)));
    analyses[i]["attention_reference"] = {{"pe_type", reference_type}, {"runs", count}};
    ++compared;
  }
  return compared;
}

}  // namespace loci::analysis
