#include "models/choices.hpp"

namespace loci::models {

const Choices<Task>& tasks() {
  static const Choices<Task> c{{"classification", Task::classification},
                               {"masked_regression", Task::masked_regression}};
  return c;
}
using PP = PePlacement;
const Choices<PP>& pe_placements() {
  static const Choices<PP> c{{"per_block", PP::per_block}, {"shared", PP::shared}, {"input_only", PP::input_only}};
  return c;
}
const Choices<PeOffsets>& pe_offsets() {
  static const Choices<PeOffsets> c{{"index", PeOffsets::index}, {"coordinates", PeOffsets::coordinates}};
  return c;
}
const Choices<RelativeVariant>& relative_variants() {
  static const Choices<RelativeVariant> c{{"bias", RelativeVariant::bias},
                                          {"music_causal", RelativeVariant::music_causal}};
  return c;
}
const Choices<Activation>& activations() {
  static const Choices<Activation> c{{"gelu", Activation::gelu}, {"relu", Activation::relu}};
  return c;
}
const Choices<NormPlacement>& norm_placements() {
  static const Choices<NormPlacement> c{{"post", NormPlacement::post}, {"pre", NormPlacement::pre}};
  return c;
}
const Choices<Pooling>& poolings() {
  static const Choices<Pooling> c{
      {"last", Pooling::last}, {"target", Pooling::target}, {"mean", Pooling::mean}, {"cls", Pooling::cls}};
  return c;
}
const Choices<SinusoidSource>& sinusoid_sources() {
  static const Choices<SinusoidSource> c{{"index", SinusoidSource::index},
                                         {"coordinates", SinusoidSource::coordinates}};
  return c;
}
const Choices<CoordinateMode>& coordinate_modes() {
  static const Choices<CoordinateMode> c{{"project", CoordinateMode::project}, {"tile", CoordinateMode::tile}};
  return c;
}

std::string choice_name(Task value) { return loci::choice_name(tasks(), value); }
std::string choice_name(PePlacement value) { return loci::choice_name(pe_placements(), value); }
std::string choice_name(PeOffsets value) { return loci::choice_name(pe_offsets(), value); }
std::string choice_name(RelativeVariant value) { return loci::choice_name(relative_variants(), value); }
std::string choice_name(Activation value) { return loci::choice_name(activations(), value); }
std::string choice_name(NormPlacement value) { return loci::choice_name(norm_placements(), value); }
std::string choice_name(Pooling value) {
  return value == Pooling::every ? "every" : loci::choice_name(poolings(), value);
}
std::string choice_name(SinusoidSource value) { return loci::choice_name(sinusoid_sources(), value); }
std::string choice_name(CoordinateMode value) { return loci::choice_name(coordinate_modes(), value); }

}  // namespace loci::models
