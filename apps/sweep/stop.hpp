// `loci sweep stop DIR`: ends the sweep that holds DIR's claim (.loci-sweep-lock) the way Ctrl-C would, so that its
// runs keep their last checkpoints and the same command resumes it; nothing is matched by process name.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

namespace loci::apps {

// Sends the claim's holder SIGTERM and waits up to `wait` for it to let the claim go; returns the holder's line
// ("pid N on HOST"). UserError when no sweep holds the folder, when the holder runs on another host or is not loci,
// or when it has not stopped within `wait`.
std::string stop_sweep(const std::filesystem::path& folder, std::chrono::seconds wait);

}  // namespace loci::apps
