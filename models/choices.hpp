// The one string table of each choice the model's options take: the config offers exactly these (the trainer's
// declaration reads them from here) and the model accepts exactly these.
#pragma once

#include <string>
#include <vector>

namespace loci::models {

const std::vector<std::string>& pe_placements();      // per_block, shared, input_only
const std::vector<std::string>& pe_offsets();         // index, coordinates
const std::vector<std::string>& relative_variants();  // bias, music_causal
const std::vector<std::string>& activations();        // gelu, relu
const std::vector<std::string>& norm_placements();    // post, pre
const std::vector<std::string>& poolings();           // last, target, mean, cls
const std::vector<std::string>& sinusoid_sources();   // index, coordinates (init from_sinusoidal)
const std::vector<std::string>& coordinate_modes();   // project, tile (init from_coordinates)

bool is_one_of(const std::string& value, const std::vector<std::string>& choices);

}  // namespace loci::models
