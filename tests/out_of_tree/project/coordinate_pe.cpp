// A positional encoding and a probe of a researcher's own, added to loci without forking it: a learned table that
// starts from the tokens' true coordinates projected to the model width (init from_coordinates) unless the config names
// another initialiser. Loaded as an extension, it is one more choice of model.pe.type.
#include <cmath>

#include <loci/models/init/init_registry.hpp>
#include <loci/models/pe/positional_encoding.hpp>
#include <loci/plugins/api/plugin.hpp>
#include <loci/probe/registry.hpp>

namespace {

class CoordinateStartPE : public loci::models::TablePEImpl {
 public:
  static c10::optional<loci::models::InitOptions> default_init(const loci::models::PEOptions&) {
    return loci::models::InitOptions("from_coordinates").scale(0.2);
  }
  // A key of its own: model.pe.coordinate_start.learn in a config, checked, documented and recorded like any other.
  static std::vector<loci::ParamSpec> keys() {
    return {loci::ParamSpec::flag("learn", true, "false keeps the table at its initial values (not trained)")};
  }

  CoordinateStartPE(const loci::models::PEOptions& o, const loci::models::PEContext& c) : TablePEImpl(o, c) {
    const auto init = init_or(*default_init(o));
    const bool learn = o.param("learn") != 0;
    for (int64_t p = 0; p < placements(); ++p)
      add_table(loci::models::make_init({tokens(), d_model()}, init, init_context()), learn);
  }
};

}  // namespace

LOCI_REGISTER(loci::models::PEInfo, loci::models::pe_info<CoordinateStartPE>("coordinate_start"));

// An initialiser of its own, scaled by `gain`: entries +gain or -gain, +gain with odds model.pe.init.signs.positive
// (a key of its own, declared in its registration; 0.5 is Rademacher). Its registration names that scale, so the
// analysis groups and plots its runs by gain.
static torch::Tensor signs(at::IntArrayRef shape, const loci::models::InitOptions& o,
                           const loci::models::InitContext& c) {
  auto coin = torch::empty(shape, torch::kFloat32).bernoulli_(o.param("positive"), c.generator);
  return (coin * 2 - 1) * o.gain();
}
LOCI_REGISTER(
    loci::models::InitInfo,
    loci::models::init_info("signs", signs, "gain", {},
                            {loci::ParamSpec::real("positive", 0.5, "odds of +gain over -gain").within(0, 1)}));

// And a probe of its own: how unequal the PE's rows are in size (sd / mean of the row norms).
LOCI_REGISTER(loci::probe::ProbeInfo,
              {"row_norm_spread",
               "sd over mean of the PE's row norms",
               {"row_norm_spread"},
               [](const Eigen::MatrixXd& pe, const loci::probe::ProbeContext&) {
                 const Eigen::ArrayXd norms = pe.rowwise().norm().array();
                 const double mean = norms.mean();
                 const double sd = std::sqrt((norms - mean).square().mean());
                 return loci::probe::ProbeValues{{"row_norm_spread", mean > 0 ? sd / mean : 0.0}};
               }});

LOCI_EXTENSION("coordinate_start_pe", "0.1.0", "a learned PE that starts from the true coordinates")
