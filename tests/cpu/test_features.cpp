// What loci reads of the CPU: the flags it chooses kernels by, and the identity every run's provenance records.
#include <catch2/catch.hpp>

#include "cpu/features.hpp"

TEST_CASE("CPU flags are read word by word, AVX-512 only with all four of F, BW, VL and DQ") {
  const auto f = loci::cpu::features_from_flags("fpu avx avx2 fma avx512f avx512bw avx512vl avx512_bf16");
  CHECK(f.avx2);
  CHECK(f.avx512_bf16);
  CHECK_FALSE(f.avx512());  // no avx512dq
  CHECK_FALSE(loci::cpu::features_from_flags("avx512fx avx2x").avx2);
  CHECK(loci::cpu::features_from_flags("avx512f avx512bw avx512vl avx512dq").avx512());
}

TEST_CASE("This machine's CPU has a vendor and a family, and a known generation where loci is measured") {
  const auto& id = loci::cpu::identity();
  CHECK_FALSE(id.vendor.empty());
  CHECK(id.family > 0);
  loci::cpu::Identity zen5{"AuthenticAMD", "AMD EPYC", 26, 2, 1};
  CHECK(zen5.microarchitecture() == "Zen 5");
  loci::cpu::Identity other{"SomeVendor", "x", 1, 1, 1};
  CHECK(other.microarchitecture().empty());
}
