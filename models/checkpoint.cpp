#include "models/checkpoint.hpp"

namespace loci::models {

void save_module(const torch::nn::Module& module, torch::serialize::OutputArchive& archive, const std::string& key) {
  torch::serialize::OutputArchive nested;
  module.save(nested);
  archive.write(key, nested);
}

void load_module(torch::nn::Module& module, torch::serialize::InputArchive& archive, const std::string& key) {
  torch::serialize::InputArchive nested;
  archive.read(key, nested);
  module.load(nested);
}

void save_checkpoint(const torch::nn::Module& module, const std::string& path) {
  torch::serialize::OutputArchive archive;
  save_module(module, archive);
  archive.save_to(path);
}

void load_checkpoint(torch::nn::Module& module, const std::string& path) {
  torch::serialize::InputArchive archive;
  archive.load_from(path);
  load_module(module, archive);
}

}  // namespace loci::models
