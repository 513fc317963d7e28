// The learned PE with its norm held at its initial value: only its direction learns. The Omnigrok control (arXiv
// 2210.01117) for the question the paper's sigma sweep cannot answer by itself: is it the draw's scale, or its shape,
// that decides whether the PE learns the geometry? Each placement's table is P = r0 V / |V| (Frobenius norm; r0 the
// norm of the initial draw), so the loss sees only V's direction; after every optimizer step V is put back on the
// sphere of radius r0 (after_step), as Omnigrok projects its weights. Weight decay on this PE then changes nothing
// but its direction's step, never its scale. Drawn from the init registry like `learned` (default N(0, 0.2^2)).

#include "models/pe/positional_encoding.hpp"

#include <torch/torch.h>

namespace loci::models {
namespace {

class LearnedFixedNormPEImpl : public TablePEImpl {
 public:
  static c10::optional<InitOptions> default_init(const PEOptions&) { return InitOptions("normal").std(0.2); }

  LearnedFixedNormPEImpl(const PEOptions& o, const PEContext& c) : TablePEImpl(o, c) {
    for (const auto& table : draw_tables(*default_init(o))) {
      norms_.push_back(register_buffer("norm_" + std::to_string(norms_.size()), table.norm().reshape({1})));
      add_table(table, /*learned=*/true);
    }
  }

  torch::Tensor matrix(int64_t placement) const override {
    const torch::Tensor v = TablePEImpl::matrix(placement);
    const torch::Tensor& r0 = norms_.at(static_cast<size_t>(placement));
    // A table of zeros (init std 0) has no direction: it stays zero rather than dividing by zero.
    return v * (r0 / v.norm().clamp_min(1e-30));
  }

  // The new table keeps its own norm: matrix() would otherwise put it back on the trained table's sphere.
  void set_table(int64_t placement, const torch::Tensor& t) override {
    TablePEImpl::set_table(placement, t);
    torch::NoGradGuard no_grad;
    norms_.at(static_cast<size_t>(placement)).fill_(t.norm().item<double>());
  }

  void after_step() override {
    torch::NoGradGuard no_grad;
    for (int64_t p = 0; p < placements(); ++p) {
      torch::Tensor v = TablePEImpl::matrix(p);
      const double n = v.norm().item<double>();
      if (n > 0) v.mul_(norms_.at(static_cast<size_t>(p)).item<double>() / n);
    }
  }

 private:
  std::vector<torch::Tensor> norms_;
};

}  // namespace

LOCI_REGISTER(PEInfo, pe_info<LearnedFixedNormPEImpl>("learned_fixed_norm"));

}  // namespace loci::models
