// The vocabulary every generator and every training config shares, declared once (config/options.hpp): the schemas
// a plugin's own keys extend, and what the host reads from them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config/options.hpp"
#include "core/config/schema.hpp"

namespace loci {

// Shards' compression: gzip (with byte shuffle) or none.
enum class Compression { gzip, none };

struct GeneratorCommon {
  std::string generator;
  std::int64_t seed = 0;
  std::string out;
  std::int64_t samples_per_shard = 1000;
  config::Entries<std::int64_t> splits{{"train", 1000}, {"test", 100}};
  Compression compression = Compression::gzip;
  int compression_level = 4;
  int threads = 0;
  std::vector<std::string> plugin_path, plugin_override;
  std::string license = "auto";
  std::string created = "unrecorded";
};

struct TrainerCommon {
  std::string trainer;
  std::string data, out;
  std::int64_t seed = 0;
  std::vector<std::string> plugin_path, plugin_override;
};

const config::OptionTable<GeneratorCommon>& generator_common_options();
const config::OptionTable<TrainerCommon>& trainer_common_options();

// The schemas those tables make: the keys every generator config shares (generator, seed, out, samples_per_shard,
// splits, ...), and every training config (trainer, data, out, seed, ...; trainers add model.* and train.*).
const config::Schema& generator_common_schema();
const config::Schema& trainer_common_schema();

}  // namespace loci
