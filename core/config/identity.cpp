#include "core/config/identity.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "core/config/yaml_io.hpp"
#include "core/sha256.hpp"

namespace loci::config {

namespace {

std::string leaf_text(const Node& n) {
  if (n.is_null()) return "null";
  if (n.is_scalar()) return n.text();
  std::string s = to_yaml(n);  // a sequence or an empty map, on one line
  while (!s.empty() && s.back() == '\n') s.pop_back();
  for (auto& c : s)
    if (c == '\n') c = ' ';
  return s;
}

void flatten_into(const Node& n, const std::string& prefix, FlatConfig& out) {
  if (n.is_map() && !n.entries().empty()) {
    for (const auto& [k, v] : n.entries()) flatten_into(v, prefix.empty() ? k : prefix + "." + k, out);
    return;
  }
  out[prefix] = leaf_text(n);
}

}  // namespace

FlatConfig flatten(const Node& node) {
  FlatConfig out;
  if (node.is_map())
    for (const auto& [k, v] : node.entries()) flatten_into(v, k, out);
  return out;
}

namespace {

// Erases parts[i..] below `map`; a group emptied by it goes too, so that dropping every key of a group (both
// train.checkpoint keys) leaves no empty group behind to read as a key of its own.
void erase_path(Node& map, const std::vector<std::string>& parts, std::size_t i) {
  if (!map.is_map()) return;
  if (i + 1 == parts.size()) {
    map.erase(parts[i]);
    return;
  }
  Node* child = map.find(parts[i]);
  if (!child || !child->is_map()) return;
  erase_path(*child, parts, i + 1);
  if (child->entries().empty()) map.erase(parts[i]);
}

}  // namespace

Node without(const Node& node, const std::vector<std::string>& drop) {
  Node out = node;
  for (const auto& dotted : drop) erase_path(out, split_path(dotted), 0);
  return out;
}

Identity identity_of(const FlatConfig& keys) {
  std::string text;
  for (const auto& [k, v] : keys) text += k + "=" + v + "\n";
  return {keys, sha256_hex(text.data(), text.size())};
}

bool same_value(const std::string& a, const std::string& b) {
  if (a == b) return true;
  auto number = [](const std::string& s, double& out) {
    if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return false;
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size() && std::isfinite(out);
  };
  double x = 0, y = 0;
  return number(a, x) && number(b, y) && x == y;
}

bool same_settings(const FlatConfig& a, const FlatConfig& b) {
  if (a.size() != b.size()) return false;
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j)
    if (i->first != j->first || !same_value(i->second, j->second)) return false;
  return true;
}

std::string describe_difference(const FlatConfig& had, const FlatConfig& now, std::size_t limit) {
  std::vector<std::string> items;
  auto shown = [](const FlatConfig& m, const std::string& k) {
    const auto it = m.find(k);
    if (it == m.end()) return std::string("(absent)");
    return it->second.size() > 40 ? it->second.substr(0, 37) + "..." : it->second;
  };
  FlatConfig all = had;
  all.insert(now.begin(), now.end());
  for (const auto& [k, v] : all) {
    const auto a = had.find(k), b = now.find(k);
    if (a != had.end() && b != now.end() && same_value(a->second, b->second)) continue;
    items.push_back(k + " (" + shown(had, k) + " -> " + shown(now, k) + ")");
  }
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < limit; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > limit) out += " and " + std::to_string(items.size() - limit) + " more";
  return out;
}

}  // namespace loci::config
