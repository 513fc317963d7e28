// Samples cut as windows out of independent recordings (a network run, a subject's scan): sample i of a split is
// window i div R of recording i mod R, with R the recordings the split uses, so that every prefix of the split
// draws on all of them evenly. Recordings hold one row of points per token (tokens x points, token-major).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace loci::datasets {

struct WindowPlan {
  std::int64_t samples = 0;     // windows wanted
  std::int64_t recordings = 0;  // available; min(recordings, samples) are used
  std::int64_t length = 1;      // points per window
  std::int64_t stride = 1;      // points between the starts of a recording's consecutive windows

  std::int64_t used() const { return std::min(recordings, samples); }
  std::int64_t windows_per_recording() const { return used() > 0 ? (samples + used() - 1) / used() : 0; }
  // Points each used recording must hold.
  std::int64_t points() const { return used() > 0 ? length + (windows_per_recording() - 1) * stride : 0; }

  struct Cut {
    std::int64_t recording, start;
  };
  Cut cut(std::int64_t sample) const { return {sample % used(), (sample / used()) * stride}; }
};

// Points [start, start + length) of every token of a token-major recording, into `out` (tokens x length).
inline void copy_window(const float* recording, std::size_t tokens, std::int64_t points, std::int64_t start,
                        std::int64_t length, float* out) {
  for (std::size_t i = 0; i < tokens; ++i)
    std::copy_n(recording + i * static_cast<std::size_t>(points) + static_cast<std::size_t>(start),
                static_cast<std::size_t>(length), out + i * static_cast<std::size_t>(length));
}

}  // namespace loci::datasets
