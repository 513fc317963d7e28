#include "plugins/api/plugin.hpp"

namespace loci::plugins {

// Out-of-line destructors: the key functions that pin each interface's type information to libloci_core.
Plugin::~Plugin() = default;
Generator::~Generator() = default;
Trainer::~Trainer() = default;

}  // namespace loci::plugins
