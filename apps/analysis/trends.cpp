#include "apps/analysis/trends.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "apps/analysis/csv_cells.hpp"
#include "datasets/atomic_file.hpp"
#include "probe/stats/compare.hpp"
#include "probe/stats/rank_correlation.hpp"

namespace loci::analysis {

namespace fs = std::filesystem;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Two numbers are a comparison, which the comparisons table already makes; a trend needs three.
constexpr std::size_t kMinNumbers = 3;
constexpr std::int64_t kPermutations = 10000;

using Settings = std::map<std::string, std::string>;

bool as_number(const std::string& text, double& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(out);
}

// Runs equal in every setting but `key`, which takes three or more numbers among them.
struct Family {
  std::string key;
  Settings others;
  std::vector<const RunRecord*> runs;
  std::vector<double> numbers;  // each run's value of `key`
  std::string label;            // the settings that tell this family from the others along the same key
};

// The families of every numeric setting, labelled by what sets them apart.
std::vector<Family> families_of(const std::vector<RunRecord>& runs) {
  std::set<std::string> keys;
  for (const auto& r : runs)
    for (const auto& [k, v] : r.settings) keys.insert(k);
  std::vector<Family> out;
  for (const auto& key : keys) {
    std::map<Settings, Family> by_others;
    for (const auto& r : runs) {
      const auto it = r.settings.find(key);
      double number = 0;
      if (it == r.settings.end() || !as_number(it->second, number)) continue;
      Settings others = r.settings;
      others.erase(key);
      Family& f = by_others[others];
      f.key = key;
      f.others = others;
      f.runs.push_back(&r);
      f.numbers.push_back(number);
    }
    std::vector<Family> found;
    for (auto& [others, f] : by_others)
      if (std::set<double>(f.numbers.begin(), f.numbers.end()).size() >= kMinNumbers) found.push_back(std::move(f));
    // A family's label: its values of the settings that differ between this key's families.
    std::set<std::string> apart;
    for (const auto& f : found)
      for (const auto& [k, v] : f.others)
        for (const auto& g : found)
          if (!g.others.count(k) || g.others.at(k) != v) apart.insert(k);
    for (auto& f : found) {
      for (const auto& k : apart)
        f.label += (f.label.empty() ? "" : " ") + k + "=" + (f.others.count(k) ? f.others.at(k) : "");
      if (f.label.empty()) f.label = "all runs";
      out.push_back(std::move(f));
    }
  }
  return out;
}

// Runs that share a pairing key (a PE draw and a dataset) are permuted among themselves only; where no two runs
// share one, every run is exchangeable and no strata are passed.
std::vector<std::size_t> strata_of(const Family& f) {
  std::map<std::string, std::size_t> ids;
  std::vector<std::size_t> strata;
  for (const auto* r : f.runs) {
    const std::size_t next = ids.size();
    strata.push_back(ids.emplace(r->pairing, next).first->second);
  }
  return ids.size() < f.runs.size() ? strata : std::vector<std::size_t>{};
}

struct TrendRow {
  const Family* family;
  std::string metric;
  std::size_t numbers = 0;  // distinct values of the key among the runs with this metric
  probe::RankCorrelation r;
  double holm = kNaN;
};

std::string test_of(const probe::RankCorrelation& r) {
  if (r.exact) return "exact permutation";
  return "Monte Carlo permutation (" + std::to_string(kPermutations) + ")" +
         (r.strata ? " within " + std::to_string(r.strata) + " shared draws" : "");
}

std::string reading_of(const TrendRow& row) {
  if (!(row.holm < 0.05)) return "no evidence of a trend (Holm p >= 0.05)";
  return std::string(row.r.rho > 0 ? "rises" : "falls") + " with " + row.family->key;
}

}  // namespace

std::string write_trends(const std::vector<RunRecord>& runs, const std::vector<std::string>& metrics,
                         const fs::path& folder) {
  const std::vector<Family> families = families_of(runs);
  std::vector<TrendRow> rows;
  for (const auto& f : families) {
    const std::vector<std::size_t> strata = strata_of(f);
    for (const auto& m : metrics) {
      std::vector<double> ys;
      std::set<double> numbers;
      for (std::size_t i = 0; i < f.runs.size(); ++i) {
        ys.push_back(value_of(*f.runs[i], m));
        if (std::isfinite(ys.back())) numbers.insert(f.numbers[i]);
      }
      if (numbers.size() < kMinNumbers) continue;
      TrendRow row{&f, m, numbers.size(), probe::spearman_test(f.numbers, ys, kPermutations, 2000, 0, strata)};
      if (std::isfinite(row.r.rho)) rows.push_back(row);
    }
  }
  std::vector<double> ps;
  for (const auto& r : rows) ps.push_back(r.r.p_value);
  const std::vector<double> holm = probe::holm_adjust(ps);
  for (std::size_t k = 0; k < rows.size(); ++k) rows[k].holm = holm[k];

  std::ostringstream csv, md;
  csv << "setting,family,metric,runs,numbers,spearman,ci_low,ci_high,test,p_value,p_holm,family_size,reading\n";
  for (const auto& r : rows)
    csv << csv_text(r.family->key) << "," << csv_text(r.family->label) << "," << csv_text(r.metric) << "," << r.r.n
        << "," << r.numbers << "," << csv_number(r.r.rho) << "," << csv_number(r.r.ci.low) << ","
        << csv_number(r.r.ci.high) << "," << csv_text(test_of(r.r)) << "," << csv_number(r.r.p_value) << ","
        << csv_number(r.holm) << "," << rows.size() << "," << csv_text(reading_of(r)) << "\n";
  datasets::write_file_atomically(folder / "trends.csv", csv.str());
  if (rows.empty()) return "";
  md << "\n## Trends along a swept number\n\nDoes the number decide the metric? For each setting swept through "
        "three or more numbers (the PE's σ, most often) and each family of runs equal in every other setting: "
        "Spearman ρ of the metric with the setting over runs, its 95% bootstrap interval, a permutation p (within "
        "runs that share a PE draw and dataset where they share them, and the bootstrap over those shared draws; "
        "otherwise across all runs) and Holm over the table's "
     << rows.size()
     << " trends. One test per metric and family, where the comparisons split the same runs into a test per pair "
        "of numbers.\n\n| setting | family | metric | runs | numbers | ρ [95% CI] | test | p | Holm p | reading |\n"
        "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : rows)
    md << "| " << r.family->key << " | " << r.family->label << " | " << r.metric << " | " << r.r.n << " | " << r.numbers
       << " | " << md_number(r.r.rho, 3) << " [" << md_number(r.r.ci.low, 3) << ", " << md_number(r.r.ci.high, 3)
       << "] | " << test_of(r.r) << " | " << md_p(r.r.p_value) << " | " << md_p(r.holm) << " | " << reading_of(r)
       << " |\n";
  return md.str();
}

}  // namespace loci::analysis
