#include "probe/registry.hpp"

namespace loci::probe {

LOCI_DEFINE_REGISTRY(ProbeInfo, "probe")

}  // namespace loci::probe
