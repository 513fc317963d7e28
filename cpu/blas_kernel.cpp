#include "cpu/blas_kernel.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <map>

namespace loci::cpu {

namespace {

// Set in the environment by loci itself (never by a user): the choice it made and why, so that the process it
// starts again, and every process that one starts (sweep runs), knows the kernel is settled.
constexpr const char* kChoiceVar = "LOCI_BLAS_CHOICE";
constexpr const char* kKernelVar = "OPENBLAS_CORETYPE";

// How capable each OpenBLAS x86 kernel is; unknown names (AMD's, future ones) are never replaced.
int rank_of(const std::string& core) {
  static const std::map<std::string, int> ranks{
      {"Katmai", 0},      {"Coppermine", 0}, {"Northwood", 0}, {"Prescott", 0},   {"Banias", 0},
      {"Atom", 0},        {"Core2", 0},      {"Penryn", 0},    {"Dunnington", 0}, {"Nehalem", 0},
      {"Sandybridge", 1}, {"Haswell", 2},    {"SkylakeX", 3},  {"Cooperlake", 4}, {"SapphireRapids", 5}};
  const auto it = ranks.find(core);
  return it == ranks.end() ? 99 : it->second;
}

struct OpenBlas {
  void* handle = nullptr;
  const char* (*corename)() = nullptr;
  void (*sgemm)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*,
                int) = nullptr;
};

// The BLAS LibTorch will load (libblas.so.3, OpenBLAS on Debian with libopenblas0-openmp). Loading it here makes
// OpenBLAS read OPENBLAS_CORETYPE now, exactly as it will when the trainer plugin loads it in this process.
const OpenBlas& openblas() {
  static const OpenBlas lib = [] {
    OpenBlas b;
    b.handle = dlopen("libblas.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!b.handle) return b;
    b.corename = reinterpret_cast<const char* (*)()>(dlsym(b.handle, "openblas_get_corename"));
    b.sgemm = reinterpret_cast<decltype(b.sgemm)>(dlsym(b.handle, "cblas_sgemm"));
    return b;
  }();
  return lib;
}

std::string loaded_core() {
  const auto& b = openblas();
  const char* name = b.corename ? b.corename() : nullptr;
  return name ? name : "";
}

// OpenBLAS reports its core names in lower case; OPENBLAS_CORETYPE takes the capitalised ones.
bool same_kernel(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

std::string capitalised(const std::string& core) {
  static const char* names[] = {"Prescott",    "Core2",   "Penryn",     "Dunnington", "Nehalem",
                                "Sandybridge", "Haswell", "SkylakeX",   "Cooperlake", "SapphireRapids",
                                "Atom",        "Katmai",  "Coppermine", "Northwood",  "Banias"};
  for (const char* n : names)
    if (same_kernel(core, n)) return n;
  return core;
}

std::string cpu_words(const Features& c) {
  if (c.avx512()) return c.avx512_bf16 ? "AVX-512 with BF16" : "AVX-512";
  if (c.avx2 && c.fma) return "AVX2 and FMA";
  return c.avx ? "AVX" : "no AVX";
}

[[noreturn]] void restart(char** argv) {
  execv("/proc/self/exe", argv);
  std::perror("loci: cannot restart itself with the chosen BLAS kernel");
  std::_Exit(2);
}

// A restarted process checks the kernel it was started with before anything relies on it.
void check_after_restart(char** argv) {
  const char* v = std::getenv(kChoiceVar);
  if (!v) return;
  const std::string s = v;
  const std::string tail = "|unchecked";
  if (s.size() < tail.size() || s.compare(s.size() - tail.size(), tail.size(), tail) != 0) return;
  const std::string wanted = s.substr(0, s.find('|'));
  const std::string why = s.substr(s.find('|') + 1, s.size() - tail.size() - s.find('|') - 1);
  const bool took = same_kernel(loaded_core(), wanted);
  if (took && products_agree()) {
    setenv(kChoiceVar, (wanted + "|" + why).c_str(), 1);
    return;
  }
  // Refused: OpenBLAS's own choice again, in a process started without the variable.
  unsetenv(kKernelVar);
  setenv(kChoiceVar,
         ("|OpenBLAS's own choice: " + wanted + (took ? " gave wrong products" : " is not in this OpenBLAS") + " (" +
          why + ")")
             .c_str(),
         1);
  restart(argv);
}

}  // namespace

bool libtorch_sends_bf16_to_onednn(bool libtorch_has_onednn, const Features& cpu) {
  return libtorch_has_onednn && cpu.avx512();
}

Bf16Products bf16_products(bool libtorch_has_onednn, const std::string& onednn_isa, const Features& cpu) {
  const bool avx512_core = onednn_isa.rfind("avx512_core", 0) == 0;
  return libtorch_sends_bf16_to_onednn(libtorch_has_onednn, cpu) && avx512_core ? Bf16Products::onednn
                                                                                : Bf16Products::reference_loops;
}

std::optional<std::string> better_kernel(const std::string& core, const Features& cpu) {
  std::string best;
  if (cpu.avx512())
    best = cpu.avx512_bf16 ? "Cooperlake" : "SkylakeX";
  else if (cpu.avx2 && cpu.fma)
    best = "Haswell";
  else if (cpu.avx)
    best = "Sandybridge";
  if (best.empty() || rank_of(capitalised(core)) >= rank_of(best)) return std::nullopt;
  return best;
}

std::string user_kernel_why(const std::string& user_core, const Features& cpu) {
  std::string why = "set by the user (OPENBLAS_CORETYPE)";
  if (const auto better = better_kernel(user_core, cpu))
    why += "; this CPU runs " + *better + ", faster: unset OPENBLAS_CORETYPE to let loci choose it";
  return why;
}

bool products_agree() {
  const auto& b = openblas();
  if (!b.sgemm) return true;  // not OpenBLAS: nothing of ours to check
  constexpr int m = 48, n = 40, k = 56;
  std::vector<float> a(m * k), x(k * n), c(m * n, 0.0f);
  for (int i = 0; i < m * k; ++i) a[static_cast<std::size_t>(i)] = static_cast<float>(std::sin(0.37 * i));
  for (int i = 0; i < k * n; ++i) x[static_cast<std::size_t>(i)] = static_cast<float>(std::cos(0.23 * i));
  constexpr int row_major = 101, no_trans = 111;
  b.sgemm(row_major, no_trans, no_trans, m, n, k, 1.0f, a.data(), k, x.data(), n, 0.0f, c.data(), n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double want = 0;
      for (int p = 0; p < k; ++p)
        want += static_cast<double>(a[static_cast<std::size_t>(i * k + p)]) * x[static_cast<std::size_t>(p * n + j)];
      if (std::fabs(want - c[static_cast<std::size_t>(i * n + j)]) > 1e-3 * (1.0 + std::fabs(want))) return false;
    }
  return true;
}

void settle(char** argv, std::optional<std::string> mode) {
  if (std::getenv(kChoiceVar)) {  // settled by this process's parent, or by loci before it restarted itself
    check_after_restart(argv);
    return;
  }
  const char* requested = std::getenv("LOCI_BLAS_KERNEL");
  const std::string m = mode ? *mode : requested ? requested : "auto";
  const char* user = std::getenv(kKernelVar);
  if (user && *user) {
    setenv(kChoiceVar, (std::string(user) + "|" + user_kernel_why(user, features())).c_str(), 1);
    return;
  }
  if (m == "openblas") {
    setenv(kChoiceVar, "|OpenBLAS's own choice (train.blas_kernel openblas)", 1);
    return;
  }
  std::string candidate, why;
  if (m != "auto") {
    candidate = m, why = "asked for (blas kernel " + m + ")";
  } else {
    const std::string core = loaded_core();
    if (core.empty()) {
      setenv(kChoiceVar, "|not OpenBLAS", 1);
      return;
    }
    const Features cpu = features();
    const auto better = better_kernel(core, cpu);
    if (!better) {
      setenv(kChoiceVar,
             ("|auto: OpenBLAS's own choice " + capitalised(core) + " fits a CPU with " + cpu_words(cpu)).c_str(), 1);
      return;
    }
    candidate = *better;
    why = "auto: OpenBLAS chose " + capitalised(core) + " on a CPU with " + cpu_words(cpu);
  }
  // OpenBLAS is loaded in this process already; the kernel applies only to a process started with it.
  setenv(kKernelVar, candidate.c_str(), 1);
  setenv(kChoiceVar, (candidate + "|" + why + "|unchecked").c_str(), 1);
  restart(argv);
}

Choice current() {
  Choice c;
  c.kernel = capitalised(loaded_core());
  const char* v = std::getenv(kChoiceVar);
  std::string s = v ? v : "";
  const auto bar = s.find('|');
  c.why = bar == std::string::npos ? s : s.substr(bar + 1);
  const auto second = c.why.find('|');
  if (second != std::string::npos) c.why = c.why.substr(0, second);
  return c;
}

void require(char** argv, const std::string& mode) {
  const Choice now = current();
  const char* user = std::getenv(kKernelVar);
  const char* v = std::getenv(kChoiceVar);
  const bool user_set = v && std::string(v).find("set by the user") != std::string::npos;
  if (mode == "auto" || user_set) return;  // auto was settled at start; a user's variable always wins
  if (v && std::string(v).find("OpenBLAS's own choice: " + mode + " ") != std::string::npos) return;  // refused once
  if (mode == "openblas") {
    if (!user || !*user) return;  // running on OpenBLAS's own choice already
    unsetenv(kKernelVar);
    setenv(kChoiceVar, "|OpenBLAS's own choice (train.blas_kernel openblas)", 1);
    restart(argv);
  }
  if (same_kernel(now.kernel, mode)) return;
  setenv(kKernelVar, mode.c_str(), 1);
  setenv(kChoiceVar, (mode + "|asked for (train.blas_kernel " + mode + ")|unchecked").c_str(), 1);
  restart(argv);
}

}  // namespace loci::cpu
