#include "apps/pipeline/generate_stage.hpp"

#include "apps/invocation.hpp"
#include "core/common_options.hpp"
#include "core/config/fail_at.hpp"
#include "core/config/identity.hpp"
#include "core/config/yaml_io.hpp"
#include "core/error.hpp"
#include "core/provenance.hpp"
#include "core/shell_words.hpp"
#include "cpu/memory_available.hpp"
#include "datasets/atomic_file.hpp"
#include "datasets/checksum.hpp"

namespace loci::apps {

namespace {

// The command as the dataset card shows it: flags that change how a run goes but not what it makes are dropped, so
// the card of a resumed, merged or multi-process run reads (and hashes) the same as a single uninterrupted one.
std::string regenerate_command(const std::vector<std::string>& words) {
  std::vector<std::string> kept;
  for (const auto& w : words)
    if (w != "--resume" && w != "--merge") kept.push_back(w);
  return shell_line(kept);
}

// The size and SHA-256 of each file the generator reads; a file that cannot be read was already named by
// configure(), so this only meets files that vanished since.
std::vector<datasets::InputFile> checksum_inputs(const std::vector<std::string>& files) {
  std::vector<datasets::InputFile> out;
  for (const auto& f : files) {
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(f, ec);
    if (ec) throw UserError(f + ": cannot read (" + ec.message() + ")");
    out.push_back({f, static_cast<std::int64_t>(bytes), datasets::sha256_file(f)});
  }
  return out;
}

// Generators plan every sample of a split up front (its class, its window), a few bytes each: a split sized past
// what memory holds is refused at its key before any plan is made (splits.train=1e12 was std::bad_alloc).
void check_split_sizes(const config::Node& resolved) {
  constexpr double kPlanBytesPerSample = 16;
  const double available = static_cast<double>(cpu::memory_available());
  for (const auto& [name, count] : resolved.at("splits").entries()) {
    const double needed = kPlanBytesPerSample * static_cast<double>(count.as_int());
    if (needed > available)
      config::fail_at(count.mark(), "splits." + name + " = " + count.text() + " samples; planning them alone " +
                                        "needs about " + cpu::gib_text(needed) + ", more than the " +
                                        cpu::gib_text(available) + " this process may use");
  }
}

}  // namespace

// What the generator vocabulary marks outside identity (core/common_options.cpp): where and how fast a
// dataset is written, and its card's licence, never its samples.
const std::vector<std::string>& generator_identity_drop() {
  static const std::vector<std::string> keys = generator_common_schema().outside_identity();
  return keys;
}

std::string recorded_config(const config::Node& resolved, const plugins::Generator& generator) {
  std::vector<std::string> drop = generator_identity_drop();
  for (const auto& k : generator.unused_keys(resolved)) drop.push_back(k);
  return config::to_yaml(config::without(resolved, drop));
}

datasets::GenerateReport generate_from_config(const config::Node& resolved, const plugins::PluginRecord& plugin,
                                              const plugins::PluginRegistry& registry, const GenerateFlags& flags) {
  auto generator = registry.make_generator(plugin.name);
  check_split_sizes(resolved);
  generator->configure(resolved);

  GeneratorCommon common;
  generator_common_options().read(resolved, common);
  datasets::GenerateOptions opt;
  opt.out = common.out;
  opt.splits = common.splits;
  for (const auto& fixed : generator->fixed_splits()) {
    for (const auto& s : opt.splits)
      if (s.first == fixed.first)
        throw UserError(resolved.at("splits").find(fixed.first)->key_mark().str() + ": split '" + fixed.first +
                        "' is made by " + plugin.name + " itself and cannot be sized in `splits`");
    opt.splits.push_back(fixed);
  }
  opt.samples_per_shard = common.samples_per_shard;
  opt.seed = static_cast<std::uint64_t>(common.seed);
  opt.generator = plugin.name;
  opt.generator_version = plugin.version;
  // What decides the bytes, and nothing else: the same dataset made into another folder, on another thread count,
  // is the same bytes (and its --resume is accepted whatever those keys say).
  opt.config_yaml = recorded_config(resolved, *generator);
  opt.inputs = checksum_inputs(generator->input_files());
  opt.license = common.license == "auto" ? generator->default_license() : common.license;
  opt.card_prose = generator->card_prose();
  opt.regenerate_command = regenerate_command(invocation_words());
  opt.plugin_abi = kPluginAbi;
  opt.loci_version = kVersion;
  opt.compression.gzip = common.compression == Compression::gzip;
  opt.compression.shuffle = opt.compression.gzip;
  opt.compression.level = common.compression_level;
  opt.resume = flags.resume;
  opt.merge = flags.merge;
  opt.rank = flags.rank;
  opt.world_size = flags.world_size;
  opt.force = flags.force;
  opt.progress = flags.progress;
  opt.threads = common.threads;
  // "now" leaves the choice to the driver: SOURCE_DATE_EPOCH when set, else the clock.
  opt.created = common.created == "now" ? "" : common.created;
  const std::string started = utc_now();
  datasets::GenerateReport report = datasets::generate_dataset(*generator, opt);
  // Beside the dataset, never in it: the shards and index.json stay the same bytes for the same config.
  if (report.complete && flags.rank == 0) {
    nlohmann::ordered_json p = provenance(false);
    p["started"] = started;
    p["ended"] = utc_now();
    p["index_sha256"] = datasets::sha256_file(opt.out / "index.json");
    datasets::write_file_atomically(opt.out / "provenance.json", p.dump(2) + "\n");
  }
  return report;
}

}  // namespace loci::apps
