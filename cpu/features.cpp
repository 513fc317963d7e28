#include "cpu/features.hpp"

#include <fstream>
#include <map>
#include <sstream>

namespace loci::cpu {
namespace {

// The /proc/cpuinfo fields of the first CPU.
std::map<std::string, std::string> first_cpu_fields() {
  std::ifstream in("/proc/cpuinfo");
  std::map<std::string, std::string> fields;
  for (std::string line; std::getline(in, line) && !line.empty();) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    fields[key] = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
  }
  return fields;
}

std::string text(const std::map<std::string, std::string>& f, const std::string& key) {
  const auto it = f.find(key);
  return it == f.end() ? "" : it->second;
}

int number(const std::map<std::string, std::string>& f, const std::string& key) {
  try {
    return f.count(key) ? std::stoi(f.at(key)) : -1;
  } catch (const std::exception&) {
    return -1;
  }
}

}  // namespace

Features features_from_flags(const std::string& flags) {
  std::istringstream in(flags);
  Features c;
  for (std::string w; in >> w;) {
    if (w == "avx")
      c.avx = true;
    else if (w == "avx2")
      c.avx2 = true;
    else if (w == "fma")
      c.fma = true;
    else if (w == "avx512f")
      c.avx512f = true;
    else if (w == "avx512bw")
      c.avx512bw = true;
    else if (w == "avx512vl")
      c.avx512vl = true;
    else if (w == "avx512dq")
      c.avx512dq = true;
    else if (w == "avx512_bf16")
      c.avx512_bf16 = true;
  }
  return c;
}

const Features& features() {
  static const Features f = features_from_flags(text(first_cpu_fields(), "flags"));
  return f;
}

const Identity& identity() {
  static const Identity id = [] {
    const auto f = first_cpu_fields();
    Identity i;
    i.vendor = text(f, "vendor_id");
    i.model_name = text(f, "model name");
    i.family = number(f, "cpu family");
    i.model = number(f, "model");
    i.stepping = number(f, "stepping");
    return i;
  }();
  return id;
}

std::string Identity::microarchitecture() const {
  struct Range {
    const char* vendor;
    int family, first, last;
    const char* name;
  };
  static const Range ranges[] = {{"AuthenticAMD", 23, 0x00, 0x2f, "Zen / Zen+"},
                                 {"AuthenticAMD", 23, 0x30, 0xff, "Zen 2"},
                                 {"AuthenticAMD", 25, 0x00, 0x0f, "Zen 3"},
                                 {"AuthenticAMD", 25, 0x10, 0x1f, "Zen 4"},
                                 {"AuthenticAMD", 25, 0x20, 0x5f, "Zen 3"},
                                 {"AuthenticAMD", 25, 0x60, 0xaf, "Zen 4"},
                                 {"AuthenticAMD", 26, 0x00, 0xff, "Zen 5"},
                                 {"GenuineIntel", 6, 85, 85, "Skylake-SP / Cascade Lake / Cooper Lake"},
                                 {"GenuineIntel", 6, 106, 106, "Ice Lake-SP"},
                                 {"GenuineIntel", 6, 143, 143, "Sapphire Rapids"},
                                 {"GenuineIntel", 6, 207, 207, "Emerald Rapids"},
                                 {"GenuineIntel", 6, 173, 173, "Granite Rapids"}};
  for (const Range& r : ranges)
    if (vendor == r.vendor && family == r.family && model >= r.first && model <= r.last) return r.name;
  return "";
}

}  // namespace loci::cpu
