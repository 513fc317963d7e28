#include "datasets/render.hpp"

#include <algorithm>
#include <sstream>

namespace loci::datasets {

std::string shade_strips(const float* values, std::size_t rows, std::size_t columns,
                         const std::function<std::string(std::size_t)>& label, std::size_t max_rows) {
  static const char shades[] = " .:-=+*#%@";
  std::ostringstream s;
  if (rows * columns == 0) return {};
  const auto [lo, hi] = std::minmax_element(values, values + rows * columns);
  const double span = *hi > *lo ? static_cast<double>(*hi - *lo) : 1.0;
  for (std::size_t i = 0; i < std::min(rows, max_rows); ++i) {
    s << label(i) << " |";
    for (std::size_t t = 0; t < columns; ++t) {
      const double level = (values[i * columns + t] - *lo) / span;
      s << shades[std::min<std::size_t>(9, static_cast<std::size_t>(level * 10))];
    }
    s << "|\n";
  }
  if (rows > max_rows) s << "... " << rows - max_rows << " more\n";
  return s.str();
}

}  // namespace loci::datasets
