// The 108 Latin Square Task puzzles of the human study (Hearne et al.; MIT licence, see data/LICENSE-LSTNN),
// compiled into the plugin: the paper's out-of-distribution split and its exclusion reference.
#pragma once

namespace loci::lst_grid {

const char* human_puzzles_csv();
const char* human_puzzles_license();

// How configs name the shipped file: `imports: {human: builtin:human}`, `exclude: builtin:human`.
constexpr const char* kBuiltinHuman = "builtin:human";

}  // namespace loci::lst_grid
