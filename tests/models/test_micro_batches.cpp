// The trainer's step as micro-batches (models/micro_batches.hpp): the summed parts' gradient is the batch's, the bytes
// do not depend on the thread count (dropout included), and a failing part reaches the caller.
#include "models/micro_batches.hpp"
#include "tests/models/helpers.hpp"

#include <ATen/Parallel.h>

// After LibTorch's headers: glog's CHECK would otherwise replace Catch's.
#include <catch2/catch.hpp>

#include <stdexcept>

using namespace loci::models;
using loci::models::test::grid;
using loci::models::test::max_difference;
using loci::models::test::puzzle_batch;
using loci::models::test::small_model;

namespace {

constexpr int64_t kBatch = 12;

// A fresh model of the given options (seed 0) and its gradient on the fixed batch, computed in `parts` parts on
// `threads` threads, with part p's dropout generator seeded with seed + p.
std::vector<torch::Tensor> gradients(const ModelOptions& options, int parts, int threads, std::uint64_t seed = 1000) {
  Model model = make_model(options, grid(), 0);
  model->train();
  const auto x = puzzle_batch(kBatch, 3);
  const auto y = torch::arange(kBatch) % 4;
  MicroBatches micro(MicroBatchOptions(parts, threads));
  micro.reseed([&](int p) { return seed + static_cast<std::uint64_t>(p); });
  micro.backward(model->parameters(), [&](int p) -> torch::Tensor {
    const auto r = MicroBatches::range(p, parts, kBatch);
    if (r.first == r.second) return {};
    const auto share = static_cast<double>(r.second - r.first) / kBatch;
    return torch::cross_entropy_loss(model->classify(x.narrow(0, r.first, r.second - r.first)),
                                     y.narrow(0, r.first, r.second - r.first)) *
           share;
  });
  std::vector<torch::Tensor> g;
  for (const auto& p : model->parameters()) g.push_back(p.grad().clone());
  return g;
}

bool identical(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!torch::equal(a[i], b[i])) return false;
  return true;
}

}  // namespace

TEST_CASE("parts cover the batch contiguously with sizes differing by at most one") {
  std::int64_t next = 0;
  for (int p = 0; p < 5; ++p) {
    const auto r = MicroBatches::range(p, 5, 12);
    CHECK(r.first == next);
    CHECK((r.second - r.first == 2 || r.second - r.first == 3));
    next = r.second;
  }
  CHECK(next == 12);
  const auto empty = MicroBatches::range(0, 2, 1);  // a batch of 1 in 2 parts: the first is empty
  CHECK(empty.first == empty.second);
}

TEST_CASE("the summed gradient of the parts is the whole batch's gradient") {
  const auto options = small_model(PEOptions("learned"));
  const auto whole = gradients(options, 1, 1);
  for (int parts : {2, 3, 12, 13}) {  // 13 parts of 12 samples: one part is empty
    INFO("parts " << parts);
    const auto split = gradients(options, parts, 2);
    CHECK(max_difference(whole, split) < 1e-6);
    CHECK(whole[0].abs().max().item<double>() > 1e-4);  // a gradient that is not trivially zero
  }
}

TEST_CASE("micro-batch gradients are the same bytes on any number of threads - dropout included") {
  auto options = small_model(PEOptions("sinusoidal_2d").sinusoidal_dropout(0.1));
  options.encoder().dropout(0.1);
  const int before = at::get_num_threads();
  for (int parts : {2, 3}) {
    INFO("parts " << parts);
    const auto one = gradients(options, parts, 1);
    CHECK(identical(one, gradients(options, parts, 2)));
    CHECK(identical(one, gradients(options, parts, 3)));  // more threads than parts
    // Dropout draws from each part's own generator: other seeds give other gradients.
    CHECK_FALSE(identical(one, gradients(options, parts, 2, 2000)));
  }
  CHECK(at::get_num_threads() == before);  // the workers' thread settings stay with the workers
}

TEST_CASE("a part that fails reaches the caller and leaves the gradients as they were") {
  Model model = make_model(small_model(PEOptions("learned")), grid(), 0);
  const auto x = puzzle_batch(4, 1);
  for (const auto& p : model->parameters()) p.mutable_grad() = torch::full_like(p, 7.0);
  MicroBatches micro(MicroBatchOptions(2, 2));
  auto fail_second = [&](int p) -> torch::Tensor {
    if (p == 1) throw std::runtime_error("part 1 failed");
    return model->classify(x.narrow(0, 0, 2)).sum();
  };
  CHECK_THROWS_WITH(micro.backward(model->parameters(), fail_second), "part 1 failed");
  for (const auto& p : model->parameters()) CHECK(torch::equal(p.grad(), torch::full_like(p, 7.0)));
  // The workers survive a failure: the next step works.
  const auto losses =
      micro.backward(model->parameters(), [&](int p) { return model->classify(x.narrow(0, 2 * p, 2)).sum(); });
  CHECK(losses.size() == 2);
  CHECK_FALSE(torch::equal(model->parameters()[0].grad(), torch::full_like(model->parameters()[0], 7.0)));
}
