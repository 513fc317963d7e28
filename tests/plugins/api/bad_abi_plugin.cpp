// A plugin built for a future ABI: the host must refuse it from its note, without loading it (its constructor
// would leave a marker).
#include "plugins/api/plugin.hpp"
#include "tests/plugins/api/constructor_marker.hpp"

LOCI_TEST_CONSTRUCTOR_MARKER("bad_abi_plugin")

extern "C" __attribute__((section(".loci_plugin"), used, visibility("default")))
const loci::plugins::PluginNote loci_plugin_note = {
    "LOCIPLG", loci::kPluginAbi + 1, LOCI_PLUGIN_GENERATOR, "from_the_future", "9.9.9", "wrong ABI"};

extern "C" __attribute__((visibility("default"))) const loci_plugin_info* loci_plugin_entry(void) {
  static const loci_plugin_info info = {loci::kPluginAbi + 1,
                                        loci::kPluginApi,
                                        LOCI_PLUGIN_GENERATOR,
                                        "from_the_future",
                                        "9.9.9",
                                        "wrong ABI",
                                        "",
                                        nullptr};
  return &info;
}
