#include "datasets/config_difference.hpp"

#include <map>

#include <yaml-cpp/yaml.h>

namespace loci::datasets {

namespace {

std::string shorten(std::string s) {
  for (char& c : s)
    if (c == '\n') c = ' ';
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

// Every leaf of the tree as its dotted key and its value written as flow YAML (a list is one value).
void flatten(const YAML::Node& node, const std::string& prefix, std::map<std::string, std::string>& out) {
  if (node.IsMap()) {
    for (const auto& entry : node) {
      const std::string key = entry.first.as<std::string>();
      flatten(entry.second, prefix.empty() ? key : prefix + "." + key, out);
    }
    return;
  }
  YAML::Emitter e;
  e << YAML::Flow << node;
  out[prefix] = e.c_str();
}

}  // namespace

std::string config_difference(const std::string& had, const std::string& want, std::size_t max_keys) {
  std::map<std::string, std::string> a, b;
  try {
    flatten(YAML::Load(had), "", a);
    flatten(YAML::Load(want), "", b);
  } catch (const YAML::Exception&) {
    return "";
  }
  std::string said;
  std::size_t differing = 0;
  auto note = [&](const std::string& key, const std::string& from, const std::string& to) {
    if (++differing > max_keys) return;
    said += (said.empty() ? "" : ", ") + key + " " + shorten(from) + " vs " + shorten(to);
  };
  for (const auto& [key, value] : b) {
    const auto it = a.find(key);
    if (it == a.end())
      note(key, "(absent)", value);
    else if (it->second != value)
      note(key, it->second, value);
  }
  for (const auto& [key, value] : a)
    if (!b.count(key)) note(key, value, "(absent)");
  if (differing > max_keys) said += " and " + std::to_string(differing - max_keys) + " more";
  return said;
}

}  // namespace loci::datasets
