#pragma once
// Saving and loading a model's parameters and buffers. The archive forms let a trainer put the model beside its
// optimizer state, step and RNG state in one file; the path forms write an archive holding the model alone.

#include <torch/nn/module.h>
#include <torch/serialize/archive.h>

#include <string>

namespace loci::models {

// Writes every parameter and buffer of `module` into `archive` under `key` (a nested archive).
void save_module(const torch::nn::Module& module, torch::serialize::OutputArchive& archive,
                 const std::string& key = "model");
// Reads them back into a module of the same structure (same options and positions); throws on a missing or
// mis-shaped tensor.
void load_module(torch::nn::Module& module, torch::serialize::InputArchive& archive, const std::string& key = "model");

void save_checkpoint(const torch::nn::Module& module, const std::string& path);
void load_checkpoint(torch::nn::Module& module, const std::string& path);

}  // namespace loci::models
