// A disk that fills while a run writes: whichever file the last bytes were meant for (pe.h5, metrics, a
// checkpoint), the run stops with one `loci: error:` line naming it, leaves no temporary file behind and keeps what
// it had. A 2 MiB tmpfs is filled to leave 16 KiB ... 512 KiB free; skipped where tmpfs cannot be mounted.
#include <catch2/catch.hpp>

#include <sys/mount.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/plugins/torch_trainer/trainer_fixture.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

namespace fs = std::filesystem;

namespace {

struct Tmpfs {
  fs::path dir;
  bool mounted = false;
  explicit Tmpfs(fs::path d) : dir(std::move(d)) {
    fs::create_directories(dir);
    mounted = ::mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=2m") == 0;
  }
  ~Tmpfs() {
    if (mounted) ::umount(dir.c_str());
  }
};

std::size_t free_bytes(const fs::path& dir) { return fs::space(dir).available; }

}  // namespace

TEST_CASE("a full disk during training is one error line, never a crash, and leaves no temporary file") {
  loci::test::TempDir dir;
  Tmpfs disk(dir.path() / "disk");
  if (!disk.mounted) {
    WARN("tmpfs cannot be mounted here (not root?); the full-disk test is skipped");
    return;
  }
  const auto cfg = loci::test::train_config(dir);
  int failed_cleanly = 0, checkpoint_failures = 0;
  for (std::size_t leave : {16u << 10, 48u << 10, 96u << 10, 160u << 10, 224u << 10, 320u << 10, 512u << 10}) {
    for (const auto& e : fs::directory_iterator(disk.dir)) fs::remove_all(e.path());
    {  // fill the disk up to `leave` bytes free, in one write (a buffered loop would overshoot)
      const std::size_t avail = free_bytes(disk.dir);
      std::ofstream fill(disk.dir / "fill", std::ios::binary);
      const std::string bytes(avail > leave ? avail - leave : 0, 'x');
      fill.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    const auto r = loci::test::run_loci("train -q " + cfg + " out=" + (disk.dir / "run").string());
    INFO("free " << leave << " bytes: exit " << r.exit_code << "\n" << r.output);
    CHECK((r.exit_code == 0 || r.exit_code == 1));
    CHECK(r.output.find("terminate called") == std::string::npos);
    if (r.exit_code == 1) {
      ++failed_cleanly;
      CHECK(r.output.rfind("loci: error: ", 0) == 0);
      CHECK(r.output.find(disk.dir.string()) != std::string::npos);  // names the file it could not write
      if (r.output.find("checkpoints/last.pt: write failed") != std::string::npos) ++checkpoint_failures;
    }
    for (const auto& e : fs::recursive_directory_iterator(disk.dir)) CHECK(e.path().extension() != ".tmp");
  }
  CHECK(failed_cleanly > 0);       // the sizes above do run out of space somewhere
  CHECK(checkpoint_failures > 0);  // and some of them while the checkpoint is written
}
