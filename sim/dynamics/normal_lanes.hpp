// Standard normal draws for several streams side by side: the simulation's noise, one stream per run of a batch.
//
// The ziggurat (normal.hpp) is cheap per draw in scalar code, but about one draw in 70 takes its slow path and
// draws again from the same stream, so across vector lanes the streams fall out of step and every miss stalls
// the vector. Here each stream's xoshiro256** runs in its own vector lane and the Box-Muller transform, which has
// no rejection, turns the raw draws into normals in straight-line vector code (log, sqrt, sin and cos written out
// as polynomials). Values depend only on the stream and on the counts asked (fill(count) pairs draw k with draw
// k + ceil(count/2)), never on which streams share the object or on the machine's vector width.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/dynamics/buffers.hpp"
#include "sim/random/stream.hpp"

namespace loci::sim::dynamics {

class NormalLanes {
 public:
  // Continues each of `streams` from its current state (the Rng objects are not advanced).
  explicit NormalLanes(const std::vector<Rng>& streams);

  // out[k * lanes() + l] for k < count: the next `count` standard normals of stream l. Draws 2 ceil(count/2) raw
  // values from each stream: radius k and angle k + ceil(count/2) give normals k (cosine) and k + ceil(count/2)
  // (sine).
  void fill(std::size_t count, double* out);

  std::size_t lanes() const { return lanes_; }

 private:
  std::size_t lanes_;
  std::vector<std::uint64_t> state_;  // word w of stream l at state_[w * lanes_ + l]
  AlignedVector<std::uint64_t> raw_;  // the raw draws of one fill, laid out like its output
};

}  // namespace loci::sim::dynamics
