#include "image_options.hpp"

#include "core/common_options.hpp"
#include "core/config/fail_at.hpp"
#include "core/config/options.hpp"
#include "core/error.hpp"

namespace loci::image_patches {

namespace {

using K = ImageOptions;

const config::OptionTable<K>& table() {
  static const config::OptionTable<K> t = [] {
    config::OptionTable<K> t;
    t.add("images.train", [](K& k) -> std::string& { return k.train_images; })
        .path()
        .doc(
            "IDX file of the source's training images [image, row, column] (plain or .gz; default Fashion-MNIST "
            "from Debian's dataset-fashion-mnist); the train and validation splits are drawn from it");
    t.add("images.train_labels", [](K& k) -> std::string& { return k.train_labels; })
        .path()
        .doc("IDX file of their labels [image]");
    t.add("images.test", [](K& k) -> std::string& { return k.test_images; })
        .path()
        .doc("IDX file of the source's test images; the test split is drawn from it");
    t.add("images.test_labels", [](K& k) -> std::string& { return k.test_labels; })
        .path()
        .doc("IDX file of their labels");
    t.add("patch", [](K& k) -> std::int64_t& { return k.patch; })
        .min(1)
        .doc(
            "side of the square patches, in pixels: one token per patch, its pixels (scaled to [0, 1]) the "
            "token's features, its (row, column) on the patch grid the true position; must divide the image");
    t.add("augment.shift", [](K& k) -> std::int64_t& { return k.shift; })
        .min(0)
        .doc(
            "train split only: move each image by up to this many pixels each way (drawn per image from the seed; "
            "the border filled with 0), so a patch holds other pixels while its grid position stays");
    t.add("augment.flip", [](K& k) -> bool& {
       return k.flip;
     }).doc("train split only: mirror each image left-right with probability 1/2 (drawn per image from the seed)");
    return t;
  }();
  return t;
}

}  // namespace

const char* schema_text() {
  static const std::string text = table().schema();
  return text.c_str();
}

ImageOptions read_options(const config::Node& r) {
  ImageOptions o;
  table().read(r, o);
  GeneratorCommon common;
  generator_common_options().read(r, common);
  o.seed = static_cast<std::uint64_t>(common.seed);
  o.splits = common.splits;
  for (const auto& [name, count] : o.splits)
    if (name != "train" && name != "validation" && name != "test")
      throw UserError(r.at("splits").find(name)->key_mark().str() + ": split '" + name +
                      "': image_patches makes train and validation (from images.train) and test (from images.test)");
  for (const char* key : {"images.train", "images.train_labels", "images.test", "images.test_labels"})
    if (r.at(key).text().empty()) config::fail_at(r.at(key).mark(), "'" + std::string(key) + "' names no file");
  return o;
}

}  // namespace loci::image_patches
