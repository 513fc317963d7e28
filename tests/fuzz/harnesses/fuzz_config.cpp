// The config reader as a user's file and command line reach it: YAML text (aliases, anchors, odd scalars), then
// `key=value` overrides and `-m` sweep values, then the schema's defaults, types, ranges and choices. Every input
// either resolves or is refused with an exception; anything else (a crash, a sanitizer report, a hang, memory
// without bound) is a bug. Input: the YAML, then optionally a NUL byte and one override per line.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/common_options.hpp"
#include "core/config/identity.hpp"
#include "core/config/overrides.hpp"
#include "core/config/schema.hpp"
#include "core/config/yaml_io.hpp"

namespace {

// The generators' shared keys and one field of every type a plugin can declare.
const loci::config::Schema& schema() {
  static const loci::config::Schema s = [] {
    loci::config::Schema base = loci::generator_common_schema();
    base.extend(loci::config::Schema::parse(R"yaml(
flag: {type: bool, default: false, doc: "a bool"}
count: {type: int, default: 3, min: 1, max: 100, doc: "an int"}
rate: {type: float, default: 0.5, min: 0, doc: "a float"}
mode: {type: enum, values: [a, b, c], default: a, doc: "a choice"}
file: {type: path, default: "", doc: "a path"}
weights: {type: list, of: float, default: [1, 2], min: 0, doc: "a list"}
sizes: {type: map, of: int, default: {x: 1}, min: 0, doc: "a map"}
maybe: {type: float, default: null, nullable: true, doc: "nullable"}
anything: {type: any, default: {}, doc: "free-form"}
group:
  inner: {type: int, default: 1, doc: "nested"}
  deeper: {leaf: {type: string, default: "s", doc: "deeper"}}
)yaml",
                                            "fuzz schema"));
    return base;
  }();
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const auto cut = input.find('\0');
  const std::string yaml = input.substr(0, cut);
  std::vector<std::string> overrides;
  if (cut != std::string::npos) {
    std::size_t from = cut + 1;
    while (from <= input.size()) {
      const auto end = std::min(input.find('\n', from), input.size());
      overrides.push_back(input.substr(from, end - from));
      from = end + 1;
    }
  }
  try {
    loci::config::Node node = loci::config::parse_yaml(yaml, "fuzz.yaml");
    try {
      (void)loci::config::expand_sweep(overrides);
    } catch (const std::exception&) {
    }
    const loci::config::Node resolved = schema().resolve(node, overrides);
    const std::string text = loci::config::to_yaml(resolved);
    (void)loci::config::identity_of(loci::config::flatten(resolved));
    // What loci writes it must read back as the same config.
    if (loci::config::to_yaml(schema().resolve(loci::config::parse_yaml(text, "again.yaml"))) != text) __builtin_trap();
  } catch (const std::exception&) {
  }
  return 0;
}
