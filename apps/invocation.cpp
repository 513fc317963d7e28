#include "apps/invocation.hpp"

namespace loci::apps {

namespace {

std::string& stored() {
  static std::string s;
  return s;
}

char**& stored_argv() {
  static char** argv = nullptr;
  return argv;
}

}  // namespace

void set_invocation(int argc, char** argv) {
  stored_argv() = argv;
  std::string s = "loci";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool plain = !a.empty() && a.find_first_of(" \t'\"$`\\*?[](){};&|<>") == std::string::npos;
    s += " " + (plain ? a : "'" + a + "'");
  }
  stored() = s;
}

const std::string& invocation() { return stored(); }

char** invocation_argv() { return stored_argv(); }

}  // namespace loci::apps
