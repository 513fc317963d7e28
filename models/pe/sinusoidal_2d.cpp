// The paper's "2d-fixed" PE, its ground truth for the 4x4 grid: the first d/2 dimensions are the 1D sinusoid of the
// token's column, the last d/2 that of its row, each with frequencies base^(-2k/(d/2)).
// Positions are read as (row, column) in columns 0 and 1. Given only a token index ([T, 1]), the tokens are taken as a
// square grid in row-major order (token t at row t / side, column t % side), as in the Latin Square Task.

#include "models/pe/positional_encoding.hpp"
#include "models/positions/sinusoid.hpp"

#include <cmath>
#include <stdexcept>

namespace loci::models {
namespace {

torch::Tensor row_column(const torch::Tensor& positions) {
  if (positions.size(1) == 2) return positions;
  const auto tokens = positions.size(0);
  const auto side = static_cast<int64_t>(std::llround(std::sqrt(static_cast<double>(tokens))));
  if (positions.size(1) != 1 || side * side != tokens)
    throw std::invalid_argument("sinusoidal_2d needs (row, column) positions or a square number of tokens");
  return grid_positions(side, side);
}

class Sinusoidal2dPEImpl : public TablePEImpl {
 public:
  Sinusoidal2dPEImpl(const PEOptions& o, const PEContext& c) : TablePEImpl(o, c) {
    if (d_model() % 2 != 0) throw std::invalid_argument("sinusoidal_2d needs an even d_model");
    const auto half = d_model() / 2;
    const auto rc = row_column(positions());
    add_table(
        torch::cat({sinusoid_table(rc.select(1, 1), half, o.base()), sinusoid_table(rc.select(1, 0), half, o.base())},
                   1),
        /*learned=*/false);
    set_dropout(o.sinusoidal_dropout(), o.dropout_at_eval());
  }
};

}  // namespace

LOCI_REGISTER(PEInfo, pe_info<Sinusoidal2dPEImpl>("sinusoidal_2d"));

}  // namespace loci::models
