#include "core/config/node.hpp"

#include <cctype>

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "core/error.hpp"

namespace loci::config {

std::string Mark::str() const {
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

Node Node::scalar(std::string text, Mark mark, bool quoted) {
  Node n;
  n.kind_ = Kind::scalar;
  n.text_ = std::move(text);
  n.mark_ = std::move(mark);
  n.quoted_ = quoted;
  return n;
}

Node Node::sequence(Mark mark) {
  Node n;
  n.kind_ = Kind::sequence;
  n.mark_ = std::move(mark);
  return n;
}

Node Node::map(Mark mark) {
  Node n;
  n.kind_ = Kind::map;
  n.mark_ = std::move(mark);
  return n;
}

const char* Node::kind_name() const {
  switch (kind_) {
    case Kind::null:
      return "null";
    case Kind::scalar:
      return "a scalar";
    case Kind::sequence:
      return "a list";
    case Kind::map:
      return "a mapping";
  }
  return "?";
}

namespace {

// "010": octal to one YAML reader, ten to another, an error to loci.
bool leading_zero(const std::string& t) {
  const std::size_t i = (!t.empty() && (t[0] == '+' || t[0] == '-')) ? 1 : 0;
  return t.size() > i + 1 && t[i] == '0' && std::isdigit(static_cast<unsigned char>(t[i + 1]));
}

}  // namespace

std::optional<std::int64_t> Node::to_int() const {
  if (kind_ != Kind::scalar || quoted_ || text_.empty() || leading_zero(text_)) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text_.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') {
    // YAML writers emit whole numbers as 1e3 or 1000.0 at times; accept them when exact.
    auto d = to_double();
    if (d && std::isfinite(*d) && std::floor(*d) == *d && std::fabs(*d) < 9.0e15) return static_cast<std::int64_t>(*d);
    return std::nullopt;
  }
  return static_cast<std::int64_t>(v);
}

std::optional<double> Node::to_double() const {
  if (kind_ != Kind::scalar || quoted_ || text_.empty()) return std::nullopt;
  if (text_ == ".nan" || text_ == ".NaN") return std::nan("");
  if (text_ == ".inf" || text_ == "+.inf") return HUGE_VAL;
  if (text_ == "-.inf") return -HUGE_VAL;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text_.c_str(), &end);
  if (errno == ERANGE || *end != '\0' || leading_zero(text_)) return std::nullopt;
  return v;
}

std::optional<bool> Node::to_bool() const {
  if (kind_ != Kind::scalar || quoted_) return std::nullopt;
  static const char* yes[] = {"true", "True", "TRUE", "yes", "Yes", "on", "On"};
  static const char* no[] = {"false", "False", "FALSE", "no", "No", "off", "Off"};
  for (auto* s : yes)
    if (text_ == s) return true;
  for (auto* s : no)
    if (text_ == s) return false;
  return std::nullopt;
}

std::int64_t Node::as_int() const {
  if (auto v = to_int()) return *v;
  throw UserError(mark_.str() + ": expected an integer, got '" + text_ + "'");
}

double Node::as_double() const {
  if (auto v = to_double()) return *v;
  throw UserError(mark_.str() + ": expected a number, got '" + text_ + "'");
}

bool Node::as_bool() const {
  if (auto v = to_bool()) return *v;
  throw UserError(mark_.str() + ": expected true or false, got '" + text_ + "'");
}

const std::string& Node::as_string() const {
  if (kind_ != Kind::scalar) throw UserError(mark_.str() + ": expected a string, got " + kind_name());
  return text_;
}

namespace {
constexpr std::size_t kLinear = 16;  // below this, a scan is as fast as hashing
}

std::size_t Node::position(std::string_view key) const {
  if (entries_.size() > kLinear && indexed_ == entries_.size()) {
    const auto it = index_.find(std::string(key));
    return it == index_.end() ? entries_.size() : it->second;
  }
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].first == key) return i;
  return entries_.size();
}

void Node::index_new_entries() {
  if (entries_.size() <= kLinear) return;
  if (indexed_ > entries_.size()) index_.clear(), indexed_ = 0;
  for (; indexed_ < entries_.size(); ++indexed_) index_.emplace(entries_[indexed_].first, indexed_);
}

const Node* Node::find(std::string_view key) const {
  const std::size_t i = position(key);
  return i < entries_.size() ? &entries_[i].second : nullptr;
}

Node* Node::find(std::string_view key) {
  const std::size_t i = position(key);
  return i < entries_.size() ? &entries_[i].second : nullptr;
}

Node& Node::set(std::string key, Node value) {
  if (kind_ != Kind::map) *this = map(mark_);
  if (Node* there = find(key)) return *there = std::move(value);
  entries_.emplace_back(std::move(key), std::move(value));
  index_new_entries();
  return entries_.back().second;
}

Node& Node::append(std::string key, Node value) {
  if (kind_ != Kind::map) *this = map(mark_);
  entries_.emplace_back(std::move(key), std::move(value));
  index_new_entries();
  return entries_.back().second;
}

bool Node::erase(std::string_view key) {
  const std::size_t i = position(key);
  if (i == entries_.size()) return false;
  entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
  index_.clear();  // positions after i moved
  indexed_ = 0;
  index_new_entries();
  return true;
}

std::vector<std::string> split_path(std::string_view dotted) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const auto dot = dotted.find('.', start);
    parts.emplace_back(dotted.substr(start, dot == std::string_view::npos ? dotted.npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

const Node* Node::find_path(std::string_view dotted) const {
  const Node* n = this;
  for (const auto& part : split_path(dotted)) {
    if (!n->is_map()) return nullptr;
    n = n->find(part);
    if (!n) return nullptr;
  }
  return n;
}

Node& Node::set_path(std::string_view dotted, Node value) {
  const auto parts = split_path(dotted);
  Node* n = this;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    Node* child = n->is_map() ? n->find(parts[i]) : nullptr;
    if (!child || !child->is_map()) child = &n->set(parts[i], map(value.mark()));
    n = child;
  }
  return n->set(parts.back(), std::move(value));
}

const Node& Node::at(std::string_view dotted) const {
  if (const Node* n = find_path(dotted)) return *n;
  throw UserError(mark_.str() + ": missing key '" + std::string(dotted) + "'");
}

}  // namespace loci::config
