// A plugin built for a future ABI: the host must refuse it without creating anything.
#include "plugins/api/plugin.hpp"

extern "C" __attribute__((visibility("default"))) const loci_plugin_info* loci_plugin_entry(void) {
  static const loci_plugin_info info = {loci::kPluginAbi + 1, loci::kPluginApi, LOCI_PLUGIN_GENERATOR,
                                        "from_the_future",   "9.9.9",           "wrong ABI",
                                        "",                  nullptr};
  return &info;
}
