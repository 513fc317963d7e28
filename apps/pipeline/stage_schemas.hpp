// The keys of a pipeline file and of its analyze and report stages, declared once (config/options.hpp) like every
// other part's; a generate or train stage is its plugin's own schema.
#pragma once

#include "core/config/schema.hpp"

namespace loci::apps {

const config::Schema& pipeline_schema();
const config::Schema& analyze_stage_schema();
const config::Schema& report_stage_schema();

}  // namespace loci::apps
