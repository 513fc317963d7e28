// The keys every generator and every trainer takes. `identity: false` marks what changes where or how a dataset or
// run is written, never its bytes: the dataset card, run identity and summary grouping all read that one flag.
#include "core/common_options.hpp"

namespace loci {

namespace {

// Where a config's plugins are looked for: the same two keys in generator and trainer configs.
template <class Common>
void add_plugin_search_keys(config::OptionTable<Common>& t) {
  t.add("plugin_path", [](Common& c) -> std::vector<std::string>& { return c.plugin_path; })
      .path()
      .outside_identity()
      .doc("extra folders searched for plugins, before the default ones");
  t.add("plugin_override", [](Common& c) -> std::vector<std::string>& { return c.plugin_override; })
      .outside_identity()
      .doc(
          "plugin names that more than one library may provide, the first found on the search path winning; any "
          "other name found twice is an error");
}

config::OptionTable<GeneratorCommon> make_generator_common() {
  config::OptionTable<GeneratorCommon> t;
  using G = GeneratorCommon;
  t.add("generator", [](G& g) -> std::string& { return g.generator; })
      .required()
      .doc("name of the generator plugin (see `loci plugins`)");
  t.add("seed", [](G& g) -> std::int64_t& { return g.seed; })
      .min(0)
      .doc("master seed; sample i of split s depends only on (seed, s, i)");
  t.add("out", [](G& g) -> std::string& { return g.out; })
      .path()
      .required()
      .outside_identity()
      .doc("dataset folder to write");
  t.add("samples_per_shard", [](G& g) -> std::int64_t& { return g.samples_per_shard; })
      .min(1)
      .doc("samples per HDF5 shard");
  t.add("splits", [](G& g) -> config::Entries<std::int64_t>& { return g.splits; })
      .min(1)
      .doc("split name -> number of samples (at least 1 each; leave a split out rather than sizing it 0)");
  t.add_choice(
       "compression", [](G& g) -> Compression& { return g.compression; },
       Choices<Compression>{{"gzip", Compression::gzip}, {"none", Compression::none}})
      .doc("shard compression (gzip with byte shuffle, or none)");
  t.add("compression_level", [](G& g) -> int& { return g.compression_level; }).within(0, 9).doc("gzip level");
  t.add("threads", [](G& g) -> int& { return g.threads; })
      .within(0, 4096)
      .outside_identity()
      .doc("generation threads; 0 = all cores; more than the cores are used as the cores");
  add_plugin_search_keys(t);
  // The card's licence, not the samples': changing it rewrites the card of a finished dataset, never its shards.
  t.add("license", [](G& g) -> std::string& { return g.license; })
      .outside_identity()
      .doc(
          "the dataset card's licence (a Hugging Face / SPDX id such as cc-by-4.0 or other); auto = cc-by-4.0 for "
          "data loci simulates, unknown for imported data (name your data's own)");
  t.add("created", [](G& g) -> std::string& { return g.created; })
      .doc(
          "the shards' `created` attribute: unrecorded (the same config gives identical bytes), now (or "
          "SOURCE_DATE_EPOCH), or a timestamp of your own");
  return t;
}

config::OptionTable<TrainerCommon> make_trainer_common() {
  config::OptionTable<TrainerCommon> t;
  using C = TrainerCommon;
  t.add("trainer", [](C& c) -> std::string& { return c.trainer; })
      .required()
      .doc("name of the trainer plugin (see `loci plugins`)");
  t.add("data", [](C& c) -> std::string& { return c.data; })
      .path()
      .required()
      .outside_identity()
      .doc(
          "dataset folder made by `loci generate` (a run's identity holds the shards' checksums, not the folder's "
          "name)");
  t.add("out", [](C& c) -> std::string& { return c.out; })
      .path()
      .required()
      .outside_identity()
      .doc("run folder to write");
  t.add("seed", [](C& c) -> std::int64_t& { return c.seed; }).min(0).doc("seed of initialisation and data order");
  add_plugin_search_keys(t);
  return t;
}

}  // namespace

const config::OptionTable<GeneratorCommon>& generator_common_options() {
  static const config::OptionTable<GeneratorCommon> t = make_generator_common();
  return t;
}

const config::OptionTable<TrainerCommon>& trainer_common_options() {
  static const config::OptionTable<TrainerCommon> t = make_trainer_common();
  return t;
}

const config::Schema& generator_common_schema() {
  static const config::Schema s = config::Schema::parse(generator_common_options().schema(), "generator schema");
  return s;
}

const config::Schema& trainer_common_schema() {
  static const config::Schema s = config::Schema::parse(trainer_common_options().schema(), "trainer schema");
  return s;
}

}  // namespace loci
