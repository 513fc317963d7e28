// The NIfTI header path, field by field: each input sets a NIfTI-1 header's fields (dimensions and their count,
// datatype and bitpix, vox_offset, scaling, qform and sform codes, quaternion and rows, magic), then voxel bytes,
// stored as one .nii, a .hdr/.img pair or gzip-compressed. Raw bytes (fuzz_tables) rarely get past libnifti's
// checks; here every input is a header libnifti parses, so loci's own checks (claimed size, memory budget, 3-D,
// affine, datatype, labels) are what is tested. The reader returns a volume or throws; nothing else.
#include <fuzzer/FuzzedDataProvider.h>
#include <unistd.h>
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/volume/nifti.hpp"

namespace {

template <class T>
void put(std::vector<std::uint8_t>& h, std::size_t at, T v) {
  std::memcpy(&h[at], &v, sizeof v);
}

std::vector<std::uint8_t> header(FuzzedDataProvider& in, bool pair) {
  std::vector<std::uint8_t> h(348, 0);
  put<std::int32_t>(h, 0, 348);
  const std::int16_t rank = in.ConsumeIntegralInRange<std::int16_t>(0, 8);
  put<std::int16_t>(h, 40, rank);
  for (int i = 1; i <= 7; ++i) {
    // Mostly small sides; now and then a huge or negative one.
    const std::int16_t side =
        in.ConsumeBool() ? in.ConsumeIntegralInRange<std::int16_t>(0, 9) : in.ConsumeIntegral<std::int16_t>();
    put<std::int16_t>(h, 40 + 2 * static_cast<std::size_t>(i), side);
  }
  const std::int16_t types[] = {2, 4, 8, 16, 64, 256, 512, 768, 1024, 1280, 128, 32, 0, 7};
  const std::int16_t type = types[in.ConsumeIntegralInRange<int>(0, 13)];
  put<std::int16_t>(h, 70, type);
  put<std::int16_t>(h, 72, in.ConsumeBool() ? in.ConsumeIntegral<std::int16_t>() : std::int16_t(8));
  for (int i = 0; i < 8; ++i)
    put<float>(h, 76 + 4 * static_cast<std::size_t>(i), in.ConsumeBool() ? 1.0f : in.ConsumeFloatingPoint<float>());
  put<float>(h, 108, pair ? 0.0f : (in.ConsumeBool() ? 352.0f : in.ConsumeFloatingPoint<float>()));
  put<float>(h, 112, in.ConsumeBool() ? 0.0f : in.ConsumeFloatingPoint<float>());  // scl_slope
  put<float>(h, 116, in.ConsumeBool() ? 0.0f : in.ConsumeFloatingPoint<float>());  // scl_inter
  put<std::int16_t>(h, 252, in.ConsumeIntegralInRange<std::int16_t>(-1, 5));       // qform_code
  put<std::int16_t>(h, 254, in.ConsumeIntegralInRange<std::int16_t>(-1, 5));       // sform_code
  for (std::size_t at = 256; at < 344; at += 4)
    put<float>(h, at, in.ConsumeBool() ? 0.0f : in.ConsumeFloatingPoint<float>());
  std::memcpy(&h[344], pair ? "ni1\0" : "n+1\0", 4);
  return h;
}

void write(const std::string& path, const std::vector<std::uint8_t>& bytes, bool gz) {
  if (gz) {
    gzFile f = gzopen(path.c_str(), "wb1");
    if (!f) __builtin_trap();
    if (!bytes.empty()) gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(f);
    return;
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) __builtin_trap();
  if (!bytes.empty()) std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string dir = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
  const std::string base = dir + "/loci-fuzz-nifti-" + std::to_string(getpid());
  FuzzedDataProvider in(data, size);
  const bool pair = in.ConsumeBool(), gz = in.ConsumeBool();
  std::vector<std::uint8_t> h = header(in, pair);
  const std::vector<std::uint8_t> voxels = in.ConsumeRemainingBytes<std::uint8_t>();
  std::string path;
  if (pair) {
    path = base + (gz ? ".hdr.gz" : ".hdr");
    write(path, h, gz);
    write(base + (gz ? ".img.gz" : ".img"), voxels, gz);
  } else {
    path = base + (gz ? ".nii.gz" : ".nii");
    h.resize(352, 0);  // the extension flag: none
    h.insert(h.end(), voxels.begin(), voxels.end());
    write(path, h, gz);
  }
  try {
    (void)loci::sim::volume::read_nifti_labels(path);
  } catch (const std::exception&) {
  }
  return 0;
}
