// image_patches through `loci generate`: IDX images cut into patch tokens at their exact grid positions, splits
// that never share an image, augmentation that moves pixels but not the grid, and bad files refused in one line.
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

using loci::test::refusal;
using loci::test::run_loci;
namespace fs = std::filesystem;

namespace {

// An IDX file of unsigned bytes: magic 0 0 8 <rank>, the dimensions big-endian, the bytes.
void write_idx(const fs::path& path, const std::vector<std::uint32_t>& dims, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  const unsigned char magic[4] = {0, 0, 8, static_cast<unsigned char>(dims.size())};
  out.write(reinterpret_cast<const char*>(magic), 4);
  for (const auto d : dims) {
    const unsigned char b[4] = {static_cast<unsigned char>(d >> 24), static_cast<unsigned char>(d >> 16),
                                static_cast<unsigned char>(d >> 8), static_cast<unsigned char>(d)};
    out.write(reinterpret_cast<const char*>(b), 4);
  }
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// n images of 8x8 whose pixel (r, c) of image i is (i * 64 + r * 8 + c) mod 256, labels i mod 3.
void write_source(const fs::path& images, const fs::path& labels, std::uint32_t n) {
  std::vector<std::uint8_t> pixels, classes;
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t k = 0; k < 64; ++k) pixels.push_back(static_cast<std::uint8_t>((i * 64 + k) % 256));
    classes.push_back(static_cast<std::uint8_t>(i % 3));
  }
  write_idx(images, {n, 8, 8}, pixels);
  write_idx(labels, {n}, classes);
}

struct Images {
  loci::test::TempDir dir;
  std::string config(const std::string& extra = "") const {
    const auto p = dir.path();
    return dir.write("images.yaml", "generator: image_patches\nout: " + (p / "data").string() +
                                        "\nsplits: {train: 10, validation: 5, test: 6}\nsamples_per_shard: 8\n"
                                        "license: cc0-1.0\npatch: 4\nimages:\n  train: " +
                                        (p / "train-images.gz").string() + "\n  train_labels: " +
                                        (p / "train-labels").string() + "\n  test: " + (p / "test-images").string() +
                                        "\n  test_labels: " + (p / "test-labels").string() + "\n" + extra);
  }
  Images() {
    write_source(dir.path() / "train-images", dir.path() / "train-labels", 20);
    write_source(dir.path() / "test-images", dir.path() / "test-labels", 6);
    // The training images compressed, as Debian ships Fashion-MNIST: read through zlib alike.
    REQUIRE(std::system(("gzip -n " + (dir.path() / "train-images").string()).c_str()) == 0);
  }
};

}  // namespace

TEST_CASE("image_patches cuts IDX images into patch tokens at their grid positions, splits sharing no image") {
  Images images;
  const auto r = run_loci("generate -q " + images.config());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const fs::path data = images.dir.path() / "data";
  // Every token is its patch's pixels / 255, row-major; positions are the 2x2 patch grid; train and validation are
  // disjoint draws of the 20 training images; xarray opens a shard; the sources' checksums are in index.json.
  const std::string py =
      "/usr/bin/python3 -c \"import glob, json, h5py, numpy, xarray; d = '" + data.string() +
      "'; "
      "ids = {}\n"
      "for s in ('train', 'validation', 'test'):\n"
      "  shards = sorted(glob.glob(d + '/' + s + '-*.h5')); assert shards, s\n"
      "  for f in shards:\n"
      "    h = h5py.File(f); t = h['tokens'][:]; assert t.shape[1:] == (4, 16), t.shape\n"
      "    assert (h['positions'][:] == [[0, 0], [0, 1], [1, 0], [1, 1]]).all()\n"
      "    for k, i in enumerate(h['source_index'][:]):\n"
      "      img = ((i * 64 + numpy.arange(64)) % 256).reshape(8, 8) / 255.0\n"
      "      want = img.reshape(2, 4, 2, 4).transpose(0, 2, 1, 3).reshape(4, 16)\n"
      "      assert numpy.allclose(t[k], want, atol=1e-6), (s, i)\n"
      "      assert h['label'][k] == i % 3\n"
      "      ids.setdefault(s, []).append(int(i))\n"
      "assert len(ids['train']) == 10 and len(ids['validation']) == 5 and len(ids['test']) == 6, ids\n"
      "assert not set(ids['train']) & set(ids['validation']), ids\n"
      "x = xarray.open_dataset(sorted(glob.glob(d + '/train-*.h5'))[0], engine='h5netcdf'); assert 'tokens' in x\n"
      "i = json.load(open(d + '/index.json')); assert len(i['inputs']) == 4 and all(len(f['sha256']) == 64 for f in "
      "i['inputs']), i['inputs']\"";
  CHECK(std::system(py.c_str()) == 0);
}

TEST_CASE("image_patches augments the train split only: moved and mirrored pixels on the same patch grid") {
  Images images;
  REQUIRE(run_loci("generate -q " + images.config("augment: {shift: 2, flip: true}\n")).exit_code == 0);
  const std::string py = "/usr/bin/python3 -c \"import glob, h5py, numpy; d = '" +
                         (images.dir.path() / "data").string() +
                         "'; "
                         "moved = 0\n"
                         "for s in ('train', 'test'):\n"
                         "  for f in sorted(glob.glob(d + '/' + s + '-*.h5')):\n"
                         "    h = h5py.File(f)\n"
                         "    for k, i in enumerate(h['source_index'][:]):\n"
                         "      dr, dc, fl = int(h['shift_row'][k]), int(h['shift_column'][k]), int(h['flipped'][k])\n"
                         "      if s == 'test': assert (dr, dc, fl) == (0, 0, 0)\n"
                         "      assert abs(dr) <= 2 and abs(dc) <= 2\n"
                         "      src = ((i * 64 + numpy.arange(64)) % 256).reshape(8, 8) / 255.0\n"
                         "      out = numpy.zeros((8, 8))\n"
                         "      for r in range(8):\n"
                         "        for c in range(8):\n"
                         "          sr, sc = r - dr, c - dc\n"
                         "          sc = 7 - sc if fl else sc\n"
                         "          if 0 <= sr < 8 and 0 <= sc < 8: out[r, c] = src[sr, sc]\n"
                         "      want = out.reshape(2, 4, 2, 4).transpose(0, 2, 1, 3).reshape(4, 16)\n"
                         "      assert numpy.allclose(h['tokens'][k], want, atol=1e-6), (s, i, dr, dc, fl)\n"
                         "      moved += (dr, dc, fl) != (0, 0, 0)\n"
                         "assert moved > 0\"";
  CHECK(std::system(py.c_str()) == 0);
}

TEST_CASE("image_patches refuses bad IDX files, a patch that does not divide the image and mismatched labels") {
  Images images;
  const fs::path p = images.dir.path();
  // A patch that does not divide 8 pixels: named at its key.
  CHECK_THAT(refusal(run_loci("generate -q " + images.config() + " patch=3")),
             Catch::Contains("patch 3 does not divide the 8x8 images"));
  // Labels for other images: both files named.
  write_idx(p / "test-labels", {5}, {0, 1, 2, 0, 1});
  CHECK_THAT(refusal(run_loci("generate -q " + images.config())),
             Catch::Contains("5 labels for the 6 images") && Catch::Contains("test-labels"));
  // Truncated images: the file and what it lacks.
  write_source(p / "test-images", p / "test-labels", 6);
  fs::resize_file(p / "test-images", fs::file_size(p / "test-images") - 10);
  CHECK_THAT(refusal(run_loci("generate -q " + images.config())),
             Catch::Contains("test-images: ends before") && Catch::Contains("truncated"));
  // Not an IDX file at all.
  std::ofstream(p / "test-images") << "P5 8 8 255\n";
  CHECK_THAT(refusal(run_loci("generate -q " + images.config())), Catch::Contains("test-images: not an IDX file"));
  // More images asked for than the source holds.
  write_source(p / "test-images", p / "test-labels", 6);
  CHECK_THAT(refusal(run_loci("generate -q " + images.config() + " splits.test=7")),
             Catch::Contains("splits.test = 7") && Catch::Contains("holds 6 images"));
}

TEST_CASE("configs/paper/exp4_images_quick.yaml runs end to end on tiny images, its report laying PEs on the grid") {
  Images images;
  const fs::path p = images.dir.path(), out = p / "e4";
  const std::string src = " generate.images.train=" + (p / "train-images.gz").string() +
                          " generate.images.train_labels=" + (p / "train-labels").string() +
                          " generate.images.test=" + (p / "test-images").string() +
                          " generate.images.test_labels=" + (p / "test-labels").string();
  const auto r = run_loci("run -q " + std::string(LOCI_SOURCE_DIR) +
                          "/configs/paper/exp4_images_quick.yaml out=" + out.string() + src +
                          " 'generate.splits={train: 12, validation: 4, test: 6}' generate.samples_per_shard=8 "
                          "generate.patch=4 'train.sweep=[[\"task.type=classification\", \"model.pe.type=learned\", "
                          "\"model.pe.init.std=0.02,2.0\", \"seed=0\"], [\"task.type=masked_regression\", "
                          "\"model.pe.type=learned\", \"model.pe.init.std=0.02\", \"seed=0\"]]' "
                          "train.train.epochs=2 train.train.eval_every=1 train.train.precision=fp32 "
                          "train.train.batch_size=4");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::string page = loci::test::slurp(out / "report" / "report.html");
  CHECK(page.find("id=\"grid_similarity\"") != std::string::npos);
  CHECK(page.find("id=\"task_vs_sigma\"") != std::string::npos);
  // Both tasks against sigma: the classifiers' accuracy and the masked-patch models' MSE.
  CHECK(page.find("id=\"mse_vs_sigma\"") != std::string::npos);
  // The patch grid is the truth every PE is scored against.
  CHECK(loci::test::slurp(out / "analysis" / "summary.csv").find("rsa_spearman_mean") != std::string::npos);
}
