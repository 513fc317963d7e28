// A shared library that is not a loci plugin at all: no note, no entry point, and a constructor loci must not run.
#include "tests/plugins/api/constructor_marker.hpp"

LOCI_TEST_CONSTRUCTOR_MARKER("no_entry_library")

extern "C" __attribute__((visibility("default"))) int some_other_function(void) { return 42; }
