// No library loci builds may be looked up in the working folder: the dynamic loader reads an empty RUNPATH entry
// ("lib::") as the current directory, so a library planted there would run. Every ELF of the build tree is read.
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;

namespace {

bool is_elf(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return in && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
}

std::string runpath_of(const fs::path& p) {
  const std::string cmd = "readelf -d '" + p.string() + "' 2>/dev/null";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (pipe && std::fgets(buf.data(), buf.size(), pipe)) out += buf.data();
  if (pipe) pclose(pipe);
  for (const char* tag : {"Library runpath: [", "Library rpath: ["}) {
    const auto at = out.find(tag);
    if (at != std::string::npos) {
      const auto start = at + std::string(tag).size();
      return out.substr(start, out.find(']', start) - start);
    }
  }
  return "";
}

}  // namespace

TEST_CASE("no built executable or library has an empty RUNPATH entry") {
  int checked = 0;
  for (const char* dir : {"bin", "lib"})
    for (const auto& e : fs::recursive_directory_iterator(fs::path(LOCI_BUILD_DIR) / dir)) {
      if (!e.is_regular_file() || !is_elf(e.path())) continue;
      const std::string rp = runpath_of(e.path());
      INFO(e.path().string() << ": RUNPATH [" << rp << "]");
      ++checked;
      if (rp.empty()) continue;
      CHECK(rp.front() != ':');
      CHECK(rp.back() != ':');
      CHECK(rp.find("::") == std::string::npos);
    }
  CHECK(checked > 5);
}
