#include "numerics_summary.hpp"

#include "cpu/blas_kernel.hpp"
#include "models/blas_info.hpp"
#include "models/kernels/jit_gemm.hpp"
#include "onednn_state.hpp"
#include "train_options.hpp"

namespace loci::torch_trainer {

nlohmann::ordered_json numerics_summary(models::Precision precision, bool fused_products) {
  nlohmann::ordered_json j;
  j["blas"] = models::blas_description();
  const cpu::Choice kernel = cpu::current();
  j["blas_kernel"] = {{"kernel", kernel.kernel}, {"why", kernel.why}};
  const OneDnnState dnn = onednn_state(fused_products);
  const std::string name = choice_name(precision);
  if (precision == models::Precision::bf16)
    j["onednn"] = {{"isa", dnn.isa}, {"isa_cap", dnn.isa_cap}, {"bf16_products", dnn.bf16_products}, {"why", dnn.why}};
  else  // what a bf16 run here would use, said as such: this run has no bf16 products
    j["onednn"] = {{"isa", dnn.isa},
                   {"isa_cap", dnn.isa_cap},
                   {"bf16_products", "none (" + name + " run)"},
                   {"why", "this " + name + " run has no bf16 products; train.precision=bf16 here would run them on " +
                               dnn.bf16_products}};
  j["chunk_products"] = models::rows::jit_gemm_description();
  return j;
}

}  // namespace loci::torch_trainer
