// Shard *layout*, not bytes: each input is a program that builds a well-formed HDF5 file through the HDF5 library
// (so HDF5's own parser is not what is tested) out of the objects a shard may hold or an attacker may plant:
// groups, datasets of any element type, rank and shape, stored contiguous, chunked (gzip, shuffle), compact,
// externally or as a virtual dataset; soft, external and hard links; dimension scales attached or not; root and
// array attributes of any type, loci_schema_version among them. The file is then opened as loci opens shards, pe.h5
// files and imported matrices: every array read. Whatever the layout, the readers return data or throw; a crash,
// sanitizer report, leak or hang is a finding.
#include <fuzzer/FuzzedDataProvider.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "datasets/array_file.hpp"
#include "datasets/matrix_file.hpp"
#include "datasets/shard_reader.hpp"
#include "fuzz_file.hpp"

namespace {

const std::string& scratch() {
  static const std::string dir = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
  static const std::string base = dir + "/loci-fuzz-layout-" + std::to_string(getpid());
  return base;
}

// Names a shard uses, and a few it does not: collisions and look-alikes are the point.
const char* const kNames[] = {"sample_id", "tokens", "label",     "positions", "sample", "token",
                              "channel",   "axis",   "condition", "g/inner",   "x",      "doc"};

hid_t element_type(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 8)) {
    case 0:
      return H5Tcopy(H5T_STD_U8LE);
    case 1:
      return H5Tcopy(H5T_STD_I32LE);
    case 2:
      return H5Tcopy(H5T_STD_I64LE);
    case 3:
      return H5Tcopy(H5T_IEEE_F32LE);
    case 4:
      return H5Tcopy(H5T_IEEE_F64BE);
    case 5: {
      hid_t t = H5Tcopy(H5T_C_S1);
      H5Tset_size(t, H5T_VARIABLE);
      return t;
    }
    case 6: {
      hid_t t = H5Tcopy(H5T_C_S1);
      H5Tset_size(t, static_cast<std::size_t>(in.ConsumeIntegralInRange<int>(1, 9)));
      return t;
    }
    case 7: {
      hid_t t = H5Tcreate(H5T_COMPOUND, 8);
      H5Tinsert(t, "a", 0, H5T_STD_I32LE);
      H5Tinsert(t, "b", 4, H5T_IEEE_F32LE);
      return t;
    }
    default:
      return H5Tcopy(H5T_STD_U16BE);
  }
}

void add_dataset(FuzzedDataProvider& in, hid_t file, const std::string& name, std::vector<std::string>& made) {
  const int rank = in.ConsumeIntegralInRange<int>(0, 3);
  hsize_t dims[3] = {0, 0, 0};
  hsize_t elements = 1;
  for (int i = 0; i < rank; ++i) elements *= dims[i] = in.ConsumeIntegralInRange<hsize_t>(0, 6);
  const hid_t type = element_type(in);
  const hid_t space = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims, nullptr);
  const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  hid_t source = -1;
  switch (in.ConsumeIntegralInRange<int>(0, 4)) {
    case 1:
      if (rank > 0 && elements > 0) {
        hsize_t chunk[3] = {1, 1, 1};
        for (int i = 0; i < rank; ++i) chunk[i] = std::max<hsize_t>(1, dims[i]);
        H5Pset_chunk(dcpl, rank, chunk);
        if (in.ConsumeBool()) H5Pset_shuffle(dcpl);
        if (in.ConsumeBool()) H5Pset_deflate(dcpl, 1);
      }
      break;
    case 2:
      H5Pset_layout(dcpl, H5D_COMPACT);
      break;
    case 3:
      H5Pset_external(dcpl, (scratch() + ".ext").c_str(), 0, H5F_UNLIMITED);
      break;
    case 4:
      if (rank > 0) {
        source = H5Screate_simple(rank, dims, nullptr);
        H5Pset_virtual(dcpl, space, (scratch() + ".src.h5").c_str(), "/v", source);
      }
      break;
    default:
      break;
  }
  const hid_t d = H5Dcreate2(file, name.c_str(), type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (d >= 0) {
    // Fixed-size data only: variable-length strings are left unwritten (HDF5 reads them back as empty).
    if (H5Tis_variable_str(type) <= 0 && H5Tget_size(type) * elements < (1u << 16)) {
      std::vector<std::uint8_t> bytes(H5Tget_size(type) * elements);
      for (auto& b : bytes) b = in.ConsumeIntegral<std::uint8_t>();
      if (!bytes.empty()) H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data());
    }
    if (in.ConsumeBool()) H5LTset_attribute_string(file, name.c_str(), "doc", in.ConsumeRandomLengthString(16).c_str());
    if (in.ConsumeBool() && rank == 1) H5DSset_scale(d, name.c_str());
    // Attach an earlier array as a dimension scale of this one, whatever their sizes.
    if (!made.empty() && rank > 0 && in.ConsumeBool()) {
      const std::string& other = made[in.ConsumeIntegralInRange<std::size_t>(0, made.size() - 1)];
      const hid_t s = H5Dopen2(file, other.c_str(), H5P_DEFAULT);
      if (s >= 0) {
        if (H5DSis_scale(s) <= 0) H5DSset_scale(s, other.c_str());
        H5DSattach_scale(d, s, static_cast<unsigned>(in.ConsumeIntegralInRange<int>(0, rank - 1)));
        H5Dclose(s);
      }
    }
    made.push_back(name);
    H5Dclose(d);
  }
  if (source >= 0) H5Sclose(source);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Tclose(type);
}

void add_root_attribute(FuzzedDataProvider& in, hid_t file) {
  const char* names[] = {"loci_schema_version", "generator", "condition_names", "classes", "strategy_names"};
  const char* name = names[in.ConsumeIntegralInRange<int>(0, 4)];
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: {
      const std::int64_t v = in.ConsumeBool() ? 1 : in.ConsumeIntegral<std::int64_t>();
      H5LTset_attribute_long_long(file, "/", name, reinterpret_cast<const long long*>(&v), 1);
      break;
    }
    case 1:
      H5LTset_attribute_string(file, "/", name, in.ConsumeRandomLengthString(24).c_str());
      break;
    case 2: {
      const double v[2] = {in.ConsumeFloatingPoint<double>(), 1.0};
      H5LTset_attribute_double(file, "/", name, v, in.ConsumeIntegralInRange<std::size_t>(1, 2));
      break;
    }
    default: {
      const int v[3] = {1, 2, 3};
      H5LTset_attribute_int(file, "/", name, v, 3);
    }
  }
}

std::string build(FuzzedDataProvider& in) {
  const std::string path = scratch() + ".h5";
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file < 0) __builtin_trap();
  std::vector<std::string> made;
  const int steps = in.ConsumeIntegralInRange<int>(0, 10);
  for (int s = 0; s < steps && in.remaining_bytes() > 0; ++s) {
    const std::string name = kNames[in.ConsumeIntegralInRange<int>(0, 11)];
    switch (in.ConsumeIntegralInRange<int>(0, 6)) {
      case 0:
        add_root_attribute(in, file);
        break;
      case 1: {
        const hid_t g = H5Gcreate2(file, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (g >= 0) H5Gclose(g);
        break;
      }
      case 2:
        H5Lcreate_soft(kNames[in.ConsumeIntegralInRange<int>(0, 11)], file, name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
        break;
      case 3:
        H5Lcreate_external((scratch() + ".src.h5").c_str(), "/v", file, name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
        break;
      case 4:
        if (!made.empty())
          H5Lcreate_hard(file, made[in.ConsumeIntegralInRange<std::size_t>(0, made.size() - 1)].c_str(), file,
                         name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
        break;
      default:
        add_dataset(in, file, name, made);
    }
  }
  H5Fclose(file);
  return path;
}

// The source of external links and virtual datasets: a small file of its own beside the input.
void make_sources() {
  static bool made = false;
  if (made) return;
  made = true;
  const hid_t f = H5Fcreate((scratch() + ".src.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hsize_t n = 6;
  const double v[6] = {1, 2, 3, 4, 5, 6};
  H5LTmake_dataset_double(f, "/v", 1, &n, v);
  H5Fclose(f);
  std::FILE* ext = std::fopen((scratch() + ".ext").c_str(), "wb");
  if (ext) {
    const char bytes[256] = {1};
    std::fwrite(bytes, 1, sizeof bytes, ext);
    std::fclose(ext);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  make_sources();
  FuzzedDataProvider in(data, size);
  const std::string path = build(in);
  try {
    loci::fuzz::read_shard_file(path);
  } catch (const std::exception&) {
  }
  try {
    (void)loci::datasets::read_array_file(path);
  } catch (const std::exception&) {
  }
  try {
    (void)loci::datasets::read_matrix(path);
  } catch (const std::exception&) {
  }
  return 0;
}
