// Where loci's own files are found: share/loci beside bin/ (the install, and the build tree that mirrors it), and
// the config file a command names, looked for from the current folder first and then among the shipped configs.
#pragma once

#include <filesystem>
#include <string>

namespace loci::apps {

// <prefix>/share/loci for the running loci (bin/loci's ../share/loci).
std::filesystem::path share_folder();

// The config file as given when it exists from here; otherwise, for a relative name, the same name under
// share_folder() (`configs/lst.yaml`, as the README's tour writes it) or under its configs/ (`lst.yaml`), as an
// absolute path so that a sweep's runs and emitted scripts name a file that exists. A name found nowhere is a
// UserError saying where it was looked for.
std::string locate_config(const std::string& given);

}  // namespace loci::apps
