// The command line as the user typed it, recorded once so that dataset cards and run logs can say how to redo them.
#pragma once

#include <string>

namespace loci::app {
void set_invocation(int argc, char** argv);
const std::string& invocation();
}  // namespace loci::app
