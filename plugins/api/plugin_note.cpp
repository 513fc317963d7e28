#include "plugins/api/plugin_note.hpp"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <vector>

namespace loci::plugins {

namespace {

bool read_at(std::ifstream& in, std::uint64_t offset, void* out, std::size_t size, std::uint64_t file_size) {
  if (offset > file_size || size > file_size - offset) return false;
  in.seekg(static_cast<std::streamoff>(offset));
  return static_cast<bool>(in.read(static_cast<char*>(out), static_cast<std::streamsize>(size)));
}

bool terminated(const char* text, std::size_t size) { return std::memchr(text, '\0', size) != nullptr; }

}  // namespace

std::optional<PluginNote> read_plugin_note(const std::filesystem::path& file, std::string& why) {
  why.clear();
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(file, ec);
  std::ifstream in(file, std::ios::binary);
  Elf64_Ehdr eh{};
  if (ec || !in || !read_at(in, 0, &eh, sizeof eh, size) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    why = "not a shared library (no ELF header)";
    return std::nullopt;
  }
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shstrndx >= eh.e_shnum) {
    why = "not a 64-bit shared library loci can read";
    return std::nullopt;
  }
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  if (!read_at(in, eh.e_shoff, sections.data(), sections.size() * sizeof(Elf64_Shdr), size)) {
    why = "truncated (its section table lies beyond the end of the file)";
    return std::nullopt;
  }
  const Elf64_Shdr& names = sections[eh.e_shstrndx];
  std::vector<char> strings(names.sh_size + 1, '\0');
  if (!read_at(in, names.sh_offset, strings.data(), names.sh_size, size)) {
    why = "truncated (its section names lie beyond the end of the file)";
    return std::nullopt;
  }
  for (const auto& s : sections) {
    if (s.sh_name >= names.sh_size || std::strcmp(strings.data() + s.sh_name, kPluginNoteSection) != 0) continue;
    PluginNote note{};
    if (s.sh_size < sizeof note || !read_at(in, s.sh_offset, &note, sizeof note, size) ||
        std::memcmp(note.magic, kPluginNoteMagic, sizeof note.magic) != 0 || !terminated(note.name, sizeof note.name) ||
        !terminated(note.version, sizeof note.version) || !terminated(note.description, sizeof note.description)) {
      why = "its " + std::string(kPluginNoteSection) + " section is malformed";
      return std::nullopt;
    }
    return note;
  }
  return std::nullopt;
}

}  // namespace loci::plugins
