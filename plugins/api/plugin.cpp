#include "plugins/api/plugin.hpp"

#include "core/error.hpp"

namespace loci::plugins {

// Out-of-line destructors: the key functions that pin each interface's type information to libloci_core.
Plugin::~Plugin() = default;
Generator::~Generator() = default;
Trainer::~Trainer() = default;

void Trainer::intervene(const config::Node&, const InterveneRequest& request) {
  throw UserError(request.run.string() + ": its trainer cannot evaluate a run with its PE changed (no interventions)");
}

void Trainer::export_model(const config::Node&, const ExportRequest& request) {
  throw UserError(request.run.string() + ": its trainer cannot export a model");
}

}  // namespace loci::plugins
