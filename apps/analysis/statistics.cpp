#include "apps/analysis/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>

#include "apps/analysis/csv_cells.hpp"
#include "datasets/atomic_file.hpp"
#include "probe/stats/compare.hpp"
#include "probe/stats/rank_correlation.hpp"
#include "probe/stats/survival.hpp"

namespace loci::analysis {

namespace fs = std::filesystem;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Above this many comparisons of one metric, summary.md lists only those that survive Holm (comparisons.csv has all).
constexpr std::size_t kListedComparisons = 28;

bool is_accuracy(const std::string& column) {
  return column.size() > 9 && column.compare(column.size() - 9, 9, "_accuracy") == 0;
}

struct Pair {
  std::vector<double> a, b;
  bool paired = false;
};

// The two groups' values, aligned by pairing key when every key is unique within each group and at least two keys
// are shared (runs without a partner are then left out); otherwise as two independent samples.
Pair values_of(const std::vector<const RunRecord*>& a, const std::vector<const RunRecord*>& b, const std::string& m) {
  std::map<std::string, double> ka, kb;
  bool unique = true;
  for (const auto* r : a) unique &= ka.emplace(r->pairing, value_of(*r, m)).second;
  for (const auto* r : b) unique &= kb.emplace(r->pairing, value_of(*r, m)).second;
  Pair p;
  std::size_t shared = 0;
  for (const auto& [k, v] : ka) shared += kb.count(k);
  if (unique && shared >= 2) {
    p.paired = true;
    for (const auto& [k, v] : ka)
      if (kb.count(k)) p.a.push_back(v), p.b.push_back(kb.at(k));
    return p;
  }
  for (const auto* r : a) p.a.push_back(value_of(*r, m));
  for (const auto* r : b) p.b.push_back(value_of(*r, m));
  return p;
}

double mean_of_finite(const std::vector<double>& v) {
  double sum = 0;
  int n = 0;
  for (double x : v)
    if (std::isfinite(x)) sum += x, ++n;
  return n ? sum / n : kNaN;
}

struct ComparisonRow {
  std::string metric, a, b;
  double mean_a, mean_b;
  probe::Comparison c;
  double holm = kNaN;
};

std::string md_comparisons(const std::vector<ComparisonRow>& rows, const std::string& metric) {
  const double scale = is_accuracy(metric) ? 100.0 : 1.0;
  const int digits = is_accuracy(metric) ? 1 : 3;
  std::size_t family = 0, listed = 0;
  for (const auto& r : rows) family += std::isfinite(r.c.p_value);
  std::ostringstream md;
  md << "\n**" << metric << "**" << (is_accuracy(metric) ? " (percentage points)" : "") << ", Holm over its " << family
     << " comparison" << (family == 1 ? "" : "s")
     << ":\n\n| A | B | B − A [95% CI] | d | test | p | Holm p |\n|---|---|---|---|---|---|---|\n";
  for (const auto& r : rows) {
    if (rows.size() > kListedComparisons && !(r.holm < 0.05)) continue;
    ++listed;
    md << "| " << r.a << " | " << r.b << " | " << md_number(r.c.difference * scale, digits) << " ["
       << md_number(r.c.ci.low * scale, digits) << ", " << md_number(r.c.ci.high * scale, digits) << "] | "
       << md_number(r.c.effect_size, 2) << " | " << r.c.test() << ", n " << r.c.n_a
       << (r.c.paired ? " pairs" : " vs " + std::to_string(r.c.n_b)) << " | " << md_p(r.c.p_value) << " | "
       << md_p(r.holm) << " |\n";
  }
  if (rows.size() > kListedComparisons)
    md << "\n"
       << listed << " of " << rows.size() << " comparisons have Holm p < 0.05 and are listed; comparisons.csv "
       << "holds every one.\n";
  return md.str();
}

}  // namespace

double value_of(const RunRecord& r, const std::string& column) {
  const auto it = r.values.find(column);
  return it == r.values.end() ? kNaN : it->second;
}

// How many settings two groups differ in (a key one has and the other lacks counts).
std::size_t settings_apart(const RunRecord& a, const RunRecord& b) {
  std::size_t n = 0;
  for (const auto& [k, v] : a.settings) n += !b.settings.count(k) || b.settings.at(k) != v;
  for (const auto& [k, v] : b.settings) n += !a.settings.count(k);
  return n;
}

std::string write_comparisons(const std::vector<std::string>& groups, const std::vector<RunRecord>& runs,
                              const std::vector<std::string>& metrics, const fs::path& folder, bool one_setting) {
  std::map<std::string, std::vector<const RunRecord*>> members;
  for (const auto& r : runs) members[r.group].push_back(&r);
  std::ostringstream csv, md;
  csv << "metric,group_a,group_b,design,n_a,n_b,mean_a,mean_b,difference,ci_low,ci_high,effect_size,test,p_value,"
         "p_holm,family\n";
  for (const auto& m : metrics) {
    std::vector<ComparisonRow> rows;
    for (std::size_t i = 0; i < groups.size(); ++i)
      for (std::size_t j = i + 1; j < groups.size(); ++j) {
        if (members[groups[i]].empty() || members[groups[j]].empty()) continue;
        if (one_setting && settings_apart(*members[groups[i]].front(), *members[groups[j]].front()) != 1) continue;
        const Pair p = values_of(members[groups[i]], members[groups[j]], m);
        ComparisonRow row{m,
                          groups[i],
                          groups[j],
                          mean_of_finite(p.a),
                          mean_of_finite(p.b),
                          p.paired ? probe::compare_paired(p.a, p.b) : probe::compare_independent(p.a, p.b)};
        if (row.c.n_a >= 2 && row.c.n_b >= 2) rows.push_back(row);
      }
    std::vector<double> ps;
    for (const auto& r : rows) ps.push_back(r.c.p_value);
    const std::vector<double> holm = probe::holm_adjust(ps);
    for (std::size_t k = 0; k < rows.size(); ++k) rows[k].holm = holm[k];
    for (const auto& r : rows)
      csv << csv_text(m) << "," << csv_text(r.a) << "," << csv_text(r.b) << ","
          << (r.c.paired ? "paired" : "independent") << "," << r.c.n_a << "," << r.c.n_b << "," << csv_number(r.mean_a)
          << "," << csv_number(r.mean_b) << "," << csv_number(r.c.difference) << "," << csv_number(r.c.ci.low) << ","
          << csv_number(r.c.ci.high) << "," << csv_number(r.c.effect_size) << "," << csv_text(r.c.test()) << ","
          << csv_number(r.c.p_value) << "," << csv_number(r.holm) << "," << rows.size() << "\n";
    if (!rows.empty()) md << md_comparisons(rows, m);
  }
  datasets::write_file_atomically(folder / "comparisons.csv", csv.str());
  const std::string body = md.str();
  return body.empty()
             ? ""
             : std::string("\n## Comparisons between groups\n\nFor each pair of groups") +
                   (one_setting ? " that differ in exactly one setting (analyze comparisons: one_setting)" : "") +
                   ": B − A with its 95% t interval "
                   "(Welch's for independent groups), the effect size (paired: d_z; independent: Cohen's d), a "
                   "permutation test (paired by shared PE draw and dataset where the groups share them: exact "
                   "sign-flip; otherwise label permutation), and Holm's adjustment over the comparisons of each "
                   "metric.\n" +
                   body;
}

std::vector<std::string> untrained_controls(const std::string& statistic) {
  std::vector<std::string> controls;
  if (statistic.rfind("disp_", 0) == 0 || statistic.rfind("control_", 0) == 0) return controls;
  controls.push_back("init_" + statistic);
  controls.push_back("draw_" + statistic);
  if (statistic == "procrustes_oracle_residual") controls.push_back("control_procrustes_oracle_residual");
  if (statistic == "attention_cosine") controls.push_back("attention_cosine_uniform");
  return controls;
}

namespace {

struct CorrelationRow {
  std::string statistic, against, control_of;  // control_of: the trained statistic this row is the control of
  probe::RankCorrelation r;
  double holm = kNaN;
  std::string reading;
};

probe::RankCorrelation correlate(const std::vector<RunRecord>& runs, const std::string& x, const std::string& y) {
  std::vector<double> xs, ys;
  for (const auto& r : runs)
    if (r.drawn) xs.push_back(value_of(r, x)), ys.push_back(value_of(r, y));
  return probe::spearman_test(xs, ys);
}

// What a trained statistic's correlation says beside its controls'.
std::string reading_of(const CorrelationRow& trained, const std::vector<const CorrelationRow*>& controls) {
  if (!std::isfinite(trained.r.rho)) return "";
  if (!(trained.holm < 0.05)) return "no evidence of a correlation (Holm p >= 0.05)";
  for (const auto* c : controls)
    if (std::isfinite(c->r.rho) && c->r.p_value < 0.05 && c->r.rho >= trained.r.ci.low && c->r.rho <= trained.r.ci.high)
      return "explained by the PE's scale: " + c->statistic + " correlates alike";
  return "beyond its untrained control";
}

}  // namespace

std::string write_correlations(const std::vector<RunRecord>& runs, const std::vector<std::string>& statistics,
                               const std::vector<std::string>& task, bool accuracy, const fs::path& folder) {
  std::vector<CorrelationRow> rows;
  for (const auto& stat : statistics)
    for (const auto& t : task) {
      CorrelationRow row{stat, t, "", correlate(runs, stat, t)};
      if (row.r.n < 3) continue;
      rows.push_back(row);
      for (const auto& control : untrained_controls(stat)) {
        CorrelationRow c{control, t, stat, correlate(runs, control, t)};
        if (c.r.n >= 3) rows.push_back(c);
      }
    }
  // Holm over the trained statistics' correlations: the family a page's claims are drawn from.
  std::vector<double> ps;
  std::vector<std::size_t> trained;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].control_of.empty()) ps.push_back(rows[i].r.p_value), trained.push_back(i);
  const std::vector<double> holm = probe::holm_adjust(ps);
  for (std::size_t k = 0; k < trained.size(); ++k) rows[trained[k]].holm = holm[k];
  for (std::size_t i : trained) {
    std::vector<const CorrelationRow*> controls;
    for (const auto& r : rows)
      if (r.control_of == rows[i].statistic && r.against == rows[i].against) controls.push_back(&r);
    rows[i].reading = reading_of(rows[i], controls);
  }

  std::ostringstream csv, md;
  csv << "statistic,against,control_of,runs,spearman,ci_low,ci_high,p_value,exact,p_holm,family,reading\n";
  for (const auto& r : rows)
    csv << r.statistic << "," << r.against << "," << r.control_of << "," << r.r.n << "," << csv_number(r.r.rho) << ","
        << csv_number(r.r.ci.low) << "," << csv_number(r.r.ci.high) << "," << csv_number(r.r.p_value) << ","
        << (r.r.exact ? "true" : "false") << "," << csv_number(r.holm) << "," << (r.control_of.empty() ? ps.size() : 0)
        << "," << csv_text(r.reading) << "\n";
  datasets::write_file_atomically(folder / "correlations.csv", csv.str());
  if (rows.empty()) return "";
  md << "\n## Correlations with the task, over runs\n\nSpearman ρ of each statistic of the drawn PEs' runs with "
     << (accuracy ? "accuracy (the paper: Procrustes disparity −0.98, attention cosine 0.96)"
                  : "held-out MSE (lower is better: a PE whose shape helps gives ρ > 0 for Procrustes disparity, "
                    "ρ < 0 for RSA)")
     << ", computed over runs, not group means, with a 95% bootstrap interval over runs and a permutation p "
        "(Holm over the "
     << ps.size()
     << " correlations of trained statistics). Beside each, indented, the same correlation on its untrained "
        "control: `init_` is the PE at epoch 0, `draw_` an independent fresh draw of the run's σ, `control_` a "
        "random PE of the same norm. Where a control "
        "correlates alike, the correlation is explained by the PE's scale, not by a shape it learned.\n\n"
        "| statistic | against | runs | ρ [95% CI] | p | Holm p | reading |\n|---|---|---|---|---|---|---|\n";
  for (const auto& r : rows)
    md << "| " << (r.control_of.empty() ? "" : "↳ ") << r.statistic << " | " << r.against << " | " << r.r.n << " | "
       << md_number(r.r.rho, 3) << " [" << md_number(r.r.ci.low, 3) << ", " << md_number(r.r.ci.high, 3) << "] | "
       << md_p(r.r.p_value) << " | " << (r.control_of.empty() ? md_p(r.holm) : "") << " | " << r.reading << " |\n";
  return md.str();
}

std::string write_onsets(const std::vector<std::string>& groups, const std::vector<RunRecord>& runs,
                         const fs::path& folder) {
  std::ostringstream csv, md;
  csv << "statistic,group,epoch,at_risk,onsets,censored,fraction_with_onset,ci_low,ci_high\n";
  bool any = false;
  for (const char* stat : {"rsa", "qk_rsa"})
    for (const auto& g : groups) {
      std::vector<probe::SurvivalTime> times;
      for (const auto& r : runs) {
        if (r.group != g) continue;
        const auto it = r.onset.find(stat);
        if (it != r.onset.end() && std::isfinite(it->second))
          times.push_back({it->second, true});
        else if (it != r.onset.end())
          times.push_back({r.last_epoch, false});
      }
      if (times.empty()) continue;
      const auto steps = probe::kaplan_meier(times);
      std::int64_t onsets = 0;
      for (const auto& s : steps) {
        onsets += s.events;
        // The fraction with an onset is 1 - S; its interval flips S's.
        csv << stat << "," << csv_text(g) << "," << csv_number(s.time) << "," << s.at_risk << "," << s.events << ","
            << s.censored << "," << csv_number(1 - s.survival) << "," << csv_number(1 - s.ci_high) << ","
            << csv_number(1 - s.ci_low) << "\n";
      }
      if (!any)
        md << "\n## When the PE takes the shape: onsets as censored data\n\nAn onset is the first evaluation whose "
              "RSA is permutation-significant and exceeds its epoch-0 value by the null's own spread (onset.hpp). "
              "A run without one is censored at its last evaluation, not dropped: the fraction is Kaplan-Meier's, "
              "with its 95% interval (exponential Greenwood). onsets.csv has every step.\n\n"
              "| onset of | group | runs | onsets | fraction with an onset by the last evaluation [95% CI] |\n"
              "|---|---|---|---|---|\n";
      any = true;
      const auto& last = steps.back();
      md << "| " << stat << " | " << g << " | " << times.size() << " | " << onsets << " | "
         << md_number(1 - last.survival, 2) << " [" << md_number(1 - last.ci_high, 2) << ", "
         << md_number(1 - last.ci_low, 2) << "] |\n";
    }
  datasets::write_file_atomically(folder / "onsets.csv", csv.str());
  return md.str();
}

}  // namespace loci::analysis
