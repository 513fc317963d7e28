#include "models/probe/registry.hpp"

#include <stdexcept>

namespace loci::probe {

namespace {

std::vector<ProbeInfo>& table() {
  static std::vector<ProbeInfo> probes;
  return probes;
}

}  // namespace

bool ProbeRegistry::add(ProbeInfo info) {
  for (const auto& p : table())
    if (p.name == info.name) throw std::logic_error("probe '" + info.name + "' is registered twice");
  table().push_back(std::move(info));
  return true;
}

const std::vector<ProbeInfo>& ProbeRegistry::all() { return table(); }

}  // namespace loci::probe
