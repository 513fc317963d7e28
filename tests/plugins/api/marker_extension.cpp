// A well-formed extension whose constructor leaves a marker: it runs when a command asks for it, never on a listing.
#include "plugins/api/plugin.hpp"
#include "tests/plugins/api/constructor_marker.hpp"

LOCI_TEST_CONSTRUCTOR_MARKER("marker_extension")

LOCI_EXTENSION("marker_extension", "0.1.0", "leaves a file when loaded (a test fixture)")
