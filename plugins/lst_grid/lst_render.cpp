#include "lst_render.hpp"

#include "sim/lst/classify.hpp"

namespace loci::lst_grid {

std::string render_puzzle(int n, const datasets::SampleSlots& sample) {
  const auto* tokens = sample.get<std::uint8_t>("tokens");
  const int label = *sample.get<std::uint8_t>("label");
  const int condition = *sample.get<std::uint8_t>("condition");
  const auto strategy = static_cast<sim::lst::Strategy>(*sample.get<std::uint8_t>("strategy"));
  std::string s = std::string(sim::lst::condition_name(condition)) + " (" + sim::lst::strategy_name(strategy) +
                  "), answer " + std::to_string(label + 1) + ", givens " +
                  std::to_string(*sample.get<std::uint8_t>("givens")) + "\n";
  for (int r = 0; r < n; ++r) {
    s += "  ";
    for (int c = 0; c < n; ++c) {
      const std::uint8_t* cell = tokens + (r * n + c) * (n + 1);
      char ch = '.';
      if (cell[n]) ch = '?';
      for (int k = 0; k < n; ++k)
        if (cell[k]) ch = static_cast<char>('1' + k);
      s += ch;
      s += c + 1 < n ? " " : "\n";
    }
  }
  return s;
}

}  // namespace loci::lst_grid
