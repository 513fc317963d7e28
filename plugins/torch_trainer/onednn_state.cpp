#include "onednn_state.hpp"

#include "models/bf16_products.hpp"
#include "plugins/api/blas_kernel.hpp"

#include <ATen/Context.h>

#include <cstdlib>
#include <dlfcn.h>

namespace loci::torch_trainer {
namespace {

// LibTorch links oneDNN (Debian: libdnnl.so.2), so it is loaded when LibTorch is; its C API is asked directly
// (RTLD_NOLOAD: never loads a second copy) because Debian ships no oneDNN headers with LibTorch.
std::string effective_isa() {
  void* lib = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_NOLOAD);
  if (lib == nullptr) return {};
  using IsaFn = int (*)();
  using NameFn = const char* (*)(int);
  const auto isa = reinterpret_cast<IsaFn>(dlsym(lib, "dnnl_get_effective_cpu_isa"));
  const auto name = reinterpret_cast<NameFn>(dlsym(lib, "dnnl_cpu_isa2str"));
  std::string out;
  if (isa != nullptr && name != nullptr) {
    const char* text = name(isa());
    out = text != nullptr ? text : "";
    if (out.rfind("cpu_isa_", 0) == 0) out.erase(0, 8);
  }
  dlclose(lib);
  return out;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

}  // namespace

OneDnnState onednn_state(bool fused_products) {
  OneDnnState s;
  s.isa = effective_isa();
  s.isa_cap = env("ONEDNN_MAX_CPU_ISA");
  if (s.isa_cap.empty()) s.isa_cap = env("DNNL_MAX_CPU_ISA");
  const auto cpu = blas::this_cpu();
  const bool has = at::hasMKLDNN() && !s.isa.empty();
  const bool onednn = at::globalContext().userEnabledMkldnn() &&
                      blas::bf16_products(has, s.isa, cpu) == blas::Bf16Products::onednn;
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
            std::string(!has                                                  ? "oneDNN is not loaded"
                        : !blas::libtorch_sends_bf16_to_onednn(has, cpu) ? "the CPU lacks AVX-512 F/BW/VL/DQ"
                                                                          : "oneDNN runs " + s.isa + cap) +
            "): expect bf16 to be slower than fp32 here";
  return s;
}

OneDnnState settle_onednn() {
  const OneDnnState s = onednn_state(false);
  const bool has = at::hasMKLDNN() && !s.isa.empty();
  if (blas::libtorch_sends_bf16_to_onednn(has, blas::this_cpu()) &&
      blas::bf16_products(has, s.isa, blas::this_cpu()) != blas::Bf16Products::onednn)
    at::globalContext().setUserEnabledMkldnn(false);
  return onednn_state(false);
}

}  // namespace loci::torch_trainer
