#include "cpu/clones.hpp"  // first: it sets how the loops below are compiled

#include "models/kernels/bf16_products.hpp"

#include "cpu/bfloat16_bits.hpp"
#include "cpu/onednn.hpp"
#include "models/kernels/jit_gemm.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace loci::models {
namespace {

// Per thread, as LibTorch's autocast state is: each micro-batch enters its own scope on the thread that runs its
// forward pass, and a thread outside every scope (an evaluation beside a training step, say) stays float32. A
// count, so that scopes nest.
thread_local int bf16_scopes = 0;

// oneDNN's bf16 product where it runs natively and computes right (cpu/onednn.hpp opens it).
struct OneDnn {
  cpu::OneDnnGemmBf16 gemm = nullptr;
  std::string engine;  // empty: not usable here

  OneDnn() {
    const cpu::OneDnn& lib = cpu::onednn();
    gemm = lib.gemm_bf16;
    if (gemm == nullptr || !lib.loaded()) return;
    // Below these oneDNN emulates bfloat16 arithmetic with float32 instructions, slower than the float32 products.
    const bool native = lib.isa.find("bf16") != std::string::npos || lib.isa.find("amx") != std::string::npos;
    if (native && trial_agrees()) engine = "oneDNN gemm_bf16bf16f32 (" + lib.isa + ")";
  }

  // One small product against its known value: a library that refuses or miscomputes is not used.
  bool trial_agrees() const {
    using cpu::float_to_bf16;
    const std::uint16_t a[4] = {float_to_bf16(1.0f), float_to_bf16(2.0f), float_to_bf16(3.0f), float_to_bf16(4.0f)};
    const std::uint16_t b[4] = {float_to_bf16(0.5f), float_to_bf16(-1.0f), float_to_bf16(2.0f), float_to_bf16(1.5f)};
    float c[4] = {};
    if (gemm('N', 'N', 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2) != 0) return false;
    return c[0] == 4.5f && c[1] == 2.0f && c[2] == 9.5f && c[3] == 3.0f;
  }
};

const OneDnn& onednn() {
  static const OneDnn instance;
  return instance;
}

// Per-thread scratch for the rounded operands: chunk products run on many threads at once.
std::uint16_t* scratch(std::vector<std::uint16_t>& buffer, std::int64_t size) {
  if (static_cast<std::int64_t>(buffer.size()) < size) buffer.resize(static_cast<std::size_t>(size));
  return buffer.data();
}

}  // namespace

bool bf16_products_on() { return bf16_scopes > 0; }

Bf16ProductsScope::Bf16ProductsScope() { ++bf16_scopes; }
Bf16ProductsScope::~Bf16ProductsScope() { --bf16_scopes; }

std::string bf16_products_engine() { return onednn().engine; }

namespace rows {

namespace {

LOCI_CLONES void round_rows(std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld,
                            std::uint16_t* out) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* from = in + r * ld;
    std::uint16_t* to = out + r * cols;
    for (std::int64_t j = 0; j < cols; ++j) to[j] = cpu::float_to_bf16(from[j]);
  }
}

}  // namespace

void round_to_bf16(std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld, std::uint16_t* out) {
  // libxsmm's generated conversion runs 32 floats an instruction where the CPU has AVX512_BF16; the loop above took
  // a fifth of a bf16 step's products there.
  if (!jit_round_to_bf16(rows, cols, in, ld, out)) round_rows(rows, cols, in, ld, out);
}

void bf16_gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
               std::int64_t lda, const float* b, const std::uint16_t* b16, std::int64_t ldb, float beta, float* c,
               std::int64_t ldc) {
  const auto& lib = onednn();
  if (lib.engine.empty()) throw std::logic_error("bf16_gemm called where bf16_products_engine() is empty");
  if (m == 0 || n == 0) return;
  if (k == 0) {  // nothing to sum (and no leading dimension oneDNN accepts): C is beta C
    for (std::int64_t r = 0; r < m; ++r)
      for (std::int64_t j = 0; j < n; ++j) c[r * ldc + j] = beta == 0.0f ? 0.0f : beta * c[r * ldc + j];
    return;
  }
  thread_local std::vector<std::uint16_t> a_buffer, b_buffer;
  // Stored shapes: op(A) is [m, k], so A lies as [k, m] when transposed; likewise B.
  const std::int64_t a_rows = trans_a ? k : m, a_cols = trans_a ? m : k;
  std::uint16_t* a16 = scratch(a_buffer, a_rows * a_cols);
  round_to_bf16(a_rows, a_cols, a, lda, a16);
  std::int64_t ldb16 = ldb;
  if (b16 == nullptr) {
    const std::int64_t b_rows = trans_b ? n : k, b_cols = trans_b ? k : n;
    std::uint16_t* packed = scratch(b_buffer, b_rows * b_cols);
    round_to_bf16(b_rows, b_cols, b, ldb, packed);
    b16 = packed;
    ldb16 = b_cols;
  }
  const int status =
      lib.gemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a16, a_cols, b16, ldb16, beta, c, ldc);
  if (status != 0)
    throw std::runtime_error("oneDNN gemm_bf16bf16f32 failed (status " + std::to_string(status) + ") on " +
                             std::to_string(m) + " x " + std::to_string(n) + " x " + std::to_string(k));
}

}  // namespace rows
}  // namespace loci::models
