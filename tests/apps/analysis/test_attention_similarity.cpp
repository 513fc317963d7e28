// The attention comparison across runs (apps/analysis/attention_similarity.hpp): maps read from attention.h5 as the
// trainer writes it (last evaluation, averaged over heads), each run against the mean of the reference runs, a
// reference run never against itself. Cosines checked against values worked out by hand.
#include <catch2/catch.hpp>

#include <cmath>

#include "apps/analysis/attention_similarity.hpp"
#include "datasets/array_file.hpp"
#include "datasets/error.hpp"
#include "tests/support/temp_files.hpp"

using namespace loci;
namespace fs = std::filesystem;

namespace {

// attention.h5 with one block of 2 evaluations x 2 heads of 2 x 2 maps: the first evaluation is all 9 (must be
// ignored), the last has heads `a` and `b` (row-major 2 x 2 each).
void write_maps(const fs::path& folder, const std::vector<float>& a, const std::vector<float>& b) {
  fs::create_directories(folder);
  std::vector<float> v(8, 9.0f);
  v.insert(v.end(), a.begin(), a.end());
  v.insert(v.end(), b.begin(), b.end());
  datasets::write_array_file(
      folder / "attention.h5",
      {datasets::Array::of(datasets::ArraySpec{"block_0", {}, {"evaluation", "head", "query", "key"}, {2, 2, 2, 2}, ""},
                           v)},
      {{"split", std::string("human")}});
}

nlohmann::ordered_json analysis_of(const std::string& pe_type) {
  return {{"run", {{"pe_type", pe_type}}}, {"final", {{"rsa_spearman", 0.5}}}};
}

}  // namespace

TEST_CASE("final attention maps are the last evaluation's - averaged over heads") {
  test::TempDir dir;
  write_maps(dir.path() / "r", {1, 0, 0, 1}, {0, 1, 1, 0});
  const auto maps = analysis::final_attention_maps(dir.path() / "r");
  REQUIRE(maps.size() == 1);
  CHECK(maps[0].isApprox((Eigen::MatrixXd(2, 2) << 0.5, 0.5, 0.5, 0.5).finished()));
  CHECK(analysis::final_attention_maps(dir.path() / "no_maps").empty());  // a run saved without maps

  std::filesystem::resize_file(dir.path() / "r/attention.h5", 100);
  CHECK_THROWS_AS(analysis::final_attention_maps(dir.path() / "r"), datasets::DataError);
}

TEST_CASE("each run is compared with the mean reference map - a reference run with the others only") {
  test::TempDir dir;
  // Learned run: identity map. References: [[1,0],[1,0]] and [[1,0],[0,1]] (heads equal, so the average is that).
  write_maps(dir.path() / "learned", {1, 0, 0, 1}, {1, 0, 0, 1});
  write_maps(dir.path() / "ref1", {1, 0, 1, 0}, {1, 0, 1, 0});
  write_maps(dir.path() / "ref2", {1, 0, 0, 1}, {1, 0, 0, 1});
  std::vector<fs::path> folders{dir.path() / "learned", dir.path() / "ref1", dir.path() / "ref2", dir.path() / "none"};
  std::vector<nlohmann::ordered_json> analyses{analysis_of("learned"), analysis_of("sinusoidal_2d"),
                                               analysis_of("sinusoidal_2d"), analysis_of("learned")};
  CHECK(analysis::add_attention_similarity(folders, analyses, "sinusoidal_2d") == 3);

  // learned . mean(ref) = [1,0,0,1] . [1,0,0.5,0.5] = 1.5; |learned| = sqrt 2; |mean| = sqrt 1.5.
  CHECK(analyses[0]["final"]["attention_cosine"].get<double>() == Approx(1.5 / std::sqrt(2.0 * 1.5)));
  CHECK(analyses[0]["final"]["attention_cosine_per_block"].size() == 1);
  CHECK(analyses[0]["attention_reference"]["runs"] == 2);
  // ref1 against ref2 alone: [1,0,1,0] . [1,0,0,1] = 1, norms sqrt 2 each.
  CHECK(analyses[1]["final"]["attention_cosine"].get<double>() == Approx(0.5));
  CHECK(analyses[1]["attention_reference"]["runs"] == 1);
  CHECK(analyses[1]["final"]["rsa_spearman"] == 0.5);              // the rest of the analysis is left as it was
  CHECK_FALSE(analyses[3]["final"].contains("attention_cosine"));  // no maps saved

  // With one reference run, that run has nothing to be compared with.
  std::vector<fs::path> two{dir.path() / "learned", dir.path() / "ref1"};
  std::vector<nlohmann::ordered_json> a2{analysis_of("learned"), analysis_of("sinusoidal_2d")};
  CHECK(analysis::add_attention_similarity(two, a2, "sinusoidal_2d") == 1);
  CHECK_FALSE(a2[1]["final"].contains("attention_cosine"));
}

TEST_CASE("the attention cosine comes with its floor: uniform maps, and the run's own maps at epoch 0") {
  test::TempDir dir;
  // The learned run saved its maps at epochs 0 and 10: uniform at 0, the identity at 10.
  fs::create_directories(dir.path() / "learned");
  datasets::write_array_file(
      dir.path() / "learned/attention.h5",
      {datasets::Array::of(datasets::ArraySpec{"block_0", {}, {"evaluation", "head", "query", "key"}, {2, 1, 2, 2}, ""},
                           std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f, 1, 0, 0, 1}),
       datasets::Array::of(datasets::ArraySpec{"epoch", {}, {"evaluation"}, {2}, ""}, std::vector<float>{0, 10})},
      {});
  write_maps(dir.path() / "ref", {1, 0, 1, 0}, {1, 0, 1, 0});  // reference [[1,0],[1,0]]; no epoch record
  std::vector<fs::path> folders{dir.path() / "learned", dir.path() / "ref", dir.path() / "ref2"};
  write_maps(dir.path() / "ref2", {1, 0, 1, 0}, {1, 0, 1, 0});
  std::vector<nlohmann::ordered_json> analyses{analysis_of("learned"), analysis_of("sinusoidal_2d"),
                                               analysis_of("sinusoidal_2d")};
  analysis::add_attention_similarity(folders, analyses, "sinusoidal_2d");
  const auto& f = analyses[0]["final"];
  // identity . [1,0,1,0] = 1 over sqrt 2 x sqrt 2: 0.5. Uniform 0.5 everywhere: 1 over (1 x sqrt 2) = 0.707, above
  // the trained run's own cosine: this cosine says nothing until it beats its floor.
  CHECK(f["attention_cosine"].get<double>() == Approx(0.5));
  CHECK(f["attention_cosine_uniform"].get<double>() == Approx(1.0 / std::sqrt(2.0)));
  CHECK(f["init_attention_cosine"].get<double>() == Approx(1.0 / std::sqrt(2.0)));  // epoch 0 was uniform
  // A reference whose file records no epoch 0 has no untrained value, only the uniform floor.
  CHECK(analyses[1]["final"]["init_attention_cosine"].is_null());
  CHECK(analyses[1]["final"]["attention_cosine_uniform"].get<double>() == Approx(1.0 / std::sqrt(2.0)));
}
