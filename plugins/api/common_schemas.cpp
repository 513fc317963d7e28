// The vocabulary every generator and every training config shares; a plugin's schema adds its own keys on top.
#include "plugins/api/plugin_loader.hpp"

namespace loci {

namespace {

const char* kGeneratorCommon = R"yaml(
generator: {type: string, required: true, doc: "name of the generator plugin (see `loci plugins`)"}
seed: {type: int, default: 0, min: 0, doc: "master seed; sample i of split s depends only on (seed, s, i)"}
out: {type: path, required: true, doc: "dataset folder to write"}
samples_per_shard: {type: int, default: 1000, min: 1, doc: "samples per HDF5 shard"}
splits: {type: map, of: int, min: 1, default: {train: 1000, test: 100}, doc: "split name -> number of samples (at least 1 each; leave a split out rather than sizing it 0)"}
compression: {type: enum, values: [gzip, none], default: gzip, doc: "shard compression (gzip with byte shuffle, or none)"}
compression_level: {type: int, default: 4, min: 0, max: 9, doc: "gzip level"}
threads: {type: int, default: 0, min: 0, max: 4096, doc: "generation threads; 0 = all cores; more than the cores are used as the cores"}
plugin_path: {type: list, of: path, default: [], doc: "extra folders searched for plugins, before the default ones"}
plugin_override: {type: list, of: string, default: [], doc: "plugin names that more than one library may provide, the first found on the search path winning; any other name found twice is an error"}
license: {type: string, default: auto, doc: "the dataset card's licence (a Hugging Face / SPDX id such as cc-by-4.0 or other); auto = cc-by-4.0 for data loci simulates, unknown for imported data (name your data's own)"}
created: {type: string, default: unrecorded, doc: "the shards' `created` attribute: unrecorded (the same config gives identical bytes), now (or SOURCE_DATE_EPOCH), or a timestamp of your own"}
)yaml";

const char* kTrainerCommon = R"yaml(
trainer: {type: string, required: true, doc: "name of the trainer plugin (see `loci plugins`)"}
data: {type: path, required: true, identity: false, doc: "dataset folder made by `loci generate` (a run's identity holds the shards' checksums, not the folder's name)"}
out: {type: path, required: true, identity: false, doc: "run folder to write"}
seed: {type: int, default: 0, min: 0, doc: "seed of initialisation and data order"}
plugin_path: {type: list, of: path, default: [], identity: false, doc: "extra folders searched for plugins, before the default ones"}
plugin_override: {type: list, of: string, default: [], identity: false, doc: "plugin names that more than one library may provide, the first found on the search path winning; any other name found twice is an error"}
)yaml";

}  // namespace

const config::Schema& generator_common_schema() {
  static const config::Schema s = config::Schema::parse(kGeneratorCommon, "generator schema");
  return s;
}

const config::Schema& trainer_common_schema() {
  static const config::Schema s = config::Schema::parse(kTrainerCommon, "trainer schema");
  return s;
}

}  // namespace loci
