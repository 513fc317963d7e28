// A library constructor that leaves a file behind when it runs (in $LOCI_TEST_MARKER_DIR, named NAME): the tests
// check that loci never runs the code of a library it lists, refuses, or was not asked for.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#define LOCI_TEST_CONSTRUCTOR_MARKER(NAME)                                                       \
  __attribute__((constructor)) static void loci_test_leave_marker() {                            \
    if (const char* dir = std::getenv("LOCI_TEST_MARKER_DIR")) {                                 \
      if (std::FILE* f = std::fopen((std::string(dir) + "/" NAME).c_str(), "w")) std::fclose(f); \
    }                                                                                            \
  }
