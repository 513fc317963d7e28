// image_patches: real images cut into square patches (Experiment 4). A token is one patch, its pixels scaled to
// [0, 1] its features, its (row, column) on the patch grid its true position: the setting of a vision
// transformer's learned `pos_embed`. Images and labels come from IDX files (Fashion-MNIST by default); the train and
// validation splits are disjoint draws from the source's training images, the test split from its test images.
#include <cmath>
#include <cstdint>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "core/config/fail_at.hpp"
#include "core/error.hpp"
#include "idx_file.hpp"
#include "image_options.hpp"
#include "plugins/api/plugin.hpp"
#include "sim/random/stream.hpp"

namespace loci::image_patches {

namespace {

using datasets::DType;

enum Slot : std::size_t { kTokens, kLabel, kSource, kShiftRow, kShiftColumn, kFlipped };

// One source's images [n, rows, columns] with their labels.
struct Source {
  IdxArray images, labels;
  std::int64_t count() const { return images.dims[0]; }
};

Source read_source(const std::string& images, const std::string& labels) {
  Source s{read_idx(images), read_idx(labels)};
  if (s.images.dims.size() != 3) throw UserError(images + ": images must be an IDX array [image, row, column]");
  if (s.labels.dims.size() != 1) throw UserError(labels + ": labels must be an IDX array [image]");
  if (s.labels.dims[0] != s.images.dims[0])
    throw UserError(labels + ": " + std::to_string(s.labels.dims[0]) + " labels for the " +
                    std::to_string(s.images.dims[0]) + " images of " + images);
  return s;
}

class ImagePatches final : public plugins::Generator {
 public:
  void configure(const config::Node& resolved) override {
    opt_ = read_options(resolved);
    train_ = read_source(opt_.train_images, opt_.train_labels);
    test_ = read_source(opt_.test_images, opt_.test_labels);
    rows_ = train_.images.dims[1];
    columns_ = train_.images.dims[2];
    if (test_.images.dims[1] != rows_ || test_.images.dims[2] != columns_)
      throw UserError(opt_.test_images + ": images of " + std::to_string(test_.images.dims[1]) + "x" +
                      std::to_string(test_.images.dims[2]) + " pixels, the training images' are " +
                      std::to_string(rows_) + "x" + std::to_string(columns_));
    if (rows_ % opt_.patch != 0 || columns_ % opt_.patch != 0)
      config::fail_at(resolved.at("patch").mark(), "patch " + std::to_string(opt_.patch) + " does not divide the " +
                                                       std::to_string(rows_) + "x" + std::to_string(columns_) +
                                                       " images");
    classes_ = 0;
    for (const auto* labels : {&train_.labels.bytes, &test_.labels.bytes})
      for (const auto l : *labels) classes_ = std::max<std::int64_t>(classes_, std::int64_t{l} + 1);
    plan_splits(resolved);
    build_layout();
  }

  const datasets::DatasetLayout& layout() const override { return layout_; }

  void fill(const datasets::SampleKey& key, const datasets::SampleSlots& out) const override {
    const bool from_test = key.split == "test";
    const Source& source = from_test ? test_ : train_;
    const std::int64_t image = chosen_.at(key.split).at(static_cast<std::size_t>(key.index));
    // Augmentation, train split only, drawn per sample from the seed.
    std::int64_t dr = 0, dc = 0;
    bool flip = false;
    if (key.split == "train" && (opt_.shift > 0 || opt_.flip)) {
      auto rng = sim::Rng::stream(opt_.seed, "augment", static_cast<std::uint64_t>(key.index));
      const auto span = static_cast<std::uint64_t>(2 * opt_.shift + 1);
      dr = static_cast<std::int64_t>(rng.below(span)) - opt_.shift;
      dc = static_cast<std::int64_t>(rng.below(span)) - opt_.shift;
      flip = opt_.flip && rng.bernoulli(0.5);
    }
    const std::uint8_t* pixels = source.images.bytes.data() + image * rows_ * columns_;
    auto pixel = [&](std::int64_t r, std::int64_t c) -> float {
      const std::int64_t sr = r - dr, sc0 = c - dc;
      const std::int64_t sc = flip ? columns_ - 1 - sc0 : sc0;
      if (sr < 0 || sr >= rows_ || sc < 0 || sc >= columns_) return 0.0f;
      return static_cast<float>(pixels[sr * columns_ + sc]) / 255.0f;
    };
    float* tokens = out.get<float>(kTokens);
    const std::int64_t p = opt_.patch, grid_columns = columns_ / p;
    for (std::int64_t t = 0; t < tokens_; ++t) {
      const std::int64_t r0 = (t / grid_columns) * p, c0 = (t % grid_columns) * p;
      for (std::int64_t i = 0; i < p; ++i)
        for (std::int64_t j = 0; j < p; ++j) tokens[t * p * p + i * p + j] = pixel(r0 + i, c0 + j);
    }
    *out.get<std::uint8_t>(kLabel) = source.labels.bytes[static_cast<std::size_t>(image)];
    *out.get<std::int64_t>(kSource) = image;
    *out.get<std::int8_t>(kShiftRow) = static_cast<std::int8_t>(dr);
    *out.get<std::int8_t>(kShiftColumn) = static_cast<std::int8_t>(dc);
    *out.get<std::uint8_t>(kFlipped) = flip ? 1 : 0;
  }

  std::string card_prose() const override {
    std::ostringstream s;
    s << "Real images cut into patches (image_patches): every image of " << rows_ << "x" << columns_
      << " pixels is cut into " << tokens_ << " patches of " << opt_.patch << "x" << opt_.patch
      << " pixels, in row-major order; a token is one patch, its " << opt_.patch * opt_.patch
      << " pixels scaled to [0, 1] its features. `/positions` is each patch's (row, column) on the "
      << rows_ / opt_.patch << "x" << columns_ / opt_.patch
      << " patch grid, exact by construction. The train and validation splits are "
      << "disjoint draws (by seed) from the " << train_.count() << " images of " << opt_.train_images
      << "; the test split from the " << test_.count() << " images of " << opt_.test_images << " (index.json "
      << "records their SHA-256). " << classes_ << " classes (`label`); `source_index` is each sample's image in its "
      << "source file.";
    if (opt_.shift > 0 || opt_.flip)
      s << " The train split is augmented once, when written: each image moved by up to " << opt_.shift
        << " pixels each way (border 0)" << (opt_.flip ? " and mirrored left-right with probability 1/2" : "")
        << ", recorded in `shift_row`, `shift_column` and `flipped`; a moved image changes which pixels a patch "
        << "holds, never the patch grid.";
    s << "\n";
    return s.str();
  }

  std::vector<std::string> input_files() const override {
    return {opt_.train_images, opt_.train_labels, opt_.test_images, opt_.test_labels};
  }

  // Images nobody here made: their licence is the user's to name (Fashion-MNIST: MIT; configs/images.yaml says so).
  std::string default_license() const override { return "unknown"; }

 private:
  // Which source image each sample of each split is: train then validation from one seeded order of the training
  // images (so they never share an image), test from a seeded order of the test images.
  void plan_splits(const config::Node& resolved) {
    chosen_.clear();
    auto order = [&](std::int64_t n, const char* name) {
      std::vector<std::int64_t> o(static_cast<std::size_t>(n));
      std::iota(o.begin(), o.end(), 0);
      sim::Rng::stream(opt_.seed, name, 0).shuffle(o.begin(), o.end());
      return o;
    };
    const auto train_order = order(train_.count(), "train_order"), test_order = order(test_.count(), "test_order");
    std::int64_t from_train = 0;
    for (const auto& [name, count] : opt_.splits) {
      const bool test = name == "test";
      const auto& o = test ? test_order : train_order;
      const std::int64_t first = test ? 0 : from_train;
      if (first + count > static_cast<std::int64_t>(o.size()))
        throw UserError(resolved.at("splits").find(name)->mark().str() + ": splits." + name + " = " +
                        std::to_string(count) + ", but " +
                        (test ? opt_.test_images + " holds " + std::to_string(o.size()) + " images"
                              : opt_.train_images + " holds " + std::to_string(o.size()) +
                                    " images for train and validation together"));
      chosen_[name].assign(o.begin() + first, o.begin() + first + count);
      if (!test) from_train += count;
    }
  }

  void build_layout() {
    const std::int64_t p = opt_.patch, grid_rows = rows_ / p, grid_columns = columns_ / p;
    tokens_ = grid_rows * grid_columns;
    layout_ = {};
    layout_.sample_arrays = {
        {"tokens",
         DType::f32,
         {"token", "channel"},
         {tokens_, p * p},
         "one token per patch, row-major over the patch grid: its pixels, row-major, scaled to [0, 1]"},
        {"label", DType::u8, {}, {}, "the image's class"},
        {"source_index", DType::i64, {}, {}, "the image's index in its source IDX file"},
        {"shift_row", DType::i8, {}, {}, "pixels the image was moved down (augment.shift; train split only)"},
        {"shift_column", DType::i8, {}, {}, "pixels the image was moved right"},
        {"flipped", DType::u8, {}, {}, "1 where the image was mirrored left-right (augment.flip)"},
    };
    std::vector<float> positions;
    std::vector<float> distance;
    for (std::int64_t t = 0; t < tokens_; ++t)
      positions.push_back(static_cast<float>(t / grid_columns)),
          positions.push_back(static_cast<float>(t % grid_columns));
    for (std::int64_t a = 0; a < tokens_; ++a)
      for (std::int64_t b = 0; b < tokens_; ++b)
        distance.push_back(static_cast<float>(
            std::hypot(positions[2 * a] - positions[2 * b], positions[2 * a + 1] - positions[2 * b + 1])));
    layout_.dataset_arrays = {
        datasets::Array::of(
            {"positions", DType::f32, {"token", "axis"}, {tokens_, 2}, "each patch's (row, column) on the patch grid"},
            positions),
        datasets::Array::of({"distance",
                             DType::f32,
                             {"token", "peer"},
                             {tokens_, tokens_},
                             "euclidean distance between patch-grid positions, in patches"},
                            distance),
    };
    auto& a = layout_.attributes;
    a["classes"] = classes_;
    a["image_rows"] = rows_;
    a["image_columns"] = columns_;
    a["patch"] = p;
    a["grid_rows"] = grid_rows;
    a["grid_columns"] = grid_columns;
    a["augment_shift"] = opt_.shift;
    a["augment_flip"] = static_cast<std::int64_t>(opt_.flip);
    a["source_train_images"] = train_.count();
    a["source_test_images"] = test_.count();
  }

  ImageOptions opt_;
  Source train_, test_;
  std::int64_t rows_ = 0, columns_ = 0, classes_ = 0, tokens_ = 0;
  std::map<std::string, std::vector<std::int64_t>> chosen_;
  datasets::DatasetLayout layout_;
};

}  // namespace

}  // namespace loci::image_patches

LOCI_PLUGIN(LOCI_PLUGIN_GENERATOR, "image_patches", "0.1.0",
            "Real images cut into patches (Experiment 4): patch tokens, true positions = the patch grid",
            loci::image_patches::schema_text(), loci::image_patches::ImagePatches)
