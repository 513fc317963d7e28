// The command line as the user typed it, recorded once so that dataset cards and run logs can say how to redo them.
#pragma once

#include <string>

namespace loci::apps {
void set_invocation(int argc, char** argv);
const std::string& invocation();
// argv as main() received it: what the process restarts itself with (a BLAS kernel chosen by loci).
char** invocation_argv();
}  // namespace loci::apps
