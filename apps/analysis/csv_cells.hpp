// How the summary's tables write a cell: numbers to 9 significant digits (empty when not finite, so pandas reads
// NaN) and text quoted only where CSV needs it.
#pragma once

#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>

namespace loci::analysis {

inline std::string csv_number(double v) {
  if (!std::isfinite(v)) return "";
  std::ostringstream s;
  s << std::setprecision(9) << v;
  return s.str();
}

inline std::string csv_text(const std::string& t) {
  if (t.find_first_of(",\"\n") == std::string::npos) return t;
  std::string q = "\"";
  for (char c : t) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// A number for a page: fixed, `digits` after the point; "n/a" when not finite.
inline std::string md_number(double v, int digits) {
  if (!std::isfinite(v)) return "n/a";
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

// A p-value for a page: 2 significant digits, "< 0.0001" below that.
inline std::string md_p(double p) {
  if (!std::isfinite(p)) return "n/a";
  if (p < 1e-4) return "< 0.0001";
  std::ostringstream s;
  s << std::setprecision(2) << p;
  return s.str();
}

}  // namespace loci::analysis
