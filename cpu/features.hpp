// What this machine's CPU is and can do, read once from /proc/cpuinfo: the one place loci detects CPU features, so
// that the BLAS kernel choice, the bf16 conversions and the run records agree on them.
#pragma once

#include <string>

namespace loci::cpu {

struct Features {
  bool avx = false, avx2 = false, fma = false;
  bool avx512f = false, avx512bw = false, avx512vl = false, avx512dq = false, avx512_bf16 = false;
  bool avx512() const { return avx512f && avx512bw && avx512vl && avx512dq; }
};

// From the `flags` line of /proc/cpuinfo ("avx2 fma avx512f ...").
Features features_from_flags(const std::string& flags);

// This machine's (its first CPU's), read on first use.
const Features& features();

struct Identity {
  std::string vendor;      // vendor_id: "AuthenticAMD", "GenuineIntel"
  std::string model_name;  // "AMD EPYC 9R14 96-Core Processor"; a virtual machine may show only "AMD EPYC"
  int family = -1, model = -1, stepping = -1;
  // The core generation from vendor, family and model ("Zen 4"), "" where loci does not know it. Kernels differ by
  // it, and a model name such as "AMD EPYC" does not say it.
  std::string microarchitecture() const;
};

// This machine's (its first CPU's), read on first use.
const Identity& identity();

}  // namespace loci::cpu
