#include "apps/invocation.hpp"

#include "apps/script_values.hpp"
#include "core/shell_words.hpp"

namespace loci::apps {

namespace {

struct Invocation {
  std::vector<std::string> words;
  std::string line;
  char** argv = nullptr;
};

Invocation& stored() {
  static Invocation s;
  return s;
}

}  // namespace

void set_invocation(int argc, char** argv) {
  Invocation& s = stored();
  s.argv = argv;
  s.words = {"loci"};
  for (int i = 1; i < argc; ++i) s.words.emplace_back(argv[i]);
  s.line = shell_line(s.words);
}

const std::vector<std::string>& invocation_words() { return stored().words; }

const std::string& invocation() { return stored().line; }

std::string invocation_for_script() {
  for (const auto& w : stored().words)
    if (!fits_one_line(w)) return "";
  return stored().line;
}

char** invocation_argv() { return stored().argv; }

}  // namespace loci::apps
