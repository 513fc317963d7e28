// A command as a shell reads it back: each word quoted only where the shell would otherwise split or expand it.
#pragma once

#include <string>
#include <vector>

namespace loci {

// `word` as one shell word: unchanged when it holds only characters no shell treats specially, else in single quotes.
std::string shell_word(const std::string& word);

// The words joined by spaces, each as shell_word.
std::string shell_line(const std::vector<std::string>& words);

}  // namespace loci
