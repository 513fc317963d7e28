#include "core/config/options.hpp"

#include <cstdio>
#include <cstdlib>

#include "core/config/yaml_io.hpp"

namespace loci::config {

std::string default_text(double v) {
  if (!std::isfinite(v)) return v > 0 ? ".inf" : v < 0 ? "-.inf" : ".nan";
  char buf[64];
  // The shortest text that reads back as the same double, with a decimal point so YAML sees a float.
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

namespace {

Node number(double v) { return Node::scalar(default_text(v)); }

Node field_of(const OptionSpec& s) {
  Node f = Node::map();
  f.set("type", Node::scalar(s.type));
  if (!s.element.empty()) f.set("of", Node::scalar(s.element));
  if (!s.choices.empty()) {
    Node values = Node::sequence();
    for (const auto& c : s.choices) values.push_back(Node::scalar(c, {}, true));
    f.set("values", values);
  }
  if (s.default_value) f.set("default", *s.default_value);
  if (s.min)
    f.set("min", s.type == "int" ? Node::scalar(std::to_string(static_cast<long long>(*s.min))) : number(*s.min));
  if (s.max)
    f.set("max", s.type == "int" ? Node::scalar(std::to_string(static_cast<long long>(*s.max))) : number(*s.max));
  if (s.nullable) f.set("nullable", Node::scalar("true"));
  if (s.required) f.set("required", Node::scalar("true"));
  if (!s.identity) f.set("identity", Node::scalar("false"));
  f.set("doc", Node::scalar(s.doc, {}, true));
  return f;
}

}  // namespace

std::string schema_yaml(const std::vector<OptionSpec>& specs) {
  Node root = Node::map();
  for (const auto& s : specs) root.set_path(s.path, field_of(s));
  return to_yaml(root);
}

}  // namespace loci::config
