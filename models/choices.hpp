// The model's closed choices, each an enum with its names declared once (core/choices.hpp): the trainer's option
// table offers exactly these names (add_choice) and the model takes exactly these constants.
#pragma once

#include <string>

#include "core/choices.hpp"

namespace loci::models {

// What the model's head does: classify (one readout, or every token's own) or predict masked tokens' values.
enum class Task { classification, masked_regression };
// Which blocks' attention the PE modifies and whether they share its tables.
enum class PePlacement { per_block, shared, input_only };
// Offsets of relative and alibi PEs: of the token index, or of the true positions.
enum class PeOffsets { index, coordinates };
// relative: a learned logit bias per head and offset, or Music-Transformer relative attention with a causal mask.
enum class RelativeVariant { bias, music_causal };
enum class Activation { gelu, relu };
enum class NormPlacement { post, pre };
// The classification head's readout (heads.hpp). `every` is set by the trainer for a dense objective and is no
// config choice, so poolings() does not name it.
enum class Pooling { last, target, mean, cls, every };
// from_sinusoidal's source and from_coordinates' mode (initialisers' shared keys, init_keys.hpp).
enum class SinusoidSource { index, coordinates };
enum class CoordinateMode { project, tile };

const Choices<Task>& tasks();
const Choices<PePlacement>& pe_placements();
const Choices<PeOffsets>& pe_offsets();
const Choices<RelativeVariant>& relative_variants();
const Choices<Activation>& activations();
const Choices<NormPlacement>& norm_placements();
const Choices<Pooling>& poolings();
const Choices<SinusoidSource>& sinusoid_sources();
const Choices<CoordinateMode>& coordinate_modes();

// Each constant's name, for records and messages (Pooling::every is "every").
std::string choice_name(Task value);
std::string choice_name(PePlacement value);
std::string choice_name(PeOffsets value);
std::string choice_name(RelativeVariant value);
std::string choice_name(Activation value);
std::string choice_name(NormPlacement value);
std::string choice_name(Pooling value);
std::string choice_name(SinusoidSource value);
std::string choice_name(CoordinateMode value);

}  // namespace loci::models
