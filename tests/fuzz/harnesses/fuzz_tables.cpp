// The readers of users' files: numeric tables (CSV / TSV, as imported series and centroid atlases), the LST puzzle
// CSV, atlas label files and NIfTI label volumes. The first byte picks the reader, the rest is the file. Each either
// reads or throws; nothing else.
#include <cstddef>
#include <cstdint>
#include <sstream>

#include "datasets/matrix_file.hpp"
#include "fuzz_file.hpp"
#include "sim/lst/csv.hpp"
#include "sim/volume/label_names.hpp"
#include "sim/volume/nifti.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int reader = data[0] % 4;
  ++data, --size;
  try {
    switch (reader) {
      case 0:
        (void)loci::datasets::read_matrix(loci::fuzz::input_file(data, size, ".csv"));
        break;
      case 1: {
        std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
        (void)loci::sim::lst::parse_human_puzzles(in, "fuzz.csv");
        break;
      }
      case 2:
        (void)loci::sim::volume::read_label_names(loci::fuzz::input_file(data, size, ".txt"));
        break;
      default:
        (void)loci::sim::volume::read_nifti_labels(loci::fuzz::input_file(data, size, ".nii"));
        break;
    }
  } catch (const std::exception&) {
  }
  return 0;
}
