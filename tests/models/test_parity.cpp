// Numerical parity with bench/reference/paper_model.py, a plain PyTorch version of the paper's model written
// independently: the C++ model's weights and an input batch go to Python as pickles (torch::pickle_save, which
// torch.load reads), the reference computes its own fixed tables, and its logits come back the same way.

#include "tests/models/helpers.hpp"

#include <torch/serialize.h>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

using namespace loci::models;
using namespace loci::models::test;

namespace {

struct ParityCase {
  std::string name;
  PEOptions pe;
  int64_t heads = 1;
};

void write_bytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

torch::Tensor read_tensor(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return torch::pickle_load(bytes).toTensor();
}

}  // namespace

TEST_CASE("the paper's model matches the Python reference to 1e-5 for every PE it has") {
  const std::vector<ParityCase> cases = {
      {"none", PEOptions("none")},
      // sigma 1 so that the PE moves the logits visibly.
      {"learned", PEOptions("learned").init(InitOptions("normal").std(1.0))},
      {"sinusoidal_1d", PEOptions("sinusoidal_1d")},
      {"sinusoidal_2d", PEOptions("sinusoidal_2d")},
      {"random_fixed", PEOptions("random_fixed")},
      // Non-zero tables, or a wrong offset index would go unnoticed.
      {"relative_bias", PEOptions("relative").init(InitOptions("normal").std(0.5))},
      {"relative_music_causal", PEOptions("relative").variant(RelativeVariant::music_causal)},
      {"rope", PEOptions("rope")},
      {"rope_2_heads", PEOptions("rope"), 2},
      {"alibi_4_heads", PEOptions("alibi"), 4},
  };
  const auto dir = std::filesystem::path(LOCI_BUILD_DIR) / "test_models_parity";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto x = puzzle_batch(16, 77);

  std::vector<torch::Tensor> cpp_logits;
  std::string command = "/usr/bin/python3 " + std::string(LOCI_SOURCE_DIR) + "/bench/reference/paper_model.py --parity";
  for (const auto& c : cases) {
    auto options = ModelOptions().encoder(EncoderOptions().heads(c.heads).pe(c.pe));
    auto model = make_model(options, grid(), 2024);
    model->eval();
    {
      torch::NoGradGuard no_grad;
      cpp_logits.push_back(model->classify(x));
    }
    c10::Dict<std::string, at::Tensor> state;
    for (const auto& p : model->named_parameters()) state.insert(p.key(), p.value().detach());
    for (const auto& b : model->named_buffers()) state.insert(b.key(), b.value());
    c10::impl::GenericDict payload(c10::StringType::get(), c10::AnyType::get());
    payload.insert("pe", c.pe.type());
    payload.insert("variant", choice_name(c.pe.variant()));
    payload.insert("heads", c.heads);
    payload.insert("d_model", options.encoder().d_model());
    payload.insert("blocks", options.encoder().blocks());
    payload.insert("x", x);
    payload.insert("state", state);
    const auto path = (dir / (c.name + ".pt")).string();
    write_bytes(path, torch::pickle_save(payload));
    command += " " + path;
  }
  command += " > " + (dir / "python.log").string() + " 2>&1";
  const int rc = std::system(command.c_str());
  if (rc != 0) {
    std::ifstream log(dir / "python.log");
    FAIL("the reference failed (" << rc << "):\n" << std::string(std::istreambuf_iterator<char>(log), {}));
  }
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto theirs = read_tensor((dir / (cases[i].name + ".pt.logits.pt")).string());
    REQUIRE(theirs.sizes() == cpp_logits[i].sizes());
    const double diff = (theirs - cpp_logits[i]).abs().max().item<double>();
    INFO(cases[i].name << ": max |C++ - Python| = " << diff << ", largest logit " << theirs.abs().max().item<double>());
    CHECK(diff < 1e-5);
    std::printf("parity %-22s max|C++ - Python| = %.3g\n", cases[i].name.c_str(), diff);
  }
}
