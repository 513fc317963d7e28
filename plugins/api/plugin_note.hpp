// What a plugin library says about itself without running any of its code: LOCI_PLUGIN and LOCI_EXTENSION place a
// fixed-layout record in the ELF section `.loci_plugin`, which the host reads from the file before it decides to
// dlopen it (dlopen runs a library's constructors, so checking the ABI after dlopen is checking too late).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace loci::plugins {

struct PluginNote {
  char magic[8];  // "LOCIPLG"
  int abi_version;
  int kind;  // loci_plugin_kind
  char name[64];
  char version[32];
  char description[256];
};

constexpr const char* kPluginNoteSection = ".loci_plugin";
constexpr const char kPluginNoteMagic[8] = "LOCIPLG";

// The note of an ELF shared library, std::nullopt when it has none; `why` says what is wrong when the file is not
// a readable 64-bit ELF file or its note is malformed (then also std::nullopt).
std::optional<PluginNote> read_plugin_note(const std::filesystem::path& file, std::string& why);

}  // namespace loci::plugins
