// Which OpenBLAS kernel loci's products run on. Debian's OpenBLAS picks its kernel from the CPU it knows; on a CPU
// newer than itself it falls back to old SSE3 kernels (Prescott) and the paper's model trains 3x slower than the
// machine allows. OpenBLAS reads OPENBLAS_CORETYPE once, when it is loaded, so the choice is made by the `loci`
// process before any plugin loads LibTorch: it reads OpenBLAS's own choice and the CPU's features, and when a better
// kernel exists it sets OPENBLAS_CORETYPE and starts itself again. The new process checks the kernel once against a
// plain product and goes back to OpenBLAS's choice if they disagree. A value the user set is never changed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cpu/features.hpp"

namespace loci::cpu {

// The kernel to use instead of OpenBLAS's `core`, or nullopt to keep it: Cooperlake on AVX-512 with BF16, SkylakeX
// on AVX-512, Haswell on AVX2 + FMA, Sandybridge on AVX; only ever an upgrade over what `core` is.
std::optional<std::string> better_kernel(const std::string& core, const Features& cpu);

// Why a user's OPENBLAS_CORETYPE runs: it is kept, and where the CPU runs a better kernel (better_kernel) the reason
// names it and how to get it. Some machines set the variable for every process: the project's AMD EPYC VM sets
// Haswell, where OpenBLAS's own choice, Cooperlake, trains the paper's model 1.4x faster (bench/RESULTS.md).
std::string user_kernel_why(const std::string& user_core, const Features& cpu);

// Where bfloat16 matrix products (train.precision: bf16) run on a CPU. LibTorch 1.13 sends them to oneDNN when it is
// built with oneDNN and the CPU has AVX-512 F, BW, VL and DQ; oneDNN then needs its own instruction set (its choice,
// or the user's ONEDNN_MAX_CPU_ISA cap) to be an avx512_core one, or it fails. Otherwise they run on LibTorch's
// reference loops, slower than float32 on OpenBLAS.
enum class Bf16Products { onednn, reference_loops };
bool libtorch_sends_bf16_to_onednn(bool libtorch_has_onednn, const Features& cpu);
Bf16Products bf16_products(bool libtorch_has_onednn, const std::string& onednn_isa, const Features& cpu);

// What the process runs on and why, for run records and the one line loci prints.
struct Choice {
  std::string kernel;  // OpenBLAS's core name in this process ("" when the BLAS is not OpenBLAS)
  std::string why;     // "auto: OpenBLAS chose Prescott on a CPU with AVX-512", "set by the user", ...
};

// Called first thing in main(). `mode` is auto, openblas (OpenBLAS's own choice) or a kernel name; nullopt reads
// LOCI_BLAS_KERNEL (default auto). May replace the process (execv) with one whose environment names the kernel;
// returns only once the kernel is settled. Never fails: a problem leaves OpenBLAS's own choice, said in `why`.
void settle(char** argv, std::optional<std::string> mode = std::nullopt);

// The choice settled in this process (from its environment), and OpenBLAS's kernel as loaded now.
Choice current();

// For `train.blas_kernel`: replaces the process when `mode` asks for another kernel than the one it runs on.
void require(char** argv, const std::string& mode);

// A 48x40x56 single-precision product through cblas_sgemm against a double-precision loop; false when they differ
// beyond rounding (some OpenBLAS kernels are wrong on some CPUs).
bool products_agree();

}  // namespace loci::cpu
