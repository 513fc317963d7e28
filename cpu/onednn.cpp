#include "cpu/onednn.hpp"

#include <dlfcn.h>

namespace loci::cpu {

const OneDnn& onednn() {
  static const OneDnn state = [] {
    OneDnn d;
    void* lib = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_NOLOAD);
    if (lib == nullptr) return d;
    const auto isa = reinterpret_cast<int (*)()>(dlsym(lib, "dnnl_get_effective_cpu_isa"));
    const auto name = reinterpret_cast<const char* (*)(int)>(dlsym(lib, "dnnl_cpu_isa2str"));
    if (isa != nullptr && name != nullptr) {
      const char* text = name(isa());
      d.isa = text != nullptr ? text : "";
      if (d.isa.rfind("cpu_isa_", 0) == 0) d.isa.erase(0, 8);
    }
    d.gemm_bf16 = reinterpret_cast<OneDnnGemmBf16>(dlsym(lib, "dnnl_gemm_bf16bf16f32"));
    // The handle stays open: gemm_bf16 points into the library, which LibTorch keeps loaded anyway.
    return d;
  }();
  return state;
}

}  // namespace loci::cpu
