// The command line as the user typed it, recorded once so that dataset cards, run logs, sweep manifests and emitted
// scripts can say how to redo them.
#pragma once

#include <string>
#include <vector>

namespace loci::apps {
void set_invocation(int argc, char** argv);
// Its words, "loci" first, as typed (unquoted).
const std::vector<std::string>& invocation_words();
// The words as one pasteable line: each quoted where a shell would split or expand it (core/shell_words.hpp).
const std::string& invocation();
// invocation() for a script's comment line, or "" where a word holds a line break or NUL: no comment can hold
// one, so a script then leaves the line out rather than let a word escape the comment.
std::string invocation_for_script();
// argv as main() received it: what the process restarts itself with (a BLAS kernel chosen by loci).
char** invocation_argv();
}  // namespace loci::apps
