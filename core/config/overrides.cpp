#include "core/config/overrides.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "core/config/yaml_io.hpp"
#include "core/error.hpp"
#include "core/printable.hpp"

namespace loci::config {

namespace {

// A dotted key path: parts of letters, digits, '_' and '-', the first starting with a letter or '_', none empty.
// Scanned by hand in one pass: std::regex recurses per character and overflows the stack on a long key.
bool valid_key_path(std::string_view path) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; };
  bool part_start = true, first_part = true;
  for (char c : path) {
    if (c == '.') {
      if (part_start) return false;
      part_start = true;
      first_part = false;
      continue;
    }
    if (!word(c)) return false;
    if (part_start && first_part && !(std::isalpha(static_cast<unsigned char>(c)) || c == '_')) return false;
    if (part_start && !first_part && c == '-') return false;
    part_start = false;
  }
  return !path.empty() && !part_start;
}

// Longer keys name nothing any schema holds; the bound keeps every message about one short and its checks cheap.
constexpr std::size_t kMaxKeyPath = 256;

// The argument as an error shows it: whole when short, else its start and its length, so the line stays one line.
std::string where(std::string_view arg) {
  constexpr std::size_t shown = 100;
  if (arg.size() <= shown + 20) return "command line '" + printable(arg) + "'";
  return "command line '" + printable(arg.substr(0, shown)) + "...' (" + std::to_string(arg.size()) + " characters)";
}

void restamp(Node& n, const Mark& m) {
  n.set_mark(m);
  n.set_key_mark(m);
  for (auto& item : n.items()) restamp(item, m);
  for (auto& e : n.entries()) restamp(e.second, m);
}

std::string format_number(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, res.ptr);
  return s;
}

std::string format_fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s += '0';
  }
  return s == "-0.0" ? "0.0" : s;
}

constexpr double kMaxSweepPoints = 100000;

std::vector<std::string> expand_range(std::string_view key, std::string_view inner, std::string_view arg) {
  std::vector<double> args;
  bool all_int = true;
  int decimals = 0;  // printed values keep the precision the user wrote, so 0.1 steps give 0.3, not 0.30000000000000004
  bool exponent = false;
  std::size_t start = 0;
  while (start <= inner.size()) {
    auto comma = inner.find(',', start);
    std::string part(inner.substr(start, comma == inner.npos ? inner.npos : comma - start));
    part.erase(0, part.find_first_not_of(" \t"));
    part.erase(part.find_last_not_of(" \t") + 1);
    char* end = nullptr;
    const double v = std::strtod(part.c_str(), &end);
    if (part.empty() || *end != '\0')
      throw UserError(where(arg) + ": range() takes numbers, got '" + printable(part) + "'");
    if (part.find_first_of(".eE") != std::string::npos) all_int = false;
    if (part.find_first_of("eE") != std::string::npos) exponent = true;
    if (const auto dot = part.find('.'); dot != std::string::npos)
      decimals = std::max(decimals, static_cast<int>(part.size() - dot - 1));
    args.push_back(v);
    if (comma == inner.npos) break;
    start = comma + 1;
  }
  if (args.size() < 2 || args.size() > 3)
    throw UserError(where(arg) + ": range() takes (start, stop) or (start, stop, step)");
  const double lo = args[0], hi = args[1], step = args.size() == 3 ? args[2] : 1.0;
  if (step == 0.0) throw UserError(where(arg) + ": range() step must not be 0");
  std::vector<std::string> out;
  // Integers are printed exactly; beyond 2^53 a double no longer holds every integer (and rounding one to a long
  // long would overflow). Checked first: near 2^63 the two ends round to one double and the range looks empty.
  constexpr double kExactInteger = 9007199254740992.0;
  if (!std::isfinite(lo) || !std::isfinite(hi) || !std::isfinite(step))
    throw UserError(where(arg) + ": range() needs finite numbers");
  if (all_int && (std::fabs(lo) > kExactInteger || std::fabs(hi) > kExactInteger))
    throw UserError(where(arg) + ": range() integers must lie within +-2^53 (9007199254740992)");
  // Like Python's range: stop is excluded. Count steps to avoid accumulating float error.
  const double n = std::ceil((hi - lo) / step - 1e-9);
  if (!std::isfinite(n)) throw UserError(where(arg) + ": range() needs finite numbers");
  if (n > kMaxSweepPoints) throw UserError(where(arg) + ": range() gives more than 100000 values");
  if (n < 1) throw UserError(where(arg) + ": range() for '" + printable(key) + "' is empty");
  for (long i = 0; i < static_cast<long>(n); ++i) {
    const double v = lo + static_cast<double>(i) * step;
    if (all_int)
      out.push_back(std::to_string(static_cast<long long>(std::llround(v))));
    else if (exponent)
      out.push_back(format_number(v));
    else
      out.push_back(format_fixed(v, decimals));
  }
  if (out.empty()) throw UserError(where(arg) + ": range() for '" + printable(key) + "' is empty");
  return out;
}

}  // namespace

Override parse_override(std::string_view arg) {
  const auto eq = arg.find('=');
  if (eq == std::string_view::npos) throw UserError(where(arg) + ": an override is written key.path=value");
  std::string_view path = arg.substr(0, eq);
  if (!path.empty() && path.front() == '+') path.remove_prefix(1);  // Hydra's "add a key" spelling
  if (path.size() > kMaxKeyPath)
    throw UserError(where(arg) + ": a key path of " + std::to_string(path.size()) + " characters; keys are at most " +
                    std::to_string(kMaxKeyPath));
  if (!valid_key_path(path))
    throw UserError(where(arg) + ": '" + printable(path) + "' is not a key path (names joined by dots)");
  const std::string value_text(arg.substr(eq + 1));
  const Mark m{where(arg), 0, 0};
  Node value = value_text.empty() ? Node::scalar("", m, true) : parse_yaml(value_text, where(arg));
  restamp(value, m);
  return Override{std::string(path), std::move(value), std::string(arg)};
}

void apply_override(Node& root, const Override& o) {
  if (!root.is_map()) root = Node::map(root.mark());
  root.set_path(o.path, o.value);
}

void apply_overrides(Node& root, const std::vector<std::string>& args) {
  for (const auto& a : args) apply_override(root, parse_override(a));
}

std::vector<std::string> sweep_values(std::string_view key, std::string_view values) {
  std::string_view trimmed = values;
  while (!trimmed.empty() && trimmed.front() == ' ') trimmed.remove_prefix(1);
  if (trimmed.substr(0, 6) == "range(" && trimmed.back() == ')')
    return expand_range(key, trimmed.substr(6, trimmed.size() - 7), std::string(key) + "=" + std::string(values));

  std::vector<std::string> out;
  int depth = 0;
  char quote = 0;
  std::string current;
  for (char c : values) {
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '[' || c == '{' || c == '(') {
      ++depth;
    } else if (c == ']' || c == '}' || c == ')') {
      --depth;
    } else if (c == ',' && depth == 0) {
      out.push_back(current);
      current.clear();
      continue;
    }
    current += c;
  }
  if (quote || depth != 0)
    throw UserError(where(std::string(key) + "=" + std::string(values)) + ": unbalanced quotes or brackets");
  out.push_back(current);
  for (const auto& v : out)
    if (v.empty())
      throw UserError(where(std::string(key) + "=" + std::string(values)) + ": empty value in the sweep list");
  return out;
}

std::vector<std::vector<std::string>> expand_sweep(const std::vector<std::string>& args) {
  // Every axis is read, and the grid's size checked, before a point is built, and each point is then built once
  // (found by fuzzing: building the grid up to the bound before refusing it, or growing every point axis by axis,
  // took seconds for sweeps of many axes).
  std::vector<std::vector<std::string>> axes;  // per axis, its "key=value" overrides
  double grid = 1;
  for (const auto& arg : args) {
    const auto eq = arg.find('=');
    if (eq == std::string::npos) throw UserError(where(arg) + ": a sweep is written key=v1,v2 or key=range(a,b)");
    const std::string key = arg.substr(0, eq);
    const auto values = sweep_values(key, std::string_view(arg).substr(eq + 1));
    grid *= static_cast<double>(values.size());
    if (grid > kMaxSweepPoints) throw UserError(where(arg) + ": the sweep would make more than 100000 runs");
    auto& axis = axes.emplace_back();
    for (const auto& v : values) axis.push_back(key + "=" + v);
  }
  // Each point holds every axis, single values too. A sweep's own axes have two or more values each, so at most
  // 16 of them fit in the bound; what goes past 16 per point at the bound is single values repeated in every
  // point (the command line keeps those out of the grid: they are plain overrides).
  if (grid * static_cast<double>(axes.size()) > kMaxSweepPoints * 16)
    throw UserError("sweep: " + std::to_string(static_cast<long>(grid)) + " runs of " + std::to_string(axes.size()) +
                    " overrides each are more than loci builds; give single values as plain overrides");
  // Point i in mixed radix, the last axis the fastest: the first axis's values stay together, in order.
  const auto points = static_cast<std::size_t>(grid);
  std::vector<std::vector<std::string>> out(points);
  for (std::size_t i = 0; i < points; ++i) {
    auto& point = out[i];
    point.resize(axes.size());
    std::size_t rest = i;
    for (std::size_t a = axes.size(); a-- > 0;) {
      point[a] = axes[a][rest % axes[a].size()];
      rest /= axes[a].size();
    }
  }
  return out;
}

}  // namespace loci::config
