// The BLAS kernel loci chooses: a pure decision from OpenBLAS's own choice and the CPU's features, a user's
// OPENBLAS_CORETYPE never overridden, and a kernel OpenBLAS refuses left for its own choice. No timing here: the
// speed it buys is measured in bench/ (bench/RESULTS.md).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include "cpu/blas_kernel.hpp"
#include "tests/plugins/torch_trainer/trainer_fixture.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

using loci::cpu::better_kernel;
using loci::cpu::features_from_flags;

TEST_CASE("an old fallback kernel is replaced by the best one the CPU runs, and nothing else is") {
  const auto avx512 = features_from_flags("fpu sse2 avx avx2 fma avx512f avx512dq avx512bw avx512vl");
  const auto avx512_bf16 = features_from_flags("avx avx2 fma avx512f avx512dq avx512bw avx512vl avx512_bf16 amx_tile");
  const auto avx2 = features_from_flags("sse4_2 avx avx2 fma");
  const auto avx_only = features_from_flags("sse4_2 avx");
  // The Xeon (family 6, model 207) that Debian's OpenBLAS 0.3.21 does not know.
  CHECK(better_kernel("Prescott", avx512_bf16) == std::optional<std::string>("Cooperlake"));
  CHECK(better_kernel("Prescott", avx512) == std::optional<std::string>("SkylakeX"));
  CHECK(better_kernel("prescott", avx512) == std::optional<std::string>("SkylakeX"));  // OpenBLAS's lower case
  CHECK(better_kernel("Nehalem", avx2) == std::optional<std::string>("Haswell"));
  CHECK(better_kernel("Core2", avx_only) == std::optional<std::string>("Sandybridge"));
  // Kept: already the best, a better one than the CPU's (a user's choice), or a kernel loci does not rank (AMD's).
  CHECK_FALSE(better_kernel("Haswell", avx2));
  CHECK_FALSE(better_kernel("SkylakeX", avx512));
  CHECK_FALSE(better_kernel("Cooperlake", avx512));
  CHECK_FALSE(better_kernel("Zen", avx2));
  CHECK_FALSE(better_kernel("Prescott", features_from_flags("sse2 sse3")));
  // AVX-512 counts only with all four of F, BW, VL and DQ.
  CHECK(better_kernel("Prescott", features_from_flags("avx avx2 fma avx512f avx512bw")) ==
        std::optional<std::string>("Haswell"));
}

TEST_CASE("a user's older kernel is kept, and the reason says which kernel the CPU runs and how to get it") {
  const auto avx512_bf16 = features_from_flags("avx avx2 fma avx512f avx512dq avx512bw avx512vl avx512_bf16");
  const auto avx2 = features_from_flags("sse4_2 avx avx2 fma");
  // The project's AMD EPYC VM: OPENBLAS_CORETYPE=Haswell for every process on an AVX-512 CPU.
  const auto why = loci::cpu::user_kernel_why("Haswell", avx512_bf16);
  CHECK(why.rfind("set by the user (OPENBLAS_CORETYPE)", 0) == 0);
  CHECK(why.find("this CPU runs Cooperlake") != std::string::npos);
  CHECK(why.find("unset OPENBLAS_CORETYPE") != std::string::npos);
  CHECK(why.find('|') == std::string::npos);  // the recorded choice separates its fields with '|'
  CHECK(loci::cpu::user_kernel_why("Haswell", avx2) == "set by the user (OPENBLAS_CORETYPE)");
  CHECK(loci::cpu::user_kernel_why("Cooperlake", avx512_bf16) == "set by the user (OPENBLAS_CORETYPE)");
}

TEST_CASE("the chosen kernel computes a product right") { CHECK(loci::cpu::products_agree()); }

TEST_CASE("a user's OPENBLAS_CORETYPE is never overridden, and a refused kernel falls back to OpenBLAS's choice") {
  loci::test::TempDir dir;
  const auto cfg = loci::test::train_config(dir) + " train.epochs=1";
  auto r = loci::test::run_loci("train -q " + cfg + " train.blas_kernel=SkylakeX", "OPENBLAS_CORETYPE=Haswell");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto summary = loci::test::slurp(dir.path() / "run/summary.json");
  CHECK(summary.find("\"kernel\": \"Haswell\"") != std::string::npos);
  CHECK(summary.find("set by the user") != std::string::npos);

  loci::test::TempDir other;
  // Without a user's variable (some machines set one for every process): loci's own choice is what is refused.
  r = loci::test::run_loci(
      "train -q " + loci::test::train_config(other) + " train.epochs=1 train.blas_kernel=NoSuchKernel",
      "env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  summary = loci::test::slurp(other.path() / "run/summary.json");
  CHECK(summary.find("NoSuchKernel is not in this OpenBLAS") != std::string::npos);
}

TEST_CASE("bf16 products go to oneDNN only where LibTorch sends them and oneDNN runs an AVX-512 instruction set") {
  using loci::cpu::bf16_products;
  using loci::cpu::Bf16Products;
  const auto avx512 = features_from_flags("avx avx2 fma avx512f avx512dq avx512bw avx512vl avx512_bf16 amx_tile");
  CHECK(bf16_products(true, "avx512_core_amx", avx512) == Bf16Products::onednn);
  CHECK(bf16_products(true, "avx512_core", avx512) == Bf16Products::onednn);
  CHECK(bf16_products(false, "avx512_core_amx", avx512) == Bf16Products::reference_loops);
  // A user's ONEDNN_MAX_CPU_ISA=AVX2 on an AVX-512 CPU: LibTorch would still send them, and oneDNN would fail.
  CHECK(loci::cpu::libtorch_sends_bf16_to_onednn(true, avx512));
  CHECK(bf16_products(true, "avx2", avx512) == Bf16Products::reference_loops);
  CHECK(bf16_products(true, "avx2", features_from_flags("avx avx2 fma")) == Bf16Products::reference_loops);
  CHECK_FALSE(loci::cpu::libtorch_sends_bf16_to_onednn(true, features_from_flags("avx2 fma avx512f avx512bw")));
}

namespace {

nlohmann::json train_bf16(const loci::test::TempDir& dir, const std::string& env, std::string& output) {
  const auto r =
      loci::test::run_loci("train " + loci::test::train_config(dir) + " train.epochs=1 train.precision=bf16", env);
  output = r.output;
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(loci::test::slurp(dir.path() / "run/summary.json"));
}

}  // namespace

TEST_CASE(
    "a bf16 run records oneDNN's instruction set and where its products ran, and a cap below AVX-512 still trains") {
  const auto cpu = loci::cpu::features();
  loci::test::TempDir plain;
  std::string out;
  auto dnn = train_bf16(plain, "env -u ONEDNN_MAX_CPU_ISA -u DNNL_MAX_CPU_ISA", out).at("onednn");
  const std::string isa = dnn.at("isa");
  const bool onednn = loci::cpu::bf16_products(!isa.empty(), isa, cpu) == loci::cpu::Bf16Products::onednn;
  CHECK(dnn.at("bf16_products") == (onednn ? "oneDNN" : "LibTorch's reference loops"));
  CHECK(dnn.at("isa_cap") == "");
  CHECK(out.find("loci: bf16 products run on") != std::string::npos);

  // Capped by the user below what LibTorch's bf16 products need on oneDNN: they move to LibTorch's own loops, said.
  loci::test::TempDir capped;
  dnn = train_bf16(capped, "ONEDNN_MAX_CPU_ISA=AVX2", out).at("onednn");
  CHECK(dnn.at("isa_cap") == "AVX2");
  CHECK(dnn.at("bf16_products") == "LibTorch's reference loops");
  if (!isa.empty()) {
    CHECK(dnn.at("isa") == "avx2");  // the cap holds
    if (loci::cpu::libtorch_sends_bf16_to_onednn(true, cpu))
      CHECK(out.find("oneDNN runs avx2 (capped by ONEDNN_MAX_CPU_ISA=AVX2)") != std::string::npos);
  }
}

TEST_CASE("a run records and says what its chunk products run on, and trains on BLAS alone where libxsmm has none") {
  loci::test::TempDir generated;
  auto r =
      loci::test::run_loci("train " + loci::test::train_config(generated) + " train.epochs=1", "env -u LIBXSMM_TARGET");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto summary = nlohmann::json::parse(loci::test::slurp(generated.path() / "run/summary.json"));
  const std::string products = summary.at("chunk_products");
  CHECK(products.rfind("libxsmm 1.17", 0) == 0);  // this project's x86 CPUs all have generated kernels
  CHECK(r.output.find("loci: chunk products: " + products) != std::string::npos);

  // libxsmm's generic target stands for a CPU it generates nothing for: every product on BLAS, said and recorded.
  loci::test::TempDir fallback;
  r = loci::test::run_loci("train " + loci::test::train_config(fallback) + " train.epochs=1", "LIBXSMM_TARGET=generic");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  summary = nlohmann::json::parse(loci::test::slurp(fallback.path() / "run/summary.json"));
  CHECK(std::string(summary.at("chunk_products")).rfind("none (", 0) == 0);
  CHECK(r.output.find("loci: chunk products: none (") != std::string::npos);
}
