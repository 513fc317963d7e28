#include "core/params.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace loci {

namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

double Params::get(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) throw std::out_of_range("no parameter named '" + name + "'");
  return it->second;
}

Params resolve_params(const std::vector<ParamSpec>& specs, const std::map<std::string, double>& given,
                      const std::string& what) {
  std::map<std::string, double> values;
  for (const auto& s : specs) values[s.name] = s.fallback;
  for (const auto& [name, value] : given) {
    const auto spec = std::find_if(specs.begin(), specs.end(), [&](const ParamSpec& s) { return s.name == name; });
    if (spec == specs.end()) {
      std::string best;
      std::size_t best_d = 4;  // farther than this is no useful suggestion
      for (const auto& s : specs)
        if (const auto d = edit_distance(name, s.name); d < best_d) best = s.name, best_d = d;
      throw std::invalid_argument(what + ": unknown parameter '" + name + "'" +
                                  (best.empty() ? "" : " (did you mean '" + best + "'?)"));
    }
    if (spec->kind != ParamSpec::Kind::real && std::floor(value) != value)
      throw std::invalid_argument(what + ": '" + name + "' must be a whole number, not " + number(value));
    const bool above_min = spec->min_exclusive ? value > spec->min : value >= spec->min;
    if (!(above_min && value <= spec->max))
      throw std::invalid_argument(what + ": '" + name + "' is " + number(value) + ", outside " +
                                  (spec->min_exclusive ? "(" : "[") + number(spec->min) + ", " + number(spec->max) +
                                  "]");
    values[name] = value;
  }
  return Params(std::move(values));
}

}  // namespace loci
