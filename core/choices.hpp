// A closed choice: an enum whose constants a config names. Its names are declared once, as a table beside the enum;
// the option tables offer them (OptionTable::add_choice reads a name into its constant) and records write a constant
// back by its name. Header-only, so that models/ and sim/ declare their choices without linking anything of core/.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace loci {

template <class E>
using Choices = std::vector<std::pair<std::string, E>>;

template <class E>
std::vector<std::string> choice_names(const Choices<E>& choices) {
  std::vector<std::string> names;
  for (const auto& entry : choices) names.push_back(entry.first);
  return names;
}

// A constant's name. A constant its table does not name is loci's own bug (an internal constant, e.g. a pooling
// only the trainer sets, is not written through a table).
template <class E>
const std::string& choice_name(const Choices<E>& choices, E value) {
  for (const auto& [name, v] : choices)
    if (v == value) return name;
  throw std::logic_error("a choice's constant has no name in its table");
}

// The constant a name stands for; std::invalid_argument listing the names when it is none of them.
template <class E>
E choice_value(const Choices<E>& choices, const std::string& name) {
  std::string known;
  for (const auto& [n, v] : choices) {
    if (n == name) return v;
    known += (known.empty() ? "" : ", ") + n;
  }
  throw std::invalid_argument("'" + name + "' is not one of " + known);
}

}  // namespace loci
