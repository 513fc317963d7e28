// The image_patches config: the IDX files it reads, the patch size, the augmentations, and the splits planned from
// them (which source images each split takes).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/config/node.hpp"

namespace loci::image_patches {

struct ImageOptions {
  std::uint64_t seed = 0;
  // Fashion-MNIST as Debian's dataset-fashion-mnist installs it.
  std::string train_images = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz";
  std::string train_labels = "/usr/share/datasets/fashion-mnist/train-labels-idx1-ubyte.gz";
  std::string test_images = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz";
  std::string test_labels = "/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz";
  std::int64_t patch = 7;
  std::int64_t shift = 0;  // augment.shift: pixels an image may move each way (train split only)
  bool flip = false;       // augment.flip: mirror left-right with probability 1/2 (train split only)
  std::vector<std::pair<std::string, std::int64_t>> splits;
};

// Reads the keys; a problem is a UserError at the key's position.
ImageOptions read_options(const config::Node& resolved);

const char* schema_text();

}  // namespace loci::image_patches
