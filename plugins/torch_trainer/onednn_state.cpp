#include "onednn_state.hpp"

#include "cpu/blas_kernel.hpp"
#include "cpu/onednn.hpp"
#include "models/kernels/bf16_products.hpp"

#include <ATen/Context.h>

#include <cstdlib>

namespace loci::torch_trainer {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

}  // namespace

OneDnnState onednn_state(bool fused_products) {
  OneDnnState s;
  s.isa = cpu::onednn().isa;
  s.isa_cap = env("ONEDNN_MAX_CPU_ISA");
  if (s.isa_cap.empty()) s.isa_cap = env("DNNL_MAX_CPU_ISA");
  const cpu::Features& here = cpu::features();
  const bool has = at::hasMKLDNN() && !s.isa.empty();
  const bool onednn =
      at::globalContext().userEnabledMkldnn() && cpu::bf16_products(has, s.isa, here) == cpu::Bf16Products::onednn;
  const std::string fused = fused_products ? models::bf16_products_engine() : "";
  s.bf16_products = !fused.empty() ? "the fused layers on " + fused : onednn ? "oneDNN" : "LibTorch's reference loops";
  const std::string cap = s.isa_cap.empty() ? "" : " (capped by ONEDNN_MAX_CPU_ISA=" + s.isa_cap + ")";
  if (!fused.empty())
    s.why = "bf16: the fused layers' products take bfloat16 operands on " + fused + cap +
            ", float32 sums and everything between them float32";
  else if (onednn)
    s.why = "bf16 products run on oneDNN, instruction set " + s.isa + (cap.empty() ? " (its own choice)" : cap);
  else
    s.why = "bf16 products run on LibTorch's reference loops (" +
            std::string(!has                                             ? "oneDNN is not loaded"
                        : !cpu::libtorch_sends_bf16_to_onednn(has, here) ? "the CPU lacks AVX-512 F/BW/VL/DQ"
                                                                         : "oneDNN runs " + s.isa + cap) +
            "): expect bf16 to be slower than fp32 here";
  return s;
}

OneDnnState settle_onednn() {
  const OneDnnState s = onednn_state(false);
  const bool has = at::hasMKLDNN() && !s.isa.empty();
  if (cpu::libtorch_sends_bf16_to_onednn(has, cpu::features()) &&
      cpu::bf16_products(has, s.isa, cpu::features()) != cpu::Bf16Products::onednn)
    at::globalContext().setUserEnabledMkldnn(false);
  return onednn_state(false);
}

}  // namespace loci::torch_trainer
