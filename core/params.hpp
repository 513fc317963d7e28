// Named numeric parameters of a registered variant (a topology, a dynamics model). Each variant declares its
// parameters once, with defaults, ranges and docs; the same list checks values passed from C++, and the plugin turns
// it into config schema, so adding a variant never means editing a second list elsewhere.
#pragma once

#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace loci {

struct ParamSpec {
  enum class Kind { real, integer, flag };

  std::string name;
  double fallback = 0;  // the default
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;  // the value must be above min, not equal to it
  Kind kind = Kind::real;
  std::string doc;

  static ParamSpec real(std::string name, double fallback, std::string doc) {
    ParamSpec p;
    p.name = std::move(name), p.fallback = fallback, p.doc = std::move(doc);
    return p;
  }
  static ParamSpec integer(std::string name, long long fallback, std::string doc) {
    ParamSpec p = real(std::move(name), static_cast<double>(fallback), std::move(doc));
    p.kind = Kind::integer;
    return p;
  }
  static ParamSpec flag(std::string name, bool fallback, std::string doc) {
    ParamSpec p = real(std::move(name), fallback ? 1.0 : 0.0, std::move(doc));
    p.kind = Kind::flag, p.min = 0, p.max = 1;
    return p;
  }
  // Chainable bounds: ParamSpec::real("p", 0.1, "...").within(0, 1)
  ParamSpec within(double lo, double hi) const {
    ParamSpec p = *this;
    p.min = lo, p.max = hi;
    return p;
  }
  ParamSpec at_least(double lo) const { return within(lo, max); }
  ParamSpec positive() const {
    ParamSpec p = within(0, max);
    p.min_exclusive = true;
    return p;
  }
};

// Values by name, complete once built by `resolve_params`.
class Params {
 public:
  Params() = default;
  explicit Params(std::map<std::string, double> values) : values_(std::move(values)) {}

  // std::out_of_range naming the parameter when it is absent: a variant asked for a name it did not declare.
  double get(const std::string& name) const;
  long long get_int(const std::string& name) const { return static_cast<long long>(get(name)); }
  bool get_flag(const std::string& name) const { return get(name) != 0; }
  Params& set(const std::string& name, double value) {
    values_[name] = value;
    return *this;
  }
  const std::map<std::string, double>& values() const { return values_; }

 private:
  std::map<std::string, double> values_;
};

// Defaults of `specs`, overridden by `given`. std::invalid_argument for a name not in `specs` (naming the nearest
// one), a value out of range, or a non-integer given for an integer or flag; `what` prefixes each message.
Params resolve_params(const std::vector<ParamSpec>& specs, const std::map<std::string, double>& given,
                      const std::string& what);

}  // namespace loci
