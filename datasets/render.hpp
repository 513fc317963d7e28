// Text pictures of samples for `loci inspect --show` (Generator::render_sample).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace loci::datasets {

// One line per row (the first `max_rows`): `label(row) |strip|`, the row's values as shades from ' ' (the block's
// lowest value) to '@' (its highest), then a line saying how many rows were left out.
std::string shade_strips(const float* values, std::size_t rows, std::size_t columns,
                         const std::function<std::string(std::size_t)>& label, std::size_t max_rows = 12);

}  // namespace loci::datasets
